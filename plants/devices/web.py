"""D15 web / master line: master position, registration marks with a touch-probe latch and
edge-capture registers, dancer, and roll radius.

Params: profile_t (ticks) / profile_v (mm/s) breakpoints of the piecewise-linear master speed
(N_PROFILE rows, unused = NEVER), marks: mark_x0 (mm, first mark), pitch (mm, constant) or
the explicit list mark_pos (N_MARKS rows, used when n_marks > 0), tau_d (s, dancer
measurement lag), p_max (mm, dancer band), p0, winder (1: winder sign), r0 (mm, roll radius
at start), t_web (mm, thickness).
State: x (master position, mm), v (mm/s), next_mark, latched, mark_pos (mm), edge_r_cnt,
edge_r_pos, lost (marks crossed while the latch was held), p (dancer, true), p_meas, s_roll
(length wound/unwound, mm), prev_ack.
Tick: v = profile(t) (linear interpolation), x += mean speed·dt; every mark crossed in the
step is latched at its exact position when armed (else counted lost) and always counted in
the edge-capture registers; PROBE_ACK edge re-arms the latch (A41: it clears MARK_LATCHED).
Dancer: p += (v_line − v_supply)·dt/2 for an unwinder (opposite for a winder), measured with
a first-order lag tau_d. Roll radius r = sqrt(r0² ∓ t_web·s/π).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from plants.devices.protocol import DT, NEVER, make_rows

N_PROFILE = 16
N_MARKS = 64

PARAM_DTYPE = np.dtype(
    [
        ("profile_t", np.int64, (N_PROFILE,)), ("profile_v", np.float64, (N_PROFILE,)),
        ("mark_x0", np.float64), ("pitch", np.float64), ("n_marks", np.int32),
        ("mark_pos", np.float64, (N_MARKS,)),
        ("tau_d", np.float64), ("p_max", np.float64), ("p0", np.float64),
        ("winder", np.uint8), ("r0", np.float64), ("t_web", np.float64),
    ]
)

STATE_DTYPE = np.dtype(
    [
        ("x", np.float64), ("v", np.float64), ("next_mark", np.int64), ("latched", np.uint8),
        ("mark_pos", np.float64), ("edge_r_cnt", np.int64), ("edge_r_pos", np.float64),
        ("lost", np.int64), ("p", np.float64), ("p_meas", np.float64), ("s_roll", np.float64),
        ("prev_ack", np.uint8),
    ]
)


def make_params(n_conditions: int, n_units: int = 1, profile=(), marks=(), **values) -> np.ndarray:
    """``profile`` = [(t_s, mm/s), ...] breakpoints; ``marks`` = explicit mark positions."""
    base = dict(tau_d=0.2, p_max=200.0, p0=100.0, pitch=1e18, mark_x0=1e18, r0=1.0)
    base.update(values)
    rows = make_rows(PARAM_DTYPE, n_conditions, n_units, base)
    if len(profile) > N_PROFILE or len(marks) > N_MARKS:
        raise ValueError("too many profile points or marks")
    rows["profile_t"] = NEVER
    for j, (t_s, vel) in enumerate(profile):
        rows["profile_t"][..., j] = round(t_s * 100)
        rows["profile_v"][..., j] = vel
    rows["n_marks"] = len(marks)
    for j, xm in enumerate(marks):
        rows["mark_pos"][..., j] = xm
    return rows


def make_state(params: np.ndarray) -> np.ndarray:
    """Master at 0, latch armed, dancer at p0."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["p"] = params["p0"]
    st["p_meas"] = params["p0"]
    return st


@njit(cache=True)
def master_speed(pa, k):
    """Scripted master speed at tick k (piecewise linear between breakpoints, held after)."""
    v = 0.0
    for j in range(N_PROFILE):
        if pa.profile_t[j] <= k:
            v = pa.profile_v[j]
            if j + 1 < N_PROFILE and pa.profile_t[j + 1] < NEVER:
                t0 = pa.profile_t[j]
                t1 = pa.profile_t[j + 1]
                if k < t1:
                    v = pa.profile_v[j] + (pa.profile_v[j + 1] - pa.profile_v[j]) * (k - t0) / (t1 - t0)
    return v


@njit(cache=True)
def _mark(pa, i):
    if pa.n_marks > 0:
        return pa.mark_pos[i] if i < pa.n_marks else 1e300
    return pa.mark_x0 + i * pa.pitch


@njit(cache=True)
def tick(st, pa, probe_ack, v_supply, k):
    """Advance the master, marks and dancer one step (PROBE_ACK latched; supply speed mm/s)."""
    if probe_ack and not st.prev_ack:
        st.latched = 0
    st.prev_ack = 1 if probe_ack else 0
    v_new = master_speed(pa, k + 1)
    x_new = st.x + 0.5 * (st.v + v_new) * DT
    while _mark(pa, st.next_mark) <= x_new:
        xm = _mark(pa, st.next_mark)
        st.edge_r_cnt += 1
        st.edge_r_pos = xm
        if st.latched:
            st.lost += 1
        else:
            st.latched = 1
            st.mark_pos = xm
        st.next_mark += 1
    dp = (v_new - v_supply) * DT / 2.0
    st.p += -dp if pa.winder else dp
    st.p_meas += (st.p - st.p_meas) * DT / pa.tau_d
    st.s_roll += abs(x_new - st.x)
    st.x = x_new
    st.v = v_new


@njit(cache=True)
def roll_radius(st, pa):
    """Roll radius (mm): grows on a winder, shrinks on an unwinder."""
    sign = 1.0 if pa.winder else -1.0
    return math.sqrt(max(0.0, pa.r0 * pa.r0 + sign * pa.t_web * st.s_roll / math.pi))


@njit(cache=True)
def sense_master_pos(st):
    """MASTER_POS, DINT 0.01 mm."""
    return np.int32(round(st.x * 100.0))


@njit(cache=True)
def sense_dancer(st):
    """DANCER, INT 0.1 mm (measured)."""
    return np.int16(round(st.p_meas * 10.0))
