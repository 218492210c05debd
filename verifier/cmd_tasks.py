"""`plantloop tasks` (list the benchmark tasks) and `plantloop show ID` (the task text)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from verifier.console import EXIT_USAGE, err, out

SUITES = ("MOT", "MAT")
LEVELS = ("easy", "medium", "hard", "e", "m", "h")


def tasks(
    suite: Annotated[str | None, typer.Option("--suite", help="MOT or MAT")] = None,
    level: Annotated[str | None, typer.Option("--level", help="easy, medium or hard")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print a JSON list instead of a table")] = False,
) -> None:
    """List the declared tasks (id, suite, level, title, number of conditions)."""
    from plants.tasks.registry import select_tasks

    if suite is not None and suite.upper() not in SUITES:
        err.print(f"plantloop: error: unknown suite {suite!r} (MOT or MAT)", markup=False)
        raise typer.Exit(EXIT_USAGE)
    if level is not None and level.lower() not in LEVELS:
        err.print(f"plantloop: error: unknown level {level!r} (easy, medium or hard)", markup=False)
        raise typer.Exit(EXIT_USAGE)
    rows = [
        {"id": t.id, "suite": t.suite, "level": t.level, "title": t.title, "conditions": len(t.conditions)}
        for t in select_tasks(suite, level)
    ]
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    table = Table()
    for column in ("id", "suite", "level", "title", "conditions"):
        table.add_column(column)
    for r in rows:
        table.add_row(r["id"], r["suite"], r["level"], r["title"], str(r["conditions"]))
    out.print(table)


def show(
    task_id: Annotated[str, typer.Argument(metavar="ID", help="task id, e.g. MOT-E01")],
    reference: Annotated[bool, typer.Option("--reference", help="print the reference program instead")] = False,
) -> None:
    """Print a task's solver-facing text (markdown), or its reference program."""
    from plants.tasks.registry import UnknownTaskError, get_task
    from plants.tasks.render import render_markdown

    try:
        task = get_task(task_id)
    except UnknownTaskError as exc:
        err.print(f"plantloop: error: {exc}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    if reference:
        sys.stdout.write(reference_path(task).read_text(encoding="utf-8"))
    else:
        sys.stdout.write(render_markdown(task))


def reference_path(task) -> Path:
    """The reference program beside the task's plant module (found without importing it)."""
    import importlib.util

    spec = importlib.util.find_spec(task.plant)
    if spec is None or spec.origin is None:
        raise FileNotFoundError(f"{task.id}: plant module {task.plant} not found")
    return Path(spec.origin).parent / task.reference
