"""`plantloop scan`: values at the end of scan N, inputs CSV, --print, --json, --trace, exit codes."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from verifier.cli import app

PROG = """PROGRAM Main
VAR start AT %IX0.0 : BOOL; lamp AT %QX0.1 : BOOL; n : INT; t : TON; d : INT; zero : INT; END_VAR
n := n + 1;
lamp := start;
t(IN := start, PT := T#20ms);
IF n = 5 THEN d := 1 / zero; END_IF;
END_PROGRAM
"""


@pytest.fixture()
def files(tmp_path, monkeypatch):
    monkeypatch.setenv("PLANTLOOP_CACHE_DIR", str(tmp_path / "cache"))
    prog = tmp_path / "p.st"
    prog.write_text(PROG)
    inputs = tmp_path / "in.csv"
    inputs.write_text("scan,%IX0.0\n2,TRUE\n")
    return prog, inputs, tmp_path


def test_json_print_inputs_and_trace(files) -> None:
    prog, inputs, tmp = files
    trace = tmp / "trace.csv"
    res = CliRunner().invoke(app, ["scan", str(prog), "--scans", "4", "--inputs", str(inputs),
                                   "--print", "n,lamp,t", "--json", "--trace", str(trace)])
    assert res.exit_code == 0, res.output
    values = json.loads(res.stdout)
    assert values["n"] == 4 and values["lamp"] is True and values["t.Q"] is True  # IN from scan 2, Q at 20 ms
    assert "d" not in values
    rows = trace.read_text().splitlines()
    assert rows[0].split(",")[:2] == ["scan", "time_ms"] and "n" in rows[0].split(",") and len(rows) == 5


def test_runtime_error_exit_1_and_table(files) -> None:
    prog, _inputs, _tmp = files
    res = CliRunner().invoke(app, ["scan", str(prog), "--scans", "9"])
    assert res.exit_code == 1
    assert "p.st:6:" in res.output and "runtime error" in res.output and "scan 5" in res.output


def test_compile_error_and_usage_errors(files) -> None:
    prog, _inputs, tmp = files
    bad = tmp / "bad.st"
    bad.write_text("PROGRAM P x := 1; END_PROGRAM")
    assert CliRunner().invoke(app, ["scan", str(bad)]).exit_code == 1
    assert CliRunner().invoke(app, ["scan", str(tmp / "missing.st")]).exit_code == 2
    wrong = tmp / "wrong.csv"
    wrong.write_text("scan,%IX9.9\n1,1\n")
    assert CliRunner().invoke(app, ["scan", str(prog), "--inputs", str(wrong)]).exit_code == 2
