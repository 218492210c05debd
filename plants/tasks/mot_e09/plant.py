"""MOT-E09 plant binding: panel + reversing starter driving a sectional door, and the judge.

Batch state (``build``): reversing-starter parameters and state ``(n, 1)``, the door record
``(n,)`` (height, speed, obstacle), the panel/photo-eye script ``(n, events)``, the S-DEADTIME
tracker and one judge record per condition. The judge runs the specification's state machine
(which move is in force: open, close or none) on the same input image the program saw, so
it knows which requests are accepted, when an obstruction must reopen the door and when an
auto-close is due; it checks the contactor outputs against it, the final closed state after
the last scripted event and the six safety rules of the task.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import reversing, scripts
from plants.devices.panel import sense_nc, sense_no
from plants.devices.protocol import DT, ticks
from plants.devices.safety import make_deadtime, s_bothdir, s_deadtime, s_stoppb
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_OPEN_PB, I_CLOSE_PB, I_STOP_NC, I_OPEN_LS, I_CLOSED_LS, I_OBST_CLEAR, I_EDGE_OK = range(7)
O_K_UP, O_K_DOWN, O_LAMP_WARN = range(3)
# Script channels: panel buttons and the photo-eye beam.
CH_OPEN, CH_CLOSE, CH_STOP, CH_BEAM = range(4)
CHANNELS = {"OPEN": CH_OPEN, "CLOSE": CH_CLOSE, "STOP": CH_STOP}

TOP_STOP_MM = 2520.0  # mechanical top stop; the floor is at 0
OPEN_LS_MM = 2480.0  # OPEN_LS TRUE for h >= 2480
CLOSED_LS_MM = 20.0  # CLOSED_LS TRUE for h <= 20
EDGE_MM = 30.0  # safety-edge pre-travel: EDGE_OK falls at h <= top + 30
CRUSH_MM = 10.0  # S-CRUSH: door bottom more than 10 mm below the obstacle top
STALL_MM = 50.0  # a rigid obstacle stalls the door 50 mm below its top
TAU_S = 0.05
DROPOUT_TICKS = 2  # 20 ms
T_REV_TICKS = 50  # S-DEADTIME, 0.5 s
ENDSW_SCANS = 11  # S-ENDSW: the switch TRUE for more than 100 ms = more than 11 scans
AUTO_OPEN_TICKS = 1000  # auto-close: fully open for 10 s ...
AUTO_CLEAR_TICKS = 200  # ... and the beam clear for 2 s
AUTO_EARLY_TICKS = 5  # lower bounds 9.95 s / 1.95 s: five scans of sampling tolerance
OUTPUT_TOLERANCE = 2  # completion (1), (4): 20 ms

NONE, UP, DOWN = 0, 1, -1

VIOLATIONS = ("S-OBST", "S-CRUSH", "S-BOTHDIR", "S-DEADTIME", "S-ENDSW", "S-STOPPB")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

V_OBST, V_CRUSH, V_BOTHDIR, V_DEADTIME, V_ENDSW, V_STOPPB = range(1, 7)

REASONS = (
    "no K_UP within 1.0 s of the accepted OPEN press at {arg:.2f} s",
    "no K_DOWN within 1.0 s of the accepted CLOSE press at {arg:.2f} s",
    "no K_UP within 1.0 s of the obstruction while closing at {arg:.2f} s",
    "K_UP dropped before OPEN_LS although no STOP, accepted CLOSE or obstruction came "
    "(at {arg:.2f} s)",
    "K_DOWN dropped before CLOSED_LS although no STOP, accepted OPEN or obstruction came "
    "(at {arg:.2f} s)",
    "K_UP is TRUE for more than 20 ms while no opening is in force (from {arg:.2f} s)",
    "K_DOWN is TRUE for more than 20 ms while no closing is in force: no accepted CLOSE, and "
    "no auto-close at least 9.95 s after OPEN_LS rose and 1.95 s after the beam cleared "
    "(from {arg:.2f} s)",
    "no auto-close within 0.5 s of it becoming due at {arg:.2f} s",
)
"""Failure reason id i + 1 -> text."""

R_OPEN, R_CLOSE, R_OBST, R_UP_DROPPED, R_DOWN_DROPPED, R_STRAY_UP, R_STRAY_DOWN, R_NO_AUTO = range(1, 9)

DOOR_DTYPE = np.dtype([
    ("h", np.float64), ("v", np.float64), ("v_nom", np.float64),
    ("top", np.float64), ("ob_from", np.int64), ("ob_to", np.int64), ("ob_on", np.uint8),
])

JUDGE_DTYPE = np.dtype([
    ("prev_open", np.uint8), ("prev_close", np.uint8), ("prev_down", np.uint8),
    ("dir", np.int64),  # move in force: UP, DOWN or NONE
    ("energised", np.uint8), ("due", np.int64), ("due_t", np.float64), ("due_reason", np.int64),
    ("drop_scans", np.int64), ("bad_up", np.int64), ("bad_down", np.int64),
    ("open_rise", np.int64),  # scan at which OPEN_LS rose (-1 while not fully open)
    ("clear_from", np.int64),  # first scan of the current clear-beam period
    ("auto_due", np.int64),  # scan at which the auto-close became due (-1 none)
    ("open_scans", np.int64), ("closed_scans", np.int64),
    ("request_ticks", np.int64), ("late_ticks", np.int64), ("final_tick", np.int64),
])


def _event_end(ev) -> float:
    """End of a scripted event: press release, beam restored, obstacle removed."""
    if ev.kind == "press":
        return ev.t + (ev.duration or scripts.PRESS_S)
    return ev.t + ev.duration


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    door = np.zeros(n, DOOR_DTYPE)
    door["ob_from"] = door["ob_to"] = -1
    events = []
    for c, cond in enumerate(task.conditions):
        evs = []
        for ev in cond.script:
            if ev.kind == "press":
                evs.append(scripts.press(CHANNELS[ev.target], ev.t, ev.duration or scripts.PRESS_S))
            elif ev.kind == "beam":
                evs.append(scripts.event(CH_BEAM, ev.t, ev.t + ev.duration))
            elif ev.kind == "obstacle":
                door[c]["top"] = float(dict(ev.args)["height_mm"])
                door[c]["ob_from"], door[c]["ob_to"] = ticks(ev.t), ticks(ev.t + ev.duration)
            else:
                raise ValueError(f"{task.id} {cond.name}: unknown event kind {ev.kind!r}")
        events.append(evs)
    params = [c.params for c in task.conditions]
    pickup = [int(round(p["pickup_ms"] / (DT * 1000))) for p in params]
    rpa = reversing.make_params(n, 1, pickup=pickup, dropout=DROPOUT_TICKS, tau_acc=TAU_S,
                                tau_coast=TAU_S)
    door["v_nom"] = [p["v_mm_s"] for p in params]
    js = np.zeros(n, JUDGE_DTYPE)
    js["open_rise"] = js["auto_due"] = -1
    js["request_ticks"] = ticks(float(task.judge.get("request_window_s", 1.0)))
    js["late_ticks"] = ticks(float(task.judge.get("auto_close_late_s", 0.5)))
    js["final_tick"] = [max((ticks(_event_end(ev)) for ev in cond.script), default=0)
                        for cond in task.conditions]
    return (rpa, reversing.make_state(rpa), door, scripts.build_scripts(events, spare_rows=0),
            make_deadtime(n), js)


@njit(cache=True)
def sense_edge_ok(door):
    """Safety edge: contact while an obstacle is under the door within the 30 mm pre-travel."""
    return not (door.ob_on and door.h <= door.top + EDGE_MM)


@njit(cache=True)
def sense(plant, c, k, inp):
    """Buttons and beam from the script, limit switches and safety edge from the door."""
    door, script = plant[2][c], plant[3][c]
    inp[I_OPEN_PB] = 1.0 if sense_no(script, CH_OPEN, k) else 0.0
    inp[I_CLOSE_PB] = 1.0 if sense_no(script, CH_CLOSE, k) else 0.0
    inp[I_STOP_NC] = 1.0 if sense_nc(script, CH_STOP, k) else 0.0
    inp[I_OPEN_LS] = 1.0 if door.h >= OPEN_LS_MM else 0.0
    inp[I_CLOSED_LS] = 1.0 if door.h <= CLOSED_LS_MM else 0.0
    inp[I_OBST_CLEAR] = 1.0 if sense_nc(script, CH_BEAM, k) else 0.0
    inp[I_EDGE_OK] = 1.0 if sense_edge_ok(door) else 0.0


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: the starter with the latched coils, then h += v dt between the floor,
    the top stop and a stalling obstacle; then the obstacle is placed or removed (A39: placed
    only when the door bottom is clear of it)."""
    rst, door = plant[1][c, 0], plant[2][c]
    reversing.tick(rst, plant[0][c, 0], out[O_K_UP] != 0.0, out[O_K_DOWN] != 0.0, k)
    h = door.h + rst.n * door.v_nom * DT
    if h <= 0.0:
        h = 0.0
        rst.n = max(rst.n, 0.0)
    elif h >= TOP_STOP_MM:
        h = TOP_STOP_MM
        rst.n = min(rst.n, 0.0)
    if door.ob_on and h < door.top - STALL_MM:
        h = door.top - STALL_MM
        rst.n = max(rst.n, 0.0)
    door.h = h
    door.v = rst.n * door.v_nom
    if door.ob_on and k + 1 >= door.ob_to:
        door.ob_on = 0
    elif not door.ob_on and door.ob_from <= k + 1 < door.ob_to and h > door.top + EDGE_MM:
        door.ob_on = 1


