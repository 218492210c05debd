"""MAT-E02 plant binding: part emitter, DOL-tau belt discharging into a box, the counting
photo-eye, the box-swapping operator, and the judge (M full boxes of exactly BATCH parts;
S-DROP).

Batch state (``build``), one row per condition: the item table, the belt (one segment on one
line 0..1500 mm whose far end is a receiver: the box), the DOL motor, the emitter, the
photo-eye, the task parameters and the box/operator state.
Plant step (``advance``): motor, belt speed, parts (a part whose centre passes 1500 mm falls
into the box if one is there, else onto the floor), placement, operator, then the sensor reads
the new state, so that ``sense`` at tick k + 1 shows S_{k+1}.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import conveyor, dol, emitter, sensors
from plants.devices import items as items_mod
from plants.devices.protocol import NEVER, ticks
from plants.devices.safety import s_drop
from plants.tasks.mat_e02 import BOX_X_MM, PART_MM
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_AUTO_SW, I_COUNT_PE, I_BOX_PRESENT, I_BATCH = range(4)
O_CONV, O_LAMP = range(2)

COUNT_X = 1400.0
TAU_S = 0.1
PLACE_GAP_MM = 150.0 - PART_MM  # a part is placed only when [0, 150] is free
BOX = 0  # destination id of the box receiver

OUT_ARMED, OUT_AWAY, OUT_DONE = range(3)
"""Mid-batch removal script: waiting for its trigger, box away, finished (or none)."""

VIOLATIONS = ("S-DROP",)
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "the operator removed a full box holding {arg:g} parts instead of BATCH",
    "every part has left the belt, so the remaining boxes can no longer be filled",
)
"""Failure reason id i + 1 -> text."""

TASK_DTYPE = np.dtype([
    ("v_nom", np.float64), ("batch", np.int64), ("boxes", np.int64), ("t_a", np.int64),
    ("t_b", np.int64), ("out_from", np.int64), ("out_after", np.int64), ("out_len", np.int64),
])
BOX_DTYPE = np.dtype([
    ("present", np.uint8),     # a box is under the discharge
    ("count", np.int64),       # parts in the current box (also while it is away mid-batch)
    ("lamp_prev", np.uint8),   # LAMP_BOX_FULL of the previous output image
    ("lamp_tick", np.int64),   # tick of the lamp rise the operator answers, -1 none
    ("removed_tick", np.int64),  # tick the full box was removed, -1 = no swap in progress
    ("out_state", np.int64),   # OUT_ARMED / OUT_AWAY / OUT_DONE
    ("out_tick", np.int64),    # tick the box was taken away mid-batch
    ("full_removed", np.int64),  # full boxes removed so far
    ("bad_count", np.int64),   # parts in the first full box removed with a count != BATCH, -1
])

# Slots of the plant tuple.
ITEMS, SEGS, OBST, LINES, LSTATE, EPA, EST, MPA, MST, SPA, SST, TASKP, BOXST = range(13)

PROBES = {
    "belt_speed": ((SEGS, 0), "v", "mm/s"),
    "box_count": (BOXST, "count", "parts"),
    "parts_dropped": ((LSTATE, 0), "n_drop", "parts"),
    "full_boxes": (BOXST, "full_removed", "boxes"),
}


def _script(task: TaskSpec, cond) -> tuple[list[float], tuple[int, int, int]]:
    """Part placement times and the mid-batch removal (from tick, after parts, length)."""
    parts, out = [], (int(NEVER), 0, 0)
    for ev in cond.script:
        if ev.kind == "part":
            parts.append(ev.t)
        elif ev.kind == "box_out":
            after = int(dict(ev.args)["after_parts"])
            if not 1 <= after < int(cond.params["batch"]):
                raise ValueError(f"{task.id} {cond.name}: a mid-batch removal needs 1 to "
                                 f"BATCH - 1 parts in the box, not {after}")
            out = (ticks(ev.t), after, ticks(ev.duration))
        else:
            raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind!r} {ev.target!r}")
    return parts, out


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    per_parts, outs = [], []
    for cond in task.conditions:
        parts, out = _script(task, cond)
        per_parts.append([dict(length=PART_MM, t_place=ticks(t)) for t in sorted(parts)])
        outs.append(out)
    items = items_mod.make_items(per_parts)
    segs = conveyor.make_segments(n, 1, line=0, x0=0.0, x1=BOX_X_MM)
    obst = conveyor.make_obstacles(n, 1, line=-1)
    lines = conveyor.make_lines(n, 1, x_start=0.0, x_end=BOX_X_MM,
                                down_kind=conveyor.END_RECEIVER, down_dest=BOX,
                                up_kind=conveyor.END_PLATE)
    epa = emitter.make_params(n, 1, line=0, x_place=0.0, gap_min=PLACE_GAP_MM,
                              mode=emitter.TIME, first=0, last=[len(p) for p in per_parts])
    mpa = dol.make_params(n, 1, pickup=0, dropout=0, tau_acc=TAU_S, tau_coast=TAU_S)
    spa = sensors.make_params(n, 1, line=0, kind=sensors.DIFFUSE, x=COUNT_X)
    taskp = np.zeros(n, TASK_DTYPE)
    for c, cond in enumerate(task.conditions):
        p = cond.params
        tp = taskp[c]
        tp["v_nom"] = float(p["v_mm_s"])
        tp["batch"] = int(p["batch"])
        tp["boxes"] = int(p["boxes"])
        tp["t_a"] = ticks(float(p["t_a_s"]))
        tp["t_b"] = ticks(float(p["t_b_s"]))
        tp["out_from"], tp["out_after"], tp["out_len"] = outs[c]
    box = np.zeros(n, BOX_DTYPE)
    box["present"] = 1
    box["lamp_tick"] = -1
    box["removed_tick"] = -1
    box["out_state"] = [OUT_ARMED if o[0] != NEVER else OUT_DONE for o in outs]
    box["bad_count"] = -1
    return (items, segs, obst, lines, conveyor.make_line_state(lines), epa,
            emitter.make_state(epa), mpa, dol.make_state(mpa), spa, sensors.make_state(spa),
            taskp, box)


@njit(cache=True)
def sense(plant, c, k, inp):
    """AUTO_SW always on, COUNT_PE from the part footprints, the box sensor, BATCH."""
    inp[I_AUTO_SW] = 1.0
    inp[I_COUNT_PE] = 1.0 if sensors.sense(plant[SST][c, 0], plant[SPA][c, 0], k) else 0.0
    inp[I_BOX_PRESENT] = float(plant[BOXST][c].present)
    inp[I_BATCH] = float(plant[TASKP][c].batch)


@njit(cache=True)
def _discharge(items, box, ln, k):
    """Parts that passed the edge in this step fall into the box, or onto the floor (S-DROP)."""
    for j in range(items.shape[0]):
        it = items[j]
        if it.fate == items_mod.DELIVERED and it.t_fate == k + 1:
            if box.present:
                box.count += 1
            else:
                it.fate = items_mod.DROPPED
                it.dest = -1
                ln.n_delivered -= 1
                ln.n_drop += 1
                if ln.first_drop < 0:
                    ln.first_drop = k + 1


@njit(cache=True)
def _operator(box, tp, lamp, k):
    """Box swap after the lamp, and the scripted mid-batch removal (state-triggered, A39)."""
    if lamp and not box.lamp_prev and box.lamp_tick < 0 and box.removed_tick < 0:
        box.lamp_tick = k
    box.lamp_prev = 1 if lamp else 0
    if (box.out_state == OUT_ARMED and box.present and k + 1 >= tp.out_from
            and box.count == tp.out_after and box.lamp_tick < 0):
        box.present = 0
        box.out_state = OUT_AWAY
        box.out_tick = k
    elif box.out_state == OUT_AWAY and k - box.out_tick >= tp.out_len:
        box.present = 1
        box.out_state = OUT_DONE
    if box.lamp_tick >= 0 and box.removed_tick < 0 and box.present and k - box.lamp_tick >= tp.t_a:
        box.full_removed += 1
        if box.count != tp.batch and box.bad_count < 0:
            box.bad_count = box.count
        box.present = 0
        box.count = 0
        box.removed_tick = k
    elif box.removed_tick >= 0 and k - box.removed_tick >= tp.t_b:
        box.present = 1
        box.removed_tick = -1
        box.lamp_tick = -1


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: motor and belt, parts and discharge, placement, operator, sensor."""
    items = plant[ITEMS][c]
    tp, box, ln = plant[TASKP][c], plant[BOXST][c], plant[LSTATE][c, 0]
    mst = plant[MST][c, 0]
    dol.tick(mst, plant[MPA][c, 0], out[O_CONV] != 0.0, k)
    plant[SEGS][c, 0].v = mst.n * tp.v_nom
    conveyor.tick_line(items, plant[SEGS][c], plant[OBST][c], plant[LINES][c, 0], ln, 0, k)
    _discharge(items, box, ln, k)
    emitter.tick(plant[EST][c, 0], plant[EPA][c, 0], items, False, k)
    _operator(box, tp, out[O_LAMP] != 0.0, k)
    sensors.tick(plant[SST][c, 0], plant[SPA][c, 0], items, k + 1)


@njit(cache=True)
def _parts_left(items):
    """Parts not yet placed or still on the belt."""
    n = 0
    for j in range(items.shape[0]):
        if items[j].place == items_mod.WAITING or items[j].place == items_mod.LINE:
            n += 1
    return n


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    box, tp = plant[BOXST][c], plant[TASKP][c]
    violation = 1 if s_drop(plant[LSTATE][c, 0]) else 0
    if box.bad_count >= 0:
        return violation, -1, 1, float(box.bad_count)
    if box.full_removed >= tp.boxes:
        return violation, 1, 0, 0.0
    if _parts_left(plant[ITEMS][c]) == 0:
        still_fillable = tp.boxes - box.full_removed == 1 and box.count == tp.batch
        if not still_fillable:
            return violation, -1, 2, 0.0
    return violation, 0, 0, 0.0
