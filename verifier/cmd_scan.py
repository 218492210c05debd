"""`plantloop scan`: run a program with no plant for N scans and print its variables.

Inputs are FALSE/0 unless a CSV gives them per scan: a header `scan,<address or AT %I*
name>...`, one row per scan that changes something; values persist until changed.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from verifier.console import EXIT_FAIL, EXIT_OK, EXIT_USAGE, err, out, read_program


def _parse_value(text: str) -> Any:
    t = text.strip()
    if t.upper() in ("TRUE", "FALSE"):
        return t.upper() == "TRUE"
    try:
        return int(t, 0)
    except ValueError:
        try:
            return float(t)
        except ValueError:
            return t


def read_inputs(path: Path) -> dict[int, dict[str, Any]]:
    """scan number -> {target: value} from the inputs CSV (usage error when malformed)."""
    try:
        with path.open(newline="") as f:
            rows = list(csv.reader(f))
    except OSError as exc:
        err.print(f"plantloop: error: cannot read {path}: {exc.strerror}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    if not rows or not rows[0] or rows[0][0].strip().lower() != "scan":
        err.print(f"plantloop: error: {path}: the first column of the header must be 'scan'", markup=False)
        raise typer.Exit(EXIT_USAGE)
    header = [h.strip() for h in rows[0][1:]]
    changes: dict[int, dict[str, Any]] = {}
    for n, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        try:
            k = int(row[0])
        except ValueError:
            err.print(f"plantloop: error: {path}:{n}: scan number expected, got {row[0]!r}", markup=False)
            raise typer.Exit(EXIT_USAGE) from None
        changes.setdefault(k, {}).update(
            {h: _parse_value(v) for h, v in zip(header, row[1:], strict=False) if v.strip() != ""})
    return changes


def _select(snapshot: dict[str, Any], prefixes: list[str]) -> dict[str, Any]:
    if not prefixes:
        return snapshot
    keys = [p.lower() for p in prefixes]
    return {k: v for k, v in snapshot.items()
            if any(k.lower() == p or k.lower().startswith((p + ".", p + "[")) for p in keys)}


def scan(
    program: Annotated[Path, typer.Argument(help="ST source file")],
    scans: Annotated[int, typer.Option("--scans", min=1, help="number of 10 ms scans to run")] = 1,
    inputs: Annotated[Path | None, typer.Option("--inputs", help="CSV of input values per scan")] = None,
    print_vars: Annotated[str | None, typer.Option("--print", help="comma-separated paths or prefixes")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object of variable values")] = False,
    trace: Annotated[Path | None, typer.Option("--trace", help="write every scan as a CSV row")] = None,
) -> None:
    """Run PROGRAM for N scans with no plant and print its variables at the end of scan N."""
    from stc.compiler import compile_source
    from stc.runner import CompiledRunner

    source = read_program(program)
    changes = read_inputs(inputs) if inputs is not None else {}
    result = compile_source(source, str(program))
    if result.program is None:
        err.print(result.diagnostics.render(source), markup=False, soft_wrap=True)
        raise typer.Exit(EXIT_FAIL)
    runner = CompiledRunner(result.program)
    for targets in changes.values():
        for target in targets:
            if result.program.io_slot(target) is None:
                err.print(f"plantloop: error: {target!r} is not an input of {program}", markup=False)
                raise typer.Exit(EXIT_USAGE)
    prefixes = [p.strip() for p in print_vars.split(",") if p.strip()] if print_vars else []
    writer = None
    trace_file = None
    if trace is not None:
        trace_file = trace.open("w", newline="")
        writer = csv.writer(trace_file)
    record = None
    try:
        for k in range(1, scans + 1):
            for target, value in changes.get(k, {}).items():
                runner.set_input(target, value)
            record = runner.scan()
            if record is not None:
                break
            if writer is not None:
                snap = _select(runner.snapshot(), prefixes)
                if k == 1:
                    writer.writerow(["scan", "time_ms", *snap])
                writer.writerow([k, (k - 1) * 10, *snap.values()])
    finally:
        if trace_file is not None:
            trace_file.close()
    values = _select(runner.snapshot(), prefixes)
    if as_json:
        payload: dict[str, Any] = dict(values)
        if record is not None:
            payload = {"runtime_error": record.to_json(), "variables": values}
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
    else:
        done = runner.scan_no if record is None else record.scan - 1
        out.print(f"{program}: values at the end of scan {done}", markup=False, soft_wrap=True)
        table = Table()
        table.add_column("variable")
        table.add_column("value", justify="right")
        for name, value in values.items():
            table.add_row(name, repr(value) if isinstance(value, str) else str(value))
        out.print(table)
    if record is not None:
        err.print(record.render(str(program)), markup=False, soft_wrap=True)
        raise typer.Exit(EXIT_FAIL)
    raise typer.Exit(EXIT_OK)
