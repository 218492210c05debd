"""Condition files: round trip, rejection of malformed files, and replay through
`plantloop verify --condition-file` with the result marking where the condition came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from plants.tasks.mot_e01 import TASK as MOT_E01
from plants.tasks.mot_e02 import TASK
from plants.tasks.spec import Condition, Event
from verifier.cli import app
from verifier.condition_file import (
    ConditionFileError,
    load_condition_file,
    task_with_file_conditions,
    write_condition_file,
)
from verifier.results import validate_result

REFERENCE = Path("plants/tasks/mot_e02/reference.st")
CONDITION = Condition(
    "K1", {"x0_mm": 300.0, "v_mm_s": 200.0, "tau_s": 0.1, "pickup_ms": 40.0, "final": "END_R"},
    (Event(1.0, "press", "FWD", 0.5), Event(4.0, "trip", "overload", 2.5, (("note", "x"),)),
     Event(9.0, "press", "FWD")),
    note="a trip during the move", time_limit_s=30.0,
)


def test_round_trip_keeps_every_field(tmp_path) -> None:
    path = tmp_path / "c.json"
    write_condition_file(path, TASK.id, [CONDITION, Condition("K2", {"a": 1}, ())])
    task_id, conditions = load_condition_file(path)
    assert task_id == "MOT-E02"
    assert conditions[0] == CONDITION
    assert conditions[1] == Condition("K2", {"a": 1}, ())


@pytest.mark.parametrize("text, message", [
    ("{", "cannot read"),
    ('{"format": "plantloop.condition/1", "task": "MOT-E02", "conditions": []}', "conditions"),
    ('{"format": "plantloop.condition/1", "task": "MOT-E02", "conditions": [{"name": "a", "params": {}, '
     '"script": [{"t": -1, "kind": "press"}]}]}', "script/0/t"),
    ('{"format": "plantloop.condition/1", "task": "MOT-E02", "conditions": [{"name": "a", "params": {}, '
     '"script": [], "code": "import os"}]}', "Additional properties"),
    ('{"format": "plantloop.condition/1", "task": "MOT-E02", "conditions": [{"name": "a", "params": {}, '
     '"script": []}, {"name": "a", "params": {}, "script": []}]}', "not unique"),
])
def test_malformed_files_are_rejected_with_a_reason(tmp_path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ConditionFileError, match=message):
        load_condition_file(path)


def test_conditions_must_fit_the_task_and_its_plant(tmp_path) -> None:
    path = tmp_path / "c.json"
    write_condition_file(path, TASK.id, [CONDITION])
    with pytest.raises(ConditionFileError, match="not MOT-E01"):
        task_with_file_conditions(MOT_E01, path)
    write_condition_file(path, TASK.id, [Condition("K", {"x0_mm": 300.0}, ())])
    with pytest.raises(ConditionFileError, match="do not fit the plant"):
        task_with_file_conditions(TASK, path)
    write_condition_file(path, TASK.id, [CONDITION])
    assert task_with_file_conditions(TASK, path).conditions == (CONDITION,)


def test_verify_replays_the_file_and_says_so(tmp_path) -> None:
    path = tmp_path / "c.json"
    write_condition_file(path, TASK.id, [CONDITION])
    result = CliRunner().invoke(app, ["verify", str(REFERENCE), "--task", "MOT-E02",
                                      "--condition-file", str(path), "--json", "-"])
    assert result.exit_code == 0, result.output
    obj = json.loads(result.stdout)
    validate_result(obj)
    assert [c["name"] for c in obj["conditions"]] == ["K1"]
    assert obj["conditions"][0]["parameters"]["condition_file"] == str(path)
    assert obj["conditions"][0]["success_time_s"] == 30.0


def test_verify_with_a_bad_condition_file_is_a_usage_error(tmp_path) -> None:
    path = tmp_path / "c.json"
    path.write_text("[]")
    result = CliRunner().invoke(app, ["verify", str(REFERENCE), "--task", "MOT-E02", "--condition-file", str(path)])
    assert result.exit_code == 2
    assert "not a condition file" in " ".join(result.output.split())
