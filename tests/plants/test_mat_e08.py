"""MAT-E08 quality bars: the reference passes with 15 % margin, the idle program and the blind
replay fail, one-change mutants of the reference fail for the expected reason, the text states
every judged rule, the conditions lie inside the published ranges, and the plant follows
D17/D18/D19/D22 (swing arm)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import items as items_mod
from plants.tasks.mat_e08 import TASK, plant
from verifier.fuzz import fuzz_source, search_space

from .taskkit import (
    assert_every_condition_fails,
    assert_only_condition_1_passes,
    drive,
    reference_text,
    rendered_rules,
    task_verifier,
)

REFERENCE = reference_text(TASK, plant)
N = len(TASK.conditions)
RANGES = {r.name: (r.lo, r.hi) for r in TASK.ranges}

CATALOG_IO = [
    ("%IX0.0", "AUTO_SW", "BOOL"), ("%IX0.1", "ENTRY_PE", "BOOL"), ("%IX0.2", "TALL_S", "BOOL"),
    ("%IX0.3", "ZONE_OCC", "BOOL"), ("%IX0.4", "ARM_HOME", "BOOL"), ("%IX0.5", "ARM_DIV", "BOOL"),
    ("%QX0.0", "CONV", "BOOL"), ("%QX0.1", "DIVERT", "BOOL"),
]


_verify = task_verifier(TASK)


def test_declaration_matches_the_catalog_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.id, TASK.suite, TASK.level, N) == ("MAT-E08", "MAT", "easy", 4)
    assert TASK.title == "Height sorting with a swing-arm diverter"
    assert [(s.address, s.name, s.type) for s in TASK.io] == CATALOG_IO
    assert [TASK.time_limit(c) for c in TASK.conditions] == [60.0, 50.0, 60.0, 45.0]
    text, rules = rendered_rules(TASK, plant)
    for r in TASK.ranges:
        assert r.render() in text
    assert "[1150, 1350]" in text and "x = 500 mm" in text and "120 mm" in text
    assert "TSTS" not in text and "pitches_mm" not in text  # per-condition values stay secret


def test_conditions_follow_the_catalog_inside_the_published_ranges() -> None:
    assert TASK.range_findings() == []
    rows = [(c.params["v_mm_s"], c.params["arm_s"], c.params["items"]) for c in TASK.conditions]
    assert rows == [(200.0, 0.3, "TSTSTSTSTS"), (300.0, 0.6, "TTTSSSTTTSSS"),
                    (250.0, 0.4, "TSSTTSTSST"), (300.0, 0.6, "STSTSTSTST")]
    assert TASK.conditions[2].params["pitches_mm"] == (900.0, 2000.0, 1100.0, 900.0, 1500.0,
                                                        1000.0, 1800.0, 900.0, 1200.0)
    for cond in TASK.conditions:
        p = cond.params
        assert len(p["pitches_mm"]) == len(p["items"]) - 1 and cond.script == ()
        lo, hi = RANGES["pitch_min_mm"]
        assert all(lo <= x <= hi for x in p["pitches_mm"])


REVIEW_SIM_S = (51.0, 40.4, 48.8, 32.5)
"""Finishing times of the review simulation's reference (sims/MAT-E_and_MAT-M01/summary.txt),
an independent model of the same plant."""


def test_reference_passes_every_condition_with_15_percent_margin(reference_run) -> None:
    v = reference_run
    assert v.reward == 1 and v.diagnostics.items == []
    for cond, res, sim in zip(TASK.conditions, v.result["conditions"], REVIEW_SIM_S, strict=True):
        assert res["success_time_s"] * 1.15 <= TASK.time_limit(cond), cond.name
        assert abs(res["success_time_s"] - sim) <= 0.1, cond.name


def test_idle_program_fails_every_condition(idle_run) -> None:
    assert_every_condition_fails(idle_run, N, "not completed within the time limit")


def test_blind_replay_of_condition_1_fails_another_condition(replay_run) -> None:
    assert_only_condition_1_passes(replay_run, all_others=True)


MUTANTS = {
    # name: (old, new, condition that must fail, violation code, reason fragment)
    # switches the arm for the next item while the previous one is still in the zone
    "ignores ZONE_OCC": ("IF NOT ZONE_OCC AND qCount > 0 THEN", "IF qCount > 0 THEN", 0,
                         "S-JAM", "struck by the swing arm"),
    # classifies on the falling edge, when the item has left the height gate
    "samples TALL_S too late": ("entryEdge : R_TRIG;", "entryEdge : F_TRIG;", 0, "",
                                "tall item 1 reached the straight lane"),
    # never swings the arm back for a short item
    "never returns the arm": ("armCmd := tallQ[qHead];", "armCmd := armCmd OR tallQ[qHead];", 0,
                              "", "short item 2 was diverted"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    old, new, c, code, reason = MUTANTS[name]
    assert REFERENCE.count(old) == 1
    v = _verify(REFERENCE.replace(old, new), cache_dir)
    assert v.reward == 0
    res = v.conditions[c]
    assert not res.success and reason in res.reason, (name, res.reason)
    if code:
        assert res.violation is not None and res.violation.code == code
    else:
        assert res.violation is None


# ---------------------------------------------------------------- plant properties


def _drive(c: int, program, n_ticks: int, task=TASK):
    """Run the plant of condition c in Python with ``program(k, inp) -> (CONV, DIVERT)``;
    returns the state, the input images and the judge's answers per tick."""
    return drive(plant, task, c, program, n_ticks)


