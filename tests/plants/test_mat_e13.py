"""MAT-E13 quality bars: the reference passes with margin, the idle program and the blind
replay fail, a few one-change mutants of the reference fail with the expected rule or reason,
the text states every judged rule, the judge's deadline window is exact, and the plant
follows the stall and operator model."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings

from plants.tasks.mat_e13 import TASK, plant
from verifier.fuzz import search_space

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
    assert (TASK.id, TASK.title) == ("MAT-E13", "Jam detection on a transport conveyor")
    assert (TASK.suite, TASK.level, len(TASK.conditions)) == ("MAT", "easy", 4)
    assert [(s.address, s.name, s.type) for s in TASK.io] == [
        ("%IX0.0", "AUTO_SW", "BOOL"), ("%IX0.1", "PE_A", "BOOL"), ("%IX0.2", "PE_M", "BOOL"),
        ("%IX0.3", "PE_B", "BOOL"), ("%IX0.4", "RESET_PB", "BOOL"), ("%QX0.0", "CONV", "BOOL"),
        ("%QX0.1", "LAMP_JAM", "BOOL"),
    ]
    text, rules = rendered_rules(TASK, plant)
    for stated in ("8.5 s", "3.0 s", "x = 200 mm", "x = 1600 mm", "x = 2800 mm", "0.5 s"):
        assert stated in text
    for secret in ("jam_front_mm", "2850", "900 mm"):
        assert secret not in text


def test_conditions_lie_inside_the_published_ranges() -> None:
    assert TASK.range_findings() == []
    assert RANGES["v_mm_s"] == (200.0, 300.0) and RANGES["stall_s"] == (0.1, 1.0)
    assert [TASK.time_limit(c) for c in TASK.conditions] == [70.0, 90.0, 90.0, 110.0]
    assert [c.params["n_items"] for c in TASK.conditions] == [8, 6, 6, 7]


@settings(max_examples=200, deadline=None)
@given(search_space(TASK))
def test_generated_conditions_lie_inside_the_published_ranges(condition) -> None:
    assert TASK.range_findings((condition,)) == []
    assert 70.0 <= TASK.time_limit(condition) <= 110.0
    assert condition.params.get("jam_item") != condition.params.get("stall_item", 0)


def test_reference_passes_every_condition(reference_run) -> None:
    v = reference_run
    assert v.reward == 1
    assert v.diagnostics.items == []
    times = [c.success_time_s for c in v.conditions]
    # C1: the 8th item is placed at 1 + 7 x 6 s and travels 2850 mm at 250 mm/s (+ run-up).
    assert times[0] == pytest.approx(1.0 + 42.0 + 2850.0 / 250.0, abs=0.1)
    assert times == pytest.approx([54.41, 42.41, 39.52, 64.27], abs=0.2)


def test_reference_keeps_15_percent_margin(cache_dir) -> None:
    """A16: T / 1.15 in every condition, and the 0.5 s alarm window / 1.15."""
    conds = tuple(dataclasses.replace(c, time_limit_s=TASK.time_limit(c) / 1.15) for c in TASK.conditions)
    tight = dataclasses.replace(TASK, conditions=conds,
                                judge={**TASK.judge, "alarm_window_s": 0.5 / 1.15})
    assert _verify(REFERENCE, cache_dir, tight).reward == 1


def test_idle_program_fails_every_condition(idle_run) -> None:
    assert_every_condition_fails(idle_run, 4, "not completed")


def test_blind_replay_of_condition_1_fails_the_others(recorded_outputs, replay_run) -> None:
    recorded = recorded_outputs
    assert recorded.shape == (5441, 2)  # up to the success tick of C1
    assert recorded[:, plant.O_CONV].all() and not recorded[:, plant.O_LAMP_JAM].any()
    v = replay_run
    c1, *others = v.conditions
    assert c1.passed
    for c in others:  # the belt just runs on: every jam deadline passes without an alarm
        assert not c.passed and "did not rise within 0.5 s" in c.reason


MUTANTS = {
    # counting wall time ages the items held up during the C2 / C4 stops: false alarms
    "wall-clock timers": ((("IF beltWasOn THEN", "IF TRUE THEN"),), "C2", "false alarm"),
    "belt runs under the lamp": ((("CONV := AUTO_SW AND NOT jam;", "CONV := AUTO_SW;"),),
                                 "C2", "S-JAMRUN"),
    "blocked eyes not watched": ((("IF blockTiming[i] AND runClock", "IF FALSE AND runClock"),),
                                 "C3", "did not rise within 0.5 s"),
    "segment limit 0.6 s late": ((("SEGMENT_LIMIT : TIME := T#8.5s;", "SEGMENT_LIMIT : TIME := T#9.1s;"),),
                                 "C2", "did not rise within 0.5 s"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    edits, cond, expected = MUTANTS[name]
    v = _verify(edited(REFERENCE, edits), cache_dir)
    assert v.reward == 0
    assert_fails_as({c.name: c for c in v.conditions}[cond], expected)


def _judge_run(lamp_k: int | None, last_k: int) -> list[tuple]:
    """Judge a PE_A rise at scan 0 and the belt on from then, LAMP_JAM rising at lamp_k."""
    state = plant.build(TASK)
    inp, out = np.zeros(5), np.zeros(2)
    verdicts = []
    for k in range(last_k + 1):
        inp[plant.I_PE_A] = 1.0 if k == 0 else 0.0
        lamp = lamp_k is not None and k >= lamp_k
        out[plant.O_LAMP_JAM] = 1.0 if lamp else 0.0
        out[plant.O_CONV] = 0.0 if lamp else 1.0
        verdicts.append(plant.judge(state, 0, k, inp, out))
    return verdicts


def test_judge_window_is_8_5_s_of_running_time_plus_0_5_s() -> None:
    """Deadline: running time > 850 ticks at scan 851; the lamp may rise 2 ticks early (A5)
    and up to 50 ticks late."""
    early = _judge_run(848, 848)
    assert early[-1][1:3] == (-1, 1)
    assert all(v[1] == 0 for v in _judge_run(849, 1000))
    assert all(v[1] == 0 for v in _judge_run(901, 1000))
    missed = _judge_run(None, 901)
    assert missed[900][1] == 0 and missed[901][1:3] == (-1, 2)
    assert missed[901][3] == pytest.approx(8.51)
    assert all(v[0] == 0 for v in missed)


def test_judge_flags_the_belt_running_under_the_lamp() -> None:
    state = plant.build(TASK)
    out = np.array([1.0, 1.0])
    assert plant.judge(state, 0, 0, np.zeros(5), out)[0] == 1


def test_plant_stalls_items_and_the_operator_clears_them(cache_dir) -> None:
    i_c2, o_c2 = traces(REFERENCE, TASK, cache_dir, (1,))[1]
    pe_a = i_c2[:, plant.I_PE_A]
    assert pe_a[99] == 0 and pe_a[100] == 1  # item 1 placed at t = 1.0 s over PE_A
    # item 3 passes A at 13.0 s and jams with its front at 900 mm: the deadline runs out
    # 8.5 s of running time later, when the lamp must rise
    a_rises = np.flatnonzero(np.diff(pe_a) > 0) + 1
    lamp = o_c2[:, plant.O_LAMP_JAM]
    lamp_k = int(np.flatnonzero(lamp)[0])
    assert lamp_k == a_rises[2] + 851
    assert not o_c2[lamp_k:, plant.O_CONV][: np.argmin(lamp[lamp_k:])].any()
    # the operator removes item 3 after 300 scans and presses RESET_PB 1.0 s later for 0.3 s
    reset = np.flatnonzero(i_c2[:, plant.I_RESET_PB])
    assert reset[0] == lamp_k + 300 + 101 and len(reset) == 30
    assert np.all(np.diff(reset) == 1)
    assert lamp[reset[0]] == 0 and lamp[reset[0] - 1] == 1  # the edge clears the lamp
    # item 4 was held behind item 3 and never reached M before the alarm
    m_rises = np.flatnonzero(np.diff(i_c2[:, plant.I_PE_M]) > 0) + 1
    assert np.sum(m_rises < lamp_k) == 2
