"""Hostile inputs to the whole front end: each must end in diagnostics, never an exception.

The elapsed-time bound is a hang guard (generous on a loaded 2-core CI box), not a speed
measurement; speed is measured by benchmarks/check_speed.py.
"""

from __future__ import annotations

import time

import pytest

from stc.frontend import check_source

HANG_GUARD_S = 10.0


def _check(text: str):
    t0 = time.perf_counter()
    result = check_source(text, "hostile.st")
    elapsed = time.perf_counter() - t0
    assert elapsed < HANG_GUARD_S, f"front end took {elapsed:.1f} s"
    return result


def _program(body: str, decls: str = "x : DINT;") -> str:
    return f"PROGRAM P\nVAR\n{decls}\nEND_VAR\n{body}\nEND_PROGRAM\n"


def _assert_error(result, *fragments: str) -> None:
    errors = result.diagnostics.errors
    assert errors, "expected at least one error"
    text = " | ".join(d.message for d in errors)
    for fragment in fragments:
        assert fragment in text.lower(), f"{fragment!r} not in {text!r}"


def test_ten_thousand_nested_parentheses() -> None:
    depth = 10_000
    result = _check(_program("x := " + "(" * depth + "1" + ")" * depth + ";"))
    _assert_error(result, "nest")


def test_deeply_nested_if() -> None:
    depth = 3_000
    body = "IF TRUE THEN\n" * depth + "x := 1;\n" + "END_IF;\n" * depth
    _assert_error(_check(_program(body)), "nest")


def test_five_megabyte_file() -> None:
    line = "x := x + 1; (* padding padding padding padding padding *)\n"
    body = line * (5 * 1024 * 1024 // len(line) + 1)
    result = _check(_program(body))
    _assert_error(result, "too large")
    assert result.diagnostics.errors[0].line == 1


def test_huge_array_bounds() -> None:
    result = _check(_program("x := 1;", "a : ARRAY[0..2147483647] OF LREAL;"))
    _assert_error(result, "limit")


def test_huge_multi_dimensional_array() -> None:
    result = _check(_program("x := 1;", "a : ARRAY[1..100000, 1..100000] OF BOOL;"))
    _assert_error(result, "limit")


def test_enormous_integer_constant() -> None:
    result = _check(_program("x := " + "9" * 5000 + ";"))
    assert result.diagnostics.has_errors


def test_enormous_string_length() -> None:
    result = _check(_program("x := 1;", "s : STRING(2000000000);"))
    assert result.diagnostics.has_errors


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00\x01\x02",
        "PROGRAM",
        "END_PROGRAM",
        "(*",
        "'unterminated",
        "PROGRAM P VAR x : INT; END_VAR x := 'a\nb'; END_PROGRAM",
        "PROGRAM P\nVAR x : INT; END_VAR\nx := 1 +;\nEND_PROGRAM",
        "PROGRAM \u00e9\u00e8 END_PROGRAM",
        "\ufeffPROGRAM P END_PROGRAM",
        "PROGRAM P VAR " + "a" * 100_000 + " : INT; END_VAR END_PROGRAM",
        "TYPE E : (" + ", ".join(f"v{i}" for i in range(20_000)) + "); END_TYPE",
    ],
)
def test_garbage_never_raises(text: str) -> None:
    result = _check(text)
    assert result.diagnostics is not None
    if text.strip() in ("", "\x00\x01\x02", "PROGRAM", "END_PROGRAM", "(*", "'unterminated"):
        assert result.diagnostics.has_errors
