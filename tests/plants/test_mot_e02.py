"""MOT-E02 quality bars: the reference passes with margin (also on corner conditions of the
published ranges), the idle program and the blind replay fail, one-change mutants of the
reference fail with the expected rule, the text states every judged rule, the conditions lie
in the published ranges, and the plant follows D01/D04 and the carriage geometry."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.tasks.mot_e02 import RANGES, REQUEST_WINDOW_S, STOP_WINDOW_S, TASK, plant
from plants.tasks.spec import Condition, Event

from .taskkit import (
    assert_every_condition_fails,
    assert_only_condition_1_passes,
    reference_text,
    rendered_rules,
    task_verifier,
)

REFERENCE = reference_text(TASK, plant)
MARGIN = 1.15


_verify = task_verifier(TASK)


def _codes(v) -> list[str | None]:
    return [c.violation.code if c.violation else None for c in v.conditions]


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.suite, TASK.level, len(TASK.conditions)) == ("MOT", "easy", 4)
    assert [s.name for s in TASK.io] == ["FWD_PB", "REV_PB", "STOP_NC", "END_L", "END_R", "OL_OK",
                                         "K_FWD", "K_REV", "LAMP_MOVING"]
    text, rules = rendered_rules(TASK, plant)
    for secret in ("x0_mm", "pickup_ms", "1960 mm", "30 ms"):
        assert secret not in text
    assert "within 1.2 s" in text and "within 1.0 s" in text


def test_conditions_lie_inside_the_published_ranges() -> None:
    def inside(name: str, value: float) -> bool:
        lo, hi = RANGES[name]
        return lo <= value <= hi

    for cond in TASK.conditions:
        for name in ("v_mm_s", "tau_s", "pickup_ms", "x0_mm"):
            assert inside(name, cond.params[name]), (cond.name, name)
        for ev in cond.script:
            assert inside("event_t_s", ev.t), (cond.name, ev)
            if ev.kind == "press":
                assert inside("press_s", ev.duration or 0.3), (cond.name, ev)
            else:
                assert ev.kind == "trip" and inside("trip_s", ev.duration), (cond.name, ev)
        assert 30.0 <= TASK.time_limit(cond) <= 50.0


def test_reference_passes_every_condition(reference_run) -> None:
    assert reference_run.reward == 1
    assert [c["success_time_s"] for c in reference_run.result["conditions"]] == [40.0, 30.0, 50.0, 40.0]
    assert reference_run.diagnostics.items == []


def _tightened(task):
    """A6/A16: the motion and stop windows shrunk by 15 %, and T too (the final state must be
    reached by T / 1.15)."""
    conditions = tuple(dataclasses.replace(c, time_limit_s=round(task.time_limit(c) / MARGIN, 2))
                       for c in task.conditions)
    judge = {"request_window_s": REQUEST_WINDOW_S / MARGIN, "stop_window_s": STOP_WINDOW_S / MARGIN}
    return dataclasses.replace(task, conditions=conditions, judge=judge)


def test_reference_keeps_15_percent_margin(cache_dir) -> None:
    v = _verify(REFERENCE, cache_dir, _tightened(TASK))
    assert v.reward == 1, [c.reason for c in v.conditions]


CORNERS = (
    # on END_R, fastest and slowest-stopping drive, longest pick-up: reversal in motion, STOP.
    Condition("K1", {"x0_mm": 1960.0, "v_mm_s": 250.0, "tau_s": 0.2, "pickup_ms": 60.0,
                     "final": "END_L"}, (
        Event(1.0, "press", "REV"), Event(2.0, "press", "FWD"), Event(5.0, "press", "STOP"),
        Event(7.0, "press", "REV"),
    ), time_limit_s=30.0),
    # on END_L, slowest drive: a 6 s trip during motion, then a new request.
    Condition("K2", {"x0_mm": 60.0, "v_mm_s": 150.0, "tau_s": 0.05, "pickup_ms": 20.0,
                     "final": "END_R"}, (
        Event(1.0, "press", "FWD"), Event(3.0, "trip", "overload", 6.0),
        Event(5.0, "press", "FWD"), Event(10.0, "press", "FWD"),
    ), time_limit_s=35.0),
    # requests during acceleration and during the dead time of the one before.
    Condition("K3", {"x0_mm": 1000.0, "v_mm_s": 250.0, "tau_s": 0.2, "pickup_ms": 60.0,
                     "final": "END_R"}, (
        Event(1.0, "press", "FWD"), Event(1.3, "press", "REV"), Event(1.6, "press", "FWD"),
    ), time_limit_s=20.0),
    # a held button at the end switch, a request during a held STOP, both buttons at once.
    Condition("K4", {"x0_mm": 300.0, "v_mm_s": 200.0, "tau_s": 0.1, "pickup_ms": 40.0,
                     "final": "END_R"}, (
        Event(1.0, "press", "REV", 2.0), Event(5.0, "press", "FWD"),
        Event(6.0, "press", "STOP", 1.5), Event(6.5, "press", "FWD"),
        Event(9.0, "press", "FWD"), Event(9.0, "press", "REV"), Event(11.0, "press", "FWD"),
    ), time_limit_s=30.0),
)


def test_reference_is_robust_at_the_corners_of_the_published_ranges(cache_dir) -> None:
    corners = dataclasses.replace(TASK, conditions=CORNERS)
    v = _verify(REFERENCE, cache_dir, _tightened(corners))
    assert v.reward == 1, [c.reason for c in v.conditions]


def test_idle_program_fails_every_condition(idle_run) -> None:
    assert_every_condition_fails(idle_run, 4, "within 1.2 s of the accepted")


def test_blind_replay_of_condition_1_fails_another_condition(recorded_outputs, replay_run) -> None:
    assert recorded_outputs.shape == (4000, 3)
    assert_only_condition_1_passes(replay_run, all_others=False)


MUTANTS = {
    # name: (replacements, expected S-code in some condition or None, reason fragment or None)
    "stop ignored": ([("IF NOT STOP_NC OR NOT OL_OK THEN", "IF NOT OL_OK THEN")], "S-STOPPB", None),
    "overload does not drop the contactors": (
        [("IF NOT STOP_NC OR NOT OL_OK THEN", "IF NOT STOP_NC THEN")], "S-RESTART", None),
    "dead time too short": ([("PT := T#500ms", "PT := T#200ms")], "S-DEADTIME", None),
    "no interlock": ([("        K_REV := FALSE;\n        pending := TO_RIGHT;", "        pending := TO_RIGHT;"),
                      ("pending = TO_RIGHT AND NOT K_REV AND revOff.Q", "pending = TO_RIGHT")],
                     "S-BOTHDIR", None),
    "right end switch ignored": ([("IF END_R THEN\n        K_FWD := FALSE;", "IF END_R THEN\n")],
                                 "S-ENDSW", None),
    "both buttons together accepted": ([("reqRight := fwdEdge.Q AND NOT REV_PB;", "reqRight := fwdEdge.Q;")],
                                       None, "K_FWD is TRUE for more than 20 ms"),
    "no reversal in motion": ([("IF reqRight AND NOT END_R AND NOT K_FWD THEN",
                                "IF reqRight AND NOT END_R AND NOT K_FWD AND NOT K_REV THEN")],
                              None, "K_REV is TRUE for more than 20 ms"),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    replacements, code, reason = MUTANTS[name]
    text = REFERENCE
    for old, new in replacements:
        assert old in text
        text = text.replace(old, new)
    v = _verify(text, cache_dir)
    assert v.reward == 0
    if code is not None:
        assert code in _codes(v), _codes(v)
    if reason is not None:
        assert any(reason in (c.reason or "") for c in v.conditions), [c.reason for c in v.conditions]


def _probe(x0: float, outputs, *, v=200.0, tau=0.1, pickup=30.0, script=()):
    """Drive the plant of one condition with an output sequence; positions, speeds, inputs and
    the judge's violation ids per tick."""
    cond = Condition("P", {"x0_mm": x0, "v_mm_s": v, "tau_s": tau, "pickup_ms": pickup,
                           "final": "END_L"}, tuple(script))
    state = plant.build(dataclasses.replace(TASK, conditions=(cond,)))
    xs, vs, ins, viol = [], [], [], []
    inp = np.zeros(6)
    for k, out in enumerate(outputs):
        out = np.asarray(out, np.float64)
        plant.sense(state, 0, k, inp)
        ins.append(inp.copy())
        plant.advance(state, 0, k, out)
        viol.append(plant.judge(state, 0, k, inp, out)[0])
        xs.append(state[2][0]["x"])
        vs.append(state[2][0]["v"])
    return np.array(xs), np.array(vs), np.array(ins), viol


