"""MAT-E05 plant binding: panel + D25 tank, and the judge (batch cycles or the HH alarm path).

Batch state (``build``): tank parameters and state ``(n, 1)``, the panel script
``(n, events)``, one task record per condition (BATCHES, the failed HIGH switch, judge ticks)
and one judge record per condition. The judge counts cycles on the true level (>= 80 % then
< 10 %), checks the settled final state (normal runs) or the alarm reaction and the safe
hold after the alarm drain (runs with a failed HIGH switch), and the five safety rules.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import scripts, tank
from plants.devices.panel import sense_nc, sense_no
from plants.devices.protocol import NEVER, ticks
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_START, I_STOP_NC, I_LOW, I_HIGH, I_HH, I_BATCHES = range(6)
O_FILL_V, O_PUMP, O_LAMP_ALARM, O_LAMP_DONE = range(4)
# Script channels of the panel.
CH_START, CH_STOP = range(2)
CHANNELS = {"START": CH_START, "STOP": CH_STOP}

LOW_PCT, HIGH_PCT, HH_PCT = 10.0, 80.0, 95.0
OVERFLOW_PCT = 98.0
DRYRUN_PCT = 5.0

VIOLATIONS = ("S-OVERFLOW", "S-DRYRUN", "S-HHFILL", "S-STOPPB", "S-LATCH")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""
V_OVERFLOW, V_DRYRUN, V_HHFILL, V_STOPPB, V_LATCH = range(1, 6)

REASONS = (
    "more than BATCHES fill/drain cycles",
    "LAMP_ALARM was not on within 0.3 s of HH",
    "after the alarm drain FILL_V or PUMP turned on or LAMP_ALARM went off within 5 s",
)
"""Failure reason id i + 1 -> text."""
R_EXTRA_CYCLE, R_ALARM_LATE, R_ALARM_HOLD = range(1, 4)

PROBES = {
    "level": ((1, 0), "h", "%"),
    "cycles": (4, "cycles", "cycles"),
}
"""Plant variables `plantloop trace` can show: the tank level and the judge's cycle count."""

TASKP_DTYPE = np.dtype([
    ("batches", np.int64), ("high_stuck", np.uint8), ("last_event", np.int64),
    ("settle", np.int64), ("alarm_window", np.int64), ("alarm_hold", np.int64),
])

JUDGE_DTYPE = np.dtype([
    ("prev_start", np.uint8), ("latched", np.uint8), ("high_phase", np.uint8),
    ("cycles", np.int64), ("held", np.int64),
    ("hh_tick", np.int64), ("alarm_seen", np.uint8), ("drained_tick", np.int64),
])


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    conds = task.conditions
    n = len(conds)
    events = []
    taskp = np.zeros(n, TASKP_DTYPE)
    for c, cond in enumerate(conds):
        evs = []
        for ev in cond.script:
            if ev.kind != "press" or ev.target not in CHANNELS:
                raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind} {ev.target!r}")
            evs.append(scripts.press(CHANNELS[ev.target], ev.t, ev.duration or scripts.PRESS_S))
        events.append(evs)
        taskp[c]["batches"] = int(cond.params["batches"])
        taskp[c]["high_stuck"] = 1 if cond.params.get("high_stuck") else 0
        taskp[c]["last_event"] = max((ticks(ev.t + (ev.duration or scripts.PRESS_S))
                                      for ev in cond.script), default=0)
    taskp["settle"] = ticks(float(task.judge.get("settle_s", 3.0)))
    taskp["alarm_window"] = ticks(float(task.judge.get("alarm_window_s", 0.3)))
    taskp["alarm_hold"] = ticks(float(task.judge.get("alarm_hold_s", 5.0)))
    tpa = tank.make_tanks(
        n, 1, pct_per_ml=1.0, q_in1=[c.params["q_in_pct_s"] for c in conds],
        q_pump=[c.params["q_out_pct_s"] for c in conds], low=LOW_PCT, high=HIGH_PCT, hh=HH_PCT,
        h0=[c.params["h0_pct"] for c in conds])
    judge_state = np.zeros(n, JUDGE_DTYPE)
    judge_state["hh_tick"] = NEVER
    judge_state["drained_tick"] = NEVER
    return tpa, tank.make_tank_state(tpa), scripts.build_scripts(events, spare_rows=0), taskp, judge_state


