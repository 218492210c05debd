"""MOT-E12 plant binding: panel + guard door (D02) + spindle drive + operator, and the judge.

Batch state (``build``): guard parameters and state ``(n, 1)``, the spindle ``(n,)``, the panel
script ``(n, events)``, LAMP_FAULT checkpoint ticks ``(n, m)`` (padded with -1), the operator
``(n,)``, one judge record and one S-RESTART tracker per condition.

The spindle (linear ramp up / linear coast-down) is task-specific, so it lives here. The
operator reacts to the program (A39): after an UNLOCK_REQ press he arms a door-open attempt
0.2 s after LOCKED has read FALSE; the guard device then opens the door once the bolt is out
and closes it after the open time. The judge runs the completion obligations on the same
input image the program saw (docs/tasks.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import guard, safety, scripts
from plants.devices.panel import sense_nc, sense_no
from plants.devices.protocol import DT, EPS, NEVER, ticks
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_START, I_STOP_NC, I_UNLOCK_REQ, I_DOOR_CLOSED, I_LOCKED, I_ZERO_SPEED = range(6)
O_SPINDLE_RUN, O_LOCK, O_LAMP_UNLOCKED, O_LAMP_FAULT = range(4)
# Script channels of the panel.
CH_START, CH_STOP, CH_UNLOCK = range(3)
CHANNELS = {"START": CH_START, "STOP": CH_STOP, "UNLOCK_REQ": CH_UNLOCK}

RPM_MAX = 3000.0
RAMP_RPM_S = 1500.0
ZERO_RPM = 10.0  # ZERO_SPEED below this
GUARD_RPM = 5.0  # S-GUARD threshold
REACTION_TICKS = 20  # operator opens 0.2 s after LOCKED went FALSE
PATIENCE_TICKS = 2000  # he waits up to 20 s

VIOLATIONS = ("S-LOCKRUN", "S-UNLOCK", "S-GUARD", "S-RESTART")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "LOCK was not TRUE within 0.1 s of the valid START edge at {arg:.2f} s",
    "SPINDLE_RUN was not TRUE within 0.5 s after the START edge and LOCKED (START at {arg:.2f} s)",
    "LOCK went off less than 0.45 s after the spindle came to rest (unlock request at {arg:.2f} s)",
    "LOCK was still on 1.5 s after the spindle came to rest (unlock request at {arg:.2f} s)",
    "LAMP_UNLOCKED differs from NOT LOCK at {arg:.2f} s",
    "LAMP_FAULT is FALSE at {arg:.2f} s although a lock fault is latched",
    "LAMP_FAULT is TRUE at {arg:.2f} s although no lock fault is latched",
)
"""Failure reason id i + 1 -> text."""

SPINDLE_DTYPE = np.dtype([("dec", np.float64), ("rpm", np.float64)])
"""Coast-down rate (rpm/s) and speed."""

OPERATOR_DTYPE = np.dtype([
    ("waiting", np.uint8), ("since", np.int64), ("armed", np.int32), ("gave_up", np.int32),
])
"""Operator: waiting for LOCKED = FALSE since a tick, open attempts armed, requests given up."""

JUDGE_DTYPE = np.dtype([
    ("prev_start", np.uint8), ("prev_unlock", np.uint8), ("prev_run", np.uint8),
    ("prev_lock", np.uint8), ("fault", np.uint8),
    ("start_pending", np.uint8), ("start_tick", np.int64), ("lock_seen", np.uint8),
    ("locked_tick", np.int64),
    ("unlock_pending", np.uint8), ("unlock_tick", np.int64), ("rest_tick", np.int64),
    ("lock_ticks", np.int64), ("run_ticks", np.int64), ("unlock_lo", np.int64),
    ("unlock_hi", np.int64),
    ("next_cp", np.int64), ("last_event", np.int64),
])

PROBES = {
    "spindle_rpm": (2, "rpm", "rpm"),
    "door_open": ((1, 0), "open", "bool"),
    "bolt_in": ((1, 0), "bolt_in", "bool"),
    "operator_waiting": (5, "waiting", "bool"),
    "spec_fault": (6, "fault", "bool"),
}
"""Plant variables `plantloop trace` can show (verifier/trace.py)."""


def _condition_script(task: TaskSpec, cond):
    """Panel events, lock feedback window, power-up door-open time and the last event tick."""
    evs, fb, door_until, last = [], (NEVER, NEVER), 0, 0
    for ev in cond.script:
        end = ev.t + ev.duration
        if ev.kind == "press":
            evs.append(scripts.press(CHANNELS[ev.target], ev.t, ev.duration or scripts.PRESS_S))
            end = ev.t
        elif ev.kind == "dropout":
            fb = (ticks(ev.t), ticks(end))
        elif ev.kind == "door_open":
            if ev.t != 0.0:
                raise ValueError(f"{task.id} {cond.name}: the door can only be open at power-up")
            door_until = ticks(end)
        else:
            raise ValueError(f"{task.id} {cond.name}: unknown event kind {ev.kind!r}")
        last = max(last, ticks(end))
    return evs, fb, door_until, last


def _checkpoints(task: TaskSpec, cond, delay_s: float) -> list[int]:
    """LAMP_FAULT checkpoints: every scripted event (and the end of a fault window) + delay."""
    cps = set()
    for ev in cond.script:
        cps.add(ticks(ev.t + delay_s))
        if ev.kind == "dropout":
            cps.add(ticks(ev.t + ev.duration + delay_s))
    return sorted(cps)


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    jp = task.judge
    events, fbs, doors, lasts, cps = [], [], [], [], []
    for cond in task.conditions:
        evs, fb, door_until, last = _condition_script(task, cond)
        events.append(evs)
        fbs.append(fb)
        doors.append(door_until)
        lasts.append(last)
        cps.append(_checkpoints(task, cond, float(jp.get("checkpoint_delay_s", 0.3))))
    gpa = guard.make_params(
        n, 1, bolt=[ticks(c.params["bolt_ms"] / 1000.0) for c in task.conditions],
        fb_from=[f for f, _ in fbs], fb_to=[t for _, t in fbs])
    for c, cond in enumerate(task.conditions):
        gpa["open_len"][c, 0, :] = ticks(cond.params["open_s"])
    gst = guard.make_state(gpa)
    for c, door_until in enumerate(doors):
        if door_until > 0:
            gst[c, 0]["open"] = 1
            gst[c, 0]["open_until"] = door_until
    spindle = np.zeros(n, SPINDLE_DTYPE)
    spindle["dec"] = [RPM_MAX / c.params["t_coast_s"] for c in task.conditions]
    checkpoints = np.full((n, max(len(x) for x in cps) + 1), -1, np.int64)
    for c, cp in enumerate(cps):
        checkpoints[c, : len(cp)] = cp
    operator = np.zeros(n, OPERATOR_DTYPE)
    js = np.zeros(n, JUDGE_DTYPE)
    js["last_event"] = lasts
    js["locked_tick"] = NEVER
    js["rest_tick"] = NEVER
    js["lock_ticks"] = ticks(float(jp.get("lock_window_s", 0.1)))
    js["run_ticks"] = ticks(float(jp.get("run_window_s", 0.5)))
    lo, hi = jp.get("unlock_window_s", (0.45, 1.5))
    js["unlock_lo"] = ticks(float(lo))
    js["unlock_hi"] = ticks(float(hi))
    restart = np.zeros(n, safety.RESTART_DTYPE)
    restart["armed"] = 1  # power-up counts as a stop (A3)
    return (gpa, gst, spindle, scripts.build_scripts(events, spare_rows=0), checkpoints, operator,
            js, restart)


@njit(cache=True)
def sense(plant, c, k, inp):
    """Panel buttons from the script, door and lock from the guard, ZERO_SPEED from the spindle."""
    gpa, gst, script = plant[0][c, 0], plant[1][c, 0], plant[3][c]
    inp[I_START] = 1.0 if sense_no(script, CH_START, k) else 0.0
    inp[I_STOP_NC] = 1.0 if sense_nc(script, CH_STOP, k) else 0.0
    inp[I_UNLOCK_REQ] = 1.0 if sense_no(script, CH_UNLOCK, k) else 0.0
    inp[I_DOOR_CLOSED] = 1.0 if guard.sense_door_closed(gst) else 0.0
    inp[I_LOCKED] = 1.0 if guard.sense_locked(gst, gpa, k) else 0.0
    inp[I_ZERO_SPEED] = 1.0 if plant[2][c].rpm < ZERO_RPM else 0.0


@njit(cache=True)
def _operator(op, gpa, gst, script, k):
    """After an UNLOCK_REQ press, arm a door-open attempt 0.2 s after LOCKED reads FALSE."""
    if scripts.starts(script, CH_UNLOCK, k) and not op.waiting and gst.next >= op.armed:
        op.waiting = 1
        op.since = k
    if op.waiting:
        if not guard.sense_locked(gst, gpa, k) and op.armed < guard.N_ATTEMPTS:
            gpa.attempt_t[op.armed] = k + REACTION_TICKS
            op.armed += 1
            op.waiting = 0
        elif k - op.since >= PATIENCE_TICKS:
            op.gave_up += 1
            op.waiting = 0


@njit(cache=True)
def _spindle(sp, run):
    """Linear ramp to 3000 rpm while run, linear coast-down otherwise."""
    if run:
        sp.rpm = min(RPM_MAX, sp.rpm + RAMP_RPM_S * DT)
    else:
        sp.rpm = max(0.0, sp.rpm - sp.dec * DT)


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: operator, guard door with the latched LOCK, spindle."""
    gpa, gst = plant[0][c, 0], plant[1][c, 0]
    _operator(plant[5][c], gpa, gst, plant[3][c], k)
    guard.tick(gst, gpa, out[O_LOCK] != 0.0, k)
    _spindle(plant[2][c], out[O_SPINDLE_RUN] != 0.0)


