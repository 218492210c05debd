"""MOT-E14 plant binding: operator panel (run switch, STOP, RESET) + one D07 servo belt in
velocity mode, and the judge.

Batch state (``build``): drive parameters, drive state and its latched Table A output block
``(n, 1)``, the panel script ``(n, events)`` and one judge record per condition. Faults come
from the drive itself: ERROR 8 is the D07 drive-fault window; the belt jam (ERROR 3) is the
D07 obstruction, placed every tick of the jam window just ahead of the belt in its direction
of motion, so a moving belt stops at once wherever it is. The judge follows the valid RUN_SW
edges, the switch-offs and the RESET presses on the program's own input image, checks the
velocity reach, the standstill, the reset, the lamps and the flash, the final state, and the
two safety rules S-STOPPB and S-RESTART.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import scripts, servo
from plants.devices.panel import sense_nc, sense_no
from plants.devices.protocol import NEVER, ticks
from plants.tasks import mot_e14 as decl
from plants.tasks.axis_glue import latch_axis, sense_axis
from plants.tasks.axis_io import axis_indices
from plants.tasks.mot_e14 import TASK
from plants.tasks.spec import TaskSpec

_IN = {s.name: i for i, s in enumerate(TASK.inputs)}
_OUT = {s.name: i for i, s in enumerate(TASK.outputs)}
_AXIS_IN, _AXIS_OUT = axis_indices(TASK.inputs), axis_indices(TASK.outputs)
I_AXIS, O_AXIS = _AXIS_IN["POWERED"], _AXIS_OUT["ENABLE"]
I_POWERED, I_ERROR, I_STANDSTILL, I_IN_VEL, I_LIM_POS, I_REF_SW, I_ACT_VEL, I_ERROR_ID = (
    _AXIS_IN[n] for n in ("POWERED", "ERROR", "STANDSTILL", "IN_VEL", "LIM_POS", "REF_SW", "ACT_VEL",
                          "ERROR_ID"))
I_RUN_SW = _IN["RUN_SW"]
I_STOP_NC = _IN["STOP_NC"]
I_RESET_PB = _IN["RESET_PB"]
O_HOME, O_MOVE_ABS, O_MOVE_REL, O_MOVE_VEL, O_HALT, O_STOP = (
    _AXIS_OUT[n] for n in ("HOME", "MOVE_ABS", "MOVE_REL", "MOVE_VEL", "HALT", "STOP"))
O_GEAR_IN, O_CSP_ON = _AXIS_OUT["GEAR_IN"], _AXIS_OUT["CSP_ON"]
O_LAMP_RUN = _OUT["LAMP_RUN"]
O_LAMP_ERR = _OUT["LAMP_ERR"]

CHANNELS = {"RUN_SW": 0, "STOP": 1, "RESET_PB": 2}
CH_RUN, CH_STOP, CH_RESET = range(3)
FAR_MM = 1.0e9
"""No soft limits, switches or cam on the endless belt: all placed out of reach."""
AXIS = dict(vmax=500.0, amax=5000.0, a_def=1000.0, sl_lo=-FAR_MM, sl_hi=FAR_MM,
            ref_lo=2.0 * FAR_MM, ref_hi=2.0 * FAR_MM, home_pos=0.0, x0=0.0, offset0=0.0)
JAM_LEAD_MM = 1.0e-6
"""The jam obstruction sits this far ahead of the belt, so any motion into it stops at once."""

SPEED_MM_S = decl.RUN_VELOCITY_MM_S
SPEED_TOL = 0.005 * SPEED_MM_S
PERIOD_TICKS = (ticks(decl.FLASH_PERIOD_S[0]) - 2, ticks(decl.FLASH_PERIOD_S[1]))  # A5 on lo
DUTY = decl.FLASH_DUTY
HELD_MAX_TICKS = ticks(decl.FLASH_PERIOD_S[1] * decl.FLASH_DUTY[1])  # 0.66 s
TOL_TICKS = 2

VIOLATIONS = ("S-STOPPB", "S-RESTART")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""
V_STOPPB, V_RESTART = 1, 2

REASONS = (
    "the valid RUN_SW edge at {arg:.2f} s was not followed by IN_VEL at 250.0 mm/s within 1.5 s",
    "the belt was not at standstill 1.0 s after RUN_SW was switched off at {arg:.2f} s",
    "ERROR was still TRUE 0.5 s after the RESET_PB press at {arg:.2f} s (the fault's cause "
    "had ended)",
    "LAMP_RUN differs from IN_VEL in the same cycle ({arg:.2f} s)",
    "LAMP_ERR is on while ERROR is FALSE ({arg:.2f} s)",
    "LAMP_ERR flashes with a wrong period or duty during an error (rising edge at {arg:.2f} s)",
    "LAMP_ERR kept one state for more than 0.66 s while ERROR was TRUE ({arg:.2f} s)",
    "the final state (standstill, ERROR = FALSE) was not reached after the last scripted event",
)
"""Failure reason id i + 1 -> text."""
R_REACH, R_STILL, R_RESET, R_LAMP_RUN, R_LAMP_ERR_OFF, R_FLASH, R_FLASH_HELD, R_END = range(1, 9)

PROBES = {
    "belt_speed": ((1, 0), "v", "mm/s"),
    "drive_error": ((1, 0), "error", "bool"),
    "restart_armed": (4, "armed", "bool"),
}
"""Plant variables `plantloop trace` can show: the belt speed, the drive's ERROR and whether
the judge currently allows a motion command (a valid RUN_SW edge since the last stop)."""

JUDGE_DTYPE = np.dtype([
    ("prev_run", np.uint8), ("prev_reset", np.uint8),
    ("prev_out", np.uint8, (10,)),  # Table A command bits of the previous output image
    ("armed", np.uint8),  # S-RESTART: a valid RUN_SW edge since the last stopping event
    ("reach_from", np.int64), ("still_from", np.int64), ("reset_from", np.int64),  # -1: none
    ("in_error", np.uint8), ("lamp_prev", np.uint8), ("phase_start", np.int64),
    ("last_rise", np.int64), ("last_fall", np.int64),
    ("reach_ticks", np.int64), ("still_ticks", np.int64), ("reset_ticks", np.int64),
    ("settle_tick", np.int64), ("last_tick", np.int64),
])


def _event_rows(task: TaskSpec, cond) -> list[tuple]:
    """The condition's panel events (RUN_SW on periods, STOP holds, RESET_PB presses)."""
    rows = []
    for ev in cond.script:
        if ev.kind == "on" and ev.target == "RUN_SW":
            rows.append(scripts.event(CH_RUN, ev.t, ev.t + ev.duration))
        elif ev.kind in ("hold", "press") and ev.target in ("STOP", "RESET_PB"):
            rows.append(scripts.press(CHANNELS[ev.target], ev.t, ev.duration or scripts.PRESS_S))
        elif ev.kind not in ("jam", "drive_fault"):
            raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind} {ev.target}")
    return rows


