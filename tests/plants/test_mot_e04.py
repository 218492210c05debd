"""MOT-E04 quality bars: the reference passes with margin (also at the corners of the published
ranges, with STOPs that leave the carriage between stations), the idle program and the blind
replay fail, one-change mutants of the reference fail with the expected rule, the text states
every judged rule, the conditions lie in the published ranges, and the plant follows D08 and
the station flags."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.tasks.mot_e04 import RANGES, REQUEST_WINDOW_S, TASK, plant
from plants.tasks.render import render_markdown
from plants.tasks.spec import Condition, Event
from verifier.baselines import idle_program, record_outputs, replay_program
from verifier.results import validate_result
from verifier.verify import verify_source

REFERENCE = (Path(plant.__file__).parent / TASK.reference).read_text()
MARGIN = 1.15


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


def _codes(v) -> list[str | None]:
    return [c.violation.code if c.violation else None for c in v.conditions]


def _reasons(v) -> list[str]:
    return [c.reason or "" for c in v.conditions]


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.suite, TASK.level, len(TASK.conditions)) == ("MOT", "easy", 4)
    assert [(s.address, s.name) for s in TASK.io] == [
        ("%IX0.0", "GOTO_1"), ("%IX0.1", "GOTO_2"), ("%IX0.2", "GOTO_3"), ("%IX0.3", "STOP_NC"),
        ("%IX1.0", "SLOW_1"), ("%IX1.1", "SLOW_2"), ("%IX1.2", "SLOW_3"),
        ("%IX1.3", "AT_1"), ("%IX1.4", "AT_2"), ("%IX1.5", "AT_3"),
        ("%IX1.6", "LS_L"), ("%IX1.7", "LS_R"),
        ("%QX0.0", "FWD"), ("%QX0.1", "REV"), ("%QX0.2", "FAST"), ("%QX0.3", "LAMP_AT"),
    ]
    text = render_markdown(TASK)
    rules = {r.code: r.text for r in TASK.safety}
    assert set(rules) == set(plant.VIOLATIONS)
    for code in plant.VIOLATIONS:
        assert f"**{code}**: {rules[code]}" in text
    for secret in ("v_fast_mm_s", "tau_s", "350", "0.15 s"):
        assert secret not in text
    assert "within 20 s" in text and "between **50 s** and **65 s**" in text


def test_conditions_lie_inside_the_published_ranges() -> None:
    for cond in TASK.conditions:
        for name in ("v_fast_mm_s", "v_creep_mm_s", "tau_s"):
            lo, hi = RANGES[name]
            assert lo <= cond.params[name] <= hi, (cond.name, name)
        assert cond.params["start"] in (1, 2, 3)
        lo, hi = RANGES["event_t_s"]
        times = sorted(ev.t for ev in cond.script)
        assert all(lo <= t <= hi for t in times), cond.name
        assert len(set(times)) == len(times), "never two buttons together"
        assert all(ev.kind == "press" and ev.duration == 0.0 for ev in cond.script)
    assert TASK.range_findings() == []
    assert TASK.deadlines == ("request_window_s",) and not TASK.run_to_t


@pytest.fixture(scope="module")
def reference_run(cache_dir):
    return _verify(REFERENCE, cache_dir)


def test_reference_passes_every_condition(reference_run) -> None:
    assert reference_run.reward == 1, _reasons(reference_run)
    assert reference_run.diagnostics.items == []
    # success comes with the completion of the last request, after the last press.
    times = [c["success_time_s"] for c in reference_run.result["conditions"]]
    assert all(last < t for last, t in zip([43.0, 42.0, 26.0, 30.0], times, strict=True))


def _tightened(task):
    """A16: T and the 20 s request window shrunk by 15 %."""
    conditions = tuple(dataclasses.replace(c, time_limit_s=round(task.time_limit(c) / MARGIN, 2))
                       for c in task.conditions)
    return dataclasses.replace(task, conditions=conditions,
                               judge={"request_window_s": REQUEST_WINDOW_S / MARGIN})


def test_reference_keeps_15_percent_margin(cache_dir) -> None:
    v = _verify(REFERENCE, cache_dir, _tightened(TASK))
    assert v.reward == 1, _reasons(v)


def _corner_conditions() -> tuple[Condition, ...]:
    """Every corner of (v_fast, v_creep, tau) with two scripts whose STOP leaves the carriage
    between stations (where depends on the speeds), the next request then going back or on."""
    scripts = (
        (1, (Event(1.0, "press", "GOTO_3"), Event(4.0, "press", "STOP"), Event(7.0, "press", "GOTO_2"),
             Event(26.0, "press", "GOTO_1"), Event(45.0, "press", "GOTO_1"))),
        (3, (Event(1.0, "press", "GOTO_1"), Event(5.5, "press", "STOP"), Event(8.5, "press", "GOTO_3"),
             Event(28.0, "press", "GOTO_2"), Event(32.0, "press", "GOTO_3"))),
    )
    conds = []
    corners = itertools.product(RANGES["v_fast_mm_s"], RANGES["v_creep_mm_s"], RANGES["tau_s"])
    for (vf, vc, tau), (start, script) in itertools.product(corners, scripts):
        conds.append(Condition(f"K{len(conds) + 1}", {"start": start, "v_fast_mm_s": vf,
                                                      "v_creep_mm_s": vc, "tau_s": tau},
                               script, time_limit_s=65.0))
    return tuple(conds)


CORNERS = dataclasses.replace(TASK, conditions=_corner_conditions())


def test_reference_is_robust_at_the_corners_of_the_published_ranges(cache_dir) -> None:
    v = _verify(REFERENCE, cache_dir, _tightened(CORNERS))
    assert v.reward == 1, list(zip(_codes(v), _reasons(v), strict=True))


def test_idle_program_fails_every_condition(cache_dir) -> None:
    v = _verify(idle_program(TASK), cache_dir)
    assert [c.success for c in v.conditions] == [False] * 4
    assert all("not completed within 20 s" in r for r in _reasons(v))


def test_blind_replay_of_condition_1_fails_another_condition(cache_dir) -> None:
    recorded = record_outputs(TASK, REFERENCE, 0, cache_dir=cache_dir)
    assert recorded.shape[1] == 4
    v = _verify(replay_program(TASK, recorded), cache_dir)
    passed = [c.passed for c in v.conditions]
    assert passed[0] and not all(passed[1:])


MUTANTS = {
    # name: (replacements, task, expected S-code in some condition or None, reason fragment or None)
    "stop ignored": ([("IF NOT STOP_NC THEN", "IF FALSE THEN")], TASK, "S-STOPPB", None),
    "move resumed after STOP": (
        [("    moving := FALSE;\n    arrived := FALSE;\nELSIF", "    arrived := FALSE;\nELSIF"),
         ("FWD := moving", "FWD := STOP_NC AND moving"), ("REV := moving", "REV := STOP_NC AND moving")],
        TASK, None, "FWD or REV is TRUE while no accepted request is pending"),
    "always fast": ([("FAST := (FWD OR REV) AND NOT slowFlag[target];", "FAST := FWD OR REV;")],
                    TASK, None, "FAST is TRUE while driving inside the SLOW window"),
    "lamp lit from the request": ([("LAMP_AT := arrived AND", "LAMP_AT := target > 0 OR")],
                                  TASK, None, "LAMP_AT is TRUE while FWD or REV is TRUE"),
    "requests accepted during motion": ([("request > 0 AND NOT moving AND", "request > 0 AND")],
                                        TASK, None, "not completed within 20 s"),
    "stops at any AT flag": ([("IF moving AND atFlag[target] THEN", "IF moving AND (AT_1 OR AT_2 OR AT_3) THEN")],
                             TASK, None, "not completed within 20 s"),
    "direction inverted": ([("wantDir := 1;", "wantDir := 2;"), ("wantDir := -1;", "wantDir := 1;"),
                            ("wantDir := 2;", "wantDir := -1;")], TASK, "S-HWLIM", None),
    "no side tracking after STOP": ([("            pos := 2 * i + 1;", "            pos := 2 * i;"),
                                     ("            pos := 2 * i - 1;", "            pos := 2 * i;")],
                                    CORNERS, None, None),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    replacements, task, code, reason = MUTANTS[name]
    text = REFERENCE
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new)
    v = _verify(text, cache_dir, task)
    assert v.reward == 0
    if code is not None:
        assert code in _codes(v), _codes(v)
    if reason is not None:
        assert any(reason in r for r in _reasons(v)), _reasons(v)


def _probe(start: int, outputs, *, vf=300.0, vc=20.0, tau=0.1, script=()):
    """Drive the plant of one condition with an output sequence; positions, speeds, inputs and
    the judge's (violation, outcome, reason) per tick."""
    cond = Condition("P", {"start": start, "v_fast_mm_s": vf, "v_creep_mm_s": vc, "tau_s": tau},
                     tuple(script) or (Event(50.0, "press", "GOTO_1"),))
    state = plant.build(dataclasses.replace(TASK, conditions=(cond,)))
    xs, vs, ins, verdicts = [], [], [], []
    inp = np.zeros(12)
    for k, out in enumerate(outputs):
        out = np.asarray(out, np.float64)
        plant.sense(state, 0, k, inp)
        ins.append(inp.copy())
        plant.advance(state, 0, k, out)
        verdicts.append(plant.judge(state, 0, k, inp, out)[:3])
        xs.append(state[1][0, 0]["x"])
        vs.append(state[1][0, 0]["v"])
    return np.array(xs), np.array(vs), np.array(ins), verdicts


