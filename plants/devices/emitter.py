"""D17 item source (emitter): places the items of a row range onto a line (A7, A30, A35).

Modes (``mode``):
  TIME      item i is placed from its tick ``t_place`` on;
  PITCH     the first item at its ``t_place``, each next one when the previous item has
            travelled the next item's ``pitch`` (mm) (or has left the lines);
  BELT_GAP  each next one when the previous item's rear is ``pitch`` + its length past x_place;
  PROGRAM   on a rising edge of the program's INDUCT output (``tick`` argument ``induct``).
An item is placed with its rear at ``x_place`` only if ``[x_place, x_place + length + gap_min]``
is free; otherwise the emitter waits and counts the blocked ticks (logged, never a violation).
Params: line, x_place, gap_min (mm), mode, first, last (item rows [first, last)).
State: next (row of the next item), blocked_ticks, induct_prev, placed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.items import LINE, WAITING, line_is_free
from plants.devices.protocol import EPS, make_rows

TIME = 0
PITCH = 1
BELT_GAP = 2
PROGRAM = 3

PARAM_DTYPE = np.dtype(
    [
        ("line", np.int32),
        ("x_place", np.float64),
        ("gap_min", np.float64),
        ("mode", np.int32),
        ("first", np.int32),
        ("last", np.int32),
    ]
)

STATE_DTYPE = np.dtype(
    [
        ("next", np.int32),
        ("blocked_ticks", np.int64),
        ("induct_prev", np.uint8),
        ("placed", np.int32),
    ]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Emitter parameters (``last`` is required: the item rows it owns)."""
    return make_rows(PARAM_DTYPE, n_conditions, n_units, values)


def make_state(params: np.ndarray) -> np.ndarray:
    """Next item = the first owned row."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["next"] = params["first"]
    return st


@njit(cache=True)
def _due(st, pa, items, induct, k):
    """TRUE if the next item's placement condition holds in the step from tick k to k+1."""
    it = items[st.next]
    if pa.mode == PROGRAM:
        return induct and not st.induct_prev
    if pa.mode == TIME or st.next == pa.first:
        return k + 1 >= it.t_place
    prev = items[st.next - 1]
    if prev.place != LINE:
        return prev.place != WAITING
    if pa.mode == PITCH:
        return prev.travel >= it.pitch - EPS
    return prev.rear >= pa.x_place + prev.length + it.pitch - EPS


@njit(cache=True)
def tick(st, pa, items, induct, k):
    """Place the next item if it is due and its place is free (call after the lines moved)."""
    if st.next < pa.last and items[st.next].place == WAITING:
        if _due(st, pa, items, induct, k):
            it = items[st.next]
            if line_is_free(items, pa.line, pa.x_place, pa.x_place + it.length + pa.gap_min, st.next):
                it.place = LINE
                it.line = pa.line
                it.rear = pa.x_place
                it.rear_prev = pa.x_place
                it.travel = 0.0
                st.next += 1
                st.placed += 1
            else:
                st.blocked_ticks += 1
    st.induct_prev = 1 if induct else 0
