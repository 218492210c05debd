"""MOT-E15 quality bars: the reference passes with margin, the idle program and the blind
replay fail, mutants of the reference fail with the expected reason or S-code, the text
states every judged rule, the conditions lie inside the published ranges, and the shaft
follows its speed script (D15 master) with a truncated, wrapping encoder."""

from __future__ import annotations

import numpy as np
import pytest

from plants.tasks.mot_e15 import RANGES, REVOLUTIONS, TASK, plant

from .taskkit import (
    assert_every_condition_fails,
    assert_only_condition_1_passes,
    reference_text,
    rendered_rules,
    task_verifier,
)

REFERENCE = reference_text(TASK, plant)
N = len(TASK.conditions)


_verify = task_verifier(TASK)


def _inputs_until_done(condition: int) -> np.ndarray:
    """(ANGLE, MACHINE_RUN) of every scan the judge sees, up to the success scan, from the
    plant functions alone (no program needed: the shaft ignores the valves)."""
    state = plant.build(TASK)
    inp, out, rows = np.zeros(2), np.zeros(2), []
    for k in range(round(TASK.time_limit(TASK.conditions[condition]) * 100)):
        plant.sense(state, condition, k, inp)
        rows.append((inp[plant.I_ANGLE], inp[plant.I_MACHINE_RUN]))
        plant.advance(state, condition, k, out)
        if state[1][condition, 0]["s_roll"] >= 360.0 * REVOLUTIONS - 1e-6:
            break
    return np.array(rows)


@pytest.fixture(scope="module")
def scans():
    return [_inputs_until_done(c) for c in range(N)]


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.id, TASK.title, TASK.suite, TASK.level, N) == (
        "MOT-E15", "Programmable cam switch on a rotating shaft", "MOT", "easy", 3)
    assert [(s.address, s.name, s.type) for s in TASK.io] == [
        ("%IX0.0", "MACHINE_RUN", "BOOL"), ("%IW140", "ANGLE", "INT"),
        ("%QX0.0", "VALVE_1", "BOOL"), ("%QX0.1", "VALVE_2", "BOOL")]
    text, rules = rendered_rules(TASK, plant)
    assert "Shaft speed -150 to 150 rpm" in text and "between **20 s** and **30 s**" in text
    assert "start_deg" not in text and "121" not in text and "3.0 deg" not in text


def test_conditions_lie_inside_the_published_ranges() -> None:
    assert TASK.range_findings() == []
    assert {r.name: (r.lo, r.hi) for r in TASK.ranges} == RANGES
    lo, hi = RANGES["speed_rpm"]
    speeds = [dict(ev.args)["rpm"] for cond in TASK.conditions for ev in cond.script]
    assert speeds and all(lo <= s <= hi for s in speeds)
    assert [TASK.time_limit(c) for c in TASK.conditions] == [25.0, 20.0, 30.0]


def test_reference_passes_every_condition_with_margin(reference_run) -> None:
    """A16: T >= 1.15 x the finishing time (fixed by the shaft: 20 turns)."""
    assert reference_run.reward == 1
    done = [c["success_time_s"] for c in reference_run.result["conditions"]]
    assert done == pytest.approx([20.0, 12.0, 17.0])
    assert all(TASK.time_limit(c) >= 1.15 * t for c, t in zip(TASK.conditions, done, strict=True))
    assert reference_run.diagnostics.items == []


def test_idle_program_fails_every_condition(idle_run) -> None:
    assert_every_condition_fails(idle_run, N, "FALSE inside cam")


def test_blind_replay_of_condition_1_fails_another_condition(recorded_outputs, replay_run) -> None:
    assert recorded_outputs.shape == (2000, 2)
    assert_only_condition_1_passes(replay_run, all_others=True)


