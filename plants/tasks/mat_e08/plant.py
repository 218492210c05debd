"""MAT-E08 plant binding: emitter + DOL belt + entry photo-eye and height gate + swing arm.

Batch state (``build``, one row per condition): the item table, the line (one segment 0..2000
mm whose end delivers to the straight lane), the emitter (pitch mode), the belt drive, the two
sensors at x = 500 mm, the swing arm (zone [1150, 1350] mm, delivers diverted items to the
side lane), the belt speed per condition and one judge record.
Plant step (``advance``): belt drive, items on the belt, arm (lane decision at the zone
entry, S-JAM, diversion), emitter, then the sensors read the new state. The judge checks every
item's lane against its height as soon as its fate is recorded, and S-JAM from the arm's
counter.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import conveyor, diverters, dol, emitter, safety, sensors
from plants.devices import items as items_mod
from plants.devices.protocol import ticks
from plants.tasks.mat_e08 import ITEM_MM, SHORT_MM, TALL_MM
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_AUTO_SW, I_ENTRY_PE, I_TALL_S, I_ZONE_OCC, I_ARM_HOME, I_ARM_DIV = range(6)
O_CONV, O_DIVERT = range(2)
S_ENTRY, S_TALL = range(2)

BELT_END_MM = 2000.0
GATE_X_MM = 500.0
GATE_H_MM = 120.0
ZONE_MM = (1150.0, 1350.0)
TAU_BELT_S = 0.1
FIRST_ITEM_S = 1.0
DEST_SIDE, DEST_STRAIGHT = 1, 2

# Slots of the plant tuple.
ITEMS, SEGS, LINES, LSTATE, OBST, EPA, EST, MPA, MST, SPA, SST, APA, AST, BELT_V, JUDGE = range(15)

VIOLATIONS = ("S-JAM",)
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "tall item {arg:.0f} reached the straight lane instead of the side lane",
    "short item {arg:.0f} was diverted into the side lane",
    "item {arg:.0f} was struck by the swing arm (damaged)",
)
"""Failure reason id i + 1 -> text (arg: the item's sequence number)."""

JUDGE_DTYPE = np.dtype([("n_items", np.int32), ("n_done", np.int32)])

PROBES = {
    "belt_speed": ((SEGS, 0), "v", "mm/s"),
    "arm_stroke": ((AST, 0), "a", "1"),
    "items_done": (JUDGE, "n_done", "items"),
}


def _items(task: TaskSpec) -> np.ndarray:
    """One item row per item: height from the condition's T/S string, pitch to the one ahead."""
    per_condition = []
    for cond in task.conditions:
        kinds, pitches = cond.params["items"], tuple(cond.params["pitches_mm"])
        if len(pitches) != len(kinds) - 1 or set(kinds) - {"T", "S"}:
            raise ValueError(f"{task.id} {cond.name}: items/pitches_mm do not match")
        if min(pitches) != cond.params["pitch_min_mm"] or max(pitches) != cond.params["pitch_max_mm"]:
            raise ValueError(f"{task.id} {cond.name}: pitch_min_mm/pitch_max_mm do not summarise "
                             "pitches_mm")
        per_condition.append([
            dict(length=ITEM_MM, height=TALL_MM if kind == "T" else SHORT_MM,
                 t_place=ticks(FIRST_ITEM_S), pitch=([0.0] + list(pitches))[j])
            for j, kind in enumerate(kinds)
        ])
    return items_mod.make_items(per_condition)


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    if any(ev for cond in task.conditions for ev in cond.script):
        raise ValueError(f"{task.id}: conditions take no scripted events")
    n = len(task.conditions)
    params = [c.params for c in task.conditions]
    n_items = [len(p["items"]) for p in params]
    items = _items(task)
    segs = conveyor.make_segments(n, 1, line=0, x0=0.0, x1=BELT_END_MM)
    lines = conveyor.make_lines(n, x_end=BELT_END_MM, down_kind=conveyor.END_RECEIVER,
                                down_dest=DEST_STRAIGHT, up_kind=conveyor.END_PLATE)
    obst = conveyor.make_obstacles(n, 1, line=-1)
    ep = emitter.make_params(n, line=0, mode=emitter.PITCH, first=0, last=n_items)
    mp = dol.make_params(n, pickup=0, dropout=0, tau_acc=TAU_BELT_S, tau_coast=TAU_BELT_S)
    sp = sensors.make_params(n, 2, line=0, x=GATE_X_MM, h_min=GATE_H_MM,
                             kind=np.array([[sensors.DIFFUSE, sensors.HEIGHT_GATE]]))
    ss = sensors.make_state(sp)
    ap = diverters.make_params(n, kind=diverters.ARM, line=0, x0=ZONE_MM[0], x1=ZONE_MM[1],
                               t_arm=[float(p["arm_s"]) for p in params], dest=DEST_SIDE)
    belt_v = np.array([float(p["v_mm_s"]) for p in params])
    js = np.zeros(n, JUDGE_DTYPE)
    js["n_items"] = n_items
    return (items, segs, lines, conveyor.make_line_state(lines), obst,
            ep, emitter.make_state(ep), mp, dol.make_state(mp), sp, ss,
            ap, diverters.make_state(ap), belt_v, js)


@njit(cache=True)
def sense(plant, c, k, inp):
    """AUTO_SW on, the two gate sensors, the zone sensor and the arm's end switches."""
    sp, ss = plant[SPA][c], plant[SST][c]
    apa, ast = plant[APA][c, 0], plant[AST][c, 0]
    inp[I_AUTO_SW] = 1.0
    inp[I_ENTRY_PE] = 1.0 if sensors.sense(ss[S_ENTRY], sp[S_ENTRY], k) else 0.0
    inp[I_TALL_S] = 1.0 if sensors.sense(ss[S_TALL], sp[S_TALL], k) else 0.0
    inp[I_ZONE_OCC] = 1.0 if diverters.sense_zone_occupied(apa, plant[ITEMS][c]) else 0.0
    inp[I_ARM_HOME] = 1.0 if diverters.sense_arm_home(ast) else 0.0
    inp[I_ARM_DIV] = 1.0 if diverters.sense_arm_div(ast) else 0.0


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: belt drive, items on the belt, swing arm, emitter, then the sensors."""
    items = plant[ITEMS][c]
    mst = plant[MST][c, 0]
    dol.tick(mst, plant[MPA][c, 0], out[O_CONV] != 0.0, k)
    segs = plant[SEGS][c]
    segs[0].v = mst.n * plant[BELT_V][c]
    conveyor.tick_line(items, segs, plant[OBST][c], plant[LINES][c, 0], plant[LSTATE][c, 0], 0, k)
    diverters.tick(plant[AST][c, 0], plant[APA][c, 0], items, out[O_DIVERT] != 0.0, k)
    emitter.tick(plant[EST][c, 0], plant[EPA][c, 0], items, False, k)
    sp, ss = plant[SPA][c], plant[SST][c]
    for u in range(ss.shape[0]):
        sensors.tick(ss[u], sp[u], items, k + 1)


@njit(cache=True)
def _fate_reason(it):
    """Failure reason id of an item whose fate is recorded (0 = in its correct lane)."""
    if it.damaged:
        return 3
    if it.height >= GATE_H_MM and it.dest != DEST_SIDE:
        return 1
    if it.height < GATE_H_MM and it.dest != DEST_STRAIGHT:
        return 2
    return 0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    violation = 1 if safety.s_jam(plant[AST][c, 0]) else 0
    items = plant[ITEMS][c]
    js = plant[JUDGE][c]
    done = 0
    for j in range(js.n_items):
        it = items[j]
        if it.damaged:
            return violation, -1, 3, float(it.seq)
        if it.place == items_mod.DONE:
            reason = _fate_reason(it)
            if reason > 0:
                return violation, -1, reason, float(it.seq)
            done += 1
    js.n_done = done
    if done == js.n_items:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
