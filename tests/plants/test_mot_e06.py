"""MOT-E06 quality bars: the reference passes with margin, the idle program and the blind
replay fail, one-change mutants of the reference fail for the expected reason, the text
states every judged rule, the conditions are the catalog's and lie in the published ranges,
and the plant follows D01/D07."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from plants.tasks.axis_io import axis_block
from plants.tasks.mot_e06 import FIRST_START_S, TASK, TIME_LIMIT_S, make_condition, plant
from plants.tasks.render import render_markdown
from verifier.baselines import idle_program, record_outputs, replay_program
from verifier.bind import bind
from verifier.fuzz import fuzz_source, search_space
from verifier.kernel import run_kernel
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


@pytest.fixture(scope="module")
def reference_run(cache_dir):
    return _verify(REFERENCE, cache_dir)


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.suite, TASK.level, len(TASK.conditions)) == ("MOT", "easy", 4)
    text = render_markdown(TASK)
    rules = {r.code: r.text for r in TASK.safety}
    assert set(rules) == set(plant.VIOLATIONS)
    for code in plant.VIOLATIONS:
        assert f"**{code}**: {rules[code]}" in text
    assert "450 mm/s" in rules["S-VMAX"] and "-5 mm" in rules["S-HWLIM"]
    for secret in ("123.45", "offset_mm", "650", "760"):
        assert secret not in text
    assert TASK.io[:32] == axis_block(0)
    task_rows = [(s.address, s.name, s.type) for s in TASK.io[32:]]
    assert task_rows == [
        ("%IX0.0", "START", "BOOL"), ("%IW140", "P1_MM", "INT"), ("%IW142", "P2_MM", "INT"),
        ("%IW144", "P3_MM", "INT"), ("%IW146", "V_MM_S", "INT"),
        ("%QX0.0", "LAMP_READY", "BOOL"), ("%QX0.1", "LAMP_ERR", "BOOL"),
    ]


def test_axis_block_follows_table_a_columns() -> None:
    col0 = {s.name: (s.address, s.type) for s in axis_block(0)}
    col1 = {s.name: s.address for s in axis_block(1)}
    col3 = {s.name: s.address for s in axis_block(3)}
    assert len(col0) == 32
    assert col0["ENABLE"] == ("%QX8.0", "BOOL") and col0["CSP_ON"] == ("%QX9.1", "BOOL")
    assert col0["TARGET"] == ("%QD200", "DINT") and col0["ACT_POS"] == ("%ID200", "DINT")
    assert col0["VELOCITY"] == ("%QW100", "INT") and col0["ACT_FORCE"] == ("%IW104", "INT")
    assert (col1["RESET"], col1["GEAR_IN"], col1["TARGET"], col1["GEAR_DEN"]) == (
        "%QX10.7", "%QX11.0", "%QD204", "%QW114")
    assert (col3["GEARED"], col3["ACT_POS"], col3["ERROR_ID"]) == ("%IX15.4", "%ID212", "%IW126")
    with pytest.raises(ValueError):
        axis_block(4)


def test_conditions_are_the_catalog_values_inside_the_published_ranges() -> None:
    catalog = {  # x0, offset, power-up, P1..P3, V, START presses (TASKS/MOT-E.md)
        "C1": (400, 123.45, 0.1, (100, 650, 300), 400, (0.5,)),
        "C2": (10, 0.0, 0.1, (700, 50, 780), 300, (1.0,)),
        "C3": (760, 0.0, 0.8, (20, 400, 21), 250, (0.5,)),
        "C4": (300, -250.0, 0.1, (250, 251, 30), 100, (0.5, 3.0)),
    }
    for cond in TASK.conditions:
        p = cond.params
        got = (p["x0_mm"], p["offset_mm"], p["powerup_s"], (p["p1_mm"], p["p2_mm"], p["p3_mm"]),
               p["v_mm_s"], tuple(ev.t for ev in cond.script))
        assert got == catalog[cond.name]
        assert 0.1 <= p["powerup_s"] <= 1.0 and 5 <= p["x0_mm"] <= 780
        assert -300 <= p["offset_mm"] <= 300 and 100 <= p["v_mm_s"] <= 400
        assert all(0 <= q <= 800 for q in got[3])
        assert all(0.5 <= ev.t <= 5.0 and ev.duration in (0.0, 0.3) for ev in cond.script)
        first = cond.script[0].t
        assert FIRST_START_S[0] <= first <= FIRST_START_S[1] and TASK.time_limit(cond) == 42.0
    assert TASK.range_findings() == []


def test_reference_passes_every_condition_with_15_percent_margin(reference_run) -> None:
    v = reference_run
    assert v.reward == 1 and v.diagnostics.items == []
    for cond, res in zip(TASK.conditions, v.result["conditions"], strict=True):
        assert res["success_time_s"] * MARGIN <= TIME_LIMIT_S, (cond.name, res)


def test_idle_program_fails_every_condition(cache_dir) -> None:
    v = _verify(idle_program(TASK), cache_dir)
    assert [c.success for c in v.conditions] == [False] * 4
    assert all("P1 was not reached and held" in c.reason for c in v.conditions)


def test_blind_replay_of_condition_1_fails_another_condition(cache_dir) -> None:
    recorded = record_outputs(TASK, REFERENCE, 0, cache_dir=cache_dir)
    assert recorded.shape == (1030, len(TASK.outputs))  # until success at 10.30 s
    v = _verify(replay_program(TASK, recorded), cache_dir)
    passed = [c.passed for c in v.conditions]
    assert passed[0] and not any(passed[1:])
    assert "ERROR_ID 5" in v.conditions[2].reason  # HOME before the slow power-up ended


MUTANTS = {  # name: (replacements, expected condition reason or violation code, conditions)
    "HOME before POWERED": (
        [("IF axPowered THEN", "IF TRUE THEN")], "ERROR (ERROR_ID 5)", range(4)),
    "MOVE_ABS before HOMED": (
        [("IF axHomed AND axDone AND NOT axBusy THEN", "IF TRUE THEN")], "ERROR (ERROR_ID 2)",
        range(4)),
    "dwell too short": ([("PT := T#500ms", "PT := T#200ms")], "P1 was", range(4)),
    "recipe speed ignored": (
        [("axVelocity := 10 * LIMIT(1, V_MM_S, V_MAX_MM_S);", "axVelocity := 5000;")],
        "S-VMAX", range(4)),
    "LAMP_READY from HOMED": (
        [("LAMP_ERR := axError;", "LAMP_ERR := axError;\nLAMP_READY := axHomed;")],
        "LAMP_READY is TRUE before P1 was reached", range(4)),
    "no homing, relative moves on the unhomed ACT_POS": (
        [("axMoveAbs    AT %QX8.2", "axMoveAbs    AT %QX8.3"),
         ("axError      AT %IX8.4  : BOOL;",
          "axError AT %IX8.4 : BOOL; axActPos AT %ID200 : DINT;"),
         ("axHome := TRUE;\n            seqStep := S_HOMING;", "seqStep := S_HOMING;"),
         ("IF axHomed AND axDone AND NOT axBusy THEN", "IF TRUE THEN"),
         ("INT_TO_DINT(recipe[index]) * 100;", "INT_TO_DINT(recipe[index]) * 100 - axActPos;")],
        "S-HWLIM", (0,)),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail_for_the_expected_reason(name: str,
                                                                         cache_dir) -> None:
    replacements, expected, failing = MUTANTS[name]
    text = REFERENCE
    for old, new in replacements:
        assert old in text
        text = text.replace(old, new)
    v = _verify(text, cache_dir)
    assert v.reward == 0
    for c in failing:
        res = v.conditions[c]
        assert not res.passed and expected in (res.reason or ""), res.reason


def test_plant_follows_the_script_and_the_drive_model(cache_dir) -> None:
    from stc.compiler import compile_source

    compiled = compile_source(REFERENCE, "ref.st", cache_dir=cache_dir)
    binding = bind(compiled.program, TASK)
    traces = {}
    for c in range(4):
        run = run_kernel(compiled.program, binding, TASK, cache_dir=cache_dir, trace_condition=c)
        traces[c] = (run.trace_in, run.trace_out)
    i1, o1 = traces[0]
    assert i1[0, plant.I_ACT_POS] == 52345 and i1[0, plant.I_REF_SW] == 0  # 400 + 123.45
    assert [int(i1[0, plant.I_P1 + j]) for j in range(4)] == [100, 650, 300, 400]
    enable = int(np.flatnonzero(o1[:, plant.O_ENABLE])[0])
    assert enable == 50 and i1[50, plant.I_START] == 1  # START pressed at 0.5 s
    i3, o3 = traces[2]
    en3 = int(np.flatnonzero(o3[:, plant.O_ENABLE])[0])
    on3 = int(np.flatnonzero(i3[:, plant.I_POWERED])[0])
    assert on3 - en3 == 80  # power-up 0.8 s: POWERED seen 80 scans after ENABLE
    i2, _ = traces[1]
    assert i2[0, plant.I_REF_SW] == 1 and i2[0, plant.I_ACT_POS] == 1000  # on the cam
    homed = int(np.flatnonzero(i2[:, plant.I_HOMED])[0])
    assert 2000 <= i2[homed, plant.I_ACT_POS] <= 2005  # HOME_POS 20.00 at the cam edge
    done = homed + int(np.flatnonzero(i2[homed:, plant.I_DONE])[0])
    assert i2[done, plant.I_ACT_POS] == 2005  # 5 mm/s braked at a_def within one 10 ms tick
    assert np.all(i2[:homed, plant.I_ACT_VEL] <= 50)  # leaves the cam at +5 mm/s
    for inp, _ in traces.values():
        assert np.all(inp[:, plant.I_ERROR] == 0)
        assert np.all(np.abs(inp[:, plant.I_ACT_VEL]) <= 4000)
        assert np.all(inp[:, plant.I_LIM_NEG] == 0) and np.all(inp[:, plant.I_LIM_POS] == 0)
    i4, _ = traces[3]
    start = i4[:, plant.I_START]
    assert np.all(start[300:330] == 1) and start[299] == 0 and start[330] == 0  # second press


def test_judge_state_from_the_declaration() -> None:
    *_, recipe, judge_state = plant.build(TASK)
    assert recipe[2].tolist() == [2000, 40000, 2100, 250]
    assert judge_state["last_tick"].tolist() == [4199] * 4  # T = 42 s
    assert judge_state["settle_tick"].tolist() == [80, 130, 80, 330]
    assert judge_state["hold_ticks"].tolist() == [45] * 4
    assert judge_state["window"].tolist() == [5] * 4


def _judge_fixture(c: int = 0):
    """A fresh batch with condition c's drive homed at rest on its P1 (true = program x)."""
    state = plant.build(TASK)
    pa, st, recipe = state[0][c, 0], state[1][c, 0], state[4][c]
    st["homed"], st["offset"] = 1, 0.0
    st["x"] = st["x_prev"] = recipe[0] / 100.0
    inp = np.zeros(len(TASK.inputs))
    out = np.zeros(len(TASK.outputs))
    return state, pa, st, recipe, inp, out


