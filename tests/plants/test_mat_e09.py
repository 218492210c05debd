"""MAT-E09 quality bars: the reference passes with 15 % margin, the idle program and the blind
replay fail, one-change mutants of the reference fail for the expected reason, the text states
every judged rule and the published ranges hold every condition, and the plant follows
D08/D13/D17/D18/D19 (driven in Python, no compile)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings

from plants.tasks.mat_e09 import TASK, plant
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
    ("%IX0.0", "AUTO_SW", "BOOL"), ("%IX0.1", "IN_END_PE", "BOOL"),
    ("%IX0.2", "CAB_PE", "BOOL"), ("%IX0.3", "OUT_PE", "BOOL"),
    ("%IX0.4", "NEAR_0", "BOOL"), ("%IX0.5", "AT_0", "BOOL"),
    ("%IX0.6", "NEAR_1", "BOOL"), ("%IX0.7", "AT_1", "BOOL"),
    ("%IX1.0", "LS_TOP", "BOOL"), ("%IX1.1", "LS_BOT", "BOOL"),
    ("%QX0.0", "IN_CONV", "BOOL"), ("%QX0.1", "CAB_CONV", "BOOL"),
    ("%QX0.2", "OUT_CONV", "BOOL"), ("%QX0.3", "LIFT_UP", "BOOL"),
    ("%QX0.4", "LIFT_DOWN", "BOOL"), ("%QX0.5", "LIFT_FAST", "BOOL"),
]

CATALOG_CONDITIONS = [
    # v_fast, v_creep, tau, conveyors, arrivals, T
    (400.0, 20.0, 0.1, 300.0, [1.0, 20.0, 40.0], 110.0),
    (500.0, 30.0, 0.2, 300.0, [1.0, 5.0, 30.0], 90.0),
    (300.0, 25.0, 0.15, 200.0, [1.0, 25.0, 50.0, 60.0], 175.0),
]


_verify = task_verifier(TASK, validate=False)


def test_declaration_matches_the_catalog_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert TASK.range_findings() == []
    assert (TASK.id, TASK.title, TASK.suite, TASK.level, len(TASK.conditions)) == (
        "MAT-E09", "Two-level tote lift", "MAT", "easy", 3)
    assert [(s.address, s.name, s.type) for s in TASK.io] == CATALOG_IO
    for cond, (v_fast, v_creep, tau, v_conv, times, limit) in zip(
            TASK.conditions, CATALOG_CONDITIONS, strict=True):
        assert (cond.params["v_fast_mm_s"], cond.params["v_creep_mm_s"], cond.params["tau_s"],
                cond.params["v_conv_mm_s"], cond.params["totes"]) == (
            v_fast, v_creep, tau, v_conv, len(times))
        assert [ev.t for ev in cond.script] == times
        assert TASK.time_limit(cond) == limit
    text, rules = rendered_rules(TASK, plant)
    for r in TASK.ranges:
        assert r.render() in text
    assert "20.0, 40.0" not in text and "C1" not in text  # per-condition values stay secret


def test_reference_passes_every_condition_with_15_percent_margin(reference_run) -> None:
    assert reference_run.reward == 1
    for cond, res in zip(TASK.conditions, reference_run.conditions, strict=True):
        assert res.passed and res.success_time_s is not None
        assert TASK.time_limit(cond) >= 1.15 * res.success_time_s, (cond.name, res.success_time_s)
    assert reference_run.diagnostics.items == []


def test_idle_program_fails_every_condition(idle_run) -> None:
    v = idle_run
    assert_every_condition_fails(v, 3)
    assert all(c.violation is None for c in v.conditions)  # idle delivers nothing, safely


def test_blind_replay_of_condition_1_fails_another_condition(reference_run, recorded_outputs,
                                                             replay_run) -> None:
    assert recorded_outputs.shape == (round(reference_run.conditions[0].success_time_s / 0.01), 6)
    assert_only_condition_1_passes(replay_run, all_others=False)


MUTANTS = {
    # loads as soon as the cabin is level: it still creeps (tau 0.2 s in C2) -> shear
    "no rest before moving a tote": (
        "PT := T#1s);\ncabClear", "PT := T#0s);\ncabClear", (1,), "S-SHEAR", ""),
    # leaves floor 1 the moment CAB_PE clears: the tote's rear is still in the cabin
    "leaves before the tote is out": (
        "NOT CAB_PE, PT := T#1s", "NOT CAB_PE, PT := T#0s", (0, 1, 2), "S-SHEAR", ""),
    # the infeed never stops at its end: the next tote is pushed across the edge while the
    # cabin leaves (S-SHEAR first), then falls into the empty shaft
    "infeed ignores its end": (
        "IN_CONV := phase = ST_LOAD OR NOT IN_END_PE;", "IN_CONV := TRUE;", (0, 1, 2),
        "S-SHEAR", "fell into the shaft"),
    # no creep before floor 0: at v_fast 500 mm/s and tau 0.2 s (C2) the cabin overruns LS_BOT
    "fast into floor 0": (
        "(LIFT_DOWN AND NOT NEAR_0)", "LIFT_DOWN", (1,), "S-HWLIM", ""),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    old, new, failing, code, reason = MUTANTS[name]
    v = _verify(edited(REFERENCE, [(old, new)]), cache_dir)
    assert v.reward == 0
    assert_fails_with(v, failing, code, reason, name)


# ---------------------------------------------------------------- plant properties

UP, DOWN, FAST = plant.O_LIFT_UP, plant.O_LIFT_DOWN, plant.O_LIFT_FAST


def _drive(c: int, program, n_ticks: int):
    """Run the plant of condition c in Python with a scan function ``program(k, inp) -> out``;
    returns the state, the input images and the judge's answers per tick."""
    return drive(plant, TASK, c, program, n_ticks)


