"""MOT-E10 plant binding: START/STOP panel, one D07 servo feed axis, the press, and the judge.

Batch state (``build``): drive parameters, drive state and its latched Table A output block
``(n, 1)``, the panel script ``(n, events)``, the press (its parameters, stroke times in ticks
``(n, MAX_STROKES)`` cycled stroke by stroke, and its state) and one judge record per
condition. The press is task-specific (no library device strokes on a FEED_DONE handshake):
it arms on a FEED_DONE edge at standstill, strokes after its delay if the handshake still
holds, and records the strip position at mid-stroke. The judge counts those punches, checks
their spacing and the lamp, and raises S-TOOLMOVE (strip tear) and S-STOPAXIS (MOVE edge
while paused).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import safety, scripts, servo
from plants.devices.panel import sense_nc, sense_no
from plants.devices.protocol import DT, ticks
from plants.tasks.mot_e10 import TASK
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
I_START = _IN["START"]
I_STOP_NC = _IN["STOP_NC"]
I_PRESS_TOP = _IN["PRESS_TOP"]
I_FEED_LEN = _IN["FEED_LEN"]
I_BATCH = _IN["BATCH"]
DRIVE_FIELDS = ("enable", "home", "move_abs", "move_rel", "move_vel", "halt", "stop", "reset",
                "gear_in", "csp_on", "target", "velocity", "accel", "gear_num", "gear_den")
if tuple(s.name.lower() for s in TASK.outputs[:15]) != DRIVE_FIELDS:
    raise ImportError("MOT-E10: the output image must start with the Table A block")
O_ENABLE, O_HOME, O_MOVE_ABS, O_MOVE_REL, O_MOVE_VEL, O_HALT, O_STOP, O_RESET = range(8)
O_GEAR_IN, O_CSP_ON, O_TARGET, O_VELOCITY, O_ACCEL, O_GEAR_NUM, O_GEAR_DEN = range(8, 15)
O_FEED_DONE = _OUT["FEED_DONE"]
O_LAMP_BATCH = _OUT["LAMP_BATCH"]

CH_START, CH_STOP = 0, 1
_CHANNELS = {"START": CH_START, "STOP_NC": CH_STOP}
FAR = 1.0e9
"""An endless feed: soft limits, switches and end stops out of reach, the cam never met."""
AXIS = dict(vmax=800.0, amax=8000.0, a_def=2000.0, powerup=10, sl_lo=-FAR, sl_hi=FAR,
            lim_neg=-FAR, lim_pos=FAR, stop_neg=-FAR, stop_pos=FAR, ref_lo=FAR, ref_hi=FAR,
            home_pos=0.0, x0=0.0, offset0=0.0)
MAX_STROKES = 8
STANDSTILL_STEP_MM = 0.005
"""The press sees the strip at rest when it also moved less than this in the last cycle."""

VIOLATIONS = ("S-TOOLMOVE", "S-STOPAXIS")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""
V_TEAR, V_PAUSE = 1, 2

REASONS = (
    "a punch was made {arg:.2f} mm after the previous one (FEED_LEN ± 0.05 mm required)",
    "more punches than BATCH were made ({arg:.0f})",
    "LAMP_BATCH is TRUE before the last stroke of the batch started ({arg:.0f} strokes)",
    "only {arg:.0f} punches were made within the time limit",
    "LAMP_BATCH is FALSE at the end although the batch was punched",
)
"""Failure reason id i + 1 -> text."""
R_DISTANCE, R_EXTRA, R_LAMP_EARLY, R_TOO_FEW, R_LAMP_OFF = 1, 2, 3, 4, 5

P_TOP, P_ARMED, P_STROKE = 0, 1, 2
PRESS_DTYPE = np.dtype([
    ("delay", np.int64), ("n_strokes", np.int64),  # start delay (ticks), stroke list length
    ("phase", np.int32), ("count", np.int64),  # P_*, ticks left in the phase
    ("half", np.int64),  # count value at mid-stroke
    ("prev_fd", np.uint8),  # FEED_DONE of the previous output image (edge)
    ("started", np.int64), ("punches", np.int64),  # strokes started, punches made
    ("punch_x", np.float64), ("prev_punch_x", np.float64),  # ACT_POS (mm) of the last two
])

JUDGE_DTYPE = np.dtype([
    ("feed_len", np.float64), ("batch", np.int64),  # recipe (mm, punches)
    ("tolerance", np.float64), ("tear_speed", np.float64),  # mm, mm/s
    ("seen", np.int64),  # punches already judged
    ("complete_tick", np.int64),  # tick of the BATCH-th punch, -1 before
    ("settle", np.int64), ("settle_tick", np.int64), ("last_tick", np.int64),
    ("prev_start", np.uint8),  # START of the previous input image
    ("prev_moves", np.uint8),  # HOME | MOVE_ABS | MOVE_REL | MOVE_VEL bits of the last image
])
_PAUSE_DTYPE = safety.STOPAXIS_DTYPE


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    events = []
    press = np.zeros(n, PRESS_DTYPE)
    strokes = np.zeros((n, MAX_STROKES), np.int64)
    judge_state = np.zeros(n, JUDGE_DTYPE)
    pause = np.zeros(n, _PAUSE_DTYPE)
    pause["since_stop"] = -1
    for c, cond in enumerate(task.conditions):
        evs = []
        for ev in cond.script:
            if ev.kind != "press" or ev.target not in _CHANNELS:
                raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind} {ev.target}")
            evs.append(scripts.press(_CHANNELS[ev.target], ev.t, ev.duration or scripts.PRESS_S))
        events.append(evs)
        p = cond.params
        times = p["strokes_s"]
        if not 1 <= len(times) <= MAX_STROKES:
            raise ValueError(f"{task.id} {cond.name}: 1-{MAX_STROKES} stroke times")
        strokes[c, :len(times)] = [ticks(t) for t in times]
        press[c]["delay"] = ticks(p["press_delay_s"])
        press[c]["n_strokes"] = len(times)
        js = judge_state[c]
        js["feed_len"] = p["feed_len"] / 100.0
        js["batch"] = p["batch"]
        js["tolerance"] = float(task.judge.get("tolerance_mm", 0.05))
        js["tear_speed"] = float(task.judge.get("tear_speed_mm_s", 0.5))
        js["complete_tick"] = -1
        js["settle"] = ticks(float(task.judge.get("settle_s", 3.0)))
        js["settle_tick"] = max(ticks(ev.t + (ev.duration or scripts.PRESS_S))
                                for ev in cond.script)
        js["last_tick"] = ticks(task.time_limit(cond)) - 1
    apa = servo.make_params(n, 1, **AXIS)
    script = scripts.build_scripts(events, spare_rows=0)
    recipe = np.array([[c.params["feed_len"], c.params["batch"]] for c in task.conditions],
                      np.int64)
    return (apa, servo.make_state(apa), servo.make_outputs(n), script, recipe, press, strokes,
            judge_state, pause)


@njit(cache=True)
def _b(flag):
    return 1.0 if flag else 0.0


@njit(cache=True)
def sense(plant, c, k, inp):
    """Table A inputs of the drive, the panel, PRESS_TOP and the recipe words."""
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
    events = plant[3][c]
    inp[I_START] = _b(sense_no(events, CH_START, k))
    inp[I_STOP_NC] = _b(sense_nc(events, CH_STOP, k))
    inp[I_PRESS_TOP] = _b(plant[5][c].phase != P_STROKE)
    inp[I_FEED_LEN] = float(plant[4][c, 0])
    inp[I_BATCH] = float(plant[4][c, 1])


@njit(cache=True)
def strip_at_rest(st):
    """The press's standstill test: STANDSTILL and (almost) no motion in the last cycle."""
    return servo.sense_standstill(st) and abs(st.x - st.x_prev) < STANDSTILL_STEP_MM