@njit(cache=True)
def sense(plant, c, k, inp):
    """Panel buttons from the script, the level switches (HIGH possibly stuck FALSE), BATCHES."""
    pa, st, script, tp = plant[0][c, 0], plant[1][c, 0], plant[2][c], plant[3][c]
    inp[I_START] = 1.0 if sense_no(script, CH_START, k) else 0.0
    inp[I_STOP_NC] = 1.0 if sense_nc(script, CH_STOP, k) else 0.0
    inp[I_LOW] = 1.0 if st.h >= pa.low else 0.0
    inp[I_HIGH] = 1.0 if st.h >= pa.high and not tp.high_stuck else 0.0
    inp[I_HH] = 1.0 if st.h >= pa.hh else 0.0
    inp[I_BATCHES] = float(tp.batches)


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step of the level balance with the latched valve and pump outputs."""
    tank.tick_tank(plant[1][c, 0], plant[0][c, 0], out[O_FILL_V] != 0.0, False, out[O_PUMP] != 0.0)


@njit(cache=True)
def _violation(js, h, inp, fill, pump):
    """The safety rules on (S_{k+1}, output image, input image); the highest-priority id."""
    stop_nc = inp[I_STOP_NC] != 0.0
    start = inp[I_START] != 0.0
    if not stop_nc:
        js.latched = 1
    elif start and not js.prev_start:
        js.latched = 0
    js.prev_start = 1 if start else 0
    if h >= OVERFLOW_PCT:
        return V_OVERFLOW
    if pump and h < DRYRUN_PCT:
        return V_DRYRUN
    if fill and inp[I_HH] != 0.0:
        return V_HHFILL
    if (fill or pump) and not stop_nc:
        return V_STOPPB
    if (fill or pump) and js.latched:
        return V_LATCH
    return 0


@njit(cache=True)
def _batches_outcome(js, tp, k, h, out, fill, pump):
    """Normal runs: exactly BATCHES cycles, then the done state held for the settling time."""
    if js.cycles > tp.batches:
        return -1, R_EXTRA_CYCLE
    done = (js.cycles == tp.batches and out[O_LAMP_DONE] != 0.0 and not fill and not pump
            and h < LOW_PCT)
    js.held = js.held + 1 if done else 0
    if js.held > tp.settle and k >= tp.last_event:
        return 1, 0
    return 0, 0


@njit(cache=True)
def _alarm_outcome(js, tp, k, h, inp, out, fill, pump):
    """Runs with a failed HIGH switch: the alarm reaction to HH and the safe hold after draining."""
    alarm = out[O_LAMP_ALARM] != 0.0
    if js.hh_tick == NEVER and inp[I_HH] != 0.0:
        js.hh_tick = k
    if js.hh_tick == NEVER:
        return 0, 0
    if not js.alarm_seen:
        if not alarm:
            return (-1, R_ALARM_LATE) if k > js.hh_tick + tp.alarm_window else (0, 0)
        js.alarm_seen = 1
    if js.drained_tick == NEVER:
        if h < LOW_PCT and not pump:
            js.drained_tick = k
        else:
            return 0, 0
    if fill or pump or not alarm:
        return -1, R_ALARM_HOLD
    if k >= js.drained_tick + tp.alarm_hold and k >= tp.last_event:
        return 1, 0
    return 0, 0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    h = plant[1][c, 0].h
    tp, js = plant[3][c], plant[4][c]
    fill = out[O_FILL_V] != 0.0
    pump = out[O_PUMP] != 0.0
    violation = _violation(js, h, inp, fill, pump)
    if not js.high_phase and h >= HIGH_PCT:
        js.high_phase = 1
    elif js.high_phase and h < LOW_PCT:
        js.high_phase = 0
        js.cycles += 1
    if tp.high_stuck:
        outcome, reason = _alarm_outcome(js, tp, k, h, inp, out, fill, pump)
    else:
        outcome, reason = _batches_outcome(js, tp, k, h, out, fill, pump)
    return violation, outcome, reason, 0.0
