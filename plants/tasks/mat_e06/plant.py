"""MAT-E06 plant binding: bottle source, DOL belt, stopper blade, fill photo-eye, delayed fill
valve with flow meter, the lifting operator, and the judge (every bottle delivered within
VOLUME +/- 5 ml or lifted away; S-SPILL, S-OVERFLOW, S-LIFT).

Plant step (``advance``): belt drive, blade, bottles, placement, valve and flow into the bottle
at rest under the nozzle, the operator's lift-away, then the photo-eye reads the new state, so
that ``sense`` at tick k + 1 shows S_{k+1}.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import conveyor, cylinder, dol, emitter, sensors, stopper, tank
from plants.devices import items as items_mod
from plants.devices.protocol import EPS, NEVER, ticks
from plants.devices.safety import s_lift, s_spill
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_AUTO_SW, I_BOT_AT_FILL, I_STOP_UP_S, I_FLOW_CNT, I_VOLUME = range(5)
O_CONV, O_STOP_UP, O_FILL = range(3)

BELT_MM = 1500.0
BOTTLE_MM = 80.0
BLADE_X = 1000.0
BLADE_S = 0.1
SENSOR_X = 990.0
NOZZLE_X = 960.0
NOZZLE_TOL_MM = 10.0
AT_REST_MM = 0.01  # moved less than this in the last step
TAU_BELT_S = 0.1
VALVE_DELAY_TICKS = 3  # 30 ms
SPILL_TICKS = 5  # open without a bottle for more than 50 ms
CAPACITY_EXTRA_ML = 40.0
VOLUME_TOL_ML = 5.0
FIRST_BOTTLE_S = 1.0

VIOLATIONS = ("S-SPILL", "S-OVERFLOW", "S-LIFT")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = ("a bottle reached the exit holding {arg:.1f} ml, outside VOLUME +/- 5 ml",)
"""Failure reason id i + 1 -> text."""

TASK_DTYPE = np.dtype([
    ("v_nom", np.float64), ("volume", np.float64), ("q0", np.float64), ("q1", np.float64),
    ("q_change", np.int64), ("n_bottles", np.int64), ("lift_seq", np.int64),
    ("lift_after", np.int64),
])
STATE_DTYPE = np.dtype([
    ("fill_row", np.int64),  # bottle at rest under the nozzle after the last step, -1 none
    ("lift_at", np.int64),  # tick of the armed lift-away, NEVER until armed
    ("lift_done", np.uint8),
    ("valve_prev", np.uint8),
    ("spill_run", np.int64),  # consecutive steps the valve was open with no bottle under it
])

# Slots of the plant tuple.
(ITEMS, SEGS, OBST, LINES, LSTATE, EPA, EST, MPA, MST, BPA, BST, SPA, SST, FPA, FST, TASKP,
 STATE) = range(17)

PROBES = {
    "belt_speed": ((MST, 0), "n", "p.u."),
    "blade_stroke": ((BST, 0), "s", "0..1"),
    "valve_open": ((FST, 0), "valve", "bool"),
    "flow_total": ((FST, 0), "count", "ml"),
    "spill_run": (STATE, "spill_run", "steps"),
}
"""Plant-state columns sampled by `plantloop trace`."""


def _bottles(task: TaskSpec, cond) -> list[dict]:
    """Item rows of one condition: a skipped placement doubles the next bottle's pitch."""
    pitch = float(cond.params["pitch_mm"])
    skipped = set(cond.params.get("skipped", ()))
    if 1 in skipped:
        raise ValueError(f"{task.id} {cond.name}: the first placement (t = 1.0 s) is never skipped")
    rows: list[dict] = []
    placement = 0
    gap = 0.0
    while len(rows) < int(cond.params["bottles"]):
        placement += 1
        gap += pitch
        if placement in skipped:
            continue
        rows.append(dict(length=BOTTLE_MM, t_place=ticks(FIRST_BOTTLE_S),
                         pitch=0.0 if not rows else gap))
        gap = 0.0
    return rows


