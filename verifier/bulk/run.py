"""Drive a bulk run: hold the output lock, feed the plan to a back-end, write and tally results.

Only this process writes result files (atomically, verifier/results.py), so a back-end on many
machines needs no shared output directory and a killed run leaves complete files only; the
temp files a SIGKILL can leave behind are removed by the next run under the lock.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from verifier.bulk.isolate import JobBody, Limits, Outcome, error_outcome, execute_job
from verifier.bulk.jobs import Job, Plan, remove_stale_temp_files
from verifier.bulk.pool import read_input
from verifier.results import ResultError, write_result_atomic

LOCK_NAME = ".plantloop-run.lock"


class RunLocked(RuntimeError):
    """Another `plantloop run` is writing into the same output directory."""


class Backend(Protocol):
    def run(
        self, jobs: Iterable[Job], limits: Limits, body: JobBody = execute_job
    ) -> Iterator[tuple[Job, Outcome]]: ...


@dataclass
class JobTiming:
    """Per-job figures for benchmarks: the result's compile seconds, kernel and wall seconds."""

    key: str
    compile_seconds: float
    kernel_seconds: float
    wall_seconds: float


@dataclass
class Tally:
    total: int = 0
    skipped: int = 0
    done: int = 0
    reward_1: int = 0
    errors: Counter[str] = field(default_factory=Counter)  # job error kind -> count
    wall_seconds: float = 0.0
    timings: list[JobTiming] = field(default_factory=list)

    @property
    def errored(self) -> int:
        return sum(self.errors.values())


@contextmanager
def run_lock(out: Path) -> Iterator[None]:
    """Exclusive use of `out` for this process; stale temp files are removed on entry."""
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open(out / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunLocked(f"another plantloop run is writing into {out}") from None
        remove_stale_temp_files(out)
        yield
    finally:
        os.close(fd)


def execute(
    plan: Plan,
    backend: Backend,
    limits: Limits,
    *,
    body: JobBody = execute_job,
    on_result: Callable[[Job, Outcome], None] | None = None,
) -> Tally:
    """Run the plan's jobs, write each result as it arrives; call under `run_lock`."""
    start = time.perf_counter()
    tally = Tally(total=plan.total, skipped=len(plan.skipped))
    for job, outcome in backend.run(plan.jobs, limits, body):
        outcome = _write(job, outcome)
        tally.done += 1
        tally.reward_1 += int(outcome.result["reward"])
        if outcome.error_kind:
            tally.errors[outcome.error_kind] += 1
        tally.timings.append(JobTiming(job.key, float(outcome.result["compile"]["seconds"]),
                                       outcome.kernel_seconds, outcome.wall_seconds))
        if on_result is not None:
            on_result(job, outcome)
    tally.wall_seconds = time.perf_counter() - start
    return tally


def _write(job: Job, outcome: Outcome) -> Outcome:
    """Write the result; one the schema rejects is replaced by an `internal` error result."""
    try:
        write_result_atomic(job.result, outcome.result)
        return outcome
    except ResultError as exc:
        inp = read_input(job)
        if not isinstance(inp, Outcome):
            inp = error_outcome(inp, "internal", f"invalid result: {exc}", outcome.wall_seconds)
        write_result_atomic(job.result, inp.result)
        return inp
