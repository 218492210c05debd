"""MAT-E12 plant binding: D27 dispenser (5/3 table cylinder, spring-return hold forks, stack)
and the pallet conveyor, with the judge (deliveries per REQ, each pallet alone, five rules).

Batch state (``build``): table and fork cylinders ``(n, 2)`` (D11), the script ``(n, events)``
(REQ pulses), one task record (stack, conveyor, take-away)
and one judge record per condition. The stack is counted, not placed: ``on_forks`` pallets hang
on the forks at the fork level, ``on_table`` pallets stand on the table top (pallet j spans
h + 150 j .. h + 150 (j + 1)); the conveyor carries at most one load (``conv_n`` pallets with
rear ``conv_x``), because a load leaves the table area only after it has been taken.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import cylinder, scripts
from plants.devices.panel import sense_no
from plants.devices.protocol import DT, EPS, NEVER, ticks
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_AUTO, I_REQ, I_T_UP, I_T_MID, I_T_DOWN, I_F_IN, I_F_OUT, I_PE, I_EMPTY = range(9)
O_TABLE_UP, O_TABLE_DOWN, O_FORKS_IN, O_PAL_CONV, O_LAMP_EMPTY = range(5)
CH_REQ = 0
TABLE, FORKS = range(2)

STROKE_MM = 300.0  # table travel = fork level
FORK_MM = 300.0
PALLET_H = 150.0
PALLET_L = 1200.0
WINDOW_MM = 3.0
PE_X = 1700.0
END_X = 1750.0
CONV_V = 200.0
CONV_TAU = 0.1
MOVED_MM = 1.0

VIOLATIONS = ("S-DROP", "S-COLLIDE", "S-COILS", "S-CONV", "S-SHEAR")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""
V_DROP, V_COLLIDE, V_COILS, V_CONV, V_SHEAR = range(1, 6)

REASONS = (
    "the pallet stack fell",
    "a pallet was struck or sheared",
    "more pallets reached PAL_OUT_PE ({arg:.0f}) than REQ edges so far",
    "pallets reached PAL_OUT_PE stacked together ({arg:.0f} in one load)",
)
"""Failure reason id i + 1 -> text."""
R_FELL, R_DAMAGED, R_EXTRA, R_STACKED = range(1, 5)

PROBES = {
    "table": ((1, TABLE), "s", "stroke 0..1 of 300 mm"),
    "forks": ((1, FORKS), "s", "stroke 0..1 (1 = in)"),
    "delivered": (4, "delivered", "pallets"),
}
"""Plant variables `plantloop trace` can show."""

TASKP_DTYPE = np.dtype([
    ("on_forks", np.int64), ("on_table", np.int64), ("conv_n", np.int64),
    ("conv_x", np.float64), ("conv_v", np.float64), ("refill_n", np.int64),
    ("refill_done", np.uint8), ("refill_at", np.int64), ("take", np.int64), ("arrived_tick", np.int64),
    ("h_prev", np.float64), ("fell", np.uint8), ("damaged", np.uint8), ("struck", np.uint8),
    ("sheared", np.uint8), ("requests", np.int64),
])

JUDGE_DTYPE = np.dtype([
    ("prev_req", np.uint8), ("req_edges", np.int64), ("delivered", np.int64),
    ("prev_pe", np.uint8), ("biggest_load", np.int64),
])


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    conds = task.conditions
    n = len(conds)
    events = []
    taskp = np.zeros(n, TASKP_DTYPE)
    for c, cond in enumerate(conds):
        evs = []
        for ev in cond.script:
            if ev.kind == "press" and ev.target == "REQ":
                evs.append(scripts.press(CH_REQ, ev.t, ev.duration or scripts.PRESS_S))
                taskp[c]["requests"] += 1
            elif ev.kind == "refill":
                taskp[c]["refill_at"] = ticks(ev.t)
            else:
                raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind} {ev.target!r}")
        events.append(evs)
        taskp[c]["on_forks"] = int(cond.params["stack_n"])
        taskp[c]["refill_n"] = int(cond.params.get("refill_n", 0))
        taskp[c]["take"] = ticks(float(cond.params["take_s"]))
    taskp["arrived_tick"] = NEVER
    for c, cond in enumerate(conds):
        if not any(ev.kind == "refill" for ev in cond.script):
            taskp[c]["refill_at"] = NEVER
    t_table = [STROKE_MM / c.params["table_mm_s"] for c in conds]
    t_fork = [float(c.params["fork_s"]) for c in conds]
    kinds = np.array([[cylinder.FIVE_THREE, cylinder.MONO]])
    cyl = cylinder.make_params(n, 2, kind=np.repeat(kinds, n, axis=0),
                               t_ext=np.column_stack([t_table, t_fork]),
                               t_ret=np.column_stack([t_table, t_fork]), spring=0)
    cst = cylinder.make_state(cyl)
    cst["s"][:, FORKS] = 1.0
    cst["s_prev"][:, FORKS] = 1.0
    script = scripts.build_scripts(events, spare_rows=0)
    return cyl, cst, script, taskp, np.zeros(n, JUDGE_DTYPE)


@njit(cache=True)
def _height(st):
    return st.s * STROKE_MM


@njit(cache=True)
def sense(plant, c, k, inp):
    """REQ from the script, the table and fork switches, the end photo-eye, STACK_EMPTY."""
    cyl, cst, script, tp = plant[0][c], plant[1][c], plant[2][c], plant[3][c]
    h = _height(cst[TABLE])
    inp[I_AUTO] = 1.0
    inp[I_REQ] = 1.0 if sense_no(script, CH_REQ, k) else 0.0
    inp[I_T_UP] = 1.0 if abs(h - STROKE_MM) <= WINDOW_MM + EPS else 0.0
    inp[I_T_MID] = 1.0 if abs(h - 0.5 * STROKE_MM) <= WINDOW_MM + EPS else 0.0
    inp[I_T_DOWN] = 1.0 if h <= WINDOW_MM + EPS else 0.0
    inp[I_F_IN] = 1.0 if cylinder.sense_extended(cst[FORKS], cyl[FORKS]) else 0.0
    inp[I_F_OUT] = 1.0 if cylinder.sense_retracted(cst[FORKS], cyl[FORKS]) else 0.0
    pe = tp.conv_n > 0 and tp.conv_x + PALLET_L >= PE_X - EPS
    inp[I_PE] = 1.0 if pe else 0.0
    inp[I_EMPTY] = 1.0 if tp.on_forks == 0 else 0.0


@njit(cache=True)
def _stack(tp, h, forks_s):
    """Hand the pallets between forks and table; flag falls and strikes."""
    engaged = forks_s > 0.5
    if engaged:
        for j in range(tp.on_table):
            z = h + PALLET_H * j
            if z < FORK_MM - WINDOW_MM - EPS and z + PALLET_H > FORK_MM + WINDOW_MM + EPS:
                tp.struck = 1  # fork tips inside a pallet body
        if tp.on_forks > 0 and tp.on_table > 0 and h + PALLET_H * tp.on_table > FORK_MM + WINDOW_MM + EPS:
            tp.struck = 1  # table stack pushed into the held stack
        for j in range(tp.on_table):
            if h + PALLET_H * j >= FORK_MM - WINDOW_MM - EPS:
                tp.on_forks += tp.on_table - j  # pallets from j upward hang on the forks
                tp.on_table = j
                break
    elif tp.on_forks > 0:
        if h + PALLET_H * tp.on_table >= FORK_MM - WINDOW_MM - EPS:
            tp.on_table += tp.on_forks
        else:
            tp.fell = 1
        tp.on_forks = 0


@njit(cache=True)
def _conveyor(tp, h, run, k):
    """Set-down at T_DOWN, the load on the belt, the stop plate and the downstream take-away."""
    target = CONV_V if run else 0.0
    tp.conv_v += (target - tp.conv_v) * DT / CONV_TAU
    down = h <= WINDOW_MM + EPS
    if tp.conv_n > 0 and not down:
        if tp.conv_x <= MOVED_MM + EPS:
            tp.on_table += tp.conv_n  # never moved: the table lifts it again
            tp.conv_n = 0
        elif tp.conv_x < PALLET_L:
            tp.sheared = 1
    if down and tp.on_table > 0:
        if tp.conv_n == 0:
            tp.conv_n = tp.on_table
            tp.conv_x = 0.0
            tp.on_table = 0
    if tp.conv_n > 0:
        tp.conv_x = min(tp.conv_x + tp.conv_v * DT, END_X - PALLET_L)
        if tp.arrived_tick == NEVER and tp.conv_x + PALLET_L >= PE_X - EPS:
            tp.arrived_tick = k
        if tp.arrived_tick != NEVER and k >= tp.arrived_tick + tp.take:
            tp.conv_n = 0
            tp.conv_x = 0.0
            tp.arrived_tick = NEVER


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: cylinders, the stack hand-over, the refill and the conveyor."""
    cyl, cst, tp = plant[0][c], plant[1][c], plant[3][c]
    tp.h_prev = _height(cst[TABLE])
    cylinder.tick(cst[TABLE], cyl[TABLE], out[O_TABLE_UP] != 0.0, out[O_TABLE_DOWN] != 0.0, k)
    cylinder.tick(cst[FORKS], cyl[FORKS], out[O_FORKS_IN] != 0.0, False, k)
    h = _height(cst[TABLE])
    _stack(tp, h, cst[FORKS].s)
    if (not tp.refill_done and tp.refill_n > 0 and k >= tp.refill_at
            and cylinder.sense_extended(cst[FORKS], cyl[FORKS])):
        tp.on_forks += tp.refill_n
        tp.refill_done = 1
    _conveyor(tp, h, out[O_PAL_CONV] != 0.0, k)
    if tp.fell or tp.struck or tp.sheared:
        tp.damaged = 1


