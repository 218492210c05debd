"""MOT-E01 quality bars: the reference passes with margin, the idle program and the blind
replay fail, one-change mutants of the reference fail, the text states every judged rule,
and the plant follows D01/D03."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from plants.tasks.mot_e01 import TASK, plant

from .taskkit import (
    assert_every_condition_fails,
    assert_only_condition_1_passes,
    reference_text,
    rendered_rules,
    task_verifier,
    traces,
)

REFERENCE = reference_text(TASK, plant)


_verify = task_verifier(TASK)


def test_declaration_is_sound_and_renders_every_judged_rule() -> None:
    assert TASK.validate() == []
    assert (TASK.suite, TASK.level, len(TASK.conditions)) == ("MOT", "easy", 4)
    text, rules = rendered_rules(TASK, plant, exactly=False)
    assert "pickup_ms" not in text and "0.8 s" not in text


def test_reference_passes_every_condition(cache_dir) -> None:
    v = _verify(REFERENCE, cache_dir)
    assert v.reward == 1
    assert [c["success_time_s"] for c in v.result["conditions"]] == [40.0] * 4
    assert v.diagnostics.items == []


def test_reference_keeps_15_percent_checkpoint_slack(cache_dir) -> None:
    """A6/A16: for a run-to-T task the margin is on the checkpoint delay (0.30 s / 1.15)."""
    tight = dataclasses.replace(TASK, judge={"checkpoint_delay_s": 0.30 / 1.15})
    assert _verify(REFERENCE, cache_dir, tight).reward == 1


def test_idle_program_fails_every_condition(idle_run) -> None:
    assert_every_condition_fails(idle_run, 4, "K1 is FALSE at a checkpoint")


def test_blind_replay_of_condition_1_fails_another_condition(recorded_outputs, replay_run) -> None:
    assert recorded_outputs.shape == (4000, 3)
    assert_only_condition_1_passes(replay_run, all_others=False)


MUTANTS = {
    "starts on the START level": ("ELSIF startEdge.Q THEN", "ELSIF START THEN"),
    "no contactor supervision": ("IF NOT OL_OK OR fbCheck.Q THEN", "IF NOT OL_OK THEN"),
    "contactor check too slow": ("PT := T#200ms", "PT := T#500ms"),
    "fault not latched": ("IF NOT OL_OK OR fbCheck.Q THEN\n    fault := TRUE;\nEND_IF;",
                          "fault := NOT OL_OK OR fbCheck.Q;"),
    "run lamp from the coil": ("LAMP_RUN := RUN_FB;", "LAMP_RUN := K1;"),
    "stop ignored": ("IF NOT STOP_NC OR NOT OL_OK OR fault THEN", "IF NOT OL_OK OR fault THEN"),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_one_change_mutants_of_the_reference_fail(name: str, cache_dir) -> None:
    old, new = MUTANTS[name]
    assert old in REFERENCE
    assert _verify(REFERENCE.replace(old, new), cache_dir).reward == 0


def test_plant_follows_the_script_and_the_starter_model(cache_dir) -> None:
    runs = traces(REFERENCE, TASK, cache_dir, range(4))
    i_c2, _ = runs[1]
    ol_ok = i_c2[:, plant.I_OL_OK]
    assert np.all(ol_ok[800:1300] == 0) and ol_ok[799] == 1 and ol_ok[1300] == 1  # trip 8.0-13.0
    i_c3, o_c3 = runs[2]
    stop_nc = i_c3[:, plant.I_STOP_NC]
    assert np.all(stop_nc[500:900] == 0) and stop_nc[900] == 1  # STOP held 5.0-9.0
    k1_on = int(np.flatnonzero(o_c3[:, plant.O_K1])[0])
    fb_on = int(np.flatnonzero(i_c3[:, plant.I_RUN_FB])[0])
    assert (k1_on, fb_on - k1_on) == (1200, 6)  # START at 12.0, pick-up 60 ms
    i_c4, o_c4 = runs[3]
    assert o_c4[699, plant.O_K1] == 1 and i_c4[700, plant.I_RUN_FB] == 0  # drops out at 7.0
    assert np.all(o_c4[720:1000, plant.O_K1] == 0)  # dropped after 200 ms of disagreement


def test_checkpoints_cover_presses_held_releases_and_fault_windows() -> None:
    _, _, _, checkpoints, judge_state = plant.build(TASK)
    c2 = [int(t) for t in checkpoints[1] if t >= 0]
    assert c2 == [230, 830, 1030, 1130, 1330, 1530, 1830, 3330, 3999]
    c3 = [int(t) for t in checkpoints[2] if t >= 0]
    assert 930 in c3 and 530 in c3  # the held STOP: press and release
    assert judge_state["last_tick"].tolist() == [3999] * 4
