"""Conversions to/from STRING and BCD (§5.2), against examples and Python references."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from stc.runtime import convert, textforms
from stc.runtime.errors import (
    BAD_BCD,
    BAD_NUMBER_TEXT,
    ERR_CODE,
    WARN_CODE,
    WARN_COUNT,
    WARN_LOC,
    new_error_state,
)
from stc.runtime.strings import buffer_text, string_buffer

I64 = st.integers(-(2**63), 2**63 - 1)


def text_of(helper, value, capacity=80, wide=False):
    dst = np.zeros(capacity, dtype=np.uint16 if wide else np.uint8)
    return buffer_text(dst, helper(dst, value))


def parse(helper, text, *extra):
    err = new_error_state()
    buf = string_buffer(text, max(len(text), 1))
    return helper(err, 7, buf, len(text), *extra), err


def ref_duration(t: int, units: list[tuple[str, int]], prefix: str) -> str:
    rest, parts = abs(t), []
    for name, size in units:
        count, rest = divmod(rest, size)
        parts += [f"{count}{name}"] if count else []
    return prefix + ("-" if t < 0 else "") + ("".join(parts) or "0" + units[-1][0])


MS_UNITS = [("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)]
NS_UNITS = [(n, s * 10**6) for n, s in MS_UNITS] + [("us", 1000), ("ns", 1)]


@settings(deadline=None)  # first calls compile
@given(x=I64)
def test_int_to_text_matches_python(x):
    assert text_of(convert.int_to_text, x) == str(x)


@settings(deadline=None)  # first calls compile
@given(x=st.integers(0, 2**64 - 1))
def test_ulint_to_text_matches_python(x):
    assert text_of(convert.int_to_text, np.uint64(x)) == str(x)


def test_text_results_truncate_and_work_for_wstring():
    assert text_of(convert.int_to_text, -12345, capacity=3) == "-12"
    assert text_of(convert.int_to_text, 4464, wide=True) == "4464"
    assert text_of(convert.bool_to_text, 1) == "TRUE"
    assert text_of(convert.bool_to_text, 0) == "FALSE"
    assert text_of(convert.time_to_text, 1500, capacity=4) == "T#1s"


@pytest.mark.parametrize(
    ("t", "text"),
    [(1500, "T#1s500ms"), (0, "T#0ms"), (-250, "T#-250ms"), (93_784_005, "T#1d2h3m4s5ms"),
     (5_400_000, "T#1h30m"), (60_000, "T#1m")],
)  # fmt: skip
def test_time_to_text_examples(t, text):
    assert text_of(convert.time_to_text, t) == text


def test_ltime_to_text_examples():
    assert text_of(convert.ltime_to_text, 1_005_000) == "LTIME#1ms5us"
    assert text_of(convert.ltime_to_text, 0) == "LTIME#0ns"


@settings(deadline=None)  # first calls compile
@given(t=I64)
def test_duration_text_matches_reference(t):
    assert text_of(convert.time_to_text, t) == ref_duration(t, MS_UNITS, "T#")
    assert text_of(convert.ltime_to_text, t) == ref_duration(t, NS_UNITS, "LTIME#")


@pytest.mark.parametrize(
    ("x", "single", "text"),
    [(1.5, True, "1.5"), (0.1, True, "0.1"), (0.1, False, "0.1"), (1e20, True, "1E+20"),
     (100.0, True, "100"), (-2.5e-7, True, "-2.5E-07"), (3.4028235e38, True, "3.4028235E+38"),
     (123456789.0, True, "123456790"), (123456789.0, False, "123456789"),
     (math.inf, True, "INF"), (-math.inf, False, "-INF"), (math.nan, True, "NaN")],
)  # fmt: skip
def test_real_to_text_examples(x, single, text):
    if single:
        assert text_of(convert.real_to_text, np.float32(x)) == text
    else:
        assert text_of(convert.lreal_to_text, x) == text


def significant_digits(text: str) -> int:
    mantissa = text.upper().split("E")[0].lstrip("-").replace(".", "").strip("0")
    return max(len(mantissa), 1)


@settings(deadline=None)  # first calls compile
@given(x=st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_real_text_is_shortest_round_trip_in_binary32(x):
    text = text_of(convert.real_to_text, np.float32(x))
    assert np.float32(float(text)) == np.float32(x)
    with np.errstate(over="ignore"):  # candidates above the binary32 range become INF
        shortest = next(
            p for p in range(1, 10) if np.float32(float(f"{x:.{p - 1}e}")) == np.float32(x)
        )
    assert significant_digits(text) <= shortest


@pytest.mark.parametrize(
    ("text", "value"),
    [(" 16#FF ", 255), ("INT#-5", -5), ("1_000", 1000), ("WORD#16#ff_ff", 65535),
     ("2#1010", 10), ("-16#10", -16), ("8#777", 511), ("\t42\t", 42)],
)  # fmt: skip
def test_text_to_int_accepts_literal_syntax(text, value):
    got, err = parse(convert.text_to_int, text)
    assert (got, err[WARN_COUNT]) == (value, 0)


@pytest.mark.parametrize(
    "text", ["", "abc", "1.5", "2#102", "1__0", "_1", "FOO#5", "99999999999999999999"]
)
def test_invalid_text_gives_zero_and_a_warning(text):
    got, err = parse(convert.text_to_int, text)
    assert got == 0
    assert (err[WARN_CODE], err[WARN_LOC], err[WARN_COUNT], err[ERR_CODE]) == (
        BAD_NUMBER_TEXT, 7, 1, 0,
    )  # fmt: skip


def test_text_to_other_types():
    assert parse(convert.text_to_ulint, "18446744073709551615")[0] == np.uint64(2**64 - 1)
    assert parse(convert.text_to_real, " 1.5E3 ")[0] == 1500.0
    assert parse(convert.text_to_real, "REAL#1")[0] == 1.0
    assert parse(convert.text_to_real, "nan")[1][WARN_CODE] == BAD_NUMBER_TEXT
    assert parse(convert.text_to_bool, "true")[0] == 1
    assert parse(convert.text_to_bool, "FALSE")[0] == 0
    assert parse(convert.text_to_bool, "yes")[1][WARN_CODE] == BAD_NUMBER_TEXT
    assert parse(convert.text_to_duration, "T#1s500ms", 0)[0] == 1500
    assert parse(convert.text_to_duration, "t#-250ms", 0)[0] == -250
    assert parse(convert.text_to_duration, "TIME#1.5s", 0)[0] == 1500
    assert parse(convert.text_to_duration, "T#1d2h3m4s5ms", 0)[0] == 93_784_005
    assert parse(convert.text_to_duration, "T#1ms999us", 0)[0] == 1  # truncated to ms
    assert parse(convert.text_to_duration, "LT#1ms5us", 1)[0] == 1_005_000
    assert parse(convert.text_to_duration, "T#90m", 0)[0] == 5_400_000
    for bad in ("T#1s1h", "1500", "T#1.5s3ms", "T#"):
        assert parse(convert.text_to_duration, bad, 0)[1][WARN_CODE] == BAD_NUMBER_TEXT


@settings(deadline=None)  # first calls compile
@given(x=I64)
def test_int_text_round_trip(x):
    dst = np.zeros(24, dtype=np.uint8)
    n = convert.int_to_text(dst, x)
    err = new_error_state()
    assert convert.text_to_int(err, 0, dst, n) == x


def test_bcd_examples():
    err = new_error_state()
    assert convert.bcd_to_int(err, 0, 0x1234, 16) == 1234  # WORD_BCD_TO_UINT
    assert convert.int_to_bcd(err, 0, 99, 8) == 0x99  # USINT_TO_BCD_BYTE
    assert convert.bcd_to_int(err, 0, 0x12345678, 32) == 12345678
    assert err[WARN_COUNT] == 0
    assert convert.bcd_to_int(err, 3, 0x1A, 8) == 0
    assert (err[WARN_CODE], err[WARN_LOC]) == (BAD_BCD, 3)
    assert convert.int_to_bcd(err, 3, 100, 8) == 0
    assert err[WARN_COUNT] == 2 and err[ERR_CODE] == 0


@settings(deadline=None)  # first calls compile
@given(x=st.integers(0, 9999))
def test_bcd_round_trip(x):
    err = new_error_state()
    bcd = convert.int_to_bcd(err, 0, x, 16)
    assert bcd == int(f"{x}", 16)
    assert convert.bcd_to_int(err, 0, bcd, 16) == x


# --- native parsers against the readable rules of textforms (differential) -------------

NOISE = st.text(alphabet=" \t+-_#.0123456789abcdefxABCDEFhmsnuTIMELWORDSNBY", max_size=16)
INT_TEXT = st.one_of(NOISE, st.from_regex(textforms._INT_RE, fullmatch=True))
DURATION_TEXT = st.one_of(
    NOISE.map(lambda s: "T#" + s),
    st.from_regex(
        r"(T|TIME|LT|LTIME|t)#-?([0-9]{1,3}(\.[0-9_]{1,3})?(d|h|m|s|ms|us|ns)_?){1,4}",
        fullmatch=True,
    ),
)


def expect_text(value, lo, hi):
    """(value, warnings) the oracle's answer means for a helper returning in lo..hi."""
    return (0, 1) if value is None or not lo <= value <= hi else (value, 0)


