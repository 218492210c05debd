"""D17 gravity magazine: a stack of items fed to an exit position by a separator cylinder.

Params: line, x_exit (rear position of an item pushed out, mm), first, last (the item rows
stacked in order, bottom first).
State: next (row of the bottom item), sep_done (the separator's current stroke already
delivered), n_collide / first_collide (pushes into an occupied exit, S-COLLIDE).
Tick (after the separator cylinder ticked): on the tick the separator first reaches full
stroke (EXTENDED), the bottom item is placed at the exit if that place is free, else the push
is a collision (the item stays in the stack); the separator must retract before the next
push. MAG_EMPTY = no item left; refills are scripted by moving ``last`` (rows appended).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import cylinder
from plants.devices.items import LINE, WAITING, line_is_free
from plants.devices.protocol import make_rows

PARAM_DTYPE = np.dtype(
    [("line", np.int32), ("x_exit", np.float64), ("first", np.int32), ("last", np.int32)]
)

STATE_DTYPE = np.dtype(
    [("next", np.int32), ("sep_done", np.uint8), ("n_collide", np.int64),
     ("first_collide", np.int64)]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Magazine parameters (``last`` = one past the last stacked row)."""
    return make_rows(PARAM_DTYPE, n_conditions, n_units, values)


def make_state(params: np.ndarray) -> np.ndarray:
    """Full stack, separator not yet used."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["next"] = params["first"]
    st["first_collide"] = -1
    return st


@njit(cache=True)
def tick(st, pa, sep_st, sep_pa, items, k):
    """Push the bottom item out when the separator reaches full stroke."""
    extended = cylinder.sense_extended(sep_st, sep_pa)
    if not extended:
        st.sep_done = 0
        return
    if st.sep_done or st.next >= pa.last:
        return
    st.sep_done = 1
    it = items[st.next]
    if it.place != WAITING:
        return
    if line_is_free(items, pa.line, pa.x_exit, pa.x_exit + it.length, st.next):
        it.place = LINE
        it.line = pa.line
        it.rear = pa.x_exit
        it.rear_prev = pa.x_exit
        it.travel = 0.0
        st.next += 1
    else:
        st.n_collide += 1
        if st.first_collide < 0:
            st.first_collide = k + 1


@njit(cache=True)
def sense_empty(st, pa):
    """MAG_EMPTY."""
    return st.next >= pa.last
