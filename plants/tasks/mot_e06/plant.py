"""MOT-E06 plant binding: START button + one D07 servo axis, and the judge.

Batch state (``build``): drive parameters, drive state and its latched Table A output block
``(n, 1)``, the panel script ``(n, events)``, the recipe ``(n, 4)`` (P1..P3 in 0.01 mm, V in
mm/s) and one judge record per condition. The judge follows the completion rule on the drive
state after each step: holds at P1, P2, P3 in order (HOMED, STANDSTILL, within the window for
the hold time), LAMP_READY only when the program's input image shows the axis at rest at P3
after P1 and P2, no ERROR; and the two safety rules S-HWLIM and S-VMAX.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import safety, scripts, servo
from plants.devices.panel import sense_no
from plants.devices.protocol import ticks
from plants.tasks.mot_e06 import TASK
from plants.tasks.spec import TaskSpec

_IN = {s.name: i for i, s in enumerate(TASK.inputs)}
_OUT = {s.name: i for i, s in enumerate(TASK.outputs)}
# Input image indices (task map order).
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
I_START = _IN["START"]
I_P1 = _IN["P1_MM"]  # P2_MM, P3_MM and V_MM_S follow in this order
if [_IN[n] - I_P1 for n in ("P2_MM", "P3_MM", "V_MM_S")] != [1, 2, 3]:
    raise ImportError("MOT-E06: the recipe words must follow P1_MM in the I/O map")
# Output image indices: the Table A block in DRIVE_FIELDS order, then the lamps.
DRIVE_FIELDS = ("enable", "home", "move_abs", "move_rel", "move_vel", "halt", "stop", "reset",
                "gear_in", "csp_on", "target", "velocity", "accel", "gear_num", "gear_den")
if tuple(s.name.lower() for s in TASK.outputs[:15]) != DRIVE_FIELDS:
    raise ImportError("MOT-E06: the output image must start with the Table A block")
O_ENABLE, O_HOME, O_MOVE_ABS, O_MOVE_REL, O_MOVE_VEL, O_HALT, O_STOP, O_RESET = range(8)
O_GEAR_IN, O_CSP_ON, O_TARGET, O_VELOCITY, O_ACCEL, O_GEAR_NUM, O_GEAR_DEN = range(8, 15)
O_LAMP_READY = _OUT["LAMP_READY"]
O_LAMP_ERR = _OUT["LAMP_ERR"]

CH_START = 0
AXIS = dict(vmax=500.0, amax=3000.0, a_def=1000.0, home_fast=100.0, home_slow=5.0,
            home_dir=-1.0, ref_lo=-10.0, ref_hi=20.0, home_pos=20.0, sl_lo=0.0, sl_hi=800.0)
"""The catalog's axis; switches (-5 / 805) and end stops (-15 / 815) are the D07 defaults."""

VIOLATIONS = ("S-HWLIM", "S-VMAX")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "the axis reported ERROR (ERROR_ID {arg:.0f})",
    "LAMP_READY is TRUE before P{arg:.0f} was reached and held",
    "P{arg:.0f} was not reached and held (HOMED, STANDSTILL, within 0.05 mm for 0.45 s) "
    "in order within the time limit",
    "LAMP_READY is FALSE at the end although P1, P2 and P3 were held",
    "LAMP_READY is TRUE in a cycle whose input image does not show the axis HOMED, at "
    "STANDSTILL and within 0.05 mm of P3",
)
"""Failure reason id i + 1 -> text."""
R_ERROR, R_LAMP_EARLY, R_NOT_HELD, R_LAMP_OFF, R_LAMP_NOT_AT_P3 = 1, 2, 3, 4, 5