def _show_input(inp, st, pa) -> None:
    """The input image the program would see of this drive state."""
    inp[plant.I_HOMED] = st["homed"]
    inp[plant.I_STANDSTILL] = 1.0 if abs(st["v"]) < 0.5 else 0.0
    inp[plant.I_ACT_POS] = round((st["x"] + st["offset"]) * 100)


def test_judge_holds_positions_in_order_and_judges_the_lamp() -> None:
    state, pa, st, recipe, inp, out = _judge_fixture(0)
    for k in range(44):
        assert plant.judge(state, 0, k, inp, out) == (0, 0, 0, 0.0)
    assert state[5][0]["reached"] == 0
    plant.judge(state, 0, 44, inp, out)
    assert state[5][0]["reached"] == 1  # 45 ticks at rest on P1
    st["x"] = st["x_prev"] = recipe[2] / 100.0  # at rest on P3 before P2: does not count
    for k in range(45, 200):
        plant.judge(state, 0, k, inp, out)
    assert state[5][0]["reached"] == 1
    _show_input(inp, st, pa)
    out[plant.O_LAMP_READY] = 1.0
    assert plant.judge(state, 0, 200, inp, out)[1:3] == (-1, plant.R_LAMP_EARLY)
    state[5][0]["reached"] = 2
    inp[plant.I_ACT_POS] += 6  # 0.06 mm off P3 in the program's input image
    assert plant.judge(state, 0, 201, inp, out)[1:3] == (-1, plant.R_LAMP_NOT_AT_P3)
    _show_input(inp, st, pa)
    results = [plant.judge(state, 0, k, inp, out)[1] for k in range(202, 247)]
    assert results == [0] * 44 + [1]  # P3 held 0.45 s with the lamp on: success


