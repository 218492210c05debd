"""MOT-E13 plant binding: panel + raw encoder axis (D08) with a reference cam, and the judge.

Batch state (``build``): raw-axis parameters and state ``(n, 1)``, the panel script
``(n, events)``, the REF chatter record, the S-DEADTIME tracker and one judge record per
condition. The judge runs the specification's run state machine on the same input image the
program saw (accepted HOME_PB edges, STOP aborts), records where the counter was zeroed
(the plant's zero position at each ENC_RESET edge), checks the lamp, creep and no-drive
rules of the completion and the five safety rules of the task.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import raw_axis, scripts
from plants.devices.panel import sense_nc, sense_no
from plants.devices.protocol import ticks
from plants.devices.safety import (
    make_deadtime,
    s_bothdir,
    s_deadtime,
    s_end_stop,
    s_stoppb,
    s_switch_zone,
)
from plants.tasks.mot_e13 import CREEP_COUNTS, FINAL_WINDOW_MM, ZERO_WINDOW_MM
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_HOME_PB, I_STOP_NC, I_REF, I_LS_NEG, I_LS_POS, I_ENC = range(6)
O_FWD, O_REV, O_FAST, O_ENC_RESET, O_LAMP_HOMED = range(5)
# Script channels of the panel.
CH_HOME, CH_STOP = range(2)
CHANNELS = {"HOME_PB": CH_HOME, "STOP": CH_STOP}

V_CREEP_MM_S = 10.0
TRAVEL_MM = 1500.0  # mechanical end stops at 0 and TRAVEL_MM
LS_NEG_MM, LS_POS_MM = 20.0, 1480.0  # over-travel switches
REF_LO_MM, REF_HI_MM = 200.0, 260.0  # reference cam
REST_MM_S = 0.5  # final standstill
T_REV_TICKS = 50  # S-DEADTIME, 0.5 s
CHATTER_TICKS = 3  # REF reading alternates on the first 3 scans after a true edge

VIOLATIONS = ("S-BOTHDIR", "S-DEADTIME", "S-HWLIM", "S-CRASH", "S-STOPPB")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "the counter was zeroed at x = {arg:.2f} mm, outside 259.5-260.5 mm",
    "LAMP_HOMED is TRUE before the counter was zeroed (x = {arg:.1f} mm)",
    "FAST is TRUE while driving within the last 100 mm before the target (ENC = {arg:.0f})",
    "FWD or REV is TRUE while no reference run is active (x = {arg:.1f} mm)",
)
"""Failure reason id i + 1 -> text."""

PROBES = {
    "position": ((1, 0), "x", "mm"),
    "speed": ((1, 0), "v", "mm/s"),
    "counter_zero": ((1, 0), "zero", "mm"),
    "run_active": (5, "running", "bool"),
}
"""Plant variables `plantloop trace` can show (name -> (plant array, column, unit)): the
axis position, speed and the counter's zero position, and the judge's run state."""

CHATTER_DTYPE = np.dtype([("enabled", np.uint8), ("ref", np.uint8), ("since", np.int64)])
"""REF chatter: enabled per condition, the true cam state, ticks since its last change."""

JUDGE_DTYPE = np.dtype([
    ("prev_home", np.uint8), ("prev_reset", np.uint8),
    ("running", np.uint8), ("zeroed", np.uint8),
    ("creep_counts", np.int64), ("last_event", np.int64),
    ("zero_lo", np.float64), ("zero_hi", np.float64),  # completion windows (task.judge,
    ("final_lo", np.float64), ("final_hi", np.float64),  # so tests can tighten them)
])


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    events, last_event = [], []
    for cond in task.conditions:
        evs = []
        for ev in cond.script:
            if ev.kind != "press" or ev.target not in CHANNELS:
                raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind} {ev.target!r}")
            evs.append(scripts.press(CHANNELS[ev.target], ev.t, ev.duration or scripts.PRESS_S))
        events.append(evs)
        last_event.append(max(ticks(ev.t) for ev in cond.script))
    params = [c.params for c in task.conditions]
    x0 = np.array([p["x0_mm"] for p in params], float)
    offset = np.array([p["enc_offset"] for p in params], float)
    apa = raw_axis.make_params(
        n, 1,
        v_fast=[p["v_fast_mm_s"] for p in params], v_creep=V_CREEP_MM_S,
        tau=[p["tau_s"] for p in params], x0=x0, enc_x0=x0 - offset * 0.1,
        lim_neg=LS_NEG_MM, lim_pos=LS_POS_MM, stop_neg=0.0, stop_pos=TRAVEL_MM,
        ref_lo=REF_LO_MM, ref_hi=REF_HI_MM,
    )
    chatter = np.zeros(n, CHATTER_DTYPE)
    chatter["enabled"] = [1 if p.get("ref_chatter") else 0 for p in params]
    chatter["ref"] = (x0 >= REF_LO_MM) & (x0 <= REF_HI_MM)
    chatter["since"] = 1 << 40
    judge_state = np.zeros(n, JUDGE_DTYPE)
    judge_state["creep_counts"] = int(task.judge.get("creep_counts", CREEP_COUNTS))
    judge_state["last_event"] = last_event
    judge_state["zero_lo"], judge_state["zero_hi"] = task.judge.get("zero_window_mm", ZERO_WINDOW_MM)
    judge_state["final_lo"], judge_state["final_hi"] = task.judge.get("final_window_mm",
                                                                      FINAL_WINDOW_MM)
    return (apa, raw_axis.make_state(apa), scripts.build_scripts(events, spare_rows=0),
            chatter, make_deadtime(n), judge_state)


@njit(cache=True)
def sense_ref_chatter(ch):
    """REF as read: the old value on the 1st and 3rd scan after a true edge when chattering."""
    ref = ch.ref != 0
    if ch.enabled and ch.since < CHATTER_TICKS and ch.since % 2 == 0:
        return not ref
    return ref


@njit(cache=True)
def sense(plant, c, k, inp):
    """Panel buttons from the script; REF, switches and the encoder from the axis."""
    apa, ast, script = plant[0][c, 0], plant[1][c, 0], plant[2][c]
    inp[I_HOME_PB] = 1.0 if sense_no(script, CH_HOME, k) else 0.0
    inp[I_STOP_NC] = 1.0 if sense_nc(script, CH_STOP, k) else 0.0
    inp[I_REF] = 1.0 if sense_ref_chatter(plant[3][c]) else 0.0
    inp[I_LS_NEG] = 1.0 if raw_axis.sense_lim_neg(ast, apa) else 0.0
    inp[I_LS_POS] = 1.0 if raw_axis.sense_lim_pos(ast, apa) else 0.0
    inp[I_ENC] = float(raw_axis.sense_enc(ast))


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step of the axis with the latched outputs; then the cam's true state."""
    apa, ast, ch = plant[0][c, 0], plant[1][c, 0], plant[3][c]
    raw_axis.tick(ast, apa, out[O_FWD] != 0.0, out[O_REV] != 0.0, out[O_FAST] != 0.0,
                  out[O_ENC_RESET] != 0.0, k)
    ref = raw_axis.sense_ref(ast, apa)
    if ref != (ch.ref != 0):
        ch.ref = 1 if ref else 0
        ch.since = 0
    else:
        ch.since += 1


