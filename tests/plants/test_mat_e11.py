"""MAT-E11 quality bars: the reference passes with margin, the idle program and the blind
replay fail, one-change mutants of the reference fail for the expected reason, the text states
every judged rule, the conditions lie inside the published ranges, and the plant follows
D17/D18/D19/D22/D24 (tare and zero offset included)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import items as items_mod
from plants.tasks.mat_e11 import ITEM_LENGTH_MM, TASK, plant
from plants.tasks.mat_e11.search import search_space

from .taskkit import (
    assert_every_condition_fails,
    assert_only_condition_1_passes,
    reference_text,
    rendered_rules,
    task_verifier,
)

REFERENCE = reference_text(TASK, plant)
N = len(TASK.conditions)


def _weights(cond) -> list[int]:
    return [dict(ev.args)["weight_g"] for ev in cond.script]


_verify = task_verifier(TASK)


def test_declaration_matches_the_catalog_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.id, TASK.suite, TASK.level, N) == ("MAT-E11", "MAT", "easy", 4)
    assert TASK.title == "Static checkweigher with reject and tare"
    assert [(s.address, s.name, s.type, s.unit) for s in TASK.io] == [
        ("%IX0.0", "AUTO_SW", "BOOL", ""), ("%IX0.1", "IN_END_PE", "BOOL", ""),
        ("%IX0.2", "SCALE_PE", "BOOL", ""), ("%IX0.3", "PUSH_PE", "BOOL", ""),
        ("%IX0.4", "PUSH_RET", "BOOL", ""), ("%IX0.5", "PUSH_EXT", "BOOL", ""),
        ("%IW140", "WEIGHT", "INT", "g"), ("%IW142", "W_MIN", "INT", "g"),
        ("%IW144", "W_MAX", "INT", "g"),
        ("%QX0.0", "IN_CONV", "BOOL", ""), ("%QX0.1", "WEIGH_CONV", "BOOL", ""),
        ("%QX0.2", "OUT_CONV", "BOOL", ""), ("%QX0.3", "PUSH", "BOOL", ""),
        ("%QX0.4", "TARE", "BOOL", ""), ("%QX0.5", "LAMP_REJECT", "BOOL", ""),
    ]
    assert [TASK.time_limit(c) for c in TASK.conditions] == [60.0, 60.0, 80.0, 60.0]
    assert [_weights(c) for c in TASK.conditions] == [
        [500, 530, 470, 505, 515, 499], [483, 517, 523, 477, 500],
        [1000, 1060, 940, 1020, 990, 1045, 955, 1070], [495, 512, 514, 470, 508]]
    text, rules = rendered_rules(TASK, plant)
    for r in TASK.ranges:
        assert r.render() in text
    assert "523" not in text and "tau_s" not in text  # per-condition values stay secret


def test_conditions_lie_inside_the_published_ranges() -> None:
    assert TASK.range_findings() == []
    for cond in TASK.conditions:
        p, weights = cond.params, _weights(cond)
        assert p["w_max_g"] - p["w_min_g"] >= 20.0
        assert 5 <= len(weights) <= 8
        for w in weights:
            assert 300 <= w <= 1200
            assert abs(w - p["w_min_g"]) >= 3 and abs(w - p["w_max_g"]) >= 3
        assert all(ev.kind == "item" for ev in cond.script)


@settings(max_examples=40, deadline=None)
@given(search_space(TASK))
def test_generated_conditions_lie_inside_the_published_ranges(condition) -> None:
    assert TASK.range_findings((condition,)) == []
    assert 60.0 <= TASK.time_limit(condition) <= 80.0
    p, weights = condition.params, _weights(condition)
    assert 5 <= len(weights) <= 8 and p["w_max_g"] - p["w_min_g"] >= 20.0
    for w in weights:
        assert 300 <= w <= 1200
        assert abs(w - p["w_min_g"]) >= 3 and abs(w - p["w_max_g"]) >= 3


def test_reference_passes_every_condition_with_15_percent_margin(reference_run) -> None:
    v = reference_run
    assert v.reward == 1 and v.diagnostics.items == []
    for cond, res in zip(TASK.conditions, v.result["conditions"], strict=True):
        assert res["success_time_s"] * 1.15 <= TASK.time_limit(cond), cond.name
    # the review simulation (sims/MAT-E_and_MAT-M01/summary.txt) finished at 38.2, 34.0,
    # 40.3 and 33.2 s with a sliding stability window; ours restarts the window, so C2/C3
    # settle a little later
    times = [c["success_time_s"] for c in v.result["conditions"]]
    assert np.allclose(times, [38.2, 34.0, 40.3, 33.2], atol=2.0)


def test_idle_program_fails_every_condition(idle_run) -> None:
    assert_every_condition_fails(idle_run, N, "not completed within the time limit")


def test_blind_replay_of_condition_1_fails_another_condition(replay_run) -> None:
    assert_only_condition_1_passes(replay_run, all_others=True)


MUTANTS = {
    # name: (old, new, condition that must fail, violation code or reason fragment)
    # the untared scale reads the +12 g offset when empty, so the scale never reads free
    "never tares": ("TARE := TRUE;", "TARE := FALSE;", 3, "not completed within the time limit"),
    "ignores the stability band": ("STABLE_BAND_G : INT := 1;", "STABLE_BAND_G : INT := 1000;",
                                   1, "item 3 (weight outside the limits) reached the accept"),
    "sends without waiting for the pusher": ("IF NOT itemToPusher AND AUTO_SW THEN",
                                             "IF AUTO_SW THEN", 2,
                                             "item 2 (weight outside the limits) reached the"),
    "never retracts": ("IF PUSH_EXT THEN", "IF FALSE THEN", 0, "S-STRIKE"),
    "retracts when the item leaves PUSH_PE": ("IF PUSH_EXT THEN", "IF NOT PUSH_PE THEN", 0,
                                              "item 2 was damaged"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    old, new, c, expected = MUTANTS[name]
    assert REFERENCE.count(old) == 1
    v = _verify(REFERENCE.replace(old, new), cache_dir)
    assert v.reward == 0
    res = v.conditions[c]
    if expected.startswith("S-"):
        assert res.violation is not None and res.violation.code == expected
    else:
        assert not res.success and expected in res.reason, res.reason


def test_build_places_items_with_their_weights_and_the_offset_reads_before_tare() -> None:
    state = plant.build(TASK)
    items, limits, js = state[0], state[20], state[21]
    assert js["n_items"].tolist() == [6, 5, 8, 5]
    assert items[2]["weight"][:8].tolist() == _weights(TASK.conditions[2])
    assert (items[2]["t_place"][:8] == 0).all() and items[0]["t_place"][1] == 600
    assert limits.tolist() == [[480, 520], [480, 520], [950, 1050], [480, 520]]
    inp = np.zeros(len(TASK.inputs))
    plant.sense(state, 3, 0, inp)
    assert inp[plant.I_WEIGHT] == 12.0  # C4: zero offset +12 g before the tare
    out = np.zeros(len(TASK.outputs))
    out[plant.O_TARE] = 1.0
    plant.advance(state, 3, 0, out)
    plant.sense(state, 3, 1, inp)
    assert inp[plant.I_WEIGHT] == 0.0  # the TARE edge zeroes it, offset included
    assert (inp[plant.I_W_MIN], inp[plant.I_W_MAX]) == (480.0, 520.0)


@settings(max_examples=6, deadline=None)
@given(c=st.integers(0, N - 1), seed=st.integers(0, 2**31 - 1))
def test_plant_properties_under_random_outputs(c: int, seed: int) -> None:
    """Random belt, pusher and tare outputs: sensors agree with footprints, the weight word is
    the filtered platform load minus the tare, items never overlap and each ends with one
    fate, and the judge's success means every item is where its weight belongs."""
    rng = np.random.default_rng(seed)
    state = plant.build(TASK)
    items = state[0][c]
    lp, ls = state[17][c, 0], state[18][c, 0]
    w_min, w_max = state[20][c]
    inp, out = np.zeros(len(TASK.inputs)), np.zeros(len(TASK.outputs))
    n_items = len(TASK.conditions[c].script)
    reading = 0.0
    tare = -TASK.conditions[c].params["offset_g"]
    for k in range(3000):
        if k % 40 == 0:
            out[:3] = (rng.random(3) < 0.8).astype(float)
        if rng.random() < 0.02:
            out[plant.O_PUSH] = 1.0 - out[plant.O_PUSH]
        tare_edge = rng.random() < 0.005 and out[plant.O_TARE] == 0.0
        out[plant.O_TARE] = 1.0 if tare_edge else 0.0
        plant.sense(state, c, k, inp)
        on_line = items[items["place"] == items_mod.LINE]
        for x, col in zip(plant.SENSOR_X_MM, (plant.I_IN_END_PE, plant.I_SCALE_PE,
                                              plant.I_PUSH_PE), strict=True):
            seen = (on_line["rear"] <= x + 1e-9) & (x <= on_line["rear"] + on_line["length"] + 1e-9)
            assert inp[col] == float(seen.any())
        assert inp[plant.I_WEIGHT] == round(reading - tare)
        assert not (inp[plant.I_PUSH_RET] and inp[plant.I_PUSH_EXT])
        plant.advance(state, c, k, out)
        on_line = items[items["place"] == items_mod.LINE]
        lo = np.maximum(on_line["rear"], plant.WEIGH_X0_MM)
        hi = np.minimum(on_line["rear"] + on_line["length"], plant.WEIGH_X1_MM)
        load = float(np.sum(on_line["weight"] * np.clip(hi - lo, 0.0, None) / on_line["length"]))
        reading += (load - reading) * 0.01 / lp["tau"]
        if tare_edge:
            tare = reading
        assert ls["reading"] == pytest.approx(reading) and ls["tare"] == pytest.approx(tare)
        _, outcome, _, _ = plant.judge(state, c, k, inp, out)
        rears = np.sort(items["rear"][items["place"] == items_mod.LINE])
        assert np.all(np.diff(rears) >= ITEM_LENGTH_MM - 1e-6)
        assert (items["place"] == items_mod.HELD).sum() <= 1
        if outcome == 1:
            done = items[:n_items]
            good = (done["weight"] >= w_min) & (done["weight"] <= w_max)
            assert np.all(done["fate"] == items_mod.DELIVERED) and not done["damaged"].any()
            assert np.array_equal(done["dest"] == plant.DEST_ACCEPT, good)
            break
    done = items[:n_items][items[:n_items]["place"] == items_mod.DONE]
    assert np.all(done["fate"] != items_mod.FATE_NONE)