def test_judge_final_reasons_error_and_safety_rules() -> None:
    state, pa, st, recipe, inp, out = _judge_fixture(3)
    last = int(state[5][3]["last_tick"])
    assert plant.judge(state, 3, last, inp, out)[1:] == (-1, plant.R_NOT_HELD, 1.0)
    state[5][3]["reached"] = 3
    assert plant.judge(state, 3, last, inp, out)[1:3] == (-1, plant.R_LAMP_OFF)
    out[plant.O_LAMP_READY] = 1.0
    st["x"] = st["x_prev"] = recipe[2] / 100.0
    _show_input(inp, st, pa)
    assert plant.judge(state, 3, 100, inp, out)[1] == 0  # not before the last press ended (3.3 s)
    assert plant.judge(state, 3, 329, inp, out)[1] == 1
    st["x_prev"], st["x"] = 200.0, 204.6  # 460 mm/s tick average
    assert plant.judge(state, 3, 330, inp, out)[0] == 2  # S-VMAX
    st["x_prev"] = st["x"] = -5.0  # LIM_NEG actuated
    st["cmd"] = 1  # C_HOME: allowed during a homing run
    assert plant.judge(state, 3, 331, inp, out)[0] == 0
    st["cmd"] = 0
    assert plant.judge(state, 3, 332, inp, out)[0] == 1  # S-HWLIM
    st["error"], st["error_id"] = 1, 4
    assert plant.judge(state, 3, 333, inp, out)[1:] == (-1, plant.R_ERROR, 4.0)


