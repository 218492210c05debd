"""MAT-E02 quality bars: the reference passes with 15 % margin, the idle program and the blind
replay fail, one-change mutants of the reference fail for the expected reason, the text states
every judged rule and the published ranges hold every condition, and the plant follows
D17/D18/D19 and the operator script."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings

from plants.tasks.mat_e02 import TASK, plant
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
    ("%IX0.1", "COUNT_PE", "BOOL"),
    ("%IX0.2", "BOX_PRESENT", "BOOL"),
    ("%IW140", "BATCH", "INT"),
    ("%QX0.0", "CONV", "BOOL"),
    ("%QX0.1", "LAMP_BOX_FULL", "BOOL"),
]


_verify = task_verifier(TASK, validate=False)


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert TASK.range_findings() == []
    assert (TASK.id, TASK.suite, TASK.level, len(TASK.conditions)) == ("MAT-E02", "MAT", "easy", 4)
    assert [(s.address, s.name, s.type) for s in TASK.io] == CATALOG_IO
    text, rules = rendered_rules(TASK, plant, exactly=False)
    for r in TASK.ranges:
        assert r.render() in text
    assert "after_parts" not in text and "every 0.8" not in text  # condition values stay hidden


def test_conditions_follow_the_catalog() -> None:
    params = [(c.params["batch"], c.params["v_mm_s"], c.params["boxes"]) for c in TASK.conditions]
    assert params == [(5, 200.0, 2), (8, 300.0, 3), (4, 250.0, 2), (6, 150.0, 2)]
    parts = [sum(ev.kind == "part" for ev in c.script) for c in TASK.conditions]
    assert parts == [12, 26, 10, 14]
    assert [TASK.time_limit(c) for c in TASK.conditions] == [40.0, 45.0, 40.0, 60.0]
    c3 = [ev.t for ev in TASK.conditions[2].script]
    assert np.allclose(np.diff(c3), [0.6, 3.0, 1.2, 0.8, 2.5, 0.6, 1.8, 3.0, 0.9])
    for c, cond in enumerate(TASK.conditions):  # enough parts for M boxes of BATCH
        assert parts[c] >= cond.params["boxes"] * cond.params["batch"]


REVIEW_SIM_S = (23.7, 35.7, 25.47, 34.95)
"""Finishing times of the review simulation's reference (sims/MAT-E_and_MAT-M01/e02.py; C2
with its 4 s / 3 s swap), an independent model of the same plant."""


def test_reference_passes_every_condition_with_15_percent_margin(reference_run) -> None:
    v = reference_run
    assert v.reward == 1
    assert v.diagnostics.items == []
    for cond, res, sim in zip(TASK.conditions, v.result["conditions"], REVIEW_SIM_S, strict=True):
        assert res["success_time_s"] * 1.15 <= TASK.time_limit(cond), cond.name
        assert abs(res["success_time_s"] - sim) <= 0.3, cond.name


def test_idle_program_fails_every_condition(idle_run) -> None:
    assert_every_condition_fails(idle_run, 4, "time limit")


def test_blind_replay_of_condition_1_fails_another_condition(replay_run) -> None:
    assert_only_condition_1_passes(replay_run, all_others=False)


MUTANTS = {
    # counts arrivals, so it stops with the BATCH-th part still on the belt: one part short
    "counts parts arriving": (
        "IF partPassed.Q AND NOT boxFull", "IF partArrives.Q AND NOT boxFull", (0, 1, 2, 3),
        "", "holding"),
    # the belt keeps running while the box is away (C4): a part falls onto the floor
    "ignores BOX_PRESENT": (
        "CONV := AUTO_SW AND BOX_PRESENT AND NOT boxFull;", "CONV := AUTO_SW AND NOT boxFull;",
        (3,), "S-DROP", ""),
    # restarts the count when the box comes back mid-batch (C4): the box is overfilled
    "restarts the count on every box": (
        "IF boxArrives.Q AND boxFull THEN", "IF boxArrives.Q THEN", (3,), "",
        "holding"),
    # stops on the timer only: at 300 mm/s with parts nose to tail (C2) the next part drops
    "no stop on the next part": (
        "IF lastOnWay AND (partArrives.Q OR lastDropped.Q) THEN",
        "IF lastOnWay AND lastDropped.Q THEN", (1,), "", "holding"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    old, new, failing, code, reason = MUTANTS[name]
    v = _verify(edited(REFERENCE, [(old, new)], unique=False), cache_dir)
    assert v.reward == 0
    assert_fails_with(v, failing, code, reason, name)


# ---------------------------------------------------------------- plant properties


def _drive(c: int, program, n_ticks: int):
    """Run the plant of condition c in Python with a scan function ``program(k, inp) -> out``;
    returns the input images and the judge's answers per tick."""
    return drive(plant, TASK, c, program, n_ticks)


