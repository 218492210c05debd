"""MAT-E10 plant binding: infeed, turntable and side outfeed as one unfolded item path, and
the judge (all K items delivered; S-SHEAR, S-PRESSURE, S-PILEUP).

An item only ever travels infeed -> table -> outfeed, so the three carriers are one D18 line
0..3800 mm: infeed [0, 1500], table [1500, 2300] (table u = x - 1500), outfeed [2300, 3800]
ending in the sink. The turntable's geometry becomes two end plates on that line: the infeed
end x = 1500 is closed while the table is not at 0°, the discharge end x = 2300 while it is not
at 90°. Rotation is a monostable cylinder row (ROTATE TRUE -> 90°), AT_0/AT_90 its reed
switches. Step order: motors and surface speeds, plates from the rotation before the step,
items, rotation, emitter, sensors (so that ``sense`` at k + 1 shows S_{k+1}).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import conveyor, cylinder, dol, emitter, sensors
from plants.devices import items as items_mod
from plants.devices.protocol import ticks
from plants.tasks.mat_e10 import INFEED_MM, OUTFEED_MM, PLACE_GAP_MM, TABLE_MM
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_AUTO, I_IN_PE, I_ENTRY, I_FRONT, I_AT0, I_AT90, I_OUT_PE = range(7)
O_IN, O_ROLL, O_ROT, O_OUT = range(4)

X_JOIN_IN = INFEED_MM                 # infeed end = table entry
X_JOIN_OUT = INFEED_MM + TABLE_MM     # table discharge = outfeed start
X_END = X_JOIN_OUT + OUTFEED_MM       # sink
SENSOR_X = (1450.0, X_JOIN_IN + 20.0, X_JOIN_IN + 760.0, X_JOIN_OUT + 300.0)
"""IN_PE, TT_ENTRY_PE, TT_FRONT_PE, OUT_PE on the unfolded line."""
TAU_S = 0.1
SINK = 0
STRADDLE_MM = 1.0     # S-SHEAR / S-PILEUP tolerance
MOVING_MM_S = 5.0     # A4 standstill threshold
PRESS_LIMIT = ticks(2.0)

VIOLATIONS = ("S-SHEAR", "S-PRESSURE", "S-PILEUP")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = ()
"""No early failure: a run that does not deliver every item fails at its time limit."""

TASK_DTYPE = np.dtype([("v_nom", np.float64), ("k_items", np.int64)])
JUDGE_DTYPE = np.dtype([("s_before", np.float64), ("press_ticks", np.int64)])

# Slots of the plant tuple.
(ITEMS, SEGS, OBST, LINES, LSTATE, EPA, EST, MPA, MST, RPA, RST, SPA, SST, TASKP,
 JUDGE) = range(15)
SEG_IN, SEG_TABLE, SEG_OUT = range(3)
OB_ENTRY, OB_PLATE = range(2)

PROBES = {
    "infeed_speed": ((SEGS, SEG_IN), "v", "mm/s"),
    "table_speed": ((SEGS, SEG_TABLE), "v", "mm/s"),
    "outfeed_speed": ((SEGS, SEG_OUT), "v", "mm/s"),
    "rotation": ((RST, 0), "s", "0..1 = 0..90 deg"),
    "delivered": ((LSTATE, 0), "n_delivered", "items"),
}


def _items(task: TaskSpec, cond) -> list[dict]:
    """Item rows of one condition, checked against its declared summary parameters."""
    rows = []
    for ev in sorted(cond.script, key=lambda e: e.t):
        if ev.kind != "item":
            raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind!r}")
        rows.append(dict(length=float(dict(ev.args)["length_mm"]), t_place=ticks(ev.t)))
    p = cond.params
    lengths = [r["length"] for r in rows]
    times = [r["t_place"] for r in rows]
    gaps = np.diff(times) if len(times) > 1 else np.array([ticks(p["min_gap_s"])])
    if (len(rows) != p["items"] or min(lengths) != p["min_len_mm"]
            or max(lengths) != p["max_len_mm"] or gaps.min() != ticks(p["min_gap_s"])):
        raise ValueError(f"{task.id} {cond.name}: params do not summarise the item script")
    return rows


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    per_items = [_items(task, cond) for cond in task.conditions]
    items = items_mod.make_items(per_items)
    segs = conveyor.make_segments(n, 3, line=0, x0=[[0.0, X_JOIN_IN, X_JOIN_OUT]] * n,
                                  x1=[[X_JOIN_IN, X_JOIN_OUT, X_END]] * n)
    obst = conveyor.make_obstacles(n, 2, line=0, x=[[X_JOIN_IN, X_JOIN_OUT]] * n,
                                   up=[[0, 1]] * n)
    lines = conveyor.make_lines(n, 1, x_start=0.0, x_end=X_END,
                                down_kind=conveyor.END_RECEIVER, down_dest=SINK,
                                up_kind=conveyor.END_PLATE)
    epa = emitter.make_params(n, 1, line=0, x_place=0.0, gap_min=PLACE_GAP_MM,
                              mode=emitter.TIME, first=0, last=[len(r) for r in per_items])
    mpa = dol.make_params(n, 3, pickup=0, dropout=0, tau_acc=TAU_S, tau_coast=TAU_S)
    rot = [float(c.params["rotation_s"]) for c in task.conditions]
    rpa = cylinder.make_params(n, 1, kind=cylinder.MONO, t_ext=rot, t_ret=rot)
    spa = sensors.make_params(n, 4, line=0, kind=sensors.DIFFUSE, x=[list(SENSOR_X)] * n)
    taskp = np.zeros(n, TASK_DTYPE)
    taskp["v_nom"] = [float(c.params["v_mm_s"]) for c in task.conditions]
    taskp["k_items"] = [len(r) for r in per_items]
    judge_st = np.zeros(n, JUDGE_DTYPE)
    sst = sensors.make_state(spa)
    for c in range(n):
        for u in range(4):
            sensors.tick(sst[c, u], spa[c, u], items[c], 0)
    return (items, segs, obst, lines, conveyor.make_line_state(lines), epa,
            emitter.make_state(epa), mpa, dol.make_state(mpa), rpa, cylinder.make_state(rpa),
            spa, sst, taskp, judge_st)


@njit(cache=True)
def sense(plant, c, k, inp):
    """AUTO_SW always on, the four photo-eyes, the rotation end switches."""
    sst, spa = plant[SST][c], plant[SPA][c]
    inp[I_AUTO] = 1.0
    for u, slot in enumerate((I_IN_PE, I_ENTRY, I_FRONT, I_OUT_PE)):
        inp[slot] = 1.0 if sensors.sense(sst[u], spa[u], k) else 0.0
    rst, rpa = plant[RST][c, 0], plant[RPA][c, 0]
    inp[I_AT0] = 1.0 if cylinder.sense_retracted(rst, rpa) else 0.0
    inp[I_AT90] = 1.0 if cylinder.sense_extended(rst, rpa) else 0.0


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: motors, plates from the table position, items, rotation, emitter,
    sensors."""
    items, segs, obst = plant[ITEMS][c], plant[SEGS][c], plant[OBST][c]
    mst, mpa, v = plant[MST][c], plant[MPA][c], plant[TASKP][c].v_nom
    for u, o in enumerate((O_IN, O_ROLL, O_OUT)):
        dol.tick(mst[u], mpa[u], out[o] != 0.0, k)
        segs[u].v = mst[u].n * v
    rst, rpa = plant[RST][c, 0], plant[RPA][c, 0]
    plant[JUDGE][c].s_before = rst.s
    obst[OB_ENTRY].up = 0 if cylinder.sense_retracted(rst, rpa) else 1
    obst[OB_PLATE].up = 0 if cylinder.sense_extended(rst, rpa) else 1
    conveyor.tick_line(items, segs, obst, plant[LINES][c, 0], plant[LSTATE][c, 0], 0, k)
    cylinder.tick(rst, rpa, out[O_ROT] != 0.0, False, k)
    emitter.tick(plant[EST][c, 0], plant[EPA][c, 0], items, False, k)
    for u in range(4):
        sensors.tick(plant[SST][c, u], plant[SPA][c, u], items, k + 1)