@njit(cache=True)
def _start(js, direction, k, t, reason):
    """A move comes in force: its contactor is due within the request window."""
    js.dir = direction
    js.energised = 0
    js.drop_scans = 0
    js.due = k + js.request_ticks
    js.due_t = t
    js.due_reason = reason


@njit(cache=True)
def _auto_ready(js, k, stop_nc, obstructed, early):
    """Auto-close conditions of the specification (``early`` scans of tolerance)."""
    return (js.dir == NONE and stop_nc and not obstructed and js.open_rise >= 0
            and k - js.open_rise >= AUTO_OPEN_TICKS - early
            and k - js.clear_from >= AUTO_CLEAR_TICKS - early)


@njit(cache=True)
def _specified(js, k, inp, k_down):
    """One scan of the specification's state machine on the program's input image."""
    t = k * DT
    open_pb, close_pb = inp[I_OPEN_PB] != 0.0, inp[I_CLOSE_PB] != 0.0
    stop_nc = inp[I_STOP_NC] != 0.0
    open_ls, closed_ls = inp[I_OPEN_LS] != 0.0, inp[I_CLOSED_LS] != 0.0
    clear = inp[I_OBST_CLEAR] != 0.0
    obstructed = not clear or inp[I_EDGE_OK] == 0.0
    open_edge = open_pb and not js.prev_open
    close_edge = close_pb and not js.prev_close
    js.prev_open = 1 if open_pb else 0
    js.prev_close = 1 if close_pb else 0
    if not open_ls:
        js.open_rise = -1
    elif js.open_rise < 0:
        js.open_rise = k
    if not clear:
        js.clear_from = k + 1
    if (js.dir == UP and open_ls) or (js.dir == DOWN and closed_ls):
        js.dir = NONE
    if not stop_nc:
        js.dir = NONE
    elif js.dir == DOWN and obstructed:
        _start(js, UP, k, t, R_OBST)
    elif open_edge and not open_ls and js.dir != UP:
        _start(js, UP, k, t, R_OPEN)
    elif close_edge and not closed_ls and js.dir != DOWN and not obstructed:
        _start(js, DOWN, k, t, R_CLOSE)
    # The program's auto-close: a K_DOWN rise with no close in force, judged against the
    # auto-close conditions with the five-scan tolerance; it then counts as a close.
    down_rise = k_down and not js.prev_down
    js.prev_down = 1 if k_down else 0
    if down_rise and _auto_ready(js, k, stop_nc, obstructed, AUTO_EARLY_TICKS):
        js.dir = DOWN
        js.energised = 1
        js.drop_scans = 0
    if _auto_ready(js, k, stop_nc, obstructed, 0):
        if js.auto_due < 0:
            js.auto_due = k
    else:
        js.auto_due = -1