def test_reference_is_robust_over_the_published_ranges(cache_dir) -> None:
    """Corner cases of the published ranges, not the catalog's conditions: the slowest run
    (P 800/0/800 at 100 mm/s, homing from 780 mm, 1 s power-up, START at 1.0 s), a recipe at
    HOME_POS, full speed end to end, positions 1 mm from the soft limits."""
    corners = tuple(
        make_condition(name, x0=x0, offset=off, powerup=pu, p=p, v=v, starts=starts)
        for name, x0, off, pu, p, v, starts in (
            ("E1", 780.0, 300.0, 1.0, (800, 0, 800), 100, (1.0,)),
            ("E2", 5.0, -300.0, 0.1, (20, 20, 20), 400, (0.5, 1.0)),
            ("E3", 21.0, 0.0, 0.5, (800, 0, 800), 400, (0.5, 4.8)),
            ("E4", 25.0, -123.0, 0.3, (1, 799, 400), 137, (0.7, 2.0)),
        )
    )
    v = _verify(REFERENCE, cache_dir, dataclasses.replace(TASK, conditions=corners))
    assert v.reward == 1, [c.reason for c in v.conditions]
    for cond, res in zip(corners, v.result["conditions"], strict=True):
        assert res["success_time_s"] * MARGIN <= TIME_LIMIT_S, (cond.name, res)


# ---------------------------------------------------------------- search space (plantloop fuzz)


@settings(max_examples=60, deadline=None)
@given(search_space(TASK))
def test_generated_conditions_lie_inside_the_published_ranges(condition) -> None:
    assert TASK.range_findings((condition,)) == []
    assert TASK.time_limit(condition) == TIME_LIMIT_S
    first = condition.script[0].t
    assert FIRST_START_S[0] <= first <= FIRST_START_S[1] and len(condition.script) <= 2
    assert all(isinstance(condition.params[k], int) for k in ("p1_mm", "p2_mm", "p3_mm", "v_mm_s"))


def test_fuzz_does_not_flag_the_reference(cache_dir) -> None:
    for seed in (0, 1):
        outcome = fuzz_source(REFERENCE, TASK, examples=40, seed=seed, cache_dir=cache_dir)
        assert outcome.counterexample is None, outcome.verdict
