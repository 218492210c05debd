"""`plantloop report DIR...`: pass@k leaderboard from plantloop result trees and Harbor jobs."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from verifier import passk
from verifier import report as render
from verifier.console import EXIT_OK, EXIT_USAGE, err, out
from verifier.sources import load_trials


class Format(StrEnum):
    table = "table"
    md = "md"
    json = "json"
    csv = "csv"


def _parse_ks(text: str) -> tuple[int, ...]:
    try:
        ks = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise typer.BadParameter(f"expected comma-separated integers, got {text!r}") from None
    if not ks or ks[0] < 1:
        raise typer.BadParameter("every k must be an integer >= 1")
    return ks


def report(
    dirs: Annotated[
        list[Path],
        typer.Argument(
            metavar="DIR",
            help="plantloop result trees (DIR/<model>/<TASK-ID>/<trial>.json) or Harbor job dirs",
        ),
    ],
    fmt: Annotated[Format, typer.Option("--format", "-f", help="output format")] = Format.table,
    k: Annotated[str, typer.Option("--k", help="comma-separated k values for pass@k")] = "1,3,5",
    plot: Annotated[
        Path | None,
        typer.Option(help="also write a PNG chart of pass@1 by level and suite (needs matplotlib)"),
    ] = None,
    compare: Annotated[
        tuple[str, str] | None,
        typer.Option(metavar="A B", help="list the tasks where models A and B differ"),
    ] = None,
    exclude_errors: Annotated[
        bool,
        typer.Option(
            "--exclude-errors", help="drop errored trials instead of counting them as failures"
        ),
    ] = False,
    bootstrap: Annotated[
        int, typer.Option(min=100, help="bootstrap resamples for the confidence intervals")
    ] = 2000,
    seed: Annotated[int, typer.Option(help="seed of the bootstrap")] = 0,
) -> None:
    """Pass@1, pass@k, Hard pass@3 and breakdowns by suite and level, per model."""
    ks = _parse_ks(k)
    if plot is not None:
        try:  # fail before any output, not after the report was printed
            render.require_matplotlib()
        except render.PlotUnavailable as exc:
            err.print(f"plantloop: error: {exc}", markup=False)
            raise typer.Exit(EXIT_USAGE) from None
    try:
        loaded = load_trials(dirs)
    except FileNotFoundError as exc:
        err.print(f"plantloop: error: {exc}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    for problem in loaded.problems:
        err.print(f"plantloop: warning: {problem}", markup=False)
    if not loaded.trials:
        err.print(
            "plantloop: error: no results found in " + ", ".join(map(str, dirs)), markup=False
        )
        raise typer.Exit(EXIT_USAGE)
    result = passk.aggregate(loaded.trials, ks, exclude_errors, n_boot=bootstrap, seed=seed)

    if compare is not None:
        a, b = compare
        unknown = [m for m in (a, b) if m not in result.models]
        if unknown:
            known = ", ".join(result.models)
            err.print(
                f"plantloop: error: unknown model {unknown[0]!r} (have: {known})", markup=False
            )
            raise typer.Exit(EXIT_USAGE)
        diffs = passk.compare(result, a, b)
        if fmt is Format.table:
            render.render_compare(a, b, diffs, out)
        elif fmt is Format.json:
            sys.stdout.write(json.dumps(render.compare_json(a, b, diffs), indent=2) + "\n")
        else:
            sys.stdout.write(render.compare_text(a, b, diffs, fmt.value))
    elif fmt is Format.table:
        render.render_table(result, out)
    elif fmt is Format.md:
        sys.stdout.write(render.to_markdown(result))
    elif fmt is Format.json:
        sys.stdout.write(json.dumps(render.to_json(result), indent=2) + "\n")
    else:
        sys.stdout.write(render.to_csv(result))

    if plot is not None:
        render.plot(result, plot)
        err.print(f"chart written to {plot}", markup=False)
    raise typer.Exit(EXIT_OK)
