"""MAT-E10 quality bars: the reference passes with 15 % margin, the idle program and the blind
replay fail, one-change mutants of the reference fail for the expected reason, the text states
every judged rule and the published ranges hold every condition, and the plant (infeed,
turntable, outfeed as one unfolded line) follows D17/D18/D19/D23 and judges each rule."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings

from plants.devices import items as items_mod
from plants.tasks.mat_e10 import TASK, plant
from plants.tasks.mat_e10.search import finish_estimate
from verifier.fuzz import fuzz_source, search_space

from .taskkit import (
    assert_every_condition_fails,
    assert_fails_with,
    assert_only_condition_1_passes,
    drive,
    edited,
    reference_text,
    rendered_rules,
    task_verifier,
)

REFERENCE = reference_text(TASK, plant)

CATALOG_IO = [
    ("%IX0.0", "AUTO_SW", "BOOL"),
    ("%IX0.1", "IN_PE", "BOOL"),
    ("%IX0.2", "TT_ENTRY_PE", "BOOL"),
    ("%IX0.3", "TT_FRONT_PE", "BOOL"),
    ("%IX0.4", "AT_0", "BOOL"),
    ("%IX0.5", "AT_90", "BOOL"),
    ("%IX0.6", "OUT_PE", "BOOL"),
    ("%QX0.0", "IN_CONV", "BOOL"),
    ("%QX0.1", "TT_ROLL", "BOOL"),
    ("%QX0.2", "ROTATE", "BOOL"),
    ("%QX0.3", "OUT_CONV", "BOOL"),
]

CATALOG_MEANINGS = {
    "IN_PE": "item front at infeed x = 1450",
    "TT_ENTRY_PE": "item footprint at table x = 20",
    "TT_FRONT_PE": "item footprint at table x = 760",
    "OUT_PE": "item on outfeed at 300 mm",
    "TT_ROLL": "table rollers (forward)",
    "ROTATE": "TRUE = to 90 deg, FALSE = to 0 deg",
}

REVIEW_SIM_S = (48.03, 58.81, 60.53)
"""Finishing times of the review simulation's reference (sims/MAT-E_and_MAT-M01/e10.py), an
independent model of the same plant."""


_verify = task_verifier(TASK, validate=False)


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert TASK.range_findings() == []
    assert (TASK.id, TASK.suite, TASK.level, len(TASK.conditions)) == ("MAT-E10", "MAT", "easy", 3)
    assert TASK.title == "90° turntable transfer"
    assert [(s.address, s.name, s.type) for s in TASK.io] == CATALOG_IO
    meanings = {s.name: s.meaning for s in TASK.io}
    for name, meaning in CATALOG_MEANINGS.items():
        assert meanings[name] == meaning, name
    text, rules = rendered_rules(TASK, plant)
    for r in TASK.ranges:
        assert r.render() in text
    assert "length_mm" not in text and "queue on the infeed" not in text  # values stay hidden


def test_conditions_follow_the_catalog() -> None:
    got = [(c.params["rotation_s"], c.params["v_mm_s"]) for c in TASK.conditions]
    assert got == [(1.0, 300.0), (2.0, 300.0), (1.5, 250.0)]
    lengths = [[dict(ev.args)["length_mm"] for ev in c.script] for c in TASK.conditions]
    assert lengths == [[500.0] * 6, [500.0] * 6, [300.0, 700.0, 450.0, 600.0, 350.0, 500.0]]
    times = [[ev.t for ev in c.script] for c in TASK.conditions]
    for ts, gap in zip(times, (4.0, 1.5, 3.0), strict=True):
        assert ts[0] == 1.0 and np.allclose(np.diff(ts), gap)
    assert [TASK.time_limit(c) for c in TASK.conditions] == [60.0, 70.0, 75.0]


def test_reference_passes_every_condition_with_15_percent_margin(reference_run) -> None:
    v = reference_run
    assert v.reward == 1
    assert v.diagnostics.items == []
    for cond, res, sim in zip(TASK.conditions, v.result["conditions"], REVIEW_SIM_S, strict=True):
        assert res["success_time_s"] * 1.15 <= TASK.time_limit(cond), cond.name
        assert abs(res["success_time_s"] - sim) <= 0.3, cond.name


def test_idle_program_fails_every_condition(idle_run) -> None:
    assert_every_condition_fails(idle_run, 3, "time limit")


def test_blind_replay_of_condition_1_fails_another_condition(replay_run) -> None:
    assert_only_condition_1_passes(replay_run, all_others=True)


MUTANTS = {
    # turns back as soon as TT_FRONT_PE falls: the rear is still 40 mm on the table
    "no clear time after discharge": ("PT := T#500ms", "PT := T#0ms", (0, 1, 2), "S-SHEAR", ""),
    # infeed runs until the roller stop: the queued item is dragged onto the table entry,
    # TT_ENTRY_PE never clears and the sequence deadlocks
    "no infeed separation": ("IF NOT IN_PE OR TT_FRONT_PE THEN", "IF TT_FRONT_PE THEN", (1,), "",
                             "time limit"),
    # infeed never holds the next item at IN_PE: it runs against the turned table
    "infeed ignores IN_PE": ("IN_CONV := AUTO_SW AND NOT IN_PE;", "IN_CONV := AUTO_SW;",
                             (0, 1, 2), "S-PILEUP", ""),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    old, new, failing, code, reason = MUTANTS[name]
    v = _verify(edited(REFERENCE, [(old, new)]), cache_dir)
    assert v.reward == 0
    assert_fails_with(v, failing, code, reason, name)


# ---------------------------------------------------------------- plant properties


def _drive(c: int, program, n_ticks: int):
    """Run the plant of condition c in Python with ``program(k, inp) -> out``; returns the
    state, the input images and the judge's answers per tick."""
    return drive(plant, TASK, c, program, n_ticks)