def _fault_window(cond, kind: str) -> tuple[int, int]:
    """Ticks [onset, cause ended) of the condition's fault of this kind (NEVER if none)."""
    found = [ev for ev in cond.script if ev.kind == kind]
    if len(found) > 1:
        raise ValueError(f"MOT-E14 {cond.name}: at most one {kind} per condition")
    if not found:
        return NEVER, NEVER
    return ticks(found[0].t), ticks(found[0].t + found[0].duration)


def _settle_tick(cond) -> int:
    """Tick of the last scripted change (a switch-off, a release, a fault cause ending)."""
    return max(ticks(ev.t + (ev.duration or scripts.PRESS_S)) for ev in cond.script)


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    f8 = [_fault_window(cond, "drive_fault") for cond in task.conditions]
    obs = [_fault_window(cond, "jam") for cond in task.conditions]
    apa = servo.make_params(
        n, 1, **AXIS, powerup=[ticks(c.params["powerup_ms"] / 1000.0) for c in task.conditions],
        f8_from=[w[0] for w in f8], f8_to=[w[1] for w in f8],
        obs_from=[w[0] for w in obs], obs_to=[w[1] for w in obs])
    judge_state = np.zeros(n, JUDGE_DTYPE)
    for name in ("reach_from", "still_from", "reset_from", "last_rise", "last_fall"):
        judge_state[name] = -1
    judge_state["reach_ticks"] = ticks(float(task.judge.get("reach_s", decl.REACH_S)))
    judge_state["still_ticks"] = ticks(float(task.judge.get("standstill_s", decl.STANDSTILL_S)))
    judge_state["reset_ticks"] = ticks(float(task.judge.get("reset_s", decl.RESET_S)))
    for c, cond in enumerate(task.conditions):
        judge_state[c]["settle_tick"] = _settle_tick(cond)
        judge_state[c]["last_tick"] = ticks(task.time_limit(cond)) - 1
    script = scripts.build_scripts([_event_rows(task, cond) for cond in task.conditions],
                                   spare_rows=0)
    return apa, servo.make_state(apa), servo.make_outputs(n), script, judge_state


