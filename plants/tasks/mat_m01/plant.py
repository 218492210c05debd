"""MAT-M01 plant binding: emitter, DOL belt, colour sensors, two pushers with chutes; judge.

Batch state (``build``, one row per condition): the item table, the belt line (segment,
obstacle placeholder, line and its state), the pitch emitter, the DOL drive, five point
sensors (ENTRY_PE, COL_RED, COL_BLUE, PE1, PE2), the two pusher cylinders, the pushers and
their chutes, the operator script (AUTO_SW off windows, chute emptying), the per-condition
task data (belt speed, the sticking pusher) and the judge's record of the chutes' FULL state
when each item reached PE1 / PE2.

The judge records, per item, whether the target chute was FULL in the state the program
reads in the scan the item's front reaches PE1 / PE2 (the "full at that PE edge" exception),
checks each item's fate when it is recorded, the AUTO rule in every scan, and the three
safety rules from the device counters.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import chute, conveyor, cylinder, dol, emitter, pusher, scripts, sensors
from plants.devices import items as items_mod
from plants.devices.items import BLUE, DELIVERED, DONE, LINE, RED
from plants.devices.panel import sense_switch
from plants.devices.protocol import EPS, NEVER, ticks
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
(I_AUTO, I_ENTRY, I_RED, I_BLUE, I_PE1, I_PE2, I_P1_RET, I_P1_EXT, I_P2_RET, I_P2_EXT,
 I_CH1_FULL, I_CH2_FULL) = range(12)
O_CONV, O_PUSH1, O_PUSH2, O_LAMP = range(4)
# Sensor units.
S_ENTRY, S_RED, S_BLUE, S_PE1, S_PE2 = range(5)
# Slots of the plant tuple that ``build`` returns.
(P_ITEMS, P_SEGMENTS, P_OBSTACLES, P_LINES, P_LINE_STATE, P_EMIT_PA, P_EMIT_ST,
 P_DRIVE_PA, P_DRIVE_ST, P_SENSOR_PA, P_SENSOR_ST, P_CYL_PA, P_CYL_ST, P_PUSHER_PA,
 P_PUSHER_ST, P_CHUTE_PA, P_CHUTE_ST, P_SCRIPT, P_TASK, P_FULL_AT_PE) = range(20)
# Script channels.
CH_AUTO, CH_EMPTY1, CH_EMPTY2 = range(3)
CHANNELS = {("off", "AUTO_SW"): CH_AUTO, ("empty", "CH1"): CH_EMPTY1, ("empty", "CH2"): CH_EMPTY2}

BELT_MM = 2500.0
X_COLOUR = 300.0
X_PUSHER = (1000.0, 1600.0)
X_PE = (1030.0, 1630.0)
ITEM_MM = 60.0
FIRST_ITEM_S = 1.0
TAU_BELT_S = 0.1
CHUTE_CAPACITY = 5
STICK_STROKE = 0.5
DEST_CHUTE1, DEST_CHUTE2, DEST_END = 1, 2, 3
COLOURS = {"R": items_mod.RED, "B": items_mod.BLUE, "G": items_mod.GREEN, "W": items_mod.WHITE}

VIOLATIONS = ("S-JAM", "S-STRIKE", "S-OVERFLOW")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "CONV is TRUE in a scan whose input image has AUTO_SW = FALSE",
    "item {arg:.0f} reached the wrong destination",
    "item {arg:.0f} was damaged",
    "item {arg:.0f} was lost (it fell back onto an occupied belt place)",
)
"""Failure reason id i + 1 -> text."""

TASK_DTYPE = np.dtype([
    ("v", np.float64),  # belt speed, mm/s
    ("n_items", np.int32),
    ("stick_unit", np.int32),  # pusher that sticks (0 = P1, 1 = P2)
    ("stick_item", np.int32),  # item row whose capture by that pusher arms the stick, -1 none
    ("stick_ticks", np.int64),
])

UNSEEN = -1
"""Item has not reached the photo-eye yet (``full_at_pe``)."""


def _items(task: TaskSpec) -> np.ndarray:
    per_condition = []
    for cond in task.conditions:
        pitches = (0.0, *cond.params["pitch_mm"])
        per_condition.append([
            dict(length=ITEM_MM, colour=COLOURS[col], t_place=ticks(FIRST_ITEM_S), pitch=p)
            for col, p in zip(cond.params["items"], pitches, strict=True)
        ])
    return items_mod.make_items(per_condition)


def _script(task: TaskSpec) -> np.ndarray:
    events = []
    for cond in task.conditions:
        evs = []
        for ev in cond.script:
            channel = CHANNELS.get((ev.kind, ev.target))
            if channel is None:
                raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind!r} {ev.target!r}")
            end = ev.t + ev.duration if ev.kind == "off" else ev.t + 0.01
            evs.append(scripts.event(channel, ev.t, end))
        events.append(evs)
    return scripts.build_scripts(events, spare_rows=0)


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    conds = task.conditions
    n = len(conds)
    items = _items(task)
    n_items = [len(c.params["items"]) for c in conds]
    segments = conveyor.make_segments(n, 1, line=0, x0=0.0, x1=BELT_MM)
    obstacles = conveyor.make_obstacles(n, 1, line=-1)
    lines = conveyor.make_lines(n, 1, x_end=BELT_MM, down_kind=conveyor.END_RECEIVER,
                                down_dest=DEST_END)
    epa = emitter.make_params(n, 1, line=0, x_place=0.0, gap_min=0.0, mode=emitter.PITCH,
                              last=n_items)
    dpa = dol.make_params(n, 1, tau_acc=TAU_BELT_S, tau_coast=TAU_BELT_S)
    spa = sensors.make_params(
        n, 5, line=0, x=np.array([[X_COLOUR, X_COLOUR, X_COLOUR, X_PE[0], X_PE[1]]]),
        kind=np.array([[sensors.DIFFUSE, sensors.COLOUR, sensors.COLOUR, sensors.DIFFUSE,
                        sensors.DIFFUSE]]),
        colours=np.array([[0, sensors.colour_mask(RED), sensors.colour_mask(BLUE), 0, 0]]))
    cpa = cylinder.make_params(n, 2, t_ext=[c.params["t_ext_s"] for c in conds],
                               t_ret=[c.params["t_ret_s"] for c in conds], stick_s=STICK_STROKE)
    ppa = pusher.make_params(n, 2, line=0, xp=np.array([X_PUSHER]), chute=np.array([[0, 1]]))
    hpa = chute.make_params(n, 2, capacity=CHUTE_CAPACITY,
                            dest=np.array([[DEST_CHUTE1, DEST_CHUTE2]]))
    hst = chute.make_state(hpa, count=np.array([[c.params.get("ch1_start", 0),
                                                 c.params.get("ch2_start", 0)] for c in conds]))
    task_rows = np.zeros(n, TASK_DTYPE)
    task_rows["v"] = [c.params["v_mm_s"] for c in conds]
    task_rows["n_items"] = n_items
    task_rows["stick_unit"] = [c.params.get("stick_pusher", 1) - 1 for c in conds]
    task_rows["stick_item"] = [c.params.get("stick_item", 0) - 1 for c in conds]
    task_rows["stick_ticks"] = [ticks(c.params.get("stick_s", 0.0)) for c in conds]
    full_at_pe = np.full((n, items.shape[1], 2), UNSEEN, np.int8)
    return (items, segments, obstacles, lines, conveyor.make_line_state(lines), epa,
            emitter.make_state(epa), dpa, dol.make_state(dpa), spa, sensors.make_state(spa),
            cpa, cylinder.make_state(cpa), ppa, pusher.make_state(ppa), hpa, hst, _script(task),
            task_rows, full_at_pe)


@njit(cache=True)
def sense(plant, c, k, inp):
    """Selector from the script, sensors, cylinder switches and chute FULL switches."""
    spa, sst = plant[P_SENSOR_PA][c], plant[P_SENSOR_ST][c]
    cpa, cst = plant[P_CYL_PA][c], plant[P_CYL_ST][c]
    hpa, hst = plant[P_CHUTE_PA][c], plant[P_CHUTE_ST][c]
    inp[I_AUTO] = 1.0 if sense_switch(plant[P_SCRIPT][c], CH_AUTO, k) else 0.0
    for u in range(5):
        inp[I_ENTRY + u] = 1.0 if sensors.sense(sst[u], spa[u], k) else 0.0
    for u in range(2):
        inp[I_P1_RET + 2 * u] = 1.0 if cylinder.sense_retracted(cst[u], cpa[u]) else 0.0
        inp[I_P1_EXT + 2 * u] = 1.0 if cylinder.sense_extended(cst[u], cpa[u]) else 0.0
        inp[I_CH1_FULL + u] = 1.0 if chute.sense_full(hst[u], hpa[u]) else 0.0


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: operator script, belt drive and items, pushers, emitter, sensors."""
    items, segments = plant[P_ITEMS][c], plant[P_SEGMENTS][c]
    cpa, cst = plant[P_CYL_PA][c], plant[P_CYL_ST][c]
    ppa, pst = plant[P_PUSHER_PA][c], plant[P_PUSHER_ST][c]
    hpa, hst = plant[P_CHUTE_PA][c], plant[P_CHUTE_ST][c]
    script, task = plant[P_SCRIPT][c], plant[P_TASK][c]
    if scripts.starts(script, CH_EMPTY1, k + 1):
        chute.empty(hst[0])
    if scripts.starts(script, CH_EMPTY2, k + 1):
        chute.empty(hst[1])
    dol.tick(plant[P_DRIVE_ST][c, 0], plant[P_DRIVE_PA][c, 0], out[O_CONV] != 0.0, k)
    segments[0].v = plant[P_DRIVE_ST][c, 0].n * task.v
    conveyor.tick_line(items, segments, plant[P_OBSTACLES][c], plant[P_LINES][c, 0],
                       plant[P_LINE_STATE][c, 0], 0, k)
    for u in range(2):
        cylinder.tick(cst[u], cpa[u], out[O_PUSH1 + u] != 0.0, False, k)
        pusher.tick(pst[u], ppa[u], cst[u], items, hst, hpa, k)
    # a sticking pusher (A39): it holds at half stroke once it has captured the scripted item
    u = task.stick_unit
    if task.stick_item >= 0 and pst[u].captured == task.stick_item and cpa[u].stick_arm == NEVER:
        cpa[u].stick_arm = k + 1
        cpa[u].stick_len = task.stick_ticks
    emitter.tick(plant[P_EMIT_ST][c, 0], plant[P_EMIT_PA][c, 0], items, False, k)
    for u in range(5):
        sensors.tick(plant[P_SENSOR_ST][c, u], plant[P_SENSOR_PA][c, u], items, k + 1)