def _first(verdicts, violation: int) -> int:
    return next(k for k, v in enumerate(verdicts) if v[0] == violation)


def test_table_at_zero_stops_items_at_the_end_plate_and_judges_pressure() -> None:
    """All conveyors on, no rotation: item 1 runs onto the table and is pressed against the
    plate at u = 800 mm; S-PRESSURE once it has been pressed with moving rollers for > 2 s."""
    state, inputs, verdicts = _drive(0, lambda k, inp: (1.0, 1.0, 0.0, 1.0), 1500)
    assert np.all(inputs[:, plant.I_AT0] == 1) and np.all(inputs[:, plant.I_AT90] == 0)
    first = state[plant.ITEMS][0, 0]
    assert first["rear"] + first["length"] == pytest.approx(plant.X_JOIN_OUT)
    assert state[plant.LSTATE][0, 0]["n_delivered"] == 0
    arrival = int(np.argmax(inputs[:, plant.I_FRONT]))
    # placed at 1.0 s on running belts: the front runs from 500 mm to u = 760 mm (2260 mm)
    assert arrival * 0.01 == pytest.approx(1.0 + 1760.0 / 300.0, abs=0.02)
    press = _first(verdicts, 2)
    plate_contact = arrival + int(40.0 / 300.0 / 0.01)
    assert 195 <= press - plate_contact <= 205  # 2 s of pressing, to the contact tick
    assert all(v[0] in (0, 2) for v in verdicts)


