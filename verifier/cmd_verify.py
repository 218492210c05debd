"""`plantloop verify PROGRAM.st --task ID [--json OUT]`: one program on one task, with the reward."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from verifier.console import EXIT_FAIL, EXIT_OK, EXIT_USAGE, err, out, read_program


def verify(
    program: Annotated[Path, typer.Argument(help="ST source file")],
    task_id: Annotated[str, typer.Option("--task", help="task id, e.g. MOT-E01 (see `plantloop tasks`)")],
    json_out: Annotated[
        Path | None, typer.Option("--json", metavar="OUT", help="write the result JSON to OUT ('-' = stdout)")
    ] = None,
    condition_file: Annotated[
        Path | None, typer.Option("--condition-file", metavar="FILE",
                                  help="run the condition(s) of FILE (e.g. from `plantloop fuzz`) instead of the task's")
    ] = None,
) -> None:
    """Compile PROGRAM, run it on every condition of the task, print verdicts and the reward.

    Exit 0 iff the reward is 1, 1 if it is 0, 2 for a missing file or an unknown task.
    """
    from plants.tasks.registry import UnknownTaskError, get_task
    from verifier.results import write_result_atomic
    from verifier.verify import verify_source

    try:
        task = get_task(task_id)
    except UnknownTaskError as exc:
        err.print(f"plantloop: error: {exc}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    if condition_file is not None:
        from verifier.condition_file import ConditionFileError, task_with_file_conditions

        try:
            task = task_with_file_conditions(task, condition_file)
        except ConditionFileError as exc:
            err.print(f"plantloop: error: {exc}", markup=False)
            raise typer.Exit(EXIT_USAGE) from None
    source = read_program(program)
    outcome = verify_source(source, task, str(program), program_bytes=program.read_bytes(),
                            condition_source=None if condition_file is None else str(condition_file))
    show = err if json_out is not None and str(json_out) == "-" else out  # keep stdout pure JSON
    text = outcome.diagnostics.render(source)
    if text:
        err.print(text, markup=False)
    if outcome.conditions:
        table = Table(title=f"{task.id} · {task.title}")
        for column in ("condition", "success", "time", "safety", "reason"):
            table.add_column(column)
        for r in outcome.conditions:
            table.add_row(
                r.name,
                "[green]yes[/]" if r.success else "[red]no[/]",
                f"{r.success_time_s:.2f} s" if r.success_time_s is not None else f"stopped {r.ticks / 100:.2f} s",
                "[green]ok[/]" if r.violation is None else f"[red]{r.violation.code}[/]",
                r.reason or "",
            )
        show.print(table)
    elif outcome.diagnostics.has_errors:
        err.print(f"{program}: does not compile or bind; no condition was run", markup=False)
    show.print(f"reward: {outcome.reward}", markup=False)
    if json_out is not None:
        if str(json_out) == "-":
            sys.stdout.write(json.dumps(outcome.result, indent=2) + "\n")
        else:
            write_result_atomic(json_out, outcome.result)
    raise typer.Exit(EXIT_OK if outcome.reward == 1 else EXIT_FAIL)
