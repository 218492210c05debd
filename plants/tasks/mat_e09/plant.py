"""MAT-E09 plant binding: tote source, three DOL belts on one line coordinate (infeed, cabin,
outfeed into the sink), the D08-hoisted cabin, the photo-eyes, and the judge (all K totes in
the sink; S-BOTHDIR, S-HWLIM, S-SHEAR, S-DROP).

Batch state (``build``), one row per condition: the item table, the line (segments infeed
[0, 1500], cabin [1500, 2300], outfeed [2300, 3800] ending in a receiver), three DOL motors,
the emitter, the two fixed photo-eyes, the hoist axis, the task parameters and the judge
record. The cabin conveyor rides with the cabin, so a tote crossing a cabin edge is received
only with the cabin level with that floor; otherwise it falls (``_fall_at_edges``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import conveyor, dol, emitter, raw_axis, sensors
from plants.devices import items as items_mod
from plants.devices.protocol import EPS, ticks
from plants.devices.safety import s_bothdir, s_drop, s_switch_zone
from plants.tasks.mat_e09 import CAB_X0_MM, CAB_X1_MM, FLOOR_1_MM, LEVEL_MM, SHEAR_MM_S, TOTE_MM
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
(I_AUTO_SW, I_IN_END_PE, I_CAB_PE, I_OUT_PE, I_NEAR_0, I_AT_0, I_NEAR_1, I_AT_1, I_LS_TOP,
 I_LS_BOT) = range(10)
O_IN_CONV, O_CAB_CONV, O_OUT_CONV, O_LIFT_UP, O_LIFT_DOWN, O_LIFT_FAST = range(6)

LINE_END_MM = 3800.0
IN_END_X, CAB_PE_X, OUT_PE_X = 1450.0, 2200.0, 2500.0
NEAR_MM, AT_MM = 150.0, 8.0
LS_BOT_MM, LS_TOP_MM = -100.0, 3100.0
STOP_BOT_MM, STOP_TOP_MM = -200.0, 3200.0  # mechanical end stops beyond the switches
BELT_TAU_S = 0.1
PLACE_GAP_MM = 1000.0 - TOTE_MM  # a tote is placed only when [0, 1000] is free
SINK = 0
IN_BELT, CAB_BELT, OUT_BELT = range(3)
PE_IN_END, PE_OUT = range(2)

VIOLATIONS = ("S-BOTHDIR", "S-HWLIM", "S-SHEAR", "S-DROP")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = ("a tote fell into the shaft at the cabin edge x = {arg:g} mm",)
"""Failure reason id i + 1 -> text."""

TASK_DTYPE = np.dtype([("v_conv", np.float64), ("totes", np.int64)])
JUDGE_DTYPE = np.dtype([("fell_at", np.float64)])  # edge of the first fall, 0 = none

# Slots of the plant tuple.
ITEMS, SEGS, OBST, LINES, LSTATE, EPA, EST, MPA, MST, SPA, SST, HPA, HST, TASKP, JST = range(15)

PROBES = {
    "cabin_z": ((HST, 0), "x", "mm"),
    "cabin_speed": ((HST, 0), "v", "mm/s"),
    "cabin_belt": ((SEGS, CAB_BELT), "v", "mm/s"),
    "delivered": ((LSTATE, 0), "n_delivered", "totes"),
}


def _arrivals(task: TaskSpec, cond) -> list[float]:
    """Tote arrival times; the count must match the condition's K."""
    times = []
    for ev in cond.script:
        if ev.kind != "tote":
            raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind!r}")
        times.append(ev.t)
    if len(times) != int(cond.params["totes"]):
        raise ValueError(f"{task.id} {cond.name}: {len(times)} tote events but K = "
                         f"{cond.params['totes']}")
    return sorted(times)


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    per_totes = [[dict(length=TOTE_MM, t_place=ticks(t)) for t in _arrivals(task, cond)]
                 for cond in task.conditions]
    items = items_mod.make_items(per_totes)
    segs = conveyor.make_segments(n, 3, line=0, x0=np.array([[0.0, CAB_X0_MM, CAB_X1_MM]]),
                                  x1=np.array([[CAB_X0_MM, CAB_X1_MM, LINE_END_MM]]))
    obst = conveyor.make_obstacles(n, 1, line=-1)
    lines = conveyor.make_lines(n, 1, x_start=0.0, x_end=LINE_END_MM,
                                down_kind=conveyor.END_RECEIVER, down_dest=SINK,
                                up_kind=conveyor.END_PLATE)
    epa = emitter.make_params(n, 1, line=0, x_place=0.0, gap_min=PLACE_GAP_MM,
                              mode=emitter.TIME, first=0, last=[len(t) for t in per_totes])
    mpa = dol.make_params(n, 3, pickup=0, dropout=0, tau_acc=BELT_TAU_S, tau_coast=BELT_TAU_S)
    spa = sensors.make_params(n, 2, line=0, kind=sensors.DIFFUSE,
                              x=np.array([[IN_END_X, OUT_PE_X]]))
    hpa = raw_axis.make_params(
        n, 1, v_fast=[float(c.params["v_fast_mm_s"]) for c in task.conditions],
        v_creep=[float(c.params["v_creep_mm_s"]) for c in task.conditions],
        tau=[float(c.params["tau_s"]) for c in task.conditions],
        lim_neg=LS_BOT_MM, lim_pos=LS_TOP_MM, stop_neg=STOP_BOT_MM, stop_pos=STOP_TOP_MM,
        x0=0.0)
    taskp = np.zeros(n, TASK_DTYPE)
    taskp["v_conv"] = [float(c.params["v_conv_mm_s"]) for c in task.conditions]
    taskp["totes"] = [int(c.params["totes"]) for c in task.conditions]
    return (items, segs, obst, lines, conveyor.make_line_state(lines), epa,
            emitter.make_state(epa), mpa, dol.make_state(mpa), spa, sensors.make_state(spa),
            hpa, raw_axis.make_state(hpa), taskp, np.zeros(n, JUDGE_DTYPE))