@njit(cache=True)
def _violation(tp, h, inp, out):
    """The safety rules on (S_{k+1}, output image, input image); the first that holds."""
    forks_in = out[O_FORKS_IN] != 0.0
    f_in, f_out = inp[I_F_IN] != 0.0, inp[I_F_OUT] != 0.0
    if tp.fell or (not forks_in and not f_out and inp[I_T_UP] == 0.0):
        return V_DROP
    closing_bad = forks_in and not f_in and inp[I_T_MID] == 0.0 and inp[I_T_DOWN] == 0.0
    moved = abs(h - tp.h_prev) > EPS
    if tp.struck or closing_bad or (moved and not f_in and not f_out):
        return V_COLLIDE
    if out[O_TABLE_UP] != 0.0 and out[O_TABLE_DOWN] != 0.0:
        return V_COILS
    if out[O_PAL_CONV] != 0.0 and inp[I_T_DOWN] == 0.0 and tp.on_table > 0:
        return V_CONV
    if tp.sheared:
        return V_SHEAR
    return 0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    cst, tp, js = plant[1][c], plant[3][c], plant[4][c]
    violation = _violation(tp, _height(cst[TABLE]), inp, out)
    req = inp[I_REQ] != 0.0
    if req and not js.prev_req:
        js.req_edges += 1
    js.prev_req = 1 if req else 0
    arrived = tp.arrived_tick != NEVER and tp.conv_n > 0
    if arrived and not js.prev_pe:
        js.delivered += 1
        js.biggest_load = max(js.biggest_load, tp.conv_n)
        if tp.conv_n > 1:
            js.prev_pe = 1
            return violation, -1, R_STACKED, float(tp.conv_n)
        if js.delivered > js.req_edges:
            js.prev_pe = 1
            return violation, -1, R_EXTRA, float(js.delivered)
    js.prev_pe = 1 if arrived else 0
    if tp.fell:
        return violation, -1, R_FELL, 0.0
    if tp.damaged:
        return violation, -1, R_DAMAGED, 0.0
    if js.delivered >= tp.requests and tp.requests > 0:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
