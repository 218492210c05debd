"""Integer helpers against the spec's examples and a big-integer reference (§5.3, §6.3, §6.7)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stc.runtime import ints
from stc.runtime.errors import DIV_ZERO, ERR_CODE, ERR_LOC, SHIFT_NEG, new_error_state

I64 = st.integers(-(2**63), 2**63 - 1)
U64 = st.integers(0, 2**64 - 1)
WIDTHS = st.sampled_from([8, 16, 32, 64])

WRAPS = {
    (8, True): ints.wrap_sint, (16, True): ints.wrap_int,
    (32, True): ints.wrap_dint, (64, True): ints.wrap_lint,
    (8, False): ints.wrap_usint, (16, False): ints.wrap_uint,
    (32, False): ints.wrap_udint, (64, False): ints.wrap_ulint,
}  # fmt: skip


def ref_wrap(x: int, width: int, signed: bool) -> int:
    u = x % 2**width
    return u - 2**width if signed and u >= 2 ** (width - 1) else u


def ref_trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return ref_wrap(q if (a < 0) == (b < 0) else -q, 64, True)


def ref_pattern(x: int, width: int) -> int:
    return x % 2**width


def test_wrap_examples():
    assert ints.wrap_int(70000) == 4464  # DINT_TO_INT(70000)
    assert ints.wrap_int(0xFFFF) == -1  # WORD_TO_INT(16#FFFF)
    assert ints.wrap_uint(-1) == 65535  # INT_TO_UINT(-1)
    assert ints.wrap_int(32767 + 1) == -32768
    assert ints.wrap_uint(0 - 1) == 65535
    assert ints.wrap_ulint(-1) == np.uint64(2**64 - 1)
    assert ints.wrap_lint(np.uint64(2**64 - 1)) == -1
    assert ints.wrap_byte is ints.wrap_usint and ints.wrap_lword is ints.wrap_ulint


@settings(deadline=None)  # first calls compile
@given(x=I64, key=st.sampled_from(sorted(WRAPS)))
def test_wrap_matches_reference(x, key):
    width, signed = key
    assert int(WRAPS[key](x)) == ref_wrap(x, width, signed)


@settings(deadline=None)  # first calls compile
@given(x=U64, key=st.sampled_from(sorted(WRAPS)))
def test_wrap_of_ulint_values(x, key):
    width, signed = key
    assert int(WRAPS[key](np.uint64(x))) == ref_wrap(x, width, signed)


def test_division_examples():
    err = new_error_state()
    assert ints.div_int(err, 0, -7, 2) == -3
    assert ints.div_int(err, 0, 7, -2) == -3
    assert ints.mod_int(err, 0, -7, 3) == -1
    assert ints.mod_int(err, 0, 7, -3) == 1
    assert ints.div_int(err, 0, (32767 + 1), 2) == 16384  # (i + 1) / 2 with i = 32767
    assert ints.div_int(err, 0, -(2**63), -1) == -(2**63)  # wraps, no hardware trap
    assert ints.mod_int(err, 0, -(2**63), -1) == 0
    assert err[ERR_CODE] == 0


@settings(deadline=None)  # first calls compile
@given(a=I64, b=I64.filter(lambda v: v != 0))
def test_div_mod_match_reference(a, b):
    err = new_error_state()
    q = ref_trunc_div(a, b)
    assert ints.div_int(err, 0, a, b) == q
    assert ints.mod_int(err, 0, a, b) == ref_wrap(a - q * b, 64, True)
    assert err[ERR_CODE] == 0


@settings(deadline=None)  # first calls compile
@given(a=U64, b=U64.filter(lambda v: v != 0))
def test_ulint_div_mod_match_reference(a, b):
    err = new_error_state()
    assert int(ints.div_ulint(err, 0, np.uint64(a), np.uint64(b))) == a // b
    assert int(ints.mod_ulint(err, 0, np.uint64(a), np.uint64(b))) == a % b


@pytest.mark.parametrize("helper", [ints.div_int, ints.mod_int])
def test_division_by_zero_records_first_error(helper):
    err = new_error_state()
    assert helper(err, 42, 5, 0) == 0
    assert (err[ERR_CODE], err[ERR_LOC]) == (DIV_ZERO, 42)
    helper(err, 43, 1, 0)
    assert err[ERR_LOC] == 42  # the first error wins


def test_ulint_division_by_zero():
    err = new_error_state()
    assert ints.div_ulint(err, 5, np.uint64(3), np.uint64(0)) == 0
    assert err[ERR_CODE] == DIV_ZERO


def test_abs_wraps_at_store():
    assert ints.abs_int(-5) == 5
    assert ints.wrap_int(ints.abs_int(-32768)) == -32768
    assert ints.abs_int(-(2**63)) == -(2**63)


@settings(deadline=None)  # first calls compile
@given(x=I64)
def test_abs_matches_reference(x):
    assert ints.abs_int(x) == ref_wrap(abs(x), 64, True)


def test_shift_examples():
    err = new_error_state()
    assert ints.shl(err, 0, 0x8001, 1, 16) == 0x0002  # SHL(WORD#16#8001, 1)
    assert ints.shl(err, 0, 0x8001, 1, 32) == 0x0001_0002  # SHL(DWORD#16#8001, 1)
    assert ints.rol(err, 0, 0x8001, 1, 16) == 0x0003  # ROL(WORD#16#8001, 1)
    assert ints.ror(err, 0, 0x01, 1, 8) == 0x80  # ROR(BYTE#16#01, 1)
    assert ints.wrap_int(ints.shl(err, 0, 0x4000, 1, 16)) == -32768  # SHL(INT#16#4000, 1)
    assert ints.shl(err, 0, 0xFF, 8, 8) == 0  # n >= width gives 0
    assert ints.shr(err, 0, 0xFF, 200, 8) == 0
    assert ints.rol(err, 0, 0x81, 9, 8) == 0x03  # rotate by n MOD width
    assert ints.wrap_int(ints.shr(err, 0, -2, 1, 16)) == 0x7FFF  # logical on signed [D13]
    assert ints.ror(err, 0, np.uint64(1), 1, 64) == np.uint64(2**63)
    assert err[ERR_CODE] == 0


@pytest.mark.parametrize("helper", [ints.shl, ints.shr, ints.rol, ints.ror])
def test_negative_shift_count_is_an_error(helper):
    err = new_error_state()
    helper(err, 9, 1, -1, 16)
    assert (err[ERR_CODE], err[ERR_LOC]) == (SHIFT_NEG, 9)


@settings(deadline=None)  # first calls compile
@given(x=I64, n=st.integers(0, 200), width=WIDTHS)
def test_shifts_and_rotates_match_reference(x, n, width):
    err = new_error_state()
    p = ref_pattern(x, width)
    mask = 2**width - 1
    assert int(ints.shl(err, 0, x, n, width)) == ((p << n) & mask if n < width else 0)
    assert int(ints.shr(err, 0, x, n, width)) == (p >> n if n < width else 0)
    k = n % width
    assert int(ints.rol(err, 0, x, n, width)) == ((p << k) | (p >> (width - k))) & mask
    assert int(ints.ror(err, 0, x, n, width)) == ((p >> k) | (p << (width - k))) & mask
    assert err[ERR_CODE] == 0


@settings(deadline=None)  # first calls compile
@given(x=I64, n=st.integers(0, 63), value=st.integers(0, 1))
def test_bit_access_matches_reference(x, n, value):
    p = ref_pattern(x, 64)
    assert ints.get_bit(x, n) == (p >> n) & 1
    expected = (p & ~(1 << n)) | (value << n)
    assert int(ints.set_bit(x, n, value)) == expected


def test_bit_access_examples():
    assert ints.wrap_word(ints.set_bit(0, 15, 1)) == 0x8000  # w.15 := TRUE
    assert ints.wrap_int(ints.set_bit(0, 15, 1)) == -32768
    assert ints.get_bit(-1, 15) == 1


@settings(deadline=None)  # first calls compile
@given(a=U64, b=I64)
def test_ulint_comparison_is_exact(a, b):
    assert ints.cmp_ulint_lint(np.uint64(a), b) == (a > b) - (a < b)


def test_to_bool():
    assert [ints.to_bool(v) for v in (0, 5, -1)] == [0, 1, 1]