@njit(cache=True)
def _cab_pe(items, z):
    """CAB_PE rides with the cabin: it sees cabin totes and totes of the floor it is at."""
    for j in range(items.shape[0]):
        it = items[j]
        if it.place == items_mod.LINE and items_mod.covers(it, CAB_PE_X):
            c = items_mod.centre(it)
            on_cabin = CAB_X0_MM <= c <= CAB_X1_MM
            if on_cabin or (c > CAB_X1_MM and z > 0.5 * FLOOR_1_MM) or (
                    c < CAB_X0_MM and z < 0.5 * FLOOR_1_MM):
                return True
    return False


@njit(cache=True)
def sense(plant, c, k, inp):
    """Photo-eyes from the tote footprints, floor flags and switches from the cabin height."""
    hst, hpa, sst, spa = plant[HST][c, 0], plant[HPA][c, 0], plant[SST][c], plant[SPA][c]
    z = hst.x
    inp[I_AUTO_SW] = 1.0
    inp[I_IN_END_PE] = 1.0 if sensors.sense(sst[PE_IN_END], spa[PE_IN_END], k) else 0.0
    inp[I_CAB_PE] = 1.0 if _cab_pe(plant[ITEMS][c], z) else 0.0
    inp[I_OUT_PE] = 1.0 if sensors.sense(sst[PE_OUT], spa[PE_OUT], k) else 0.0
    inp[I_NEAR_0] = 1.0 if raw_axis.sense_window(hst, -NEAR_MM, NEAR_MM) else 0.0
    inp[I_AT_0] = 1.0 if raw_axis.sense_window(hst, -AT_MM, AT_MM) else 0.0
    inp[I_NEAR_1] = 1.0 if raw_axis.sense_window(hst, FLOOR_1_MM - NEAR_MM,
                                                 FLOOR_1_MM + NEAR_MM) else 0.0
    inp[I_AT_1] = 1.0 if raw_axis.sense_window(hst, FLOOR_1_MM - AT_MM, FLOOR_1_MM + AT_MM) else 0.0
    inp[I_LS_TOP] = 1.0 if raw_axis.sense_lim_pos(hst, hpa) else 0.0
    inp[I_LS_BOT] = 1.0 if raw_axis.sense_lim_neg(hst, hpa) else 0.0