def test_contactor_pickup_and_first_order_speed() -> None:
    xs, vs, _, _ = _probe(1000.0, [(1, 0, 1)] * 60, v=200.0, tau=0.1, pickup=30.0)
    assert np.all(vs[:2] == 0.0) and vs[2] > 0.0  # the contactor closes on the 3rd step (30 ms)
    expected = 200.0 * (1.0 - 0.9 ** np.arange(1, 59))
    assert np.allclose(vs[2:], expected)
    assert np.isclose(xs[-1], 1000.0 + 0.01 * vs.sum())


def test_both_coils_close_neither_contactor_and_end_switches_follow_x() -> None:
    _, vs, _, viol = _probe(1000.0, [(1, 1, 1)] * 20)
    assert np.all(vs == 0.0) and set(viol) == {1}  # S-BOTHDIR every tick
    xs, _, ins, _ = _probe(1850.0, [(1, 0, 1)] * 100, v=250.0)
    first_r = int(np.argmax(ins[:, plant.I_END_R]))
    assert xs[first_r - 1] >= 1900.0 > xs[first_r - 2]
    assert not ins[:, plant.I_END_L].any()


def test_end_stop_clamps_and_raises_the_expected_rules() -> None:
    xs, vs, ins, viol = _probe(1960.0, [(1, 0, 1)] * 100, v=250.0)
    assert xs.max() == 2000.0 and vs[-1] == 0.0
    crash = int(np.argmax(xs >= 2000.0))
    assert viol[crash] == 4 and 3 in viol[:crash]  # S-ENDSW before S-CRASH
    assert viol.index(3) == 11  # END_R read from the first scan: the 12th is a violation


