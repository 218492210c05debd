"""MAT-E07 plant binding: accumulation + exit conveyor on one DOL drive, stopper blade A,
side clamp B, four photo-eyes, the scripted REQ pulses and AUTO_SW, and the judge (one item
per request, CONV off while AUTO_SW is off; S-LIFT, S-JAM).

Batch state (``build``), one row per condition: the item table (queued items already on the
line), one line 0..1500 mm of two segments (accumulation 0..1000, exit 1000..1500, a sink at
the far end), two obstacles (blade A at 1000 mm; the clamp's grip, placed at the front of the
gripped item), the DOL motor, the emitter, the blade and clamp cylinders, the photo-eyes, the
script (REQ pulse starts, AUTO_SW off window) and the judge's record.
Plant step (``advance``): motor, blade (S-LIFT on the positions before the items move), clamp
(grip and S-JAM when it reaches closed), items, EXIT_PE crossings, placement.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import conveyor, cylinder, dol, emitter, sensors, stopper
from plants.devices import items as items_mod
from plants.devices.protocol import EPS, NEVER, ticks
from plants.devices.safety import s_lift
from plants.tasks.mat_e07 import ITEM_MM
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_AUTO_SW, I_PE_A, I_PE_B, I_EXIT_PE, I_REQ, I_A_UP_S, I_B_CLAMPED, I_PE_IN = range(8)
O_CONV, O_STOP_A_UP, O_CLAMP_B = range(3)

LINE_END_MM = 1500.0
BLADE_X = 1000.0
CLAMP_X = 820.0
CLAMP_TOL_MM = 30.0
EXIT_X = 1200.0
SENSOR_X = (990.0, CLAMP_X, EXIT_X, 700.0)  # PE_A, PE_B, EXIT_PE, PE_IN
TAU_S = 0.1
PLACE_GAP_MM = 170.0 - ITEM_MM  # an item is placed only when [0, 170] is free
CLOSED = 0.98  # stroke of the EXTENDED switch (cylinder.sense_extended)
SINK = 0
MAX_REQ = 64

VIOLATIONS = ("S-LIFT", "S-JAM")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "{arg:g} items had crossed EXIT_PE with fewer REQ edges so far (a release without a "
    "request)",
    "CONV was TRUE in a scan whose AUTO_SW input was FALSE",
)
"""Failure reason id i + 1 -> text."""

TASK_DTYPE = np.dtype([
    ("v_nom", np.float64), ("n_req", np.int64), ("req_start", np.int64, (MAX_REQ,)),
    ("req_len", np.int64), ("off_from", np.int64), ("off_to", np.int64),
    ("last_event", np.int64), ("settle", np.int64),
])
STATE_DTYPE = np.dtype([
    ("held", np.int64),        # item row gripped by clamp B, -1 none
    ("n_lift", np.int64),      # S-LIFT events (blade up while an item straddles 1000 mm)
    ("n_jam", np.int64),       # S-JAM events (clamp closed on an off-centre item)
    ("n_cross", np.int64),     # items whose front passed EXIT_PE
    ("last_cross", np.int64),  # tick (S_k index) of the last crossing, -1 none
    ("n_edges", np.int64),     # REQ rising edges in the input images so far
    ("req_prev", np.uint8),    # REQ of the previous input image
])

# Slots of the plant tuple.
ITEMS, SEGS, OBST, LINES, LSTATE, EPA, EST, MPA, MST, APA, AST, BPA, BST, SPA, TASKP, STATE = (
    range(16))
OB_BLADE, OB_CLAMP = range(2)

PROBES = {
    "belt_speed": ((SEGS, 0), "v", "mm/s"),
    "blade_stroke": ((AST, 0), "s", "1"),
    "clamp_stroke": ((BST, 0), "s", "1"),
    "crossings": (STATE, "n_cross", "items"),
    "req_edges": (STATE, "n_edges", "requests"),
}


def _script(task: TaskSpec, cond) -> tuple[list[float], list[float], tuple[int, int]]:
    """Arrival times, REQ pulse starts and the AUTO_SW off window (ticks) of one condition."""
    arrivals, reqs, off = [], [], (int(NEVER), int(NEVER))
    for ev in cond.script:
        if ev.kind == "item":
            arrivals.append(ev.t)
        elif ev.kind == "req":
            reqs.append(ev.t)
        elif ev.kind == "auto_off":
            off = (ticks(ev.t), ticks(ev.t + ev.duration))
        else:
            raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind!r} {ev.target!r}")
    if len(reqs) > MAX_REQ:
        raise ValueError(f"{task.id} {cond.name}: at most {MAX_REQ} REQ pulses")
    return sorted(arrivals), sorted(reqs), off


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    scripts = [_script(task, cond) for cond in task.conditions]
    queued = [int(cond.params["queued"]) for cond in task.conditions]
    per_items = []
    for q, (arrivals, _, _) in zip(queued, scripts, strict=True):
        rows = [dict(length=ITEM_MM) for _ in range(q)]
        rows += [dict(length=ITEM_MM, t_place=ticks(t)) for t in arrivals]
        per_items.append(rows)
    items = items_mod.make_items(per_items)
    for c, q in enumerate(queued):  # touching behind the raised blade
        for j in range(q):
            it = items[c, j]
            it["place"] = items_mod.LINE
            it["line"] = 0
            it["rear"] = it["rear_prev"] = BLADE_X - ITEM_MM * (j + 1)
    segs = conveyor.make_segments(n, 2, line=0, x0=np.array([[0.0, BLADE_X]]),
                                  x1=np.array([[BLADE_X, LINE_END_MM]]))
    obst = conveyor.make_obstacles(n, 2, line=0, x=BLADE_X)
    obst["up"][:, OB_BLADE] = 1
    lines = conveyor.make_lines(n, 1, x_start=0.0, x_end=LINE_END_MM,
                                down_kind=conveyor.END_RECEIVER, down_dest=SINK,
                                up_kind=conveyor.END_PLATE)
    epa = emitter.make_params(n, 1, line=0, x_place=0.0, gap_min=PLACE_GAP_MM,
                              mode=emitter.TIME, first=queued,
                              last=[len(r) for r in per_items])
    mpa = dol.make_params(n, 1, pickup=0, dropout=0, tau_acc=TAU_S, tau_coast=TAU_S)
    apa = cylinder.make_params(n, 1, kind=cylinder.MONO,
                               t_ext=[float(c.params["blade_s"]) for c in task.conditions],
                               t_ret=[float(c.params["blade_s"]) for c in task.conditions])
    bpa = cylinder.make_params(n, 1, kind=cylinder.MONO,
                               t_ext=[float(c.params["clamp_s"]) for c in task.conditions],
                               t_ret=[float(c.params["clamp_s"]) for c in task.conditions])
    spa = sensors.make_params(n, 4, line=0, kind=sensors.DIFFUSE, x=np.array([SENSOR_X]))
    taskp = np.zeros(n, TASK_DTYPE)
    settle = ticks(float(task.judge["settle_s"]))
    for c, cond in enumerate(task.conditions):
        arrivals, reqs, off = scripts[c]
        tp = taskp[c]
        tp["v_nom"] = float(cond.params["v_mm_s"])
        tp["n_req"] = len(reqs)
        tp["req_start"][:] = NEVER
        tp["req_start"][: len(reqs)] = [ticks(t) for t in reqs]
        tp["req_len"] = ticks(max((ev.duration for ev in cond.script if ev.kind == "req"),
                                  default=0.2))
        tp["off_from"], tp["off_to"] = off
        tp["last_event"] = max([ticks(ev.t + ev.duration) for ev in cond.script], default=0)
        tp["settle"] = settle
    state = np.zeros(n, STATE_DTYPE)
    state["held"] = -1
    state["last_cross"] = -1
    return (items, segs, obst, lines, conveyor.make_line_state(lines), epa,
            emitter.make_state(epa), mpa, dol.make_state(mpa), apa,
            cylinder.make_state(apa, 1.0), bpa, cylinder.make_state(bpa), spa, taskp, state)


@njit(cache=True)
def _req_on(tp, k):
    """The scripted REQ input at tick k."""
    for i in range(tp.n_req):
        if tp.req_start[i] <= k < tp.req_start[i] + tp.req_len:
            return True
    return False


@njit(cache=True)
def sense(plant, c, k, inp):
    """AUTO_SW and REQ from the script, the photo-eyes, the blade's and clamp's end switches."""
    tp, items, spa = plant[TASKP][c], plant[ITEMS][c], plant[SPA][c]
    inp[I_AUTO_SW] = 0.0 if tp.off_from <= k < tp.off_to else 1.0
    inp[I_PE_A] = 1.0 if sensors.detects(spa[0], items) else 0.0
    inp[I_PE_B] = 1.0 if sensors.detects(spa[1], items) else 0.0
    inp[I_EXIT_PE] = 1.0 if sensors.detects(spa[2], items) else 0.0
    inp[I_REQ] = 1.0 if _req_on(tp, k) else 0.0
    inp[I_A_UP_S] = 1.0 if cylinder.sense_extended(plant[AST][c, 0], plant[APA][c, 0]) else 0.0
    inp[I_B_CLAMPED] = 1.0 if cylinder.sense_extended(plant[BST][c, 0], plant[BPA][c, 0]) else 0.0
    inp[I_PE_IN] = 1.0 if sensors.detects(spa[3], items) else 0.0


@njit(cache=True)
def _item_at_clamp(items):
    """Row of the item covering x = 820 mm (the one whose centre is nearest), -1 if none."""
    best, dist = -1, 1e18
    for j in range(items.shape[0]):
        it = items[j]
        if it.place == items_mod.LINE and items_mod.covers(it, CLAMP_X):
            d = abs(items_mod.centre(it) - CLAMP_X)
            if d < dist:
                best, dist = j, d
    return best


@njit(cache=True)
def _clamp(st, items, clamp, grip):
    """Grip the item at 820 mm when the clamp reaches closed (S-JAM if off-centre); let go
    when it leaves closed. The grip is an obstacle at the gripped item's front."""
    if clamp.s_prev < CLOSED - EPS and clamp.s >= CLOSED - EPS:
        st.held = _item_at_clamp(items)
        if st.held >= 0 and abs(items_mod.centre(items[st.held]) - CLAMP_X) > CLAMP_TOL_MM + EPS:
            st.n_jam += 1
    elif clamp.s < CLOSED - EPS:
        st.held = -1
    if st.held >= 0 and items[st.held].place != items_mod.LINE:
        st.held = -1
    grip.up = 1 if st.held >= 0 else 0
    if st.held >= 0:
        grip.x = items_mod.front(items[st.held])


