"""D24 weighing: load-cell platform (or weigh belt) under a conveyor line, and a weigh hopper.

Platform params: line, x0, x1 (platform extent, mm), tau (filter, s), ripple_a (g), ripple_f
(Hz), drift (g/min), unit (g per count: 1, or 0.1 where a task publishes 0.1 g, A32).
Platform state: reading (filtered load, g), tare (g), prev_tare.
  raw = Σ weight·(overlap of the footprint with the platform / length) + drift·t;
  reading += (raw − reading)·dt/tau, settled at t = 0 (A11); the word is
  round((reading + ripple − tare)/unit) with ripple = A·sin(2π f t); a TARE edge sets tare to
  the current reading including ripple.
Hopper params: r_c, r_f (feed rates g/s, COARSE has priority), t_fall (ticks, <= 128: feed
reaches the scale that much later), r_d (discharge g/s), capacity (g), tau, unit.
Hopper state: m (mass on the scale, g), flight (ring of fed mass per tick), discharged (g),
reading, tare, prev_tare.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from plants.devices.items import LINE
from plants.devices.protocol import DT, make_rows

FLIGHT_TICKS = 128

PLATFORM_DTYPE = np.dtype(
    [
        ("line", np.int32), ("x0", np.float64), ("x1", np.float64), ("tau", np.float64),
        ("ripple_a", np.float64), ("ripple_f", np.float64), ("drift", np.float64),
        ("unit", np.float64),
    ]
)

PLATFORM_STATE_DTYPE = np.dtype(
    [("reading", np.float64), ("tare", np.float64), ("prev_tare", np.uint8)]
)

HOPPER_DTYPE = np.dtype(
    [
        ("r_c", np.float64), ("r_f", np.float64), ("t_fall", np.int32), ("r_d", np.float64),
        ("capacity", np.float64), ("tau", np.float64), ("unit", np.float64),
    ]
)

HOPPER_STATE_DTYPE = np.dtype(
    [
        ("m", np.float64), ("flight", np.float64, (FLIGHT_TICKS,)), ("discharged", np.float64),
        ("reading", np.float64), ("tare", np.float64), ("prev_tare", np.uint8),
    ]
)


def make_platforms(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Platform parameters; defaults tau 0.1 s, no ripple or drift, 1 g per count."""
    base = dict(tau=0.1, unit=1.0)
    base.update(values)
    return make_rows(PLATFORM_DTYPE, n_conditions, n_units, base)


def make_platform_state(params: np.ndarray) -> np.ndarray:
    """Settled at zero load (A11)."""
    return np.zeros(params.shape, PLATFORM_STATE_DTYPE)


def make_hoppers(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Hopper parameters; defaults tau 0.1 s, 1 g per count."""
    base = dict(tau=0.1, unit=1.0, capacity=1e9)
    base.update(values)
    rows = make_rows(HOPPER_DTYPE, n_conditions, n_units, base)
    if np.any(rows["t_fall"] >= FLIGHT_TICKS):
        raise ValueError(f"t_fall must be below {FLIGHT_TICKS} ticks")
    return rows


def make_hopper_state(params: np.ndarray) -> np.ndarray:
    """Empty hopper, nothing in flight."""
    return np.zeros(params.shape, HOPPER_STATE_DTYPE)


@njit(cache=True)
def platform_load(pa, items, k):
    """Raw load on the platform (g): overlapping weight fractions plus the zero drift."""
    load = pa.drift * (k * DT) / 60.0
    for j in range(items.shape[0]):
        it = items[j]
        if it.place == LINE and it.line == pa.line and it.length > 0.0:
            lo = max(it.rear, pa.x0)
            hi = min(it.rear + it.length, pa.x1)
            if hi > lo:
                load += it.weight * (hi - lo) / it.length
    return load


@njit(cache=True)
def _ripple(a, f, k):
    return a * math.sin(2.0 * math.pi * f * k * DT)


@njit(cache=True)
def tick_platform(st, pa, items, tare, k):
    """Filter the load of the state of tick k+1 (call after the line moved)."""
    raw = platform_load(pa, items, k + 1)
    st.reading += (raw - st.reading) * DT / pa.tau
    if tare and not st.prev_tare:
        st.tare = st.reading + _ripple(pa.ripple_a, pa.ripple_f, k + 1)
    st.prev_tare = 1 if tare else 0


@njit(cache=True)
def sense_platform(st, pa, k):
    """Weight word at tick k (g or 0.1 g counts), INT-saturated."""
    val = (st.reading + _ripple(pa.ripple_a, pa.ripple_f, k) - st.tare) / pa.unit
    return np.int16(max(-32768.0, min(32767.0, round(val))))


@njit(cache=True)
def tick_hopper(st, pa, coarse, fine, discharge, tare, k):
    """One step of the weigh hopper; returns the mass discharged in this step (g)."""
    fed = 0.0
    if coarse:
        fed = pa.r_c * DT
    elif fine:
        fed = pa.r_f * DT
    if pa.t_fall > 0:
        slot = k % pa.t_fall
        arriving = st.flight[slot]
        st.flight[slot] = fed
    else:
        arriving = fed
    st.m += arriving
    out = 0.0
    if discharge:
        out = min(st.m, pa.r_d * DT)
        st.m -= out
        st.discharged += out
    st.reading += (st.m - st.reading) * DT / pa.tau
    if tare and not st.prev_tare:
        st.tare = st.reading
    st.prev_tare = 1 if tare else 0
    return out


@njit(cache=True)
def in_flight(st):
    """Mass fed but not yet on the scale (g)."""
    return st.flight.sum()


@njit(cache=True)
def sense_hopper(st, pa):
    """Hopper weight word (g or 0.1 g counts)."""
    return np.int16(max(-32768.0, min(32767.0, round((st.reading - st.tare) / pa.unit))))
