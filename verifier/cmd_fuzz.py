"""`plantloop fuzz PROGRAM.st --task ID [--examples N] [--seed S] [--out FILE]`: search the
published ranges for a condition the program fails; write it as a condition file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from verifier.console import EXIT_FAIL, EXIT_OK, EXIT_USAGE, err, out, read_program


def _script_table(condition) -> Table:
    table = Table(title=f"counterexample (time limit {condition.time_limit_s} s)")
    for column in ("t [s]", "kind", "target", "duration [s]"):
        table.add_column(column)
    for ev in condition.script:
        table.add_row(f"{ev.t:g}", ev.kind, ev.target, f"{ev.duration:g}" if ev.duration else "")
    return table


def fuzz(
    program: Annotated[Path, typer.Argument(help="ST source file")],
    task_id: Annotated[str, typer.Option("--task", help="task id, e.g. MOT-E02")],
    examples: Annotated[int, typer.Option("--examples", min=1,
                                          help="hypothesis examples (each a batch of up to 8 conditions)")] = 50,
    seed: Annotated[int, typer.Option("--seed", help="search seed (same seed, same search)")] = 0,
    out_file: Annotated[Path | None, typer.Option("--out", metavar="FILE",
                                                  help="counterexample file [PROGRAM.TASK.condition.json]")] = None,
) -> None:
    """Search the task's published ranges for a condition PROGRAM fails and shrink it.

    Exit 1 when a counterexample is found (written as a condition file that
    `plantloop verify --condition-file FILE` replays), 0 when none, 2 for usage or input errors.
    """
    from plants.tasks.registry import UnknownTaskError, get_task
    from verifier.condition_file import write_condition_file
    from verifier.fuzz import FuzzError, fuzz_source

    try:
        task = get_task(task_id)
    except UnknownTaskError as exc:
        err.print(f"plantloop: error: {exc}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    source = read_program(program)
    try:
        import hypothesis  # noqa: F401 - a runtime need of this command only
    except ImportError:
        err.print("plantloop: error: `plantloop fuzz` needs hypothesis (pip install hypothesis)", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    try:
        outcome = fuzz_source(source, task, examples=examples, seed=seed, path=str(program))
    except FuzzError as exc:
        if exc.diagnostics is not None:
            err.print(exc.diagnostics.render(source), markup=False)
        err.print(f"plantloop: error: {exc}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    out.print(f"{outcome.conditions_run} conditions in {outcome.kernel_calls} kernel calls, "
              f"{outcome.seconds:.1f} s ({outcome.rate:.0f} conditions/s)", markup=False)
    if outcome.counterexample is None:
        out.print(f"no counterexample found ({examples} examples, seed {seed})", markup=False)
        raise typer.Exit(EXIT_OK)
    cond = outcome.counterexample
    out.print(f"counterexample: {outcome.verdict.reason}", markup=False)
    out.print("parameters: " + ", ".join(f"{k} = {v}" for k, v in cond.params.items()), markup=False)
    out.print(_script_table(cond))
    path = out_file or program.with_name(f"{program.stem}.{task.id}.condition.json")
    write_condition_file(path, task.id, [cond])
    out.print(f"written to {path}; replay: plantloop verify {program} --task {task.id} "
              f"--condition-file {path}", markup=False, soft_wrap=True)
    raise typer.Exit(EXIT_FAIL)
