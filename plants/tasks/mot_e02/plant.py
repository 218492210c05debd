"""MOT-E02 plant binding: panel + reversing starter driving a carriage, and the judge.

Batch state (``build``): reversing-starter parameters and state ``(n, 1)``, the carriage record
``(n,)`` (position, speed, v_nom), the panel script ``(n, events)``, the S-DEADTIME tracker and
one judge record per condition. The judge runs the specification's direction state machine on
the same input image the program saw: it decides which requests are accepted (each must give
motion within 1.2 s) and whether a contactor output may be TRUE; it also checks STOP
standstill, the final state at T and the six safety rules of the task.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import reversing, scripts
from plants.devices.panel import sense_nc, sense_no
from plants.devices.protocol import DT, NEVER, ticks
from plants.devices.safety import (
    make_deadtime,
    s_bothdir,
    s_deadtime,
    s_end_stop,
    s_stoppb,
)
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_FWD_PB, I_REV_PB, I_STOP_NC, I_END_L, I_END_R, I_OL_OK = range(6)
O_K_FWD, O_K_REV, O_LAMP_MOVING = range(3)
# Script channels of the panel.
CH_FWD, CH_REV, CH_STOP = range(3)
CHANNELS = {"FWD": CH_FWD, "REV": CH_REV, "STOP": CH_STOP}

RAIL_MM = 2000.0  # mechanical end stops at 0 and RAIL_MM
END_L_MM = 100.0  # END_L TRUE for x <= 100
END_R_MM = 1900.0  # END_R TRUE for x >= 1900
DROPOUT_TICKS = 2  # 20 ms
T_REV_TICKS = 50  # S-DEADTIME, 0.5 s
ENDSW_SCANS = 11  # S-ENDSW: the switch TRUE for more than 100 ms = more than 11 scans
MOVING_MM_S = 50.0  # "motion" of an accepted request
STANDSTILL_MM_S = 5.0  # A4 standstill
OUTPUT_TOLERANCE = 2  # completion (3): 20 ms

VIOLATIONS = ("S-BOTHDIR", "S-DEADTIME", "S-ENDSW", "S-CRASH", "S-STOPPB", "S-RESTART")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "no motion to the right (v > 50 mm/s) within 1.2 s of the accepted FWD request at {arg:.2f} s",
    "no motion to the left (v < -50 mm/s) within 1.2 s of the accepted REV request at {arg:.2f} s",
    "no standstill (|v| < 5 mm/s) within 1.0 s of the STOP press at {arg:.2f} s",
    "K_FWD is TRUE for more than 20 ms while no accepted move right is in force (ignored or "
    "opposite request, STOP or trip; from {arg:.2f} s)",
    "K_REV is TRUE for more than 20 ms while no accepted move left is in force (ignored or "
    "opposite request, STOP or trip; from {arg:.2f} s)",
    "final state: the carriage is not at the end switch the last request drove it to "
    "(x = {arg:.1f} mm)",
    "final state: a contactor output is TRUE at T",
    "final state: the carriage is moving at T (|v| = {arg:.1f} mm/s)",
)
"""Failure reason id i + 1 -> text."""

CARRIAGE_DTYPE = np.dtype([("x", np.float64), ("v", np.float64), ("v_nom", np.float64)])

JUDGE_DTYPE = np.dtype([
    ("prev_fwd", np.uint8), ("prev_rev", np.uint8), ("prev_stop_nc", np.uint8),
    ("dir", np.int64),  # requested move: +1 right, -1 left, 0 none (ended by STOP or a trip)
    ("req_dir", np.int64), ("req_due", np.int64), ("req_t", np.float64),  # open request check
    ("stop_open", np.uint8), ("stop_due", np.int64), ("stop_t", np.float64),  # open STOP check
    ("restart_armed", np.uint8),
    ("end_l_scans", np.int64), ("end_r_scans", np.int64),
    ("bad_fwd", np.int64), ("bad_rev", np.int64),
    ("final_end", np.int64),  # -1 END_L, +1 END_R
    ("request_ticks", np.int64), ("stop_ticks", np.int64), ("last_tick", np.int64),
])


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    ol_from, ol_to = [NEVER] * n, [NEVER] * n
    events = []
    for c, cond in enumerate(task.conditions):
        evs = []
        for ev in cond.script:
            if ev.kind == "press":
                evs.append(scripts.press(CHANNELS[ev.target], ev.t, ev.duration or scripts.PRESS_S))
            elif ev.kind == "trip":
                ol_from[c], ol_to[c] = ticks(ev.t), ticks(ev.t + ev.duration)
            else:
                raise ValueError(f"{task.id} {cond.name}: unknown event kind {ev.kind!r}")
        events.append(evs)
    params = [c.params for c in task.conditions]
    pickup = [int(round(p["pickup_ms"] / (DT * 1000))) for p in params]
    tau = [p["tau_s"] for p in params]
    rpa = reversing.make_params(n, 1, pickup=pickup, dropout=DROPOUT_TICKS, tau_acc=tau,
                                tau_coast=tau, ol_from=ol_from, ol_to=ol_to)
    carriage = np.zeros(n, CARRIAGE_DTYPE)
    carriage["x"] = [p["x0_mm"] for p in params]
    carriage["v_nom"] = [p["v_mm_s"] for p in params]
    js = np.zeros(n, JUDGE_DTYPE)
    js["prev_stop_nc"] = 1
    js["final_end"] = [{"END_L": -1, "END_R": 1}[p["final"]] for p in params]
    js["request_ticks"] = ticks(float(task.judge.get("request_window_s", 1.2)))
    js["stop_ticks"] = ticks(float(task.judge.get("stop_window_s", 1.0)))
    js["last_tick"] = [ticks(task.time_limit(cond)) - 1 for cond in task.conditions]
    return (rpa, reversing.make_state(rpa), carriage, scripts.build_scripts(events, spare_rows=0),
            make_deadtime(n), js)


@njit(cache=True)
def sense(plant, c, k, inp):
    """Panel buttons from the script, end switches from the position, OL_OK from the starter."""
    rpa, car, script = plant[0][c, 0], plant[2][c], plant[3][c]
    inp[I_FWD_PB] = 1.0 if sense_no(script, CH_FWD, k) else 0.0
    inp[I_REV_PB] = 1.0 if sense_no(script, CH_REV, k) else 0.0
    inp[I_STOP_NC] = 1.0 if sense_nc(script, CH_STOP, k) else 0.0
    inp[I_END_L] = 1.0 if car.x <= END_L_MM else 0.0
    inp[I_END_R] = 1.0 if car.x >= END_R_MM else 0.0
    inp[I_OL_OK] = 1.0 if reversing.sense_ol_ok(rpa, k) else 0.0


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: the starter with the latched coils, then x += v dt; the carriage stops
    dead at a mechanical end stop."""
    rst, car = plant[1][c, 0], plant[2][c]
    reversing.tick(rst, plant[0][c, 0], out[O_K_FWD] != 0.0, out[O_K_REV] != 0.0, k)
    x = car.x + rst.n * car.v_nom * DT
    if x <= 0.0:
        x = 0.0
        rst.n = max(rst.n, 0.0)
    elif x >= RAIL_MM:
        x = RAIL_MM
        rst.n = min(rst.n, 0.0)
    car.x = x
    car.v = rst.n * car.v_nom