def _rises(x: np.ndarray) -> np.ndarray:
    return np.flatnonzero(np.diff(x) > 0) + 1


def test_gate_sees_every_item_and_the_height_gate_only_tall_ones() -> None:
    state, inputs, verdicts = _drive(1, lambda k, inp: (1.0, 0.0), 3000)
    entry, tall = _rises(inputs[:, plant.I_ENTRY_PE]), _rises(inputs[:, plant.I_TALL_S])
    kinds = TASK.conditions[1].params["items"]
    placed = [j for j in range(len(kinds)) if state[plant.ITEMS][1, j]["place"] != items_mod.WAITING]
    seen = len(entry)
    assert seen >= 8 and len(placed) >= seen
    assert list(tall) == [int(entry[j]) for j in range(seen) if kinds[j] == "T"]
    # the first item is placed at 1.0 s; its front reaches 500 mm after 300 mm at ~300 mm/s
    assert 1.0 + 300 / 300 <= entry[0] * 0.01 <= 1.0 + 300 / 300 + 0.15
    # pitch: each next item is placed when the one ahead has travelled 900 mm
    assert np.all(np.abs(np.diff(entry) * 0.01 - 900 / 300) <= 0.02)
    # with the arm straight the first (tall) item reaches the straight lane: wrong lane
    fail = next(v for v in verdicts if v[1] != 0)
    assert fail == (0, -1, 1, 1.0)


def test_zone_sensor_follows_footprints_and_diverted_items_leave_at_the_zone_end() -> None:
    state, inputs, verdicts = _drive(0, lambda k, inp: (1.0, 1.0), 1500)  # arm always diverting
    zone = inputs[:, plant.I_ZONE_OCC]
    on, off = _rises(zone), np.flatnonzero(np.diff(zone) < 0) + 1
    # the zone is occupied from front = 1150 to rear = 1350: 400 mm at 200 mm/s = 2 s
    assert len(on) >= 2 and np.all(np.abs(off[: len(on)] - on[: len(off)] - 200) <= 1)
    items = state[plant.ITEMS][0]
    assert items[0]["fate"] == items_mod.DELIVERED and items[0]["dest"] == plant.DEST_SIDE
    # the short second item is diverted too: the judge fails it with reason 2
    fail = next(v for v in verdicts if v[1] != 0)
    assert fail == (0, -1, 2, 2.0)


def test_arm_travel_switches_and_a_move_over_an_occupied_zone_is_a_jam() -> None:
    arm_ticks = round(TASK.conditions[1].params["arm_s"] / 0.01)

    def toggle(k, inp):  # divert from 0.5 s, back home at 8 s (item 2 is in the zone then)
        return (1.0, 1.0 if 50 <= k < 800 else 0.0)

    state, inputs, verdicts = _drive(1, toggle, 900)
    home, div = inputs[:, plant.I_ARM_HOME], inputs[:, plant.I_ARM_DIV]
    # the stroke leaves <= 0.02 on the 2nd step and reaches >= 0.98 on step ceil(0.98 x 60)
    assert int(np.flatnonzero(home == 0)[0]) == 52 and np.all(home[:52] == 1)
    assert int(np.flatnonzero(div)[0]) == 50 + math.ceil(0.98 * arm_ticks)
    assert not np.any((home == 1) & (div == 1))
    assert inputs[800, plant.I_ZONE_OCC] == 1  # the arm starts back over an occupied zone
    first = next(k for k, v in enumerate(verdicts) if v[0] == 1)
    assert first == 800 and verdicts[first][1:3] == (-1, 3)