@settings(deadline=None)  # first calls compile
@given(text=INT_TEXT)
def test_native_int_parser_matches_oracle(text):
    got, err = parse(convert.text_to_int, text)
    assert (got, err[WARN_COUNT]) == expect_text(textforms.parse_int(text), -(2**63), 2**63 - 1)
    got, err = parse(convert.text_to_ulint, text)
    value, warned = expect_text(textforms.parse_int(text), -(2**63), 2**64 - 1)
    assert (int(got), err[WARN_COUNT]) == (value % 2**64, warned)


@settings(deadline=None)  # first calls compile
@given(text=st.one_of(NOISE, st.sampled_from(["TRUE", " false ", "Bool#1", "BOOL#0", "1", "0"])))
def test_native_bool_parser_matches_oracle(text):
    got, err = parse(convert.text_to_bool, text)
    assert (got, err[WARN_COUNT]) == expect_text(textforms.parse_bool(text), 0, 1)


@settings(deadline=None)  # first calls compile
@given(text=DURATION_TEXT, ltime=st.integers(0, 1))
def test_native_duration_parser_matches_oracle(text, ltime):
    expected = textforms.parse_duration(text, bool(ltime))
    unit_ns = 1 if ltime else 10**6
    assume(expected is None or abs(expected) * unit_ns < 2**63)  # native limit: 2^64 ns
    got, err = parse(convert.text_to_duration, text, ltime)
    assert (got, err[WARN_COUNT]) == expect_text(expected, -(2**63), 2**63 - 1)