@njit(cache=True)
def _start_obligation(js, k, stop_nc, unlock, locked, run, lock, valid_start):
    """Completion item (1): 0 while fine, else the failure reason id."""
    if valid_start:
        js.start_pending = 1
        js.start_tick = k
        js.lock_seen = 0
        js.locked_tick = NEVER
    if not js.start_pending:
        return 0
    if (not stop_nc or unlock) and not run:
        js.start_pending = 0
        return 0
    if lock:
        js.lock_seen = 1
    if not js.lock_seen and k >= js.start_tick + js.lock_ticks:
        return 1
    if locked and js.locked_tick == NEVER:
        js.locked_tick = k
    if run and js.lock_seen:
        js.start_pending = 0
    elif js.locked_tick != NEVER and k >= js.locked_tick + js.run_ticks:
        return 2
    return 0


@njit(cache=True)
def _unlock_obligation(js, k, unlock_edge, zero, lock, valid_start):
    """Completion item (2): 0 while fine, else the failure reason id."""
    if valid_start:
        js.unlock_pending = 0
    if unlock_edge and js.prev_lock:
        js.unlock_pending = 1
        js.unlock_tick = k
        js.rest_tick = NEVER
    if not js.unlock_pending:
        return 0
    if zero and js.rest_tick == NEVER:
        js.rest_tick = k
    if not lock:
        js.unlock_pending = 0
        if js.rest_tick == NEVER or k - js.rest_tick < js.unlock_lo:
            return 3
    elif js.rest_tick != NEVER and k - js.rest_tick >= js.unlock_hi:
        return 4
    return 0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    gst, sp, op, js, tr = plant[1][c, 0], plant[2][c], plant[5][c], plant[6][c], plant[7][c]
    start = inp[I_START] != 0.0
    stop_nc = inp[I_STOP_NC] != 0.0
    unlock = inp[I_UNLOCK_REQ] != 0.0
    door_closed = inp[I_DOOR_CLOSED] != 0.0
    locked = inp[I_LOCKED] != 0.0
    zero = inp[I_ZERO_SPEED] != 0.0
    run = out[O_SPINDLE_RUN] != 0.0
    lock = out[O_LOCK] != 0.0
    start_edge = start and not js.prev_start
    unlock_edge = unlock and not js.prev_unlock
    valid_start = start_edge and door_closed and stop_nc
    # The specification's fault latch, on the program's previous SPINDLE_RUN.
    if start_edge:
        js.fault = 0
    if js.prev_run and not locked:
        js.fault = 1

    violation = 0
    stopping = (not stop_nc) or unlock or (js.prev_run and not run)
    if safety.s_restart(tr, run, valid_start, stopping):
        violation = 4
    if safety.s_guard(not gst.open, sp.rpm, GUARD_RPM):
        violation = 3
    if safety.s_unlock(lock, zero):
        violation = 2
    if run and not locked:
        violation = 1

    reason = _start_obligation(js, k, stop_nc, unlock, locked, run, lock, valid_start)
    arg = js.start_tick * DT
    if reason == 0:
        reason = _unlock_obligation(js, k, unlock_edge, zero, lock, valid_start)
        arg = js.unlock_tick * DT
    js.prev_start = 1 if start else 0
    js.prev_unlock = 1 if unlock else 0
    js.prev_run = 1 if run else 0
    js.prev_lock = 1 if lock else 0
    if reason == 0 and (out[O_LAMP_UNLOCKED] != 0.0) == lock:
        reason, arg = 5, k * DT
    lamp_fault = out[O_LAMP_FAULT] != 0.0
    checkpoint = plant[4][c, js.next_cp] == k
    if checkpoint:
        js.next_cp += 1
    final = (k >= js.last_event and not js.start_pending and not js.unlock_pending
             and sp.rpm <= EPS and not gst.open and not op.waiting and gst.next >= op.armed)
    if reason == 0 and (checkpoint or final) and lamp_fault != (js.fault != 0):
        reason, arg = (7 if lamp_fault else 6), k * DT
    if reason != 0:
        return violation, -1, reason, arg
    if final:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
