"""MAT-E01 plant binding: placing operator, DOL-tau belt, two photo-eyes, removing operator,
and the judge (all boxes removed; empty-belt, lamp and AUTO rules; S-DROP, S-STOPPB, S-LATCH).

Batch state (``build``), one row per condition: the item table, the belt (one segment on one
line 0..2000 mm with an open far end), the DOL motor, the emitter, the photo-eyes, the panel
script, the task parameters, the removing operator's state and the judge record.
Plant step (``advance``): motor, belt speed, items, placement, removal, then the sensors read
the new state, so that ``sense`` at tick k + 1 shows S_{k+1}.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import conveyor, dol, emitter, scripts, sensors
from plants.devices import items as items_mod
from plants.devices.panel import sense_nc, sense_switch
from plants.devices.protocol import ticks
from plants.devices.safety import s_drop, s_latch, s_stoppb
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_ENTRY_PE, I_END_PE, I_STOP_NC, I_AUTO_SW = range(4)
O_CONV, O_LAMP_WAIT = range(2)
# Script channels of the panel.
CH_STOP, CH_AUTO = range(2)

BELT_MM = 2000.0
ENTRY_X = 100.0
END_X = 1850.0
PLACE_GAP_MM = 50.0  # the operator places a box only when [0, l + 50] is free
TOLERANCE_TICKS = 2  # A5/A17

VIOLATIONS = ("S-DROP", "S-STOPPB", "S-LATCH")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "the empty belt ran longer than 5 s at a time (CONV TRUE with no box on the belt)",
    "LAMP_WAIT was FALSE when the operator removed a box",
    "LAMP_WAIT and CONV are TRUE in the same output image",
    "CONV is TRUE in a scan whose input image has AUTO_SW = FALSE",
    "a box fell off the open belt end, so not every box can be removed",
)
"""Failure reason id i + 1 -> text."""

TASK_DTYPE = np.dtype([("v_nom", np.float64), ("t_rm", np.int64), ("n_boxes", np.int64),
                       ("empty_limit", np.int64)])
OPERATOR_DTYPE = np.dtype([("conv_off", np.int64), ("removed", np.int64),
                           ("lamp_missed", np.int64)])
JUDGE_DTYPE = np.dtype([("prev_auto", np.uint8), ("latched", np.uint8), ("empty_run", np.int64)])

# Slots of the plant tuple.
ITEMS, SEGS, OBST, LINES, LSTATE, EPA, EST, MPA, MST, SPA, SST, SCRIPT, TASKP, OPER, JUDGE = range(15)


def _script_rows(task: TaskSpec, cond) -> tuple[list[float], list[tuple]]:
    """Box placement times and panel events of one condition."""
    boxes, events = [], []
    for ev in cond.script:
        if ev.kind == "place":
            boxes.append(ev.t)
        elif ev.kind == "press" and ev.target == "STOP":
            events.append(scripts.press(CH_STOP, ev.t, ev.duration or scripts.PRESS_S))
        elif ev.kind == "switch_off" and ev.target == "AUTO_SW":
            events.append(scripts.event(CH_AUTO, ev.t, ev.t + ev.duration))
        else:
            raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind!r} {ev.target!r}")
    return boxes, events


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    per_boxes, per_events = [], []
    for cond in task.conditions:
        boxes, events = _script_rows(task, cond)
        length = float(cond.params["length_mm"])
        per_boxes.append([dict(length=length, t_place=ticks(t)) for t in sorted(boxes)])
        per_events.append(events)
    items = items_mod.make_items(per_boxes)
    segs = conveyor.make_segments(n, 1, line=0, x0=0.0, x1=BELT_MM)
    obst = conveyor.make_obstacles(n, 1, line=-1)
    lines = conveyor.make_lines(n, 1, x_start=0.0, x_end=BELT_MM, down_kind=conveyor.END_OPEN,
                                up_kind=conveyor.END_PLATE)
    epa = emitter.make_params(n, 1, line=0, x_place=0.0, gap_min=PLACE_GAP_MM,
                              mode=emitter.TIME, first=0, last=[len(b) for b in per_boxes])
    tau = [float(c.params["tau_s"]) for c in task.conditions]
    mpa = dol.make_params(n, 1, pickup=0, dropout=0, tau_acc=tau, tau_coast=tau)
    spa = sensors.make_params(n, 2, line=0, kind=sensors.DIFFUSE,
                              x=np.array([[ENTRY_X, END_X]]))
    taskp = np.zeros(n, TASK_DTYPE)
    taskp["v_nom"] = [float(c.params["v_mm_s"]) for c in task.conditions]
    taskp["t_rm"] = [ticks(float(c.params["t_rm_s"])) for c in task.conditions]
    taskp["n_boxes"] = [len(b) for b in per_boxes]
    taskp["empty_limit"] = ticks(float(task.judge.get("empty_run_s", 5.0))) + TOLERANCE_TICKS
    judge_state = np.zeros(n, JUDGE_DTYPE)
    judge_state["prev_auto"] = 1  # AUTO_SW is ON from t = 0 (A1): no release edge at scan 1
    return (items, segs, obst, lines, conveyor.make_line_state(lines), epa,
            emitter.make_state(epa), mpa, dol.make_state(mpa), spa, sensors.make_state(spa),
            scripts.build_scripts(per_events, spare_rows=0), taskp, np.zeros(n, OPERATOR_DTYPE),
            judge_state)


@njit(cache=True)
def sense(plant, c, k, inp):
    """Photo-eyes from the item footprints, STOP_NC and AUTO_SW from the script."""
    spa, sst, script = plant[SPA][c], plant[SST][c], plant[SCRIPT][c]
    inp[I_ENTRY_PE] = 1.0 if sensors.sense(sst[0], spa[0], k) else 0.0
    inp[I_END_PE] = 1.0 if sensors.sense(sst[1], spa[1], k) else 0.0
    inp[I_STOP_NC] = 1.0 if sense_nc(script, CH_STOP, k) else 0.0
    inp[I_AUTO_SW] = 1.0 if sense_switch(script, CH_AUTO, k) else 0.0


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: motor and belt, boxes, operator placement and removal, sensors."""
    items = plant[ITEMS][c]
    conv = out[O_CONV] != 0.0
    mst = plant[MST][c, 0]
    dol.tick(mst, plant[MPA][c, 0], conv, k)
    plant[SEGS][c, 0].v = mst.n * plant[TASKP][c].v_nom
    conveyor.tick_line(items, plant[SEGS][c], plant[OBST][c], plant[LINES][c, 0],
                       plant[LSTATE][c, 0], 0, k)
    emitter.tick(plant[EST][c, 0], plant[EPA][c, 0], items, False, k)
    op = plant[OPER][c]
    op.conv_off = 0 if conv else op.conv_off + 1
    if op.conv_off >= plant[TASKP][c].t_rm:
        if items_mod.remove_covering(items, 0, END_X, k + 1) >= 0:
            op.removed += 1
            op.conv_off = 0
            if out[O_LAMP_WAIT] == 0.0:
                op.lamp_missed += 1
    spa, sst = plant[SPA][c], plant[SST][c]
    for u in range(2):
        sensors.tick(sst[u], spa[u], items, k + 1)


