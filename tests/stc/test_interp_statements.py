"""Interpreter: statements (§7) and runtime errors (§12)."""

from __future__ import annotations

import pytest

from stc.interp.run import interpret


def program(decls: str, body: str) -> str:
    return f"PROGRAM Main\nVAR\n{decls}\nEND_VAR\n{body}\nEND_PROGRAM\n"


def run1(decls: str, body: str, scans: int = 1) -> dict:
    trace = interpret(program(decls, body), scans)
    assert trace.error is None, trace.error
    return trace.last


def test_for_leaves_the_first_failing_value() -> None:
    s = run1("i, j, n, k : INT;", "FOR i := 1 TO 10 DO n := n + 1; END_FOR; FOR j := 10 TO 1 BY -3 DO END_FOR;"
             "FOR k := 5 TO 1 DO n := 100; END_FOR;")
    assert (s["i"], s["j"], s["n"], s["k"]) == (11, -2, 10, 5)


def test_for_bounds_are_re_evaluated_before_every_test() -> None:
    s = run1("i, hi, n : INT;", "hi := 10; FOR i := 1 TO hi DO hi := 3; n := n + 1; END_FOR;")
    assert (s["n"], s["i"]) == (3, 4)


def test_exit_and_continue() -> None:
    s = run1("i, odd, w, r : INT;",
             "FOR i := 1 TO 10 DO IF i MOD 2 = 0 THEN CONTINUE; END_IF; odd := odd + i;"
             " IF i = 7 THEN EXIT; END_IF; END_FOR;"
             "WHILE TRUE DO w := w + 1; IF w >= 4 THEN EXIT; END_IF; END_WHILE;"
             "REPEAT r := r + 1; IF r < 3 THEN CONTINUE; END_IF; UNTIL r >= 5 END_REPEAT;")
    assert (s["i"], s["odd"], s["w"], s["r"]) == (7, 1 + 3 + 5 + 7, 4, 5)


def test_repeat_runs_the_body_at_least_once() -> None:
    assert run1("n : INT;", "REPEAT n := n + 1; UNTIL TRUE END_REPEAT;")["n"] == 1


def test_case_with_lists_ranges_and_else() -> None:
    body = ("CASE x OF 1, 3: r := 10; 5..7: r := 20; ELSE r := 99; END_CASE;")
    got = [run1(f"x : INT := {x}; r : INT;", body)["r"] for x in (1, 3, 5, 6, 7, 8, 2)]
    assert got == [10, 10, 20, 20, 20, 99, 99]


def test_case_on_enumeration() -> None:
    src = ("TYPE E_State : (IDLE, RUN, FAULT := 10, DONE); END_TYPE\nPROGRAM Main\nVAR s : E_State := FAULT; "
           "r : INT; END_VAR\nCASE s OF IDLE: r := 1; E_State.FAULT, DONE: r := s; END_CASE;\nEND_PROGRAM\n")
    assert interpret(src, 1).last["r"] == 10


def test_return_in_a_program_ends_its_body_for_this_scan() -> None:
    s = run1("a, b : INT;", "a := a + 1; IF a > 0 THEN RETURN; END_IF; b := 1;", scans=3)
    assert (s["a"], s["b"]) == (3, 0)


def test_sint_for_to_127_trips_the_watchdog() -> None:
    src = program("s : SINT; n : DINT;", "n := n + 1;\nFOR s := 0 TO 127 DO\nEND_FOR;")
    trace = interpret(src, 3, watchdog_limit=1000)
    err = trace.error
    assert err is not None
    assert (err.code, err.pou, err.line, err.column, err.scan, err.time_ms) == ("WATCHDOG", "Main", 6, 1, 1, 0)


@pytest.mark.slow
def test_watchdog_default_is_one_million_back_edges() -> None:
    ok = interpret(program("i : DINT;", "FOR i := 1 TO 1000000 DO END_FOR;"), 1)
    over = interpret(program("i : DINT;", "FOR i := 1 TO 1000001 DO END_FOR;"), 1)
    assert ok.error is None and over.error is not None and over.error.code == "WATCHDOG"


def test_for_by_zero_is_a_runtime_error() -> None:
    trace = interpret(program("i, z : INT;", "FOR i := 1 TO 5 BY z DO END_FOR;"), 1)
    assert trace.error is not None and trace.error.code == "FOR_STEP_ZERO"


def test_runtime_error_record_and_snapshot_of_last_completed_scan() -> None:
    src = program("n : INT; d : INT := 3; q : INT;", "n := n + 1;\nd := d - 1;\nq := 10 / d;")
    trace = interpret(src, 10)
    err = trace.error
    assert err is not None
    assert (err.code, err.pou, err.line, err.scan, err.time_ms) == ("DIV_ZERO", "Main", 7, 3, 20)
    assert trace.last == {"n": 2, "d": 1, "q": 10}
    assert err.to_json()["kind"] == "runtime_error"


def test_subrange_store_violation() -> None:
    trace = interpret(program("p : INT (0..100); i : INT;", "i := i + 60;\np := i;"), 3)
    assert trace.error is not None and trace.error.code == "SUBRANGE" and trace.error.scan == 2
