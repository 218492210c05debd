"""`plantloop harbor-export OUT [--level easy|medium|hard]`: the benchmark as Harbor datasets."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from verifier.console import EXIT_USAGE, err, out


def harbor_export(
    out_dir: Annotated[Path, typer.Argument(metavar="OUT", help="directory to write the datasets into")],
    level: Annotated[
        str | None, typer.Option("--level", help="export one level only: easy, medium or hard")
    ] = None,
) -> None:
    """Write one Harbor dataset per level (plantloop-easy, -medium, -hard) and registry.json.

    Every task directory passes `harbor lint` (harbor 0.26.0); see docs/harbor.md.
    """
    from plants.tasks.registry import all_tasks
    from verifier.harbor_export import LEVEL_NAMES, ExportError, export

    levels = None
    if level is not None:
        if level.lower() not in LEVEL_NAMES:
            err.print(f"plantloop: error: unknown level {level!r} (easy, medium or hard)", markup=False)
            raise typer.Exit(EXIT_USAGE)
        levels = [level.lower()]
    try:
        written = export(out_dir, all_tasks().values(), levels)
    except ExportError as exc:
        err.print(f"plantloop: error: {exc}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    for dataset, dirs in written.items():
        out.print(f"{dataset}: {len(dirs)} task(s) in {out_dir / dataset}", markup=False)
    out.print(f"registry: {out_dir / 'registry.json'}", markup=False)