def _task_row(task: TaskSpec, cond, row) -> None:
    p = cond.params
    row["v_nom"] = float(p["v_mm_s"])
    row["volume"] = float(p["volume_ml"])
    row["q0"] = float(p["q_ml_s"])
    row["q1"] = float(p.get("q_late_ml_s", p["q_ml_s"]))
    row["q_change"] = NEVER
    row["n_bottles"] = int(p["bottles"])
    row["lift_seq"] = -1
    row["lift_after"] = NEVER
    for ev in cond.script:
        if ev.kind == "flow_change":
            row["q_change"] = ticks(ev.t)
        elif ev.kind == "lift_away":
            row["lift_seq"] = int(dict(ev.args)["bottle"])
            row["lift_after"] = ticks(ev.t)
        else:
            raise ValueError(f"{task.id} {cond.name}: unknown event kind {ev.kind!r}")


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    per_bottles = [_bottles(task, c) for c in task.conditions]
    items = items_mod.make_items(per_bottles)
    segs = conveyor.make_segments(n, 1, line=0, x0=0.0, x1=BELT_MM)
    obst = conveyor.make_obstacles(n, 1, line=0, x=BLADE_X)
    lines = conveyor.make_lines(n, 1, x_start=0.0, x_end=BELT_MM, down_kind=conveyor.END_RECEIVER,
                                down_dest=0, up_kind=conveyor.END_PLATE)
    epa = emitter.make_params(n, 1, line=0, x_place=0.0, gap_min=0.0, mode=emitter.PITCH,
                              first=0, last=[len(b) for b in per_bottles])
    mpa = dol.make_params(n, 1, pickup=0, dropout=0, tau_acc=TAU_BELT_S, tau_coast=TAU_BELT_S)
    bpa = cylinder.make_params(n, 1, kind=cylinder.MONO, t_ext=BLADE_S, t_ret=BLADE_S)
    spa = sensors.make_params(n, 1, line=0, x=SENSOR_X, kind=sensors.DIFFUSE)
    sst = sensors.make_state(spa)
    for c in range(n):
        sensors.tick(sst[c, 0], spa[c, 0], items[c], 0)
    fpa = tank.make_fillers(n, 1, delay=VALVE_DELAY_TICKS)
    taskp = np.zeros(n, TASK_DTYPE)
    for c, cond in enumerate(task.conditions):
        _task_row(task, cond, taskp[c])
    fpa["q"] = taskp["q0"][:, None]
    state = np.zeros(n, STATE_DTYPE)
    state["fill_row"] = -1
    state["lift_at"] = NEVER
    return (items, segs, obst, lines, conveyor.make_line_state(lines), epa,
            emitter.make_state(epa), mpa, dol.make_state(mpa), bpa, cylinder.make_state(bpa),
            spa, sst, fpa, tank.make_filler_state(fpa), taskp, state)


@njit(cache=True)
def sense(plant, c, k, inp):
    """AUTO_SW on, the photo-eye, the blade's up switch, the flow counter and the target."""
    inp[I_AUTO_SW] = 1.0
    inp[I_BOT_AT_FILL] = 1.0 if sensors.sense(plant[SST][c, 0], plant[SPA][c, 0], k) else 0.0
    inp[I_STOP_UP_S] = 1.0 if cylinder.sense_extended(plant[BST][c, 0], plant[BPA][c, 0]) else 0.0
    inp[I_FLOW_CNT] = float(tank.sense_flow_cnt(plant[FST][c, 0]))
    inp[I_VOLUME] = plant[TASKP][c].volume


@njit(cache=True)
def _bottle_at_nozzle(items):
    """Row of the bottle at rest with its centre within 960 +/- 10 mm, -1 if none."""
    for j in range(items.shape[0]):
        it = items[j]
        if it.place == items_mod.LINE and abs(items_mod.centre(it) - NOZZLE_X) <= NOZZLE_TOL_MM + EPS:
            if abs(it.rear - it.rear_prev) < AT_REST_MM:
                return j
    return -1


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: belt, blade, bottles, placement, valve and flow, lift-away, sensor."""
    items, tp, st = plant[ITEMS][c], plant[TASKP][c], plant[STATE][c]
    mst = plant[MST][c, 0]
    dol.tick(mst, plant[MPA][c, 0], out[O_CONV] != 0.0, k)
    plant[SEGS][c, 0].v = mst.n * tp.v_nom
    stopper.tick(plant[OBST][c, 0], plant[BST][c, 0], plant[BPA][c, 0], out[O_STOP_UP] != 0.0, k)
    conveyor.tick_line(items, plant[SEGS][c], plant[OBST][c], plant[LINES][c, 0],
                       plant[LSTATE][c, 0], 0, k)
    emitter.tick(plant[EST][c, 0], plant[EPA][c, 0], items, False, k)
    fpa, fst = plant[FPA][c, 0], plant[FST][c, 0]
    fpa.q = tp.q1 if k >= tp.q_change else tp.q0
    tank.tick_filler(fst, fpa, out[O_FILL] != 0.0, k)
    row = _bottle_at_nozzle(items)
    st.fill_row = row
    if row >= 0:
        items[row].fill += fst.last
    if fst.valve and not st.valve_prev and row >= 0 and items[row].seq == tp.lift_seq \
            and st.lift_at == NEVER:
        st.lift_at = k + 1 + tp.lift_after
    st.valve_prev = fst.valve
    if not st.lift_done and k + 1 >= st.lift_at:
        st.lift_done = 1
        if row >= 0 and items[row].seq == tp.lift_seq:
            items_mod.record_fate(items[row], items_mod.REMOVED, -1, k + 1)
            st.fill_row = -1
    sensors.tick(plant[SST][c, 0], plant[SPA][c, 0], items, k + 1)


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    items, tp, st = plant[ITEMS][c], plant[TASKP][c], plant[STATE][c]
    blade = plant[BST][c, 0]
    violation = 0
    if s_lift(items, 0, BLADE_X, blade.s_prev, blade.s):
        violation = 3
    st.spill_run = st.spill_run + 1 if s_spill(plant[FST][c, 0].valve != 0, st.fill_row >= 0) else 0
    if st.spill_run > SPILL_TICKS:
        violation = 1
    done = 0
    for j in range(tp.n_bottles):
        it = items[j]
        if it.fill > tp.volume + CAPACITY_EXTRA_ML + EPS:
            violation = 2
        if it.place == items_mod.DONE:
            done += 1
            if it.fate == items_mod.DELIVERED and abs(it.fill - tp.volume) > VOLUME_TOL_ML + EPS:
                return violation, -1, 1, it.fill
    if done == tp.n_bottles:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
