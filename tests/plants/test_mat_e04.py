"""MAT-E04 quality bars: the reference passes with margin, the idle program and the blind
replay fail, one-change mutants of the reference fail, the text states every judged rule,
the conditions lie inside the published ranges, and the plant follows D11/D17 and the
handler script."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings

from plants.tasks.mat_e04 import MAG_CAPACITY, TASK, plant
from plants.tasks.mat_e04.search import expected_finish_s
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
RANGES = {r.name: r for r in TASK.ranges}
MARGIN = 1.15


_verify = task_verifier(TASK)


def _refills(cond) -> list[tuple[float, int]]:
    return [(ev.t, int(dict(ev.args)["parts"])) for ev in cond.script if ev.kind == "refill"]


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.suite, TASK.level, len(TASK.conditions)) == ("MAT", "easy", 4)
    assert [s.address for s in TASK.io] == [f"%IX0.{i}" for i in range(7)] + ["%QX0.0", "%QX0.1"]
    text, rules = rendered_rules(TASK, plant)
    for secret in ("t_off_list_s", "parts_to_take", "part_at_pick", "(3.0, 5.0"):
        assert secret not in text
    assert "between **40 s** and **60 s**" in text


def test_conditions_lie_inside_the_published_ranges() -> None:
    assert TASK.range_findings() == []
    off = RANGES["t_off_s"]
    for cond in TASK.conditions:
        assert all(off.contains(t) for t in cond.params["t_off_list_s"]), cond.name
        # refills never overfill the magazine, even if no part had been pushed yet
        assert cond.params["n"] + sum(n for _, n in _refills(cond)) <= MAG_CAPACITY
        parts = cond.params["n"] + sum(n for _, n in _refills(cond)) + cond.params["part_at_pick"]
        assert parts >= cond.params["parts_to_take"], cond.name


@settings(max_examples=60, deadline=None)
@given(search_space(TASK))
def test_generated_conditions_lie_inside_the_published_ranges(condition) -> None:
    assert TASK.range_findings((condition,)) == []
    assert 40.0 <= TASK.time_limit(condition) <= 60.0
    p = condition.params
    assert all(RANGES["t_off_s"].contains(t) for t in p["t_off_list_s"])
    assert p["n"] + sum(n for _, n in _refills(condition)) <= MAG_CAPACITY
    finish = expected_finish_s(p, _refills(condition))
    assert MARGIN * finish <= TASK.time_limit(condition)


@pytest.mark.slow
def test_fuzzing_does_not_flag_the_reference(cache_dir) -> None:
    outcome = fuzz_source(REFERENCE, TASK, cache_dir=cache_dir, examples=25, seed=3)
    assert outcome.counterexample is None, outcome.counterexample
    assert outcome.conditions_run > outcome.kernel_calls == 25


def test_reference_passes_every_condition_with_margin(reference_run) -> None:
    v = reference_run
    assert v.reward == 1 and v.diagnostics.items == []
    for cond, res in zip(TASK.conditions, v.conditions, strict=True):
        assert res.passed, (cond.name, res.reason)
        assert TASK.time_limit(cond) >= MARGIN * res.success_time_s, cond.name
        # the search space's finishing-time model stays just above the real run
        assert 0 <= expected_finish_s(cond.params, _refills(cond)) - res.success_time_s < 1.0


def test_reference_keeps_margin_on_the_lamp_grace(cache_dir) -> None:
    """The 0.2 s lamp grace is a judge allowance (deadline): shrunk by 1.15 the reference
    still passes."""
    judge = dict(TASK.judge, lamp_grace_s=TASK.judge["lamp_grace_s"] / MARGIN)
    assert _verify(REFERENCE, cache_dir, dataclasses.replace(TASK, judge=judge)).reward == 1


def test_idle_program_fails_every_condition(idle_run) -> None:
    assert_every_condition_fails(idle_run, 4, "time limit")  # C4: only the part already there


def test_blind_replay_of_condition_1_fails_another_condition(replay_run) -> None:
    v = replay_run
    assert_only_condition_1_passes(v, all_others=True)
    assert v.conditions[3].violation.code == "S-COLLIDE"  # C4: pushes into the occupied pick
    assert v.conditions[3].violation.time_s == 0.0


MUTANTS = {
    # name: ((old, new) edits, condition index, expected S-code or failure text)
    "ignores TAKING": ((("SEP_RET AND NOT TAKING THEN", "SEP_RET THEN"),
                        ("SEP_V := seqStep = ST_EXTEND AND NOT TAKING;",
                         "SEP_V := seqStep = ST_EXTEND;")), 3, "S-COLLIDE"),
    "steady lamp": ((("LAMP_EMPTY := emptyAsked AND NOT flashOn.Q;",
                      "LAMP_EMPTY := emptyAsked;"),), 1, "did not toggle"),
    "lamp ignores REQ": ((("emptyAsked := MAG_EMPTY AND REQ;", "emptyAsked := MAG_EMPTY;"),),
                         1, "after MAG_EMPTY and REQ ended"),
    "timed stroke instead of SEP_EXT": ((("IF SEP_EXT OR TAKING OR strokeTime.Q THEN",
                                          "IF strokeTime.ET >= T#400ms OR TAKING THEN"),),
                                        2, "time limit"),
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


def test_handler_follows_its_script_in_c4(cache_dir) -> None:
    """C4: part at the pick position at t = 0 (REQ FALSE), t_d 0.5, t_g 0.3, t_leave 3.0,
    t_off 2.0: TAKING at 0.5 s, lift at 0.8 s, REQ back at 2.8 s, TAKING off at 3.8 s."""
    i, o = _trace(cache_dir, 3)
    pick, req, taking = i[:, plant.I_PICK_POS], i[:, plant.I_REQ], i[:, plant.I_TAKING]
    assert pick[0] == 1 and req[0] == 0 and taking[0] == 0 and i[0, plant.I_AUTO_SW] == 1
    assert _rises(taking)[0] == 50 and _falls(pick)[0] == 80
    assert _rises(req)[0] == 280 and _falls(taking)[0] == 380
    assert _rises(o[:, plant.O_SEP_V])[0] == 380  # first scan with TAKING FALSE again
    # one part per stroke: PICK_POS rises with SEP_EXT, REQ falls with it
    for k in _rises(pick)[1:]:  # scan 0: the part already there
        assert i[k, plant.I_SEP_EXT] == 1 and req[k] == 0


def test_separator_and_magazine_follow_d11_and_d17(cache_dir) -> None:
    i3, o3 = _trace(cache_dir, 2)  # C3: 1.0 s strokes
    ext_cmd = _rises(o3[:, plant.O_SEP_V])[0]
    assert _rises(i3[:, plant.I_SEP_EXT])[0] - ext_cmd == 98  # 98 steps of 1 % reach s >= 0.98
    i2, _ = _trace(cache_dir, 1)  # C2: 3 parts, +5 at 15.0 s
    empty = i2[:, plant.I_MAG_EMPTY]
    assert _rises(empty) and _falls(empty) == [1500]
    assert len(_rises(i2[:, plant.I_PICK_POS])) == 7


def _lamp_verdicts(cond: list[bool], lamp: list[bool]) -> list[tuple[int, int]]:
    """(scan, reason) of every lamp-rule failure for scripted MAG_EMPTY AND REQ / lamp scans."""
    js = np.zeros(1, plant.JUDGE_DTYPE)
    js["grace"], js["ph_lo"], js["ph_hi"] = 20, 40, 60
    out = []
    for k, (cnd, lit) in enumerate(zip(cond, lamp, strict=True)):
        reason, _ = plant._lamp(js[0], cnd, int(lit))
        if reason:
            out.append((k, reason))
    return out


@pytest.mark.parametrize(("phase", "delay", "off_after", "expected"), [
    (50, 0, 0, []),           # 0.5 s / 0.5 s from the first scan, off with the interval
    (38, 0, 0, []),           # 0.38 s: inside with the 20 ms tolerance
    (37, 0, 0, [(174, 1)]),   # the first phase is in the grace; the second is too short
    (60, 0, 0, []),           # 0.6 s is still inside
    (61, 0, 0, [(160, 2)]),   # 0.61 s: steady for too long
    (50, 20, 0, []),          # flashing starts 0.2 s after the interval began
    (50, 21, 0, [(120, 2)]),  # 0.21 s: too late
    (50, 0, 20, []),          # lamp left on 0.2 s after the interval
    (50, 0, 21, [(420, 3)]),  # 0.21 s: too long
])
def test_lamp_rule_judges_phases_start_and_end(phase, delay, off_after, expected) -> None:
    """MAG_EMPTY AND REQ holds on scans 100-399; the lamp flashes with `phase` scans per half
    period from scan 100 + delay and stays on `off_after` scans past the interval."""
    cond = [False] * 100 + [True] * 300 + [False] * 100
    lamp = [False] * 500
    for k in range(100 + delay, 400):
        lamp[k] = ((k - 100 - delay) // phase) % 2 == 0
    for k in range(400, 400 + off_after):
        lamp[k] = True
    assert _lamp_verdicts(cond, lamp)[:1] == expected


@pytest.mark.parametrize(("pushed", "pick_pos", "taking", "collides"), [
    (True, True, False, False),   # the part this stroke pushed is arriving: not counted
    (True, True, True, True),     # ... but not into the descending gripper
    (False, True, False, True),   # a part left there from before: a collision
    (False, False, True, True),   # extending while the gripper is in the pick zone
    (False, False, False, False),
])
def test_s_collide_exempts_only_the_part_the_stroke_pushed(pushed, pick_pos, taking, collides):
    state = plant.build(TASK)
    cst, mst, js = state[1][0, 0], state[3][0, 0], state[7][0]
    cst["s_prev"], cst["s"] = 0.98, 1.0  # the last step of an extension
    if pushed:
        mst["next"] += 1
    assert plant._collides(js, cst, mst, pick_pos, taking) == collides
    cst["s_prev"], cst["s"] = 1.0, 0.98  # retracting clears the exemption
    assert not plant._collides(js, cst, mst, pick_pos, taking)
    cst["s_prev"], cst["s"] = 0.98, 1.0
    assert plant._collides(js, cst, mst, pick_pos, taking) == (pick_pos or taking)
