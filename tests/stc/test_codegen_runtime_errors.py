"""Runtime errors (§12): code, POU, line, column, scan and time; the scan stops at once and
the snapshot stays the one of the last completed scan. One program, the error chosen by an
input, so a single compile covers every code."""

from __future__ import annotations

import pytest

from stc.compiler import compile_source
from stc.runner import CompiledRunner

ERRORS = """
TYPE T_Small : INT (0..10); END_TYPE
FUNCTION_BLOCK FB_Div
VAR_INPUT d : DINT; END_VAR
VAR_OUTPUT q : DINT; END_VAR
q := 100 / d;
END_FUNCTION_BLOCK
PROGRAM Main
VAR
  sel AT %IW0 : INT;
  zero : DINT;
  a : ARRAY[1..3] OF INT;
  idx : INT := 4;
  small : T_Small;
  big : INT := 11;
  k : INT;
  r : REAL := 1.0E30;
  n : INT := -1;
  x : DINT;
  done : INT;
  fb : FB_Div;
  stp : INT;
END_VAR
done := done + 1;
CASE sel OF
  1: x := 10 / zero;
  2: a[idx] := 1;
  3: small := big;
  4: WHILE TRUE DO k := k + 1; END_WHILE;
  5: FOR k := 1 TO 5 BY stp DO x := 1; END_FOR;
  6: x := MUX(n + 5, 1, 2);
  7: x := SHL(x, n);
  8: x := REAL_TO_DINT(r);
  9: fb(d := 0);
END_CASE;
done := done + 100;
END_PROGRAM
"""

LINES = {1: (26, "DIV_ZERO"), 2: (27, "INDEX_RANGE"), 3: (28, "SUBRANGE"), 4: (29, "WATCHDOG"),
         5: (30, "FOR_STEP_ZERO"), 6: (31, "MUX_RANGE"), 7: (32, "SHIFT_NEG"), 8: (33, "CONVERSION"),
         9: (6, "DIV_ZERO")}


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory):
    result = compile_source(ERRORS, "e.st", cache_dir=tmp_path_factory.mktemp("cache"))
    assert result.program is not None, result.diagnostics.render()
    return result.program


@pytest.mark.parametrize("sel", sorted(LINES))
def test_runtime_error_stops_the_scan(program, sel: int) -> None:
    runner = CompiledRunner(program, watchdog=10_000)
    assert runner.scan() is None and runner.scan() is None
    before = runner.snapshot()
    assert before["done"] == 202
    runner.set_input("%IW0", sel)
    record = runner.scan()
    line, code = LINES[sel]
    assert record is not None and record.code == code
    assert record.line == line and record.scan == 3 and record.time_ms == 20
    assert record.pou == ("FB_Div" if sel == 9 else "Main")
    assert runner.snapshot() == before  # outputs of the failing scan are not published
    assert runner.scan() == record  # the run is over
    assert "runtime error" in record.render("e.st")
