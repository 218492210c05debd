"""MAT-E11 plant binding: infeed, weigh belt on a load cell, outfeed with a reject pusher.

Batch state (``build``, one row per condition): the item table, one line of three segments
(infeed, weigh belt, outfeed ending in the accept sink), the emitter (TIME mode, gap rule),
three belt drives, three photo-eyes (IN_END_PE, SCALE_PE, PUSH_PE), the pusher cylinder, the
pusher with its reject bin, the load-cell platform, the belt speed and the weight limits per
condition and one judge record. The judge checks every item's fate against its true weight as
soon as the fate is recorded, and S-JAM/S-STRIKE from the pusher's counters.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import chute, conveyor, cylinder, dol, emitter, pusher, safety, scale, sensors
from plants.devices import items as items_mod
from plants.devices.protocol import ticks
from plants.tasks.mat_e11 import ITEM_LENGTH_MM
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_AUTO_SW, I_IN_END_PE, I_SCALE_PE, I_PUSH_PE, I_PUSH_RET, I_PUSH_EXT = range(6)
I_WEIGHT, I_W_MIN, I_W_MAX = range(6, 9)
O_IN_CONV, O_WEIGH_CONV, O_OUT_CONV, O_PUSH, O_TARE, O_LAMP = range(6)
# Belt segments / drives, sensor units.
B_IN, B_WEIGH, B_OUT = range(3)
S_IN_END, S_SCALE, S_PUSH = range(3)

WEIGH_X0_MM, WEIGH_X1_MM, LINE_END_MM = 1000.0, 1500.0, 3000.0
SENSOR_X_MM = (950.0, 1325.0, 2275.0)
PUSHER_X_MM = 2200.0
PLATE_WINDOW_MM = 50.0
CAPTURE_TOL_MM = 25.0
TAU_BELT_S = 0.1
T_STROKE_S = 0.3
BIN_CAPACITY = 1000  # the reject bin has no practical limit
DEST_REJECT, DEST_ACCEPT = 1, 2

VIOLATIONS = ("S-JAM", "S-STRIKE")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "item {arg:.0f} (weight inside the limits) was pushed into the reject bin",
    "item {arg:.0f} (weight outside the limits) reached the accept sink",
    "item {arg:.0f} was damaged",
    "item {arg:.0f} was dropped (it fell back onto an occupied belt place)",
)
"""Failure reason id i + 1 -> text (arg: the item's sequence number)."""

JUDGE_DTYPE = np.dtype([("n_items", np.int32), ("n_done", np.int32)])

PROBES = {
    "scale_reading": ((18, 0), "reading", "g"),
    "pusher_stroke": ((12, 0), "s", ""),
    "delivered": (21, "n_done", ""),
}


def _items(task: TaskSpec) -> np.ndarray:
    """One item row per `item` event: arrival tick and true weight."""
    per_condition = []
    for cond in task.conditions:
        rows = []
        for ev in cond.script:
            if ev.kind != "item":
                raise ValueError(f"{task.id} {cond.name}: unknown event kind {ev.kind!r}")
            rows.append(dict(length=ITEM_LENGTH_MM, weight=float(dict(ev.args)["weight_g"]),
                             t_place=ticks(ev.t)))
        per_condition.append(rows)
    return items_mod.make_items(per_condition)


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    params = [c.params for c in task.conditions]
    n_items = [len(c.script) for c in task.conditions]
    items = _items(task)
    segs = conveyor.make_segments(n, 3, line=0, x0=np.array([[0.0, WEIGH_X0_MM, WEIGH_X1_MM]]),
                                  x1=np.array([[WEIGH_X0_MM, WEIGH_X1_MM, LINE_END_MM]]))
    lines = conveyor.make_lines(n, x_end=LINE_END_MM, down_kind=conveyor.END_RECEIVER,
                                down_dest=DEST_ACCEPT)
    obst = conveyor.make_obstacles(n, 1, line=-1)
    ep = emitter.make_params(n, line=0, mode=emitter.TIME, first=0, last=n_items,
                             gap_min=[float(p["gap_mm"]) for p in params])
    mp = dol.make_params(n, 3, tau_acc=TAU_BELT_S, tau_coast=TAU_BELT_S)
    sp = sensors.make_params(n, 3, line=0, x=np.array([SENSOR_X_MM]), kind=sensors.DIFFUSE)
    ss = sensors.make_state(sp)
    for c in range(n):
        for u in range(3):
            sensors.tick(ss[c, u], sp[c, u], items[c], 0)
    cp = cylinder.make_params(n, kind=cylinder.MONO, t_ext=T_STROKE_S, t_ret=T_STROKE_S)
    pp = pusher.make_params(n, line=0, xp=PUSHER_X_MM, win=PLATE_WINDOW_MM, tol=CAPTURE_TOL_MM,
                            chute=0)
    chp = chute.make_params(n, capacity=BIN_CAPACITY, dest=DEST_REJECT)
    lp = scale.make_platforms(n, line=0, x0=WEIGH_X0_MM, x1=WEIGH_X1_MM,
                              tau=[float(p["tau_s"]) for p in params])
    ls = scale.make_platform_state(lp)
    # a zero offset is an initial tare of minus the offset (see the task's changes note)
    ls["tare"] = -np.array([[float(p["offset_g"])] for p in params])
    belt_v = np.array([float(p["v_mm_s"]) for p in params])
    limits = np.array([[float(p["w_min_g"]), float(p["w_max_g"])] for p in params])
    js = np.zeros(n, JUDGE_DTYPE)
    js["n_items"] = n_items
    return (items, segs, lines, conveyor.make_line_state(lines), obst,
            ep, emitter.make_state(ep), mp, dol.make_state(mp), sp, ss,
            cp, cylinder.make_state(cp), pp, pusher.make_state(pp),
            chp, chute.make_state(chp), lp, ls, belt_v, limits, js)


@njit(cache=True)
def sense(plant, c, k, inp):
    """AUTO_SW (always on), the three photo-eyes, the reed switches, the weight and limits."""
    sp, ss = plant[9][c], plant[10][c]
    cpa, cst = plant[11][c, 0], plant[12][c, 0]
    inp[I_AUTO_SW] = 1.0
    inp[I_IN_END_PE] = 1.0 if sensors.sense(ss[S_IN_END], sp[S_IN_END], k) else 0.0
    inp[I_SCALE_PE] = 1.0 if sensors.sense(ss[S_SCALE], sp[S_SCALE], k) else 0.0
    inp[I_PUSH_PE] = 1.0 if sensors.sense(ss[S_PUSH], sp[S_PUSH], k) else 0.0
    inp[I_PUSH_RET] = 1.0 if cylinder.sense_retracted(cst, cpa) else 0.0
    inp[I_PUSH_EXT] = 1.0 if cylinder.sense_extended(cst, cpa) else 0.0
    inp[I_WEIGHT] = float(scale.sense_platform(plant[18][c, 0], plant[17][c, 0], k))
    inp[I_W_MIN] = plant[20][c, 0]
    inp[I_W_MAX] = plant[20][c, 1]


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: belt drives, items on the line, pusher cylinder and plate, emitter,
    load cell (with the TARE edge), then the sensors read the new state."""
    items = plant[0][c]
    segs = plant[1][c]
    mpa, mst = plant[7][c], plant[8][c]
    for b in range(3):
        dol.tick(mst[b], mpa[b], out[O_IN_CONV + b] != 0.0, k)
        segs[b].v = mst[b].n * plant[19][c]
    conveyor.tick_line(items, segs, plant[4][c], plant[2][c, 0], plant[3][c, 0], 0, k)
    cpa, cst = plant[11][c, 0], plant[12][c, 0]
    cylinder.tick(cst, cpa, out[O_PUSH] != 0.0, False, k)
    pusher.tick(plant[14][c, 0], plant[13][c, 0], cst, items, plant[16][c], plant[15][c], k)
    emitter.tick(plant[6][c, 0], plant[5][c, 0], items, False, k)
    scale.tick_platform(plant[18][c, 0], plant[17][c, 0], items, out[O_TARE] != 0.0, k)
    sp, ss = plant[9][c], plant[10][c]
    for u in range(ss.shape[0]):
        sensors.tick(ss[u], sp[u], items, k + 1)


@njit(cache=True)
def _fate_reason(it, w_min, w_max):
    """Failure reason id of an item whose fate is recorded (0 = at its correct destination)."""
    if it.fate == items_mod.DROPPED:
        return 4
    if it.damaged:
        return 3
    good = w_min <= it.weight <= w_max
    if good and it.dest != DEST_ACCEPT:
        return 1
    if not good and it.dest != DEST_REJECT:
        return 2
    return 0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    ps = plant[14][c, 0]
    js = plant[21][c]
    violation = 0
    if safety.s_strike(ps):
        violation = 2
    if safety.s_jam(ps):
        violation = 1
    items = plant[0][c]
    w_min, w_max = plant[20][c, 0], plant[20][c, 1]
    done = 0
    for j in range(js.n_items):
        it = items[j]
        if it.damaged and it.place != items_mod.DONE:
            return violation, -1, 3, float(it.seq)
        if it.place == items_mod.DONE:
            reason = _fate_reason(it, w_min, w_max)
            if reason > 0:
                return violation, -1, reason, float(it.seq)
            done += 1
    js.n_done = done
    if done == js.n_items:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
