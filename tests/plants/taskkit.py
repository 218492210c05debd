"""The scaffolding every task test repeats, so each test file keeps only its task's checks:
the reference text, a verification that must be free of compile/bind errors, one-change
mutants and how they must fail, the declaration's rendered rules, the baselines' verdicts,
reference traces and a kernel-free plant drive.

The module-scoped fixtures built on these (`cache_dir`, `reference_run`, `idle_run`,
`recorded_outputs`, `replay_run`) live in `conftest.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from plants.tasks.render import render_markdown
from plants.tasks.spec import TaskSpec
from stc.compiler import compile_source
from verifier.bind import bind
from verifier.kernel import run_kernel
from verifier.results import ConditionResult, validate_result
from verifier.verify import Verification, verify_source


def reference_text(task: TaskSpec, plant: ModuleType) -> str:
    """The task's reference program, read from the folder of its plant binding."""
    return (Path(plant.__file__).parent / task.reference).read_text()


def verify(text: str, task: TaskSpec, cache_dir: Path, *, validate: bool = True) -> Verification:
    """Verify a program that must compile and bind (a test program, never a solver's), and
    check the result JSON against the schema unless `validate` is off."""
    v = verify_source(text, task, "p.st", cache_dir=cache_dir)
    if validate:
        validate_result(v.result)
    assert not v.diagnostics.has_errors, v.diagnostics.render(text)
    return v


def task_verifier(task: TaskSpec, *, validate: bool = True) -> Callable[..., Verification]:
    """`_verify(text, cache_dir, task=task)` bound to one task, the call every task test makes."""

    def _verify(text: str, cache_dir: Path, task: TaskSpec = task) -> Verification:
        return verify(text, task, cache_dir, validate=validate)

    return _verify


def edited(reference: str, edits: Iterable[tuple[str, str]], *, unique: bool = True) -> str:
    """The reference with each `(old, new)` text replacement applied in turn; every `old`
    must occur (exactly once when `unique`), so a stale mutant cannot pass silently."""
    text = reference
    for old, new in edits:
        if unique:
            assert text.count(old) == 1, old
        else:
            assert old in text, old
        text = text.replace(old, new)
    return text


def assert_fails_as(cond: ConditionResult, expected: str) -> None:
    """The condition failed with safety code `expected` ("S-...") or a reason containing it."""
    assert not cond.passed
    if expected.startswith("S-"):
        assert cond.violation is not None and cond.violation.code == expected
    else:
        assert expected in (cond.reason or ""), cond.reason


def assert_fails_with(v: Verification, failing: Iterable[int], code: str, reason: str,
                      name: str = "") -> None:
    """Every condition index in `failing` failed, with safety code `code` and a reason
    containing `reason` where those are non-empty."""
    for c in failing:
        cond = v.conditions[c]
        assert not cond.passed, (name, c)
        if code:
            assert cond.violation is not None and cond.violation.code == code, (name, c)
        if reason:
            assert cond.reason and reason in cond.reason, (name, c, cond.reason)


def drive(plant: ModuleType, task: TaskSpec, c: int, program: Callable[[int, np.ndarray], Any],
          n_ticks: int, *, judge_next_tick: bool = True, stop_at_outcome: bool = False
          ) -> tuple[tuple[np.ndarray, ...], np.ndarray, list[tuple]]:
    """Run the plant of condition `c` in Python with a scan function ``program(k, inp) -> out``
    (no compiler, no kernel); returns the plant state, the input images and the judge's answers
    per tick. The judge gets tick k + 1 (or k), and the run ends at the first outcome if asked."""
    state = tuple(np.ascontiguousarray(a) for a in plant.build(task))
    inp, out = np.zeros(len(task.inputs)), np.zeros(len(task.outputs))
    inputs, verdicts = [], []
    for k in range(n_ticks):
        plant.sense(state, c, k, inp)
        out[:] = program(k, inp)
        plant.advance(state, c, k, out)
        inputs.append(inp.copy())
        verdicts.append(plant.judge(state, c, k + 1 if judge_next_tick else k, inp, out))
        if stop_at_outcome and verdicts[-1][1] != 0:
            break
    return state, np.array(inputs), verdicts


def traces(text: str, task: TaskSpec, cache_dir: Path, conditions: Iterable[int]
           ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Input and output images, per scan, of a program in each of `conditions` (compiled once)."""
    compiled = compile_source(text, "ref.st", cache_dir=cache_dir)
    binding = bind(compiled.program, task)
    result = {}
    for c in conditions:
        run = run_kernel(compiled.program, binding, task, cache_dir=cache_dir, trace_condition=c)
        result[c] = (run.trace_in, run.trace_out)
    return result


def rendered_rules(task: TaskSpec, plant: ModuleType, *, exactly: bool = True
                   ) -> tuple[str, dict[str, str]]:
    """The solver's text and the task's rules by code, checking that the text states every
    rule the plant's judge can raise, in full (and, when `exactly`, that the task declares no
    rule the judge cannot raise)."""
    text = render_markdown(task)
    rules = {r.code: r.text for r in task.safety}
    if exactly:
        assert sorted(rules) == sorted(plant.VIOLATIONS)
    for code in plant.VIOLATIONS:
        assert f"**{code}**: {rules[code]}" in text
    return text, rules


def assert_every_condition_fails(v: Verification, n: int, reason: str = "") -> None:
    """All `n` conditions failed (a baseline's verdict), each with `reason` in its reason."""
    assert [c.success for c in v.conditions] == [False] * n
    if reason:
        assert all(reason in c.reason for c in v.conditions)


def assert_only_condition_1_passes(v: Verification, *, all_others: bool) -> None:
    """Condition 1 passed (the replayed one) and the others did not: every other one when
    `all_others`, else at least one."""
    passed = [c.passed for c in v.conditions]
    assert passed[0] and not (any(passed[1:]) if all_others else all(passed[1:]))