MUTANTS = {  # name -> (old, new, failing condition, expected reason or S-code)
    "cam opens after its on angle": (
        "angle >= onAt AND angle < offAt", "angle > onAt AND angle < offAt",
        0, "VALVE_1 is FALSE inside cam 1"),
    "cam closes after its off angle": (
        "angle >= onAt AND angle < offAt", "angle >= onAt AND angle <= offAt",
        1, "VALVE_1 is TRUE outside cam 1"),
    "wrapping cam opens after its on angle": (
        "angle >= onAt OR angle < offAt", "angle > onAt OR angle < offAt",
        2, "VALVE_2 is FALSE inside cam 2"),
    "wrapping cam as an AND window": (
        "angle >= onAt OR angle < offAt", "angle >= onAt AND angle < offAt",
        0, "VALVE_2 is FALSE inside cam 2"),
    "MACHINE_RUN ignored": ("MACHINE_RUN AND InCam", "InCam", 2, "S-PUDDLE"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutants_of_the_reference_fail_for_the_expected_reason(name: str, cache_dir) -> None:
    old, new, cond, expected = MUTANTS[name]
    assert old in REFERENCE
    v = _verify(REFERENCE.replace(old, new), cache_dir)
    assert v.reward == 0
    failed = v.conditions[cond]
    if expected.startswith("S-"):
        assert failed.violation is not None and failed.violation.code == expected
    else:
        assert not failed.success and expected in failed.reason


def _spec(angle, run):
    return (run & (angle >= 800) & (angle < 1400), run & ((angle >= 3000) | (angle < 200)))


SLIPS = {  # one-boundary mistakes of a solver; each must differ from the spec somewhere
    "cam 1: > 800": lambda a, r: (r & (a > 800) & (a < 1400), _spec(a, r)[1]),
    "cam 1: <= 1400": lambda a, r: (r & (a >= 800) & (a <= 1400), _spec(a, r)[1]),
    "cam 2: > 3000": lambda a, r: (_spec(a, r)[0], r & ((a > 3000) | (a < 200))),
    "cam 2: <= 200": lambda a, r: (_spec(a, r)[0], r & ((a >= 3000) | (a <= 200))),
    "no MACHINE_RUN": lambda a, r: _spec(a, np.ones_like(r)),
}


def test_every_boundary_slip_is_caught_in_some_condition(scans) -> None:
    """The catalog's promise, checked on the implemented quantisation (no compile needed)."""
    for name, slip in SLIPS.items():
        caught = []
        for rows in scans:
            angle, run = rows[:, 0], rows[:, 1] != 0
            want, got = _spec(angle, run), slip(angle, run)
            caught.append(any(np.any(w != g) for w, g in zip(want, got, strict=True)))
        assert any(caught), name


def test_shaft_follows_the_speed_script_and_the_encoder_truncates_and_wraps(scans) -> None:
    c1, c2, c3 = scans
    assert [len(s) for s in scans] == [2000, 1200, 1700]  # 20 turns done at 20, 12, 17 s
    for rows in scans:
        assert rows[:, 0].min() >= 0 and rows[:, 0].max() <= 3599
    assert c1[0, 0] == 8 and c1[22, 0] == 800 and c1[1, 0] == 44  # 0.8 deg + 3.6 deg per scan
    assert np.all(c1[:, 1] == 1) and np.all(c2[:, 1] == 1)
    run = c3[:, 1]
    assert np.all(run[500:700] == 0) and np.all(run[1300:1400] == 0)  # the two stops
    assert run[499] == 1 and run[700] == 1 and run[1400] == 1
    assert np.all(c3[500:700, 0] == 1182)  # stopped inside cam 1
    assert c3[701, 0] < c3[700, 0] < 1182  # then reversing
    wraps = np.flatnonzero(np.diff(c1[:, 0]) < 0)
    assert len(wraps) == 19 and np.all(c1[wraps + 1, 0] < 36)  # 3599 -> 0 once per turn


def test_judge_raises_s_puddle_and_names_the_first_mismatch() -> None:
    state = plant.build(TASK)
    inp = np.array([0.0, 1000.0])  # standing shaft inside cam 1
    violation, outcome, reason, arg = plant.judge(state, 2, 0, inp, np.array([1.0, 0.0]))
    assert (violation, outcome, reason, arg) == (1, -1, 1, 1000.0)
    inp = np.array([1.0, 100.0])  # turning, inside cam 2 only
    assert plant.judge(state, 2, 0, inp, np.array([0.0, 1.0]))[:3] == (0, 0, 0)
    assert plant.judge(state, 2, 0, inp, np.array([0.0, 0.0]))[:3] == (0, -1, 4)
