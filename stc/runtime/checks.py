"""Range checks generated code runs before an access: array index, subrange store, MUX, FOR.

Each returns a value that is always safe to use (the lower bound on failure), so the
statement can finish without touching memory out of bounds before the caller sees the
error code and stops the scan.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from stc.runtime.errors import FOR_STEP_ZERO, INDEX_RANGE, MUX_RANGE, SUBRANGE, raise_error

_jit = njit(cache=True, error_model="numpy")


@_jit
def _checked(err, loc, code, v, lo, hi):
    v = np.int64(v)
    if (v < lo) | (v > hi):
        raise_error(err, code, loc)
        return np.int64(lo)
    return v


@_jit
def check_index(err, loc, i, lo, hi):
    """Array subscript within its declared bounds lo..hi, else INDEX_RANGE."""
    return _checked(err, loc, INDEX_RANGE, i, lo, hi)


@_jit
def check_subrange(err, loc, v, lo, hi):
    """Value stored into a subrange type lo..hi, else SUBRANGE [D10]."""
    return _checked(err, loc, SUBRANGE, v, lo, hi)


@_jit
def check_mux(err, loc, k, n_inputs):
    """MUX selector within 0..n_inputs-1, else MUX_RANGE."""
    return _checked(err, loc, MUX_RANGE, k, np.int64(0), n_inputs - 1)


@_jit
def check_for_step(err, loc, step):
    """FOR ... BY 0 is a runtime error; returns 0/1 (1 = the loop may run)."""
    if step == 0:
        raise_error(err, FOR_STEP_ZERO, loc)
        return np.int64(0)
    return np.int64(1)
