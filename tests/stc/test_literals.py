"""Literal evaluation (ST_LANGUAGE.md 1.1): values, kinds, prefixes, errors, warnings."""

from __future__ import annotations

import calendar

import pytest

from stc import ast
from stc.diagnostics import Diagnostics
from stc.literals import build_literal

POS = ast.Pos(3, 10)


def lit(text: str) -> tuple[ast.Expr, Diagnostics]:
    diags = Diagnostics("t.st")
    return build_literal(text, POS, diags), diags


def value_of(text: str) -> object:
    node, diags = lit(text)
    assert not diags.items, diags.render()
    return node.value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0), ("123", 123), ("1_000_000", 1_000_000), ("16#FF", 255), ("16#ff_ff", 65535),
        ("2#1010_0101", 0xA5), ("8#777", 511), ("18446744073709551615", 2**64 - 1),
    ],
)
def test_integers(text: str, value: int) -> None:
    node, diags = lit(text)
    assert isinstance(node, ast.IntLit) and node.value == value and node.type_prefix is None
    assert node.text == text and not diags.items


@pytest.mark.parametrize(
    ("text", "value", "prefix"),
    [("INT#-5", -5, "INT"), ("UINT#16#FFFF", 65535, "UINT"), ("word#2#1010", 10, "WORD"),
     ("DINT#100", 100, "DINT"), ("BYTE#300", 300, "BYTE")],
)
def test_typed_integers_record_prefix(text: str, value: int, prefix: str) -> None:
    node, diags = lit(text)
    assert isinstance(node, ast.IntLit)
    assert (node.value, node.type_prefix, node.text) == (value, prefix, text)
    assert not diags.items  # range checks belong to the semantic pass


@pytest.mark.parametrize(
    ("text", "value", "prefix"),
    [("1.5", 1.5, None), ("0.25", 0.25, None), ("1.0E-3", 1e-3, None), ("2.5e6", 2.5e6, None),
     ("3E2", 300.0, None), ("REAL#1", 1.0, "REAL"), ("LREAL#0.1", 0.1, "LREAL"), ("1_0.5", 10.5, None)],
)
def test_reals(text: str, value: float, prefix: str | None) -> None:
    node, diags = lit(text)
    assert isinstance(node, ast.RealLit)
    assert (node.value, node.type_prefix) == (value, prefix) and not diags.items


@pytest.mark.parametrize(
    ("text", "value"),
    [("TRUE", True), ("false", False), ("BOOL#1", True), ("BOOL#0", False), ("bool#TRUE", True)],
)
def test_booleans(text: str, value: bool) -> None:
    node, _ = lit(text)
    assert isinstance(node, ast.BoolLit) and node.value is value


def test_typed_enumerator() -> None:
    node, diags = lit("E_State#RUN")
    assert isinstance(node, ast.EnumValueLit)
    assert (node.type_name, node.value_name) == ("E_State", "RUN") and not diags.items


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("T#1s500ms", 1500), ("TIME#2h_30m", 9_000_000), ("t#-250ms", -250), ("T#1.5s", 1500),
        ("T#1d2h3m4s5ms", 93_784_005), ("T#90m", 5_400_000), ("T#1.1s", 1100), ("T#0ms", 0),
        ("time#1h_1m_1s", 3_661_000), ("T#0.5d", 43_200_000),
    ],
)
def test_time_in_milliseconds(text: str, ms: int) -> None:
    node, diags = lit(text)
    assert isinstance(node, ast.DurationLit) and node.kind == "TIME"
    assert node.value == ms and not diags.items


@pytest.mark.parametrize(
    ("text", "ns"), [("LT#1ms5us", 1_005_000), ("LTIME#100ns", 100), ("LTIME#1.5us", 1500)]
)
def test_ltime_in_nanoseconds(text: str, ns: int) -> None:
    node, diags = lit(text)
    assert isinstance(node, ast.DurationLit) and node.kind == "LTIME"
    assert node.value == ns and not diags.items


