"""MAT-E14 quality bars: the reference passes (also with the lamp window / 1.15), the idle
program and the blind replay fail, a few one-change mutants of the reference fail with the
expected rule or reason, the text states every judged rule, the conditions and the fuzzer's
conditions lie inside the published ranges, and the plant follows D03 and the hopper model."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings

from plants.tasks.mat_e14 import TASK, plant
from verifier.fuzz import fuzz_source, search_space

from .taskkit import assert_fails_as, edited, reference_text, rendered_rules, task_verifier

REFERENCE = reference_text(TASK, plant)
RANGES = {r.name: (r.lo, r.hi) for r in TASK.ranges}


_verify = task_verifier(TASK)


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.suite, TASK.level, len(TASK.conditions), TASK.time_limit_s) == ("MAT", "easy", 3, 120.0)
    assert [(s.address, s.name, s.type) for s in TASK.io] == [
        ("%IX0.0", "AUTO_SW", "BOOL"), ("%IX0.1", "LL", "BOOL"), ("%IX0.2", "LOW", "BOOL"),
        ("%IX0.3", "HIGH", "BOOL"), ("%IX0.4", "HH", "BOOL"), ("%IX0.5", "FEEDER_OL_OK", "BOOL"),
        ("%QX0.0", "FEEDER", "BOOL"), ("%QX0.1", "LAMP_LOW_ALARM", "BOOL"),
        ("%QX0.2", "LAMP_HIGH_ALARM", "BOOL"),
    ]
    assert [TASK.signal(n).meaning for n in ("LL", "LOW", "HIGH", "HH")] == [
        "level >= 10 %", "level >= 30 %", "level >= 80 %", "level >= 95 %"]
    text, rules = rendered_rules(TASK, plant)
    assert "more than 6 times within any 60 s" in rules["S-CYCLE"]
    assert "100 %" in rules["S-OVERFLOW"]
    for phrase in ("minimum off time", "within 0.5 s both ways", "10-95 %", "25-85 % at T"):
        assert phrase in text
    for secret in ("fill_pct_s", "cons1_pct_s", "h0_pct", "40.0", "25.0"):
        assert secret not in text


def test_conditions_lie_inside_the_published_ranges() -> None:
    assert TASK.range_findings() == []
    assert RANGES["fill_pct_s"] == (1.5, 3.0) and RANGES["h0_pct"] == (40.0, 60.0)
    assert RANGES["trip_s"] == (0.5, 5.0) and RANGES["bridge_s"] == (5.0, 30.0)
    for cond in TASK.conditions:
        p = cond.params
        assert p["fill_pct_s"] >= max(p["cons1_pct_s"], p["cons2_pct_s"]) + 1.0
        assert len(cond.script) <= 1  # at most one disturbance


@settings(max_examples=150, deadline=None)
@given(search_space(TASK))
def test_generated_conditions_lie_inside_the_published_ranges(condition) -> None:
    assert TASK.range_findings((condition,)) == []
    p = condition.params
    assert p["fill_pct_s"] >= max(p["cons1_pct_s"], p["cons2_pct_s"]) + 1.0 - 1e-9
    assert TASK.time_limit(condition) == 120.0


def test_fuzz_does_not_flag_the_reference(cache_dir) -> None:
    outcome = fuzz_source(REFERENCE, TASK, cache_dir=cache_dir, examples=15, seed=3)
    assert outcome.counterexample is None, outcome.verdict and outcome.verdict.reason
    assert outcome.conditions_run > 15


def test_reference_passes_every_condition(reference_run) -> None:
    v = reference_run
    assert v.reward == 1
    assert v.diagnostics.items == []
    assert [c.success_time_s for c in v.conditions] == [120.0] * 3  # run to T


def test_reference_keeps_15_percent_lamp_margin(cache_dir) -> None:
    """A6/A16 for a run-to-T task: the margin is on the 0.5 s lamp window."""
    tight = dataclasses.replace(TASK, judge={**TASK.judge, "lamp_window_s": 0.5 / 1.15})
    assert _verify(REFERENCE, cache_dir, tight).reward == 1


def test_idle_program_fails_every_condition(idle_run) -> None:
    v = idle_run
    c1, c2, c3 = v.conditions
    assert not (c1.success or c2.success or c3.success)
    assert "left the 10-95 % band" in c1.reason and "left the 10-95 % band" in c2.reason
    assert "LAMP_LOW_ALARM differed" in c3.reason  # the bridged run drains below LL, unlit


def test_blind_replay_of_condition_1_fails_the_others(recorded_outputs, replay_run) -> None:
    assert recorded_outputs.shape == (12000, 3)
    v = replay_run
    c1, c2, c3 = v.conditions
    assert c1.passed
    assert c2.violation is not None and c2.violation.code == "S-OLRUN"  # runs through the trip
    assert not c3.passed


MUTANTS = {
    "no hysteresis (stops at LOW)": (
        (("(HIGH OR HH OR NOT FEEDER_OL_OK", "(LOW OR HH OR NOT FEEDER_OL_OK"),), "C1", "S-CYCLE"),
    "overload ignored": ((("HIGH OR HH OR NOT FEEDER_OL_OK OR", "HIGH OR HH OR"),
                          ("FEEDER := running AND FEEDER_OL_OK AND", "FEEDER := running AND")),
                         "C2", "S-OLRUN"),
    "low alarm lamp latched": ((("LAMP_LOW_ALARM := NOT LL;",
                                 "LAMP_LOW_ALARM := LAMP_LOW_ALARM OR NOT LL;"),),
                               "C3", "LAMP_LOW_ALARM differed"),
    "stops only at HH": ((("(HIGH OR HH OR NOT FEEDER_OL_OK", "(HH OR NOT FEEDER_OL_OK"),),
                         "C1", "left the 10-95 % band"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    edits, cond, expected = MUTANTS[name]
    v = _verify(edited(REFERENCE, edits), cache_dir)
    assert v.reward == 0
    assert_fails_as({c.name: c for c in v.conditions}[cond], expected)


def _open_loop(c: int, feeder_on, seconds: float = 120.0):
    """Run condition c's plant without a program: FEEDER = feeder_on(k). Returns the input
    image and the level of every tick."""
    state = plant.build(TASK)
    n = int(round(seconds * 100))
    inputs, levels = np.zeros((n, 6)), np.zeros(n)
    out = np.zeros(3)
    for k in range(n):
        plant.sense(state, c, k, inputs[k])
        out[plant.O_FEEDER] = 1.0 if feeder_on(k) else 0.0
        plant.advance(state, c, k, out)
        levels[k] = state[4][c]["h"]
    return inputs, levels


def test_plant_follows_the_feeder_and_consumption_model() -> None:
    # C2: consumption 0.2 %/s in [0, 20) s, 1.5 %/s in [20, 40) s; the feeder idle.
    _, idle = _open_loop(1, lambda k: False, 40.0)
    assert idle[1999] == pytest.approx(50.0 - 0.2 * 20.0)
    assert idle[3999] == pytest.approx(46.0 - 1.5 * 20.0)
    # C2 with the feeder always on: the overload relay reads FALSE 40.0-45.0 s and the
    # contactor is open then, so the screw coasts (tau 0.5 s) and only the 0.2 %/s
    # consumption of 40-60 s acts once it has run down.
    inputs, level = _open_loop(1, lambda k: True, 50.0)
    ol = inputs[:, plant.I_OL_OK]
    assert ol[3999] == 1 and np.all(ol[4000:4500] == 0) and ol[4500] == 1
    assert level[4499] - level[4299] == pytest.approx(-0.2 * 2.0, abs=0.01)
    # Net rate at full speed before the trip: fill 3 - consumption 0.2 = 2.8 %/s.
    assert (level[1999] - level[999]) == pytest.approx(2.8 * 10.0, rel=1e-3)
    # C3: bridging 25-55 s: the running screw delivers nothing, the level falls 1 %/s.
    _, bridged = _open_loop(2, lambda k: True, 60.0)
    assert bridged[5399] - bridged[2599] == pytest.approx(-1.0 * 28.0)
    # The switches read the level of the state they are computed from.
    inputs, level = _open_loop(0, lambda k: False, 60.0)
    ll = inputs[:, plant.I_LL]
    first_low = int(np.flatnonzero(ll == 0)[0])
    assert level[first_low - 1] < 10.0 <= level[first_low - 2]


def test_judge_counts_starts_in_a_sliding_60_s_window() -> None:
    def starts(ticks_on: list[int]) -> int:
        state = plant.build(TASK)
        inp = np.ones(6)
        out = np.zeros(3)
        first = 0
        for k in range(max(ticks_on) + 2):
            out[plant.O_FEEDER] = 1.0 if k in ticks_on else 0.0
            violation, *_ = plant.judge(state, 0, k, inp, out)
            if violation == plant.V_CYCLE and not first:
                first = k
        return first

    assert starts([i * 900 for i in range(7)]) == 6 * 900  # 7 starts within 54 s
    assert starts([i * 1100 for i in range(7)]) == 0  # 7 starts over 66 s: at most 6 in 60 s
