"""Interpreter: expressions and standard functions, against values worked out from ST_LANGUAGE.md."""

from __future__ import annotations

import math

import numpy as np
import pytest

from stc.interp.run import interpret


def run1(decls: str, body: str, scans: int = 1) -> dict:
    trace = interpret(f"PROGRAM Main\nVAR\n{decls}\nEND_VAR\n{body}\nEND_PROGRAM\n", scans)
    assert trace.error is None, trace.error
    return trace.last


def f32(x: float) -> float:
    return float(np.float32(x))


def test_integer_intermediates_are_exact_and_wrap_on_store() -> None:
    s = run1("i : INT := 32767; a : INT; d : DINT; b : BOOL; u : UINT; w : INT;",
             "a := (i + 1) / 2; d := i + 1; b := i + 1 > i; u := 0; u := u - 1; w := i + 1;")
    assert (s["a"], s["d"], s["b"], s["u"], s["w"]) == (16384, 32768, True, 65535, -32768)


def test_truncating_division_and_mod() -> None:
    s = run1("a, b, c, d, e : DINT; m : DINT := 7;",
             "a := -m / 2; b := m / -2; c := -m MOD 3; d := m MOD -3; e := -7 MOD 3;")
    assert (s["a"], s["b"], s["c"], s["d"], s["e"]) == (-3, -3, -1, 1, -1)


def test_real_is_rounded_to_binary32_after_every_operation() -> None:
    s = run1("r : REAL := 0.1; x : REAL; l : LREAL; big : REAL := 16777216.0;",
             "x := r * 3.0; l := r; big := big + 1.0;")
    assert s["x"] == f32(f32(0.1) * f32(3.0))
    assert s["l"] == f32(0.1)  # REAL -> LREAL keeps the binary32 value exactly
    assert s["big"] == 16777216.0  # 2^24 + 1 is not representable in binary32


def test_power_binds_looser_than_unary_minus_and_is_left_associative() -> None:
    s = run1("x : LREAL := 3.0; a, b : LREAL;", "a := -x ** 2.0; b := 2.0 ** 3.0 ** 2.0;")
    assert (s["a"], s["b"]) == (9.0, 64.0)


def test_bitwise_not_keeps_the_operand_width_and_not_binds_tighter_than_compare() -> None:
    s = run1("b : BYTE := 16#0F; n : BYTE; i : INT := 3; c : BOOL := TRUE;", "n := NOT b; c := NOT i > 5;")
    assert (s["n"], s["c"]) == (0xF0, False)


def test_comparison_by_mathematical_value() -> None:
    s = run1("u : UINT := 65535; i : INT := -1; c : BOOL;", "c := u > i;")
    assert s["c"] is True


def test_and_evaluates_both_sides_but_and_then_short_circuits() -> None:
    src = ("PROGRAM Main\nVAR a : ARRAY[1..10] OF INT; i : INT := 11; c : BOOL; END_VAR\n"
           "c := (i <= 10) AND_THEN (a[i] > 0);\nc := (i <= 10) AND (a[i] > 0);\nEND_PROGRAM\n")
    trace = interpret(src, 1)
    assert trace.error is not None
    assert (trace.error.code, trace.error.line) == ("INDEX_RANGE", 4)


def test_bit_access_read_and_write() -> None:
    s = run1("w : WORD := 16#0001; b0, b1 : BOOL; i : INT;",
             "w.15 := TRUE; w.0 := FALSE; b0 := w.15; b1 := w.0; i.15 := TRUE;")
    assert (s["w"], s["b0"], s["b1"], s["i"]) == (0x8000, True, False, -32768)


def test_shifts_and_rotations_use_the_type_width() -> None:
    s = run1("a, b, c : WORD; d : DWORD; e : BYTE; f : INT;",
             "a := SHL(WORD#16#8001, 1); b := ROL(WORD#16#8001, 1); d := SHL(DWORD#16#8001, 1);"
             "e := ROR(BYTE#16#01, 1); f := SHL(INT#16#4000, 1); c := SHR(WORD#16#8000, 20);")
    assert (s["a"], s["b"], s["d"], s["e"], s["f"], s["c"]) == (0x0002, 0x0003, 0x10002, 0x80, -32768, 0)


@pytest.mark.parametrize(("value", "expected"), [(2.5, 2), (3.5, 4), (-2.5, -2), (0.5, 0), (1.4, 1), (-1.5, -2)])
def test_real_to_int_rounds_ties_to_even(value: float, expected: int) -> None:
    s = run1(f"r : REAL := {value}; i : INT;", "i := REAL_TO_INT(r);")
    assert s["i"] == expected


def test_conversion_examples() -> None:
    s = run1("a, b : INT; c : UINT; d : DINT; t : TIME; x : DINT; tr : DINT; r : REAL := -2.7;",
             "a := DINT_TO_INT(70000); b := WORD_TO_INT(16#FFFF); c := INT_TO_UINT(-1);"
             "d := TIME_TO_DINT(T#1.5s); t := DINT_TO_TIME(250); tr := TRUNC(r); x := TIME_TO_DINT(T#10s / 3);")
    assert (s["a"], s["b"], s["c"], s["d"], s["t"], s["tr"], s["x"]) == (4464, -1, 65535, 1500, 250, -2, 3333)


