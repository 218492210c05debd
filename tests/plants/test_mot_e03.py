"""MOT-E03 quality bars: the reference passes with margin, the idle program and the blind
replay fail, one-change mutants of the reference fail with the expected rule or reason, the
text states every judged rule, the conditions lie in the published ranges, and the plant
follows D01/D05."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from plants.devices.protocol import DT
from plants.tasks.mot_e03 import TASK, plant
from plants.tasks.render import render_markdown
from plants.tasks.spec import Condition, Event
from verifier.baselines import idle_program, record_outputs, replay_program
from verifier.bind import bind
from verifier.fuzz import fuzz_source, search_space
from verifier.kernel import run_kernel
from verifier.results import validate_result
from verifier.verify import verify_source

REFERENCE = (Path(plant.__file__).parent / TASK.reference).read_text()
N_COND = 3


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "plantloop-cache"
    path.mkdir(exist_ok=True)
    return path


def _verify(text: str, cache_dir, task=TASK):
    v = verify_source(text, task, "p.st", cache_dir=cache_dir)
    validate_result(v.result)
    assert not v.diagnostics.has_errors, v.diagnostics.render(text)
    return v


@pytest.fixture(scope="module")
def reference_run(cache_dir):
    return _verify(REFERENCE, cache_dir)


@pytest.fixture(scope="module")
def traces(cache_dir):
    """Input and output images of the reference in every condition."""
    from stc.compiler import compile_source

    compiled = compile_source(REFERENCE, "ref.st", cache_dir=cache_dir)
    binding = bind(compiled.program, TASK)
    out = {}
    for c in range(N_COND):
        run = run_kernel(compiled.program, binding, TASK, cache_dir=cache_dir, trace_condition=c)
        out[c] = (run.trace_in, run.trace_out)
    return out


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.id, TASK.suite, TASK.level, len(TASK.conditions)) == ("MOT-E03", "MOT", "easy", 3)
    assert TASK.title == "Star–delta start of a fan with stall detection"
    assert [(s.address, s.name) for s in TASK.io] == [
        ("%IX0.0", "START"), ("%IX0.1", "STOP_NC"), ("%IX0.2", "OL_OK"), ("%IX0.3", "SPEED_90"),
        ("%IX0.4", "RESET"), ("%QX0.0", "K_MAIN"), ("%QX0.1", "K_STAR"), ("%QX0.2", "K_DELTA"),
        ("%QX0.3", "LAMP_FAULT"),
    ]
    text = render_markdown(TASK)
    rules = {r.code: r.text for r in TASK.safety}
    assert set(rules) == set(plant.VIOLATIONS)
    for code in plant.VIOLATIONS:
        assert f"**{code}**: {rules[code]}" in text
    for secret in ("tau_s", "12.0", "17.0", "1.8 s", "C3"):
        assert secret not in text


def test_conditions_lie_inside_the_published_ranges() -> None:
    """Run-up 1.5-6 s (tau_s * ln 19 from standstill), events at 0.5-18 s, 0.3 s presses."""
    for cond in TASK.conditions:
        run_up = cond.params["tau_s"] * math.log(0.95 / 0.05)
        assert 1.5 <= run_up <= 6.0 or cond.params["jam"], cond.name
        assert 0.5 <= cond.params["tau_s"] <= 2.0  # D05 parameter range
        for ev in cond.script:
            assert 0.5 <= ev.t <= 18.0 and ev.duration in (0.0, 0.3)
        assert TASK.time_limit(cond) == 20.0
    assert [c.params["jam"] for c in TASK.conditions] == [False, False, True]
    assert TASK.range_findings() == []
    assert TASK.deadlines == ("delta_deadline_s", "reset_deadline_s") and not TASK.run_to_t


def test_reference_passes_every_condition_with_15_percent_margin(reference_run) -> None:
    v = reference_run
    assert v.reward == 1
    assert v.diagnostics.items == []
    times = [c["success_time_s"] for c in v.result["conditions"]]
    assert times == [12.01, 17.01, 12.01]
    assert all(1.15 * t <= 20.0 for t in times)


def test_reference_keeps_15_percent_slack_on_the_judged_deadlines(cache_dir) -> None:
    """A16/A40: the delta and reset deadlines tightened by 1.15 still pass."""
    tight = dataclasses.replace(TASK, judge={**TASK.judge, "delta_deadline_s": 0.5 / 1.15,
                                             "reset_deadline_s": 0.5 / 1.15})
    assert _verify(REFERENCE, cache_dir, tight).reward == 1


def test_idle_program_fails_every_condition(cache_dir) -> None:
    v = _verify(idle_program(TASK), cache_dir)
    assert [c.success for c in v.conditions] == [False] * N_COND
    assert "not running in delta when the final STOP came" in v.conditions[0].reason
    assert "not running in delta when the final STOP came" in v.conditions[1].reason
    assert "K_MAIN is off 0.50 s after the START edge" in v.conditions[2].reason


def test_blind_replay_of_condition_1_fails_the_others(cache_dir) -> None:
    recorded = record_outputs(TASK, REFERENCE, 0, cache_dir=cache_dir)
    assert recorded.shape == (1201, 4)  # C1 completes at 12.01 s
    v = _verify(replay_program(TASK, recorded), cache_dir)
    passed = [c.passed for c in v.conditions]
    assert passed == [True, False, False]
    assert "S-INRUSH" in v.conditions[1].reason  # switches to delta before 90 % (slow load)
    assert "S-INRUSH" in v.conditions[2].reason  # switches the jammed fan to delta


def _presses(*events: tuple[float, str]) -> tuple[Event, ...]:
    return tuple(Event(t, "press", target) for t, target in events)


ROBUSTNESS = (
    # corners of the published ranges and situations the fixed conditions do not show
    Condition("fast", {"tau_s": 0.51, "jam": False}, _presses((0.5, "START"), (10.0, "STOP"))),
    Condition("slow", {"tau_s": 2.04, "jam": False}, _presses((1.0, "START"), (18.0, "STOP"))),
    Condition("stop in gap", {"tau_s": 1.0, "jam": False},
              _presses((1.0, "START"), (3.98, "STOP"), (6.0, "START"), (15.0, "STOP"))),
    Condition("stop in delta", {"tau_s": 0.6, "jam": False},
              _presses((1.0, "START"), (6.0, "STOP"), (7.0, "START"), (16.0, "STOP"))),
    Condition("restart above 90 %", {"tau_s": 0.6, "jam": False},
              _presses((1.0, "START"), (6.0, "STOP"), (6.4, "START"), (16.0, "STOP"))),
    Condition("late jam", {"tau_s": 2.0, "jam": True}, _presses((3.0, "START"), (14.0, "RESET"))),
)


def test_reference_is_robust_across_the_published_ranges(cache_dir) -> None:
    """Not tuned to C1-C3: run-up corners, a STOP in the gap, in delta, a coasting restart."""
    wide = dataclasses.replace(TASK, conditions=ROBUSTNESS)
    v = _verify(REFERENCE, cache_dir, wide)
    assert [c.passed for c in v.conditions] == [True] * len(ROBUSTNESS), [c.reason for c in v.conditions]
    assert [c.success_time_s for c in v.conditions] == [10.01, 18.01, 15.01, 16.01, 16.01, 14.01]


MUTANTS = {
    # name: (old, new, condition index, expected text in its reason)
    "fixed star time": ("IF SPEED_90 THEN", "IF stallTimer.ET >= T#3s THEN", 2, "S-INRUSH"),
    "no stall supervision": ("ELSIF stallTimer.Q THEN", "ELSIF FALSE THEN", 2, "no stall trip"),
    "stall time too short": ("STALL_TIME : TIME := T#8s", "STALL_TIME : TIME := T#7s", 2,
                             "K_MAIN is off 7.00 s after the START edge"),
    "stop ignored": ("IF NOT STOP_NC OR fault THEN", "IF fault THEN", 1, "S-STOPPB"),
    "no dead gap": ("GAP_TIME   : TIME := T#100ms", "GAP_TIME   : TIME := T#30ms", 0,
                    "S-STARDELTA"),
    "gap too long": ("GAP_TIME   : TIME := T#100ms", "GAP_TIME   : TIME := T#600ms", 0,
                     "K_DELTA is not on 0.50 s after SPEED_90"),
    "reset restarts the fan": ("    fault := FALSE;\n", "    fault := FALSE;\n    starter := STAR;\n",
                               2, "S-RESTART"),
    "fault lamp not latched": ("LAMP_FAULT := fault;", "LAMP_FAULT := stallTimer.Q;", 2,
                               "LAMP_FAULT is off after the stall trip"),
    "star kept on in delta": ("K_STAR := starter = STAR;", "K_STAR := starter <> STOPPED;", 0,
                              "S-STARDELTA"),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    old, new, cond, expected = MUTANTS[name]
    assert REFERENCE.count(old) == 1
    v = _verify(REFERENCE.replace(old, new), cache_dir)
    assert v.reward == 0
    assert expected in v.conditions[cond].reason, v.conditions[cond].reason


def _first(column: np.ndarray, start: int = 0) -> int:
    return start + int(np.flatnonzero(column[start:])[0])


def test_plant_follows_the_script_and_the_starter_model(traces) -> None:
    # C1: star from the START edge at 1.0; SPEED_90 when 0.95 (1 - (1 - dt/tau)^m) >= 0.9.
    i1, o1 = traces[0]
    assert _first(o1[:, plant.O_MAIN]) == _first(o1[:, plant.O_STAR]) == 100
    m = math.ceil(math.log(0.05 / 0.95) / math.log(1 - DT / 0.6))
    sp90 = _first(i1[:, plant.I_SPEED_90])
    assert sp90 == 100 + m
    star_off, delta_on = _first(o1[sp90:, plant.O_STAR] == 0) + sp90, _first(o1[:, plant.O_DELTA])
    assert star_off == sp90 and 6 <= delta_on - star_off <= 20  # the 60-200 ms gap
    assert np.all(i1[:1201, plant.I_OL_OK] == 1)  # the run ends at 12.01 s
    assert i1[1200, plant.I_STOP_NC] == 0 and i1[1199, plant.I_STOP_NC] == 1
    # C2: STOP at 3.0 during star, coast-down, restart at 5.0 from the coasting speed.
    i2, o2 = traces[1]
    assert np.all(o2[300:500, :3] == 0) and o2[299, plant.O_STAR] == 1 and o2[500, plant.O_STAR] == 1
    assert not np.any(i2[:500, plant.I_SPEED_90])
    a = 1 - DT / 1.8
    # star from step 100 until the contactor drops out 20 ms after the STOP (step 300), coast
    n_restart = 0.95 * (1 - a**201) * (1 - DT / 18.0) ** 199
    m2 = math.ceil(math.log(0.05 / (0.95 - n_restart)) / math.log(a))
    assert _first(i2[:, plant.I_SPEED_90]) == 500 + m2 == 863  # review: about 8.65 s
    # C3: the jammed fan never reaches 90 %; stall trip 8.0 s after START, reset at 12.0.
    i3, o3 = traces[2]
    assert not np.any(i3[:, plant.I_SPEED_90]) and not np.any(o3[:, plant.O_DELTA])
    assert _first(o3[100:, plant.O_MAIN] == 0) + 100 == 900
    assert _first(o3[:, plant.O_LAMP]) == 900 and o3[1199, plant.O_LAMP] == 1
    assert o3[1200, plant.O_LAMP] == 0 and i3[1200, plant.I_RESET] == 1


def test_jammed_fan_saturates_at_70_percent_and_inrush_uses_the_scan_speed() -> None:
    p = plant.build(TASK)
    out = np.array([1.0, 1.0, 0.0, 0.0])
    for k in range(1500):
        plant.advance(p, 2, k, out)
    assert abs(p[1][2, 0]["n"] - 0.70) < 1e-3 and abs(p[3][2]["n_scan"] - p[1][2, 0]["n"]) < 1e-4
    inp = np.zeros(5)
    inp[plant.I_STOP_NC] = 1.0
    out_delta = np.array([1.0, 0.0, 1.0, 0.0])
    violation, *_ = plant.judge(p, 2, 1500, inp, out_delta)
    assert plant.VIOLATIONS[violation - 1] == "S-INRUSH"


# ---------------------------------------------------------------- search space (plantloop fuzz)


@settings(max_examples=60, deadline=None)
@given(search_space(TASK))
def test_generated_conditions_lie_inside_the_published_ranges(condition) -> None:
    """Inside the ranges, and in one of the two script shapes the judge reads (plant.build)."""
    assert TASK.range_findings((condition,)) == []
    assert TASK.time_limit(condition) == 20.0
    kinds = [ev.target for ev in condition.script]
    if condition.params["jam"]:
        assert kinds == ["START", "RESET"]
        assert condition.script[1].t - condition.script[0].t >= 9.0 - 1e-9
    else:
        assert kinds in (["START", "STOP"], ["START", "STOP", "START", "STOP"])
        assert condition.script[-1].t - condition.script[-2].t >= 7.0 - 1e-9
    assert all(abs(ev.t * 100 - round(ev.t * 100)) < 1e-6 for ev in condition.script)  # whole ticks


def test_fuzz_does_not_flag_the_reference(cache_dir) -> None:
    for seed in (0, 1):
        outcome = fuzz_source(REFERENCE, TASK, examples=60, seed=seed, cache_dir=cache_dir)
        assert outcome.counterexample is None, outcome.verdict


def test_fuzz_catches_a_switch_over_on_the_speed_relay_edge(cache_dir) -> None:
    """The catalog restarts the fan only below 90 % (C2), so a program that switches to delta
    on the rising edge of SPEED_90 instead of its level passes them; a restart of a fan still
    coasting above 90 % (a STOP in delta, START 0.5-2 s later) gives no edge and catches it."""
    edge = (REFERENCE.replace("    resetEdge  : R_TRIG;\n", "    resetEdge  : R_TRIG;\n    sp90Edge   : R_TRIG;\n")
            .replace("resetEdge(CLK := RESET);\n", "resetEdge(CLK := RESET);\nsp90Edge(CLK := SPEED_90);\n")
            .replace("        IF SPEED_90 THEN\n", "        IF sp90Edge.Q THEN\n"))
    assert edge.count("sp90Edge") == 3
    assert _verify(edge, cache_dir).reward == 1
    outcomes = [fuzz_source(edge, TASK, examples=60, seed=seed, cache_dir=cache_dir) for seed in range(4)]
    caught = [o for o in outcomes if o.counterexample is not None]
    assert caught, [o.conditions_run for o in outcomes]
    assert all([ev.target for ev in o.counterexample.script] == ["START", "STOP", "START", "STOP"]
               for o in caught)
