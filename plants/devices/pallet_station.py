"""D27 pallet station: pallet dispenser, layer placement with support, pallet lift flags.

Dispenser. Two cylinder rows the task ticks first: the lift table (s = 0 DOWN .. 1 UP;
TABLE_DOWN s <= 0.02, TABLE_MID |s - 0.5| <= 0.02, TABLE_UP s >= 0.98) and the hold forks
(s = 1 IN, holding; HOLD_IN s >= 0.98, HOLD_OUT s <= 0.02; the forks carry the stack while
s > 0.5). Params: n_pallets (initial stack). State: n_stack (pallets above the table
level), stack_on_table (the stack rests on the table, forks open), on_table (a separated
pallet on the table), n_released (pallets delivered at DOWN), forks_held (forks carried
the stack last tick), n_drop/first_drop_tick, n_fork_hit/first_fork_hit_tick.
Tick: forks opening (carrying -> not) while the table is not UP drop the stack onto the
table (S-DROP); with the table UP the stack simply rests on it. Forks closing with the
table at MID catch the second pallet: the bottom one stays on the table, the rest is held;
closing at UP takes the whole stack back; closing anywhere else strikes a pallet
(``n_fork_hit``, for the task's S-CRUSH/S-COLLIDE rule). A separated pallet reaching DOWN is
released (``n_released``; the task moves it on; PALLET_OUT = ``sense_pallet_out``).

Placement. Boxes (``BOX_DTYPE``, one array per condition) are placed by slot (x, y = centre
on the pallet, mm; rot 0 or 90°; layer 1..) with box dimensions (l along x at rot 0, w,
h); the pallet is [0, pallet_l] x [0, pallet_w]. A box is supported if >= 60 % of its
footprint lies on the pallet (layer 1) or on boxes of layer - 1 (the supported area is the
sum of pairwise rectangle intersections, exact while the boxes of a layer do not overlap,
i.e. while no S-CRUSH was counted). ``place`` counts S-DROP (unsupported release),
S-COLLAPSE (released > 20 mm above its resting height (layer - 1)·h) and S-CRUSH (a box
placed into a box of its own layer or above: the stack top under it is higher than its
bottom) in a ``PLACE_STATE_DTYPE`` row; ``stack_top`` and ``s_crush`` judge a
descending box or tool against the stack top under its footprint.

Pallet lift: a ``raw_axis`` row; ``layer_flag`` is the layer-height flag
|z - (z_layer0 + layer·h)| <= window.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.protocol import EPS, make_rows

PARAM_DTYPE = np.dtype([("n_pallets", np.int32)])

STATE_DTYPE = np.dtype(
    [("n_stack", np.int32), ("stack_on_table", np.uint8), ("on_table", np.uint8),
     ("n_released", np.int64), ("forks_held", np.uint8),
     ("n_drop", np.int64), ("first_drop_tick", np.int64),
     ("n_fork_hit", np.int64), ("first_fork_hit_tick", np.int64)]
)

BOX_DTYPE = np.dtype(
    [("x0", np.float64), ("x1", np.float64), ("y0", np.float64), ("y1", np.float64),
     ("layer", np.int32), ("z_top", np.float64), ("supported", np.uint8)]
)

PLACE_STATE_DTYPE = np.dtype(
    [("n_boxes", np.int64), ("n_drop", np.int64), ("first_drop_tick", np.int64),
     ("n_collapse", np.int64), ("first_collapse_tick", np.int64),
     ("n_crush", np.int64), ("first_crush_tick", np.int64)]
)

SUPPORT_MIN = 0.6
COLLAPSE_MM = 20.0
SWITCH_BAND = 0.02


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: a stack of 10 pallets."""
    base = dict(n_pallets=10)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """Stack held by the closed forks, table empty (start the fork cylinder at s = 1)."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["n_stack"] = params["n_pallets"]
    st["forks_held"] = 1
    st["first_drop_tick"] = -1
    st["first_fork_hit_tick"] = -1
    return st


def make_boxes(n_conditions: int, max_boxes: int) -> tuple[np.ndarray, np.ndarray]:
    """Empty box tables ``(n_conditions, max_boxes)`` and their placement counters."""
    ps = np.zeros((n_conditions, 1), PLACE_STATE_DTYPE)
    ps["first_drop_tick"] = -1
    ps["first_collapse_tick"] = -1
    ps["first_crush_tick"] = -1
    return np.zeros((n_conditions, max_boxes), BOX_DTYPE), ps


@njit(cache=True)
def sense_table_up(table):
    """TABLE_UP switch (table cylinder row)."""
    return table.s >= 1.0 - SWITCH_BAND - EPS


@njit(cache=True)
def sense_table_mid(table):
    """TABLE_MID switch."""
    return abs(table.s - 0.5) <= SWITCH_BAND + EPS


@njit(cache=True)
def sense_table_down(table):
    """TABLE_DOWN switch."""
    return table.s <= SWITCH_BAND + EPS


@njit(cache=True)
def sense_hold_in(forks):
    """HOLD_IN switch (forks closed under the stack)."""
    return forks.s >= 1.0 - SWITCH_BAND - EPS


@njit(cache=True)
def sense_hold_out(forks):
    """HOLD_OUT switch (forks open)."""
    return forks.s <= SWITCH_BAND + EPS


@njit(cache=True)
def sense_pallet_out(st, table):
    """A separated pallet lies on the table at DOWN, ready to leave."""
    return st.on_table != 0 and sense_table_down(table)


@njit(cache=True)
def sense_stack_empty(st):
    """No pallet left above the table."""
    return st.n_stack == 0 and st.stack_on_table == 0


@njit(cache=True)
def _drop(st, t):
    if st.n_drop == 0:
        st.first_drop_tick = t
    st.n_drop += 1


@njit(cache=True)
def _fork_hit(st, t):
    if st.n_fork_hit == 0:
        st.first_fork_hit_tick = t
    st.n_fork_hit += 1


@njit(cache=True)
def tick(st, pa, table, forks, k):
    """Apply the dispenser for the step k -> k+1 (both cylinder rows already ticked)."""
    t = k + 1
    holding = forks.s > 0.5
    if st.forks_held and not holding and st.n_stack > 0:
        if not sense_table_up(table):
            _drop(st, t)
        if st.on_table:  # the stack comes down onto the separated pallet again
            st.n_stack += 1
            st.on_table = 0
        st.stack_on_table = 1
    elif not st.forks_held and holding and st.stack_on_table:
        if sense_table_up(table):
            st.stack_on_table = 0
        elif sense_table_mid(table):
            st.stack_on_table = 0
            st.n_stack -= 1
            st.on_table = 1
        else:
            _fork_hit(st, t)
    if st.stack_on_table and st.n_stack == 1 and sense_table_down(table):
        st.stack_on_table = 0
        st.n_stack = 0
        st.on_table = 1
    st.forks_held = 1 if holding else 0


@njit(cache=True)
def take_pallet(st, table):
    """The task's outfeed takes the released pallet; returns TRUE if there was one."""
    if sense_pallet_out(st, table):
        st.on_table = 0
        st.n_released += 1
        return True
    return False


