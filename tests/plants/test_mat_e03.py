"""MAT-E03 quality bars: the reference passes with margin, the idle program and the blind
replay fail, one-change mutants of the reference fail for the expected reason, the text states
every judged rule, the conditions lie inside the published ranges, and the plant follows
D17/D18/D19/D22."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import items as items_mod
from plants.tasks.mat_e03 import TASK, plant
from plants.tasks.render import render_markdown
from verifier.baselines import idle_program, record_outputs, replay_program
from verifier.bind import bind
from verifier.kernel import run_kernel
from verifier.kernel_source import V_TICKS
from verifier.results import validate_result
from verifier.verify import verify_source

REFERENCE = (Path(plant.__file__).parent / TASK.reference).read_text()
N = len(TASK.conditions)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "plantloop-cache"
    path.mkdir(exist_ok=True)
    return path


def _verify(text: str, cache_dir):
    v = verify_source(text, TASK, "p.st", cache_dir=cache_dir)
    validate_result(v.result)
    assert not v.diagnostics.has_errors, v.diagnostics.render(text)
    return v


@pytest.fixture(scope="module")
def reference_run(cache_dir):
    return _verify(REFERENCE, cache_dir)


def test_declaration_matches_the_catalog_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.id, TASK.suite, TASK.level, N) == ("MAT-E03", "MAT", "easy", 4)
    assert TASK.title == "Metal / non-metal sorting with one pusher"
    assert [(s.address, s.name, s.type) for s in TASK.io] == [
        ("%IX0.0", "AUTO_SW", "BOOL"), ("%IX0.1", "ENTRY_PE", "BOOL"), ("%IX0.2", "IND_S", "BOOL"),
        ("%IX0.3", "PUSH_PE", "BOOL"), ("%IX0.4", "PUSH_RET", "BOOL"),
        ("%IX0.5", "PUSH_EXT", "BOOL"), ("%QX0.0", "CONV", "BOOL"), ("%QX0.1", "PUSH", "BOOL"),
    ]
    assert [TASK.time_limit(c) for c in TASK.conditions] == [45.0, 35.0, 80.0, 50.0]
    text = render_markdown(TASK)
    rules = {r.code: r.text for r in TASK.safety}
    assert set(rules) == set(plant.VIOLATIONS)
    for code in plant.VIOLATIONS:
        assert f"**{code}**: {rules[code]}" in text
    assert "AUTO_SW = FALSE" in text  # the CONV/AUTO completion rule is stated
    assert "MPMP" not in text and "v_mm_s" not in text  # per-condition values stay secret


def test_conditions_lie_inside_the_published_ranges() -> None:
    for cond in TASK.conditions:
        p = cond.params
        assert 200.0 <= p["v_mm_s"] <= 350.0
        assert 0.2 <= p["t_ext_s"] <= 0.6 and 0.2 <= p["t_ret_s"] <= 0.6
        assert 10 <= len(p["parts"]) <= 12 and set(p["parts"]) <= {"M", "P"}
        assert len(p["pitch_mm"]) == len(p["parts"]) - 1 and min(p["pitch_mm"]) >= 800.0
        for ev in cond.script:
            assert (ev.kind, ev.target) == ("auto_off", "AUTO_SW")
            assert 0.0 < ev.t and ev.t + ev.duration < TASK.time_limit(cond)
    assert max(p.count("M") for p in (c.params["parts"] for c in TASK.conditions)) \
        < plant.CHUTE_CAPACITY  # S-OVERFLOW cannot occur (changes note)
    assert TASK.range_findings() == []


def test_reference_passes_every_condition_with_15_percent_margin(reference_run) -> None:
    v = reference_run
    assert v.reward == 1 and v.diagnostics.items == []
    for cond, res in zip(TASK.conditions, v.result["conditions"], strict=True):
        assert res["success_time_s"] * 1.15 <= TASK.time_limit(cond), cond.name
    # the review simulation's finishing times (sims/MAT-E_and_MAT-M01/summary.txt)
    times = [c["success_time_s"] for c in v.result["conditions"]]
    assert np.allclose(times, [35.7, 25.8, 63.6, 31.7], atol=0.1)


def test_idle_program_fails_every_condition(cache_dir) -> None:
    v = _verify(idle_program(TASK), cache_dir)
    assert [c.success for c in v.conditions] == [False] * N
    assert all("not completed within the time limit" in c.reason for c in v.conditions)


def test_blind_replay_of_condition_1_fails_another_condition(cache_dir) -> None:
    recorded = record_outputs(TASK, REFERENCE, 0, cache_dir=cache_dir)
    assert recorded.shape == (3570, 2)
    v = _verify(replay_program(TASK, recorded), cache_dir)
    passed = [c.passed for c in v.conditions]
    assert passed[0] and not any(passed[1:])


MUTANTS = {
    # name: (old, new, condition that must fail, violation code or reason fragment)
    "belt ignores AUTO_SW": ("CONV := AUTO_SW;", "CONV := TRUE;", 3,
                             "CONV is TRUE in a scan whose input image has AUTO_SW = FALSE"),
    "fires when PUSH_PE falls": ("pusherEdge : R_TRIG;", "pusherEdge : F_TRIG;", 0, "S-JAM"),
    "never retracts": ("IF PUSH_EXT THEN", "IF FALSE THEN", 0, "S-STRIKE"),
    "retracts when the part leaves PUSH_PE": ("IF PUSH_EXT THEN", "IF NOT PUSH_PE THEN", 0,
                                              "was damaged"),
    "pushes every part": ("IF metalAhead AND PUSH_RET THEN", "IF PUSH_RET THEN", 0,
                          "plastic part 2 was pushed"),
    "reads IND_S at the pusher": ("IF metalAhead AND PUSH_RET THEN", "IF IND_S AND PUSH_RET THEN",
                                  0, "metal part 1 reached the belt end"),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    old, new, c, expected = MUTANTS[name]
    assert old in REFERENCE
    v = _verify(REFERENCE.replace(old, new), cache_dir)
    assert v.reward == 0
    res = v.conditions[c]
    if expected.startswith("S-"):
        assert res.violation is not None and res.violation.code == expected
    else:
        assert not res.success and expected in res.reason


def test_plant_follows_the_devices(cache_dir) -> None:
    """Sensors, AUTO script and pusher reed switches in the traced images of C4 (the reference)."""
    from stc.compiler import compile_source

    compiled = compile_source(REFERENCE, "ref.st", cache_dir=cache_dir)
    binding = bind(compiled.program, TASK)
    run = run_kernel(compiled.program, binding, TASK, cache_dir=cache_dir, trace_condition=3)
    n = int(run.verdict[3, V_TICKS])
    inp, out = run.trace_in[:n], run.trace_out[:n]
    off = np.flatnonzero(inp[:, plant.I_AUTO_SW] == 0)
    assert (off[0], off[-1], len(off)) == (1200, 1499, 300)  # AUTO_SW off on [12.0, 15.0)
    assert np.all(out[1200:1500, plant.O_CONV] == 0)
    # parts: P M M P M P P M P M; ENTRY_PE sees all ten, IND_S only the metal ones
    entry = np.flatnonzero(np.diff(inp[:, plant.I_ENTRY_PE]) > 0) + 1
    ind = np.flatnonzero(np.diff(inp[:, plant.I_IND_S]) > 0) + 1
    assert len(entry) == 10 and list(ind) == [int(entry[j]) for j in (1, 2, 4, 7, 9)]
    # first part placed at 1.0 s with its rear at 0, front reaches 300 mm after 240 mm of
    # travel at up to 300 mm/s (0.1 s run-up): between 1.8 and 2.0 s
    assert 180 <= entry[0] <= 200
    # every PUSH output follows a PUSH_PE rise; the stroke takes t_ext = 0.4 s (40 ticks)
    push_on = np.flatnonzero(np.diff(out[:, plant.O_PUSH]) > 0) + 1
    assert len(push_on) == 5
    for k in push_on:
        assert inp[k, plant.I_PUSH_PE] == 1 and inp[k - 1, plant.I_PUSH_PE] == 0
        assert inp[k, plant.I_PUSH_RET] == 1 and inp[k + 1, plant.I_PUSH_RET] == 0
    for k in push_on[:-1]:
        assert int(np.flatnonzero(inp[k:, plant.I_PUSH_EXT])[0]) == 40
    # the run ends as the last (metal) part drops into the chute at full stroke
    assert n - push_on[-1] == 40
    # the captured part leaves the belt: PUSH_PE falls within a few scans of the push
    for k in push_on:
        assert inp[k + 4, plant.I_PUSH_PE] == 0


def test_build_places_parts_by_pitch_with_the_condition_materials() -> None:
    state = plant.build(TASK)
    items, js = state[0], state[19]
    assert js["n_parts"].tolist() == [10, 10, 12, 10]
    c3 = TASK.conditions[2].params
    assert items[2]["metal"][:12].tolist() == [int(m == "M") for m in c3["parts"]]
    assert items[2]["pitch"][1:12].tolist() == list(c3["pitch_mm"])
    assert (items[0]["t_place"][:10] == 100).all()


@settings(max_examples=12, deadline=None)
@given(c=st.integers(0, N - 1), seed=st.integers(0, 2**31 - 1))
def test_plant_properties_under_random_outputs(c: int, seed: int) -> None:
    """Random belt and pusher outputs: sensors agree with footprints, parts never overlap and
    each ends with one fate, the reed switches never both read TRUE, and the judge's success
    means every part is where its material belongs."""
    rng = np.random.default_rng(seed)
    state = plant.build(TASK)
    items = state[0][c]
    inp, out = np.zeros(len(TASK.inputs)), np.zeros(len(TASK.outputs))
    n_parts = len(TASK.conditions[c].params["parts"])
    for k in range(3000):
        if k % 50 == 0:
            out[plant.O_CONV] = float(rng.random() < 0.8)
        if rng.random() < 0.02:
            out[plant.O_PUSH] = 1.0 - out[plant.O_PUSH]
        plant.sense(state, c, k, inp)
        on_line = items[items["place"] == items_mod.LINE]
        for x, col, metal_only in ((300.0, plant.I_ENTRY_PE, False), (300.0, plant.I_IND_S, True),
                                   (1030.0, plant.I_PUSH_PE, False)):
            seen = (on_line["rear"] <= x + 1e-9) & (x <= on_line["rear"] + on_line["length"] + 1e-9)
            if metal_only:
                seen &= on_line["metal"] == 1
            assert inp[col] == float(seen.any())
        assert not (inp[plant.I_PUSH_RET] and inp[plant.I_PUSH_EXT])
        plant.advance(state, c, k, out)
        _, outcome, _, _ = plant.judge(state, c, k, inp, out)
        rears = np.sort(items["rear"][items["place"] == items_mod.LINE])
        assert np.all(np.diff(rears) >= plant.PART_LENGTH_MM - 1e-6)
        assert (items["place"] == items_mod.HELD).sum() <= 1
        if outcome == 1:
            parts = items[:n_parts]
            assert np.all(parts["fate"] == items_mod.DELIVERED) and not parts["damaged"].any()
            assert np.array_equal(parts["dest"] == plant.DEST_CHUTE, parts["metal"] == 1)
            break
    done = items[:n_parts][items[:n_parts]["place"] == items_mod.DONE]
    assert np.all(done["fate"] != items_mod.FATE_NONE)
