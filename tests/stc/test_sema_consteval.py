"""Constant folding with exact ST semantics (§5.3, §6.3, §6.8)."""

from __future__ import annotations

import numpy as np
import pytest

from stc import types as T
from stc.ast import NOT_CONST
from stc.sema import consteval as C


@pytest.mark.parametrize(
    ("value", "ty", "stored"),
    [(32768, T.INT, -32768), (-1, T.UINT, 65535), (70000, T.INT, 4464), (0xFFFF, T.INT, -1),
     (256, T.BYTE, 0), (-129, T.SINT, 127), (2**64, T.ULINT, 0)],
)
def test_wrap_on_store(value: int, ty: T.Type, stored: int) -> None:
    assert C.wrap(value, ty) == stored


@pytest.mark.parametrize(
    ("op", "a", "b", "result"),
    [("/", -7, 2, -3), ("/", 7, -2, -3), ("MOD", -7, 3, -1), ("MOD", 7, -3, 1), ("+", 32767, 1, 32768),
     ("*", 2**62, 4, 0)],
)
def test_integer_arithmetic_is_exact_and_truncating(op: str, a: int, b: int, result: int) -> None:
    assert C.fold_binary(op, a, b, T.INT, T.INT) == result


def test_integer_division_by_zero_is_left_to_runtime() -> None:
    assert C.fold_binary("/", 1, 0, T.INT, T.INT) is NOT_CONST
    assert C.fold_binary("MOD", 1, 0, T.INT, T.INT) is NOT_CONST
    assert C.fold_binary("/", np.float32(1), np.float32(0), T.REAL, T.REAL) is NOT_CONST


def test_real_arithmetic_rounds_to_binary32() -> None:
    r = C.fold_binary("+", np.float32(0.1), np.float32(0.2), T.REAL, T.REAL)
    assert isinstance(r, np.float32) and r == np.float32(np.float32(0.1) + np.float32(0.2))
    lr = C.fold_binary("+", 0.1, 0.2, T.LREAL, T.LREAL)
    assert isinstance(lr, float) and lr == 0.1 + 0.2


def test_time_arithmetic_in_milliseconds() -> None:
    assert C.fold_binary("/", 10_000, 3, T.TIME, T.TIME) == 3333
    assert C.fold_binary("*", 1000, 2.5, T.TIME, T.TIME) == 2500
    assert C.fold_binary("-", 1000, 1500, T.TIME, T.TIME) == -500


@pytest.mark.parametrize(
    "op, a, b, ta, tb, result_t, result",
    [
        ("+", 1706704200, 5_400_000, T.DT, T.TIME, T.DT, 1706709600),  # DT + T#90m, in seconds
        ("-", 1706704200, 1_500, T.DT, T.TIME, T.DT, 1706704199),  # sub-second part truncated
        ("-", 1706706000, 1706704200, T.DT, T.DT, T.TIME, 1_800_000),  # DT - DT in ms
        ("-", 1704153600, 1704067200, T.DATE, T.DATE, T.TIME, 86_400_000),  # DATE - DATE in ms
        ("+", 82_800_000, 7_200_000, T.TOD, T.TIME, T.TOD, 3_600_000),  # TOD wraps at 24 h
        ("-", 3_600_000, 7_200_000, T.TOD, T.TIME, T.TOD, 82_800_000),
        ("+", 1_000_000, 2, T.LTIME, T.TIME, T.LTIME, 3_000_000),  # TIME joins LTIME in ns
    ],
)
def test_date_and_time_arithmetic_in_each_operands_unit(op, a, b, ta, tb, result_t, result) -> None:
    assert C.fold_time_arith(op, a, b, ta, tb, result_t) == result


def test_bitwise_not_keeps_the_width() -> None:
    assert C.fold_unary("NOT", 0x0F, T.BYTE) == 0xF0
    assert C.fold_unary("NOT", 3, T.INT) == -4
    assert C.fold_unary("NOT", True, T.BOOL) is False


@pytest.mark.parametrize(
    ("value", "src", "dst", "result"),
    [(70000, T.DINT, T.INT, 4464), (0xFFFF, T.WORD, T.INT, -1), (-1, T.INT, T.UINT, 65535),
     (np.float32(2.5), T.REAL, T.INT, 2), (np.float32(3.5), T.REAL, T.INT, 4), (-2.5, T.LREAL, T.DINT, -2),
     (True, T.BOOL, T.INT, 1), (5, T.INT, T.BOOL, True), (1500, T.TIME, T.DINT, 1500)],
)
def test_explicit_conversions(value, src: T.Type, dst: T.Type, result) -> None:
    assert C.convert(value, src, dst) == result


def test_out_of_range_real_conversion_is_a_runtime_matter() -> None:
    assert C.convert(1e10, T.LREAL, T.INT) is NOT_CONST
    assert C.convert(float("nan"), T.LREAL, T.DINT) is NOT_CONST


def test_defaults() -> None:
    assert C.default_value(T.SubrangeType(T.INT, 5, 9)) == 5
    assert C.default_value(T.EnumType("E", {"A": 3, "B": 4})) == 3
    assert C.default_value(T.ArrayType(((1, 3),), T.BOOL)) == [False, False, False]
    assert C.default_value(T.StringType(10)) == ""
