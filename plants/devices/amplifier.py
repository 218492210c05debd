"""D09 analog-command servo amplifier: the program closes the position loop (A14).

Parameters: vmax (mm/s at ±27648), tau_v (velocity lag, s), db (dead band, fraction of full
scale), gain_err (fraction), ready_delay (ticks, READY after ENABLE held that long),
enc_offset (counts of 0.01 mm added to the true position), x0, ref_lo/ref_hi (REF switch),
lim_neg/lim_pos (over-travel switches), stop_neg/stop_pos (mechanical end stops),
dist_t/dist_v (disturbance velocity, mm/s: dist_v[j] holds from tick dist_t[j] on; unused
rows have dist_t = NEVER) and dist_period (ticks; > 0 repeats the pattern, e.g. alternating
steps). The disturbance acts only while enabled.
State: x, v (true, mm, mm/s), x_prev, en_cnt (ticks ENABLE has been held).
Tick: u = VEL_CMD/27648·vmax·(1 + gain_err); dead band; v += (u_eff + d − v)·dt/tau_v when
enabled, else v decays with 30 ms; x += v·dt; the end stops clamp x.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.protocol import DT, NEVER, make_rows

FULL_SCALE = 27648
N_DIST = 8

PARAM_DTYPE = np.dtype(
    [
        ("vmax", np.float64), ("tau_v", np.float64), ("db", np.float64),
        ("gain_err", np.float64), ("ready_delay", np.int64), ("enc_offset", np.int64),
        ("x0", np.float64), ("ref_lo", np.float64), ("ref_hi", np.float64),
        ("lim_neg", np.float64), ("lim_pos", np.float64),
        ("stop_neg", np.float64), ("stop_pos", np.float64),
        ("dist_t", np.int64, (N_DIST,)), ("dist_v", np.float64, (N_DIST,)),
        ("dist_period", np.int64),
    ]
)

STATE_DTYPE = np.dtype(
    [("x", np.float64), ("v", np.float64), ("x_prev", np.float64), ("en_cnt", np.int64)]
)


def make_params(n_conditions: int, n_units: int = 1, disturbance=(), **values) -> np.ndarray:
    """Defaults of MOT-H05's axis; ``disturbance`` = [(t_s, mm/s), ...] shared by all rows."""
    base = dict(vmax=400.0, tau_v=0.05, ready_delay=10, ref_lo=0.0, ref_hi=20.0,
                lim_neg=-5.0, lim_pos=605.0, stop_neg=-15.0, stop_pos=615.0)
    base.update(values)
    rows = make_rows(PARAM_DTYPE, n_conditions, n_units, base)
    if len(disturbance) > N_DIST:
        raise ValueError(f"at most {N_DIST} disturbance steps")
    rows["dist_t"] = NEVER
    for j, (t_s, vel) in enumerate(disturbance):
        rows["dist_t"][..., j] = int(round(t_s / DT))
        rows["dist_v"][..., j] = vel
    return rows


def make_state(params: np.ndarray) -> np.ndarray:
    """At rest at x0, disabled."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["x"] = params["x0"]
    st["x_prev"] = params["x0"]
    return st


@njit(cache=True)
def disturbance(pa, k):
    """Disturbance velocity at tick k (mm/s)."""
    t = k
    if pa.dist_period > 0:
        t = k % pa.dist_period
    d = 0.0
    for j in range(N_DIST):
        if pa.dist_t[j] <= t:
            d = pa.dist_v[j]
    return d


@njit(cache=True)
def tick(st, pa, enable, vel_cmd, k):
    """Advance one 10 ms step with the latched ENABLE and VEL_CMD word."""
    st.x_prev = st.x
    raw = max(-FULL_SCALE, min(FULL_SCALE, vel_cmd))
    if enable:
        st.en_cnt += 1
        u = raw / FULL_SCALE * pa.vmax * (1.0 + pa.gain_err)
        band = pa.db * pa.vmax
        u_eff = 0.0
        if u > band:
            u_eff = u - band
        elif u < -band:
            u_eff = u + band
        st.v += (u_eff + disturbance(pa, k) - st.v) * DT / pa.tau_v
    else:
        st.en_cnt = 0
        st.v += -st.v * DT / 0.03
    x = st.x + st.v * DT
    if x <= pa.stop_neg:
        x = pa.stop_neg
        st.v = 0.0
    elif x >= pa.stop_pos:
        x = pa.stop_pos
        st.v = 0.0
    st.x = x


@njit(cache=True)
def sense_ready(st, pa):
    """READY: ENABLE held for ready_delay ticks."""
    return st.en_cnt >= pa.ready_delay


@njit(cache=True)
def sense_enc(st, pa):
    """ENC, DINT 0.01 mm: true position rounded to the nearest count plus the offset."""
    return np.int32(round(st.x * 100.0) + pa.enc_offset)


@njit(cache=True)
def sense_ref(st, pa):
    """Reference switch."""
    return pa.ref_lo <= st.x <= pa.ref_hi


@njit(cache=True)
def sense_lim_neg(st, pa):
    """Negative over-travel switch."""
    return st.x <= pa.lim_neg


@njit(cache=True)
def sense_lim_pos(st, pa):
    """Positive over-travel switch."""
    return st.x >= pa.lim_pos
