"""MOT-E07 plant binding: operator panel (enable switch, jog/home/reset buttons) + one D07
servo axis, and the judge.

Batch state (``build``): drive parameters, drive state and its latched Table A output block
``(n, 1)``, the panel script ``(n, events)`` and one judge record per condition. The judge
follows the jog presses on the program's own input image (a press starts when exactly one jog
button becomes held; its validity is decided on that image), checks the velocity reach and the
standstill after each press on the drive state, the homed band and ERROR_ID 1, the end state,
and the two safety rules S-JOGVEL and S-LIMDIR.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import scripts, servo
from plants.devices.panel import sense_no
from plants.devices.protocol import EPS, ticks
from plants.tasks import mot_e07 as decl
from plants.tasks.mot_e07 import TASK
from plants.tasks.spec import TaskSpec

_IN = {s.name: i for i, s in enumerate(TASK.inputs)}
_OUT = {s.name: i for i, s in enumerate(TASK.outputs)}
I_POWERED = _IN["POWERED"]
I_HOMED = _IN["HOMED"]
I_BUSY = _IN["BUSY"]
I_DONE = _IN["DONE"]
I_ERROR = _IN["ERROR"]
I_STANDSTILL = _IN["STANDSTILL"]
I_IN_VEL = _IN["IN_VEL"]
I_ABORTED = _IN["ABORTED"]
I_LIM_NEG = _IN["LIM_NEG"]
I_LIM_POS = _IN["LIM_POS"]
I_REF_SW = _IN["REF_SW"]
I_CSP_ACTIVE = _IN["CSP_ACTIVE"]
I_GEARED = _IN["GEARED"]
I_ACT_POS = _IN["ACT_POS"]
I_ACT_VEL = _IN["ACT_VEL"]
I_ERROR_ID = _IN["ERROR_ID"]
I_ENABLE_SW = _IN["ENABLE_SW"]
I_JOG_P = _IN["JOG_P"]
I_JOG_N = _IN["JOG_N"]
I_HOME_PB = _IN["HOME_PB"]
I_RESET_PB = _IN["RESET_PB"]
DRIVE_FIELDS = ("enable", "home", "move_abs", "move_rel", "move_vel", "halt", "stop", "reset",
                "gear_in", "csp_on", "target", "velocity", "accel", "gear_num", "gear_den")
if tuple(s.name.lower() for s in TASK.outputs[:15]) != DRIVE_FIELDS:
    raise ImportError("MOT-E07: the output image must start with the Table A block")
O_ENABLE, O_HOME, O_MOVE_ABS, O_MOVE_REL, O_MOVE_VEL, O_HALT, O_STOP, O_RESET = range(8)
O_GEAR_IN, O_CSP_ON, O_TARGET, O_VELOCITY, O_ACCEL, O_GEAR_NUM, O_GEAR_DEN = range(8, 15)
O_LAMP_HOMED = _OUT["LAMP_HOMED"]
O_LAMP_ERR = _OUT["LAMP_ERR"]

CHANNELS = {"ENABLE_SW": 0, "JOG_P": 1, "JOG_N": 2, "HOME_PB": 3, "RESET_PB": 4}
CH_ENABLE, CH_JOG_P, CH_JOG_N, CH_HOME, CH_RESET = range(5)
AXIS = dict(vmax=300.0, amax=2000.0, a_def=500.0, home_fast=100.0, home_slow=5.0,
            home_dir=-1.0, ref_lo=30.0, ref_hi=50.0, home_pos=50.0, sl_lo=0.0, sl_hi=1000.0,
            powerup=10)
"""The catalog's axis; switches (-5 / 1005) and end stops (-15 / 1015) are the D07 defaults."""

VIOLATIONS = ("S-JOGVEL", "S-LIMDIR")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""
V_JOGVEL, V_LIMDIR = 1, 2
BOTH = 2
UNHOMED_ACT_VEL_LIMIT = 10.0 * decl.UNHOMED_V_LIMIT_MM_S  # ACT_VEL units, 0.1 mm/s
MOTION_MM_S = decl.MOTION_MM_S
JOG_FAST_MM_S = decl.JOG_FAST_MM_S
JOG_SLOW_MM_S = decl.JOG_SLOW_MM_S

