"""D18 conveyor lines: segments, joints, end plates, open ends and receivers (G11).

A line is one straight flow coordinate (mm) made of contiguous segments (belts, roller
zones). Each tick the task sets every segment's surface speed ``v`` (mm/s, signed) from its
drive (D03/D04/D06/MDR), then ``tick_line`` moves the line's items:
  * an item moves with the surface under its centre; it changes carrier when its centre
    crosses a joint (crossing onto a surface at standstill, |v| < 5 mm/s, counts a PILEUP, A24);
  * movement is limited by raised obstacles (stopper blades, end plates: ``OBSTACLE_DTYPE``)
    and by the item ahead; an item limited while its surface moves is ``pressed``;
  * an item whose centre passes a line end is DELIVERED (receiver) or DROPPED (open end).
Processing downstream movers first (and upstream movers in reverse order), each limited by
its neighbours' current positions, keeps items from ever overlapping.

LINE_DTYPE (params): x_start, x_end (mm); down_kind/up_kind (END_OPEN, END_RECEIVER,
END_PLATE) and down_dest/up_dest (destination id of a receiver).
LINE_STATE_DTYPE: n_drop, first_drop, n_pileup, first_pileup, n_delivered (ticks of the first
event; -1 = none).
SEGMENT_DTYPE: line, x0, x1 (mm), v (mm/s, written by the task before tick_line).
OBSTACLE_DTYPE: line, x (mm), up (1 = blocks).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.items import DELIVERED, DROPPED, LINE, centre, record_fate
from plants.devices.protocol import DT, EPS, make_rows

END_OPEN = 0
END_RECEIVER = 1
END_PLATE = 2

STANDSTILL_MM_S = 5.0
"""Standstill of non-servo surfaces (A4)."""

LINE_DTYPE = np.dtype(
    [
        ("x_start", np.float64),
        ("x_end", np.float64),
        ("down_kind", np.int32),
        ("down_dest", np.int32),
        ("up_kind", np.int32),
        ("up_dest", np.int32),
    ]
)

LINE_STATE_DTYPE = np.dtype(
    [
        ("n_drop", np.int64),
        ("first_drop", np.int64),
        ("n_pileup", np.int64),
        ("first_pileup", np.int64),
        ("n_delivered", np.int64),
    ]
)

SEGMENT_DTYPE = np.dtype(
    [("line", np.int32), ("x0", np.float64), ("x1", np.float64), ("v", np.float64)]
)

OBSTACLE_DTYPE = np.dtype([("line", np.int32), ("x", np.float64), ("up", np.uint8)])


def make_lines(n_conditions: int, n_lines: int = 1, **values) -> np.ndarray:
    """Line parameters; default a 0..2000 mm line with an open far end and an end plate at 0."""
    base = dict(x_start=0.0, x_end=2000.0, down_kind=END_OPEN, down_dest=-1,
                up_kind=END_PLATE, up_dest=-1)
    base.update(values)
    return make_rows(LINE_DTYPE, n_conditions, n_lines, base)


def make_line_state(lines: np.ndarray) -> np.ndarray:
    """No events yet."""
    st = np.zeros(lines.shape, LINE_STATE_DTYPE)
    st["first_drop"] = -1
    st["first_pileup"] = -1
    return st


def make_segments(n_conditions: int, n_segments: int = 1, **values) -> np.ndarray:
    """Segment geometry (speed starts at 0)."""
    return make_rows(SEGMENT_DTYPE, n_conditions, n_segments, values)


def make_obstacles(n_conditions: int, n_obstacles: int = 1, **values) -> np.ndarray:
    """Obstacle positions (lowered unless ``up`` is given)."""
    return make_rows(OBSTACLE_DTYPE, n_conditions, n_obstacles, values)


@njit(cache=True)
def segment_at(segments, line, x):
    """Index of the segment of ``line`` under position x, -1 if none."""
    for s in range(segments.shape[0]):
        sg = segments[s]
        if sg.line == line and sg.x0 - EPS <= x < sg.x1 - EPS:
            return s
    # the last segment of a line includes its downstream edge
    for s in range(segments.shape[0]):
        sg = segments[s]
        if sg.line == line and abs(x - sg.x1) <= EPS:
            return s
    return -1


@njit(cache=True)
def surface_speed(segments, line, x):
    """Surface speed under position x (mm/s); 0 where no segment carries."""
    s = segment_at(segments, line, x)
    if s < 0:
        return 0.0
    return segments[s].v


@njit(cache=True)
def _limit_forward(items, obstacles, lp, line, j, lim):
    """Largest forward displacement <= lim that touches neither an obstacle nor an item ahead."""
    it = items[j]
    fr = it.rear + it.length
    if lp.down_kind == END_PLATE and fr <= lp.x_end + EPS:
        lim = min(lim, lp.x_end - fr)
    for o in range(obstacles.shape[0]):
        ob = obstacles[o]
        if ob.line == line and ob.up and fr <= ob.x + EPS:
            lim = min(lim, ob.x - fr)
    for q in range(items.shape[0]):
        other = items[q]
        if q != j and other.place == LINE and other.line == line and other.rear >= it.rear:
            lim = min(lim, other.rear - fr)
    return max(lim, 0.0)


@njit(cache=True)
def _limit_backward(items, obstacles, lp, line, j, lim):
    """Largest backward displacement <= lim (positive number) blocked as in _limit_forward."""
    it = items[j]
    if lp.up_kind == END_PLATE and it.rear >= lp.x_start - EPS:
        lim = min(lim, it.rear - lp.x_start)
    for o in range(obstacles.shape[0]):
        ob = obstacles[o]
        if ob.line == line and ob.up and it.rear >= ob.x - EPS:
            lim = min(lim, it.rear - ob.x)
    for q in range(items.shape[0]):
        other = items[q]
        if q != j and other.place == LINE and other.line == line and other.rear <= it.rear:
            lim = min(lim, it.rear - (other.rear + other.length))
    return max(lim, 0.0)


@njit(cache=True)
def _move(items, segments, obstacles, lp, ln, line, j, k):
    """Move item j by its surface displacement, limited; update pressed state and carriers."""
    it = items[j]
    c0 = centre(it)
    d = surface_speed(segments, line, c0) * DT
    if d > EPS:
        step = _limit_forward(items, obstacles, lp, line, j, d)
    elif d < -EPS:
        step = -_limit_backward(items, obstacles, lp, line, j, -d)
    else:
        step = 0.0
    if abs(step) < abs(d) - EPS:
        it.pressed = 1
        it.press_ticks += 1
    else:
        it.pressed = 0
        it.press_ticks = 0
    it.rear += step
    it.travel += step
    s_old = segment_at(segments, line, c0)
    s_new = segment_at(segments, line, centre(it))
    if s_new >= 0 and s_new != s_old and abs(segments[s_new].v) < STANDSTILL_MM_S:
        ln.n_pileup += 1
        if ln.first_pileup < 0:
            ln.first_pileup = k + 1


@njit(cache=True)
def _settle_ends(items, lp, ln, line, k):
    """Record the fate of items whose centre has passed an open end or a receiver."""
    for j in range(items.shape[0]):
        it = items[j]
        if it.place != LINE or it.line != line:
            continue
        c = centre(it)
        kind = -1
        dest = -1
        if c > lp.x_end + EPS:
            kind = lp.down_kind
            dest = lp.down_dest
        elif c < lp.x_start - EPS:
            kind = lp.up_kind
            dest = lp.up_dest
        if kind == END_RECEIVER:
            record_fate(it, DELIVERED, dest, k + 1)
            ln.n_delivered += 1
        elif kind == END_OPEN:
            record_fate(it, DROPPED, -1, k + 1)
            ln.n_drop += 1
            if ln.first_drop < 0:
                ln.first_drop = k + 1


@njit(cache=True)
def tick_line(items, segments, obstacles, lp, ln, line, k):
    """Advance all items of one line by one 10 ms step (the task has set segment speeds)."""
    n = items.shape[0]
    rears = np.empty(n)
    for j in range(n):
        it = items[j]
        it.rear_prev = it.rear
        rears[j] = it.rear if (it.place == LINE and it.line == line) else -np.inf
    order = np.argsort(rears)
    # forward movers, downstream first
    for r in range(n - 1, -1, -1):
        j = order[r]
        it = items[j]
        if it.place == LINE and it.line == line:
            if surface_speed(segments, line, centre(it)) > 0.0:
                _move(items, segments, obstacles, lp, ln, line, j, k)
    # backward movers, upstream first; items at rest clear their pressed flag
    for r in range(n):
        j = order[r]
        it = items[j]
        if it.place == LINE and it.line == line:
            if surface_speed(segments, line, centre(it)) <= 0.0:
                _move(items, segments, obstacles, lp, ln, line, j, k)
    _settle_ends(items, lp, ln, line, k)
