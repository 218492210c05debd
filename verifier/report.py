"""Renderings of a pass@k `Report`: rich table, markdown leaderboard, JSON, CSV, PNG chart.

All text formats come from the same rows (`leaderboard_rows`, `breakdown_rows`), so they
cannot disagree. matplotlib is an optional extra and only imported when a chart is asked for.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from verifier.passk import Difference, ModelReport, Report, Summary, TaskOutcome

PLOT_INSTALL_HINT = (
    "the --plot option needs matplotlib, an optional extra: "
    "pip install 'plantloop[plot]' (or: pip install matplotlib)"
)


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed."""


# ---------------------------------------------------------------- numbers -> text


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}"


def _with_ci(x: float | None, ci: tuple[float, float] | None) -> str:
    if x is None:
        return "n/a"
    if ci is None:
        return _pct(x)
    return f"{_pct(x)} [{_pct(ci[0])}, {_pct(ci[1])}]"


def _ranked(report: Report) -> list[ModelReport]:
    def key(m: ModelReport) -> tuple[float, str]:
        p1 = m.overall.pass_at.get(1)
        return (-(p1 if p1 is not None else -1.0), m.model)

    return sorted(report.models.values(), key=key)


def leaderboard_columns(report: Report) -> list[str]:
    ks = [f"pass@{k}" for k in report.ks]
    return ["Model", *ks, "Hard pass@3", "Tasks", "Trials", "Errored", "Missing"]


def leaderboard_rows(report: Report) -> list[list[str]]:
    """One row per model, best pass@1 first; values in percent, 95 % CI in brackets."""
    rows = []
    for m in _ranked(report):
        s = m.overall
        rows.append(
            [
                m.model,
                *(_with_ci(s.pass_at[k], s.ci[k]) for k in report.ks),
                _with_ci(s.hard_pass3, s.hard_ci)
                + (f" ({s.n_hard_tasks})" if s.n_hard_tasks else ""),
                str(s.n_tasks),
                str(s.n_trials),
                str(s.n_errored),
                _missing_text(s),
            ]
        )
    return rows


def _missing_text(s: Summary) -> str:
    text = str(s.n_missing_trials)
    return text + (f" ({s.n_missing_tasks} tasks)" if s.n_missing_tasks else "")


def breakdown_rows(report: Report, by: str) -> tuple[list[str], list[list[str]]]:
    """pass@1 per model for each suite (`by="suite"`) or level (`by="level"`)."""
    groups = _groups(report, by)
    columns = ["Model", *groups]
    rows = []
    for m in _ranked(report):
        table = m.by_suite if by == "suite" else m.by_level
        rows.append([m.model, *(_cell(table.get(g)) for g in groups)])
    return columns, rows


def _groups(report: Report, by: str) -> list[str]:
    for m in report.models.values():
        return list((m.by_suite if by == "suite" else m.by_level).keys())
    return []


def _cell(s: Summary | None) -> str:
    if s is None or s.n_tasks == 0:
        return "-"
    return f"{_with_ci(s.pass_at.get(1), s.ci.get(1))} (n={s.n_tasks})"


def notes(report: Report) -> list[str]:
    """What a reader must know to interpret the numbers."""
    out = []
    n_err = sum(m.overall.n_errored for m in report.models.values())
    how = "excluded (as Harbor does)" if report.exclude_errors else "counted as failures"
    out.append(f"Errored trials: {n_err}, {how}.")
    n_miss = sum(m.overall.n_missing_trials for m in report.models.values())
    if n_miss:
        out.append(
            f"Missing trials: {n_miss} (against the most trials any model has per task); "
            "means cover the trials present."
        )
    if any(v is None for m in report.models.values() for v in m.overall.pass_at.values()):
        out.append("n/a: pass@k needs at least k usable trials on every task of the group.")
    out.append(
        f"Values in percent; brackets: 95 % bootstrap CI over tasks ({report.n_boot} resamples). "
        "Hard pass@3: share of Hard tasks solved by any trial (number of Hard tasks)."
    )
    return out


# ---------------------------------------------------------------- text formats