JUDGE_DTYPE = np.dtype([
    ("reached", np.int64),  # recipe positions held so far, in order (0..3)
    ("hold", np.int64),  # consecutive ticks at rest inside the window of the next position
    ("hold_ticks", np.int64), ("window", np.int64),  # 0.45 s in ticks, 0.05 mm in 0.01 mm
    ("v_limit", np.float64),  # S-VMAX, mm/s
    ("settle_tick", np.int64),  # success no earlier than the end of the last scripted press
    ("last_tick", np.int64),
])


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    hold_ticks = ticks(float(task.judge.get("hold_s", 0.45)))
    window = int(round(float(task.judge.get("window_mm", 0.05)) * 100.0))
    events, recipe = [], np.zeros((n, 4), np.int64)
    judge_state = np.zeros(n, JUDGE_DTYPE)
    for c, cond in enumerate(task.conditions):
        evs = []
        for ev in cond.script:
            if ev.kind != "press" or ev.target != "START":
                raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind} {ev.target}")
            evs.append(scripts.press(CH_START, ev.t, ev.duration or scripts.PRESS_S))
        events.append(evs)
        p = cond.params
        recipe[c] = (p["p1_mm"] * 100, p["p2_mm"] * 100, p["p3_mm"] * 100, p["v_mm_s"])
        js = judge_state[c]
        js["hold_ticks"], js["window"] = hold_ticks, window
        js["v_limit"] = float(task.judge.get("v_limit_mm_s", 450.0))
        js["settle_tick"] = max(ticks(ev.t + (ev.duration or scripts.PRESS_S))
                                for ev in cond.script)
        js["last_tick"] = ticks(task.time_limit(cond)) - 1
    params = [c.params for c in task.conditions]
    apa = servo.make_params(
        n, 1, **AXIS,
        x0=[p["x0_mm"] for p in params], offset0=[p["offset_mm"] for p in params],
        powerup=[ticks(p["powerup_s"]) for p in params],
    )
    script = scripts.build_scripts(events, spare_rows=0)
    return apa, servo.make_state(apa), servo.make_outputs(n), script, recipe, judge_state


@njit(cache=True)
def _b(flag):
    return 1.0 if flag else 0.0


@njit(cache=True)
def sense(plant, c, k, inp):
    """Table A inputs of the drive, the START button and the recipe words."""
    pa, st = plant[0][c, 0], plant[1][c, 0]
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
    inp[I_START] = _b(sense_no(plant[3][c], CH_START, k))
    recipe = plant[4][c]
    inp[I_P1] = recipe[0] / 100.0
    inp[I_P1 + 1] = recipe[1] / 100.0
    inp[I_P1 + 2] = recipe[2] / 100.0
    inp[I_P1 + 3] = float(recipe[3])


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
def _at_rest_on(pa, st, target, window):
    """HOMED, at standstill and within the window (0.01 mm) of a recipe position."""
    on_target = abs(servo.sense_act_pos(st, pa) - target) <= window
    return st.homed != 0 and servo.sense_standstill(st) and on_target


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    pa, st, recipe, js = plant[0][c, 0], plant[1][c, 0], plant[4][c], plant[5][c]
    violation = 0
    if safety.s_vmax(st.x_prev, st.x, js.v_limit):
        violation = 2
    if safety.s_hwlim_axis(st, pa):
        violation = 1
    if st.error:
        return violation, -1, R_ERROR, float(st.error_id)
    lamp = out[O_LAMP_READY] != 0.0
    if lamp:  # judged on the program's own input image of this cycle
        seen = (inp[I_HOMED] != 0.0 and inp[I_STANDSTILL] != 0.0
                and abs(inp[I_ACT_POS] - recipe[2]) <= js.window)
        if js.reached < 2:
            return violation, -1, R_LAMP_EARLY, float(js.reached + 1)
        if not seen:
            return violation, -1, R_LAMP_NOT_AT_P3, 0.0
    if js.reached < 3:
        if _at_rest_on(pa, st, recipe[js.reached], js.window):
            js.hold += 1
            if js.hold >= js.hold_ticks:
                js.reached += 1
                js.hold = 0
        else:
            js.hold = 0
    if js.reached == 3 and lamp and k + 1 >= js.settle_tick:
        return violation, 1, 0, 0.0
    if k >= js.last_tick:
        if js.reached < 3:
            return violation, -1, R_NOT_HELD, float(js.reached + 1)
        return violation, -1, R_LAMP_OFF, 0.0
    return violation, 0, 0, 0.0