def test_out_of_range_real_to_int_is_a_conversion_error() -> None:
    trace = interpret("PROGRAM Main\nVAR r : REAL := 1.0E20; i : INT; END_VAR\ni := REAL_TO_INT(r);\nEND_PROGRAM\n", 3)
    assert trace.error is not None and trace.error.code == "CONVERSION" and trace.snapshots == []


def test_string_function_examples() -> None:
    s = run1("a, b, c, d, e, f : STRING; n, m : INT; short : STRING(3);",
             "a := MID('ASTRING', 3, 2); b := INSERT('ABC', 'XY', 2); c := DELETE('ABXYC', 2, 3);"
             "d := REPLACE('ABCDE', 'X', 2, 3); n := FIND('ABCBC', 'BC'); e := CONCAT('ab', 'cd', 'e');"
             "f := LEFT('hello', 2); m := LEN(e); short := 'abcdef';")
    assert (s["a"], s["b"], s["c"], s["d"], s["n"]) == ("STR", "ABXYC", "ABC", "ABXE", 2)
    assert (s["e"], s["f"], s["m"], s["short"]) == ("abcde", "he", 5, "abc")


def test_selection_functions() -> None:
    s = run1("a, b, c, d : INT; k : INT := 2;",
             "a := LIMIT(0, 150, 100); b := MUX(k, 10, 20, 30); c := SEL(TRUE, 1, 2); d := MAX(3, 9, -4);")
    assert (s["a"], s["b"], s["c"], s["d"]) == (100, 30, 2, 9)


def test_mux_out_of_range_and_real_division_by_zero_are_runtime_errors() -> None:
    t1 = interpret("PROGRAM Main\nVAR k : INT := 3; a : INT; END_VAR\na := MUX(k, 1, 2);\nEND_PROGRAM\n", 1)
    t2 = interpret("PROGRAM Main\nVAR z, r : REAL; END_VAR\nr := 1.0 / z;\nEND_PROGRAM\n", 1)
    assert t1.error is not None and t1.error.code == "MUX_RANGE"
    assert t2.error is not None and t2.error.code == "DIV_ZERO"


def test_time_arithmetic() -> None:
    s = run1("a, b, c : TIME; d : TOD := TOD#23:00:00;",
             "a := T#10s / 3; b := T#1s * 2 + T#500ms; c := T#1s * 1.5; d := d + T#2h;")
    assert (s["a"], s["b"], s["c"], s["d"]) == (3333, 2500, 1500, 3_600_000)


def test_ieee_specials_propagate_and_power_is_rounded_once() -> None:
    s = run1("a, b, c, d : LREAL; e : REAL; i : INT := -7; k : INT := 19; z : LREAL;",
             "a := SQRT(-1.0); b := EXPT(z, -1.0); c := (-8.0) ** 0.5; d := i ** k; e := LN(0.0);")
    assert math.isnan(s["a"]) and math.isnan(s["c"])
    assert (s["b"], s["e"]) == (math.inf, -math.inf)
    assert s["d"] == float(-(7**19))  # the exact value rounded once (ties to even)


def test_real_functions_round_the_binary64_result_once() -> None:
    s = run1("r : REAL := 0.7; h, q : REAL;", "h := LOG(r); q := SQRT(r);")
    x = float(np.float32(0.7))
    assert (s["h"], s["q"]) == (f32(math.log10(x)), f32(math.sqrt(x)))


def test_text_forms_of_numbers_times_and_booleans() -> None:
    s = run1("a, b, c, d, e, f, g : STRING; r : REAL := 1.5; l : LREAL := 1.0E20; t : TIME := T#1s500ms;"
             "z : TIME; n : INT := -42;",
             "a := REAL_TO_STRING(r); b := REAL_TO_STRING(0.1); c := LREAL_TO_STRING(l);"
             "d := TIME_TO_STRING(t); e := TIME_TO_STRING(z); f := INT_TO_STRING(n); g := BOOL_TO_STRING(TRUE);")
    assert [s[k] for k in "abcdefg"] == ["1.5", "0.1", "1E+20", "T#1s500ms", "T#0ms", "-42", "TRUE"]


def test_text_to_numbers_ignores_blanks_accepts_based_and_gives_zero_when_invalid() -> None:
    s = run1("a, b, c, d : INT; t : TIME; r : REAL;",
             "a := STRING_TO_INT(' 42 '); b := STRING_TO_INT('16#FF'); c := STRING_TO_INT('4x2');"
             "d := STRING_TO_INT('INT#-5'); t := STRING_TO_TIME('T#1s500ms'); r := STRING_TO_REAL('2.5');")
    assert (s["a"], s["b"], s["c"], s["d"], s["t"], s["r"]) == (42, 255, 0, -5, 1500, 2.5)