def _outputs(**on) -> np.ndarray:
    out = np.zeros(len(TASK.outputs))
    for name, value in on.items():
        out[getattr(plant, f"O_{name}")] = float(value)
    return out


def test_hoist_flags_follow_the_cabin_height_and_the_top_switch_is_judged() -> None:
    """C2 (500 mm/s, tau 0.2 s): drive up fast with no stop; the flags switch at their
    heights, LS_TOP stops the drive, S-HWLIM is raised once z >= 3100 mm."""
    state, inputs, verdicts = _drive(1, lambda k, inp: _outputs(LIFT_UP=1, LIFT_FAST=1), 1200)
    hst = state[plant.HST][1, 0]
    assert 3100.0 <= hst["x"] <= plant.STOP_TOP_MM
    near1 = inputs[:, plant.I_NEAR_1]
    at0 = inputs[:, plant.I_AT_0]
    assert at0[0] == 1 and inputs[0, plant.I_NEAR_0] == 1 and near1[0] == 0
    first_near1 = int(np.flatnonzero(near1)[0])
    # 2850 mm at up to 500 mm/s after a 0.2 s run-up: about 5.9 s
    assert 5.7 <= first_near1 * 0.01 <= 6.1
    top = np.flatnonzero(inputs[:, plant.I_LS_TOP])
    hwlim = [k for k, v in enumerate(verdicts) if v[0] == 2]
    assert len(top) and hwlim and hwlim[0] + 1 == top[0]  # judged on S_k+1, seen a scan later


def test_both_directions_are_judged_and_give_no_motion() -> None:
    state, _, verdicts = _drive(0, lambda k, inp: _outputs(LIFT_UP=1, LIFT_DOWN=1), 50)
    assert all(v[0] == 1 for v in verdicts)
    assert state[plant.HST][0, 0]["x"] == 0.0


def test_totes_arrive_on_time_wait_for_space_and_stop_at_the_infeed_end() -> None:
    """C2: totes at 1.0 and 5.0 s; with the infeed running until IN_END_PE the first stops
    short of the cabin edge and the second is placed only once [0, 1000] mm is free."""
    def feed(k, inp):
        return _outputs(IN_CONV=inp[plant.I_IN_END_PE] == 0)

    state, inputs, verdicts = _drive(1, feed, 2000)
    items = state[plant.ITEMS][1]
    end = inputs[:, plant.I_IN_END_PE]
    first_end = int(np.flatnonzero(end)[0])
    # placed at 1.0 s, front from 600 to 1450 mm at 300 mm/s after a 0.1 s run-up
    assert 1.0 + 850 / 300 <= first_end * 0.01 <= 1.0 + 850 / 300 + 0.15
    assert 1450 <= items[0]["rear"] + 600 < 1500  # held short of the edge
    assert items[1]["place"] == 0  # still waiting: the first tote's rear is below 1000 mm
    assert all(v == (0, 0, 0, 0.0) for v in verdicts)
    assert inputs[:, plant.I_CAB_PE].max() == 0


def test_a_tote_crossing_into_an_absent_cabin_falls_and_fails_the_run() -> None:
    """C1: lift the empty cabin 200 mm, then run the infeed: the tote straddles the edge
    (no shear: the cabin is at rest) and falls when its centre crosses x = 1500 mm."""
    def program(k, inp):
        if k < 200:
            return _outputs(LIFT_UP=1)  # creep 20 mm/s for 2 s
        return _outputs(IN_CONV=1, CAB_CONV=1)

    state, _, verdicts = _drive(0, program, 1200)
    failed = next(v for v in verdicts if v[1] != 0)
    assert failed[1:] == (-1, 1, 1500.0)
    codes = {v[0] for v in verdicts}
    assert codes == {0, 4}  # only S-DROP: the cabin had come to rest before the tote arrived
    assert state[plant.ITEMS][0][0]["fate"] == 2  # DROPPED


def test_moving_the_cabin_with_a_tote_across_its_edge_shears() -> None:
    """C1: half-load a tote (stop with its footprint across x = 1500 mm), then lift."""
    def program(k, inp):
        if k < 500:
            return _outputs(IN_CONV=1, CAB_CONV=1)
        return _outputs(LIFT_UP=1)

    state, _, verdicts = _drive(0, program, 560)
    tote = state[plant.ITEMS][0][0]
    assert tote["rear"] < 1500 < tote["rear"] + 600
    shear = [k for k, v in enumerate(verdicts) if v[0] == 3]
    assert shear and shear[0] >= 500


# ---------------------------------------------------------------- search space (plantloop fuzz)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(search_space(TASK))
def test_generated_conditions_lie_inside_the_published_ranges(condition) -> None:
    assert TASK.range_findings((condition,)) == []
    assert 90.0 <= TASK.time_limit(condition) <= 175.0
    assert sum(ev.kind == "tote" for ev in condition.script) == condition.params["totes"]
    plant.build(dataclasses.replace(TASK, conditions=(condition,)))  # the plant accepts it


@pytest.mark.slow
def test_reference_is_robust_over_generated_conditions(cache_dir) -> None:
    """DoD 3: the reference is not tuned to the catalog conditions."""
    outcome = fuzz_source(REFERENCE, TASK, examples=10, seed=1, cache_dir=cache_dir)
    assert outcome.counterexample is None, outcome.counterexample
    assert outcome.conditions_run > outcome.kernel_calls == 10
