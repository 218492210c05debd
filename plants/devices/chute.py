"""D22 chute / bin: counts deliveries against its capacity (S-OVERFLOW) and is emptied by script.

Params: capacity (items it can hold), full_at (FULL = count >= full_at), dest (destination id
recorded as the fate of delivered items).
State: count (items now in it), total (delivered over the run), n_overflow / first_overflow
(deliveries into a chute already at capacity, tick of the first; -1 none).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.protocol import make_rows

PARAM_DTYPE = np.dtype([("capacity", np.int32), ("full_at", np.int32), ("dest", np.int32)])

STATE_DTYPE = np.dtype(
    [
        ("count", np.int32),
        ("total", np.int32),
        ("n_overflow", np.int64),
        ("first_overflow", np.int64),
    ]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: capacity 20, FULL at capacity, destination id = unit index."""
    base = dict(capacity=20, dest=np.arange(n_units)[None, :].repeat(n_conditions, 0))
    base.update(values)
    if "full_at" not in values:
        base["full_at"] = base["capacity"]
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray, count: int | np.ndarray = 0) -> np.ndarray:
    """Chutes holding ``count`` items at t = 0 (a condition may start with a full chute)."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["count"] = count
    st["first_overflow"] = -1
    return st


@njit(cache=True)
def deliver(st, pa, k):
    """One item arrives at tick k (counted as overflow if the chute is already at capacity)."""
    if st.count >= pa.capacity:
        st.n_overflow += 1
        if st.first_overflow < 0:
            st.first_overflow = k
    st.count += 1
    st.total += 1


@njit(cache=True)
def empty(st):
    """Scripted emptying: the count returns to 0."""
    st.count = 0


@njit(cache=True)
def sense_full(st, pa):
    """FULL switch."""
    return st.count >= pa.full_at
