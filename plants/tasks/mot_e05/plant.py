"""MOT-E05 plant binding: panel, clamp cylinder A, stamp cylinder B, part sensor, the
event-driven operator, and the judge.

Batch state (``build``): cylinder parameters and state ``(n, 2)`` (A, B), the panel script
``(n, events)`` with spare rows for the operator's event-driven actions (A39), the per-condition
plan of those actions and faults, the cycle tracker and one judge record per condition.

The cycle tracker lives in ``advance`` because the operator reacts to it: a cycle starts on a
rising edge of A_VALVE, ends when both cylinders are retracted after A has left its retracted
position, and counts when A_EXT and B_EXT were TRUE together for ``hold_scans`` consecutive
scans with no STOP press. The judge checks the four safety rules on the scan's images, that
every A_VALVE rising edge follows an accepted START edge and that no cycle without a STOP ends
uncounted, and succeeds on the end of the third counted cycle.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import cylinder, scripts
from plants.devices.panel import sense_nc, sense_no
from plants.devices.protocol import EPS, ticks
from plants.devices.safety import s_stoppb
from plants.tasks.mot_e05 import CYCLES_NEEDED, HOLD_SCANS
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_START, I_STOP_NC, I_PART, I_A_RET, I_A_EXT, I_B_RET, I_B_EXT = range(7)
O_A_VALVE, O_B_VALVE, O_LAMP_CYCLE = range(3)
# Script channels: buttons, and the windows in which the part is out of the fixture.
CH_START, CH_STOP, CH_PART_OUT = range(3)
CHANNELS = {"START": CH_START, "STOP": CH_STOP}
CYL_A, CYL_B = 0, 1

PRESS_TICKS = ticks(scripts.PRESS_S)
REMOVE_AFTER_END = ticks(0.5)  # PART falls 0.5 s after a counted cycle's end
START_AFTER_PART = ticks(0.5)  # START 0.5 s after PART rises
START_AFTER_ABORT = ticks(1.0)  # START 1.0 s after both cylinders are retracted (aborted cycle)
SPARE_ROWS = 32  # operator actions armed at run time; a sane program needs fewer than 12

VIOLATIONS = ("S-STOPPB", "S-CLAMP", "S-UNCLAMP", "S-NOPART")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "A_VALVE rose without an accepted START edge since its previous rising edge",
    f"only {{arg:.0f}} of {CYCLES_NEEDED} cycles counted within the time limit",
    "a cycle ended without counting and without a STOP: A_EXT and B_EXT were TRUE together "
    f"in only {{arg:.0f}} consecutive scans ({HOLD_SCANS} needed)",
)
"""Failure reason id i + 1 -> text."""

PLAN_DTYPE = np.dtype([
    ("reload", np.int64),  # cycle end -> PART rises, ticks
    # a press (channel) this long after A_VALVE / B_VALVE first rises in a cycle (0 = none)
    ("a_press_cycle", np.int64), ("a_press_delay", np.int64), ("a_press_channel", np.int64),
    ("b_press_cycle", np.int64), ("b_press_delay", np.int64), ("b_press_channel", np.int64),
    ("stick_cycle", np.int64),  # B sticks during this cycle (params hold stroke and length)
    ("air_cycle", np.int64), ("air_stroke", np.float64), ("air_len", np.int64),
    ("hold_scans", np.int64), ("cycles", np.int64),
])

CELL_DTYPE = np.dtype([
    ("prev_a", np.uint8), ("prev_b", np.uint8),  # valve outputs of the previous scan
    ("in_cycle", np.uint8), ("a_left", np.uint8), ("stop_seen", np.uint8),
    ("b_rose", np.uint8), ("air_done", np.uint8),
    ("cycle_no", np.int64), ("hold", np.int64), ("best", np.int64),
    ("counted", np.int64), ("short_best", np.int64),  # -1: no cycle without STOP failed to count
])

JUDGE_DTYPE = np.dtype([
    ("prev_start", np.uint8), ("prev_a", np.uint8), ("armed", np.uint8),
    ("last_tick", np.int64),
])


def _arg(ev, name: str, default=0):
    return dict(ev.args).get(name, default)


def _plan(task: TaskSpec, cond, plan, cpa_b) -> list[tuple]:
    """Fill one condition's plan row and B's stick parameters; return its timed presses."""
    plan["reload"] = ticks(cond.params["reload_s"])
    plan["hold_scans"] = int(task.judge.get("hold_scans", HOLD_SCANS))
    plan["cycles"] = int(task.judge.get("cycles", CYCLES_NEEDED))
    timed = []
    for ev in cond.script:
        cycle = int(_arg(ev, "cycle"))
        if ev.kind == "press":
            timed.append(scripts.press(CHANNELS[ev.target], ev.t, ev.duration or scripts.PRESS_S))
        elif ev.kind in ("press_after_a_valve", "press_after_b_valve") and ev.target in CHANNELS:
            valve = ev.kind[len("press_after_")]
            plan[f"{valve}_press_cycle"] = cycle
            plan[f"{valve}_press_delay"] = ticks(ev.t)
            plan[f"{valve}_press_channel"] = CHANNELS[ev.target]
        elif ev.kind == "stick" and ev.target == "B":
            plan["stick_cycle"] = cycle
            cpa_b["stick_s"], cpa_b["stick_len"] = float(_arg(ev, "stroke")), ticks(ev.duration)
        elif ev.kind == "air_loss":
            plan["air_cycle"], plan["air_len"] = cycle, ticks(ev.duration)
            plan["air_stroke"] = float(_arg(ev, "b_stroke"))
        else:
            raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind} {ev.target!r}")
    return timed


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    params = [c.params for c in task.conditions]
    t_ext = np.array([[p["a_ext_s"], p["b_ext_s"]] for p in params])
    t_ret = np.array([[p["a_ret_s"], p["b_ret_s"]] for p in params])
    cpa = cylinder.make_params(n, 2, kind=cylinder.MONO, spring=0, t_ext=t_ext, t_ret=t_ret)
    plan = np.zeros(n, PLAN_DTYPE)
    events = [_plan(task, cond, plan[c], cpa[c, CYL_B]) for c, cond in enumerate(task.conditions)]
    cell = np.zeros(n, CELL_DTYPE)
    cell["short_best"] = -1
    judge_state = np.zeros(n, JUDGE_DTYPE)
    judge_state["last_tick"] = [ticks(task.time_limit(cond)) - 1 for cond in task.conditions]
    script = scripts.build_scripts(events, spare_rows=SPARE_ROWS)
    return cpa, cylinder.make_state(cpa), script, plan, cell, judge_state


@njit(cache=True)
def sense(plant, c, k, inp):
    """Panel buttons and PART from the script, the four reed switches from the cylinders."""
    cpa, cst, script = plant[0][c], plant[1][c], plant[2][c]
    inp[I_START] = 1.0 if sense_no(script, CH_START, k) else 0.0
    inp[I_STOP_NC] = 1.0 if sense_nc(script, CH_STOP, k) else 0.0
    inp[I_PART] = 1.0 if sense_nc(script, CH_PART_OUT, k) else 0.0
    inp[I_A_RET] = 1.0 if cylinder.sense_retracted(cst[CYL_A], cpa[CYL_A]) else 0.0
    inp[I_A_EXT] = 1.0 if cylinder.sense_extended(cst[CYL_A], cpa[CYL_A]) else 0.0
    inp[I_B_RET] = 1.0 if cylinder.sense_retracted(cst[CYL_B], cpa[CYL_B]) else 0.0
    inp[I_B_EXT] = 1.0 if cylinder.sense_extended(cst[CYL_B], cpa[CYL_B]) else 0.0


@njit(cache=True)
def _press(script, channel, start):
    scripts.arm_event(script, channel, start, start + PRESS_TICKS, 1.0)


@njit(cache=True)
def _start_cycle(cell, plan, cpa, script, k):
    """A_VALVE rose outside a cycle: a new cycle; arm the faults and actions tied to it."""
    cell.in_cycle = 1
    cell.cycle_no += 1
    cell.a_left = 0
    cell.stop_seen = 0
    cell.b_rose = 0
    cell.hold = 0
    cell.best = 0
    if cell.cycle_no == plan.stick_cycle:
        cpa[CYL_B].stick_arm = k
    if cell.cycle_no == plan.a_press_cycle:
        _press(script, plan.a_press_channel, k + plan.a_press_delay)


@njit(cache=True)
def _end_cycle(cell, plan, script, k_end):
    """Both cylinders retracted again: count the cycle, and the operator reacts."""
    cell.in_cycle = 0
    if cell.stop_seen:
        _press(script, CH_START, k_end + START_AFTER_ABORT)
        return
    if cell.best >= plan.hold_scans:
        cell.counted += 1
    else:
        cell.short_best = cell.best
    scripts.arm_event(script, CH_PART_OUT, k_end + REMOVE_AFTER_END, k_end + plan.reload, 1.0)
    _press(script, CH_START, k_end + plan.reload + START_AFTER_PART)


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step of both cylinders with the latched valves, then the cycle tracker and
    the operator's reactions on S_{k+1}."""
    cpa, cst, script, plan, cell = plant[0][c], plant[1][c], plant[2][c], plant[3][c], plant[4][c]
    a_on = out[O_A_VALVE] != 0.0
    b_on = out[O_B_VALVE] != 0.0
    if a_on and not cell.prev_a and not cell.in_cycle:
        _start_cycle(cell, plan, cpa, script, k)
    if cell.in_cycle and b_on and not cell.prev_b and not cell.b_rose:
        cell.b_rose = 1
        if cell.cycle_no == plan.b_press_cycle:
            _press(script, plan.b_press_channel, k + plan.b_press_delay)
    if cell.in_cycle and scripts.active(script, CH_STOP, k):
        cell.stop_seen = 1
    cell.prev_a = 1 if a_on else 0
    cell.prev_b = 1 if b_on else 0
    cylinder.tick(cst[CYL_A], cpa[CYL_A], a_on, False, k)
    cylinder.tick(cst[CYL_B], cpa[CYL_B], b_on, False, k)
    if not cell.in_cycle:
        return
    a_ret = cylinder.sense_retracted(cst[CYL_A], cpa[CYL_A])
    if not a_ret:
        cell.a_left = 1
    both_ext = (cylinder.sense_extended(cst[CYL_A], cpa[CYL_A])
                and cylinder.sense_extended(cst[CYL_B], cpa[CYL_B]))
    cell.hold = cell.hold + 1 if both_ext else 0
    cell.best = max(cell.best, cell.hold)
    if (cell.cycle_no == plan.air_cycle and not cell.air_done and b_on
            and cst[CYL_B].s >= plan.air_stroke - EPS):
        cell.air_done = 1
        for u in range(2):
            cpa[u].air_from = k + 1
            cpa[u].air_to = k + 1 + plan.air_len
    if cell.a_left and a_ret and cylinder.sense_retracted(cst[CYL_B], cpa[CYL_B]):
        _end_cycle(cell, plan, script, k + 1)


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    cell, js = plant[4][c], plant[5][c]
    stop_nc = inp[I_STOP_NC] != 0.0
    part = inp[I_PART] != 0.0
    a_ret = inp[I_A_RET] != 0.0
    b_ret = inp[I_B_RET] != 0.0
    a_on = out[O_A_VALVE] != 0.0
    b_on = out[O_B_VALVE] != 0.0
    violation = 0
    if (a_on or b_on) and not part:
        violation = 4
    if not a_on and not b_ret:
        violation = 3
    if b_on and inp[I_A_EXT] == 0.0:
        violation = 2
    if s_stoppb(stop_nc, b_on):
        violation = 1
    start = inp[I_START] != 0.0
    if start and not js.prev_start and part and a_ret and b_ret and not js.prev_a:
        js.armed = 1
    js.prev_start = 1 if start else 0
    a_rise = a_on and not js.prev_a
    js.prev_a = 1 if a_on else 0
    if a_rise:
        if not js.armed:
            return violation, -1, 1, 0.0
        js.armed = 0
    if cell.short_best >= 0:
        return violation, -1, 3, float(cell.short_best)
    if cell.counted >= plant[3][c].cycles:
        return violation, 1, 0, 0.0
    if k >= js.last_tick:
        return violation, -1, 2, float(cell.counted)
    return violation, 0, 0, 0.0