def test_flags_and_switches_follow_the_carriage_position() -> None:
    # from station 3 fast toward +x into the right over-travel switch.
    xs, vs, ins, verdicts = _probe(3, [(1, 0, 1, 0)] * 400, vf=250.0, tau=0.05)
    assert abs(vs[-1]) < 1.0 and 2970.0 <= xs[-1] <= 2976.0  # cut by LS_R, coasts ~ v*tau
    x_seen = np.r_[2500.0, xs[:-1]]  # the input image of tick k shows x after tick k - 1
    assert np.array_equal(ins[:, plant.I_AT + 2] == 1, np.abs(x_seen - 2500.0) <= 8.0)
    assert np.array_equal(ins[:, plant.I_SLOW + 2] == 1, np.abs(x_seen - 2500.0) <= 100.0)
    assert np.array_equal(ins[:, plant.I_LS_R] == 1, x_seen >= 2960.0)
    assert not ins[:, plant.I_LS_L].any() and not ins[:, plant.I_SLOW + 1].any()
    first = next(k for k, v in enumerate(verdicts) if v[0])
    assert plant.VIOLATIONS[verdicts[first][0] - 1] == "S-HWLIM" and xs[first] >= 2960.0


def test_judge_raises_crash_deadtime_and_bothdir() -> None:
    xs, _, _, verdicts = _probe(1, [(0, 1, 1, 0)] * 300, vf=400.0, tau=0.2)
    codes = {plant.VIOLATIONS[v[0] - 1] for v in verdicts if v[0]}
    assert xs.min() == 0.0 and codes == {"S-HWLIM", "S-CRASH"}  # LS_L cuts too late at 400 mm/s
    # FWD for 1 s, then REV 0.45 s after FWD fell: S-DEADTIME; after 0.5 s: none.
    for gap, expected in ((45, True), (50, False)):
        outs = [(1, 0, 0, 0)] * 100 + [(0, 0, 0, 0)] * gap + [(0, 1, 0, 0)] * 5
        _, _, _, verdicts = _probe(2, outs)
        assert ("S-DEADTIME" in {plant.VIOLATIONS[v[0] - 1] for v in verdicts if v[0]}) == expected
    _, _, _, verdicts = _probe(2, [(1, 1, 0, 0)])
    assert plant.VIOLATIONS[verdicts[0][0] - 1] == "S-BOTHDIR"


