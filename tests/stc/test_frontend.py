"""The public front end: check_source/check_file, the JSON form, the CLI and the speed budget."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from stc.frontend import CheckResult, check_file, check_source
from verifier.cli import app

GOOD = "PROGRAM Main\nVAR x AT %QX0.0 : BOOL; n : INT; END_VAR\nn := n + 1;\nx := n > 3;\nEND_PROGRAM\n"
BAD = "PROGRAM Main\nVAR n : INT; END_VAR\nn := 1.5;\nm := 2;\nEND_PROGRAM\n"


REALISTIC = """(* Tank filling station: typical generated program *)
TYPE E_Step : (STEP_IDLE, STEP_FILL, STEP_HEAT, STEP_DRAIN, STEP_FAULT); END_TYPE
TYPE ST_Tank : STRUCT
    level : REAL;      // %
    temp : REAL := 20.0;
    valveOpen : BOOL;
END_STRUCT; END_TYPE

FUNCTION_BLOCK FB_Hysteresis
VAR_INPUT
    pv : REAL;
    lo : REAL := 40.0;
    hi : REAL := 60.0;
END_VAR
VAR_OUTPUT
    q : BOOL;
END_VAR
IF pv < lo THEN
    q := TRUE;
ELSIF pv > hi THEN
    q := FALSE;
END_IF;
END_FUNCTION_BLOCK

FUNCTION F_Scale : REAL
VAR_INPUT
    raw : INT;
    lo, hi : REAL;
END_VAR
F_Scale := lo + (hi - lo) * INT_TO_REAL(raw) / 27648.0;
END_FUNCTION

