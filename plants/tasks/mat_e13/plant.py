"""MAT-E13 plant binding: item source, DOL-tau belt into a sink, three photo-eyes, stalling
items, the removing operator, and the judge (per-item running-time deadlines; S-JAMRUN).

Batch state (``build``), one row per condition: the item table, the belt (one 3000 mm
segment with a sink at its end), one obstacle per stall, the DOL motor, the emitter, the
photo-eyes, the stalls, the task parameters, the operator and the judge record.
A stall is an obstacle raised at the stall position once every item ahead of the stalling
item has passed it: the item stops there while the belt slides under it, and the items
behind are held up by it. A temporary stall lowers its obstacle after its duration, a jam
when the operator removes the item.
Plant step (``advance``): motor, belt speed, stalls, items, placement, operator, sensors.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import conveyor, dol, emitter, sensors
from plants.devices import items as items_mod
from plants.devices.protocol import EPS, ticks
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_AUTO_SW, I_PE_A, I_PE_M, I_PE_B, I_RESET_PB = range(5)
O_CONV, O_LAMP_JAM = range(2)

BELT_MM = 3000.0
PE_X = (200.0, 1600.0, 2800.0)
ITEM_MM = 300.0
PLACE_GAP_MM = 100.0  # the source places an item only when [0, 400] mm is free
FIRST_S = 1.0
REMOVE_TICKS = 300  # operator removes a jammed item 3.0 s after LAMP_JAM rises
RESET_DELAY_TICKS = 100  # ... and presses RESET_PB 1.0 s after the removal
RESET_PRESS_TICKS = 30  # for 0.3 s
TOLERANCE_TICKS = 2  # A5/A17: the alarm may rise up to 2 ticks before its deadline
FIFO = 16  # deadline slots per segment (more than the items of a run)

VIOLATIONS = ("S-JAMRUN",)
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "LAMP_JAM rose at {arg} s although no deadline had run out (false alarm)",
    "LAMP_JAM did not rise within 0.5 s of the deadline that ran out at {arg} s",
)
"""Failure reason id i + 1 -> text."""

ARMED, RAISED, OVER = range(3)
STALL_DTYPE = np.dtype([("item", np.int64), ("x", np.float64), ("dur", np.int64),
                        ("state", np.int64), ("t_hit", np.int64)])
TASK_DTYPE = np.dtype([("v_nom", np.float64), ("seg_lim", np.int64), ("blk_lim", np.int64),
                       ("window", np.int64)])
OPERATOR_DTYPE = np.dtype([("prev_lamp", np.uint8), ("lamp_k", np.int64), ("removal_k", np.int64),
                           ("removed", np.int64)])
JUDGE_DTYPE = np.dtype([
    ("prev_conv", np.uint8), ("prev_lamp", np.uint8), ("run", np.int64), ("due_k", np.int64),
    ("prev_pe", np.uint8, (3,)), ("blk_on", np.uint8, (3,)), ("blk_stamp", np.int64, (3,)),
    ("stamps", np.int64, (2, FIFO)), ("head", np.int64, (2,)), ("tail", np.int64, (2,)),
])

# Slots of the plant tuple.
ITEMS, SEGS, OBST, LINES, LSTATE, EPA, EST, MPA, MST, SPA, SST, STALLS, TASKP, OPER, JUDGE = range(15)


def placement_times(v_mm_s: float, pitch_mm: float, n_items: int) -> list[float]:
    """Times (s) the source wants to place the items: every pitch / v from FIRST_S."""
    return [FIRST_S + i * pitch_mm / v_mm_s for i in range(n_items)]


def _stall_rows(params: dict) -> list[tuple[int, float, int]]:
    """(item row, front position, duration ticks or -1 for a jam) of one condition."""
    rows = []
    if "jam_item" in params:
        rows.append((int(params["jam_item"]) - 1, float(params["jam_front_mm"]), -1))
    if "stall_item" in params:
        rows.append((int(params["stall_item"]) - 1, float(params["stall_front_mm"]),
                     ticks(float(params["stall_s"]))))
    return rows


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    per_items = []
    stalls = np.zeros((n, 2), STALL_DTYPE)
    stalls["item"] = -1
    stalls["t_hit"] = -1
    obst = conveyor.make_obstacles(n, 2, line=-1)
    for c, cond in enumerate(task.conditions):
        p = cond.params
        times = placement_times(float(p["v_mm_s"]), float(p["pitch_mm"]), int(p["n_items"]))
        per_items.append([dict(length=ITEM_MM, t_place=ticks(t)) for t in times])
        for s, (row, x, dur) in enumerate(_stall_rows(p)):
            stalls[c, s] = (row, x, dur, ARMED, -1)
            obst[c, s] = (0, x, 0)
    items = items_mod.make_items(per_items)
    segs = conveyor.make_segments(n, 1, line=0, x0=0.0, x1=BELT_MM)
    lines = conveyor.make_lines(n, 1, x_start=0.0, x_end=BELT_MM, down_kind=conveyor.END_RECEIVER,
                                up_kind=conveyor.END_PLATE)
    epa = emitter.make_params(n, 1, line=0, x_place=0.0, gap_min=PLACE_GAP_MM,
                              mode=emitter.TIME, first=0, last=[len(b) for b in per_items])
    mpa = dol.make_params(n, 1, pickup=0, dropout=0, tau_acc=0.1, tau_coast=0.1)
    spa = sensors.make_params(n, 3, line=0, kind=sensors.DIFFUSE, x=np.array([PE_X]))
    taskp = np.zeros(n, TASK_DTYPE)
    taskp["v_nom"] = [float(c.params["v_mm_s"]) for c in task.conditions]
    taskp["seg_lim"] = ticks(float(task.judge.get("segment_s", 8.5)))
    taskp["blk_lim"] = ticks(float(task.judge.get("blocked_s", 3.0)))
    taskp["window"] = ticks(float(task.judge.get("alarm_window_s", 0.5)))
    oper = np.zeros(n, OPERATOR_DTYPE)
    oper["lamp_k"] = -1
    oper["removal_k"] = -1
    judge_state = np.zeros(n, JUDGE_DTYPE)
    judge_state["due_k"] = -1
    return (items, segs, obst, lines, conveyor.make_line_state(lines), epa,
            emitter.make_state(epa), mpa, dol.make_state(mpa), spa, sensors.make_state(spa),
            stalls, taskp, oper, judge_state)


@njit(cache=True)
def _reset_pressed(op, k):
    """RESET_PB in the input image of scan k: 0.3 s from 1.0 s after the removal step."""
    r = op.removal_k + RESET_DELAY_TICKS
    return op.removal_k >= 0 and r < k <= r + RESET_PRESS_TICKS


@njit(cache=True)
def sense(plant, c, k, inp):
    """Photo-eyes from the item footprints, AUTO_SW on, RESET_PB from the operator."""
    spa, sst = plant[SPA][c], plant[SST][c]
    inp[I_AUTO_SW] = 1.0
    for u in range(3):
        inp[I_PE_A + u] = 1.0 if sensors.sense(sst[u], spa[u], k) else 0.0
    inp[I_RESET_PB] = 1.0 if _reset_pressed(plant[OPER][c], k) else 0.0


@njit(cache=True)
def _ahead_clear(items, j, x):
    """TRUE if every item ahead of row j has its front past x (the stall stops only j)."""
    rear = items[j].rear
    for q in range(items.shape[0]):
        it = items[q]
        if q != j and it.place == items_mod.LINE and it.rear > rear and items_mod.front(it) <= x + EPS:
            return False
    return True


@njit(cache=True)
def _tick_stalls(items, stalls, obst, k):
    """Raise a stall's obstacle when its item is the next to reach it; end temporary stalls."""
    for s in range(stalls.shape[0]):
        st = stalls[s]
        if st.item < 0:
            continue
        it = items[st.item]
        if st.state == ARMED and it.place == items_mod.LINE and _ahead_clear(items, st.item, st.x):
            obst[s].up = 1
            st.state = RAISED
        if st.state == RAISED and st.dur >= 0 and st.t_hit >= 0 and k - st.t_hit >= st.dur:
            obst[s].up = 0
            st.state = OVER


