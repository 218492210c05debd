"""D22 pusher across a conveyor line, driven by a D11 cylinder (A10, A27, A36).

Geometry: plate window [xp - win, xp + win] on ``line``; capture tolerance ±tol on the item
centre; captured items are delivered to chute ``chute`` when the stroke reaches 0.98.
Tick (after the line moved and the cylinder ticked, so ``cyl.s_prev -> cyl.s`` is this step):
  * the first tick with stroke >= 0.05: the window item whose centre is within ±tol (the
    nearest if several) is captured (leaves the line, held by the plate); every other item in
    the window is struck (S-JAM, damaged);
  * while the stroke is >= 0.05, an item entering the window is struck (S-STRIKE, damaged);
  * a captured item is delivered at s >= 0.98; if the plate retracts before that it falls
    back onto the belt at its position and is marked damaged (A10); if another item has moved
    into that place meanwhile it is DROPPED instead (items never overlap).
Params: line, xp, win, tol (mm), chute (chute unit index).
State: captured (item row, -1 none), n_jam/first_jam, n_strike/first_strike (tick, -1 none).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import chute as chute_dev
from plants.devices.items import DELIVERED, DROPPED, HELD, LINE, centre, line_is_free, record_fate
from plants.devices.protocol import EPS, make_rows

CAPTURE_STROKE = 0.05
DELIVER_STROKE = 0.98

PARAM_DTYPE = np.dtype(
    [
        ("line", np.int32),
        ("xp", np.float64),
        ("win", np.float64),
        ("tol", np.float64),
        ("chute", np.int32),
    ]
)

STATE_DTYPE = np.dtype(
    [
        ("captured", np.int32),
        ("n_jam", np.int64),
        ("first_jam", np.int64),
        ("n_strike", np.int64),
        ("first_strike", np.int64),
    ]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: plate window ±50 mm (A10), tolerance ±25 mm, chute 0."""
    base = dict(win=50.0, tol=25.0)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """Nothing captured, no events."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["captured"] = -1
    st["first_jam"] = -1
    st["first_strike"] = -1
    return st


@njit(cache=True)
def in_window(pa, rear, length):
    """TRUE if a footprint [rear, rear + length] overlaps the plate window."""
    return rear < pa.xp + pa.win - EPS and rear + length > pa.xp - pa.win + EPS


@njit(cache=True)
def _strike(st, it, is_jam, k):
    it.damaged = 1
    if is_jam:
        st.n_jam += 1
        if st.first_jam < 0:
            st.first_jam = k
    else:
        st.n_strike += 1
        if st.first_strike < 0:
            st.first_strike = k


@njit(cache=True)
def _capture_or_jam(st, pa, items, k):
    """Decide capture on the first tick the plate is out (A10)."""
    best = -1
    best_err = pa.tol + EPS
    for j in range(items.shape[0]):
        it = items[j]
        if it.place == LINE and it.line == pa.line and in_window(pa, it.rear, it.length):
            err = abs(centre(it) - pa.xp)
            if err <= best_err:
                best = j
                best_err = err
    for j in range(items.shape[0]):
        it = items[j]
        if j != best and it.place == LINE and it.line == pa.line:
            if in_window(pa, it.rear, it.length):
                _strike(st, it, True, k)
    if best >= 0:
        items[best].place = HELD
        st.captured = best


@njit(cache=True)
def tick(st, pa, cyl, items, chutes_st, chutes_pa, k):
    """Apply the plate's effect for the step k -> k+1 (``cyl`` is the cylinder's state row)."""
    t = k + 1
    s0 = cyl.s_prev
    s1 = cyl.s
    out_now = s1 >= CAPTURE_STROKE - EPS
    if out_now and s0 < CAPTURE_STROKE - EPS:
        _capture_or_jam(st, pa, items, t)
    elif out_now:
        for j in range(items.shape[0]):
            it = items[j]
            if it.place == LINE and it.line == pa.line and in_window(pa, it.rear, it.length):
                if not in_window(pa, it.rear_prev, it.length):
                    _strike(st, it, False, t)
    if st.captured >= 0:
        it = items[st.captured]
        if s1 >= DELIVER_STROKE - EPS:
            chute_dev.deliver(chutes_st[pa.chute], chutes_pa[pa.chute], t)
            record_fate(it, DELIVERED, chutes_pa[pa.chute].dest, t)
            st.captured = -1
        elif s1 < s0 - EPS:
            it.damaged = 1
            held = st.captured
            st.captured = -1
            if line_is_free(items, pa.line, it.rear, it.rear + it.length, held):
                it.place = LINE
            else:
                record_fate(it, DROPPED, -1, t)
