"""REAL/LREAL helpers: conversion to integers, division by zero, EXPT.

REAL is binary32 after every operation (§4): numba already keeps float32 op float32 in
float32, so generated code needs helpers only where ST differs from IEEE/numpy:
* REAL/LREAL -> integer rounds to nearest, ties to even [D1], and a result outside the
  target range, NaN or INF is a CONVERSION runtime error (returns 0);
* division by an exact zero is a DIV_ZERO runtime error [D9] (returns 0.0);
* `**`/EXPT is computed in binary64 and rounded once (§6.3).
The §9 numeric functions need no helper: numpy ufuncs in njit keep float32 in float32
(`np.sqrt`, `np.log`, `np.log10`, `np.exp`, `np.sin` ... `np.arctan2`) and return NaN/INF
silently as §6.3 requires; `math.sqrt`/`math.log` would raise on negative input.
A float32 input widens to float64 exactly, so every check here is done in float64 and
the bounds (±2^(w-1), 2^w) are exact binary64 numbers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from stc.runtime.errors import CONVERSION, DIV_ZERO, raise_error

_jit = njit(cache=True, error_model="numpy")
_WIDTH64 = np.int64(64)  # typed constant: a bare literal argument specialises per value


@_jit
def _signed_or_error(err, loc, r, width):
    """r (already integral float64) as int64 if it fits a signed `width`-bit type."""
    half = 2.0 ** (width - 1)
    if (r >= -half) & (r < half):  # False for NaN
        return np.int64(r)
    raise_error(err, CONVERSION, loc)
    return np.int64(0)


@_jit
def _unsigned_or_error(err, loc, r, width):
    """r (integral float64) as uint64 if it fits an unsigned `width`-bit type."""
    if (r >= 0.0) & (r < 2.0**width):
        return np.uint64(r)
    raise_error(err, CONVERSION, loc)
    return np.uint64(0)


@_jit
def real_to_signed(err, loc, x, width):
    """REAL/LREAL_TO_SINT/INT/DINT/LINT (and REAL_TO_TIME with width 64), ties to even."""
    return _signed_or_error(err, loc, np.rint(np.float64(x)), width)


@_jit
def real_to_unsigned(err, loc, x, width):
    """REAL/LREAL_TO_USINT/UINT/UDINT and bit strings up to 32 bits, as int64."""
    return np.int64(_unsigned_or_error(err, loc, np.rint(np.float64(x)), width))


@_jit
def real_to_ulint(err, loc, x):
    """REAL/LREAL_TO_ULINT/LWORD, as uint64."""
    return _unsigned_or_error(err, loc, np.rint(np.float64(x)), _WIDTH64)


@_jit
def trunc_to_signed(err, loc, x, width):
    """TRUNC (width 32 = DINT) and TRUNC_<signed type>: toward zero."""
    return _signed_or_error(err, loc, np.trunc(np.float64(x)), width)


@_jit
def trunc_to_unsigned(err, loc, x, width):
    return np.int64(_unsigned_or_error(err, loc, np.trunc(np.float64(x)), width))


@_jit
def trunc_to_ulint(err, loc, x):
    return _unsigned_or_error(err, loc, np.trunc(np.float64(x)), _WIDTH64)


@_jit
def div_real(err, loc, a, b):
    """REAL `/`: DIV_ZERO when b is an exact (signed) zero."""
    a = np.float32(a)
    b = np.float32(b)
    if b == np.float32(0.0):
        raise_error(err, DIV_ZERO, loc)
        return np.float32(0.0)
    return np.float32(a / b)


@_jit
def div_lreal(err, loc, a, b):
    """LREAL `/`: DIV_ZERO when b is an exact (signed) zero."""
    a = np.float64(a)
    b = np.float64(b)
    if b == 0.0:
        raise_error(err, DIV_ZERO, loc)
        return 0.0
    return a / b


@_jit
def expt_lreal(a, b):
    """`a ** b` in binary64: 0 ** negative = INF, negative ** non-integer = NaN, no errors."""
    return np.power(np.float64(a), np.float64(b))


@_jit
def expt_real(a, b):
    """`a ** b` with REAL result: computed in binary64, rounded once to binary32."""
    return np.float32(np.power(np.float64(a), np.float64(b)))
