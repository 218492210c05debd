"""The type rules of ST_LANGUAGE.md §1.1, §5.1 and §6.3 as functions of stc.types."""

from __future__ import annotations

import pytest

from stc import types as T


@pytest.mark.parametrize(
    ("src", "dst"),
    [
        (T.SINT, T.INT), (T.INT, T.DINT), (T.DINT, T.LINT), (T.USINT, T.UINT), (T.UINT, T.UDINT),
        (T.UDINT, T.ULINT), (T.USINT, T.INT), (T.UINT, T.DINT), (T.UDINT, T.LINT),
        (T.BYTE, T.WORD), (T.WORD, T.DWORD), (T.DWORD, T.LWORD), (T.WORD, T.UINT), (T.UINT, T.WORD),
        (T.BYTE, T.UDINT), (T.INT, T.REAL), (T.WORD, T.REAL), (T.DINT, T.LREAL), (T.REAL, T.LREAL),
        (T.TIME, T.LTIME),
    ],
)
def test_silent_conversions(src: T.Type, dst: T.Type) -> None:
    assert T.implicit(src, dst) == (T.OK, "")


@pytest.mark.parametrize(
    ("src", "dst", "message"),
    [
        (T.DINT, T.INT, "implicit conversion DINT -> INT may lose information"),
        (T.INT, T.UINT, "implicit conversion INT -> UINT may lose information"),
        (T.WORD, T.INT, "implicit conversion WORD -> INT may lose information"),
        (T.INT, T.BYTE, "implicit conversion INT -> BYTE may lose information"),
        (T.DINT, T.REAL, "implicit conversion DINT -> REAL may lose precision"),
        (T.LINT, T.LREAL, "implicit conversion LINT -> LREAL may lose precision"),
        (T.LREAL, T.REAL, "implicit conversion LREAL -> REAL may lose precision"),
    ],
)
def test_warning_conversions(src: T.Type, dst: T.Type, message: str) -> None:
    assert T.implicit(src, dst) == (T.WARN, message)


@pytest.mark.parametrize(
    ("src", "dst", "fragment"),
    [
        (T.REAL, T.INT, "REAL -> INT is not allowed; use REAL_TO_INT (rounds) or TRUNC (truncates)"),
        (T.LREAL, T.WORD, "use REAL_TO_INT (rounds) or TRUNC (truncates)"),
        (T.BOOL, T.INT, "BOOL -> INT is not allowed"),
        (T.INT, T.BOOL, "INT -> BOOL is not allowed"),
        (T.TIME, T.DINT, "TIME -> DINT is not allowed"),
        (T.DINT, T.TIME, "DINT -> TIME is not allowed"),
        (T.STRING, T.INT, "STRING -> INT is not allowed"),
        (T.STRING, T.WSTRING, "STRING -> WSTRING is not allowed"),
    ],
)
def test_error_conversions(src: T.Type, dst: T.Type, fragment: str) -> None:
    verdict, message = T.implicit(src, dst)
    assert verdict == T.ERR and fragment in message


def test_enum_conversions() -> None:
    e = T.EnumType("E", {"A": 0, "B": 1}, base=T.INT)
    assert T.implicit(e, T.DINT)[0] == T.OK
    assert T.implicit(T.INT, e)[0] == T.WARN
    assert T.implicit(e, T.EnumType("F", {"A": 0}))[0] == T.ERR


def test_string_lengths_convert_silently() -> None:
    assert T.implicit(T.StringType(80), T.StringType(10))[0] == T.OK
    assert T.StringType(80).name == "STRING" and T.StringType(20, wide=True).name == "WSTRING(20)"


@pytest.mark.parametrize(
    ("a", "b", "result"),
    [
        (T.INT, T.INT, T.INT), (T.INT, T.DINT, T.DINT), (T.INT, T.UINT, T.DINT), (T.DINT, T.UDINT, T.LINT),
        (T.BYTE, T.WORD, T.WORD), (T.USINT, T.SINT, T.INT), (T.INT, T.REAL, T.REAL), (T.DINT, T.REAL, T.REAL),
        (T.LINT, T.REAL, T.LREAL), (T.REAL, T.LREAL, T.LREAL),
    ],
)
def test_common_numeric_type(a: T.Type, b: T.Type, result: T.Type) -> None:
    assert T.common_num(a, b) is result
    assert T.common_num(b, a) is result


def test_untyped_integer_literal_defaults() -> None:
    assert T.int_literal_type(5) is T.DINT
    assert T.int_literal_type(-(2**31)) is T.DINT
    assert T.int_literal_type(2**31) is T.LINT


def test_ranges_and_fits() -> None:
    assert T.int_range(T.SINT) == (-128, 127)
    assert T.int_range(T.UDINT) == (0, 2**32 - 1)
    assert T.fits(255, T.BYTE) and not T.fits(300, T.BYTE) and not T.fits(-1, T.UINT)
    sub = T.SubrangeType(T.INT, 0, 100)
    assert T.fits(100, sub) and not T.fits(101, sub)


def test_sizeof_layout() -> None:
    assert T.byte_size(T.BOOL) == 1 and T.byte_size(T.LREAL) == 8
    assert T.byte_size(T.StringType(20)) == 21
    assert T.byte_size(T.ArrayType(((1, 10),), T.INT)) == 20
    assert T.byte_size(T.StructType("S")) is None


def test_elementary_lookup_is_case_insensitive_with_aliases() -> None:
    assert T.elementary("dint") is T.DINT
    assert T.elementary("TIME_OF_DAY") is T.TOD
    assert T.elementary("Widget") is None
