"""MOT-E01 plant binding: panel + DOL starter, and the judge (spec state machine at checkpoints).

Batch state (``build``): DOL parameters and state ``(n, 1)``, the panel script ``(n, events)``,
checkpoint ticks ``(n, m)`` (padded with -1) and one judge record per condition. The judge
runs the specification's state machine on the same input image the program saw, compares
K1 and LAMP_FAULT with it at the checkpoints, LAMP_RUN with RUN_FB in every scan, and checks
the three safety rules of the task.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import dol, scripts
from plants.devices.panel import sense_nc, sense_no
from plants.devices.protocol import DT, NEVER, ticks
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_START, I_STOP_NC, I_RESET, I_OL_OK, I_RUN_FB = range(5)
O_K1, O_LAMP_RUN, O_LAMP_FAULT = range(3)
# Script channels of the panel.
CH_START, CH_STOP, CH_RESET = range(3)
CHANNELS = {"START": CH_START, "STOP": CH_STOP, "RESET": CH_RESET}

DROPOUT_TICKS = 2  # 20 ms
TAU_S = 0.5
MISMATCH_TICKS = 20  # K1 and RUN_FB may disagree for 200 ms; the 21st tick latches the fault
RESTART_TICKS = 5  # a K1 rising edge at most 50 ms after a START rising edge

VIOLATIONS = ("S-STOPPB", "S-OLTRIP", "S-RESTART")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "K1 is TRUE at a checkpoint where the specification has it off",
    "K1 is FALSE at a checkpoint where the specification has it on",
    "LAMP_FAULT is TRUE at a checkpoint where no fault is latched",
    "LAMP_FAULT is FALSE at a checkpoint where a fault is latched",
    "LAMP_RUN differs from RUN_FB in the same scan",
)
"""Failure reason id i + 1 -> text."""

PROBES = {
    "contactor": ((1, 0), "k", "bool"),
    "motor_speed": ((1, 0), "n", "p.u."),
    "spec_k1": (4, "k1", "bool"),
    "spec_fault": (4, "fault", "bool"),
}
"""Plant variables `plantloop trace` can show (name -> (plant array, column, unit), see
verifier/trace.py): the starter's contactor and speed, and the specification's K1 and fault
as the judge computed them for the same scan."""

JUDGE_DTYPE = np.dtype([
    ("prev_start", np.uint8), ("prev_reset", np.uint8), ("prev_k1", np.uint8),
    ("k1", np.uint8), ("fault", np.uint8),  # the specification's state machine
    ("mismatch", np.int64), ("since_start", np.int64),
    ("next_cp", np.int64), ("last_tick", np.int64),
])


def _checkpoints(task: TaskSpec, condition, delay_s: float) -> list[int]:
    """Tick of the scan judged at each scripted event + delay (press, held-button release,
    fault onset, fault end)."""
    cps = set()
    for ev in condition.script:
        cps.add(ticks(ev.t + delay_s))
        if ev.kind in ("hold", "trip", "dropout"):
            cps.add(ticks(ev.t + ev.duration + delay_s))
    last = ticks(task.time_limit(condition)) - 1
    return sorted(cp for cp in cps if cp < last) + [last]


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    delay = float(task.judge.get("checkpoint_delay_s", 0.30))
    ol_from, ol_to, open_from, open_to = ([NEVER] * n for _ in range(4))
    events, cps = [], []
    for c, cond in enumerate(task.conditions):
        evs = []
        for ev in cond.script:
            if ev.kind in ("press", "hold"):
                evs.append(scripts.press(CHANNELS[ev.target], ev.t, ev.duration or scripts.PRESS_S))
            elif ev.kind == "trip":
                ol_from[c], ol_to[c] = ticks(ev.t), ticks(ev.t + ev.duration)
            elif ev.kind == "dropout":
                open_from[c], open_to[c] = ticks(ev.t), ticks(ev.t + ev.duration)
            else:
                raise ValueError(f"{task.id} {cond.name}: unknown event kind {ev.kind!r}")
        events.append(evs)
        cps.append(_checkpoints(task, cond, delay))
    pickup = [int(round(c.params["pickup_ms"] / (DT * 1000))) for c in task.conditions]
    mpa = dol.make_params(n, 1, pickup=pickup, dropout=DROPOUT_TICKS, tau_acc=TAU_S, tau_coast=TAU_S,
                          ol_from=ol_from, ol_to=ol_to, open_from=open_from, open_to=open_to)
    checkpoints = np.full((n, max(len(x) for x in cps)), -1, np.int64)
    judge_state = np.zeros(n, JUDGE_DTYPE)
    for c, cp in enumerate(cps):
        checkpoints[c, : len(cp)] = cp
        judge_state[c]["last_tick"] = cp[-1]
    judge_state["since_start"] = NEVER
    return mpa, dol.make_state(mpa), scripts.build_scripts(events, spare_rows=0), checkpoints, judge_state


@njit(cache=True)
def sense(plant, c, k, inp):
    """Panel buttons from the script, OL_OK and RUN_FB from the starter."""
    mpa, mst, script = plant[0][c, 0], plant[1][c, 0], plant[2][c]
    inp[I_START] = 1.0 if sense_no(script, CH_START, k) else 0.0
    inp[I_STOP_NC] = 1.0 if sense_nc(script, CH_STOP, k) else 0.0
    inp[I_RESET] = 1.0 if sense_no(script, CH_RESET, k) else 0.0
    inp[I_OL_OK] = 1.0 if dol.sense_ol_ok(mpa, k) else 0.0
    inp[I_RUN_FB] = 1.0 if dol.sense_run_fb(mst) else 0.0


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step of the starter with the latched coil output."""
    dol.tick(plant[1][c, 0], plant[0][c, 0], out[O_K1] != 0.0, k)


