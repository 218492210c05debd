"""MAT-E15 quality bars: the reference passes with margin, the idle program and the blind
replay fail, one-change mutants of the reference fail with the expected rule, the text
states every judged rule, the conditions lie inside the published ranges, and the plant
follows D11/D12 and the nest scripts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from plants.tasks.mat_e15 import TASK, plant
from plants.tasks.mat_e15.search import expected_finish_s
from verifier.fuzz import fuzz_source, search_space

from .taskkit import (
    assert_every_condition_fails,
    assert_fails_as,
    assert_only_condition_1_passes,
    edited,
    reference_text,
    rendered_rules,
    task_verifier,
    traces,
)

REFERENCE = reference_text(TASK, plant)
MARGIN = 1.15


_verify = task_verifier(TASK)


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.suite, TASK.level, len(TASK.conditions)) == ("MAT", "easy", 3)
    assert [(s.address, s.name) for s in TASK.io] == [
        ("%IX0.0", "AUTO_SW"), ("%IX0.1", "X_HOME"), ("%IX0.2", "X_PLACE"), ("%IX0.3", "Z_UP"),
        ("%IX0.4", "Z_DOWN_S"), ("%IX0.5", "VAC_OK"), ("%IX0.6", "PART_AT_PICK"),
        ("%IX0.7", "PLACE_FREE"), ("%QX0.0", "X_V"), ("%QX0.1", "Z_V"), ("%QX0.2", "VAC"),
        ("%QX0.3", "BLOW"), ("%QX0.4", "LAMP_ALARM")]
    assert all(s.type == "BOOL" for s in TASK.io)
    text, rules = rendered_rules(TASK, plant)
    for secret in ("porous_part", "t_rem_s", "3.0, 5.0"):
        assert secret not in text
    assert "between **40 s** and **50 s**" in text


def test_conditions_lie_inside_the_published_ranges() -> None:
    assert TASK.range_findings() == []
    for cond in TASK.conditions:
        arrivals = [ev for ev in cond.script if ev.kind == "arrive"]
        assert len(arrivals) >= cond.params["parts_to_place"], cond.name
        assert cond.params["porous_part"] <= len(arrivals), cond.name


def _arrivals(cond) -> list[float]:
    return [ev.t for ev in cond.script if ev.kind == "arrive"]


@settings(max_examples=60, deadline=None)
@given(search_space(TASK))
def test_generated_conditions_lie_inside_the_published_ranges(condition) -> None:
    assert TASK.range_findings((condition,)) == []
    assert 40.0 <= TASK.time_limit(condition) <= 50.0
    finish = expected_finish_s(condition.params, _arrivals(condition))
    assert MARGIN * finish <= TASK.time_limit(condition)


@pytest.mark.slow
def test_fuzzing_does_not_flag_the_reference(cache_dir) -> None:
    outcome = fuzz_source(REFERENCE, TASK, cache_dir=cache_dir, examples=20, seed=3)
    assert outcome.counterexample is None, outcome.counterexample
    assert outcome.conditions_run > outcome.kernel_calls == 20


def test_reference_passes_every_condition_with_margin(reference_run) -> None:
    v = reference_run
    assert v.reward == 1 and v.diagnostics.items == []
    for cond, res in zip(TASK.conditions, v.conditions, strict=True):
        assert res.passed, (cond.name, res.reason)
        assert TASK.time_limit(cond) >= MARGIN * res.success_time_s, cond.name
        # the search space's finishing-time model stays just above the real run
        assert 0 <= expected_finish_s(cond.params, _arrivals(cond)) - res.success_time_s < 1.5


def test_idle_program_fails_every_condition(idle_run) -> None:
    v = idle_run
    assert_every_condition_fails(v, 3, "time limit")
    assert all(c.violation is None for c in v.conditions)  # idle moves nothing


def test_blind_replay_of_condition_1_fails_another_condition(replay_run) -> None:
    v = replay_run
    assert_only_condition_1_passes(v, all_others=True)
    # C2's slower Z: the timed X stroke starts while Z is still on its way up
    assert v.conditions[1].violation.code == "S-TOOLMOVE"


MUTANTS = {
    # name: ((old, new) edits, condition index, expected S-code or failure text)
    "no vacuum retry": ((("IF attempts >= 2 THEN", "IF attempts >= 1 THEN"),),
                        2, "LAMP_ALARM switched on"),
    "ignores PLACE_FREE": ((("IF X_PLACE AND PLACE_FREE THEN", "IF X_PLACE THEN"),),
                           0, "S-CRUSH"),
    "moves X before Z_UP": ((("    ST_PICK_UP:\n        IF Z_UP THEN",
                              "    ST_PICK_UP:\n        IF NOT Z_DOWN_S THEN"),), 1, "S-TOOLMOVE"),
    "lifts without blow-off and wait": ((("IF blowTime.Q THEN", "IF TRUE THEN"),
                                         ("IF settle.Q THEN", "IF TRUE THEN")), 0, "S-DROP"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    edits, c, expected = MUTANTS[name]
    v = _verify(edited(REFERENCE, edits), cache_dir)
    assert v.reward == 0
    assert_fails_as(v.conditions[c], expected)


def _trace(cache_dir, c: int) -> tuple[np.ndarray, np.ndarray]:
    return traces(REFERENCE, TASK, cache_dir, (c,))[c]


def _rises(x: np.ndarray) -> list[int]:
    """Scans at which x rises (scan 0 counts when x starts TRUE)."""
    return [0] * int(x[0] != 0) + [int(k) for k in np.flatnonzero((x[1:] != 0) & (x[:-1] == 0)) + 1]


def _falls(x: np.ndarray) -> list[int]:
    return [int(k) for k in np.flatnonzero((x[1:] == 0) & (x[:-1] != 0)) + 1]


@pytest.fixture(scope="module")
def c3_trace(cache_dir, reference_run):
    return _trace(cache_dir, 2)


def test_slides_follow_d11_and_parts_arrive_as_scripted(c3_trace) -> None:
    """C3: 0.5 s X, 0.3 s Z strokes; parts arrive at 1, 6, 11, 16, 21 s into an empty nest."""
    i, o = c3_trace
    assert i[0, plant.I_X_HOME] == 1 and i[0, plant.I_Z_UP] == 1 and i[0, plant.I_AUTO_SW] == 1
    assert _rises(i[:, plant.I_PART_AT_PICK]) == [100, 600, 1100, 1600, 2100]
    z_cmd, x_cmd = _rises(o[:, plant.O_Z_V])[0], _rises(o[:, plant.O_X_V])[0]
    assert _rises(i[:, plant.I_Z_DOWN_S])[0] - z_cmd == 30  # 0.98 / (0.01 / 0.3) -> 30 steps
    assert _falls(i[:, plant.I_Z_UP])[0] - z_cmd == 1
    assert _rises(i[:, plant.I_X_PLACE])[0] - x_cmd == 49  # 0.98 / 0.02 -> 49 steps


def test_cup_follows_d12_and_the_porous_part_fails_its_first_attempt(c3_trace) -> None:
    """C3: 0.1 s vacuum build-up; part 2 never builds vacuum on its first attempt; the
    place nest is emptied t_rem = 3 s after each placement."""
    i, o = c3_trace
    vac_on, vac_ok = _rises(o[:, plant.O_VAC]), _rises(i[:, plant.I_VAC_OK])
    assert len(vac_ok) == 5 and len(vac_on) == 6  # one retry, on part 2
    assert vac_ok[0] - vac_on[0] == 10
    assert vac_on[1] < vac_on[2] < vac_ok[1]  # part 2: the first attempt gives no VAC_OK
    assert vac_ok[1] - vac_on[2] == 10
    assert _rises(i[:, plant.I_PART_AT_PICK])[1] < vac_on[1]
    placed = _falls(i[:, plant.I_PLACE_FREE])
    assert len(placed) == 5
    removed = _rises(i[:, plant.I_PLACE_FREE])[1:]  # [0]: empty at t = 0
    assert [k - p for k, p in zip(removed, placed, strict=False)] == [300] * 4
    blow = _rises(o[:, plant.O_BLOW])
    assert [p - b for p, b in zip(placed, blow, strict=False)] == [2] * 5  # 0.02 s with BLOW
    assert not o[:, plant.O_LAMP_ALARM].any()