@njit(cache=True)
def _record_full_at_pe(plant, c):
    """Remember each chute's FULL switch as the program reads it when an item's front first
    covers PE1 / PE2 (the state judged here is the one the next scan reads)."""
    items, full = plant[P_ITEMS][c], plant[P_FULL_AT_PE][c]
    hpa, hst = plant[P_CHUTE_PA][c], plant[P_CHUTE_ST][c]
    for j in range(items.shape[0]):
        it = items[j]
        if it.place != LINE:
            continue
        for u in range(2):
            x_pe = plant[P_SENSOR_PA][c, S_PE1 + u].x
            if full[j, u] == UNSEEN and it.rear + it.length >= x_pe - EPS:
                full[j, u] = 1 if chute.sense_full(hst[u], hpa[u]) else 0


@njit(cache=True)
def _fate_reason(it, full):
    """0 if the item's recorded fate is correct, else the failure reason id."""
    if it.fate != DELIVERED:
        return 4
    if it.damaged:
        return 3
    want = DEST_END
    if it.colour == RED:
        want = DEST_CHUTE1
    elif it.colour == BLUE:
        want = DEST_CHUTE2
    if it.dest == want:
        return 0
    if it.dest == DEST_END and want == DEST_CHUTE1 and full[0] == 1:
        return 0
    if it.dest == DEST_END and want == DEST_CHUTE2 and full[1] == 1:
        return 0
    return 2


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    pst, hst = plant[P_PUSHER_ST][c], plant[P_CHUTE_ST][c]
    violation = 0
    if hst[0].n_overflow > 0 or hst[1].n_overflow > 0:
        violation = 3
    if pst[0].n_strike > 0 or pst[1].n_strike > 0:
        violation = 2
    if pst[0].n_jam > 0 or pst[1].n_jam > 0:
        violation = 1
    if out[O_CONV] != 0.0 and inp[I_AUTO] == 0.0:
        return violation, -1, 1, 0.0
    _record_full_at_pe(plant, c)
    items, full = plant[P_ITEMS][c], plant[P_FULL_AT_PE][c]
    n = plant[P_TASK][c].n_items
    done = 0
    for j in range(n):
        if items[j].place == DONE:
            done += 1
            reason = _fate_reason(items[j], full[j])
            if reason:
                return violation, -1, reason, float(j + 1)
    if done == n:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