def test_request_for_the_current_station_completes_with_the_lamp() -> None:
    script = (Event(0.5, "press", "GOTO_2"),)
    outs = [(0, 0, 0, 0)] * 50 + [(0, 0, 0, 1)]
    _, _, _, verdicts = _probe(2, outs, script=script)
    assert verdicts[-1] == (0, 1, 0) and all(v == (0, 0, 0) for v in verdicts[:-1])
    # the same request without the lamp stays pending; driving without a request fails.
    _, _, _, verdicts = _probe(2, [(0, 0, 0, 0)] * 51, script=script)
    assert verdicts[-1] == (0, 0, 0)
    _, _, _, verdicts = _probe(2, [(1, 0, 0, 0)], script=script)
    assert verdicts[0] == (0, -1, 4)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 15), st.integers(1, 80)), min_size=1, max_size=12),
       st.sampled_from([1, 2, 3]), st.sampled_from([0.05, 0.2]))
def test_plant_properties_under_random_outputs(segments, start, tau) -> None:
    """Whatever the program does: x stays between the end stops, the flags agree with each
    other (AT_k implies SLOW_k, at most one station seen, never both switches) and the run is
    deterministic."""
    outs = [((b >> 0) & 1, (b >> 1) & 1, (b >> 2) & 1, (b >> 3) & 1)
            for b, n in segments for _ in range(n)]
    xs, vs, ins, _ = _probe(start, outs, vf=400.0, tau=tau)
    assert np.all((xs >= 0.0) & (xs <= 3000.0))
    slow, at = ins[:, plant.I_SLOW:plant.I_SLOW + 3], ins[:, plant.I_AT:plant.I_AT + 3]
    assert np.all(at <= slow) and np.all(slow.sum(axis=1) <= 1)
    assert not np.any(ins[:, plant.I_LS_L] * ins[:, plant.I_LS_R])
    assert np.all(np.abs(vs) <= 400.0 + 1e-9)
    xs2, vs2, _, _ = _probe(start, outs, vf=400.0, tau=tau)
    assert np.array_equal(xs, xs2) and np.array_equal(vs, vs2)
