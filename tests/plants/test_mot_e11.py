"""MOT-E11 quality bars: the reference passes with margin (also on corner conditions of the
published ranges), the idle program and the blind replay fail, the judge raises each rule on
a driven plant and on one-change mutants of the reference, the text states every judged rule,
the conditions lie in the published ranges, and the checkpoints follow the catalog's formula."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from plants.tasks.mot_e11 import CHECKPOINT_SLACK_S, SPEEDS_HZ, TASK, plant, search
from plants.tasks.render import render_markdown
from plants.tasks.spec import Condition, Event
from verifier.cli import app

from .taskkit import (
    assert_every_condition_fails,
    assert_only_condition_1_passes,
    reference_text,
    task_verifier,
)

REFERENCE = reference_text(TASK, plant)
MARGIN = 1.15


_verify = task_verifier(TASK)


def _codes(v) -> list[str | None]:
    return [c.violation.code if c.violation else None for c in v.conditions]


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.suite, TASK.level, len(TASK.conditions)) == ("MOT", "easy", 3)
    assert [(s.address, s.name, s.type) for s in TASK.io] == [
        ("%IX0.0", "RUN_SW", "BOOL"), ("%IX0.1", "SEL_A", "BOOL"), ("%IX0.2", "SEL_B", "BOOL"),
        ("%IX0.3", "DIR_SW", "BOOL"), ("%IX0.4", "RESET_PB", "BOOL"),
        ("%IX1.0", "VFD_READY", "BOOL"), ("%IX1.1", "VFD_RUNNING", "BOOL"),
        ("%IX1.2", "VFD_AT_SPEED", "BOOL"), ("%IX1.3", "VFD_FAULT", "BOOL"),
        ("%IW140", "FREQ_ACT", "INT"), ("%QX0.0", "VFD_FWD", "BOOL"), ("%QX0.1", "VFD_REV", "BOOL"),
        ("%QX0.2", "VFD_RST", "BOOL"), ("%QX0.3", "LAMP_FAULT", "BOOL"), ("%QW140", "SPEED_REF", "INT"),
    ]
    rules = {r.code: r.text for r in TASK.safety}
    assert set(rules) == set(plant.VIOLATIONS)
    shown = CliRunner().invoke(app, ["show", "MOT-E11"])
    assert shown.exit_code == 0, shown.output
    text = render_markdown(TASK)
    for code in plant.VIOLATIONS:
        assert f"**{code}**: {rules[code]}" in text
        assert code in shown.output
    for secret in ("t_acc_s", "coast_hz_s", "C1", "11.0"):
        assert secret not in text
    assert "between **30 s** and **32 s**" in text


def test_conditions_lie_inside_the_published_ranges() -> None:
    assert TASK.range_findings() == []
    assert TASK.range_findings(CORNERS) == []
    for cond in TASK.conditions + CORNERS:
        assert cond.params["sel"] in SPEEDS_HZ
        assert sum(ev.kind == "trip" for ev in cond.script) <= 1
        run_sw = [ev for ev in cond.script if ev.target == "RUN_SW"]
        assert run_sw[0].kind == "on"  # RUN_SW is off at t = 0
    assert [TASK.time_limit(c) for c in TASK.conditions] == [32.0, 32.0, 30.0]


def test_checkpoints_follow_the_catalog_formula_and_values() -> None:
    """Event + 0.5 s + ideal ramp; the expected frequency is the settled value of the spec."""
    got = [[(k, round(f, 2), lamp) for k, f, lamp in rows] for rows in plant.expectations(TASK)]
    assert got[0] == [(210, 15.0, False), (691, 25.0, False), (1350, 50.0, False),
                      (1910, 35.0, False), (2591, 0.0, False)]
    # reversals through 0: 50 Hz down at 50/3 Hz/s, up at 50 Hz/s
    assert got[1] == [(250, 50.0, False), (1250, -50.0, False), (1860, -15.0, False),
                      (2170, 15.0, False), (2740, 0.0, False)]
    # trip at 8.0 from 25 Hz at 10 Hz/s; the failed reset at 9.0 shares the 11.0 s checkpoint
    assert got[2] == [(250, 25.0, False), (1099, 0.0, True), (1250, 0.0, False),
                      (1550, 0.0, False), (1750, 25.0, False), (2550, 0.0, False)]


def test_reference_passes_every_condition_with_margin_on_t(reference_run) -> None:
    assert reference_run.reward == 1
    times = [c["success_time_s"] for c in reference_run.result["conditions"]]
    assert times == [25.92, 27.41, 25.51]
    for t, cond in zip(times, TASK.conditions, strict=True):
        assert t * MARGIN <= TASK.time_limit(cond)
    assert reference_run.diagnostics.items == []


def _tightened(task):
    """A6/A16: the checkpoint slack shrunk by 15 %."""
    return dataclasses.replace(task, judge={"checkpoint_slack_s": CHECKPOINT_SLACK_S / MARGIN})


def test_reference_keeps_15_percent_checkpoint_slack(cache_dir) -> None:
    v = _verify(REFERENCE, cache_dir, _tightened(TASK))
    assert v.reward == 1, [c.reason for c in v.conditions]


CORNERS = (
    # slowest ramps and coast, longest cause, reverse at start, reversal, reset while coasting.
    Condition("K1", {"t_acc_s": 4.0, "t_dec_s": 4.0, "coast_hz_s": 5.0, "sel": "10", "dir": "rev"}, (
        Event(1.0, "on", "RUN_SW"), Event(5.0, "off", "DIR_SW"), Event(12.0, "trip", "VFD", 5.0),
        Event(17.5, "press", "RESET_PB"), Event(20.0, "off", "RUN_SW"), Event(20.5, "select", "11"),
        Event(21.0, "on", "RUN_SW"), Event(26.0, "off", "RUN_SW"),
    ), time_limit_s=36.0),
    # fastest ramps and coast, shortest cause: two reversals, a failed and a good reset,
    # direction changed while stopped, a RESET press without a fault.
    Condition("K2", {"t_acc_s": 1.0, "t_dec_s": 1.0, "coast_hz_s": 20.0, "sel": "00"}, (
        Event(1.0, "on", "RUN_SW"), Event(3.0, "on", "DIR_SW"), Event(5.0, "off", "DIR_SW"),
        Event(7.0, "trip", "VFD", 1.0), Event(7.5, "press", "RESET_PB"),
        Event(8.5, "press", "RESET_PB"), Event(10.0, "off", "RUN_SW"), Event(10.0, "on", "DIR_SW"),
        Event(11.0, "on", "RUN_SW"), Event(13.0, "select", "11"), Event(15.0, "press", "RESET_PB"),
        Event(16.0, "off", "RUN_SW"),
    ), time_limit_s=25.0),
    # RUN_SW switched off during the fault and on after the reset (a valid restart).
    Condition("K3", {"t_acc_s": 3.0, "t_dec_s": 1.0, "coast_hz_s": 12.0, "sel": "01"}, (
        Event(1.0, "on", "RUN_SW"), Event(4.0, "trip", "VFD", 2.0), Event(5.0, "off", "RUN_SW"),
        Event(7.0, "press", "RESET_PB"), Event(8.0, "on", "RUN_SW"), Event(10.5, "on", "DIR_SW"),
        Event(14.0, "off", "RUN_SW"), Event(14.5, "select", "10"), Event(15.0, "off", "DIR_SW"),
        Event(16.0, "on", "RUN_SW"), Event(20.0, "off", "RUN_SW"),
    ), time_limit_s=30.0),
)


def _settled(task) -> bool:
    """The published promise: at every checkpoint the specification's drive has settled on a
    preset frequency or 0 (no event changed the demand before the drive got there)."""
    presets = {0.0} | {s * f for f in SPEEDS_HZ.values() for s in (1.0, -1.0)}
    return all(round(f, 1) in presets for rows in plant.expectations(task) for _, f, _ in rows)


def test_catalog_conditions_keep_the_published_settling_promise() -> None:
    assert _settled(TASK)


def test_corner_conditions_are_settled_at_their_checkpoints() -> None:
    assert _settled(dataclasses.replace(TASK, conditions=CORNERS))
    expected = plant.expectations(dataclasses.replace(TASK, conditions=CORNERS))
    assert [round(f, 2) for _, f, _ in expected[0]] == [-35.0, 35.0, 0.0, 0.0, 0.0, 50.0, 0.0]
    assert [lamp for _, _, lamp in expected[1]][3:5] == [True, False]
    assert [round(f, 2) for _, f, _ in expected[2]][3:5] == [25.0, -25.0]


def test_reference_is_robust_at_the_corners_of_the_published_ranges(cache_dir) -> None:
    corners = dataclasses.replace(TASK, conditions=CORNERS)
    v = _verify(REFERENCE, cache_dir, _tightened(corners))
    assert v.reward == 1, [c.reason for c in v.conditions]
    for c, cond in zip(v.conditions, CORNERS, strict=True):
        assert c.success_time_s * MARGIN <= cond.time_limit_s


def _sweep() -> tuple[Condition, ...]:
    """The catalog and corner scripts with every corner of the ramp and coast ranges, kept
    where the published settling promise holds."""
    out = []
    for base in TASK.conditions + CORNERS:
        span = {r.name: (r.lo, r.hi) for r in TASK.ranges}
        corners = (span["t_acc_s"], span["t_dec_s"], span["coast_hz_s"])
        for t_acc, t_dec, coast in itertools.product(*corners):
            params = {**base.params, "t_acc_s": t_acc, "t_dec_s": t_dec, "coast_hz_s": coast}
            cond = dataclasses.replace(base, name=f"{base.name}-{t_acc:g}-{t_dec:g}-{coast:g}",
                                       params=params, time_limit_s=60.0)
            if _settled(dataclasses.replace(TASK, conditions=(cond,))):
                out.append(cond)
    return tuple(out)


def test_reference_passes_the_scripts_at_every_corner_of_the_drive_ranges(cache_dir) -> None:
    sweep = _sweep()
    assert len(sweep) >= 30
    v = _verify(REFERENCE, cache_dir, _tightened(dataclasses.replace(TASK, conditions=sweep)))
    assert v.reward == 1, [(c.name, c.reason) for c in v.conditions if not c.passed]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_search_space_keeps_the_published_promises(data) -> None:
    cond = data.draw(search.search_space(TASK))
    assert TASK.range_findings((cond,)) == []
    variant = dataclasses.replace(TASK, conditions=(cond,))
    assert _settled(variant)
    last_cp = plant.expectations(variant)[0][-1][0] / 100
    assert last_cp * MARGIN <= cond.time_limit_s


def test_idle_program_fails_every_condition(idle_run) -> None:
    assert_every_condition_fails(idle_run, 3, "0.0 Hz at a checkpoint, more than 0.5 Hz below")


def test_blind_replay_of_condition_1_fails_another_condition(recorded_outputs, replay_run) -> None:
    assert recorded_outputs.shape == (2592, 5)
    assert_only_condition_1_passes(replay_run, all_others=True)


def _probe(outputs, cond: Condition):
    """Drive the plant of one condition with an output sequence; the inputs and the judge's
    violation ids per tick."""
    state = plant.build(dataclasses.replace(TASK, conditions=(cond,)))
    ins, viol = [], []
    inp = np.zeros(plant.N_IN)
    for k, out in enumerate(outputs):
        out = np.asarray(out, np.float64)
        plant.sense(state, 0, k, inp)
        ins.append(inp.copy())
        plant.advance(state, 0, k, out)
        viol.append(plant.judge(state, 0, k, inp, out)[0])
    return np.array(ins), viol


PROBE = Condition("P", {"t_acc_s": 1.0, "t_dec_s": 2.0, "coast_hz_s": 10.0, "sel": "11"}, (
    Event(0.1, "on", "RUN_SW"), Event(3.0, "trip", "VFD", 1.0), Event(4.5, "press", "RESET_PB"),
    Event(6.0, "off", "RUN_SW"), Event(6.5, "on", "RUN_SW"),
))
FULL = 27648.0


def test_drive_follows_its_ramps_trip_and_reset() -> None:
    fwd = [(1, 0, 0, 0, FULL)] * 300 + [(0, 0, 0, 0, FULL)] * 150 + [(0, 0, 1, 0, FULL)] * 50 \
        + [(1, 0, 0, 0, FULL)] * 100
    ins, viol = _probe(fwd, PROBE)
    freq = ins[:, plant.I_FREQ_ACT]
    assert freq[100] == 500 and freq[50] == 250  # 50 Hz/s up (T_acc = 1 s)
    assert ins[299, plant.I_FAULT] == 0 and ins[300, plant.I_FAULT] == 1
    assert freq[400] == pytest.approx(-1 + 500 - 100 * 1.0, abs=2)  # coasts at 10 Hz/s
    assert ins[450, plant.I_FAULT] == 1 and ins[451, plant.I_FAULT] == 0  # reset edge at 4.5
    # FWD held TRUE from 5.0 on: a rising edge after the trip without a RUN_SW cycle
    assert viol[500] == 3 and set(viol[:500]) == {0}
    assert freq[-1] > freq[500]  # the fresh edge cleared the run-inhibit


def test_judge_raises_bothdir_and_reverse() -> None:
    quiet = Condition("Q", {"t_acc_s": 1.0, "t_dec_s": 1.0, "coast_hz_s": 10.0, "sel": "11"},
                      (Event(0.1, "on", "RUN_SW"),))
    _, viol = _probe([(1, 0, 0, 0, FULL)] * 100 + [(0, 1, 0, 0, FULL)] * 10, quiet)
    assert set(viol[:100]) == {0} and viol[100] == 2  # REV at +50 Hz
    _, viol = _probe([(0, 1, 0, 0, FULL)] * 100 + [(1, 0, 0, 0, FULL)] * 10, quiet)
    assert viol[100] == 2
    _, viol = _probe([(1, 1, 0, 0, FULL)] * 3, quiet)
    assert viol == [1, 1, 1]
    _, viol = _probe([(1, 0, 0, 0, FULL)] * 100 + [(0, 0, 0, 0, FULL)] * 110
                     + [(0, 1, 0, 0, FULL)] * 10, quiet)
    assert set(viol) == {0}  # reversal after the stop is fine


MUTANTS = {
    # name: (old, new, expected S-code in some condition or None, reason fragment or None)
    "reverses without waiting for standstill": (
        "AND FREQ_ACT < STANDSTILL;", ";", "S-REVERSE", None),
    "restarts without a RUN_SW cycle": ("ELSIF runEdge.Q THEN", "ELSIF TRUE THEN", "S-RESTART", None),
    "selector bits swapped": ("IF SEL_B THEN\n    IF SEL_A THEN", "IF SEL_A THEN\n    IF SEL_B THEN",
                              None, "above the expected frequency"),
    "fault lamp shows the restart interlock": (
        "LAMP_FAULT := VFD_FAULT;", "LAMP_FAULT := needCycle;", None, "LAMP_FAULT is TRUE"),
    "reset fired by the fault, not by the button": (
        "rstPulse(IN := RESET_PB,", "rstPulse(IN := VFD_FAULT,", None, "LAMP_FAULT is TRUE"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    old, new, code, reason = MUTANTS[name]
    assert old in REFERENCE
    v = _verify(REFERENCE.replace(old, new), cache_dir)
    assert v.reward == 0
    if code is not None:
        assert code in _codes(v), _codes(v)
    if reason is not None:
        assert any(reason in (c.reason or "") for c in v.conditions), [c.reason for c in v.conditions]
