"""pass@k estimator and aggregation: hand-computed values and properties."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.passk import aggregate, bootstrap_ci, compare, pass_at_k, task_outcomes
from verifier.trials import Trial


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (4, 2, 2, 5 / 6),  # 1 - C(2,2)/C(4,2) = 1 - 1/6
        (5, 1, 3, 0.6),  # 1 - C(4,3)/C(5,3) = 1 - 4/10
        (10, 0, 5, 0.0),
        (3, 3, 3, 1.0),
        (4, 1, 1, 0.25),
        (5, 3, 3, 1.0),  # n - c = 2 < k = 3: every draw of 3 holds a success
        (6, 2, 3, 0.8),  # 1 - C(4,3)/C(6,3) = 1 - 4/20
    ],
)
def test_pass_at_k_hand_computed(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-15)


def test_pass_at_k_is_exact_for_large_n() -> None:
    # 1 - C(199,100)/C(200,100) = 1 - 100/200; float products drift, integers do not
    assert pass_at_k(200, 1, 100) == 0.5
    assert pass_at_k(1000, 7, 500) == float(1 - Fraction(comb(993, 500), comb(1000, 500)))


@pytest.mark.parametrize(("n", "c", "k"), [(2, 1, 3), (3, 4, 1), (3, -1, 1), (3, 1, 0)])
def test_pass_at_k_rejects_undefined_arguments(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


@given(st.integers(1, 60).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_pass_at_1_is_success_rate(nc: tuple[int, int]) -> None:
    n, c = nc
    assert pass_at_k(n, c, 1) == pytest.approx(c / n, abs=1e-15)


@given(st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n))))
def test_pass_at_k_monotone_in_c_and_k_and_bounded(nk: tuple[int, int]) -> None:
    n, k = nk
    by_c = [pass_at_k(n, c, k) for c in range(n + 1)]
    assert by_c[0] == 0.0 and by_c[-1] == 1.0
    assert all(0.0 <= v <= 1.0 for v in by_c)
    assert all(a <= b for a, b in zip(by_c, by_c[1:], strict=False))
    for c in range(n + 1):
        by_k = [pass_at_k(n, c, kk) for kk in range(1, n + 1)]
        assert all(a <= b for a, b in zip(by_k, by_k[1:], strict=False))


def _trials(model: str, task: str, rewards: list[float | None]) -> list[Trial]:
    return [
        Trial(model, task, f"t{i}", r, None if r is not None else "crash")
        for i, r in enumerate(rewards)
    ]


def test_aggregate_means_over_tasks_and_hard_pass3() -> None:
    trials = (
        _trials("A", "MOT-E01", [1, 1, 0])
        + _trials("A", "MOT-H01", [0, 0, 1])
        + _trials("A", "MAT-H02", [0, 0, 0])
    )
    s = aggregate(trials, ks=(1, 2, 3)).models["A"].overall
    assert s.pass_at[1] == pytest.approx((2 / 3 + 1 / 3 + 0) / 3)
    assert s.pass_at[2] == pytest.approx((1 + (1 - 1 / 3) + 0) / 3)
    assert s.pass_at[3] == pytest.approx(2 / 3)
    assert s.hard_pass3 == 0.5 and s.n_hard_tasks == 2
    assert (s.n_tasks, s.n_trials, s.n_errored) == (3, 9, 0)


def test_pass_at_k_is_none_when_a_task_has_fewer_than_k_trials() -> None:
    trials = _trials("A", "MOT-E01", [1, 0, 0]) + _trials("A", "MOT-E02", [1, 1])
    s = aggregate(trials, ks=(1, 2, 3)).models["A"].overall
    assert s.pass_at[2] is not None
    assert s.pass_at[3] is None and s.ci[3] is None
    assert s.min_trials == 2


def test_errored_trials_fail_by_default_and_can_be_excluded() -> None:
    trials = _trials("A", "MOT-E01", [1, None, 1, None]) + _trials("A", "MOT-E02", [None, None])
    default = aggregate(trials, ks=(1, 2)).models["A"].overall
    assert default.pass_at[1] == pytest.approx((0.5 + 0) / 2)
    assert default.n_errored == 4 and default.n_trials == 6
    excluded = aggregate(trials, ks=(1, 2), exclude_errors=True).models["A"].overall
    # MOT-E02 has no usable trial left: it leaves the mean, as in Harbor
    assert excluded.pass_at[1] == 1.0 and excluded.pass_at[2] == 1.0
    assert excluded.n_errored == 4 and excluded.n_tasks == 2


def test_missing_trials_and_tasks_are_counted() -> None:
    trials = (
        _trials("A", "MOT-E01", [1, 1, 1])
        + _trials("A", "MOT-M01", [1, 0, 1])
        + _trials("B", "MOT-E01", [1])
    )
    outcomes = task_outcomes(trials)
    assert outcomes["B"]["MOT-E01"].n_missing == 2
    b = aggregate(trials, ks=(1,)).models["B"]
    assert b.missing_tasks == ("MOT-M01",)
    assert b.overall.n_missing_trials == 2 + 3 and b.overall.n_missing_tasks == 1
    assert b.by_level["M"].n_missing_tasks == 1 and b.by_level["E"].n_missing_tasks == 0
    assert aggregate(trials, ks=(1,)).models["A"].overall.n_missing_trials == 0


def test_breakdowns_by_suite_and_level() -> None:
    trials = (
        _trials("A", "MOT-E01", [1, 1])
        + _trials("A", "MAT-E01", [0, 0])
        + _trials("A", "MAT-H01", [1, 0])
    )
    m = aggregate(trials, ks=(1,)).models["A"]
    assert m.by_suite["MOT"].pass_at[1] == 1.0
    assert m.by_suite["MAT"].pass_at[1] == 0.25
    assert m.by_level["E"].pass_at[1] == 0.5
    assert m.by_level["H"].pass_at[1] == 0.5
    assert list(m.by_level) == ["E", "H"]


def test_bootstrap_ci_brackets_the_mean_and_is_reproducible() -> None:
    values = [0.0, 0.25, 1.0, 1.0, 0.5, 0.0, 1.0]
    lo, hi = bootstrap_ci(values, seed=3)
    assert lo < sum(values) / len(values) < hi
    assert 0.0 <= lo and hi <= 1.0
    assert bootstrap_ci(values, seed=3) == (lo, hi)
    assert bootstrap_ci([0.5, 0.5, 0.5]) == (0.5, 0.5)
    assert bootstrap_ci([]) is None


def test_compare_lists_tasks_that_differ() -> None:
    trials = (
        _trials("A", "MOT-E01", [1, 1])
        + _trials("B", "MOT-E01", [1, 1])
        + _trials("A", "MOT-E02", [1, 0])
        + _trials("B", "MOT-E02", [0, 0])
        + _trials("A", "MOT-E03", [1, 1])
    )
    diffs = compare(aggregate(trials, ks=(1,)), "A", "B")
    assert [d.task for d in diffs] == ["MOT-E02", "MOT-E03"]
    assert diffs[1].b is None and diffs[1].a is not None
