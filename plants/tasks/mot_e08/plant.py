"""MOT-E08 plant binding: panel + rotary index table (D10) with a single-acting locking pin
(D11), and the judge.

Batch state (``build``): table parameters and state ``(n, 1)``, pin cylinder parameters and
state ``(n, 1)``, the panel script ``(n, events)``, the late-PIN_OUT fault record and one judge
record per condition. The judge runs the completion's index state machine on the same input
image the program saw (which presses are accepted, each index's target station, when STOP
interrupts it), checks every pending index against its 7.0 s window, the motor, lamp and
stay-locked rules, and the two safety rules of the task.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import cylinder, index_table, scripts
from plants.devices.panel import sense_nc, sense_no
from plants.devices.protocol import EPS, ticks
from plants.devices.safety import s_pin, s_stoppb
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_INDEX_PB, I_STOP_NC, I_PRE_CAM, I_INDEX_CAM, I_PIN_IN, I_PIN_OUT = range(6)
O_MOTOR, O_CREEP, O_PIN, O_LAMP_LOCKED = range(4)
# Script channels of the panel.
CH_INDEX, CH_STOP = range(2)
CHANNELS = {"INDEX_PB": CH_INDEX, "STOP": CH_STOP}

N_STATIONS = 6
PITCH = 360.0 / N_STATIONS
W_CREEP, TAU_S, BRAKE, W_PRE = 10.0, 0.1, 300.0, 12.0
CAM_DEG = 0.8  # INDEX_CAM half width; also "reached the target" for a STOP
PIN_TOL_DEG = 1.0  # pin entry tolerance; also "at the target" for a completion

VIOLATIONS = ("S-PIN", "S-STOPPB")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "the index accepted at {arg:.2f} s was not completed within 7.0 s (PIN_IN TRUE at the "
    "target station with LAMP_LOCKED TRUE)",
    "MOTOR is TRUE while no accepted index is pending (table at {arg:.1f}°)",
    "LAMP_LOCKED is TRUE in a scan whose input image has PIN_IN = FALSE",
    "PIN_IN is FALSE while the table is to stay locked (no index pending since a completion or "
    "a locked start)",
)
"""Failure reason id i + 1 -> text."""

LATE_DTYPE = np.dtype([
    ("delay", np.int64),  # ticks PIN_OUT lags the retracted pin on the faulty retraction
    ("late_on", np.int64),  # which retraction (1-based) is reported late, 0 = none
    ("n_ret", np.int64), ("ret_tick", np.int64),  # retractions so far, tick of the last one
])

JUDGE_DTYPE = np.dtype([
    ("prev_pb", np.uint8),
    ("pending", np.uint8), ("target", np.int64),
    ("hold", np.uint8),  # the table is to stay locked: completed (or locked start), no press since  # target station 0..5 (station k+1 at k*60°)
    ("press_tick", np.int64), ("idle_since", np.int64),
    ("window", np.int64), ("settle", np.int64), ("last_press", np.int64),
    ("theta_seen", np.float64),  # table angle of the state the input image was sensed from
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
        last_press.append(max(ticks(ev.t) for ev in cond.script if ev.target == "INDEX_PB"))
    params = [c.params for c in task.conditions]
    tpa = index_table.make_params(
        n, 1, n_stations=N_STATIONS, w_fast=[p["w_fast_deg_s"] for p in params], w_creep=W_CREEP,
        tau=TAU_S, brake=BRAKE, w_pre=W_PRE, cam=CAM_DEG, pin_tol=PIN_TOL_DEG,
        theta0=[float(p["start_deg"]) for p in params],
    )
    t_pin = [p["t_pin_s"] for p in params]
    cpa = cylinder.make_params(n, 1, kind=cylinder.MONO, t_ext=t_pin, t_ret=t_pin, spring=1)
    cst = cylinder.make_state(cpa)
    cst["s"] = cst["s_prev"] = np.array([[1.0 if p["locked"] else 0.0] for p in params])
    late = np.zeros(n, LATE_DTYPE)
    late["delay"] = [ticks(p["pin_out_delay_s"]) for p in params]
    late["late_on"] = [p["late_on_retraction"] for p in params]
    judge_state = np.zeros(n, JUDGE_DTYPE)
    judge_state["window"] = ticks(float(task.judge.get("index_window_s", 7.0)))
    judge_state["settle"] = ticks(float(task.judge.get("settle_s", 3.0)))
    judge_state["last_press"] = last_press
    judge_state["theta_seen"] = tpa["theta0"][:, 0]
    judge_state["hold"] = [1 if p["locked"] else 0 for p in params]
    return (tpa, index_table.make_state(tpa), cpa, cst,
            scripts.build_scripts(events, spare_rows=0), late, judge_state)


@njit(cache=True)
def sense(plant, c, k, inp):
    """Panel buttons from the script, cams from the table angle, pin switches from the stroke
    (PIN_OUT held FALSE for the fault's delay after the faulty retraction)."""
    tpa, tst, cpa, cst = plant[0][c, 0], plant[1][c, 0], plant[2][c, 0], plant[3][c, 0]
    script, late = plant[4][c], plant[5][c]
    inp[I_INDEX_PB] = 1.0 if sense_no(script, CH_INDEX, k) else 0.0
    inp[I_STOP_NC] = 1.0 if sense_nc(script, CH_STOP, k) else 0.0
    inp[I_PRE_CAM] = 1.0 if index_table.sense_pre_cam(tst, tpa) else 0.0
    inp[I_INDEX_CAM] = 1.0 if index_table.sense_index_cam(tst, tpa) else 0.0
    inp[I_PIN_IN] = 1.0 if cylinder.sense_extended(cst, cpa) else 0.0
    pin_out = cylinder.sense_retracted(cst, cpa)
    if late.late_on > 0 and late.n_ret == late.late_on and k < late.ret_tick + late.delay:
        pin_out = False
    inp[I_PIN_OUT] = 1.0 if pin_out else 0.0


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step of the table and its pin with the latched MOTOR/CREEP/PIN outputs."""
    cst, late = plant[3][c, 0], plant[5][c]
    index_table.tick(plant[1][c, 0], plant[0][c, 0], cst, plant[2][c, 0],
                     out[O_MOTOR] != 0.0, out[O_CREEP] != 0.0, out[O_PIN] != 0.0, k)
    if cst.s <= 0.02 + EPS < cst.s_prev:
        late.n_ret += 1
        late.ret_tick = k + 1


@njit(cache=True)
def next_station(theta):
    """Target of an index started at ``theta``: the first station ahead that is more than the
    INDEX_CAM half width away (0-based, station k + 1 at k * 60°)."""
    ahead = int(np.floor(theta / PITCH)) + 1
    if ahead * PITCH - theta <= CAM_DEG + EPS:
        ahead += 1
    return ahead % N_STATIONS


@njit(cache=True)
def distance_to(theta, station):
    """Angle between ``theta`` and a station, either way round (°)."""
    d = abs(theta - station * PITCH) % 360.0
    return min(d, 360.0 - d)


@njit(cache=True)
def _specified(js, inp, lamp, k):
    """One scan of the completion's index state machine on the program's input image:
    completion, then interruption by STOP, then acceptance of a press."""
    stop_nc = inp[I_STOP_NC] != 0.0
    pressed = inp[I_INDEX_PB] != 0.0
    edge = pressed and not js.prev_pb
    js.prev_pb = 1 if pressed else 0
    if js.pending:
        if (inp[I_PIN_IN] != 0.0 and lamp
                and distance_to(js.theta_seen, js.target) <= PIN_TOL_DEG + EPS):
            js.pending = 0
            js.hold = 1
            js.idle_since = k
        elif not stop_nc and distance_to(js.theta_seen, js.target) > CAM_DEG + EPS:
            js.pending = 0
            js.idle_since = k
    if edge and stop_nc and not js.pending:
        js.pending = 1
        js.hold = 0
        js.target = next_station(js.theta_seen)
        js.press_tick = k


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    tst, js = plant[1][c, 0], plant[6][c]
    motor = out[O_MOTOR] != 0.0
    lamp = out[O_LAMP_LOCKED] != 0.0
    violation = 0
    if s_stoppb(inp[I_STOP_NC] != 0.0, motor):
        violation = 2
    if s_pin(tst, motor, inp[I_PIN_OUT] != 0.0):
        violation = 1
    _specified(js, inp, lamp, k)
    theta_seen = js.theta_seen
    js.theta_seen = tst.theta
    if lamp and inp[I_PIN_IN] == 0.0:
        return violation, -1, 3, 0.0
    if js.hold and inp[I_PIN_IN] == 0.0:
        return violation, -1, 4, 0.0
    if motor and not js.pending:
        return violation, -1, 2, theta_seen
    if js.pending:
        if k + 1 - js.press_tick >= js.window:
            return violation, -1, 1, js.press_tick * 0.01
    elif k >= js.last_press and k - js.idle_since >= js.settle:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