# ---------------------------------------------------------------- placement


@njit(cache=True)
def overlap_1d(a0, a1, b0, b1):
    """Length of the intersection of [a0, a1] and [b0, b1] (0 if disjoint)."""
    return max(0.0, min(a1, b1) - max(a0, b0))


@njit(cache=True)
def footprint(x, y, rot, box_l, box_w):
    """(x0, x1, y0, y1) of a box centred at (x, y), l along x at rot 0, along y at 90°."""
    if rot == 90:
        hx, hy = 0.5 * box_w, 0.5 * box_l
    else:
        hx, hy = 0.5 * box_l, 0.5 * box_w
    return x - hx, x + hx, y - hy, y + hy


@njit(cache=True)
def supported_fraction(boxes, n, x0, x1, y0, y1, layer, pallet_l, pallet_w):
    """Share of the footprint resting on the pallet (layer 1) or on the n placed boxes of
    layer - 1."""
    area = (x1 - x0) * (y1 - y0)
    if area <= EPS:
        return 0.0
    if layer <= 1:
        on = overlap_1d(x0, x1, 0.0, pallet_l) * overlap_1d(y0, y1, 0.0, pallet_w)
        return on / area
    on = 0.0
    for j in range(n):
        b = boxes[j]
        if b.layer == layer - 1:
            on += overlap_1d(x0, x1, b.x0, b.x1) * overlap_1d(y0, y1, b.y0, b.y1)
    return on / area


@njit(cache=True)
def stack_top(boxes, n, x0, x1, y0, y1):
    """Highest top (mm above the pallet surface) of the placed boxes under a footprint."""
    top = 0.0
    for j in range(n):
        b = boxes[j]
        if overlap_1d(x0, x1, b.x0, b.x1) > EPS and overlap_1d(y0, y1, b.y0, b.y1) > EPS:
            top = max(top, b.z_top)
    return top


@njit(cache=True)
def s_crush(boxes, n, x0, x1, y0, y1, z_bottom, descending):
    """S-CRUSH: a descending box or tool whose bottom is below the stack top at its xy."""
    return descending and z_bottom < stack_top(boxes, n, x0, x1, y0, y1) - EPS


@njit(cache=True)
def place(boxes, ps, x, y, rot, layer, box_l, box_w, box_h, release_z, pallet_l, pallet_w,
          k):
    """Release a box into slot (x, y, rot, layer) from bottom height ``release_z`` (mm above
    the pallet surface); records it and counts S-DROP / S-COLLAPSE. Returns its row."""
    t = k + 1
    n = ps.n_boxes
    x0, x1, y0, y1 = footprint(x, y, rot, box_l, box_w)
    frac = supported_fraction(boxes, n, x0, x1, y0, y1, layer, pallet_l, pallet_w)
    if stack_top(boxes, n, x0, x1, y0, y1) > (layer - 1) * box_h + EPS:
        if ps.n_crush == 0:
            ps.first_crush_tick = t
        ps.n_crush += 1
    b = boxes[n]
    b.x0, b.x1, b.y0, b.y1 = x0, x1, y0, y1
    b.layer = layer
    b.z_top = layer * box_h
    b.supported = 1 if frac >= SUPPORT_MIN - EPS else 0
    ps.n_boxes = n + 1
    if not b.supported:
        if ps.n_drop == 0:
            ps.first_drop_tick = t
        ps.n_drop += 1
    if release_z - (layer - 1) * box_h > COLLAPSE_MM + EPS:
        if ps.n_collapse == 0:
            ps.first_collapse_tick = t
        ps.n_collapse += 1
    return n


@njit(cache=True)
def layer_flag(z, z_layer0, layer_h, layer, window):
    """Layer-height flag of the pallet lift (``raw_axis`` x): within ±window of the layer."""
    return abs(z - (z_layer0 + layer * layer_h)) <= window + EPS
