"""D08 two-speed motor axis with incremental encoder (the program closes the loop).

Parameters: v_fast, v_creep (mm/s), tau (s), lim_neg, lim_pos (switch actuated at x <= lim_neg /
x >= lim_pos), stop_neg, stop_pos (mechanical end stops), ref_lo, ref_hi (REF cam), enc_x0
(mm: the power-up zero of the counter, arbitrary), reset_ignored_at (tick: an ENC_RESET edge
on that tick takes effect one tick late), x0.
State: x, v, x_prev, zero (mm position of count 0), prev_reset, reset_pending.
Tick: v_cmd = ±(FAST ? v_fast : v_creep) with exactly one direction, else 0; an actuated limit
switch forces v_cmd = 0 in its direction (hard-wired); v += (v_cmd - v)·dt/tau; x += v·dt; the
end stops clamp x. ENC = round((x - zero)/0.1) (0.1 mm per count); an ENC_RESET edge sets
zero := x.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.protocol import DT, NEVER, make_rows

PARAM_DTYPE = np.dtype(
    [
        ("v_fast", np.float64), ("v_creep", np.float64), ("tau", np.float64),
        ("lim_neg", np.float64), ("lim_pos", np.float64),
        ("stop_neg", np.float64), ("stop_pos", np.float64),
        ("ref_lo", np.float64), ("ref_hi", np.float64),
        ("enc_x0", np.float64), ("reset_ignored_at", np.int64), ("x0", np.float64),
    ]
)

STATE_DTYPE = np.dtype(
    [("x", np.float64), ("v", np.float64), ("x_prev", np.float64), ("zero", np.float64),
     ("prev_reset", np.uint8), ("reset_pending", np.uint8)]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: 200/20 mm/s, tau 0.1 s, travel 0..1000 with switches 5 and stops 15 mm beyond."""
    base = dict(v_fast=200.0, v_creep=20.0, tau=0.1, lim_neg=-5.0, lim_pos=1005.0,
                stop_neg=-15.0, stop_pos=1015.0, ref_lo=-1.0, ref_hi=-1.0,
                reset_ignored_at=NEVER)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """At rest at x0; the counter's zero at enc_x0."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["x"] = params["x0"]
    st["x_prev"] = params["x0"]
    st["zero"] = params["enc_x0"]
    return st


@njit(cache=True)
def tick(st, pa, fwd, rev, fast, enc_reset, k):
    """Advance one 10 ms step with the latched FWD/REV/FAST/ENC_RESET outputs."""
    if st.reset_pending:
        st.zero = st.x
        st.reset_pending = 0
    if enc_reset and not st.prev_reset:
        if k == pa.reset_ignored_at:
            st.reset_pending = 1
        else:
            st.zero = st.x
    st.prev_reset = 1 if enc_reset else 0
    speed = pa.v_fast if fast else pa.v_creep
    v_cmd = 0.0
    if fwd and not rev:
        v_cmd = speed
    elif rev and not fwd:
        v_cmd = -speed
    if (v_cmd > 0.0 and st.x >= pa.lim_pos) or (v_cmd < 0.0 and st.x <= pa.lim_neg):
        v_cmd = 0.0
    st.x_prev = st.x
    st.v += (v_cmd - st.v) * DT / pa.tau
    x = st.x + st.v * DT
    if x <= pa.stop_neg:
        x = pa.stop_neg
        st.v = 0.0
    elif x >= pa.stop_pos:
        x = pa.stop_pos
        st.v = 0.0
    st.x = x


@njit(cache=True)
def sense_enc(st):
    """ENC, DINT counts of 0.1 mm from the counter's zero."""
    return np.int32(round((st.x - st.zero) / 0.1))


@njit(cache=True)
def sense_lim_neg(st, pa):
    """Negative over-travel switch."""
    return st.x <= pa.lim_neg


@njit(cache=True)
def sense_lim_pos(st, pa):
    """Positive over-travel switch."""
    return st.x >= pa.lim_pos


@njit(cache=True)
def sense_ref(st, pa):
    """Reference cam."""
    return pa.ref_lo <= st.x <= pa.ref_hi


@njit(cache=True)
def sense_window(st, lo, hi):
    """A position flag (SLOW_k, AT_k, NEAR_f) TRUE for x in [lo, hi]."""
    return lo <= st.x <= hi
