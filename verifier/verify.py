"""One program on one task: compile -> bind -> run every condition -> result JSON.

Compile and binding errors give reward 0 with the diagnostics in the result and no
condition runs. A runtime error stops only its condition (code, POU, line, scan, time);
the others still run. Besides the JSON (verifier/results.py), every condition gets a
one-line human reason for the command line.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from plants.tasks.spec import TaskSpec
from stc.codegen.program import CompiledProgram
from stc.compiler import compile_source
from stc.diagnostics import Diagnostics
from verifier.bind import bind
from verifier.kernel import KernelRun, plant_module, run_kernel
from verifier.kernel_source import (
    V_ERROR_SCAN,
    V_FAIL,
    V_FAIL_TICK,
    V_SUCCESS,
    V_TICKS,
    V_VIOLATION,
    V_VIOLATION_TICK,
)
from verifier.results import ConditionResult, RuntimeErrorRecord, Violation, build_result

DT_S = 0.01


@dataclass
class Verification:
    """Everything one verification produced: the JSON, all diagnostics, per-condition reasons."""

    result: dict[str, Any]  # the result JSON object (schema plantloop.result/1)
    diagnostics: Diagnostics
    conditions: list[ConditionResult] = field(default_factory=list)
    kernel_seconds: float = 0.0

    @property
    def reward(self) -> int:
        return int(self.result["reward"])


def _t(tick: int) -> float:
    return round(tick * DT_S, 2)


def condition_reports(task: TaskSpec, run: KernelRun, program: CompiledProgram) -> list[ConditionResult]:
    """Turn the kernel's verdict rows into result records and reasons."""
    plant = plant_module(task)
    rules = {r.code: r.text for r in task.safety}
    reports = []
    for c, cond in enumerate(task.conditions):
        v = run.verdict[c]
        reasons: list[str] = []
        violation = error = None
        if v[V_VIOLATION]:
            code = plant.VIOLATIONS[v[V_VIOLATION] - 1]
            violation = Violation(code, rules.get(code, code), _t(v[V_VIOLATION_TICK]))
            reasons.append(f"{code} at t = {violation.time_s:.2f} s")
        if v[V_ERROR_SCAN]:
            scan = int(v[V_ERROR_SCAN])
            rec = program.error_record(run.err[c], scan, (scan - 1) * 10)
            error = RuntimeErrorRecord(rec.code, rec.message, rec.pou, rec.line, rec.column, rec.scan, rec.time_ms)
            reasons.insert(0, f"runtime error {rec.code} ({rec.message}) at line {rec.line}, "
                              f"scan {scan}, t = {rec.time_ms / 1000:.2f} s")
        elif v[V_FAIL]:
            text = plant.REASONS[v[V_FAIL] - 1].format(arg=float(run.fail_arg[c]))
            reasons.insert(0, f"{text} (t = {_t(v[V_FAIL_TICK]):.2f} s)")
        elif v[V_SUCCESS] < 0:
            reasons.insert(0, f"not completed within the time limit ({task.time_limit(cond):g} s)")
        success = v[V_SUCCESS] >= 0
        result = ConditionResult(
            name=cond.name,
            success=bool(success),
            ticks=int(v[V_TICKS]),
            success_time_s=_t(v[V_SUCCESS] + 1) if success else None,
            parameters=dict(cond.params),
            violation=violation,
            runtime_error=error,
            reason="; ".join(reasons) or None,
        )
        reports.append(result)
    return reports


def verify_source(
    text: str,
    task: TaskSpec,
    path: str = "<input>",
    *,
    cache_dir: Path | None = None,
    program_bytes: bytes | None = None,
    condition_source: str | None = None,
) -> Verification:
    """Verify program text on a task; never raises for any program text.

    `condition_source` names the condition file the task's conditions were replaced from
    (`--condition-file`); every condition's parameters in the result then carry it as
    `condition_file`, so a replayed counterexample is never mistaken for a catalog run."""
    compiled = compile_source(text, path, cache_dir=cache_dir)
    diags = compiled.diagnostics
    common = dict(task_id=task.id, program_path=path,
                  program_bytes=program_bytes if program_bytes is not None else text.encode("utf-8"),
                  compile_seconds=compiled.seconds)
    if compiled.program is None:
        return Verification(build_result(diagnostics=diags.to_json(), **common), diags)
    binding = bind(compiled.program, task, path)
    diags.extend(binding.diagnostics)
    if not binding.ok:
        return Verification(build_result(diagnostics=diags.to_json(), **common), diags)
    run = run_kernel(compiled.program, binding, task, cache_dir=cache_dir)
    reports = condition_reports(task, run, compiled.program)
    if condition_source is not None:
        reports = [replace(r, parameters={**r.parameters, "condition_file": condition_source}) for r in reports]
    result = build_result(diagnostics=diags.to_json(), conditions=reports, **common)
    return Verification(result, diags, reports, run.seconds)