def test_belt_discharges_into_the_box_and_the_photo_eye_sees_every_part() -> None:
    state, inputs, verdicts = _drive(0, lambda k, inp: (1.0, 0.0), 2500)
    assert np.all(inputs[:, plant.I_AUTO_SW] == 1) and np.all(inputs[:, plant.I_BATCH] == 5)
    rises = np.flatnonzero(np.diff(inputs[:, plant.I_COUNT_PE]) > 0)
    assert len(rises) == 12
    # first part placed at 1.0 s; its front reaches 1400 mm after 1340 mm at ~200 mm/s
    assert 1.0 + 1340 / 200 <= (rises[0] + 1) * 0.01 <= 1.0 + 1340 / 200 + 0.15
    box = state[plant.BOXST][0]
    assert (box["count"], box["present"], box["full_removed"]) == (12, 1, 0)
    assert all(v[0] == 0 for v in verdicts)  # never a drop while the box is there
    assert verdicts[-1][1:3] == (-1, 2)  # every part gone, the box never became full


def test_mid_batch_removal_takes_the_box_after_the_third_part_and_a_running_belt_drops() -> None:
    state, inputs, verdicts = _drive(3, lambda k, inp: (1.0, 0.0), 3000)
    present = inputs[:, plant.I_BOX_PRESENT]
    away = np.flatnonzero(present == 0)
    assert len(away) == 300 and np.all(np.diff(away) == 1)  # away for exactly 3 s
    first_drop = next(k for k, v in enumerate(verdicts) if v[0] == 1)
    assert away[0] < first_drop < away[-1]
    dropped = int(state[plant.LSTATE][3, 0]["n_drop"])
    assert dropped == 2  # pitch 1.2 s: two parts reach the edge in the 3 s the box is away
    assert state[plant.BOXST][3]["count"] == 14 - dropped  # every other part is in the box


def test_operator_swaps_the_box_t_a_after_the_lamp_and_judges_its_count() -> None:
    def fill_then_lamp(k, inp):  # belt on until 5 parts are in, then lamp (ideal controller)
        return (0.0, 1.0) if k >= 1500 else (1.0, 0.0)

    state, inputs, verdicts = _drive(0, fill_then_lamp, 2100)
    present = inputs[:, plant.I_BOX_PRESENT]
    gone = int(np.flatnonzero(present == 0)[0])
    assert gone == 1500 + 300 + 1  # t_a = 3 s after the lamp rose in scan 1500
    back = int(np.flatnonzero(present[gone:] == 1)[0]) + gone
    assert back - gone == 200  # t_b = 2 s
    fail = next(v for v in verdicts if v[1] != 0)
    count = int(fail[3])
    assert fail[1:3] == (-1, 1) and count != 5  # the uncounted box was not exactly full


# ---------------------------------------------------------------- search space (plantloop fuzz)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(search_space(TASK))
def test_generated_conditions_lie_inside_the_published_ranges(condition) -> None:
    assert TASK.range_findings((condition,)) == []
    assert 40.0 <= TASK.time_limit(condition) <= 60.0
    parts = sum(ev.kind == "part" for ev in condition.script)
    assert parts >= condition.params["boxes"] * condition.params["batch"]
    plant.build(dataclasses.replace(TASK, conditions=(condition,)))  # the plant accepts it


@pytest.mark.slow
def test_reference_is_robust_over_generated_conditions(cache_dir) -> None:
    """DoD 3: the reference is not tuned to the catalog conditions."""
    outcome = fuzz_source(REFERENCE, TASK, examples=20, seed=1, cache_dir=cache_dir)
    assert outcome.counterexample is None, outcome.counterexample
    assert outcome.conditions_run > outcome.kernel_calls == 20