@njit(cache=True)
def _boxes_on_belt(items):
    n = 0
    for j in range(items.shape[0]):
        if items[j].place == items_mod.LINE:
            n += 1
    return n


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    js, op, tp = plant[JUDGE][c], plant[OPER][c], plant[TASKP][c]
    stop_nc = inp[I_STOP_NC] != 0.0
    auto = inp[I_AUTO_SW] != 0.0
    conv = out[O_CONV] != 0.0
    lamp = out[O_LAMP_WAIT] != 0.0
    auto_rise = auto and js.prev_auto == 0
    js.prev_auto = 1 if auto else 0
    latch_broken = s_latch(js, conv, not stop_nc, auto_rise)
    violation = 0
    if latch_broken:
        violation = 3
    if s_stoppb(stop_nc, conv):
        violation = 2
    dropped = s_drop(plant[LSTATE][c, 0])
    if dropped:
        violation = 1
    js.empty_run = js.empty_run + 1 if conv and _boxes_on_belt(plant[ITEMS][c]) == 0 else 0
    if js.empty_run > tp.empty_limit:
        return violation, -1, 1, 0.0
    if op.lamp_missed > 0:
        return violation, -1, 2, 0.0
    if lamp and conv:
        return violation, -1, 3, 0.0
    if conv and not auto:
        return violation, -1, 4, 0.0
    if dropped:
        return violation, -1, 5, 0.0
    if op.removed == tp.n_boxes:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
