"""REAL/LREAL helpers against §5.2/§6.3 examples and exact `fractions`/`struct` references."""

import math
import struct
from fractions import Fraction

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stc.runtime import reals
from stc.runtime.errors import CONVERSION, DIV_ZERO, ERR_CODE, ERR_LOC, new_error_state

F32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
F64 = st.floats(allow_nan=False, allow_infinity=False)


def return_types(dispatcher) -> set:
    """Numba boxes float32 results as Python floats, so check the compiled signature."""
    return {sig.return_type for sig in dispatcher.nopython_signatures}


def ref_f32(x: float) -> float:
    """Round a binary64 value to binary32 (nearest, ties to even) via struct."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def ref_to_int(x: float, width: int, signed: bool) -> int | None:
    r = round(Fraction(x))  # Fraction.__round__ rounds half to even
    lo, hi = (-(2 ** (width - 1)), 2 ** (width - 1) - 1) if signed else (0, 2**width - 1)
    return r if lo <= r <= hi else None


@pytest.mark.parametrize(
    ("x", "expected"), [(2.5, 2), (3.5, 4), (-2.5, -2), (0.5, 0), (1.5, 2), (-1.5, -2), (1.4, 1)]
)
def test_real_to_int_ties_to_even(x, expected):
    err = new_error_state()
    assert reals.real_to_signed(err, 0, np.float32(x), 16) == expected
    assert reals.real_to_signed(err, 0, x, 16) == expected
    assert err[ERR_CODE] == 0


@pytest.mark.parametrize("x", [32767.5, -32769.0, 1e10, math.nan, math.inf, -math.inf])
def test_real_to_int_out_of_range_is_conversion_error(x):
    err = new_error_state()
    assert reals.real_to_signed(err, 3, np.float32(x), 16) == 0
    assert (err[ERR_CODE], err[ERR_LOC]) == (CONVERSION, 3)


def test_unsigned_and_trunc_examples():
    err = new_error_state()
    assert reals.real_to_unsigned(err, 0, np.float32(255.4), 8) == 255
    assert reals.real_to_unsigned(err, 0, -0.4, 8) == 0  # rounds to -0: in range
    assert reals.real_to_ulint(err, 0, 2.0**64 - 2048) == np.uint64(2**64 - 2048)
    assert reals.trunc_to_signed(err, 0, np.float32(-2.7), 32) == -2  # TRUNC
    assert reals.trunc_to_signed(err, 0, 2.9999, 16) == 2
    assert err[ERR_CODE] == 0
    reals.real_to_unsigned(err, 1, np.float32(-0.6), 8)
    assert err[ERR_CODE] == CONVERSION
    err = new_error_state()
    reals.real_to_ulint(err, 1, 2.0**64)
    assert err[ERR_CODE] == CONVERSION
    err = new_error_state()
    reals.trunc_to_signed(err, 1, 2.0**31, 32)  # TRUNC overflow
    assert err[ERR_CODE] == CONVERSION


@settings(deadline=None)  # first calls compile
@given(x=F64, spec=st.sampled_from([(8, True), (16, True), (32, True), (64, True),
                                    (8, False), (16, False), (32, False)]))  # fmt: skip
def test_real_to_int_matches_reference(x, spec):
    width, signed = spec
    err = new_error_state()
    helper = reals.real_to_signed if signed else reals.real_to_unsigned
    got = helper(err, 0, x, width)
    expected = ref_to_int(x, width, signed)
    if expected is None:
        assert (got, err[ERR_CODE]) == (0, CONVERSION)
    else:
        assert (got, err[ERR_CODE]) == (expected, 0)


@settings(deadline=None)  # first calls compile
@given(x=F32)
def test_real_to_ulint_and_trunc_match_reference(x):
    err = new_error_state()
    expected = ref_to_int(x, 64, False)
    got = reals.real_to_ulint(err, 0, np.float32(x))
    assert int(got) == (0 if expected is None else expected)
    err = new_error_state()
    t = math.trunc(x)
    got = reals.trunc_to_signed(err, 0, np.float32(x), 32)
    assert got == (t if -(2**31) <= t < 2**31 else 0)


@settings(deadline=None)  # first calls compile
@given(a=F32, b=F32.filter(lambda v: v != 0.0))
def test_real_division_rounds_once_to_binary32(a, b):
    err = new_error_state()
    got = reals.div_real(err, 0, np.float32(a), np.float32(b))
    assert return_types(reals.div_real) == {numba.float32}
    exact = Fraction(a) / Fraction(b)
    try:
        expected = ref_f32(float(exact))  # binary64 then binary32 is innocuous for a quotient
    except (OverflowError, struct.error):
        expected = math.copysign(math.inf, float(exact))
    assert float(got) == expected


@pytest.mark.parametrize("zero", [0.0, -0.0])
def test_real_division_by_exact_zero_is_an_error(zero):
    err = new_error_state()
    assert reals.div_real(err, 4, np.float32(1.0), np.float32(zero)) == 0.0
    assert (err[ERR_CODE], err[ERR_LOC]) == (DIV_ZERO, 4)
    err = new_error_state()
    assert reals.div_lreal(err, 4, 1.0, zero) == 0.0
    assert err[ERR_CODE] == DIV_ZERO


def test_tiny_divisor_is_not_zero():
    err = new_error_state()
    assert math.isinf(reals.div_real(err, 0, np.float32(1e30), np.float32(1e-30)))
    assert err[ERR_CODE] == 0


def test_expt_rules():
    assert reals.expt_lreal(2.0, 10.0) == 1024.0
    assert reals.expt_lreal(reals.expt_lreal(2.0, 3.0), 2.0) == 64.0  # left-assoc
    assert reals.expt_lreal(0.0, -1.0) == math.inf  # 0 ** negative -> INF, not an error
    assert math.isnan(reals.expt_lreal(-8.0, 1.0 / 3.0))  # negative ** non-integer -> NaN
    assert reals.expt_lreal(-2.0, 3.0) == -8.0
    got = reals.expt_real(np.float32(1.1), np.float32(2.0))
    assert return_types(reals.expt_real) == {numba.float32}
    assert float(got) == ref_f32(float(np.float32(1.1)) ** 2.0)  # binary64, rounded once


@settings(deadline=None)  # first calls compile
@given(a=F32, b=st.floats(-4, 4, width=32))
def test_expt_real_rounds_binary64_result_once(a, b):
    got = reals.expt_real(np.float32(a), np.float32(b))
    try:
        exact = math.pow(a, b)
    except (OverflowError, ValueError):
        return  # INF/NaN cases are covered by test_expt_rules
    try:
        expected = ref_f32(exact)
    except OverflowError:
        expected = math.copysign(math.inf, exact)
    assert float(got) == expected