@njit(cache=True)
def _straddles(it, x):
    return it.rear < x - STRADDLE_MM and it.rear + it.length > x + STRADDLE_MM


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / 0 running, reason id, arg) of tick k."""
    items, js = plant[ITEMS][c], plant[JUDGE][c]
    rst, rpa = plant[RST][c, 0], plant[RPA][c, 0]
    rotating = rst.s != js.s_before
    at0 = cylinder.sense_retracted(rst, rpa)
    plate = not cylinder.sense_extended(rst, rpa)
    rolling = plant[SEGS][c, SEG_TABLE].v >= MOVING_MM_S
    violation = 0
    pressed = False
    for j in range(items.shape[0]):
        it = items[j]
        if it.place != items_mod.LINE:
            continue
        fr = it.rear + it.length
        if rotating and (_straddles(it, X_JOIN_IN) or _straddles(it, X_JOIN_OUT)):
            violation = 1
        if plate and rolling and abs(fr - X_JOIN_OUT) <= STRADDLE_MM:
            pressed = True
        if (not at0 and items_mod.centre(it) < X_JOIN_IN and fr >= X_JOIN_IN - STRADDLE_MM
                and violation == 0):
            violation = 3
    js.press_ticks = js.press_ticks + 1 if pressed else 0
    if js.press_ticks > PRESS_LIMIT and violation == 0:
        violation = 2
    if plant[LSTATE][c, 0].n_delivered >= plant[TASKP][c].k_items:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