@pytest.mark.parametrize(("text", "ms"), [("T#1ms500us", 1), ("T#-1.7ms", -1), ("T#10ns", 0)])
def test_sub_millisecond_time_truncates_with_warning(text: str, ms: int) -> None:
    node, diags = lit(text)
    assert node.value == ms
    [warning] = diags.warnings
    assert "truncated toward zero" in warning.message and (warning.line, warning.column) == (3, 10)


def test_non_leading_unit_out_of_range_warns() -> None:
    node, diags = lit("T#1h90m")
    assert node.value == 9_000_000
    assert "exceeds its range" in diags.warnings[0].message


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("T#1.5s500ms", "only the last unit"),
        ("T#5ms1s", "out of order"),
        ("T#5x", "malformed duration"),
        ("16#FG", "invalid digits 'FG' for base 16"),
        ("3#12", "invalid base 3"),
        ("2#102", "invalid digits"),
        ("INT#1.5", "real value in a INT# literal"),
        ("99999999999999999999999", "too large"),
        ("1.0E999", "out of range"),
        ("D#2024-02-30", "invalid date"),
        ("TOD#25:00:00", "invalid time of day"),
        ("DT#2024-01-31", "malformed DT"),
    ],
)
def test_malformed_literals_are_errors(text: str, fragment: str) -> None:
    _, diags = lit(text)
    [error] = diags.errors
    assert fragment in error.message and error.line == 3


@pytest.mark.parametrize(
    ("text", "kind", "prefix"),
    [("'a$q'", ast.StringLit, None), ("16#FG", ast.IntLit, None), ("INT#1.5", ast.IntLit, "INT"),
     ("T#5x", ast.DurationLit, None), ("TOD#99:00", ast.DateTimeLit, None),
     ("1.0E999", ast.RealLit, None), ("LREAL#1.0E999", ast.RealLit, "LREAL")],
)
def test_bad_literal_still_has_its_kind(text: str, kind: type, prefix: str | None) -> None:
    """So the semantic pass adds no follow-on type errors to the literal error."""
    node, diags = lit(text)
    assert isinstance(node, kind) and len(diags.errors) == 1
    assert getattr(node, "type_prefix", None) == prefix


def test_date_time_values() -> None:
    assert value_of("D#2024-01-31") == calendar.timegm((2024, 1, 31, 0, 0, 0))
    assert value_of("DATE#1970-01-02") == 86_400
    assert value_of("TOD#12:30:15.5") == 45_015_500
    assert value_of("TIME_OF_DAY#00:00:01") == 1000
    assert value_of("DT#2024-01-31-12:30:00") == calendar.timegm((2024, 1, 31, 12, 30, 0))
    assert value_of("DATE_AND_TIME#1970-01-01-00:01:00") == 60
    node, _ = lit("TOD#1:2")
    assert isinstance(node, ast.DateTimeLit) and node.kind == "TOD" and node.value == 3_720_000


@pytest.mark.parametrize(
    ("text", "value", "wide"),
    [
        ("'abc'", "abc", False), ("''", "", False), ("'It$'s'", "It's", False),
        ("'$$$L$N$R$P$T'", "$\n\n\r\f\t", False), ("'$l$n$r$p$t'", "\n\n\r\f\t", False),
        ("'$41$7e'", "A~", False), ("'say \"hi\"'", 'say "hi"', False),
        ('"abc"', "abc", True), ('"$0041"', "A", True), ('"$""', '"', True), ('"it\'s"', "it's", True),
        ('"$20AC"', "\u20ac", True),
    ],
)
def test_strings_and_escapes(text: str, value: str, wide: bool) -> None:
    node, diags = lit(text)
    assert isinstance(node, ast.StringLit)
    assert (node.value, node.wide) == (value, wide) and not diags.items


@pytest.mark.parametrize(
    ("text", "col"),
    [("'ab$q'", 13), ("'$4'", 11), ('"$41"', 11), ("'$\"'", 11), ('"$\'"', 11), ("'\u20ac'", 11)],
)
def test_bad_escapes_are_errors_at_their_column(text: str, col: int) -> None:
    _, diags = lit(text)
    [error] = diags.errors
    assert (error.line, error.column) == (3, col)