@njit(cache=True)
def _b(flag):
    return 1.0 if flag else 0.0


@njit(cache=True)
def sense(plant, c, k, inp):
    """Table A inputs of the drive and the panel."""
    pa, st, ev = plant[0][c, 0], plant[1][c, 0], plant[3][c]
    sense_axis(st, pa, inp, I_AXIS)
    inp[I_RUN_SW] = _b(sense_no(ev, CH_RUN, k))
    inp[I_STOP_NC] = _b(sense_nc(ev, CH_STOP, k))
    inp[I_RESET_PB] = _b(sense_no(ev, CH_RESET, k))


@njit(cache=True)
def _place_jam(pa, st, blk, k):
    """During the jam window the obstruction sits just ahead of the belt in the direction it
    moves (or is commanded to move from rest), so the drive stops it there with ERROR 3."""
    t = k + 1
    if not pa.obs_from <= t < pa.obs_to:
        return
    direction = 1.0
    if st.v < 0.0:
        direction = -1.0
    elif st.v == 0.0 and blk.move_vel and blk.velocity < 0:
        direction = -1.0
    elif st.v == 0.0 and st.cmd == servo.C_VEL and st.vcmd < 0.0:
        direction = -1.0
    pa.obs_x = st.x + direction * JAM_LEAD_MM


@njit(cache=True)
def advance(plant, c, k, out):
    """Latch the Table A outputs into the drive's block and step the drive 10 ms."""
    pa, st, blk = plant[0][c, 0], plant[1][c, 0], plant[2][c, 0]
    latch_axis(blk, out, O_AXIS)
    _place_jam(pa, st, blk, k)
    servo.tick(st, pa, blk, 0.0, 0.0, k)


@njit(cache=True)
def _cause_ended(pa, error_id, k):
    """Can a RESET edge of scan k clear this error (the drive applies it at tick k + 1)?"""
    t = k + 1
    if error_id == servo.E_FAULT:
        return t >= pa.f8_to
    if error_id == servo.E_OBSTRUCTION:
        return not pa.obs_from <= t < pa.obs_to
    return True


@njit(cache=True)
def _restart_violation(js, inp, out):
    """S-STOPPB (id 1) over S-RESTART (id 2); also updates the edge memories."""
    stop_nc = inp[I_STOP_NC] != 0.0
    error = inp[I_ERROR] != 0.0
    run = inp[I_RUN_SW] != 0.0
    edges = np.zeros(10, np.uint8)
    for j in range(10):
        now = 1 if out[j] != 0.0 else 0
        edges[j] = 1 if now and not js.prev_out[j] else 0
        js.prev_out[j] = now
    if not stop_nc or error or out[O_STOP] != 0.0 or edges[O_HALT]:
        js.armed = 0
    if run and not js.prev_run and stop_nc and not error:
        js.armed = 1
    motion = (edges[O_MOVE_VEL] or edges[O_MOVE_ABS] or edges[O_MOVE_REL] or edges[O_HOME]
              or edges[O_GEAR_IN] or edges[O_CSP_ON])
    violation = 0
    if motion and not js.armed:
        violation = V_RESTART
    if not stop_nc and out[O_STOP] == 0.0:
        violation = V_STOPPB
    return violation