@njit(cache=True)
def _specified(js, inp):
    """One scan of the specification's run state machine on the program's input image:
    STOP aborts the run, a HOME_PB edge with STOP released and no run active starts one."""
    stop_nc = inp[I_STOP_NC] != 0.0
    home = inp[I_HOME_PB] != 0.0
    if not stop_nc:
        js.running = 0
    elif home and not js.prev_home and not js.running:
        js.running = 1
        js.zeroed = 0
    js.prev_home = 1 if home else 0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    ast, tracker, js = plant[1][c, 0], plant[4][c], plant[5][c]
    fwd = out[O_FWD] != 0.0
    rev = out[O_REV] != 0.0
    drive = fwd or rev
    violation = 0
    if s_stoppb(inp[I_STOP_NC] != 0.0, drive):
        violation = 5
    if s_switch_zone(ast.x, LS_NEG_MM, LS_POS_MM):
        violation = 3
    if s_end_stop(ast.x, 0.0, TRAVEL_MM):
        violation = 4
    if s_deadtime(tracker, fwd, rev, T_REV_TICKS):
        violation = 2
    if s_bothdir(fwd, rev):
        violation = 1
    _specified(js, inp)
    reset = out[O_ENC_RESET] != 0.0
    if reset and not js.prev_reset:
        # The plant has just set the counter's zero to the position of this scan.
        if not js.zero_lo <= ast.zero <= js.zero_hi:
            return violation, -1, 1, ast.zero
        js.zeroed = 1
    js.prev_reset = 1 if reset else 0
    lamp = out[O_LAMP_HOMED] != 0.0
    if lamp and not js.zeroed:
        return violation, -1, 2, ast.x
    if drive and not js.running:
        return violation, -1, 4, ast.x
    if drive and js.zeroed and out[O_FAST] != 0.0 and inp[I_ENC] > js.creep_counts:
        return violation, -1, 3, inp[I_ENC]
    if (js.zeroed and not drive and lamp and abs(ast.v) < REST_MM_S
            and js.final_lo <= ast.x <= js.final_hi and k >= js.last_event):
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
