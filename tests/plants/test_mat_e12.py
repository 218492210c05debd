"""MAT-E12 quality bars: the reference passes with margin, the idle program and the blind
replay fail, one-change mutants of the reference fail with the expected rule, the text states
every judged rule, and the plant hands pallets between forks, table and conveyor as declared."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings

from plants.tasks.mat_e12 import TASK, plant
from verifier.fuzz import fuzz_source, search_space

from .taskkit import (
    assert_every_condition_fails,
    edited,
    reference_text,
    rendered_rules,
    task_verifier,
)

REFERENCE = reference_text(TASK, plant)
RANGES = {r.name: (r.lo, r.hi) for r in TASK.ranges}


_verify = task_verifier(TASK)


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert TASK.title == "Pallet dispenser (release the bottom pallet of a stack)"
    assert (TASK.suite, TASK.level, len(TASK.conditions)) == ("MAT", "easy", 3)
    assert [(s.address, s.name, s.type) for s in TASK.io] == [
        ("%IX0.0", "AUTO_SW", "BOOL"), ("%IX0.1", "REQ", "BOOL"), ("%IX0.2", "T_UP", "BOOL"),
        ("%IX0.3", "T_MID", "BOOL"), ("%IX0.4", "T_DOWN", "BOOL"), ("%IX0.5", "F_IN", "BOOL"),
        ("%IX0.6", "F_OUT", "BOOL"), ("%IX0.7", "PAL_OUT_PE", "BOOL"),
        ("%IX1.0", "STACK_EMPTY", "BOOL"),
        ("%QX0.0", "TABLE_UP", "BOOL"), ("%QX0.1", "TABLE_DOWN", "BOOL"),
        ("%QX0.2", "FORKS_IN", "BOOL"), ("%QX0.3", "PAL_CONV", "BOOL"),
        ("%QX0.4", "LAMP_EMPTY", "BOOL"),
    ]
    text, rules = rendered_rules(TASK, plant)
    for secret in ("table_mm_s", "refill_n", "30.0"):
        assert secret not in text


def test_conditions_lie_inside_the_published_ranges() -> None:
    assert TASK.range_findings() == []
    assert RANGES["table_mm_s"] == (50.0, 100.0) and RANGES["take_s"] == (2.0, 4.0)
    assert [TASK.time_limit(c) for c in TASK.conditions] == [65.0, 90.0, 70.0]
    for cond in TASK.conditions:  # enough pallets for every request
        reqs = sum(1 for ev in cond.script if ev.kind == "press")
        assert cond.params["stack_n"] + cond.params["refill_n"] >= reqs


@settings(max_examples=200, deadline=None)
@given(search_space(TASK))
def test_generated_conditions_lie_inside_the_published_ranges(condition) -> None:
    assert TASK.range_findings((condition,)) == []
    assert 65.0 <= TASK.time_limit(condition) <= 90.0
    reqs = [ev.t for ev in condition.script if ev.kind == "press"]
    assert all(b - a >= 1.0 - 1e-9 for a, b in zip(reqs, reqs[1:], strict=False))
    assert condition.params["stack_n"] + condition.params["refill_n"] >= len(reqs)


def test_fuzz_does_not_flag_the_reference(cache_dir) -> None:
    outcome = fuzz_source(REFERENCE, TASK, cache_dir=cache_dir, examples=30, seed=1)
    assert outcome.counterexample is None, outcome.verdict and outcome.verdict.reason
    assert outcome.conditions_run > 30


def test_reference_passes_every_condition(reference_run) -> None:
    v = reference_run
    assert v.reward == 1
    assert v.diagnostics.items == []
    times = [c.success_time_s for c in v.conditions]
    # Last REQ + one cycle: up 3 s, forks 0.5, to mid 1.5, forks 0.5, down 1.5, run 2.6 (C1).
    assert times[0] == pytest.approx(43.0 + 9.45, abs=0.3)
    assert times[1] == pytest.approx(60.0 + 16.3, abs=0.3)


def test_reference_keeps_15_percent_margin(cache_dir) -> None:
    """A16: T / 1.15 in every condition."""
    conds = tuple(dataclasses.replace(c, time_limit_s=TASK.time_limit(c) / 1.15)
                  for c in TASK.conditions)
    assert _verify(REFERENCE, cache_dir, dataclasses.replace(TASK, conditions=conds)).reward == 1


def test_idle_program_fails_every_condition(idle_run) -> None:
    v = idle_run
    assert_every_condition_fails(v, 3)
    # The idle program leaves FORKS_IN = FALSE: the stack falls at once.
    assert all(c.violation is not None and c.violation.code == "S-DROP" for c in v.conditions)


def test_blind_replay_of_condition_1_fails_the_others(replay_run) -> None:
    v = replay_run
    c1, c2, _ = v.conditions
    assert c1.passed
    # Half the table speed: the forks open while the table is still rising.
    assert not c2.passed and c2.violation is not None and c2.violation.code == "S-DROP"


MUTANTS = {
    "forks open before T_UP": ((
        ("S_RAISE:\n        IF T_UP THEN", "S_RAISE:\n        IF TRUE THEN"),
        ("(phase = S_FORKS_OUT AND T_UP)", "phase = S_FORKS_OUT"),
    ), "C1", "S-DROP"),
    "forks close above T_MID": ((("IF T_MID THEN", "IF NOT T_UP THEN"),), "C1", "S-COLLIDE"),
    "no conveyor-free interlock": ((("AND NOT convBusy ", ""),), "C3", "S-SHEAR"),
    "conveyor runs while lowering": ((
        ("PAL_CONV := phase = S_CONVEY", "PAL_CONV := (phase = S_CONVEY OR phase = S_LOWER)"),
    ), "C1", "S-CONV"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    edits, cond, expected = MUTANTS[name]
    v = _verify(edited(REFERENCE, edits), cache_dir)
    assert v.reward == 0
    failed = {c.name: c for c in v.conditions}[cond]
    assert failed.violation is not None and failed.violation.code == expected


# --- plant properties, driven directly (no ST program) -------------------------------------

def _one_condition(**params) -> tuple:
    cond = dataclasses.replace(TASK.conditions[0], params={**TASK.conditions[0].params, **params})
    return plant.build(dataclasses.replace(TASK, conditions=(cond,)))


class _Task:
    """Attribute view of the task record of the single condition (plant tuple index 3)."""

    def __init__(self, state: tuple) -> None:
        self._rec = state[3]

    def __getattr__(self, name: str):
        return self._rec[name][0]


def _run(state, k: int, out: list[float], n: int) -> tuple[int, np.ndarray]:
    """Hold the outputs for n ticks; return the next tick and the last input image."""
    inp = np.zeros(len(TASK.inputs))
    o = np.array(out, dtype=np.float64)
    for _ in range(n):
        plant.sense(state, 0, k, inp)
        plant.advance(state, 0, k, o)
        k += 1
    plant.sense(state, 0, k, inp)
    return k, inp


def test_dispense_cycle_hands_one_pallet_to_the_conveyor() -> None:
    st = _one_condition(table_mm_s=100.0, fork_s=0.5, stack_n=3)
    tp = _Task(st)
    k, inp = _run(st, 0, [0, 0, 1, 0, 0], 1)
    assert inp[plant.I_T_DOWN] and inp[plant.I_F_IN] and not inp[plant.I_EMPTY]
    k, inp = _run(st, k, [1, 0, 1, 0, 0], 300)  # 300 mm at 100 mm/s
    assert inp[plant.I_T_UP] and not inp[plant.I_T_MID]
    k, inp = _run(st, k, [0, 0, 0, 0, 0], 50)  # forks out in 0.5 s
    assert inp[plant.I_F_OUT] and (tp.on_forks, tp.on_table) == (0, 3) and inp[plant.I_EMPTY]
    k, inp = _run(st, k, [0, 1, 0, 0, 0], 150)
    assert inp[plant.I_T_MID]
    k, inp = _run(st, k, [0, 0, 1, 0, 0], 50)
    assert inp[plant.I_F_IN] and (tp.on_forks, tp.on_table) == (2, 1)
    k, inp = _run(st, k, [0, 1, 1, 0, 0], 150)
    assert inp[plant.I_T_DOWN] and tp.conv_n == 1 and tp.on_table == 0
    k, inp = _run(st, k, [0, 0, 1, 1, 0], 240)  # 500 mm at 200 mm/s (tau 0.1 s)
    assert not inp[plant.I_PE]
    k, inp = _run(st, k, [0, 0, 1, 1, 0], 20)
    assert inp[plant.I_PE] and not (tp.fell or tp.struck or tp.sheared)
    k, inp = _run(st, k, [0, 0, 1, 0, 0], 300)  # taken 3 s after arrival
    assert not inp[plant.I_PE] and tp.conv_n == 0


def test_forks_opening_without_the_table_drop_the_stack() -> None:
    st = _one_condition(stack_n=2)
    k, inp = _run(st, 0, [0, 0, 0, 0, 0], 40)
    assert _Task(st).fell and inp[plant.I_EMPTY]


def test_refill_waits_for_the_forks_in() -> None:
    cond = dataclasses.replace(TASK.conditions[2])
    st = plant.build(dataclasses.replace(TASK, conditions=(cond,)))
    tp = _Task(st)
    k, _ = _run(st, 0, [0, 0, 1, 0, 0], 3100)
    assert tp.on_forks == 2 + 4  # refill of 4 at 30.0 s onto the untouched stack
