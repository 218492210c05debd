"""Idle and blind-replay baseline programs, generated from a task and a recorded output image."""

from __future__ import annotations

import numpy as np
import pytest

from tests.verifier.echo_plant import TASK
from verifier.baselines import idle_program, record_outputs, replay_program
from verifier.verify import verify_source

ECHO = "PROGRAM P\nVAR\n a AT %IW140 : INT; y AT %QW140 : INT;\nEND_VAR\ny := a;\nEND_PROGRAM\n"


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "plantloop-cache"
    path.mkdir(exist_ok=True)
    return path


def test_idle_program_declares_the_whole_map_and_writes_nothing(cache_dir) -> None:
    text = idle_program(TASK)
    for s in TASK.io:
        assert f"AT {s.address} : {s.type};" in text
    v = verify_source(text, TASK, "idle.st", cache_dir=cache_dir)
    assert v.diagnostics.items == [] and v.reward == 0
    assert [c.ticks for c in v.conditions] == [100, 80]  # ran to the time limits


def test_replay_reproduces_the_recorded_condition_and_nothing_else(cache_dir) -> None:
    recorded = record_outputs(TASK, ECHO, 0, cache_dir=cache_dir)
    assert recorded.shape == (11, 2) and np.all(recorded[:, 0] == -5)
    text = replay_program(TASK, recorded)
    assert "ARRAY[1..1] OF INT := [-5]" in text and "io_Q" not in text.split("END_VAR")[-1]
    v = verify_source(text, TASK, "replay.st", cache_dir=cache_dir)
    assert [c.success for c in v.conditions] == [True, False]


def test_replay_stores_only_changes_and_breaks_long_arrays(cache_dir) -> None:
    outputs = np.zeros((40, 2))
    outputs[:, 0] = np.arange(40) - 20  # a change every scan
    outputs[5:9, 1] = 1.0
    text = replay_program(TASK, outputs)
    assert "val0 : ARRAY[1..40] OF INT := [-20, -19," in text  # every scan differs from the last
    assert "-5,\n        -4," in text  # 16 values per line
    assert "at1 : ARRAY[1..2] OF DINT := [6, 10]" in text
    v = verify_source(text, TASK, "r.st", cache_dir=cache_dir)
    assert not v.diagnostics.has_errors, v.diagnostics.render(text)
    with pytest.raises(ValueError):
        replay_program(TASK, np.zeros((3, 5)))
