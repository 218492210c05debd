"""MAT-E05 quality bars: the reference passes with margin, the idle program and the blind
replay fail, a few one-change mutants of the reference fail with the expected rule or reason,
the text states every judged rule, and the plant follows D01/D25."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings

from plants.tasks.mat_e05 import TASK, plant
from verifier.fuzz import fuzz_source, search_space

from .taskkit import (
    assert_every_condition_fails,
    assert_fails_as,
    edited,
    reference_text,
    rendered_rules,
    task_verifier,
    traces,
)

REFERENCE = reference_text(TASK, plant)
RANGES = {r.name: (r.lo, r.hi) for r in TASK.ranges}


_verify = task_verifier(TASK)


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.suite, TASK.level, len(TASK.conditions)) == ("MAT", "easy", 3)
    assert [(s.address, s.name, s.type) for s in TASK.io] == [
        ("%IX0.0", "START", "BOOL"), ("%IX0.1", "STOP_NC", "BOOL"), ("%IX0.2", "LOW", "BOOL"),
        ("%IX0.3", "HIGH", "BOOL"), ("%IX0.4", "HH", "BOOL"), ("%IW140", "BATCHES", "INT"),
        ("%QX0.0", "FILL_V", "BOOL"), ("%QX0.1", "PUMP", "BOOL"), ("%QX0.2", "LAMP_ALARM", "BOOL"),
        ("%QX0.3", "LAMP_DONE", "BOOL"),
    ]
    text, rules = rendered_rules(TASK, plant)
    for secret in ("q_in_pct_s", "high_stuck", "25.0"):
        assert secret not in text


def test_conditions_lie_inside_the_published_ranges() -> None:
    assert TASK.range_findings() == []
    assert RANGES["batches"] == (1.0, 5.0) and RANGES["q_out_pct_s"] == (4.0, 10.0)
    assert [TASK.time_limit(c) for c in TASK.conditions] == [120.0, 120.0, 60.0]


@settings(max_examples=200, deadline=None)
@given(search_space(TASK))
def test_generated_conditions_lie_inside_the_published_ranges(condition) -> None:
    assert TASK.range_findings((condition,)) == []
    assert 60.0 <= TASK.time_limit(condition) <= 120.0


def test_fuzz_does_not_flag_the_reference(cache_dir) -> None:
    outcome = fuzz_source(REFERENCE, TASK, cache_dir=cache_dir, examples=30, seed=1)
    assert outcome.counterexample is None, outcome.verdict and outcome.verdict.reason
    assert outcome.conditions_run > 30


def test_reference_passes_every_condition(reference_run) -> None:
    v = reference_run
    assert v.reward == 1
    assert v.diagnostics.items == []
    times = [c.success_time_s for c in v.conditions]
    # C1: 1 + 15.6 + 3 + 11.7 + 2 x (14 + 3 + 11.7) + 3 s settling; C3: HH at 16 s, drained ~30 s, + 5 s.
    assert times[0] == pytest.approx(91.7, abs=0.2) and times[2] == pytest.approx(35.2, abs=0.2)


def test_reference_keeps_15_percent_margin(cache_dir) -> None:
    """A16: T / 1.15 in every condition, and the 0.3 s alarm window / 1.15."""
    conds = tuple(dataclasses.replace(c, time_limit_s=TASK.time_limit(c) / 1.15) for c in TASK.conditions)
    tight = dataclasses.replace(TASK, conditions=conds,
                                judge={**TASK.judge, "alarm_window_s": 0.3 / 1.15})
    assert _verify(REFERENCE, cache_dir, tight).reward == 1


def test_idle_program_fails_every_condition(idle_run) -> None:
    assert_every_condition_fails(idle_run, 3, "not completed")


def test_blind_replay_of_condition_1_fails_the_others(recorded_outputs, replay_run) -> None:
    assert recorded_outputs.shape == (9167, 4)  # up to the success tick of C1
    v = replay_run
    c1, c2, c3 = v.conditions
    assert c1.passed
    assert c2.violation.code == "S-HHFILL"  # the 15.6 s fill at 8 %/s runs into HH (and on)
    assert c3.violation.code == "S-HHFILL"  # fills on past HH with the HIGH switch stuck


MUTANTS = {
    "resumes without START": ((("IF NOT STOP_NC THEN", "IF FALSE THEN"),), "C2", "S-LATCH"),
    "HH ignored": ((("IF HH AND phase <> S_IDLE", "IF FALSE AND phase <> S_IDLE"),),
                   "C3", "LAMP_ALARM was not on within 0.3 s"),
    "alarm drain ignores LOW": ((
        ("        S_ALARM:\n            IF NOT LOW THEN", "        S_ALARM:\n            IF FALSE THEN"),
        ("NOT paused AND STOP_NC AND LOW;", "NOT paused AND STOP_NC;"),
    ), "C3", "S-DRYRUN"),
    "one cycle too many": ((("IF cycles >= BATCHES THEN", "IF cycles > BATCHES THEN"),),
                           "C1", "more than BATCHES"),
    "alarm lamp not latched": ((("LAMP_ALARM := alarm;", "LAMP_ALARM := phase = S_ALARM;"),),
                               "C3", "LAMP_ALARM went off"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    edits, cond, expected = MUTANTS[name]
    v = _verify(edited(REFERENCE, edits), cache_dir)
    assert v.reward == 0
    assert_fails_as({c.name: c for c in v.conditions}[cond], expected)


def test_plant_follows_the_script_and_the_tank_model(cache_dir) -> None:
    runs = traces(REFERENCE, TASK, cache_dir, (1, 2))
    i_c2, o_c2 = runs[1]
    stop_nc = i_c2[:, plant.I_STOP_NC]
    assert np.all(stop_nc[2000:2030] == 0) and stop_nc[1999] == 1 and stop_nc[2030] == 1
    assert np.all(o_c2[2000:2500, plant.O_PUMP] == 0) and o_c2[2500, plant.O_PUMP] == 1  # START at 25.0
    assert np.all(i_c2[:9800, plant.I_BATCHES] == 3)  # the trace ends at success (98.1 s)
    # C2 fills at 8 %/s from 0 % from the START scan 100: HIGH (80 %) is seen 1000 steps
    # later (one more when the float sum of 0.08 % steps lands just below 80 %).
    first_high = int(np.flatnonzero(i_c2[:, plant.I_HIGH])[0])
    assert first_high - (100 + 1000) in (0, 1)
    i_c3, o_c3 = runs[2]
    assert not i_c3[:, plant.I_HIGH].any()  # the HIGH switch is stuck FALSE
    hh = int(np.flatnonzero(i_c3[:, plant.I_HH])[0])
    assert hh - (100 + 1500) in (0, 1)  # 5 % + 6 %/s x 15 s = 95 %
    assert o_c3[hh, plant.O_FILL_V] == 0 and o_c3[hh, plant.O_LAMP_ALARM] == 1


def test_judge_counts_cycles_on_the_true_level() -> None:
    state = plant.build(TASK)
    tank_state, js, tp = state[1], state[4], state[3]
    inp = np.zeros(6)
    inp[plant.I_STOP_NC] = 1.0
    out = np.zeros(4)
    for k, h in enumerate((50.0, 80.0, 50.0, 10.0, 9.99, 85.0, 9.0)):
        tank_state[0, 0]["h"] = h
        plant.judge(state, 0, k, inp, out)
    assert js[0]["cycles"] == 2 and tp[0]["batches"] == 3