@njit(cache=True)
def _note_hits(items, stalls, k):
    """Tick at which a stalling item's front has reached its stall position."""
    for s in range(stalls.shape[0]):
        st = stalls[s]
        if st.state == RAISED and st.t_hit < 0 and items_mod.front(items[st.item]) >= st.x - EPS:
            st.t_hit = k


@njit(cache=True)
def _operator(op, items, stalls, obst, lamp, k):
    """Remove the jammed items 3 s after LAMP_JAM rose; go idle after the RESET_PB press."""
    if op.lamp_k < 0 and lamp and op.prev_lamp == 0:
        op.lamp_k = k
    op.prev_lamp = 1 if lamp else 0
    if op.lamp_k >= 0 and op.removal_k < 0 and k >= op.lamp_k + REMOVE_TICKS:
        for s in range(stalls.shape[0]):
            st = stalls[s]
            if st.state == RAISED and st.dur < 0 and st.t_hit >= 0:
                items_mod.record_fate(items[st.item], items_mod.REMOVED, -1, k + 1)
                obst[s].up = 0
                st.state = OVER
                op.removed += 1
        op.removal_k = k
    if op.removal_k >= 0 and k >= op.removal_k + RESET_DELAY_TICKS + RESET_PRESS_TICKS:
        op.lamp_k = -1
        op.removal_k = -1


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: motor and belt, stalls, items, placement, operator, sensors."""
    items, stalls, obst = plant[ITEMS][c], plant[STALLS][c], plant[OBST][c]
    mst = plant[MST][c, 0]
    dol.tick(mst, plant[MPA][c, 0], out[O_CONV] != 0.0, k)
    plant[SEGS][c, 0].v = mst.n * plant[TASKP][c].v_nom
    _tick_stalls(items, stalls, obst, k)
    conveyor.tick_line(items, plant[SEGS][c], obst, plant[LINES][c, 0], plant[LSTATE][c, 0], 0, k)
    _note_hits(items, stalls, k + 1)
    emitter.tick(plant[EST][c, 0], plant[EPA][c, 0], items, False, k)
    _operator(plant[OPER][c], items, stalls, obst, out[O_LAMP_JAM] != 0.0, k)
    spa, sst = plant[SPA][c], plant[SST][c]
    for u in range(3):
        sensors.tick(sst[u], spa[u], items, k + 1)


@njit(cache=True)
def _track_edges(js, inp):
    """Photo-eye edges on the program's input image: stamp entries, pop arrivals."""
    for p in range(3):
        now = inp[I_PE_A + p] != 0.0
        if now and js.prev_pe[p] == 0:
            js.blk_stamp[p] = js.run
            js.blk_on[p] = 1
            if p > 0 and js.tail[p - 1] > js.head[p - 1]:
                js.head[p - 1] += 1  # the oldest item of the segment ending here arrived
            if p < 2:
                js.stamps[p, js.tail[p] % FIFO] = js.run
                js.tail[p] += 1
        if not now:
            js.blk_on[p] = 0
        js.prev_pe[p] = 1 if now else 0