def test_an_item_entering_the_zone_while_the_arm_travels_is_struck() -> None:
    _, inputs, _ = _drive(0, lambda k, inp: (1.0, 0.0), 700)
    enters = int(_rises(inputs[:, plant.I_ZONE_OCC])[0])  # first scan showing item 1 in the zone
    start = enters - 10  # the arm (0.3 s) is still travelling when item 1's front reaches 1150

    state, inputs, verdicts = _drive(0, lambda k, inp: (1.0, float(k >= start)), 700)
    assert inputs[start, plant.I_ZONE_OCC] == 0  # the move itself starts over a free zone
    first = next(k for k, v in enumerate(verdicts) if v[0] == 1)
    assert first == enters - 1  # the step in which the front reaches 1150
    assert verdicts[first][1:] == (-1, 3, 1.0)
    assert state[plant.ITEMS][0, 0]["damaged"] == 1


@settings(max_examples=8, deadline=None, derandomize=True)
@given(c=st.integers(0, N - 1), seed=st.integers(0, 2**31 - 1))
def test_plant_properties_under_random_outputs(c: int, seed: int) -> None:
    """Random belt and arm outputs: sensors agree with footprints, items never overlap, an item
    has a fate exactly when it has left the belt, the arm switches are never both TRUE, and
    success only with every item in its lane."""
    rng = np.random.default_rng(seed)
    conv = np.repeat(rng.random(40) < 0.8, 50)
    div = np.repeat(rng.random(40) < 0.5, 50)
    state, inputs, verdicts = _drive(c, lambda k, inp: (float(conv[k]), float(div[k])), 2000)
    assert not np.any((inputs[:, plant.I_ARM_HOME] == 1) & (inputs[:, plant.I_ARM_DIV] == 1))
    items = state[plant.ITEMS][c][: len(TASK.conditions[c].params["items"])]
    on_line = items[items["place"] == items_mod.LINE]
    rears = np.sort(on_line["rear"])
    assert np.all(np.diff(rears) >= on_line["length"][0] - 1e-6)
    assert np.all((items["fate"] != items_mod.FATE_NONE) == (items["place"] == items_mod.DONE))
    inp = np.zeros(len(TASK.inputs))
    plant.sense(state, c, 2000, inp)
    at_gate = (on_line["rear"] <= plant.GATE_X_MM) & (on_line["rear"] + on_line["length"] >= plant.GATE_X_MM)
    assert inp[plant.I_ENTRY_PE] == float(at_gate.any())
    assert inp[plant.I_TALL_S] == float((at_gate & (on_line["height"] >= plant.GATE_H_MM)).any())
    in_zone = (on_line["rear"] < 1350.0) & (on_line["rear"] + on_line["length"] > 1150.0)
    assert inp[plant.I_ZONE_OCC] == float(in_zone.any())
    if any(v[1] == 1 for v in verdicts):
        tall = items["height"] >= plant.GATE_H_MM
        assert np.all(np.where(tall, items["dest"] == plant.DEST_SIDE,
                               items["dest"] == plant.DEST_STRAIGHT))


# ---------------------------------------------------------------- search space (plantloop fuzz)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(search_space(TASK))
def test_generated_conditions_lie_inside_the_published_ranges(condition) -> None:
    assert TASK.range_findings((condition,)) == []
    assert 45.0 <= TASK.time_limit(condition) <= 60.0
    assert 10 <= len(condition.params["items"]) <= 12
    plant.build(dataclasses.replace(TASK, conditions=(condition,)))  # the plant accepts it


@pytest.mark.slow
def test_reference_is_robust_over_generated_conditions(cache_dir) -> None:
    """DoD 3: the reference is not tuned to the catalog conditions."""
    outcome = fuzz_source(REFERENCE, TASK, examples=20, seed=1, cache_dir=cache_dir)
    assert outcome.counterexample is None, outcome.counterexample
    assert outcome.conditions_run > outcome.kernel_calls == 20