def test_overload_opens_both_contactors_and_arms_restart() -> None:
    script = (Event(0.2, "trip", "overload", 0.3),)
    _, vs, ins, viol = _probe(1000.0, [(1, 0, 1)] * 80, tau=0.05, script=script)
    ol = ins[:, plant.I_OL_OK]
    assert np.all(ol[20:50] == 0) and ol[19] == 1 and ol[50] == 1
    assert vs[19] > 0 and vs[40] < vs[19] and vs[-1] > vs[49]  # coasts, then recloses
    assert viol[20] == 6 and viol[19] == 0  # K_FWD TRUE while OL_OK = FALSE


@settings(max_examples=25, deadline=None)
@given(
    x0=st.floats(60.0, 1960.0),
    v=st.floats(150.0, 250.0),
    tau=st.floats(0.05, 0.2),
    coils=st.lists(st.tuples(st.integers(0, 2), st.integers(1, 60)), min_size=1, max_size=12),
)
def test_carriage_stays_on_the_rail_for_any_coil_sequence(x0, v, tau, coils) -> None:
    """Any coil sequence (0 off, 1 FWD, 2 REV, held for n ticks): the carriage stays within the
    end stops, |v| <= v_nom and the end switches follow x."""
    outputs = [(c == 1, c == 2, c != 0) for c, n in coils for _ in range(n)]
    xs, vs, ins, _ = _probe(x0, outputs, v=v, tau=tau)
    assert np.all((xs >= 0.0) & (xs <= 2000.0))
    assert np.all(np.abs(vs) <= v + 1e-9)
    x_before = np.concatenate(([x0], xs[:-1]))  # the input image of tick k shows x of S_k
    assert np.array_equal(ins[:, plant.I_END_L] != 0, x_before <= 100.0)
    assert np.array_equal(ins[:, plant.I_END_R] != 0, x_before >= 1900.0)
