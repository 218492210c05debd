"""Pass@k estimators and their aggregation over tasks, per model, suite and level.

Pure functions of `Trial` lists: no file access, no printing. Rules (docs/results.md):

- pass@1 of a task is its mean reward over trials; pass@k (k >= 2) is the unbiased estimator
  1 - C(n-c, k) / C(n, k) (Chen et al. 2021), computed exactly with integers. A model's value
  is the mean over its tasks.
- A task with fewer than k usable trials has no pass@k. As Harbor does (it only reports
  k <= the smallest trial count of any task: harbor 0.26.0, harbor/utils/pass_at_k.py,
  `_compute_pass_at_k_for_trials` / `_eligible_k_values`), a group's pass@k is then not
  reported at all (None) instead of being averaged over a subset of tasks.
- Errored trials count as reward 0 by default; with `exclude_errors` they are dropped, which
  is exactly what Harbor does. A task left with no trials is then left out of the means.
- Missing trials (fewer trials than the most any model has for that task, or a task another
  model has and this one lacks) are counted and reported; the means cover present trials.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb

import numpy as np

from verifier.trials import Trial, suite_and_level

HARD_LEVEL = "H"


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k trials drawn without replacement from n passes.

    Exact: 1 - C(n-c, k) / C(n, k) as a Fraction. When n - c < k every draw of k contains a
    success, so the value is 1 (math.comb already gives C(n-c, k) = 0 there).
    """
    if not (0 <= c <= n) or k < 1:
        raise ValueError(f"need 0 <= c <= n and k >= 1, got n={n}, c={c}, k={k}")
    if n < k:
        raise ValueError(f"pass@{k} is undefined with only n={n} trials")
    return float(1 - Fraction(comb(n - c, k), comb(n, k)))


