"""Compiled statements (§7): FOR expansion, loops, EXIT/CONTINUE/RETURN, CASE, IF, AND_THEN."""

from __future__ import annotations

import pytest

from stc.compiler import compile_source
from stc.runner import CompiledRunner

CONTROL = """
TYPE E_State : (IDLE, RUN, FAULT := 10, DONE); END_TYPE
PROGRAM Main
VAR
  i, j, k, n, sum_c, w, rr, cs1, cs2, cs3, cs4, nested : INT;
  ex : INT;
  a : ARRAY[1..10] OF INT := [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  found : BOOL;
  guard : BOOL;
  st : E_State := FAULT;
  hit : INT;
  unsafe_i : INT := 11;
  endv : INT := 3;
  runs : INT;
  after_return : INT;
END_VAR
FOR i := 1 TO 10 DO n := n + 1; END_FOR;
FOR j := 10 TO 1 BY -3 DO ; END_FOR;
FOR ex := 1 TO 10 DO
  IF ex = 4 THEN EXIT; END_IF;
END_FOR;
FOR w := 1 TO 6 DO
  IF (w MOD 2) = 0 THEN CONTINUE; END_IF;
  sum_c := sum_c + w;
END_FOR;
FOR i := 1 TO endv DO endv := 5; runs := runs + 1; END_FOR;
WHILE rr < 5 DO rr := rr + 2; END_WHILE;
REPEAT nested := nested + 1; UNTIL nested >= 3 END_REPEAT;
CASE 6 OF 1, 3: cs1 := 1; 5..7: cs1 := 2; ELSE cs1 := 3; END_CASE;
CASE 99 OF 1: cs2 := 1; ELSE cs2 := 9; END_CASE;
CASE st OF IDLE: cs3 := 1; FAULT: cs3 := 10; END_CASE;
CASE 4 OF 1: cs4 := 1; END_CASE;
guard := (unsafe_i <= 10) AND_THEN (a[unsafe_i] > 0);
IF hit = 1 THEN hit := 10; ELSIF hit = 0 THEN hit := 20; ELSE hit := 30; END_IF;
FOR i := 1 TO 3 DO
  FOR k := 1 TO 3 DO
    IF (i = 2) AND (k = 2) THEN RETURN; END_IF;
    after_return := after_return + 1;
  END_FOR;
END_FOR;
after_return := 1000;
END_PROGRAM
"""


@pytest.fixture(scope="module")
def snap(tmp_path_factory: pytest.TempPathFactory) -> dict:
    result = compile_source(CONTROL, "t.st", cache_dir=tmp_path_factory.mktemp("cache"))
    assert result.program is not None, result.diagnostics.render()
    runner = CompiledRunner(result.program)
    assert runner.scan() is None
    return runner.snapshot()


def test_for_leaves_first_failing_value(snap: dict) -> None:
    assert snap["n"] == 10
    assert snap["j"] == -2  # §7: FOR j := 10 TO 1 BY -3 leaves j = -2
    assert snap["ex"] == 4 and snap["i"] == 2 and snap["k"] == 2  # EXIT keeps the value; RETURN left i = 2, k = 2 (inner loop)


def test_continue_runs_the_increment(snap: dict) -> None:
    assert snap["sum_c"] == 1 + 3 + 5


def test_for_bound_reevaluated(snap: dict) -> None:
    assert snap["runs"] == 5  # end re-evaluated before every test (D6)


def test_while_repeat_case_if(snap: dict) -> None:
    assert snap["rr"] == 6 and snap["nested"] == 3
    assert (snap["cs1"], snap["cs2"], snap["cs3"], snap["cs4"]) == (2, 9, 10, 0)
    assert snap["st"] == 10
    assert snap["hit"] == 20


def test_and_then_short_circuits(snap: dict) -> None:
    assert snap["guard"] is False  # a[11] never evaluated: no INDEX_RANGE


def test_return_leaves_the_program_body(snap: dict) -> None:
    assert snap["after_return"] == 4  # (1,1),(1,2),(1,3),(2,1), then RETURN