@njit(cache=True)
def _crossings(st, items, k):
    """Count the items whose front passed EXIT_PE in this step."""
    for j in range(items.shape[0]):
        it = items[j]
        if it.place == items_mod.LINE or (it.place == items_mod.DONE and it.t_fate == k + 1):
            if it.rear_prev + it.length < EXIT_X - EPS <= it.rear + it.length:
                st.n_cross += 1
                st.last_cross = k + 1


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: motor and belts, blade, clamp, items, crossings, placement."""
    items, tp, st = plant[ITEMS][c], plant[TASKP][c], plant[STATE][c]
    mst = plant[MST][c, 0]
    dol.tick(mst, plant[MPA][c, 0], out[O_CONV] != 0.0, k)
    plant[SEGS][c, 0].v = mst.n * tp.v_nom
    plant[SEGS][c, 1].v = mst.n * tp.v_nom
    blade = plant[AST][c, 0]
    stopper.tick(plant[OBST][c, OB_BLADE], blade, plant[APA][c, 0], out[O_STOP_A_UP] != 0.0, k)
    if s_lift(items, 0, BLADE_X, blade.s_prev, blade.s):
        st.n_lift += 1
    clamp = plant[BST][c, 0]
    cylinder.tick(clamp, plant[BPA][c, 0], out[O_CLAMP_B] != 0.0, False, k)
    _clamp(st, items, clamp, plant[OBST][c, OB_CLAMP])
    conveyor.tick_line(items, plant[SEGS][c], plant[OBST][c], plant[LINES][c, 0],
                       plant[LSTATE][c, 0], 0, k)
    _crossings(st, items, k)
    emitter.tick(plant[EST][c, 0], plant[EPA][c, 0], items, False, k)


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    tp, st = plant[TASKP][c], plant[STATE][c]
    violation = 0
    if st.n_jam > 0:
        violation = 2
    if st.n_lift > 0:
        violation = 1
    req = inp[I_REQ] != 0.0
    if req and not st.req_prev:
        st.n_edges += 1
    st.req_prev = 1 if req else 0
    if st.n_cross > st.n_edges:
        return violation, -1, 1, float(st.n_cross)
    if out[O_CONV] != 0.0 and inp[I_AUTO_SW] == 0.0:
        return violation, -1, 2, 0.0
    if (st.n_edges == tp.n_req and st.n_cross == st.n_edges and k + 1 > tp.last_event
            and st.last_cross >= 0 and k + 1 - st.last_cross >= tp.settle):
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