def test_rotation_follows_the_cylinder_and_a_turned_table_closes_the_infeed() -> None:
    """ROTATE held from t = 0 (C1: 1.0 s): AT_0 falls once the stroke passes 0.02, AT_90 at 0.98 s; the infeed
    item then runs against the closed end: S-PILEUP when its front reaches 1499 mm."""
    state, inputs, verdicts = _drive(0, lambda k, inp: (1.0, 0.0, 1.0, 1.0), 900)
    assert list(inputs[:4, plant.I_AT0]) == [1, 1, 1, 0]
    assert int(np.argmax(inputs[:, plant.I_AT90])) == 98
    first = state[plant.ITEMS][0, 0]
    assert first["rear"] + first["length"] == pytest.approx(plant.X_JOIN_IN)  # table side
    pileup = _first(verdicts, 3)
    # placed at 1.0 s on a running belt, front from 500 to 1499 mm at 300 mm/s
    assert pileup * 0.01 == pytest.approx(1.0 + 999.0 / 300.0, abs=0.02)
    assert not any(v[0] == 1 for v in verdicts)


def test_turning_with_an_item_across_the_entry_is_shear() -> None:
    """Stopping item 1 across x = 1500 mm and turning the table is S-SHEAR on the first step
    the rotation moves; nothing is sheared while the table stands still."""
    def straddle_then_turn(k, inp):
        turning = k >= 500  # item 1: rear about 1170 mm, front about 1670 mm
        return (0.0 if turning else 1.0, 0.0, 1.0 if turning else 0.0, 1.0)

    state, inputs, verdicts = _drive(0, straddle_then_turn, 520)
    first = state[plant.ITEMS][0, 0]
    assert first["rear"] < plant.X_JOIN_IN < first["rear"] + first["length"]
    assert _first(verdicts, 1) == 500
    assert all(v[0] == 0 for v in verdicts[:500])


def test_sensors_see_item_footprints_on_every_carrier() -> None:
    """Replays the judge-free sense/advance and checks each photo-eye against the footprints
    of the state it reads (S_k), with items conserved and never overlapping."""
    state = tuple(np.ascontiguousarray(a) for a in plant.build(TASK))
    inp = np.zeros(len(TASK.inputs))
    slots = (plant.I_IN_PE, plant.I_ENTRY, plant.I_FRONT, plant.I_OUT_PE)
    for k in range(1200):
        plant.sense(state, 2, k, inp)
        items = [it for it in state[plant.ITEMS][2] if it["place"] == items_mod.LINE]
        for slot, x in zip(slots, plant.SENSOR_X, strict=True):
            assert inp[slot] == any(it["rear"] <= x <= it["rear"] + it["length"] for it in items), (k, x)
        spans = sorted((it["rear"], it["rear"] + it["length"]) for it in items)
        assert all(a[1] <= b[0] + 1e-9 for a, b in zip(spans, spans[1:], strict=False))
        plant.advance(state, 2, k, np.array([1.0, 1.0, float(k % 400 < 200), 1.0]))


# ---------------------------------------------------------------- search space (plantloop fuzz)


def test_finish_estimate_bounds_the_reference(reference_run) -> None:
    for cond, res in zip(TASK.conditions, reference_run.result["conditions"], strict=True):
        times = [ev.t for ev in cond.script]
        lengths = [dict(ev.args)["length_mm"] for ev in cond.script]
        estimate = finish_estimate(cond.params["v_mm_s"], cond.params["rotation_s"], times, lengths)
        assert res["success_time_s"] <= estimate <= 1.15 * res["success_time_s"], cond.name


@settings(max_examples=40, deadline=None, derandomize=True)
@given(search_space(TASK))
def test_generated_conditions_lie_inside_the_published_ranges(condition) -> None:
    assert TASK.range_findings((condition,)) == []
    assert 60.0 <= TASK.time_limit(condition) <= 75.0
    plant.build(dataclasses.replace(TASK, conditions=(condition,)))  # the plant accepts it


@pytest.mark.slow
def test_reference_is_robust_over_generated_conditions(cache_dir) -> None:
    """DoD 3: the reference is not tuned to the catalog conditions."""
    outcome = fuzz_source(REFERENCE, TASK, examples=20, seed=1, cache_dir=cache_dir)
    assert outcome.counterexample is None, outcome.counterexample
    assert outcome.conditions_run > outcome.kernel_calls == 20
