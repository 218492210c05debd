"""D11 pneumatic/hydraulic cylinder (also the plate drive of D22 pushers).

Valve kinds (``kind``): MONO (EXT only; spring or valve return), BISTABLE (EXT/RET coils, the
last energised coil wins, both on = no motion), FIVE_THREE (EXT/RET, neither = hold).
Parameters:
  kind, t_ext, t_ret (s), slow (time factor, 1 = nominal), spring (1: single-acting, springs
  back at 1/t_ret when air is lost), air_from/air_to (ticks: air loss freezes the stroke),
  stick_s, stick_arm, stick_len (stroke, ticks: the first time the stroke reaches stick_s
  while extending at or after tick stick_arm it is held there for stick_len ticks),
  reed_ret_broken / reed_ext_broken (that switch never turns on)
State:
  s      stroke fraction 0..1
  mem    remembered coil of a bistable valve (+1 ext, -1 ret)
  stick_left / stick_done  ticks of the stick still to serve / stick already served
  s_prev stroke before the last tick (pushers and A9/A23 rules judge on its change)
Sensors: RETRACTED s <= 0.02, EXTENDED s >= 0.98 (tolerance EPS).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.protocol import DT, EPS, NEVER, make_rows

MONO = 0
BISTABLE = 1
FIVE_THREE = 2

PARAM_DTYPE = np.dtype(
    [
        ("kind", np.int32),
        ("t_ext", np.float64),
        ("t_ret", np.float64),
        ("slow", np.float64),
        ("spring", np.uint8),
        ("air_from", np.int64),
        ("air_to", np.int64),
        ("stick_s", np.float64),
        ("stick_arm", np.int64),
        ("stick_len", np.int64),
        ("reed_ret_broken", np.uint8),
        ("reed_ext_broken", np.uint8),
    ]
)

STATE_DTYPE = np.dtype(
    [
        ("s", np.float64),
        ("s_prev", np.float64),
        ("mem", np.int32),
        ("stick_left", np.int64),
        ("stick_done", np.uint8),
    ]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: monostable, 0.3 s strokes, no faults."""
    base = dict(kind=MONO, t_ext=0.3, t_ret=0.3, slow=1.0, spring=1, air_from=NEVER,
                air_to=NEVER, stick_s=1.0, stick_arm=NEVER, stick_len=0)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray, s0: float = 0.0) -> np.ndarray:
    """Rod at stroke ``s0`` (retracted by default, A12), bistable memory on retract."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["s"] = s0
    st["s_prev"] = s0
    st["mem"] = -1
    return st


@njit(cache=True)
def direction(st, pa, ext, ret):
    """Motion direction commanded by the valve: +1 extend, -1 retract, 0 hold."""
    if pa.kind == MONO:
        return 1 if ext else -1
    if ext and ret:
        return 0
    if pa.kind == BISTABLE:
        if ext:
            st.mem = 1
        elif ret:
            st.mem = -1
        return st.mem
    if ext:
        return 1
    if ret:
        return -1
    return 0


@njit(cache=True)
def tick(st, pa, ext, ret, k):
    """Advance the stroke one 10 ms step for the latched coil outputs."""
    st.s_prev = st.s
    d = direction(st, pa, ext, ret)
    if pa.air_from <= k < pa.air_to:
        d = -1 if (pa.spring and pa.kind == MONO) else 0
    if st.stick_left > 0:
        st.stick_left -= 1
        if d > 0:
            return
    if d > 0:
        s_new = min(1.0, st.s + DT / (pa.t_ext * pa.slow))
        if (not st.stick_done) and k >= pa.stick_arm and s_new >= pa.stick_s - EPS:
            s_new = max(st.s, pa.stick_s)
            st.stick_done = 1
            st.stick_left = pa.stick_len
        st.s = 1.0 if s_new >= 1.0 - EPS else s_new
    elif d < 0:
        s_new = st.s - DT / (pa.t_ret * pa.slow)
        st.s = 0.0 if s_new <= EPS else s_new


@njit(cache=True)
def sense_retracted(st, pa):
    """Rear reed switch (s <= 0.02) unless broken."""
    return st.s <= 0.02 + EPS and not pa.reed_ret_broken


@njit(cache=True)
def sense_extended(st, pa):
    """Front reed switch (s >= 0.98) unless broken."""
    return st.s >= 0.98 - EPS and not pa.reed_ext_broken