@njit(cache=True)
def _worst_over(js, tp):
    """Largest running time beyond its limit (ticks) over every live deadline."""
    worst = -(1 << 40)
    for g in range(2):
        if js.tail[g] > js.head[g]:
            worst = max(worst, js.run - js.stamps[g, js.head[g] % FIFO] - tp.seg_lim)
    for p in range(3):
        if js.blk_on[p]:
            worst = max(worst, js.run - js.blk_stamp[p] - tp.blk_lim)
    return worst


@njit(cache=True)
def _drop_expired(js, tp, floor):
    """The alarm drops every deadline whose overrun is >= floor (the oldest entries first);
    a blocked eye's alarm also drops the deadline of the item on it."""
    for g in range(2):
        while js.tail[g] > js.head[g] and js.run - js.stamps[g, js.head[g] % FIFO] - tp.seg_lim >= floor:
            js.head[g] += 1
    for p in range(3):
        if js.blk_on[p] and js.run - js.blk_stamp[p] - tp.blk_lim >= floor:
            js.blk_on[p] = 0
            if p < 2 and js.tail[p] > js.head[p]:
                js.tail[p] -= 1  # the item on the eye is the newest of the segment it starts


@njit(cache=True)
def _all_done(items):
    for j in range(items.shape[0]):
        if items[j].place != items_mod.DONE:
            return False
    return True


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    js, tp = plant[JUDGE][c], plant[TASKP][c]
    conv = out[O_CONV] != 0.0
    lamp = out[O_LAMP_JAM] != 0.0
    violation = 1 if conv and lamp else 0
    if js.prev_conv:
        js.run += 1  # the 10 ms since the previous scan count: CONV was TRUE in it
    js.prev_conv = 1 if conv else 0
    _track_edges(js, inp)
    worst = _worst_over(js, tp)
    if worst > 0 and js.due_k < 0:
        js.due_k = k
    rise = lamp and js.prev_lamp == 0
    js.prev_lamp = 1 if lamp else 0
    if rise:
        if worst < 1 - TOLERANCE_TICKS:
            return violation, -1, 1, k * 0.01
        _drop_expired(js, tp, 1 - TOLERANCE_TICKS)
        js.due_k = -1
        if _worst_over(js, tp) > 0:
            js.due_k = k
    if js.due_k >= 0 and k - js.due_k >= tp.window:
        return violation, -1, 2, js.due_k * 0.01
    if not lamp and js.due_k < 0 and _all_done(plant[ITEMS][c]):
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
