"""`plantloop audit [ID...] [--level L] [--json]`: check tasks against the README's bars."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.table import Table

from verifier.console import EXIT_FAIL, EXIT_OK, EXIT_USAGE, err, out


def audit(
    task_ids: Annotated[list[str] | None, typer.Argument(metavar="[ID]...", help="task ids (default: every task)")] = None,
    level: Annotated[str | None, typer.Option("--level", help="only tasks of this level (easy|medium|hard or E|M|H)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the findings as JSON on stdout")] = False,
) -> None:
    """Audit tasks: reference with 15 % margin, idle and blind replay fail, safety rules in the
    text, conditions inside the published ranges, I/O map consistent.

    Exit 0 only if every selected task passes every check, 1 otherwise, 2 for an unknown id.
    """
    from plants.tasks.registry import UnknownTaskError, get_task, select_tasks
    from verifier.audit import audit_task

    try:
        tasks = [get_task(t) for t in task_ids] if task_ids else select_tasks(level=level)
    except UnknownTaskError as exc:
        err.print(f"plantloop: error: {exc}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    if task_ids and level:
        tasks = [t for t in tasks if t in select_tasks(level=level)]
    show = err if as_json else out  # keep stdout pure JSON
    audits = []
    for task in tasks:
        result = audit_task(task)
        audits.append(result)
        verdict = "[green]passes[/]" if result.passed else "[red]fails[/]"
        table = Table(title=f"{task.id} · {task.title}: {verdict}", title_justify="left")
        for column in ("check", "ok", "finding"):
            table.add_column(column)
        for f in result.findings:
            table.add_row(f.check, "[green]yes[/]" if f.ok else "[red]no[/]", f.detail)
        show.print(table)
    passed = sum(a.passed for a in audits)
    show.print(f"{passed} of {len(audits)} tasks pass the audit", markup=False)
    if as_json:
        sys.stdout.write(json.dumps({"passed": passed == len(audits),
                                     "tasks": [a.to_json() for a in audits]}, indent=2) + "\n")
    raise typer.Exit(EXIT_OK if audits and passed == len(audits) else EXIT_FAIL)
