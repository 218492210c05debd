"""The `plantloop` command line (typer + rich).

Exit codes everywhere: 0 success / reward 1, 1 reward 0 or failed check, 2 usage or input error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.console import Console

app = typer.Typer(
    name="plantloop",
    help="Closed-loop verifier for IEC 61131-3 Structured Text programs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err = Console(stderr=True, highlight=False)
out = Console(highlight=False)

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def _read_program(path: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        err.print(f"plantloop: error: no such file: {path}")
        raise typer.Exit(EXIT_USAGE) from None
    except OSError as exc:
        err.print(f"plantloop: error: cannot read {path}: {exc.strerror}")
        raise typer.Exit(EXIT_USAGE) from None
    # ST source is Latin-1 by definition (1 byte per character); UTF-8 BOMs are tolerated.
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


@app.command()
def check(
    program: Path = typer.Argument(..., help="ST source file"),
    as_json: bool = typer.Option(False, "--json", help="print diagnostics and I/O list as JSON"),
) -> None:
    """Parse and check PROGRAM; print diagnostics. Exit 1 when there are errors."""
    from stc.frontend import check_source

    source = _read_program(program)
    result = check_source(source, str(program))
    if as_json:
        sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
    else:
        text = result.diagnostics.render(source)
        if text:
            out.print(text, markup=False)
        n_err, n_warn = len(result.diagnostics.errors), len(result.diagnostics.warnings)
        verdict = "failed" if n_err else "ok"
        err.print(f"{program}: {verdict}: {n_err} error(s), {n_warn} warning(s)", markup=False)
    raise typer.Exit(EXIT_FAIL if result.diagnostics.has_errors else EXIT_OK)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        err.print("plantloop: interrupted")
        sys.exit(130)
