"""`plantloop profile PROGRAM.st --task ID`: compile stages, kernel parts, interpreter ratio."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from verifier.console import EXIT_FAIL, EXIT_USAGE, err, out, read_program


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f} %" if whole > 0 else "-"


def profile(
    program: Annotated[Path, typer.Argument(help="ST source file")],
    task_id: Annotated[str, typer.Option("--task", help="task id, e.g. MOT-E01")],
    runs: Annotated[int, typer.Option("--runs", min=1, help="timed repetitions per measurement (median)")] = 5,
    condition: Annotated[
        str | None, typer.Option("--condition", help="condition for the interpreter comparison (default: the first)")
    ] = None,
    no_interpreter: Annotated[bool, typer.Option("--no-interpreter", help="skip the interpreter comparison")] = False,
    interp_max_ticks: Annotated[
        int, typer.Option("--interp-max-ticks", min=1, help="stop the interpreter after this many ticks")
    ] = 20000,
    as_json: Annotated[bool, typer.Option("--json", help="print the profile as JSON")] = False,
) -> None:
    """Time compile stages, the kernel (scan / plant / judge) and the interpreter baseline.

    The method is described in docs/cli.md and verifier/profile.py.

    Exit 1 if the program does not compile or bind; 2 for a missing file, an unknown task or
    an unknown condition.
    """
    from plants.tasks.registry import UnknownTaskError, get_task
    from verifier.profile import ProfileError, profile_program

    try:
        task = get_task(task_id)
    except UnknownTaskError as exc:
        err.print(f"plantloop: error: {exc}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    names = [c.name.upper() for c in task.conditions]
    index: int | None = 0
    if no_interpreter:
        index = None
    elif condition is not None:
        if condition.upper() not in names:
            err.print(f"plantloop: error: {task.id} has no condition {condition!r} "
                      f"({', '.join(c.name for c in task.conditions)})", markup=False)
            raise typer.Exit(EXIT_USAGE)
        index = names.index(condition.upper())
    text = read_program(program)
    try:
        result = profile_program(text, str(program), task, runs=runs, condition=index,
                                 interp_max_ticks=interp_max_ticks)
    except ProfileError as exc:
        err.print(str(exc), markup=False)
        err.print(f"{program}: does not compile or bind; nothing to profile", markup=False)
        raise typer.Exit(EXIT_FAIL) from None
    if as_json:
        sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
        return
    s = result.stages
    stages = Table(title=f"compile: {program.name} ({s.source_lines} lines -> {s.generated_lines} generated)")
    stages.add_column("stage")
    stages.add_column("time", justify="right")
    for name, seconds in (("parse (preprocess + textX)", s.parse), ("semantic analysis", s.semantic),
                          ("lowering", s.lowering), ("emit module text", s.emit),
                          ("numba compile (cold)", s.numba_compile), ("total, cold", s.cold_total),
                          ("numba load from cache", s.numba_cached_load)):
        stages.add_row(name, _ms(seconds))
    out.print(stages)
    k = result.split
    kernel = Table(title=f"kernel: {task.id}, {result.conditions} conditions, "
                         f"{result.condition_ticks:,} condition-ticks (median of {result.runs})")
    for column in ("part", "time", "share"):
        kernel.add_column(column, justify="right" if column != "part" else "left")
    for name, seconds in (("program scan (+ I/O image copy)", k.scan), ("plant (sense + advance)", k.plant),
                          ("judge", k.judge), ("loop and other", k.other), ("kernel call", k.kernel)):
        kernel.add_row(name, _ms(seconds), _share(seconds, k.kernel))
    out.print(kernel)
    out.print(f"task kernel load: {_ms(result.kernel_load_s)}; "
              f"throughput: {result.condition_ticks_per_s:,.0f} condition-ticks/s", markup=False)
    if result.interpreter is not None:
        i = result.interpreter
        agree = {True: "same verdict", False: "DIFFERENT verdict", None: "capped, verdict not compared"}
        out.print(f"interpreter on {i.condition} ({i.ticks:,} ticks): {i.interpreter_ticks_per_s:,.0f} "
                  f"condition-ticks/s vs kernel {i.kernel_ticks_per_s:,.0f} -> kernel "
                  f"{i.speedup:,.0f}x faster ({agree[i.agrees]})", markup=False)
    for note in result.notes:
        err.print(f"note: {note}", markup=False)
