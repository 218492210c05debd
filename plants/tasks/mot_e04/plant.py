"""MOT-E04 plant binding: panel + two-speed carriage (D08) with station flags, and the judge.

Batch state (``build``): raw-axis parameters and state ``(n, 1)``, the panel script
``(n, events)``, the S-DEADTIME tracker and one judge record per condition. The judge runs the
specification's request state machine on the same input image the program saw (which GOTO
edges are accepted, when a request is pending), checks each pending request against its
20 s window and the creep, lamp and no-drive rules of the completion, and the five safety
rules of the task.
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
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_GOTO = 0  # GOTO_1..GOTO_3 at 0, 1, 2
I_STOP_NC = 3
I_SLOW = 4  # SLOW_1..SLOW_3 at 4, 5, 6
I_AT = 7  # AT_1..AT_3 at 7, 8, 9
I_LS_L, I_LS_R = 10, 11
O_FWD, O_REV, O_FAST, O_LAMP_AT = range(4)
# Script channels of the panel.
CH_GOTO = 0  # GOTO_k on channel k - 1
CH_STOP = 3
CHANNELS = {"GOTO_1": 0, "GOTO_2": 1, "GOTO_3": 2, "STOP": CH_STOP}

STATIONS = np.array([500.0, 1500.0, 2500.0])
SLOW_MM = 100.0  # SLOW_k: |x - x_k| <= 100
AT_MM = 8.0  # AT_k: |x - x_k| <= 8, also the completion window
REST_MM_S = 1.0  # completion: |v| < 1 mm/s
LS_L_MM, LS_R_MM = 40.0, 2960.0  # over-travel switches
TRACK_MM = 3000.0  # mechanical end stops at 0 and TRACK_MM
T_REV_TICKS = 50  # S-DEADTIME, 0.5 s

VIOLATIONS = ("S-BOTHDIR", "S-DEADTIME", "S-HWLIM", "S-CRASH", "S-STOPPB")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "the request accepted at {arg:.2f} s was not completed within 20 s (|x - x_k| <= 8 mm, "
    "|v| < 1 mm/s, LAMP_AT TRUE)",
    "FAST is TRUE while driving inside the SLOW window of requested station {arg:.0f}",
    "LAMP_AT is TRUE while FWD or REV is TRUE or no AT flag is TRUE",
    "FWD or REV is TRUE while no accepted request is pending (x = {arg:.1f} mm)",
)
"""Failure reason id i + 1 -> text."""

JUDGE_DTYPE = np.dtype([
    ("prev_goto", np.uint8, (3,)),
    ("target", np.int64),  # station of the pending request (1..3), 0 = none pending
    ("req_tick", np.int64), ("window", np.int64), ("last_press", np.int64),
])


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    events, last_press = [], []
    for cond in task.conditions:
        evs = []
        for ev in cond.script:
            if ev.kind != "press" or ev.target not in CHANNELS:
                raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind} {ev.target!r}")
            evs.append(scripts.press(CHANNELS[ev.target], ev.t, ev.duration or scripts.PRESS_S))
        events.append(evs)
        last_press.append(max(ticks(ev.t) for ev in cond.script))
    params = [c.params for c in task.conditions]
    apa = raw_axis.make_params(
        n, 1,
        v_fast=[p["v_fast_mm_s"] for p in params], v_creep=[p["v_creep_mm_s"] for p in params],
        tau=[p["tau_s"] for p in params], x0=[STATIONS[p["start"] - 1] for p in params],
        lim_neg=LS_L_MM, lim_pos=LS_R_MM, stop_neg=0.0, stop_pos=TRACK_MM, enc_x0=0.0,
    )
    judge_state = np.zeros(n, JUDGE_DTYPE)
    judge_state["window"] = ticks(float(task.judge.get("request_window_s", 20.0)))
    judge_state["last_press"] = last_press
    return (apa, raw_axis.make_state(apa), scripts.build_scripts(events, spare_rows=0),
            make_deadtime(n), judge_state)


@njit(cache=True)
def sense(plant, c, k, inp):
    """Panel buttons from the script; station flags and over-travel switches from x."""
    apa, ast, script = plant[0][c, 0], plant[1][c, 0], plant[2][c]
    for j in range(3):
        inp[I_GOTO + j] = 1.0 if sense_no(script, CH_GOTO + j, k) else 0.0
        xs = STATIONS[j]
        inp[I_SLOW + j] = 1.0 if raw_axis.sense_window(ast, xs - SLOW_MM, xs + SLOW_MM) else 0.0
        inp[I_AT + j] = 1.0 if raw_axis.sense_window(ast, xs - AT_MM, xs + AT_MM) else 0.0
    inp[I_STOP_NC] = 1.0 if sense_nc(script, CH_STOP, k) else 0.0
    inp[I_LS_L] = 1.0 if raw_axis.sense_lim_neg(ast, apa) else 0.0
    inp[I_LS_R] = 1.0 if raw_axis.sense_lim_pos(ast, apa) else 0.0


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step of the carriage with the latched FWD/REV/FAST outputs."""
    raw_axis.tick(plant[1][c, 0], plant[0][c, 0], out[O_FWD] != 0.0, out[O_REV] != 0.0,
                  out[O_FAST] != 0.0, False, k)


@njit(cache=True)
def _specified(js, inp, k):
    """One scan of the specification's request state machine on the program's input image:
    STOP cancels the pending request, a GOTO edge with STOP released and nothing pending is
    accepted."""
    stop_nc = inp[I_STOP_NC] != 0.0
    if not stop_nc:
        js.target = 0
    for j in range(3):
        pressed = inp[I_GOTO + j] != 0.0
        if pressed and not js.prev_goto[j] and stop_nc and js.target == 0:
            js.target = j + 1
            js.req_tick = k
        js.prev_goto[j] = 1 if pressed else 0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    ast, tracker, js = plant[1][c, 0], plant[3][c], plant[4][c]
    fwd = out[O_FWD] != 0.0
    rev = out[O_REV] != 0.0
    drive = fwd or rev
    lamp = out[O_LAMP_AT] != 0.0
    violation = 0
    if s_stoppb(inp[I_STOP_NC] != 0.0, drive):
        violation = 5
    if s_switch_zone(ast.x, LS_L_MM, LS_R_MM):
        violation = 3
    if s_end_stop(ast.x, 0.0, TRACK_MM):
        violation = 4
    if s_deadtime(tracker, fwd, rev, T_REV_TICKS):
        violation = 2
    if s_bothdir(fwd, rev):
        violation = 1
    _specified(js, inp, k)
    if js.target > 0:
        station = js.target - 1
        if (abs(ast.x - STATIONS[station]) <= AT_MM and abs(ast.v) < REST_MM_S and lamp):
            js.target = 0
        elif drive and out[O_FAST] != 0.0 and inp[I_SLOW + station] != 0.0:
            return violation, -1, 2, float(js.target)
        elif k + 1 - js.req_tick >= js.window:
            return violation, -1, 1, js.req_tick * 0.01
    if lamp and (drive or (inp[I_AT] == 0.0 and inp[I_AT + 1] == 0.0 and inp[I_AT + 2] == 0.0)):
        return violation, -1, 3, 0.0
    if drive and js.target == 0:
        return violation, -1, 4, ast.x
    if js.target == 0 and k >= js.last_press:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
