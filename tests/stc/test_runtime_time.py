"""TIME/LTIME/date helpers of §6.8."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from stc.runtime import ints, timefns
from stc.runtime.errors import CONVERSION, DIV_ZERO, ERR_CODE, new_error_state

T = st.integers(-(10**15), 10**15)


def test_time_division_truncates():
    err = new_error_state()
    assert ints.div_int(err, 0, 10_000, 3) == 3_333  # T#10s / 3 = T#3s333ms
    assert ints.div_int(err, 0, -10_000, 3) == -3_333
    ints.div_int(err, 1, 10_000, 0)
    assert err[ERR_CODE] == DIV_ZERO


def test_time_times_real_rounds_ties_to_even():
    err = new_error_state()
    assert timefns.time_mul_real(err, 0, 1000, np.float32(1.5)) == 1500
    assert timefns.time_mul_real(err, 0, 5, 0.5) == 2  # 2.5 ms -> 2
    assert timefns.time_mul_real(err, 0, 7, 0.5) == 4  # 3.5 ms -> 4
    assert timefns.time_div_real(err, 0, 10_000, 3.0) == 3_333
    assert timefns.time_div_real(err, 0, 5, 2.0) == 2
    assert err[ERR_CODE] == 0
    timefns.time_div_real(err, 2, 5, 0.0)
    assert err[ERR_CODE] == DIV_ZERO
    err = new_error_state()
    timefns.time_mul_real(err, 2, 2**62, 1e10)
    assert err[ERR_CODE] == CONVERSION


def test_tod_and_dt_arithmetic():
    day = timefns.MS_PER_DAY
    assert timefns.tod_add(day - 1000, 2000) == 1000  # wraps past midnight
    assert timefns.tod_add(500, -1000) == day - 500
    assert timefns.dt_add(100, 1999) == 101
    assert timefns.dt_add(100, -1999) == 99  # truncated toward zero
    assert timefns.seconds_diff_to_time(90, 30) == 60_000
    assert timefns.time_to_ltime(1500) == 1_500_000_000
    assert timefns.ltime_to_time(-1_999_999) == -1


@settings(deadline=None)  # first calls compile
@given(tod=st.integers(0, timefns.MS_PER_DAY - 1), t=T)
def test_tod_add_matches_reference(tod, t):
    assert timefns.tod_add(tod, t) == (tod + t) % timefns.MS_PER_DAY


@settings(deadline=None)  # first calls compile
@given(t=T)
def test_ltime_to_time_truncates(t):
    q = abs(t) // 10**6
    assert timefns.ltime_to_time(t) == (q if t >= 0 else -q)