def markdown_table(columns: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |" for r in rows]
    return "\n".join(lines)


def to_markdown(report: Report) -> str:
    """The markdown leaderboard with breakdowns by level and suite."""
    parts = [
        "## Leaderboard",
        "",
        markdown_table(leaderboard_columns(report), leaderboard_rows(report)),
    ]
    for by, title in (("level", "pass@1 by level"), ("suite", "pass@1 by suite")):
        columns, rows = breakdown_rows(report, by)
        parts += ["", f"### {title}", "", markdown_table(columns, rows)]
    parts += ["", *(f"- {n}" for n in notes(report))]
    return "\n".join(parts) + "\n"


def render_table(report: Report, console: Console) -> None:
    """Rich tables for a terminal; the counts get their own table to fit 80 columns."""
    columns, rows = leaderboard_columns(report), leaderboard_rows(report)
    split = len(report.ks) + 2  # Model, pass@k..., Hard pass@3 | Tasks, Trials, ...
    _rich(console, "Leaderboard", columns[:split], [r[:split] for r in rows])
    _rich(console, "Trials", [columns[0], *columns[split:]], [[r[0], *r[split:]] for r in rows])
    for by in ("level", "suite"):
        columns, rows = breakdown_rows(report, by)
        _rich(console, f"pass@1 by {by}", columns, rows)
    for n in notes(report):
        console.print(n, markup=False)


def _rich(console: Console, title: str, columns: list[str], rows: list[list[str]]) -> None:
    table = Table(title=title)
    for i, c in enumerate(columns):  # model names are never cut
        table.add_column(c, justify="left" if i == 0 else "right", no_wrap=i == 0)
    for r in rows:
        table.add_row(*r)
    console.print(table)


def _summary_json(s: Summary, ks: tuple[int, ...]) -> dict[str, Any]:
    d: dict[str, Any] = {f"pass@{k}": s.pass_at[k] for k in ks}
    d["ci95"] = {f"pass@{k}": list(s.ci[k]) if s.ci[k] else None for k in ks}
    d.update(
        {
            "hard_pass@3": s.hard_pass3,
            "hard_pass@3_ci95": list(s.hard_ci) if s.hard_ci else None,
            "n_hard_tasks": s.n_hard_tasks,
            "n_tasks": s.n_tasks,
            "n_trials": s.n_trials,
            "n_errored": s.n_errored,
            "n_missing_trials": s.n_missing_trials,
            "n_missing_tasks": s.n_missing_tasks,
            "min_trials_per_task": s.min_trials,
        }
    )
    return d


def _task_json(o: TaskOutcome) -> dict[str, Any]:
    return {
        "n": o.n,
        "c": o.c,
        "pass@1": o.mean_reward if o.n else None,
        "n_errored": o.n_errored,
        "n_missing": o.n_missing,
    }


def to_json(report: Report) -> dict[str, Any]:
    """model -> {pass@1, pass@K..., ci95, counts, by_suite, by_level, tasks}."""
    errors = "excluded" if report.exclude_errors else "counted as failures"
    out: dict[str, Any] = {}
    for m in _ranked(report):
        d = _summary_json(m.overall, report.ks)
        d["errored_trials"] = errors
        d["missing_tasks"] = list(m.missing_tasks)
        d["by_suite"] = {g: _summary_json(s, report.ks) for g, s in m.by_suite.items()}
        d["by_level"] = {g: _summary_json(s, report.ks) for g, s in m.by_level.items()}
        d["tasks"] = {t: _task_json(o) for t, o in m.tasks.items()}
        out[m.model] = d
    return out


def to_csv(report: Report) -> str:
    """One row per (model, group); group is `all`, `suite=MOT`, `level=H` ..."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    metric_cols = []
    for k in report.ks:
        metric_cols += [f"pass@{k}", f"pass@{k}_ci_lo", f"pass@{k}_ci_hi"]
    w.writerow(
        ["model", "group", "n_tasks", "n_trials", "n_errored", "n_missing_trials",
         *metric_cols, "hard_pass@3", "n_hard_tasks"]
    )  # fmt: skip
    for m in _ranked(report):
        groups = [("all", m.overall)]
        groups += [(f"suite={g}", s) for g, s in m.by_suite.items()]
        groups += [(f"level={g}", s) for g, s in m.by_level.items()]
        for name, s in groups:
            metrics: list[Any] = []
            for k in report.ks:
                ci = s.ci[k] or (None, None)
                metrics += [s.pass_at[k], ci[0], ci[1]]
            w.writerow(
                [m.model, name, s.n_tasks, s.n_trials, s.n_errored, s.n_missing_trials,
                 *("" if v is None else v for v in metrics),
                 "" if s.hard_pass3 is None else s.hard_pass3, s.n_hard_tasks]
            )  # fmt: skip
    return buf.getvalue()


# ---------------------------------------------------------------- --compare


def _outcome_text(o: TaskOutcome | None) -> str:
    return "missing" if o is None else f"{o.c}/{o.n}"


def compare_rows(diffs: list[Difference]) -> tuple[list[str], list[list[str]]]:
    def p1(o: TaskOutcome | None) -> str:
        return "-" if o is None or o.n == 0 else _pct(o.mean_reward)

    rows = [[d.task, _outcome_text(d.a), p1(d.a), _outcome_text(d.b), p1(d.b)] for d in diffs]
    return ["Task", "A passed/trials", "A pass@1", "B passed/trials", "B pass@1"], rows


def compare_json(a: str, b: str, diffs: list[Difference]) -> dict[str, Any]:
    def one(o: TaskOutcome | None) -> dict[str, Any] | None:
        return None if o is None else _task_json(o)

    return {
        "a": a,
        "b": b,
        "differences": [{"task": d.task, "a": one(d.a), "b": one(d.b)} for d in diffs],
    }


def compare_text(a: str, b: str, diffs: list[Difference], fmt: str) -> str:
    """--compare in md or csv: one row per task where the two models differ."""
    columns, rows = compare_rows(diffs)
    columns = [c.replace("A ", f"{a} ").replace("B ", f"{b} ") for c in columns]
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerows([columns, *rows])
        return buf.getvalue()
    head = f"## {a} vs {b}: {len(diffs)} task(s) differ\n\n"
    return head + markdown_table(columns, rows) + "\n"


def render_compare(a: str, b: str, diffs: list[Difference], console: Console) -> None:
    columns, rows = compare_rows(diffs)
    columns = [c.replace("A ", f"{a} ").replace("B ", f"{b} ") for c in columns]
    _rich(console, f"{a} vs {b}: {len(diffs)} task(s) differ", columns, rows)


# ---------------------------------------------------------------- PNG chart


def require_matplotlib() -> Callable[..., Any]:
    """matplotlib's Figure class, or PlotUnavailable saying how to install it."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotUnavailable(PLOT_INSTALL_HINT) from None
    return Figure


def plot(report: Report, path: Path) -> None:
    """Bar chart of pass@1 per model, by level (left) and by suite (right), with 95 % CIs."""
    figure_cls = require_matplotlib()
    models = _ranked(report)
    fig = figure_cls(figsize=(11, 4.5), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, by in zip(axes, ("level", "suite"), strict=True):
        groups = _groups(report, by)
        width = 0.8 / max(len(models), 1)
        for i, m in enumerate(models):
            table = m.by_level if by == "level" else m.by_suite
            xs, ys, lo, hi = [], [], [], []
            for j, g in enumerate(groups):
                s = table[g]
                v = s.pass_at.get(1)
                if v is None:
                    continue
                ci = s.ci.get(1) or (v, v)
                xs.append(j + (i - (len(models) - 1) / 2) * width)
                ys.append(v)
                lo.append(max(v - ci[0], 0.0))
                hi.append(max(ci[1] - v, 0.0))
            ax.bar(xs, ys, width, yerr=[lo, hi], capsize=3, label=m.model)
        ax.set_xticks(range(len(groups)), groups)
        ax.set_title(f"pass@1 by {by}")
        ax.set_ylim(0, 1.05)
    axes[0].set_ylabel("pass@1 (95 % bootstrap CI)")
    axes[1].legend(fontsize="small", loc="upper right")
    fig.savefig(path, dpi=120)
