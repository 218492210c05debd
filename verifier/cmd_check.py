"""`plantloop check`: parse and check one ST file, print its diagnostics."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from verifier.console import EXIT_FAIL, EXIT_OK, err, out, read_program


def check(
    program: Annotated[Path, typer.Argument(help="ST source file")],
    as_json: Annotated[
        bool, typer.Option("--json", help="print diagnostics and the I/O list as JSON")
    ] = False,
) -> None:
    """Parse and check PROGRAM; print diagnostics. Exit 1 when there are errors."""
    from stc.frontend import check_source

    source = read_program(program)
    result = check_source(source, str(program))
    if as_json:
        sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
    else:
        text = result.diagnostics.render(source)
        if text:
            out.print(text, markup=False, soft_wrap=True)
        n_err, n_warn = len(result.diagnostics.errors), len(result.diagnostics.warnings)
        verdict = "failed" if n_err else "ok"
        err.print(f"{program}: {verdict}: {n_err} error(s), {n_warn} warning(s)", markup=False)
    raise typer.Exit(EXIT_FAIL if result.diagnostics.has_errors else EXIT_OK)