REASONS = (
    "the drive raised ERROR_ID 1 (soft limit)",
    "the homed axis left [5.00, 995.00] mm",
    "the valid jog press at {arg:.2f} s did not reach its commanded velocity (±2 %) within "
    "0.5 s (or before its release)",
    "the axis was not at standstill 0.5 s after the jog buttons changed to none or both "
    "held at {arg:.2f} s",
    "the end state (HOMED, STANDSTILL, LAMP_HOMED) was not reached after the last scripted "
    "event",
)
"""Failure reason id i + 1 -> text."""
R_ERROR1, R_BAND, R_NOT_REACHED, R_NOT_STILL, R_END = 1, 2, 3, 4, 5

JUDGE_DTYPE = np.dtype([
    ("jog_code", np.int64),  # jog buttons held: +1 / -1 exactly one, BOTH, 0 none
    ("press_tick", np.int64),  # tick its first input image was read
    ("valid", np.uint8), ("reached", np.uint8),
    ("v_target", np.float64),  # mm/s, signed
    ("still_tick", np.int64),  # state tick at which STANDSTILL is due (-1: none pending)
    ("changed_tick", np.int64),  # tick the buttons changed to none or both held
    ("enable_ticks", np.int64),  # consecutive input images with ENABLE_SW on
    ("homing", np.uint8),  # inside a drive-internal homing run (safety exception)
    ("prev_move_vel", np.uint8),
    # parameters (ticks, mm)
    ("reach_ticks", np.int64), ("still_ticks", np.int64), ("min_press_ticks", np.int64),
    ("enable_settle_ticks", np.int64), ("inside_mm", np.float64),
    ("band_lo", np.float64), ("band_hi", np.float64),
    ("settle_tick", np.int64), ("last_tick", np.int64),
])


def _event_rows(task: TaskSpec, cond) -> list[tuple]:
    """The condition's script as panel events; ENABLE_SW intervals are its ON periods."""
    end_of_run = task.time_limit(cond) + 1.0
    rows = []
    for ev in cond.script:
        if ev.kind == "on" and ev.target == "ENABLE_SW":
            rows.append(scripts.event(CH_ENABLE, ev.t, ev.t + ev.duration if ev.duration
                                      else end_of_run))
        elif ev.kind in ("press", "hold") and ev.target in decl.PANEL_BUTTONS:
            rows.append(scripts.press(CHANNELS[ev.target], ev.t, ev.duration or scripts.PRESS_S))
        else:
            raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind} {ev.target}")
    return rows


def _last_event_tick(task: TaskSpec, cond) -> int:
    """Tick of the last scripted change (a press ending, ENABLE_SW switched on or off)."""
    last = 0
    for ev in cond.script:
        if ev.kind == "on":
            last = max(last, ticks(ev.t + ev.duration))
        else:
            last = max(last, ticks(ev.t + (ev.duration or scripts.PRESS_S)))
    return last


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    events = [_event_rows(task, cond) for cond in task.conditions]
    judge_state = np.zeros(n, JUDGE_DTYPE)
    judge_state["still_tick"] = -1
    judge_state["reach_ticks"] = ticks(float(task.judge.get("reach_s", decl.REACH_S)))
    judge_state["still_ticks"] = ticks(float(task.judge.get("standstill_s", decl.STANDSTILL_S)))
    judge_state["min_press_ticks"] = ticks(decl.MIN_JUDGED_PRESS_S)
    judge_state["enable_settle_ticks"] = ticks(decl.ENABLE_SETTLE_S)
    judge_state["inside_mm"] = decl.VALID_INSIDE_MM
    judge_state["band_lo"], judge_state["band_hi"] = decl.BAND_MM
    for c, cond in enumerate(task.conditions):
        judge_state[c]["settle_tick"] = _last_event_tick(task, cond)
        judge_state[c]["last_tick"] = ticks(task.time_limit(cond)) - 1
    params = [c.params for c in task.conditions]
    apa = servo.make_params(n, 1, **AXIS, x0=[p["x0_mm"] for p in params],
                            offset0=[p["offset_mm"] for p in params])
    script = scripts.build_scripts(events, spare_rows=0)
    return apa, servo.make_state(apa), servo.make_outputs(n), script, judge_state