@njit(cache=True)
def _fall_at_edges(items, ln, js, z, k):
    """A tote whose centre crossed a cabin edge in this step with the cabin off the receiving
    floor falls into the shaft (S-DROP)."""
    half = 0.5 * TOTE_MM
    for j in range(items.shape[0]):
        it = items[j]
        if it.place != items_mod.LINE:
            continue
        c0, c1 = it.rear_prev + half, it.rear + half
        edge = 0.0
        if c0 < CAB_X0_MM <= c1 and abs(z) > LEVEL_MM:
            edge = CAB_X0_MM
        elif c0 < CAB_X1_MM <= c1 and abs(z - FLOOR_1_MM) > LEVEL_MM:
            edge = CAB_X1_MM
        if edge > 0.0:
            items_mod.record_fate(it, items_mod.DROPPED, -1, k + 1)
            ln.n_drop += 1
            if ln.first_drop < 0:
                ln.first_drop = k + 1
            if js.fell_at == 0.0:
                js.fell_at = edge


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: hoist, belt motors, totes (falls at the edges), placement, photo-eyes."""
    items, segs, mst, mpa = plant[ITEMS][c], plant[SEGS][c], plant[MST][c], plant[MPA][c]
    hst = plant[HST][c, 0]
    raw_axis.tick(hst, plant[HPA][c, 0], out[O_LIFT_UP] != 0.0, out[O_LIFT_DOWN] != 0.0,
                  out[O_LIFT_FAST] != 0.0, False, k)
    v_conv = plant[TASKP][c].v_conv
    for b, o in ((IN_BELT, O_IN_CONV), (CAB_BELT, O_CAB_CONV), (OUT_BELT, O_OUT_CONV)):
        dol.tick(mst[b], mpa[b], out[o] != 0.0, k)
        segs[b].v = mst[b].n * v_conv
    ln = plant[LSTATE][c, 0]
    conveyor.tick_line(items, segs, plant[OBST][c], plant[LINES][c, 0], ln, 0, k)
    _fall_at_edges(items, ln, plant[JST][c], hst.x, k)
    emitter.tick(plant[EST][c, 0], plant[EPA][c, 0], items, False, k)
    for s in range(2):
        sensors.tick(plant[SST][c, s], plant[SPA][c, s], items, k + 1)


@njit(cache=True)
def _straddles_edge(items):
    """A tote footprint strictly contains a cabin edge."""
    for j in range(items.shape[0]):
        it = items[j]
        if it.place == items_mod.LINE:
            for edge in (CAB_X0_MM, CAB_X1_MM):
                if it.rear < edge - EPS and edge + EPS < it.rear + it.length:
                    return True
    return False


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    hst, ln, js = plant[HST][c, 0], plant[LSTATE][c, 0], plant[JST][c]
    violation = 0
    if s_bothdir(out[O_LIFT_UP] != 0.0, out[O_LIFT_DOWN] != 0.0):
        violation = 1
    elif s_switch_zone(hst.x, LS_BOT_MM, LS_TOP_MM):
        violation = 2
    elif abs(hst.v) > SHEAR_MM_S and _straddles_edge(plant[ITEMS][c]):
        violation = 3
    elif s_drop(ln):
        violation = 4
    if js.fell_at > 0.0:
        return violation, -1, 1, js.fell_at
    if ln.n_delivered >= plant[TASKP][c].totes:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
