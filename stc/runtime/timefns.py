"""TIME/LTIME and date arithmetic of §6.8.

TIME is int64 milliseconds, LTIME int64 nanoseconds [D8]; the helpers do not care which
unit a duration uses except where a unit conversion is named. TIME + TIME, TIME * ANY_INT
and comparisons are plain int64 operations and need no helper; TIME / ANY_INT is
`ints.div_int` (truncation, DIV_ZERO). DATE and DT count seconds since 1970-01-01, TOD
milliseconds since midnight (§4).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from stc.runtime.errors import DIV_ZERO, raise_error
from stc.runtime.reals import real_to_signed

_jit = njit(cache=True, error_model="numpy")
_WIDTH64 = np.int64(64)  # typed constant: a bare literal argument specialises per value

MS_PER_DAY = 86_400_000
NS_PER_MS = 1_000_000


@_jit
def time_mul_real(err, loc, t, f):
    """TIME * REAL/LREAL: in LREAL, rounded to the unit ties to even; CONVERSION if out of range."""
    return real_to_signed(err, loc, np.float64(t) * np.float64(f), _WIDTH64)


@_jit
def time_div_real(err, loc, t, f):
    """TIME / REAL/LREAL: DIV_ZERO for f = 0.0, else like `time_mul_real`."""
    f = np.float64(f)
    if f == 0.0:
        raise_error(err, DIV_ZERO, loc)
        return np.int64(0)
    return real_to_signed(err, loc, np.float64(t) / f, _WIDTH64)


@_jit
def tod_add(tod, t):
    """TOD + TIME (TOD - TIME is `tod_add(tod, -t)`): wraps modulo 24 h into 0..24h-1."""
    r = (np.int64(tod) + np.int64(t)) % MS_PER_DAY  # floor modulo: non-negative result
    return np.int64(r)


@_jit
def dt_add(dt, t):
    """DT + TIME in seconds; the TIME's sub-second part is truncated toward zero [decision]."""
    t = np.int64(t)
    q = t // 1000
    q = q + np.int64(((t - q * 1000) != 0) & (t < 0))
    return np.int64(dt) + q


@_jit
def seconds_diff_to_time(a, b):
    """DT - DT and DATE - DATE: the difference in seconds as TIME (ms)."""
    return (np.int64(a) - np.int64(b)) * 1000


@_jit
def time_to_ltime(t):
    """TIME (ms) -> LTIME (ns): multiply by 10^6 (wraps beyond ±292 years)."""
    return np.int64(t) * NS_PER_MS


@_jit
def ltime_to_time(t):
    """LTIME (ns) -> TIME (ms), truncating toward zero like sub-ms literal parts."""
    t = np.int64(t)
    q = t // NS_PER_MS
    return q + np.int64(((t - q * NS_PER_MS) != 0) & (t < 0))
