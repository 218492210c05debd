"""`plantloop run SUBMISSIONS --out DIR`: evaluate a submissions tree into a result tree.

Exit 0 when the run completed, whatever the rewards; 2 for usage or input errors (no such
directory, nothing to evaluate, bad limits, dask missing or unreachable, output locked).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from verifier.console import EXIT_OK, EXIT_USAGE, err, out

if TYPE_CHECKING:
    from verifier.bulk.isolate import Limits, Outcome
    from verifier.bulk.jobs import Job, Plan
    from verifier.bulk.run import Backend, Tally

MAX_LISTED = 20


class RateColumn(ProgressColumn):
    """Jobs per second over rich's sliding window."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.2f} jobs/s" if speed else "- jobs/s", style="progress.data.speed")


def _usage_error(message: str) -> typer.Exit:
    err.print(f"plantloop: error: {message}", markup=False)
    return typer.Exit(EXIT_USAGE)


def run(
    submissions: Annotated[
        Path, typer.Argument(help="submissions tree SUBMISSIONS/<model>/<TASK-ID>/<trial>.st")
    ],
    out_dir: Annotated[
        Path, typer.Option("--out", help="result tree DIR/<model>/<TASK-ID>/<trial>.json")
    ],
    workers: Annotated[
        int | None, typer.Option(help="local worker processes (default: CPU count)")
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(metavar="ADDR", help="dask scheduler tcp://HOST:PORT instead of the local pool"),
    ] = None,
    timeout: Annotated[float, typer.Option(help="wall-clock seconds per job")] = 120.0,
    memory: Annotated[int, typer.Option(help="address-space limit per job, MB")] = 2048,
    recycle: Annotated[int, typer.Option(help="jobs after which a local worker is replaced")] = 200,
    retry_errors: Annotated[
        bool, typer.Option("--retry-errors", help="redo results with a crash/timeout/memory error")
    ] = False,
) -> None:
    """Evaluate every program of a submissions tree; resumable: finished results are skipped."""
    from plants.tasks.registry import all_tasks
    from verifier.bulk.isolate import Limits
    from verifier.bulk.jobs import discover
    from verifier.bulk.run import RunLocked, run_lock

    if not submissions.is_dir():
        raise _usage_error(f"no such directory: {submissions}")
    n_workers = workers if workers is not None else (os.cpu_count() or 1)
    if n_workers < 1 or recycle < 1:
        raise _usage_error("--workers and --recycle must be at least 1")
    if timeout <= 0 or memory < 256:
        raise _usage_error("--timeout must be positive and --memory at least 256 MB")
    limits = Limits(timeout_s=timeout, memory_mb=memory)
    try:
        with run_lock(out_dir):
            plan = discover(submissions, out_dir, all_tasks(), retry_errors=retry_errors)
            for problem in plan.problems:
                err.print(f"plantloop: warning: {problem}", markup=False)
            if plan.total == 0:
                raise _usage_error(f"no programs found in {submissions} (expected "
                                   "<model>/<TASK-ID>/<trial>.st)")
            backend = _backend(scheduler, n_workers, recycle)
            try:
                tally = _execute_with_progress(plan, backend, limits)
            finally:
                close = getattr(backend, "close", None)
                if close is not None:
                    close()
    except RunLocked as exc:
        raise _usage_error(str(exc)) from None
    _summary(tally, len(plan.problems), out_dir)
    raise typer.Exit(EXIT_OK)


def _backend(scheduler: str | None, workers: int, recycle: int) -> Backend:
    from verifier.bulk.pool import LocalPool

    if scheduler is None:
        return LocalPool(workers, recycle)
    from verifier.bulk.distributed import DaskCluster, DistributedUnavailable

    try:
        return DaskCluster(scheduler)
    except DistributedUnavailable as exc:
        raise _usage_error(str(exc)) from None


def _execute_with_progress(plan: Plan, backend: Backend, limits: Limits) -> Tally:
    from verifier.bulk.run import execute

    progress = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TextColumn("{task.fields[errors]} errors"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err,
    )
    errors = 0
    failures: list[str] = []

    def advance(job: Job, outcome: Outcome) -> None:
        nonlocal errors
        if outcome.error_kind:
            errors += 1
            if len(failures) < MAX_LISTED:
                failures.append(f"{job.key}: {outcome.error_kind}: {outcome.result['error']['message']}")
        progress.update(bar, advance=1, errors=errors)

    with progress:
        bar = progress.add_task("plantloop run", total=len(plan.jobs), errors=0)
        tally = execute(plan, backend, limits, on_result=advance)
    for line in failures:
        err.print(f"job error: {line}", markup=False)
    return tally


def _summary(tally: Tally, problems: int, out_dir: Path) -> None:
    table = Table(title=f"plantloop run -> {out_dir}", show_header=False)
    table.add_column("what")
    table.add_column("count", justify="right")
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(tally.errors.items()))
    rows = [
        ("jobs found", str(tally.total)),
        ("skipped (valid result)", str(tally.skipped)),
        ("done in this run", str(tally.done)),
        ("job errors", f"{tally.errored}" + (f" ({kinds})" if kinds else "")),
        ("reward 1 (this run)", str(tally.reward_1)),
        ("not run (see warnings)", str(problems)),
        ("wall time", f"{tally.wall_seconds:.1f} s"),
    ]
    for row in rows:
        table.add_row(*row)
    out.print(table)
