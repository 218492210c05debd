"""D14 suspended load (pendulum) on a trolley, with the rope length from the hoist.

Params: c (damping, 1/s), g (m/s², 9.81).
State: theta (rad, positive = load ahead of the trolley in +x), omega (rad/s), latched (a
load hangs on the hook; the empty hook does not swing and reads 0), x_prev, v_prev (trolley,
mm, mm/s, to derive its acceleration from positions), l_prev (rope, mm).
Tick (ten 1 ms sub-steps, semi-implicit Euler): ω̇ = −(g/L)·sin θ − (a_t/L)·cos θ − c·ω −
2·(L̇/L)·ω, with a_t and L̇ the trolley acceleration and rope speed of this step.
Load position: x_L = x_t + L·sin θ, z_L = z_hook − L·(1 − cos θ).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from plants.devices.protocol import DT, make_rows

SUBSTEPS = 10

PARAM_DTYPE = np.dtype([("c", np.float64), ("g", np.float64)])

STATE_DTYPE = np.dtype(
    [("theta", np.float64), ("omega", np.float64), ("latched", np.uint8),
     ("x_prev", np.float64), ("v_prev", np.float64), ("l_prev", np.float64)]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: c = 0.01 1/s, g = 9.81 m/s²."""
    base = dict(c=0.01, g=9.81)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray, x_trolley=0.0, rope=1000.0, theta=0.0, latched=1):
    """Hanging still (or with an initial sway ``theta`` in rad) under a trolley at rest."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["x_prev"] = x_trolley
    st["l_prev"] = rope
    st["theta"] = theta
    st["latched"] = latched
    return st


@njit(cache=True)
def tick(st, pa, x_trolley, rope, k):
    """Advance the sway one step given the trolley position and rope length after their ticks
    (mm, true values)."""
    v = (x_trolley - st.x_prev) / DT
    a_t = (v - st.v_prev) / DT / 1000.0
    l_dot = (rope - st.l_prev) / DT / 1000.0
    length = rope / 1000.0
    st.x_prev = x_trolley
    st.v_prev = v
    st.l_prev = rope
    if not st.latched or length <= 0.0:
        st.theta = 0.0
        st.omega = 0.0
        return
    h = DT / SUBSTEPS
    for _ in range(SUBSTEPS):
        acc = (-(pa.g / length) * math.sin(st.theta) - (a_t / length) * math.cos(st.theta)
               - pa.c * st.omega - 2.0 * (l_dot / length) * st.omega)
        st.omega += h * acc
        st.theta += h * st.omega


@njit(cache=True)
def load_position(st, x_trolley, z_hook, rope):
    """(x_L, z_L) of the load (mm)."""
    return (x_trolley + rope * math.sin(st.theta),
            z_hook - rope * (1.0 - math.cos(st.theta)))


@njit(cache=True)
def sense_sway(st):
    """SWAY, INT 0.01° (0 while no load hangs)."""
    return np.int16(round(math.degrees(st.theta) * 100.0))


@njit(cache=True)
def sense_sway_rate(st):
    """SWAY_RATE, INT 0.01 °/s."""
    return np.int16(max(-32768.0, min(32767.0, round(math.degrees(st.omega) * 100.0))))
