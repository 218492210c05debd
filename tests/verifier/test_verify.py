"""`verify_source` and the `verify`/`tasks`/`show` commands: results valid against the schema,
compile and binding errors, runtime errors per condition, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from plants.tasks.registry import get_task
from tests.verifier.echo_plant import TASK
from verifier.cli import app
from verifier.results import load_result, validate_result
from verifier.verify import verify_source

REFERENCE = Path(__file__).resolve().parents[2] / "plants" / "tasks" / "mot_e01" / "reference.st"


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "plantloop-cache"
    path.mkdir(exist_ok=True)
    return path


def _program(decls: str, body: str) -> str:
    return f"PROGRAM P\nVAR\n{decls}\nEND_VAR\n{body}\nEND_PROGRAM\n"


def test_passing_program_gives_reward_1_and_a_valid_result(cache_dir) -> None:
    v = verify_source(_program("a AT %IW140 : INT; y AT %QW140 : INT;", "y := a;"), TASK, "p.st",
                      cache_dir=cache_dir)
    validate_result(v.result)
    assert v.reward == 1 and [r.reason for r in v.conditions] == [None, None]
    c1 = v.result["conditions"][0]
    assert c1["success_time_s"] == 0.11 and c1["ticks"] == 11 and c1["parameters"]["a"] == -5
    assert v.result["task"] == {"id": "MOT-E98", "suite": "MOT", "level": "E"}


def test_compile_error_gives_reward_0_with_diagnostics_and_no_conditions(cache_dir) -> None:
    v = verify_source(_program("y AT %QW140 : INT;", "y := nothing;"), TASK, "bad.st", cache_dir=cache_dir)
    validate_result(v.result)
    assert v.reward == 0 and v.result["conditions"] == [] and not v.result["compile"]["ok"]
    (d,) = v.result["compile"]["diagnostics"]
    assert d["severity"] == "error" and d["file"] == "bad.st" and d["line"] == 5


def test_binding_error_gives_reward_0(cache_dir) -> None:
    v = verify_source(_program("y AT %I* : INT;", ""), TASK, "b.st", cache_dir=cache_dir)
    validate_result(v.result)
    assert v.reward == 0 and v.result["conditions"] == []
    assert "declare it AT %Q*" in v.result["compile"]["diagnostics"][0]["message"]


def test_runtime_error_is_reported_with_condition_scan_and_time(cache_dir) -> None:
    v = verify_source(_program("s AT %IX0.0 : BOOL; n, z : INT;", "IF s THEN n := 1 / z; END_IF;"),
                      TASK, "rt.st", cache_dir=cache_dir)
    validate_result(v.result)
    c1, c2 = v.result["conditions"]
    assert c1["runtime_error"] == {"kind": "runtime_error", "code": "DIV_ZERO", "message": c1["runtime_error"]["message"],
                                   "pou": "P", "line": 5, "column": c1["runtime_error"]["column"],
                                   "scan": 31, "time_ms": 300}
    assert c2["runtime_error"] is None and c2["ticks"] == 80  # the other condition still ran
    assert v.conditions[0].reason.startswith("runtime error DIV_ZERO")
    assert "scan 31, t = 0.30 s" in v.conditions[0].reason


def test_violation_and_failure_reason_reach_the_result(cache_dir) -> None:
    v = verify_source(_program("q AT %QX0.0 : BOOL; y AT %QW140 : INT;", "q := TRUE; y := 99;"),
                      TASK, "v.st", cache_dir=cache_dir)
    validate_result(v.result)
    c1 = v.result["conditions"][0]
    assert c1["safety"]["first_violation"] == {"code": "S-TEST", "message": "S-TEST", "time_s": 0.0}
    assert v.conditions[0].reason == "the program gave up (Y = 99) (t = 0.00 s); S-TEST at t = 0.00 s"


runner = CliRunner()


@pytest.mark.slow
def test_verify_command_exit_codes_and_json(tmp_path, cache_dir, monkeypatch) -> None:
    monkeypatch.setenv("PLANTLOOP_CACHE_DIR", str(cache_dir))
    out = tmp_path / "r.json"
    res = runner.invoke(app, ["verify", str(REFERENCE), "--task", "mot-e01", "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "reward: 1" in res.output and "C4" in res.output
    assert load_result(out)["reward"] == 1
    idle = tmp_path / "idle.st"
    idle.write_text("PROGRAM P\nVAR\n  k AT %QX0.0 : BOOL;\nEND_VAR\nEND_PROGRAM\n")
    res = runner.invoke(app, ["verify", str(idle), "--task", "MOT-E01"])
    assert res.exit_code == 1 and "reward: 0" in res.output
    assert runner.invoke(app, ["verify", str(tmp_path / "missing.st"), "--task", "MOT-E01"]).exit_code == 2
    assert runner.invoke(app, ["verify", str(idle), "--task", "MOT-E77"]).exit_code == 2
    assert runner.invoke(app, ["verify", str(idle)]).exit_code == 2


def test_tasks_and_show_commands() -> None:
    res = runner.invoke(app, ["tasks", "--json", "--suite", "MOT", "--level", "easy"])
    assert res.exit_code == 0
    rows = {r["id"]: r for r in json.loads(res.stdout)}
    assert rows["MOT-E01"] == {"id": "MOT-E01", "suite": "MOT", "level": "easy",
                               "title": get_task("MOT-E01").title, "conditions": 4}
    res = runner.invoke(app, ["tasks", "--json", "--suite", "MAT"])
    assert "MOT-E01" not in res.stdout
    assert runner.invoke(app, ["tasks", "--level", "extreme"]).exit_code == 2
    res = runner.invoke(app, ["show", "mot-e01"])
    assert res.exit_code == 0 and res.stdout.startswith("# MOT-E01 · ") and "S-RESTART" in res.stdout
    res = runner.invoke(app, ["show", "MOT-E01", "--reference"])
    assert res.exit_code == 0 and res.stdout == REFERENCE.read_text()
    assert runner.invoke(app, ["show", "MOT-E77"]).exit_code == 2
