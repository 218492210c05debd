"""MOT-E13 quality bars: the reference passes with margin (also at the corners of the published
ranges), the idle program and the blind replay fail, one-change mutants of the reference fail
with the expected rule or reason, the text states every judged rule, the conditions lie in the
published ranges, and the plant follows D08 (encoder offset and reset, REF chatter, hard-wired
over-travel switches)."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import given, settings

from plants.tasks.mot_e13 import FINAL_WINDOW_MM, TASK, ZERO_WINDOW_MM, plant, search
from plants.tasks.spec import Condition, Event
from verifier.fuzz import fuzz_source

from .taskkit import (
    assert_every_condition_fails,
    assert_only_condition_1_passes,
    edited,
    reference_text,
    rendered_rules,
    task_verifier,
)

REFERENCE = reference_text(TASK, plant)
MARGIN = 1.15
RANGES = {r.name: (r.lo, r.hi) for r in TASK.ranges}


_verify = task_verifier(TASK)


def _codes(v) -> list[str | None]:
    return [c.violation.code if c.violation else None for c in v.conditions]


def _reasons(v) -> list[str]:
    return [c.reason or "" for c in v.conditions]


# ---------------------------------------------------------------- declaration


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.suite, TASK.level, len(TASK.conditions)) == ("MOT", "easy", 3)
    assert TASK.title == "Reference search for a raw encoder axis"
    assert [(s.address, s.name, s.type) for s in TASK.io] == [
        ("%IX0.0", "HOME_PB", "BOOL"), ("%IX0.1", "STOP_NC", "BOOL"), ("%IX0.2", "REF", "BOOL"),
        ("%IX0.3", "LS_NEG", "BOOL"), ("%IX0.4", "LS_POS", "BOOL"), ("%ID240", "ENC", "DINT"),
        ("%QX0.0", "FWD", "BOOL"), ("%QX0.1", "REV", "BOOL"), ("%QX0.2", "FAST", "BOOL"),
        ("%QX0.3", "ENC_RESET", "BOOL"), ("%QX0.4", "LAMP_HOMED", "BOOL"),
    ]
    assert TASK.signal("ENC").unit == "0.1 mm"
    text, rules = rendered_rules(TASK, plant)
    for secret in ("x0_mm", "12345", "-43210", "250000", "ref_chatter"):
        assert secret not in text
    assert "259.5 mm <= x <= 260.5 mm" in text and "1257 mm <= x <= 1263 mm" in text
    assert "Time limit: **40 s**" in text


def test_conditions_lie_inside_the_published_ranges() -> None:
    assert TASK.range_findings() == []
    assert TASK.range_findings(_corner_conditions()) == []
    for cond in TASK.conditions:
        script = sorted(cond.script, key=lambda ev: ev.t)
        assert all(ev.kind == "press" and ev.duration == 0.0 for ev in script)
        assert (script[0].t, script[0].target) == (1.0, "HOME_PB")
        for stop, again in zip(script[1::2], script[2::2], strict=True):
            assert (stop.target, again.target) == ("STOP", "HOME_PB")
            assert again.t - stop.t >= 1.5
    assert any(c.params["ref_chatter"] for c in TASK.conditions)
    assert any(plant.REF_LO_MM <= c.params["x0_mm"] <= plant.REF_HI_MM for c in TASK.conditions)


# ---------------------------------------------------------------- reference and baselines


def test_reference_passes_every_condition(reference_run) -> None:
    assert reference_run.reward == 1, _reasons(reference_run)
    assert reference_run.diagnostics.items == []


def _shrunk(window: tuple[float, float]) -> tuple[float, float]:
    centre, half = sum(window) / 2, (window[1] - window[0]) / 2
    return centre - half / MARGIN, centre + half / MARGIN


def _tightened(task):
    """A16/A40: T, the zero window and the final window shrunk by 15 %."""
    conditions = tuple(dataclasses.replace(c, time_limit_s=round(task.time_limit(c) / MARGIN, 2))
                       for c in task.conditions)
    judge = dict(task.judge, zero_window_mm=_shrunk(ZERO_WINDOW_MM),
                 final_window_mm=_shrunk(FINAL_WINDOW_MM))
    return dataclasses.replace(task, conditions=conditions, judge=judge)


def test_reference_keeps_15_percent_margin(cache_dir) -> None:
    v = _verify(REFERENCE, cache_dir, _tightened(TASK))
    assert v.reward == 1, list(zip(_codes(v), _reasons(v), strict=True))


def _corner_conditions() -> tuple[Condition, ...]:
    """Start on the cam's left edge or far right, every (v_fast, tau) corner, REF chattering,
    and twice with a STOP that needs a new HOME_PB (on the cam; the latest restart far right)."""
    conds = []
    for x0, vf, tau in itertools.product(RANGES["x0_mm"], RANGES["v_fast_mm_s"], RANGES["tau_s"]):
        conds.append(Condition(f"K{len(conds) + 1}", {
            "x0_mm": x0, "v_fast_mm_s": vf, "tau_s": tau, "enc_offset": -999_999 + len(conds),
            "ref_chatter": True}, (Event(1.0, "press", "HOME_PB"),)))
    conds.append(Condition("K9", {"x0_mm": 250.0, "v_fast_mm_s": 200.0, "tau_s": 0.2,
                                  "enc_offset": 999_999, "ref_chatter": True},
                           (Event(1.0, "press", "HOME_PB"), Event(2.0, "press", "STOP"),
                            Event(3.5, "press", "HOME_PB"))))
    conds.append(Condition("K10", {"x0_mm": 1400.0, "v_fast_mm_s": 150.0, "tau_s": 0.2,
                                   "enc_offset": 0, "ref_chatter": False},
                           (Event(1.0, "press", "HOME_PB"), Event(1.5, "press", "STOP"),
                            Event(7.0, "press", "HOME_PB"))))
    return tuple(conds)


def test_reference_is_robust_at_the_corners_of_the_published_ranges(cache_dir) -> None:
    corners = dataclasses.replace(TASK, conditions=_corner_conditions())
    v = _verify(REFERENCE, cache_dir, _tightened(corners))
    assert v.reward == 1, list(zip(_codes(v), _reasons(v), strict=True))


@settings(max_examples=40, deadline=None)
@given(search.search_space(TASK))
def test_fuzz_search_space_keeps_the_published_promises(condition) -> None:
    assert TASK.range_findings((condition,)) == []
    script = condition.script
    assert (script[0].t, script[0].target) == (1.0, "HOME_PB") and len(script) in (1, 3)
    if len(script) == 3:
        assert round((script[2].t - script[1].t) * 100) >= 150  # whole ticks: 5.43 - 3.93 < 1.5


def test_reference_survives_the_fuzzer_with_15_percent_margin(cache_dir) -> None:
    """T and both windows shrunk by 15 %, conditions drawn anywhere in the published ranges."""
    tight = dataclasses.replace(_tightened(TASK), time_limit_s=round(TASK.time_limit_s / MARGIN, 2))
    outcome = fuzz_source(REFERENCE, tight, examples=40, seed=13, cache_dir=cache_dir)
    assert outcome.counterexample is None, outcome.counterexample


def test_idle_program_fails_every_condition(idle_run) -> None:
    v = idle_run
    assert_every_condition_fails(v, 3)
    assert _codes(v) == [None] * 3
    assert all(r.startswith("not completed within the time limit") for r in _reasons(v))


def test_blind_replay_of_condition_1_fails_another_condition(replay_run) -> None:
    assert_only_condition_1_passes(replay_run, all_others=True)


# ---------------------------------------------------------------- mutants

MUTANTS = {
    "STOP ignored": (
        [("IF NOT STOP_NC THEN\n    state := IDLE;", "IF FALSE THEN\n    state := IDLE;")],
        "S-STOPPB", None, 0),
    "no pause after leaving the cam, no interlock": (
        [("            state := PAUSE;", "            state := SEARCH;"),
         ("REV := moveRev AND NOT moveFwd AND fwdOff.Q;", "REV := moveRev AND NOT moveFwd;")],
        "S-DEADTIME", None, 1),
    "searches toward +": (
        [("moveRev := state = SEARCH;", "moveRev := FALSE;"),
         ("moveFwd := state = LEAVE_CAM", "moveFwd := state = SEARCH OR state = LEAVE_CAM")],
        "S-HWLIM", None, 0),
    "zeroes where it enters the cam": (
        [("IF refFall.Q THEN", "IF TRUE THEN")], None, "the counter was zeroed at x =", 0),
    "no creep before the target": (
        [("(state = TO_TARGET AND ENC < TARGET - CREEP_DIST)", "state = TO_TARGET")],
        None, "FAST is TRUE while driving within the last 100 mm", 0),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    edits, code, reason, condition = MUTANTS[name]
    v = _verify(edited(REFERENCE, edits), cache_dir)
    assert v.reward == 0
    if code is not None:
        assert _codes(v)[condition] == code, (_codes(v), _reasons(v))
    if reason is not None:
        assert _reasons(v)[condition].startswith(reason), _reasons(v)


# ---------------------------------------------------------------- plant


def _step(p, c: int, k: int, fwd=False, rev=False, fast=False, reset=False) -> np.ndarray:
    out = np.array([fwd, rev, fast, reset, False], float)
    plant.advance(p, c, k, out)
    inp = np.zeros(6)
    plant.sense(p, c, k + 1, inp)
    return inp


def test_plant_encoder_offset_reset_and_over_travel() -> None:
    p = plant.build(TASK)
    inp = np.zeros(6)
    for c, cond in enumerate(TASK.conditions):
        plant.sense(p, c, 0, inp)
        assert inp[plant.I_ENC] == cond.params["enc_offset"]
        assert inp[plant.I_STOP_NC] == 1.0 and inp[plant.I_HOME_PB] == 0.0
    assert np.array_equal(p[3]["ref"], [0, 1, 0])  # C2 starts on the cam
    c = 0  # C1: x0 = 900, 0.1 mm per count, counting up toward +x
    for k in range(200):
        inp = _step(p, c, k, fwd=True, fast=True)
    x = p[1][c, 0]["x"]
    assert inp[plant.I_ENC] == round((x - 900.0) / 0.1) + 12345
    inp = _step(p, c, 200, fwd=True, reset=True)
    assert p[1][c, 0]["zero"] == pytest.approx(x)
    for k in range(201, 2000):  # drive into the + over-travel switch
        inp = _step(p, c, k, fwd=True, fast=True)
    assert inp[plant.I_LS_POS] == 1.0
    assert plant.LS_POS_MM <= p[1][c, 0]["x"] < plant.LS_POS_MM + 20.0  # cut, coasted to rest
    assert abs(p[1][c, 0]["v"]) < 1e-3


def test_plant_ref_chatters_for_three_scans_only_where_stated() -> None:
    p = plant.build(TASK)
    readings = {}
    for c in (0, 2):  # C1 clean, C3 chattering; both search - into the cam
        seen = []
        for k in range(3000):
            inp = _step(p, c, k, rev=True, fast=True)
            seen.append((inp[plant.I_REF], p[3][c]["ref"]))
            if p[1][c, 0]["x"] < 230.0:
                break
        readings[c] = seen
    first = next(j for j, (_, true) in enumerate(readings[0]) if true)
    assert [r for r, _ in readings[0][first:first + 4]] == [1.0, 1.0, 1.0, 1.0]
    first = next(j for j, (_, true) in enumerate(readings[2]) if true)
    assert [r for r, _ in readings[2][first:first + 5]] == [0.0, 1.0, 0.0, 1.0, 1.0]