@njit(cache=True)
def _flash(js, k, error, lamp):
    """LAMP_ERR rules of one cycle; (reason id, arg) or (0, 0.0)."""
    if not error:
        js.in_error = 0
        if lamp:
            return R_LAMP_ERR_OFF, k / 100.0
        return 0, 0.0
    if not js.in_error:  # error onset: the lamp's first phase is counted from here
        js.in_error = 1
        js.lamp_prev = 1 if lamp else 0
        js.phase_start = k
        js.last_rise = -1
        js.last_fall = -1
        return 0, 0.0
    if lamp != (js.lamp_prev != 0):
        js.lamp_prev = 1 if lamp else 0
        js.phase_start = k
        if not lamp:
            js.last_fall = k
        else:
            if js.last_rise >= 0 and js.last_fall > js.last_rise:
                period = k - js.last_rise
                on = js.last_fall - js.last_rise
                if not (PERIOD_TICKS[0] <= period <= PERIOD_TICKS[1]
                        and DUTY[0] * period - TOL_TICKS <= on <= DUTY[1] * period):
                    return R_FLASH, k / 100.0
            js.last_rise = k
    if k - js.phase_start + 1 > HELD_MAX_TICKS:
        return R_FLASH_HELD, k / 100.0
    return 0, 0.0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    pa, st, js = plant[0][c, 0], plant[1][c, 0], plant[4][c]
    run = inp[I_RUN_SW] != 0.0
    stop_nc = inp[I_STOP_NC] != 0.0
    error = inp[I_ERROR] != 0.0
    run_edge = run and not js.prev_run
    run_fall = js.prev_run and not run
    reset_edge = inp[I_RESET_PB] != 0.0 and not js.prev_reset
    violation = _restart_violation(js, inp, out)
    js.prev_run = 1 if run else 0
    js.prev_reset = 1 if inp[I_RESET_PB] != 0.0 else 0

    if (out[O_LAMP_RUN] != 0.0) != (inp[I_IN_VEL] != 0.0):
        return violation, -1, R_LAMP_RUN, k / 100.0
    reason, arg = _flash(js, k, error, out[O_LAMP_ERR] != 0.0)
    if reason:
        return violation, -1, reason, arg

    # IN_VEL at 250 mm/s within 1.5 s of a valid RUN_SW edge
    if not run or not stop_nc or error:
        js.reach_from = -1
    if run_edge and stop_nc and not error:
        js.reach_from = k
    if js.reach_from >= 0:
        if st.in_vel and abs(st.v - SPEED_MM_S) <= SPEED_TOL:
            js.reach_from = -1
        elif k + 1 >= js.reach_from + js.reach_ticks:
            return violation, -1, R_REACH, js.reach_from / 100.0
    # standstill 1.0 s after RUN_SW off
    if run_edge:
        js.still_from = -1
    if run_fall:
        js.still_from = k
    if js.still_from >= 0:
        if servo.sense_standstill(st) and st.cmd != servo.C_VEL:
            js.still_from = -1  # stopped; a new run needs a motion command (S-RESTART)
        elif k + 1 >= js.still_from + js.still_ticks:
            return violation, -1, R_STILL, js.still_from / 100.0
    # a reset the drive can accept clears ERROR within 0.5 s
    if reset_edge and error and js.reset_from < 0 and _cause_ended(pa, int(inp[I_ERROR_ID]), k):
        js.reset_from = k
    if js.reset_from >= 0:
        if not st.error:
            js.reset_from = -1
        elif k + 1 >= js.reset_from + js.reset_ticks:
            return violation, -1, R_RESET, js.reset_from / 100.0

    pending = js.reach_from >= 0 or js.still_from >= 0 or js.reset_from >= 0
    if (k >= js.settle_tick and not pending and servo.sense_standstill(st) and not st.error):
        return violation, 1, 0, 0.0
    if k >= js.last_tick:
        return violation, -1, R_END, 0.0
    return violation, 0, 0, 0.0
