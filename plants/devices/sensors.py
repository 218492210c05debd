"""D19 point sensors and the D20 analog height/distance sensor on a conveyor line.

Kinds (``kind``): DIFFUSE (any footprint covering x), INDUCTIVE (metal items only),
COLOUR (item colour in the bit mask ``colours``), HEIGHT_GATE (height >= ``h_min``), RETRO
(TRUE = beam clear, inverted). Only items on a line are seen (captured, lifted, diverted or
removed items are not, A8).
Faults: stuck at ``stuck_val`` on ticks [stuck_from, stuck_to); ``chatter``: the reading is
inverted on the second scan after every true edge (A22; one spurious pulse per edge).
Params: line, x (mm), kind, colours, h_min (mm), stuck_from, stuck_to, stuck_val, chatter.
State: truth (true reading of the current plant state), edge_tick (first tick of the last
true edge, -1 none). ``tick`` must run after every plant step (and once at tick 0) so that
``sense`` sees the state of tick k.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.items import LINE, covers
from plants.devices.protocol import NEVER, make_rows

DIFFUSE = 0
INDUCTIVE = 1
COLOUR = 2
HEIGHT_GATE = 3
RETRO = 4

PARAM_DTYPE = np.dtype(
    [
        ("line", np.int32),
        ("x", np.float64),
        ("kind", np.int32),
        ("colours", np.int64),
        ("h_min", np.float64),
        ("stuck_from", np.int64),
        ("stuck_to", np.int64),
        ("stuck_val", np.uint8),
        ("chatter", np.uint8),
    ]
)

STATE_DTYPE = np.dtype([("truth", np.uint8), ("edge_tick", np.int64)])


def colour_mask(*colours: int) -> int:
    """Bit mask of a COLOUR sensor's configured colour set."""
    mask = 0
    for c in colours:
        mask |= 1 << c
    return mask


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Sensor parameters; no faults by default."""
    base = dict(stuck_from=NEVER, stuck_to=NEVER)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """No edge seen yet (call ``tick`` at tick 0 before the first scan)."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["edge_tick"] = -1
    return st


@njit(cache=True)
def detects(pa, items):
    """Fault-free reading from the items' footprints (RETRO inverted: TRUE = clear)."""
    seen = False
    for j in range(items.shape[0]):
        it = items[j]
        if it.place == LINE and it.line == pa.line and covers(it, pa.x):
            if pa.kind == DIFFUSE or pa.kind == RETRO:
                seen = True
            elif pa.kind == INDUCTIVE:
                seen = seen | (it.metal != 0)
            elif pa.kind == COLOUR:
                seen = seen | (((pa.colours >> it.colour) & 1) != 0)
            elif pa.kind == HEIGHT_GATE:
                seen = seen | (it.height >= pa.h_min)
    if pa.kind == RETRO:
        return not seen
    return seen


@njit(cache=True)
def tick(st, pa, items, k):
    """Record the true reading of the plant state at tick k and when it last changed."""
    now = 1 if detects(pa, items) else 0
    if now != st.truth and k > 0:
        st.edge_tick = k
    st.truth = now


@njit(cache=True)
def sense(st, pa, k):
    """The reading the program sees at tick k (faults applied)."""
    if pa.stuck_from <= k < pa.stuck_to:
        return pa.stuck_val != 0
    val = st.truth != 0
    if pa.chatter and st.edge_tick >= 0 and k == st.edge_tick + 1:
        val = not val
    return val


@njit(cache=True)
def sense_height(pa, items):
    """Analog height at x (D20), INT in 0.1 mm, 0 when no item covers x."""
    h = 0.0
    for j in range(items.shape[0]):
        it = items[j]
        if it.place == LINE and it.line == pa.line and covers(it, pa.x):
            h = max(h, it.height)
    return np.int16(min(round(h * 10.0), 32767))
