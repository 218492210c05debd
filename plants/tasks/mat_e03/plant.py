"""MAT-E03 plant binding: emitter + DOL belt + three sensors + one pusher with its chute.

Batch state (``build``, one row per condition): the item table, the line (segment, line
parameters and state, no obstacle), the emitter, the belt drive, the sensors (ENTRY_PE, IND_S,
PUSH_PE), the pusher cylinder, the pusher and its chute, the AUTO_SW script, the belt speed
per condition and one judge record. The judge checks every part's fate against its material
as soon as the fate is recorded, the CONV/AUTO_SW rule on every scan, and S-JAM/S-STRIKE from
the pusher's counters.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import chute, conveyor, cylinder, dol, emitter, pusher, safety, scripts, sensors
from plants.devices import items as items_mod
from plants.devices.panel import sense_switch
from plants.devices.protocol import ticks
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_AUTO_SW, I_ENTRY_PE, I_IND_S, I_PUSH_PE, I_PUSH_RET, I_PUSH_EXT = range(6)
O_CONV, O_PUSH = range(2)
# Sensor units, script channel.
S_ENTRY, S_IND, S_PUSH = range(3)
CH_AUTO_OFF = 0

BELT_END_MM = 1500.0
SENSOR_X_MM = (300.0, 300.0, 1030.0)
PUSHER_X_MM = 1000.0
PLATE_WINDOW_MM = 50.0
CAPTURE_TOL_MM = 25.0
PART_LENGTH_MM = 60.0
TAU_BELT_S = 0.1
FIRST_PART_S = 1.0
CHUTE_CAPACITY = 20
DEST_CHUTE, DEST_END = 1, 2

VIOLATIONS = ("S-JAM", "S-STRIKE")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "metal part {arg:.0f} reached the belt end instead of the reject chute",
    "plastic part {arg:.0f} was pushed into the reject chute",
    "part {arg:.0f} was damaged",
    "part {arg:.0f} was dropped (it fell back onto an occupied belt place)",
    "CONV is TRUE in a scan whose input image has AUTO_SW = FALSE",
)
"""Failure reason id i + 1 -> text (arg: the part's sequence number)."""

JUDGE_DTYPE = np.dtype([("n_parts", np.int32), ("n_done", np.int32)])


def _items(task: TaskSpec) -> np.ndarray:
    """One item row per part: metal flag from the condition's sequence, pitch to the part ahead."""
    per_condition = []
    for cond in task.conditions:
        parts, pitches = cond.params["parts"], cond.params["pitch_mm"]
        if len(pitches) != len(parts) - 1 or set(parts) - {"M", "P"}:
            raise ValueError(f"{task.id} {cond.name}: parts/pitch_mm do not match")
        per_condition.append([
            dict(length=PART_LENGTH_MM, metal=int(m == "M"), t_place=ticks(FIRST_PART_S),
                 pitch=([0.0] + list(pitches))[j])
            for j, m in enumerate(parts)
        ])
    return items_mod.make_items(per_condition)


def _auto_script(task: TaskSpec) -> np.ndarray:
    events = []
    for cond in task.conditions:
        evs = []
        for ev in cond.script:
            if ev.kind != "auto_off":
                raise ValueError(f"{task.id} {cond.name}: unknown event kind {ev.kind!r}")
            evs.append(scripts.event(CH_AUTO_OFF, ev.t, ev.t + ev.duration))
        events.append(evs)
    return scripts.build_scripts(events, spare_rows=0)


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    params = [c.params for c in task.conditions]
    n_parts = [len(p["parts"]) for p in params]
    items = _items(task)
    segs = conveyor.make_segments(n, 1, line=0, x0=0.0, x1=BELT_END_MM)
    lines = conveyor.make_lines(n, x_end=BELT_END_MM, down_kind=conveyor.END_RECEIVER,
                                down_dest=DEST_END)
    obst = conveyor.make_obstacles(n, 1, line=-1)
    ep = emitter.make_params(n, line=0, mode=emitter.PITCH, first=0, last=n_parts)
    mp = dol.make_params(n, tau_acc=TAU_BELT_S, tau_coast=TAU_BELT_S)
    sp = sensors.make_params(n, 3, line=0, x=np.array([SENSOR_X_MM]),
                             kind=np.array([[sensors.DIFFUSE, sensors.INDUCTIVE, sensors.DIFFUSE]]))
    ss = sensors.make_state(sp)
    for c in range(n):
        for u in range(3):
            sensors.tick(ss[c, u], sp[c, u], items[c], 0)
    cp = cylinder.make_params(n, kind=cylinder.MONO, t_ext=[p["t_ext_s"] for p in params],
                              t_ret=[p["t_ret_s"] for p in params])
    pp = pusher.make_params(n, line=0, xp=PUSHER_X_MM, win=PLATE_WINDOW_MM, tol=CAPTURE_TOL_MM,
                            chute=0)
    chp = chute.make_params(n, capacity=CHUTE_CAPACITY, dest=DEST_CHUTE)
    belt_v = np.array([float(p["v_mm_s"]) for p in params])
    js = np.zeros(n, JUDGE_DTYPE)
    js["n_parts"] = n_parts
    return (items, segs, lines, conveyor.make_line_state(lines), obst,
            ep, emitter.make_state(ep), mp, dol.make_state(mp), sp, ss,
            cp, cylinder.make_state(cp), pp, pusher.make_state(pp),
            chp, chute.make_state(chp), _auto_script(task), belt_v, js)


@njit(cache=True)
def sense(plant, c, k, inp):
    """AUTO_SW from the script, the three sensors, the pusher's reed switches."""
    sp, ss = plant[9][c], plant[10][c]
    cpa, cst = plant[11][c, 0], plant[12][c, 0]
    inp[I_AUTO_SW] = 1.0 if sense_switch(plant[17][c], CH_AUTO_OFF, k) else 0.0
    inp[I_ENTRY_PE] = 1.0 if sensors.sense(ss[S_ENTRY], sp[S_ENTRY], k) else 0.0
    inp[I_IND_S] = 1.0 if sensors.sense(ss[S_IND], sp[S_IND], k) else 0.0
    inp[I_PUSH_PE] = 1.0 if sensors.sense(ss[S_PUSH], sp[S_PUSH], k) else 0.0
    inp[I_PUSH_RET] = 1.0 if cylinder.sense_retracted(cst, cpa) else 0.0
    inp[I_PUSH_EXT] = 1.0 if cylinder.sense_extended(cst, cpa) else 0.0


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: belt drive, items on the belt, pusher cylinder and plate, emitter,
    then the sensors read the new state."""
    items = plant[0][c]
    mpa, mst = plant[7][c, 0], plant[8][c, 0]
    dol.tick(mst, mpa, out[O_CONV] != 0.0, k)
    segs = plant[1][c]
    segs[0].v = mst.n * plant[18][c]
    conveyor.tick_line(items, segs, plant[4][c], plant[2][c, 0], plant[3][c, 0], 0, k)
    cpa, cst = plant[11][c, 0], plant[12][c, 0]
    cylinder.tick(cst, cpa, out[O_PUSH] != 0.0, False, k)
    pusher.tick(plant[14][c, 0], plant[13][c, 0], cst, items, plant[16][c], plant[15][c], k)
    emitter.tick(plant[6][c, 0], plant[5][c, 0], items, False, k)
    sp, ss = plant[9][c], plant[10][c]
    for u in range(ss.shape[0]):
        sensors.tick(ss[u], sp[u], items, k + 1)


@njit(cache=True)
def _fate_reason(it):
    """Failure reason id of a part whose fate is recorded (0 = at its correct destination)."""
    if it.fate == items_mod.DROPPED:
        return 4
    if it.damaged:
        return 3
    if it.metal and it.dest != DEST_CHUTE:
        return 1
    if not it.metal and it.dest != DEST_END:
        return 2
    return 0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    ps = plant[14][c, 0]
    js = plant[19][c]
    violation = 0
    if safety.s_strike(ps):
        violation = 2
    if safety.s_jam(ps):
        violation = 1
    if safety.s_auto(out[O_CONV] != 0.0, inp[I_AUTO_SW] != 0.0):
        return violation, -1, 5, 0.0
    items = plant[0][c]
    done = 0
    for j in range(js.n_parts):
        it = items[j]
        if it.damaged and it.place != items_mod.DONE:
            return violation, -1, 3, float(it.seq)
        if it.place == items_mod.DONE:
            reason = _fate_reason(it)
            if reason > 0:
                return violation, -1, reason, float(it.seq)
            done += 1
    js.n_done = done
    if done == js.n_parts:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