PROGRAM Main
VAR
    bStart AT %IX0.0 : BOOL;
    bStop AT %IX0.1 : BOOL;
    iLevelRaw AT %IW2 : INT;
    iTempRaw AT %IW4 : INT;
    bInlet AT %QX0.0 : BOOL;
    bHeater AT %QX0.1 : BOOL;
    bOutlet AT %QX0.2 : BOOL;
    wStatus AT %QW2 : WORD;
    eStep : E_Step := STEP_IDLE;
    tank : ST_Tank;
    heat : FB_Hysteresis := (lo := 55.0, hi := 65.0);
    tFill : TON;
    tDrain : TON := (PT := T#30s);
    rtStart : R_TRIG;
    history : ARRAY[0..9] OF REAL;
    idx : INT;
    i : INT;
    rSum : REAL;
    nCycles : UDINT;
END_VAR
VAR CONSTANT
    LEVEL_FULL : REAL := 90.0;
    LEVEL_EMPTY : REAL := 5.0;
END_VAR

tank.level := F_Scale(iLevelRaw, 0.0, 100.0);
tank.temp := F_Scale(raw := iTempRaw, lo := 0.0, hi := 150.0);
rtStart(CLK := bStart);

CASE eStep OF
    STEP_IDLE:
        IF rtStart.Q AND NOT bStop THEN
            eStep := STEP_FILL;
        END_IF;
    STEP_FILL:
        tFill(IN := TRUE, PT := T#2m);
        IF tank.level >= LEVEL_FULL THEN
            tFill(IN := FALSE);
            eStep := STEP_HEAT;
        ELSIF tFill.Q THEN
            eStep := STEP_FAULT;
        END_IF;
    STEP_HEAT:
        heat(pv := tank.temp);
        IF NOT heat.q AND tank.temp > 60.0 THEN
            eStep := E_Step.STEP_DRAIN;
        END_IF;
    STEP_DRAIN:
        tDrain(IN := TRUE);
        IF tank.level <= LEVEL_EMPTY OR tDrain.Q THEN
            tDrain(IN := FALSE);
            nCycles := nCycles + 1;
            eStep := STEP_IDLE;
        END_IF;
    STEP_FAULT:
        IF bStop THEN eStep := STEP_IDLE; END_IF;
END_CASE;

history[idx] := tank.level;
idx := (idx + 1) MOD 10;
rSum := 0.0;
FOR i := 0 TO 9 DO
    rSum := rSum + history[i];
END_FOR;

bInlet := eStep = STEP_FILL;
bHeater := eStep = STEP_HEAT AND heat.q;
bOutlet := eStep = E_Step#STEP_DRAIN;
wStatus := INT_TO_WORD(eStep);
wStatus.15 := eStep = STEP_FAULT;
IF bStop THEN
    eStep := STEP_IDLE;
    RETURN;
END_IF;
END_PROGRAM
"""


def test_realistic_generated_program_checks_clean() -> None:
    result = check_source(REALISTIC, "tank.st")
    assert result.diagnostics.items == []
    assert [(p.address, p.name, p.direction) for p in result.io] == [
        ("%IX0.0", "bStart", "input"), ("%IX0.1", "bStop", "input"), ("%IW2", "iLevelRaw", "input"),
        ("%IW4", "iTempRaw", "input"), ("%QX0.0", "bInlet", "output"), ("%QX0.1", "bHeater", "output"),
        ("%QX0.2", "bOutlet", "output"), ("%QW2", "wStatus", "output")]
    main = result.model.pous["MAIN"]
    assert main.variables["HEAT"].init == {"pv": np.float32(0.0), "lo": np.float32(55.0),
                                           "hi": np.float32(65.0), "q": False}
    assert main.variables["ESTEP"].type.values["STEP_FAULT"] == 4


def test_check_source_good_program() -> None:
    result = check_source(GOOD, "good.st")
    assert isinstance(result, CheckResult)
    assert result.ok and result.model is not None and result.ast is not None
    assert [p.address for p in result.io] == ["%QX0.0"]


def test_check_source_collects_all_errors() -> None:
    result = check_source(BAD, "bad.st")
    assert [d.header() for d in result.diagnostics.sorted()] == [
        "bad.st:3:6: error: implicit conversion LREAL -> INT is not allowed; use REAL_TO_INT (rounds) or TRUNC (truncates)",
        "bad.st:4:1: error: unknown identifier 'm'",
    ]
    assert result.model is None and not result.to_json()["ok"]


def test_syntax_errors_give_no_ast() -> None:
    result = check_source("PROGRAM Main\nx := ;\n")
    assert result.ast is None and result.model is None and result.diagnostics.has_errors


def test_check_file_reads_latin1_and_bom(tmp_path: Path) -> None:
    p = tmp_path / "p.st"
    p.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    assert check_file(str(p)).ok
    q = tmp_path / "q.st"
    q.write_bytes(b"PROGRAM Main\nVAR s : STRING := '\xe9'; END_VAR\nEND_PROGRAM\n")
    assert check_file(str(q)).ok


FRAGMENTS = ["PROGRAM Main", "VAR", "END_VAR", "x : INT;", "x := x + 1;", "IF x THEN", "END_IF;", "FOR i := 1 TO",
             "CASE x OF 1:", "END_CASE;", "t(IN := TRUE);", "t : TON;", "a : ARRAY[1..x] OF INT;", "END_PROGRAM",
             "FUNCTION F : INT", "F := F(1);", "END_FUNCTION", "%IX0.9 := 1;", "TYPE E : (A, A); END_TYPE", "(x := 1)"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12))
def test_check_source_never_raises(parts: list[str]) -> None:
    result = check_source("\n".join(parts))
    assert isinstance(result, CheckResult)
    assert not any("internal compiler error" in d.message for d in result.diagnostics.items)


def test_cli_check_exit_codes(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.st", tmp_path / "bad.st"
    good.write_text(GOOD)
    bad.write_text(BAD)
    runner = CliRunner()
    ok = runner.invoke(app, ["check", str(good), "--json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["io"][0]["address"] == "%QX0.0"
    failed = runner.invoke(app, ["check", str(bad)])
    assert failed.exit_code == 1
    assert "unknown identifier 'm'" in failed.stdout


@pytest.mark.slow
def test_speed_budget_for_a_1000_line_program() -> None:
    """A regression tripwire for the 0.5 s budget (parse + check of 1,000 lines).

    The bound has 4x headroom because CI machines are shared; the budget itself is
    reported by `benchmarks/check_speed.py`."""
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, str(root / "benchmarks" / "check_speed.py"), "--json", "--runs", "3"],
                         capture_output=True, text=True, check=True, cwd=root)
    report = json.loads(out.stdout)
    assert report["lines"] >= 900
    assert report["parse_check_median_s"] < 2.0
    assert report["sema_median_s"] < 0.4


def test_long_operator_chains_do_not_exhaust_the_stack() -> None:
    """Operator chains are left-deep trees; typing them must not recurse once per operator."""
    text = "PROGRAM P\nVAR x : DINT; a : INT; END_VAR\nx := " + " + ".join(["a"] * 5000) + ";\nEND_PROGRAM\n"
    result = check_source(text)
    assert result.diagnostics.items == []
    assert result.ast.pous[0].body[0].value.ty.name == "INT"