def bootstrap_ci(
    values: Sequence[float], n_boot: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean, resampling tasks with replacement.

    Seeded, so a report is reproducible; None when there are no values.
    """
    if len(values) == 0:
        return None
    v = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = v[rng.integers(0, len(v), size=(n_boot, len(v)))].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    """One model on one task: rewards of the trials that count, and what was left out."""

    task: str
    rewards: tuple[float, ...]
    n_present: int
    n_errored: int
    n_missing: int

    @property
    def n(self) -> int:
        return len(self.rewards)

    @property
    def c(self) -> int:
        """Successes: trials with reward 1 (partial rewards are not successes)."""
        return sum(1 for r in self.rewards if r == 1)

    @property
    def mean_reward(self) -> float:
        return sum(self.rewards) / len(self.rewards)

    @property
    def suite(self) -> str:
        return suite_and_level(self.task)[0]

    @property
    def level(self) -> str:
        return suite_and_level(self.task)[1]


@dataclass(frozen=True, slots=True)
class Summary:
    """Statistics of one group of task outcomes (a model overall, or one suite or level)."""

    n_tasks: int
    n_trials: int
    n_errored: int
    n_missing_trials: int
    n_missing_tasks: int
    pass_at: dict[int, float | None]
    ci: dict[int, tuple[float, float] | None]
    min_trials: int
    hard_pass3: float | None
    hard_ci: tuple[float, float] | None
    n_hard_tasks: int


@dataclass(frozen=True, slots=True)
class ModelReport:
    model: str
    overall: Summary
    by_suite: dict[str, Summary]
    by_level: dict[str, Summary]
    tasks: dict[str, TaskOutcome]
    missing_tasks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Report:
    ks: tuple[int, ...]
    exclude_errors: bool
    n_boot: int
    models: dict[str, ModelReport] = field(default_factory=dict)


def expected_trials(trials: Iterable[Trial]) -> dict[str, int]:
    """task -> the most trials any model has for it (the yardstick for missing trials)."""
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for t in trials:
        counts[t.model, t.task] += 1
    expected: dict[str, int] = defaultdict(int)
    for (_model, task), n in counts.items():
        expected[task] = max(expected[task], n)
    return dict(expected)


def task_outcomes(
    trials: Iterable[Trial], exclude_errors: bool = False
) -> dict[str, dict[str, TaskOutcome]]:
    """model -> task -> outcome, with missing trials measured against the fullest model."""
    trials = list(trials)
    expected = expected_trials(trials)
    grouped: dict[str, dict[str, list[Trial]]] = defaultdict(lambda: defaultdict(list))
    for t in trials:
        grouped[t.model][t.task].append(t)
    result: dict[str, dict[str, TaskOutcome]] = {}
    for model, per_task in grouped.items():
        result[model] = {}
        for task, ts in sorted(per_task.items()):
            ts = sorted(ts, key=lambda t: t.trial)
            rewards = tuple(
                0.0 if t.reward is None else float(t.reward)
                for t in ts
                if not (exclude_errors and t.errored)
            )
            n_err = sum(t.errored for t in ts)
            result[model][task] = TaskOutcome(
                task, rewards, len(ts), n_err, expected[task] - len(ts)
            )
    return result


def summarize(
    outcomes: Sequence[TaskOutcome],
    ks: Sequence[int],
    missing_tasks: int = 0,
    missing_task_trials: int = 0,
    n_boot: int = 2000,
    seed: int = 0,
) -> Summary:
    """Means over tasks (tasks with no usable trials left out), with bootstrap intervals."""
    usable = [o for o in outcomes if o.n > 0]
    min_n = min((o.n for o in usable), default=0)
    pass_at: dict[int, float | None] = {}
    ci: dict[int, tuple[float, float] | None] = {}
    for k in ks:
        if not usable or min_n < k:
            pass_at[k], ci[k] = None, None
            continue
        per_task = [o.mean_reward if k == 1 else pass_at_k(o.n, o.c, k) for o in usable]
        pass_at[k] = float(np.mean(per_task))
        ci[k] = bootstrap_ci(per_task, n_boot, seed)
    hard = [1.0 if o.c > 0 else 0.0 for o in usable if o.level == HARD_LEVEL]
    return Summary(
        n_tasks=len(outcomes),
        n_trials=sum(o.n_present for o in outcomes),
        n_errored=sum(o.n_errored for o in outcomes),
        n_missing_trials=sum(o.n_missing for o in outcomes) + missing_task_trials,
        n_missing_tasks=missing_tasks,
        pass_at=pass_at,
        ci=ci,
        min_trials=min_n,
        hard_pass3=float(np.mean(hard)) if hard else None,
        hard_ci=bootstrap_ci(hard, n_boot, seed),
        n_hard_tasks=len(hard),
    )


def aggregate(
    trials: Iterable[Trial],
    ks: Sequence[int] = (1, 3, 5),
    exclude_errors: bool = False,
    n_boot: int = 2000,
    seed: int = 0,
) -> Report:
    """The whole report: per model overall, by suite and by level."""
    trials = list(trials)
    expected = expected_trials(trials)
    outcomes = task_outcomes(trials, exclude_errors)
    suites = sorted({suite_and_level(t)[0] for t in expected})
    levels = sorted({suite_and_level(t)[1] for t in expected}, key=_level_order)
    report = Report(ks=tuple(ks), exclude_errors=exclude_errors, n_boot=n_boot)

    for model in sorted(outcomes):
        per_task = outcomes[model]
        absent = tuple(t for t in sorted(expected) if t not in per_task)

        def group(in_group: Callable[[str], bool], per_task=per_task, absent=absent) -> Summary:
            missing = [t for t in absent if in_group(t)]
            return summarize(
                [o for o in per_task.values() if in_group(o.task)],
                ks,
                missing_tasks=len(missing),
                missing_task_trials=sum(expected[t] for t in missing),
                n_boot=n_boot,
                seed=seed,
            )

        report.models[model] = ModelReport(
            model=model,
            overall=group(lambda _t: True),
            by_suite={s: group(lambda t, s=s: suite_and_level(t)[0] == s) for s in suites},
            by_level={lv: group(lambda t, lv=lv: suite_and_level(t)[1] == lv) for lv in levels},
            tasks=dict(per_task),
            missing_tasks=absent,
        )
    return report


def _level_order(level: str) -> tuple[int, str]:
    return ({"E": 0, "M": 1, "H": 2}.get(level, 3), level)


@dataclass(frozen=True, slots=True)
class Difference:
    task: str
    a: TaskOutcome | None
    b: TaskOutcome | None


def compare(report: Report, model_a: str, model_b: str) -> list[Difference]:
    """Tasks where two models' per-task pass@1 differ, or where only one has results."""
    ta, tb = report.models[model_a].tasks, report.models[model_b].tasks
    diffs = []
    for task in sorted(set(ta) | set(tb)):
        a, b = ta.get(task), tb.get(task)
        if a is None or b is None or _task_score(a) != _task_score(b):
            diffs.append(Difference(task, a, b))
    return diffs


def _task_score(o: TaskOutcome) -> float | None:
    return o.mean_reward if o.n else None