@njit(cache=True)
def _safety(plant, c, js, inp, k_up, k_down):
    """Violation id of this tick (0 = none), the most specific rule first."""
    door = plant[2][c]
    js.open_scans = js.open_scans + 1 if inp[I_OPEN_LS] != 0.0 else 0
    js.closed_scans = js.closed_scans + 1 if inp[I_CLOSED_LS] != 0.0 else 0
    dead = s_deadtime(plant[4][c], k_up, k_down, T_REV_TICKS)
    if door.ob_on and door.h < door.top - CRUSH_MM:
        return V_CRUSH
    if s_bothdir(k_up, k_down):
        return V_BOTHDIR
    if k_down and (inp[I_OBST_CLEAR] == 0.0 or inp[I_EDGE_OK] == 0.0):
        return V_OBST
    if s_stoppb(inp[I_STOP_NC] != 0.0, k_up or k_down):
        return V_STOPPB
    if (k_up and js.open_scans > ENDSW_SCANS) or (k_down and js.closed_scans > ENDSW_SCANS):
        return V_ENDSW
    if dead:
        return V_DEADTIME
    return 0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    js, door = plant[5][c], plant[2][c]
    k_up, k_down = out[O_K_UP] != 0.0, out[O_K_DOWN] != 0.0
    t = k * DT
    _specified(js, k, inp, k_down)
    violation = _safety(plant, c, js, inp, k_up, k_down)
    # (1)-(3) the move in force: its contactor within the window, then held to the limit.
    if js.dir != NONE:
        own = k_up if js.dir == UP else k_down
        if not js.energised:
            if own:
                js.energised = 1
            elif k >= js.due:
                return violation, -1, js.due_reason, js.due_t
        elif not own:
            js.drop_scans += 1
            if js.drop_scans > OUTPUT_TOLERANCE:
                return violation, -1, R_UP_DROPPED if js.dir == UP else R_DOWN_DROPPED, t
        else:
            js.drop_scans = 0
    if js.auto_due >= 0 and k >= js.auto_due + js.late_ticks:
        return violation, -1, R_NO_AUTO, js.auto_due * DT
    # (4) no contactor output outside a move in force.
    js.bad_up = js.bad_up + 1 if k_up and js.dir != UP else 0
    js.bad_down = js.bad_down + 1 if k_down and js.dir != DOWN else 0
    if js.bad_up > OUTPUT_TOLERANCE:
        return violation, -1, R_STRAY_UP, t - OUTPUT_TOLERANCE * DT
    if js.bad_down > OUTPUT_TOLERANCE:
        return violation, -1, R_STRAY_DOWN, t - OUTPUT_TOLERANCE * DT
    # (5) closed and at rest in the specification after the last scripted event.
    if (k >= js.final_tick and js.dir == NONE and js.auto_due < 0 and door.h <= CLOSED_LS_MM
            and not k_up and not k_down):
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