@njit(cache=True)
def _specified(js, fwd, rev, stop_nc, end_l, end_r, ol_ok):
    """One scan of the specification's direction state machine on the program's input image;
    returns the direction of a request accepted in this scan (0 = none). The end switches do
    not end ``dir``: driving into them is judged by S-ENDSW, with its 100 ms."""
    fwd_edge = fwd and not js.prev_fwd
    rev_edge = rev and not js.prev_rev
    js.prev_fwd = 1 if fwd else 0
    js.prev_rev = 1 if rev else 0
    accepted = 0
    if not stop_nc or not ol_ok:
        js.dir = 0
    elif fwd_edge and not rev and not end_r and js.dir != 1:
        accepted = 1
    elif rev_edge and not fwd and not end_l and js.dir != -1:
        accepted = -1
    if accepted != 0:
        js.dir = accepted
    # S-RESTART: armed by a STOP or a trip, cleared by a button edge with both healthy.
    if not stop_nc or not ol_ok:
        js.restart_armed = 1
    elif fwd_edge or rev_edge:
        js.restart_armed = 0
    return accepted


@njit(cache=True)
def _safety(plant, c, js, inp, k_fwd, k_rev):
    """Violation id of this tick (0 = none), the most specific rule first."""
    end_l = inp[I_END_L] != 0.0
    end_r = inp[I_END_R] != 0.0
    js.end_l_scans = js.end_l_scans + 1 if end_l else 0
    js.end_r_scans = js.end_r_scans + 1 if end_r else 0
    dead = s_deadtime(plant[4][c], k_fwd, k_rev, T_REV_TICKS)
    if s_end_stop(plant[2][c].x, 0.0, RAIL_MM):
        return 4
    if s_bothdir(k_fwd, k_rev):
        return 1
    if s_stoppb(inp[I_STOP_NC] != 0.0, k_fwd or k_rev):
        return 5
    if (k_fwd and js.end_r_scans > ENDSW_SCANS) or (k_rev and js.end_l_scans > ENDSW_SCANS):
        return 3
    if dead:
        return 2
    if (k_fwd or k_rev) and js.restart_armed:
        return 6
    return 0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    js, car = plant[5][c], plant[2][c]
    fwd, rev = inp[I_FWD_PB] != 0.0, inp[I_REV_PB] != 0.0
    stop_nc, ol_ok = inp[I_STOP_NC] != 0.0, inp[I_OL_OK] != 0.0
    k_fwd, k_rev = out[O_K_FWD] != 0.0, out[O_K_REV] != 0.0
    t = k * DT
    accepted = _specified(js, fwd, rev, stop_nc, inp[I_END_L] != 0.0, inp[I_END_R] != 0.0, ol_ok)
    violation = _safety(plant, c, js, inp, k_fwd, k_rev)
    stop_edge = not stop_nc and js.prev_stop_nc
    js.prev_stop_nc = 1 if stop_nc else 0
    # (1) accepted requests: motion within the window, unless something ends them first.
    if accepted != 0:
        js.req_dir, js.req_due, js.req_t = accepted, k + js.request_ticks - 1, t
        js.stop_open = 0
    if js.req_dir != 0:
        if car.v * js.req_dir > MOVING_MM_S:
            js.req_dir = 0
        elif js.dir != js.req_dir or inp[I_END_R if js.req_dir > 0 else I_END_L] != 0.0:
            js.req_dir = 0
        elif k >= js.req_due:
            return violation, -1, 1 if js.req_dir > 0 else 2, js.req_t
    # (2) STOP presses: standstill within the window.
    if stop_edge and not js.stop_open:
        js.stop_open, js.stop_due, js.stop_t = 1, k + js.stop_ticks - 1, t
    if js.stop_open:
        if abs(car.v) < STANDSTILL_MM_S:
            js.stop_open = 0
        elif k >= js.stop_due:
            return violation, -1, 3, js.stop_t
    # (3) a contactor output only for the move last requested and not ended by STOP or a trip.
    js.bad_fwd = js.bad_fwd + 1 if k_fwd and js.dir != 1 else 0
    js.bad_rev = js.bad_rev + 1 if k_rev and js.dir != -1 else 0
    if js.bad_fwd > OUTPUT_TOLERANCE:
        return violation, -1, 4, t - OUTPUT_TOLERANCE * DT
    if js.bad_rev > OUTPUT_TOLERANCE:
        return violation, -1, 5, t - OUTPUT_TOLERANCE * DT
    # (4) the final state, judged on the last tick (run to T).
    if k == js.last_tick:
        at_end = car.x <= END_L_MM if js.final_end < 0 else car.x >= END_R_MM
        if not at_end:
            return violation, -1, 6, car.x
        if k_fwd or k_rev:
            return violation, -1, 7, 0.0
        if abs(car.v) >= STANDSTILL_MM_S:
            return violation, -1, 8, abs(car.v)
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