@njit(cache=True)
def _specified(js, start, stop_nc, reset, ol_ok, run_fb):
    """One scan of the specification's state machine on the program's input image; the
    contactor check compares the program's coil of the last scan with RUN_FB, as a PLC can."""
    start_edge = start and not js.prev_start
    reset_edge = reset and not js.prev_reset
    js.prev_start = start
    js.prev_reset = reset
    js.mismatch = js.mismatch + 1 if (js.prev_k1 != 0) != run_fb else 0
    if not stop_nc:
        js.k1 = 0
    if not ol_ok or js.mismatch > MISMATCH_TICKS:
        js.k1 = 0
        js.fault = 1
    if reset_edge and ol_ok and not run_fb:
        js.fault = 0
    if start_edge and stop_nc and ol_ok and not js.fault:
        js.k1 = 1
    return start_edge


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    js = plant[4][c]
    stop_nc = inp[I_STOP_NC] != 0.0
    ol_ok = inp[I_OL_OK] != 0.0
    run_fb = inp[I_RUN_FB] != 0.0
    k1 = out[O_K1] != 0.0
    start_edge = _specified(js, inp[I_START] != 0.0, stop_nc, inp[I_RESET] != 0.0, ol_ok, run_fb)
    js.since_start = 0 if start_edge else js.since_start + 1
    violation = 0
    if k1 and not js.prev_k1 and js.since_start > RESTART_TICKS:
        violation = 3
    if k1 and not ol_ok:
        violation = 2
    if k1 and not stop_nc:
        violation = 1
    js.prev_k1 = 1 if k1 else 0
    if (out[O_LAMP_RUN] != 0.0) != run_fb:
        return violation, -1, 5, 0.0
    if plant[3][c, js.next_cp] == k:
        js.next_cp += 1
        if k1 != (js.k1 != 0):
            return violation, -1, 1 if k1 else 2, 0.0
        lamp = out[O_LAMP_FAULT] != 0.0
        if lamp != (js.fault != 0):
            return violation, -1, 3 if lamp else 4, 0.0
        if k == js.last_tick:
            return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
