"""D22 in-line diverting tools: air jet, pop-up divert point and swing-arm diverter.

All three watch a window of a conveyor line and move an item off the line by recording its
fate (DELIVERED to the tool's ``dest``, a lane or bin id); the task counts bins with
``chute``. Each tool uses the item's ``tool*`` columns while the item is in its window.

Params (``PARAM_DTYPE``, one row per tool): kind (JET, POPUP, ARM), tool id, line, x0/x1
(window or arm zone on the line, mm), tol (jet: capture tolerance on the centre, mm),
t_arm (s, arm travel), need (jet: consecutive ticks, 3).
State: arm stroke ``a`` (0 = home/straight, 1 = divert) and its previous value, n_jam /
first_jam (tick), n_diverted.
Rules:
  * JET: an item is blown off once JET has been TRUE on ``need`` consecutive ticks while its
    centre is within ±tol of the jet (x0 = x1 = x_jet).
  * POPUP (A37): an item whose centre is in [x0, x1] at the end of a step is counted with the
    output latched for that step; when its centre leaves the window it is diverted if the
    output was TRUE on every one of those ticks, passes if on none, and is jammed (S-JAM,
    damaged, it passes) otherwise.
  * ARM: when an item's front reaches x0 its lane is the arm position (a >= 0.98 divert,
    a <= 0.02 straight, otherwise S-JAM); a diverted item rides through the zone and leaves the
    line when its rear reaches x1; moving the arm while any footprint is in the zone is S-JAM. ZONE_OCC (sense_zone_occupied) includes diverted items until they leave.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.items import DELIVERED, LINE, centre, record_fate
from plants.devices.protocol import DT, EPS, make_rows

JET = 0
POPUP = 1
ARM = 2

STRAIGHT = 0
DIVERT = 1

PARAM_DTYPE = np.dtype(
    [
        ("kind", np.int32), ("tool", np.int32), ("line", np.int32),
        ("x0", np.float64), ("x1", np.float64), ("tol", np.float64),
        ("t_arm", np.float64), ("need", np.int32), ("dest", np.int32),
    ]
)

STATE_DTYPE = np.dtype(
    [
        ("a", np.float64), ("a_prev", np.float64), ("on_run", np.int32),
        ("n_jam", np.int64), ("first_jam", np.int64), ("n_diverted", np.int64),
    ]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: jet tolerance ±20 mm, 3 ticks, arm travel 0.3 s; tool id = unit index."""
    base = dict(tol=20.0, need=3, t_arm=0.3,
                tool=np.arange(n_units)[None, :].repeat(n_conditions, 0))
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """Arms at home, no events."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["first_jam"] = -1
    return st


@njit(cache=True)
def _jam(st, it, t):
    it.damaged = 1
    st.n_jam += 1
    if st.first_jam < 0:
        st.first_jam = t


@njit(cache=True)
def _divert(st, pa, it, t):
    record_fate(it, DELIVERED, pa.dest, t)
    st.n_diverted += 1


@njit(cache=True)
def _enter(pa, it):
    """Start this tool's bookkeeping for an item that was not yet in its window."""
    if it.tool != pa.tool:
        it.tool = pa.tool
        it.tool_in = 0
        it.tool_on = 0
        it.tool_lane = -1


@njit(cache=True)
def _tick_jet(st, pa, items, on, t):
    for j in range(items.shape[0]):
        it = items[j]
        if it.place != LINE or it.line != pa.line:
            continue
        if abs(centre(it) - pa.x0) <= pa.tol + EPS:
            _enter(pa, it)
            it.tool_on = it.tool_on + 1 if on else 0
            if it.tool_on >= pa.need:
                _divert(st, pa, it, t)
        elif it.tool == pa.tool:
            it.tool = -1


@njit(cache=True)
def _tick_popup(st, pa, items, on, t):
    for j in range(items.shape[0]):
        it = items[j]
        if it.place != LINE or it.line != pa.line:
            continue
        c = centre(it)
        if pa.x0 - EPS <= c <= pa.x1 + EPS:
            _enter(pa, it)
            it.tool_in += 1
            if on:
                it.tool_on += 1
        elif it.tool == pa.tool:
            it.tool = -1
            if it.tool_on == it.tool_in and it.tool_in > 0:
                _divert(st, pa, it, t)
            elif it.tool_on > 0:
                _jam(st, it, t)


@njit(cache=True)
def _tick_arm(st, pa, items, divert, t):
    st.a_prev = st.a
    step = DT / pa.t_arm
    st.a = min(1.0, st.a + step) if divert else max(0.0, st.a - step)
    if st.a >= 1.0 - EPS:
        st.a = 1.0
    if st.a <= EPS:
        st.a = 0.0
    moving = st.a != st.a_prev
    for j in range(items.shape[0]):
        it = items[j]
        if it.place != LINE or it.line != pa.line:
            continue
        in_zone = it.rear < pa.x1 - EPS and it.rear + it.length > pa.x0 + EPS
        if it.tool != pa.tool and it.rear + it.length >= pa.x0 - EPS and it.rear < pa.x0:
            _enter(pa, it)
            if st.a >= 0.98 - EPS:
                it.tool_lane = DIVERT
            elif st.a <= 0.02 + EPS:
                it.tool_lane = STRAIGHT
            else:
                it.tool_lane = STRAIGHT
                _jam(st, it, t)
        if in_zone and moving:
            _jam(st, it, t)
        if it.tool == pa.tool and it.tool_lane == DIVERT and it.rear >= pa.x1 - EPS:
            _divert(st, pa, it, t)


@njit(cache=True)
def tick(st, pa, items, on, k):
    """Apply the tool for the step k -> k+1 (after the line moved); ``on`` = JET/DIVERT output."""
    t = k + 1
    if pa.kind == JET:
        _tick_jet(st, pa, items, on, t)
    elif pa.kind == POPUP:
        _tick_popup(st, pa, items, on, t)
    else:
        _tick_arm(st, pa, items, on, t)


@njit(cache=True)
def sense_arm_home(st):
    """ARM_HOME switch."""
    return st.a <= 0.02 + EPS


@njit(cache=True)
def sense_arm_div(st):
    """ARM_DIV switch."""
    return st.a >= 0.98 - EPS


@njit(cache=True)
def sense_zone_occupied(pa, items):
    """ZONE_OCC (A26): any footprint in the arm zone, diverted items included until they leave."""
    for j in range(items.shape[0]):
        it = items[j]
        if it.place == LINE and it.line == pa.line:
            if it.rear < pa.x1 - EPS and it.rear + it.length > pa.x0 + EPS:
                return True
    return False
