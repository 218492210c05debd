"""Result JSON: builder, schema, atomic writes, validated loads."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from verifier.results import (
    SCHEMA_PATH,
    ConditionResult,
    JobError,
    ResultError,
    RuntimeErrorRecord,
    Violation,
    build_result,
    load_result,
    write_result_atomic,
)

SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
SOURCE = b"PROGRAM Main\nVAR x : INT; END_VAR\nx := x + 1;\nEND_PROGRAM\n"


def assert_schema_valid(obj: dict) -> None:
    Draft202012Validator(SCHEMA).validate(obj)


def ok_condition(name: str = "C1", **kw) -> ConditionResult:
    args = {
        "success": True,
        "success_time_s": 12.34,
        "ticks": 1235,
        "parameters": {"pickup_ms": 20, "script": ["START 1.0", "STOP 6.0"]},
    }
    return ConditionResult(name=name, **(args | kw))


def result(**kw) -> dict:
    args = {
        "task_id": "MOT-E01",
        "program_path": "subs/m/MOT-E01/0.st",
        "program_bytes": SOURCE,
        "compile_seconds": 0.8,
        "conditions": [ok_condition("C1"), ok_condition("C2")],
    }
    args.update(kw)
    return build_result(**args)


def test_schema_is_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_passing_result_has_reward_1_and_all_fields() -> None:
    r = result()
    assert_schema_valid(r)
    assert r["reward"] == 1 and r["error"] is None
    assert r["task"] == {"id": "MOT-E01", "suite": "MOT", "level": "E"}
    assert r["program"]["sha256"] == hashlib.sha256(SOURCE).hexdigest()
    assert r["evaluator"]["name"] == "plantloop" and r["schema"] == "plantloop.result/1"
    c = r["conditions"][0]
    assert c["safety"] == {"ok": True, "first_violation": None}
    assert c["runtime_error"] is None and c["ticks"] == 1235


def test_safety_violation_fails_the_reward() -> None:
    v = Violation("S-RESTART", "K1 rose 120 ms after START", 9.12)
    r = result(conditions=[ok_condition("C1"), ok_condition("C2", violation=v)])
    assert_schema_valid(r)
    assert r["reward"] == 0
    assert r["conditions"][1]["safety"]["first_violation"]["code"] == "S-RESTART"


def test_runtime_error_record_follows_st_language_section_12() -> None:
    rt = RuntimeErrorRecord("DIV_ZERO", "integer division by zero", "FB_Pump", 88, 12, 1234, 12330)
    r = result(conditions=[ok_condition("C1", runtime_error=rt)])
    assert_schema_valid(r)
    assert r["reward"] == 0
    assert r["conditions"][0]["runtime_error"] == {
        "kind": "runtime_error",
        "code": "DIV_ZERO",
        "message": "integer division by zero",
        "pou": "FB_Pump",
        "line": 88,
        "column": 12,
        "scan": 1234,
        "time_ms": 12330,
    }


def test_compile_error_gives_reward_0_without_conditions() -> None:
    diag = {"severity": "error", "message": "unknown variable 'y'", "line": 3, "column": 6,
            "file": "0.st"}  # fmt: skip
    r = result(diagnostics=[diag], conditions=[])
    assert_schema_valid(r)
    assert r["compile"]["ok"] is False and r["reward"] == 0


def test_unsuccessful_condition_and_no_conditions_give_reward_0() -> None:
    failed = ConditionResult(name="C1", success=False, ticks=4000)
    assert result(conditions=[failed])["reward"] == 0
    assert result(conditions=[])["reward"] == 0


def test_job_error_record() -> None:
    r = result(conditions=[], error=JobError("timeout", "worker exceeded 120 s", 120.0))
    assert_schema_valid(r)
    assert r["reward"] == 0 and r["error"]["kind"] == "timeout"


def test_write_is_atomic_and_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "m" / "MOT-E01" / "0.json"
    r = result()
    write_result_atomic(path, r)
    assert load_result(path) == r
    assert [p.name for p in path.parent.iterdir()] == ["0.json"]  # no temp file left
    r2 = result(conditions=[ConditionResult(name="C1", success=False, ticks=1)])
    write_result_atomic(path, r2)
    assert load_result(path)["reward"] == 0


def test_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path) -> None:
    path = tmp_path / "0.json"
    write_result_atomic(path, result())
    before = path.read_bytes()
    bad = result(conditions=[ok_condition("C1", parameters={"x": {1, 2}})])  # a set: not JSON
    with pytest.raises(TypeError):
        write_result_atomic(path, bad)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["0.json"]


def test_invalid_result_is_not_written(tmp_path: Path) -> None:
    r = result()
    del r["reward"]
    with pytest.raises(ResultError, match="reward"):
        write_result_atomic(tmp_path / "x.json", r)
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.update(reward=0), "verdicts give 1"),
        (lambda r: r["task"].update(level="H"), "do not match"),
        (lambda r: r["task"].update(id="XYZ-E01"), "task/id"),
        (lambda r: r["program"].update(sha256="abc"), "program/sha256"),
        (lambda r: r["conditions"][0].update(ticks=-1), "conditions/0/ticks"),
        (lambda r: r.update(extra=1), "extra"),
    ],
)
def test_load_rejects_inconsistent_or_invalid_results(tmp_path: Path, mutate, message) -> None:
    r = result()
    mutate(r)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(r))
    with pytest.raises(ResultError, match=message):
        load_result(path)


def test_load_rejects_non_json(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"schema": ')
    with pytest.raises(ResultError, match="not JSON"):
        load_result(path)
    with pytest.raises(ResultError, match="cannot read"):
        load_result(tmp_path / "absent.json")