@njit(cache=True)
def _b(flag):
    return 1.0 if flag else 0.0


@njit(cache=True)
def sense(plant, c, k, inp):
    """Table A inputs of the drive and the panel."""
    pa, st, ev = plant[0][c, 0], plant[1][c, 0], plant[3][c]
    inp[I_POWERED] = _b(st.powered)
    inp[I_HOMED] = _b(st.homed)
    inp[I_BUSY] = _b(st.busy)
    inp[I_DONE] = _b(st.done)
    inp[I_ERROR] = _b(st.error)
    inp[I_STANDSTILL] = _b(servo.sense_standstill(st))
    inp[I_IN_VEL] = _b(st.in_vel)
    inp[I_ABORTED] = _b(st.aborted)
    inp[I_LIM_NEG] = _b(servo.sense_lim_neg(st, pa))
    inp[I_LIM_POS] = _b(servo.sense_lim_pos(st, pa))
    inp[I_REF_SW] = _b(servo.sense_ref_sw(st, pa))
    inp[I_CSP_ACTIVE] = _b(st.csp_active)
    inp[I_GEARED] = _b(st.geared)
    inp[I_ACT_POS] = float(servo.sense_act_pos(st, pa))
    inp[I_ACT_VEL] = float(servo.sense_act_vel(st))
    inp[I_ERROR_ID] = float(st.error_id)
    inp[I_ENABLE_SW] = _b(sense_no(ev, CH_ENABLE, k))
    inp[I_JOG_P] = _b(sense_no(ev, CH_JOG_P, k))
    inp[I_JOG_N] = _b(sense_no(ev, CH_JOG_N, k))
    inp[I_HOME_PB] = _b(sense_no(ev, CH_HOME, k))
    inp[I_RESET_PB] = _b(sense_no(ev, CH_RESET, k))


@njit(cache=True)
def advance(plant, c, k, out):
    """Latch the Table A outputs into the drive's block and step the drive 10 ms."""
    blk = plant[2][c, 0]
    blk.enable = out[O_ENABLE] != 0.0
    blk.home = out[O_HOME] != 0.0
    blk.move_abs = out[O_MOVE_ABS] != 0.0
    blk.move_rel = out[O_MOVE_REL] != 0.0
    blk.move_vel = out[O_MOVE_VEL] != 0.0
    blk.halt = out[O_HALT] != 0.0
    blk.stop = out[O_STOP] != 0.0
    blk.reset = out[O_RESET] != 0.0
    blk.gear_in = out[O_GEAR_IN] != 0.0
    blk.csp_on = out[O_CSP_ON] != 0.0
    blk.target = np.int32(out[O_TARGET])
    blk.velocity = np.int16(out[O_VELOCITY])
    blk.accel = np.int16(out[O_ACCEL])
    blk.gear_num = np.int16(out[O_GEAR_NUM])
    blk.gear_den = np.int16(out[O_GEAR_DEN])
    servo.tick(plant[1][c, 0], plant[0][c, 0], blk, 0.0, 0.0, k)


@njit(cache=True)
def _track_homing(js, st):
    """Homing window: from the accepted HOME edge until HOMED, or until standstill when the
    run was interrupted."""
    if st.cmd == servo.C_HOME:
        js.homing = 1
    elif js.homing and (st.homed or servo.sense_standstill(st)):
        js.homing = 0


