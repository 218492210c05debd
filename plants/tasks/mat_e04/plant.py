"""MAT-E04 plant binding: gravity magazine + monostable separator + scripted handler, and the
judge (K parts taken, the flashing-lamp rule, S-COLLIDE).

Batch state (``build``), one row per condition: the item table (the magazine stack in order,
then the refill parts), the separator cylinder, the magazine, the refill script, the handler
parameters and state, and the judge record. Line 0 is the pick position (one place, x = 0).
Plant step (``advance``): separator, magazine push, refills, then the handler, so that
``sense`` at tick k + 1 shows S_{k+1}.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import cylinder, magazine, scripts
from plants.devices import items as items_mod
from plants.devices.protocol import EPS, NEVER, ticks
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_AUTO_SW, I_MAG_EMPTY, I_PICK_POS, I_SEP_RET, I_SEP_EXT, I_REQ, I_TAKING = range(7)
O_SEP_V, O_LAMP_EMPTY = range(2)
CH_REFILL = 0  # script channel: a refill event's value is the number of parts added

PART_MM = 40.0
MAX_OFFS = 16  # REQ-off entries per condition (the last one repeats)
TOLERANCE_TICKS = 2  # A5: lower bounds on a phase the program times

# Handler phases.
H_WAIT, H_DELAY, H_GRIP, H_LEAVE = range(4)

VIOLATIONS = ("S-COLLIDE",)
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "LAMP_EMPTY phase of {arg} s outside 0.4-0.6 s while MAG_EMPTY and REQ",
    "LAMP_EMPTY did not toggle for more than 0.6 s while MAG_EMPTY and REQ",
    "LAMP_EMPTY on more than 0.2 s after MAG_EMPTY and REQ ended",
)
"""Failure reason id i + 1 -> text."""

HANDLER_DTYPE = np.dtype([
    ("t_d", np.int64), ("t_g", np.int64), ("t_leave", np.int64), ("offs", np.int64, (MAX_OFFS,)),
    ("n_offs", np.int32), ("k_parts", np.int32),
    ("phase", np.int32), ("since", np.int64), ("req", np.uint8), ("taking", np.uint8),
    ("back", np.uint8), ("req_at", np.int64), ("leave_at", np.int64), ("taken", np.int32),
])

JUDGE_DTYPE = np.dtype([
    ("grace", np.int64), ("ph_lo", np.int64), ("ph_hi", np.int64),
    ("cond_ticks", np.int64), ("off_ticks", np.int64), ("phase_ticks", np.int64),
    ("prev_lamp", np.uint8), ("own_part", np.uint8), ("prev_next", np.int32),
])

PROBES = {
    "stroke": ((1, 0), "s", "fraction"),
    "parts_taken": (5, "taken", "parts"),
    "handler_phase": (5, "phase", "0 wait 1 delay 2 grip 3 leave"),
}
"""Plant variables `plantloop trace` can show: separator stroke, parts taken, handler phase."""


def _items(cond) -> tuple[list[dict], int]:
    """Item rows in stack order (a part already at the pick position first) and the row of
    the first stacked part; refill parts follow the stack."""
    p = cond.params
    first = 1 if p["part_at_pick"] else 0
    refills = sum(int(dict(ev.args)["parts"]) for ev in cond.script if ev.kind == "refill")
    return [dict(length=PART_MM)] * (first + int(p["n"]) + refills), first


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    per_items, firsts, events = [], [], []
    handler = np.zeros(n, HANDLER_DTYPE)
    for c, cond in enumerate(task.conditions):
        p = cond.params
        lst, first = _items(cond)
        per_items.append(lst)
        firsts.append(first)
        evs = []
        for ev in cond.script:
            if ev.kind != "refill":
                raise ValueError(f"{task.id} {cond.name}: unknown event kind {ev.kind!r}")
            evs.append(scripts.event(CH_REFILL, ev.t, ev.t, float(dict(ev.args)["parts"])))
        events.append(evs)
        offs = list(p["t_off_list_s"])
        if not 1 <= len(offs) <= MAX_OFFS:
            raise ValueError(f"{task.id} {cond.name}: 1..{MAX_OFFS} REQ-off times expected")
        h = handler[c]
        h["t_d"], h["t_g"], h["t_leave"] = ticks(p["t_d_s"]), ticks(p["t_g_s"]), ticks(p["t_leave_s"])
        h["offs"][: len(offs)] = [ticks(x) for x in offs]
        h["n_offs"] = len(offs)
        h["k_parts"] = int(p["parts_to_take"])
        h["req"] = 0 if p["part_at_pick"] else 1
        if p["part_at_pick"]:  # the handler sees it (with SEP_RET) at t = 0 and starts waiting
            h["phase"], h["since"] = H_DELAY, 0
        h["back"] = 1
        h["req_at"] = NEVER
        h["leave_at"] = NEVER
    items = items_mod.make_items(per_items)
    for c, cond in enumerate(task.conditions):
        if cond.params["part_at_pick"]:
            it = items[c, 0]
            it["place"], it["line"], it["rear"], it["rear_prev"] = items_mod.LINE, 0, 0.0, 0.0
    cpa = cylinder.make_params(
        n, 1, kind=cylinder.MONO,
        t_ext=[float(c.params["t_ext_s"]) for c in task.conditions],
        t_ret=[float(c.params["t_ret_s"]) for c in task.conditions])
    mpa = magazine.make_params(
        n, 1, line=0, x_exit=0.0, first=firsts,
        last=[f + int(c.params["n"]) for f, c in zip(firsts, task.conditions, strict=True)])
    judge_state = np.zeros(n, JUDGE_DTYPE)
    judge_state["grace"] = ticks(float(task.judge.get("lamp_grace_s", 0.2)))
    lo, hi = task.judge.get("lamp_phase_s", (0.4, 0.6))
    judge_state["ph_lo"], judge_state["ph_hi"] = ticks(lo), ticks(hi)
    judge_state["prev_next"] = firsts
    return (cpa, cylinder.make_state(cpa), mpa, magazine.make_state(mpa), items, handler,
            scripts.build_scripts(events, spare_rows=0), judge_state)


@njit(cache=True)
def _part_at_pick(items):
    """Row of the part at the pick position, -1 if none."""
    for j in range(items.shape[0]):
        if items[j].place == items_mod.LINE:
            return j
    return -1


@njit(cache=True)
def sense(plant, c, k, inp):
    """Magazine, pick position and separator switches from the state, REQ/TAKING from the
    handler; AUTO_SW is always on (A1)."""
    cpa, cst, mpa, mst = plant[0][c, 0], plant[1][c, 0], plant[2][c, 0], plant[3][c, 0]
    h = plant[5][c]
    inp[I_AUTO_SW] = 1.0
    inp[I_MAG_EMPTY] = 1.0 if magazine.sense_empty(mst, mpa) else 0.0
    inp[I_PICK_POS] = 1.0 if _part_at_pick(plant[4][c]) >= 0 else 0.0
    inp[I_SEP_RET] = 1.0 if cylinder.sense_retracted(cst, cpa) else 0.0
    inp[I_SEP_EXT] = 1.0 if cylinder.sense_extended(cst, cpa) else 0.0
    inp[I_REQ] = 1.0 if h.req else 0.0
    inp[I_TAKING] = 1.0 if h.taking else 0.0


@njit(cache=True)
def _refill(mst, mpa, cst, cpa, events, k):
    """Refills starting at tick k + 1: the stack grows by the event's parts; a part arriving
    above an extended separator drops into its path only after the stroke has left EXT."""
    for j in range(events.shape[0]):
        ev = events[j]
        if ev.channel == CH_REFILL and ev.start == k + 1:
            mpa.last += np.int32(ev.value)
            if cylinder.sense_extended(cst, cpa):
                mst.sep_done = 1


@njit(cache=True)
def _handler(h, items, sep_ret, k):
    """One step of the scripted handler to tick k + 1 (see the task's device text)."""
    t = k + 1
    j = _part_at_pick(items)
    if h.req_at <= t:
        h.req_at = NEVER
        h.back = 1
        h.req = 1
    if h.leave_at <= t:
        h.leave_at = NEVER
        h.taking = 0
    if j >= 0:
        h.req = 0
    if h.phase == H_LEAVE and h.back and not h.taking:
        h.phase = H_WAIT
    if h.phase == H_WAIT and j >= 0 and sep_ret:
        h.phase = H_DELAY
        h.since = t
    if h.phase == H_DELAY and t - h.since >= h.t_d:
        h.phase = H_GRIP
        h.since = t
        h.taking = 1
    if h.phase == H_GRIP and t - h.since >= h.t_g and j >= 0:
        items_mod.record_fate(items[j], items_mod.DELIVERED, 0, t)
        off = h.offs[min(h.taken, h.n_offs - 1)]
        h.taken += 1
        h.phase = H_LEAVE
        h.back = 0
        h.req_at = t + off
        h.leave_at = t + h.t_leave


@njit(cache=True)
def advance(plant, c, k, out):
    """Separator stroke, magazine push, refills, then the handler."""
    cpa, cst, mpa, mst = plant[0][c, 0], plant[1][c, 0], plant[2][c, 0], plant[3][c, 0]
    items = plant[4][c]
    cylinder.tick(cst, cpa, out[O_SEP_V] != 0.0, False, k)
    magazine.tick(mst, mpa, cst, cpa, items, k)
    _refill(mst, mpa, cst, cpa, plant[6][c], k)
    _handler(plant[5][c], items, cylinder.sense_retracted(cst, cpa), k)


@njit(cache=True)
def _collides(js, cst, mst, pick_pos, taking):
    """S-COLLIDE: the stroke increased in a scan showing PICK_POS or TAKING, unless the part
    at the pick position was pushed by this very stroke (and the gripper is not there)."""
    if cst.s < cst.s_prev - EPS:
        js.own_part = 0
    if mst.next != js.prev_next:
        js.own_part = 1
        js.prev_next = mst.next
    if cst.s <= cst.s_prev + EPS:
        return False
    return taking or (pick_pos and not js.own_part)


@njit(cache=True)
def _lamp(js, cond, lamp):
    """Reason id of a lamp-rule failure in this scan (0 = fine), and the phase in seconds."""
    if cond:
        js.cond_ticks += 1
        js.off_ticks = 0
    else:
        js.off_ticks += 1
        js.cond_ticks = 0
    reason, arg = 0, 0.0
    if (lamp != 0) != (js.prev_lamp != 0):
        judged = js.cond_ticks > js.grace + js.phase_ticks
        if judged and not (js.ph_lo - TOLERANCE_TICKS <= js.phase_ticks <= js.ph_hi):
            reason, arg = 1, js.phase_ticks * 0.01
        js.phase_ticks = 0
    js.phase_ticks += 1
    js.prev_lamp = lamp
    if reason == 0 and cond and js.cond_ticks > js.grace and js.phase_ticks > js.ph_hi:
        reason = 2
    if reason == 0 and lamp and js.off_ticks > js.grace:
        reason = 3
    return reason, arg


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    cst, mst, h, js = plant[1][c, 0], plant[3][c, 0], plant[5][c], plant[7][c]
    violation = 0
    if _collides(js, cst, mst, inp[I_PICK_POS] != 0.0, inp[I_TAKING] != 0.0):
        violation = 1
    cond = inp[I_MAG_EMPTY] != 0.0 and inp[I_REQ] != 0.0
    reason, arg = _lamp(js, cond, 1 if out[O_LAMP_EMPTY] != 0.0 else 0)
    if reason:
        return violation, -1, reason, arg
    if h.taken >= h.k_parts:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