@njit(cache=True)
def press_tick(pr, strokes, feed_done, at_rest, x):
    """One 10 ms step of the press on the latched FEED_DONE and the feed axis after its step."""
    rising = feed_done and pr.prev_fd == 0
    pr.prev_fd = 1 if feed_done else 0
    if pr.phase == P_TOP:
        if rising and at_rest:
            pr.phase = P_ARMED
            pr.count = pr.delay
    elif pr.phase == P_ARMED:
        pr.count -= 1
        if pr.count <= 0:
            if feed_done and at_rest:
                length = strokes[pr.started % pr.n_strokes]
                pr.phase = P_STROKE
                pr.count = length
                pr.half = length - length // 2
                pr.started += 1
            else:
                pr.phase = P_TOP
    else:
        pr.count -= 1
        if pr.count == pr.half:
            pr.prev_punch_x = pr.punch_x
            pr.punch_x = x
            pr.punches += 1
        if pr.count <= 0:
            pr.phase = P_TOP


@njit(cache=True)
def advance(plant, c, k, out):
    """Latch the Table A outputs into the drive's block, step the drive, then the press."""
    blk, st, pa = plant[2][c, 0], plant[1][c, 0], plant[0][c, 0]
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
    servo.tick(st, pa, blk, 0.0, 0.0, k)
    press_tick(plant[5][c], plant[6][c], out[O_FEED_DONE] != 0.0, strip_at_rest(st),
               servo.act_pos_u(st, pa))


@njit(cache=True)
def _move_bits(out):
    """The motion command outputs of the S-STOPAXIS rule as bits."""
    bits = 0
    if out[O_HOME] != 0.0:
        bits |= 1
    if out[O_MOVE_ABS] != 0.0:
        bits |= 2
    if out[O_MOVE_REL] != 0.0:
        bits |= 4
    if out[O_MOVE_VEL] != 0.0:
        bits |= 8
    return bits


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    st, pr, js, pause = plant[1][c, 0], plant[5][c], plant[7][c], plant[8][c]
    violation = 0
    start = inp[I_START] != 0.0
    moves = _move_bits(out)
    move_edge = (moves & ~np.int64(js.prev_moves)) != 0
    start_edge = start and js.prev_start == 0
    js.prev_start = 1 if start else 0
    js.prev_moves = moves
    if safety.s_stopaxis(pause, inp[I_STOP_NC] == 0.0, start_edge, move_edge, 0.0, 0):
        violation = V_PAUSE
    if safety.s_toolmove((st.x - st.x_prev) / DT, pr.phase != P_STROKE, js.tear_speed):
        violation = V_TEAR
    if pr.punches > js.seen:  # at most one punch per tick
        js.seen = pr.punches
        if js.seen > js.batch:
            return violation, -1, R_EXTRA, float(js.seen)
        distance = pr.punch_x - pr.prev_punch_x
        if js.seen >= 2 and abs(distance - js.feed_len) > js.tolerance + 1e-9:
            return violation, -1, R_DISTANCE, distance
        if js.seen == js.batch:
            js.complete_tick = k
    lamp = out[O_LAMP_BATCH] != 0.0
    if lamp and pr.started < js.batch:
        return violation, -1, R_LAMP_EARLY, float(pr.started)
    settled = js.complete_tick >= 0 and k - js.complete_tick >= js.settle
    if settled and lamp and k + 1 >= js.settle_tick:
        return violation, 1, 0, 0.0
    if k >= js.last_tick:
        if js.seen < js.batch:
            return violation, -1, R_TOO_FEW, float(js.seen)
        return violation, -1, R_LAMP_OFF, 0.0
    return violation, 0, 0, 0.0
