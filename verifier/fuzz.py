"""Counterexample search: hypothesis draws conditions inside a task's published ranges until
the program fails one, then shrinks it to a small failing condition.

The program is compiled and bound once; every hypothesis example is a batch of conditions run
in one call of the task's cached kernel (a kernel call costs little more than its conditions'
ticks). Shrinking deletes batch members first, so the reported counterexample is a single
condition. The task's search space comes from the module named by `TaskSpec.search`
(`search_space(task)` returning a strategy of Conditions).
"""

from __future__ import annotations

import dataclasses
import importlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plants.tasks.spec import Condition, TaskSpec
from stc.compiler import compile_source
from stc.diagnostics import Diagnostics
from verifier.bind import bind
from verifier.kernel import run_kernel
from verifier.results import ConditionResult
from verifier.verify import condition_reports

BATCH = 8
"""Conditions per kernel call (one hypothesis example)."""


class FuzzError(ValueError):
    """The fuzz run cannot start: no search space, or the program does not compile or bind."""

    def __init__(self, message: str, diagnostics: Diagnostics | None = None) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics


@dataclass
class FuzzOutcome:
    """A shrunk failing condition (or None), its verdict and what the search cost."""

    counterexample: Condition | None
    verdict: ConditionResult | None
    conditions_run: int
    kernel_calls: int
    seconds: float

    @property
    def rate(self) -> float:
        """Conditions run per second, shrinking included."""
        return self.conditions_run / self.seconds if self.seconds > 0 else 0.0


def search_space(task: TaskSpec) -> Any:
    """The task's hypothesis strategy of Conditions; FuzzError when it declares none."""
    if not task.search:
        raise FuzzError(f"{task.id} declares no search space (TaskSpec.search); see docs/tasks.md")
    return importlib.import_module(task.search).search_space(task)


def fuzz_source(
    text: str,
    task: TaskSpec,
    *,
    examples: int = 50,
    seed: int = 0,
    batch: int = BATCH,
    path: str = "<input>",
    cache_dir: Path | None = None,
) -> FuzzOutcome:
    """Search `examples` hypothesis examples (each a batch of 1 to `batch` conditions, one
    kernel call) for a condition the program fails; deterministic for a given seed."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st

    strategy = search_space(task)
    compiled = compile_source(text, path, cache_dir=cache_dir)
    if compiled.program is None:
        raise FuzzError(f"{path}: does not compile", compiled.diagnostics)
    binding = bind(compiled.program, task, path)
    if not binding.ok:
        raise FuzzError(f"{path}: does not bind to the I/O map of {task.id}", binding.diagnostics)
    program = compiled.program
    found: list[tuple[Condition, ConditionResult]] = []
    cost = {"conditions": 0, "calls": 0}

    def run_batch(conditions: list[Condition]) -> None:
        named = tuple(dataclasses.replace(c, name=f"F{i + 1}") for i, c in enumerate(conditions))
        variant = dataclasses.replace(task, conditions=named)
        run = run_kernel(program, binding, variant, cache_dir=cache_dir)
        cost["conditions"] += len(named)
        cost["calls"] += 1
        for cond, report in zip(named, condition_reports(variant, run, program), strict=True):
            if not report.passed:
                found.append((dataclasses.replace(cond, name="counterexample"), report))
                raise AssertionError(report.reason)

    @hypothesis_seed(seed)
    @settings(max_examples=examples, deadline=None, database=None,
              phases=(Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck),
              report_multiple_bugs=False, print_blob=False)
    @given(st.lists(strategy, min_size=1, max_size=batch))
    def search(conditions: list[Condition]) -> None:
        run_batch(conditions)

    start = time.perf_counter()
    try:
        search()
    except AssertionError:
        pass
    seconds = time.perf_counter() - start
    if not found:
        return FuzzOutcome(None, None, cost["conditions"], cost["calls"], seconds)
    condition, report = found[-1]  # hypothesis replays the shrunk example last
    return FuzzOutcome(condition, report, cost["conditions"], cost["calls"], seconds)
