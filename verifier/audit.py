"""Task audit: the README's "a task is done when" as checks any task gets for free.

Per task: the declaration is sound and its I/O map binds the reference cleanly; the reference
passes every condition, also with 15 % margin (time limits and the task's `deadlines` judge
allowances shrunk by 1.15); the idle program fails every condition; the blind replay of the
reference's condition-1 outputs fails at least one condition; every safety code the plant's
judge can raise is spelled out in the rendered text; every condition lies inside the published
ranges, which must be data (`TaskSpec.ranges`) for that to be checkable.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plants.tasks.render import render_markdown
from plants.tasks.spec import TaskSpec
from stc.compiler import compile_source
from verifier.baselines import idle_program, record_outputs, replay_program
from verifier.bind import bind
from verifier.kernel import plant_module
from verifier.verify import Verification, verify_source

MARGIN = 1.15
CHECKS = ("declaration", "io map", "safety text", "ranges", "reference", "margin", "idle", "replay")


@dataclass(frozen=True)
class Finding:
    """One check of one task: passed or not, and why in words."""

    check: str
    ok: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "ok": self.ok, "detail": self.detail}


@dataclass
class TaskAudit:
    task: TaskSpec
    findings: list[Finding] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(f.ok for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.task.id, "title": self.task.title, "passed": self.passed,
                "findings": [f.to_json() for f in self.findings]}


def tightened(task: TaskSpec, margin: float = MARGIN) -> TaskSpec:
    """The task with its deadlines (and, unless it runs to T, its time limits) divided by
    `margin`: a reference that still passes has that margin (A6/A16)."""
    judge = {k: (v / margin if k in task.deadlines else v) for k, v in task.judge.items()}
    conditions = task.conditions if task.run_to_t else tuple(
        dataclasses.replace(c, time_limit_s=round(task.time_limit(c) / margin, 2)) for c in task.conditions)
    return dataclasses.replace(task, judge=judge, conditions=conditions)


def _failing(v: Verification) -> list[str]:
    return [c.name for c in v.conditions if not c.passed]


def _why(v: Verification) -> str:
    if not v.conditions:
        return "does not compile or bind: " + "; ".join(d.message for d in v.diagnostics.items)[:300]
    return "; ".join(f"{c.name}: {c.reason}" for c in v.conditions if not c.passed)


def _declaration(task: TaskSpec) -> list[Finding]:
    problems = task.validate()
    return [Finding("declaration", not problems, "; ".join(problems) or "sound")]


def _io_map(task: TaskSpec, reference: str, cache_dir: Path | None) -> list[Finding]:
    compiled = compile_source(reference, f"{task.id}/{task.reference}", cache_dir=cache_dir)
    if compiled.program is None:
        return [Finding("io map", False, "the reference does not compile")]
    binding = bind(compiled.program, task, task.reference)
    items = [d.message for d in binding.diagnostics.items]
    return [Finding("io map", binding.ok and not items,
                    "; ".join(items) or "the reference binds to the map without a diagnostic")]


def _safety_text(task: TaskSpec) -> list[Finding]:
    text = render_markdown(task)
    rules = {r.code: r.text for r in task.safety}
    codes = plant_module(task).VIOLATIONS
    missing = [c for c in codes if c not in rules or f"**{c}**: {rules[c]}" not in text]
    return [Finding("safety text", not missing,
                    f"judged but not in the text: {', '.join(missing)}" if missing
                    else f"all {len(codes)} judged codes are in the text")]


def _ranges(task: TaskSpec) -> list[Finding]:
    problems = task.range_findings()
    return [Finding("ranges", not problems, "; ".join(problems[:5]) + (" ..." if len(problems) > 5 else "")
                    or f"{len(task.conditions)} conditions inside {len(task.ranges)} published ranges")]


def _runs(task: TaskSpec, reference: str, cache_dir: Path | None) -> list[Finding]:
    ref = verify_source(reference, task, task.reference, cache_dir=cache_dir)
    findings = [Finding("reference", ref.reward == 1, _why(ref) or "passes every condition")]
    if task.run_to_t and not task.deadlines:
        findings.append(Finding("margin", False, "the task runs to T and declares no deadlines: the "
                                                 "15 % margin cannot be checked"))
    else:
        tight = verify_source(reference, tightened(task), task.reference, cache_dir=cache_dir)
        on = ", ".join([*task.deadlines] + ([] if task.run_to_t else ["T"]))
        unchecked = "" if task.deadlines else " (no deadlines declared: judge allowances unchecked)"
        findings.append(Finding("margin", tight.reward == 1,
                                _why(tight) or f"passes with {on} divided by {MARGIN}{unchecked}"))
    idle = verify_source(idle_program(task), task, "<idle>", cache_dir=cache_dir)
    passed = [c.name for c in idle.conditions if c.passed]
    findings.append(Finding("idle", bool(idle.conditions) and not passed,
                            f"the idle program passes {', '.join(passed)}" if passed
                            else "fails every condition" if idle.conditions else _why(idle)))
    if ref.reward != 1:
        findings.append(Finding("replay", False, "needs a passing reference"))
        return findings
    replay = verify_source(replay_program(task, record_outputs(task, reference, 0, cache_dir=cache_dir)),
                           task, "<replay>", cache_dir=cache_dir)
    failing = _failing(replay)
    findings.append(Finding("replay", bool(failing),
                            f"the blind replay of {task.conditions[0].name} fails {', '.join(failing)}"
                            if failing else "the blind replay passes every condition"))
    return findings


def audit_task(task: TaskSpec, *, cache_dir: Path | None = None) -> TaskAudit:
    """Every check of one task; a check that crashes is a failed finding, never an exception."""
    result = TaskAudit(task)
    try:
        reference = (Path(plant_module(task).__file__).parent / task.reference).read_text(encoding="utf-8")
    except (ImportError, OSError) as exc:
        result.findings.append(Finding("declaration", False, f"plant or reference missing: {exc}"))
        return result
    steps = (lambda: _declaration(task), lambda: _io_map(task, reference, cache_dir), lambda: _safety_text(task),
             lambda: _ranges(task), lambda: _runs(task, reference, cache_dir))
    for name, step in zip(("declaration", "io map", "safety text", "ranges", "runs"), steps, strict=True):
        try:
            result.findings += step()
        except Exception as exc:  # noqa: BLE001 - one broken task must not stop the audit
            result.findings.append(Finding(name, False, f"internal error: {type(exc).__name__}: {exc}"))
    return result
