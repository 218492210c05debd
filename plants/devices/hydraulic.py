"""A41 proportional-valve hydraulic cylinder (MOT-H14), ten 1 ms sub-steps per tick.

Params: db (spool dead band, fraction), k_e (mm/s at full opening, extending), k_r_ratio
(retracting gain factor, 1.6), wn (rad/s), zeta, tau_s (spool lag, s, 0.03), d (load
velocity offset, mm/s), x_lo, x_hi (end stops, mm), x0.
State: x (mm), v (mm/s), vd (mm/s²), s (spool), pressure (bar, last sub-step), hit_speed
(highest speed at which an end stop was hit, mm/s).
Per sub-step h: s += (u − s)·h/tau_s with u = VALVE/27648; q = 0 for |s| <= db, else
K·(|s| − db)/(1 − db)·sign(s) (K = k_e extending, k_r_ratio·k_e retracting);
v̇d = wn²·(q + d − v) − 2·zeta·wn·vd; vd, v, x integrate (semi-implicit); an end stop clamps x
and stops v and vd. PRESSURE = round(0.02·vd + 2·d) bar.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.protocol import DT, make_rows

SUBSTEPS = 10
FULL_SCALE = 27648

PARAM_DTYPE = np.dtype(
    [
        ("db", np.float64), ("k_e", np.float64), ("k_r_ratio", np.float64), ("wn", np.float64),
        ("zeta", np.float64), ("tau_s", np.float64), ("d", np.float64),
        ("x_lo", np.float64), ("x_hi", np.float64), ("x0", np.float64),
    ]
)

STATE_DTYPE = np.dtype(
    [("x", np.float64), ("v", np.float64), ("vd", np.float64), ("s", np.float64),
     ("pressure", np.float64), ("hit_speed", np.float64), ("x_prev", np.float64)]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults of MOT-H14 C1: db 0.03, K_e 150 mm/s, wn 30, zeta 0.2, stops 0/400 mm."""
    base = dict(db=0.03, k_e=150.0, k_r_ratio=1.6, wn=30.0, zeta=0.2, tau_s=0.03,
                x_lo=0.0, x_hi=400.0, x0=100.0)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """At rest at x0, spool centred."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["x"] = params["x0"]
    st["x_prev"] = params["x0"]
    return st


@njit(cache=True)
def valve_flow(pa, s):
    """Rod speed demanded by spool position s (mm/s)."""
    if abs(s) <= pa.db:
        return 0.0
    k = pa.k_e if s > 0.0 else pa.k_e * pa.k_r_ratio
    q = k * (abs(s) - pa.db) / (1.0 - pa.db)
    return q if s > 0.0 else -q


@njit(cache=True)
def tick(st, pa, valve, k):
    """Advance one 10 ms step for the latched VALVE word."""
    u = max(-FULL_SCALE, min(FULL_SCALE, valve)) / FULL_SCALE
    h = DT / SUBSTEPS
    st.x_prev = st.x
    for _ in range(SUBSTEPS):
        st.s += (u - st.s) * h / pa.tau_s
        target = valve_flow(pa, st.s) + pa.d
        acc = pa.wn * pa.wn * (target - st.v) - 2.0 * pa.zeta * pa.wn * st.vd
        st.vd += acc * h
        st.v += st.vd * h
        st.x += st.v * h
        if st.x <= pa.x_lo or st.x >= pa.x_hi:
            st.hit_speed = max(st.hit_speed, abs(st.v))
            st.x = min(pa.x_hi, max(pa.x_lo, st.x))
            st.v = 0.0
            st.vd = 0.0
        st.pressure = 0.02 * st.vd + 2.0 * pa.d


@njit(cache=True)
def sense_pos(st):
    """POS, DINT 0.01 mm."""
    return np.int32(round(st.x * 100.0))


@njit(cache=True)
def sense_pressure(st):
    """PRESSURE, INT bar (signed load pressure)."""
    return np.int16(max(-32768.0, min(32767.0, round(st.pressure))))
