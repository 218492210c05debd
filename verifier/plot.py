"""Plot a `Trace` as a PNG: one subplot per signal group, event markers on every subplot.

Groups are inputs, outputs and plant variables; a group's BOOL signals share one subplot as
stacked step traces (a timing diagram), its numeric signals get a second subplot. Vertical
lines mark violations (each onset), success, failure, a runtime error or the time limit.
matplotlib is an optional dependency (`pip install 'plantloop[plot]'`); it is imported only
here, when a plot is asked for, through the object API (no pyplot global state).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np

from verifier.trace import DT_MS, Trace, TraceSignal

GROUP_TITLES = {"input": "inputs", "output": "outputs", "plant": "plant"}
EVENT_STYLE = {
    "violation": ("tab:red", "--"),
    "failure": ("tab:red", "-"),
    "runtime_error": ("tab:purple", "-"),
    "success": ("tab:green", "-"),
    "time_limit": ("tab:gray", "-"),
}
LANE = 1.5  # vertical distance of stacked BOOL traces


class PlotUnavailableError(RuntimeError):
    """matplotlib is not installed."""


def require_matplotlib() -> Any:
    """matplotlib's Figure class; PlotUnavailableError with the install hint if missing."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotUnavailableError(
            "the PNG plot needs matplotlib: pip install 'plantloop[plot]'") from None
    return Figure


def _panels(trace: Trace) -> list[tuple[str, list[TraceSignal], bool]]:
    """(title, signals, boolean?) per subplot, in group order."""
    panels = []
    for group, title in GROUP_TITLES.items():
        members = [s for s in trace.signals if s.group == group]
        bools = [s for s in members if s.kind == "bool"]
        numbers = [s for s in members if s.kind != "bool"]
        if bools:
            panels.append((title if not numbers else f"{title} (BOOL)", bools, True))
        if numbers:
            panels.append((title, numbers, False))
    return panels


def _extended(trace: Trace, values: np.ndarray) -> np.ndarray:
    """Values with the last one repeated, so the last tick's step is drawn to its end."""
    return np.append(values, values[-1]) if trace.ticks else values


def _draw_bools(ax: Any, t: np.ndarray, trace: Trace, signals: list[TraceSignal]) -> None:
    for i, s in enumerate(reversed(signals)):
        base = i * LANE
        level = base + np.nan_to_num(_extended(trace, s.values), nan=0.5)
        (line,) = ax.step(t, level, where="post", linewidth=1.0)
        ax.fill_between(t, base, level, step="post", alpha=0.15, color=line.get_color(), linewidth=0)
    ax.set_yticks([i * LANE + 0.5 for i in range(len(signals))])
    ax.set_yticklabels([s.name for s in reversed(signals)], fontsize=8)
    ax.set_ylim(-0.3, (len(signals) - 1) * LANE + 1.3)


def _draw_numbers(ax: Any, t: np.ndarray, trace: Trace, signals: list[TraceSignal]) -> None:
    for s in signals:
        label = f"{s.name} [{s.unit}]" if s.unit else s.name
        ax.step(t, _extended(trace, s.values), where="post", linewidth=1.0, label=label)
    ax.legend(fontsize=8, loc="upper right")


def write_png(trace: Trace, path: Path) -> None:
    """Write the trace's plot; PlotUnavailableError if matplotlib is missing."""
    figure_class = require_matplotlib()
    panels = _panels(trace)
    heights = [max(1.5, 0.35 * len(sigs)) if boolean else 2.0 for _, sigs, boolean in panels] or [1.0]
    fig = figure_class(figsize=(12, 1.5 + sum(heights)), layout="constrained")
    axes = fig.subplots(len(heights), 1, sharex=True, squeeze=False,
                        gridspec_kw={"height_ratios": heights})[:, 0]
    t = np.arange(trace.ticks + 1) * (DT_MS / 1000)
    for ax, (title, signals, boolean) in zip(axes, panels, strict=False):
        (_draw_bools if boolean else _draw_numbers)(ax, t, trace, signals)
        ax.set_title(title, fontsize=9, loc="left")
        ax.grid(True, axis="x", alpha=0.3)
    kinds: list[str] = []
    for e in trace.events:
        colour, style = EVENT_STYLE.get(e.kind, ("black", ":"))
        for ax in axes:
            ax.axvline(e.tick * DT_MS / 1000, color=colour, linestyle=style, linewidth=1.2)
        if e.kind not in kinds:
            kinds.append(e.kind)
    if kinds:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], color=EVENT_STYLE.get(k, ("black", ":"))[0],
                          linestyle=EVENT_STYLE.get(k, ("black", ":"))[1]) for k in kinds]
        fig.legend(handles, kinds, loc="outside lower center", ncol=len(kinds), fontsize=8)
    axes[-1].set_xlabel("time [s]")
    verdict = "success" if trace.verdict.success else f"failed: {trace.verdict.reason}"
    title = f"{trace.task_id} {trace.condition} · {trace.program} · {verdict}"
    fig.suptitle(textwrap.fill(title, 140), fontsize=10)
    fig.savefig(path, dpi=100)
