"""`plantloop trace PROGRAM.st --task ID --condition C [--vcd] [--csv] [--png] [--out PREFIX]
[--signals A,B]`: the I/O and plant variables of one condition, to see why it failed.

Writes PREFIX.vcd (GTKWave), PREFIX.csv and PREFIX.png (matplotlib); all three unless some
are chosen. Exit 0 when the condition passed, 1 when it failed or the program does not
compile or bind, 2 for usage or input errors (unknown task, condition or signal, matplotlib
missing for --png, an output that cannot be written).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from verifier.console import EXIT_FAIL, EXIT_OK, EXIT_USAGE, err, out, read_program

if TYPE_CHECKING:
    from verifier.trace import Trace


def _usage_error(message: str) -> typer.Exit:
    err.print(f"plantloop: error: {message}", markup=False)
    return typer.Exit(EXIT_USAGE)


def _split(items: list[str] | None) -> list[str]:
    return [name.strip() for item in items or [] for name in item.split(",") if name.strip()]


def trace(
    program: Annotated[Path, typer.Argument(help="ST source file")],
    task_id: Annotated[str, typer.Option("--task", help="task id, e.g. MOT-E01")],
    condition: Annotated[str, typer.Option("--condition", help="condition name, e.g. C2")],
    vcd: Annotated[bool, typer.Option("--vcd", help="write PREFIX.vcd (value change dump)")] = False,
    csv: Annotated[bool, typer.Option("--csv", help="write PREFIX.csv (one row per tick)")] = False,
    png: Annotated[bool, typer.Option("--png", help="write PREFIX.png (needs matplotlib)")] = False,
    prefix: Annotated[
        Path | None, typer.Option("--out", metavar="PREFIX",
                                  help="output path without suffix [default: PROGRAM-TASK-CONDITION]")
    ] = None,
    signals: Annotated[
        list[str] | None, typer.Option("--signals", help="I/O and plant variable names, comma separated "
                                                          "[default: all]")
    ] = None,
) -> None:
    """Run PROGRAM on the task as `verify` does and trace one condition (VCD, CSV, PNG).

    Exit 0 if the condition passed, 1 if it failed or the program does not compile or bind,
    2 for usage or input errors.
    """
    from plants.tasks.registry import UnknownTaskError, get_task
    from stc.compiler import compile_source
    from verifier.bind import bind
    from verifier.trace import (
        TraceMismatchError,
        condition_index,
        select_signals,
        signal_names,
        trace_condition,
    )

    try:
        task = get_task(task_id)
    except UnknownTaskError as exc:
        raise _usage_error(str(exc)) from None
    try:
        condition_index(task, condition)
    except KeyError:
        names = ", ".join(c.name for c in task.conditions)
        raise _usage_error(f"{task.id} has no condition {condition!r}; conditions: {names}") from None
    wanted = _split(signals)
    try:
        select_signals(task, wanted)
    except KeyError as exc:
        names = ", ".join(signal_names(task))
        raise _usage_error(f"{task.id} has no signal {exc.args[0]!r}; signals: {names}") from None
    formats = [f for f, chosen in (("vcd", vcd), ("csv", csv), ("png", png)) if chosen] or ["vcd", "csv", "png"]
    if "png" in formats:
        from verifier.plot import PlotUnavailableError, require_matplotlib

        try:
            require_matplotlib()
        except PlotUnavailableError as exc:
            raise _usage_error(f"{exc} (or choose --vcd/--csv)") from None
    chosen_name = task.conditions[condition_index(task, condition)].name
    base = prefix if prefix is not None else Path(f"{program.stem}-{task.id}-{chosen_name}")

    source = read_program(program)
    compiled = compile_source(source, str(program))
    diags = compiled.diagnostics
    binding = bind(compiled.program, task, str(program)) if compiled.program is not None else None
    if binding is not None:
        diags.extend(binding.diagnostics)
    text = diags.render(source)
    if text:
        err.print(text, markup=False)
    if compiled.program is None or binding is None or not binding.ok:
        err.print(f"{program}: does not compile or bind; nothing was traced", markup=False)
        raise typer.Exit(EXIT_FAIL)
    try:
        result = trace_condition(compiled.program, binding, task, condition, signals=wanted,
                                 program_path=program)
    except TraceMismatchError as exc:
        err.print(f"plantloop: internal error: the trace replay differs from the verified run: {exc}",
                  markup=False)
        raise typer.Exit(EXIT_FAIL) from None
    written = _write(result, base, formats)
    v = result.verdict
    status = "passed" if v.passed else f"failed: {v.reason}"
    out.print(f"{task.id} {v.name}: {status} ({result.ticks} ticks)", markup=False, soft_wrap=True)
    for path in written:
        out.print(f"wrote {path}", markup=False, soft_wrap=True)
    raise typer.Exit(EXIT_OK if v.passed else EXIT_FAIL)


def _write(result: Trace, base: Path, formats: list[str]) -> list[Path]:
    """Write the chosen files PREFIX.<format>; an unwritable path is a usage error."""
    from verifier.plot import write_png
    from verifier.trace_csv import write_csv
    from verifier.vcd import write_vcd

    writers = {"vcd": write_vcd, "csv": write_csv, "png": write_png}
    written = []
    for fmt in formats:
        path = base.with_name(f"{base.name}.{fmt}")
        try:
            writers[fmt](result, path)
        except OSError as exc:
            raise _usage_error(f"cannot write {path}: {exc.strerror or exc}") from None
        written.append(path)
    return written