@njit(cache=True)
def _violation(js, pa, st, inp, out):
    """S-LIMDIR (id 2) over S-JOGVEL (id 1); 0 when no rule is broken in this tick."""
    violation = 0
    if js.homing:
        return violation
    if not st.homed and abs(servo.sense_act_vel(st)) > UNHOMED_ACT_VEL_LIMIT:
        violation = V_JOGVEL
    toward = ((st.v > MOTION_MM_S and servo.sense_lim_pos(st, pa))
              or (st.v < -MOTION_MM_S and servo.sense_lim_neg(st, pa)))
    vel_edge = out[O_MOVE_VEL] != 0.0 and not js.prev_move_vel
    if vel_edge:
        vel = out[O_VELOCITY]
        toward = toward or (vel > 0.0 and inp[I_LIM_POS] != 0.0) or (vel < 0.0
                                                                     and inp[I_LIM_NEG] != 0.0)
    if toward:
        violation = V_LIMDIR
    return violation


@njit(cache=True)
def _press_is_valid(js, inp, direction):
    """Validity of a press on the input image of the cycle it is first seen (completion)."""
    if inp[I_STANDSTILL] == 0.0 or inp[I_ERROR] != 0.0 or js.homing:
        return False
    if js.enable_ticks < js.enable_settle_ticks:
        return False
    if (direction > 0 and inp[I_LIM_POS] != 0.0) or (direction < 0 and inp[I_LIM_NEG] != 0.0):
        return False
    if inp[I_HOMED] != 0.0:
        pos = inp[I_ACT_POS] / 100.0
        room = js.band_hi - pos if direction > 0 else pos - js.band_lo
        return room > js.inside_mm
    return True


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    pa, st, js = plant[0][c, 0], plant[1][c, 0], plant[4][c]
    _track_homing(js, st)
    violation = _violation(js, pa, st, inp, out)
    js.prev_move_vel = 1 if out[O_MOVE_VEL] != 0.0 else 0
    js.enable_ticks = js.enable_ticks + 1 if inp[I_ENABLE_SW] != 0.0 else 0
    if st.error and st.error_id == servo.E_SOFTLIM:
        return violation, -1, R_ERROR1, 0.0
    if st.homed and not js.band_lo - EPS <= servo.act_pos_u(st, pa) <= js.band_hi + EPS:
        return violation, -1, R_BAND, 0.0
    jp, jn = inp[I_JOG_P] != 0.0, inp[I_JOG_N] != 0.0
    code = BOTH if jp and jn else (1 if jp else (-1 if jn else 0))
    if code != js.jog_code:  # a press ended, both buttons became held, or a press started
        if js.jog_code == 1 or js.jog_code == -1:
            if js.valid and not js.reached and k - js.press_tick >= js.min_press_ticks:
                return violation, -1, R_NOT_REACHED, js.press_tick / 100.0
        js.jog_code = code
        js.valid = 0
        if code == 1 or code == -1:
            js.still_tick = -1
            js.press_tick = k
            js.valid = 1 if _press_is_valid(js, inp, code) else 0
            js.reached = 0
            speed = JOG_FAST_MM_S if inp[I_HOMED] != 0.0 else JOG_SLOW_MM_S
            js.v_target = code * speed
        else:
            js.still_tick = k + js.still_ticks
            js.changed_tick = k
    if js.valid and not js.reached:
        v = servo.sense_act_vel(st) / 10.0
        if abs(v - js.v_target) <= 0.02 * abs(js.v_target):
            js.reached = 1
        elif k + 1 >= js.press_tick + js.reach_ticks:
            return violation, -1, R_NOT_REACHED, js.press_tick / 100.0
    if js.homing:
        js.still_tick = -1
    if js.still_tick >= 0 and k + 1 >= js.still_tick:
        if not servo.sense_standstill(st):
            return violation, -1, R_NOT_STILL, js.changed_tick / 100.0
        js.still_tick = -1
    pending = js.still_tick >= 0 or (js.valid and not js.reached)
    end_state = st.homed and servo.sense_standstill(st) and out[O_LAMP_HOMED] != 0.0
    if end_state and not pending and k >= js.settle_tick:
        return violation, 1, 0, 0.0
    if k >= js.last_tick:
        return violation, -1, R_END, 0.0
    return violation, 0, 0, 0.0
