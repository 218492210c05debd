"""MOT-H05 plant binding: D09 amplifier + linear axis, the strobing operator, and the judge.

Batch state (``build``): amplifier parameters and state ``(n, 1)``, the operator script
``(n, events)`` (START fixed, TARGET/NEW_TARGET rows armed at run time, A39), the target list
``(n, MAX_TARGETS)``, one operator record and one judge record per condition.

The operator reacts to IN_POS in ``advance`` (he sees the latched output image). The judge
follows the strobes on the input image the program saw and judges every target on the true
position: entry into the window by both deadlines, staying inside (with the 1.0 s exemption
after a disturbance step), the overshoot bound, and success 1.0 s after the last target has
entered. Disturbance steps that fall into a move or its settling extend the bounds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import amplifier, safety, scripts
from plants.devices.panel import sense_no
from plants.devices.protocol import DT, EPS, NEVER, ticks
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_START, I_NEW_TARGET, I_REF, I_LIM_NEG, I_LIM_POS, I_READY, I_ENC, I_TARGET = range(8)
O_AMP_ENABLE, O_VEL_CMD, O_IN_POS = range(3)
# Script channels.
CH_START, CH_STROBE, CH_TARGET = range(3)

MAX_TARGETS = 8
V_LIMIT = 380.0  # mm/s, overspeed
V_PROFILE = 300.0  # mm/s, the move speed of the strobe deadline |D|/300 + 1.5 s
STROBE_TICKS = 10  # the strobe is TRUE for 0.1 s
TARGET_LEAD_TICKS = 10  # TARGET is set 0.1 s before the strobe
FIRST_DELAY_TICKS = 50  # first strobe 0.5 s after IN_POS first reads TRUE
NEXT_DELAY_TICKS = 100  # further strobes 1.0 s after IN_POS turns TRUE
WAIT_TICKS = 1000  # the operator waits up to 10 s for IN_POS
HOLD_LAST_TICKS = 100  # the last target is held 1.0 s
STEP_EXEMPT_TICKS = 100  # 1.0 s exemption after a disturbance step
STEP_EXTENSION_S = 1.0
STEP_BAND_MM = 0.6
OVERSHOOT_MM = 0.2
NEAR_MM = 1.0

VIOLATIONS = ("S-HWLIM", "S-CRASH", "S-VMAX")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "the target {arg:g} mm had not entered the window (or had left it) when the next strobe came",
    "the target {arg:g} mm was not inside the window by its entry deadline",
    "the position left the window of the held target {arg:g} mm",
    "overshoot of {arg:.3f} mm past the target in the direction of the move",
    "the operator waited 10 s for IN_POS after the strobe of the target {arg:g} mm",
)
"""Failure reason id i + 1 -> text."""

OPERATOR_DTYPE = np.dtype([
    ("n_targets", np.int64), ("n_armed", np.int64), ("last_strobe", np.int64),
    ("prev_in_pos", np.uint8), ("start_tick", np.int64),
])

JUDGE_DTYPE = np.dtype([
    ("n_seen", np.int64), ("prev_strobe", np.uint8), ("t0", np.int64), ("target", np.float64),
    ("prev_target", np.float64), ("direction", np.float64), ("move", np.float64),
    ("near_tick", np.int64), ("extended", np.uint8), ("settled", np.uint8), ("settle_tick", np.int64),
    ("exempt_until", np.int64), ("window", np.float64), ("settle_s", np.float64),
    ("deadline_base_s", np.float64), ("overshoot", np.float64),
])


def _amplifier_params(task: TaskSpec) -> np.ndarray:
    """Amplifier rows from the conditions' parameters (disturbance steps per row)."""
    conds = task.conditions
    pa = amplifier.make_params(
        len(conds), 1,
        x0=[c.params["x0_mm"] for c in conds],
        enc_offset=[c.params["enc_offset_counts"] for c in conds],
        tau_v=[c.params["tau_v_ms"] / 1000.0 for c in conds],
        db=[c.params["dead_band_pct"] / 100.0 for c in conds],
        gain_err=[c.params["gain_error_pct"] / 100.0 for c in conds],
        dist_period=[ticks(c.params["disturbance_period_s"]) for c in conds],
    )
    for row, cond in enumerate(conds):
        steps = cond.params["disturbance"]
        if len(steps) > amplifier.N_DIST:
            raise ValueError(f"{task.id} {cond.name}: at most {amplifier.N_DIST} disturbance steps")
        for j, (t_s, vel) in enumerate(steps):
            pa["dist_t"][row, 0, j] = ticks(t_s)
            pa["dist_v"][row, 0, j] = vel
    return pa


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    pa = _amplifier_params(task)
    events, targets = [], np.zeros((n, MAX_TARGETS))
    operator = np.zeros(n, OPERATOR_DTYPE)
    judge_state = np.zeros(n, JUDGE_DTYPE)
    for c, cond in enumerate(task.conditions):
        evs = []
        for ev in cond.script:
            if ev.kind != "press" or ev.target != "START":
                raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind} {ev.target}")
            evs.append(scripts.press(CH_START, ev.t, ev.duration or scripts.PRESS_S))
            operator[c]["start_tick"] = ticks(ev.t)
        events.append(evs)
        tg = cond.params["targets_mm"]
        if not 0 < len(tg) <= MAX_TARGETS:
            raise ValueError(f"{task.id} {cond.name}: 1-{MAX_TARGETS} targets")
        targets[c, : len(tg)] = tg
        operator[c]["n_targets"] = len(tg)
    operator["last_strobe"] = -1
    judge_state["prev_target"] = 20.0
    judge_state["window"] = float(task.judge.get("window_mm", 0.08))
    judge_state["settle_s"] = float(task.judge.get("settle_after_1mm_s", 0.8))
    judge_state["deadline_base_s"] = float(task.judge.get("deadline_base_s", 1.5))
    judge_state["overshoot"] = float(task.judge.get("overshoot_mm", OVERSHOOT_MM))
    script = scripts.build_scripts(events, spare_rows=2 * MAX_TARGETS)
    return pa, amplifier.make_state(pa), script, targets, operator, judge_state


@njit(cache=True)
def sense(plant, c, k, inp):
    """Operator signals from the script, the rest from the amplifier and the axis."""
    pa, st, script = plant[0][c, 0], plant[1][c, 0], plant[2][c]
    inp[I_START] = 1.0 if sense_no(script, CH_START, k) else 0.0
    inp[I_NEW_TARGET] = 1.0 if scripts.active(script, CH_STROBE, k) else 0.0
    inp[I_REF] = 1.0 if amplifier.sense_ref(st, pa) else 0.0
    inp[I_LIM_NEG] = 1.0 if amplifier.sense_lim_neg(st, pa) else 0.0
    inp[I_LIM_POS] = 1.0 if amplifier.sense_lim_pos(st, pa) else 0.0
    inp[I_READY] = 1.0 if amplifier.sense_ready(st, pa) else 0.0
    inp[I_ENC] = float(amplifier.sense_enc(st, pa))
    inp[I_TARGET] = scripts.value(script, CH_TARGET, k, 0.0)


@njit(cache=True)
def _operate(op, script, targets, in_pos, k):
    """The operator: schedule the next strobe (and TARGET 0.1 s before it) on IN_POS."""
    if op.n_armed < op.n_targets:
        if op.n_armed == 0:
            trigger = in_pos and k >= op.start_tick
            delay = FIRST_DELAY_TICKS
        else:
            trigger = in_pos and not op.prev_in_pos and k > op.last_strobe
            delay = NEXT_DELAY_TICKS
        if trigger:
            strobe = k + delay
            value = np.floor(targets[op.n_armed] * 10.0 + 0.5)
            scripts.arm_event(script, CH_TARGET, strobe - TARGET_LEAD_TICKS, NEVER, value)
            scripts.arm_event(script, CH_STROBE, strobe, strobe + STROBE_TICKS, 1.0)
            op.n_armed += 1
            op.last_strobe = strobe
    op.prev_in_pos = 1 if in_pos else 0


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step of the amplifier with the latched outputs; the operator reacts."""
    amplifier.tick(plant[1][c, 0], plant[0][c, 0], out[O_AMP_ENABLE] != 0.0, int(out[O_VEL_CMD]), k)
    _operate(plant[4][c], plant[2][c], plant[3][c], out[O_IN_POS] != 0.0, k)


@njit(cache=True)
def _new_target(js, target, k):
    """A strobe seen on the input image: start judging the next target."""
    js.prev_target = js.target if js.n_seen > 0 else 20.0
    js.n_seen += 1
    js.t0 = k
    js.target = target
    js.move = abs(target - js.prev_target)
    js.direction = 1.0 if target >= js.prev_target else -1.0
    js.near_tick = -1
    js.extended = 1 if k < js.exempt_until else 0  # a step in the last 1.0 s is not yet absorbed
    js.settled = 0


@njit(cache=True)
def _deadline(js):
    """Latest entry time (s) of the current target, from what is known so far."""
    ext = STEP_EXTENSION_S if js.extended else 0.0
    t = js.t0 * DT + js.move / V_PROFILE + js.deadline_base_s
    if js.near_tick >= 0:
        t = min(t, (js.near_tick + 1) * DT + js.settle_s)
    return t + ext


@njit(cache=True)
def _track_steps(js, pa, k):
    """A disturbance step acting on this plant step: 1.0 s of exemption, and the bounds of a
    target that has not yet entered its window are extended."""
    if k >= 1 and amplifier.disturbance(pa, k) != amplifier.disturbance(pa, k - 1):
        js.exempt_until = k + STEP_EXEMPT_TICKS
        if not js.settled:
            js.extended = 1


@njit(cache=True)
def _judge_target(js, x, k):
    """(reason, arg) of the current target after the sample x at time (k + 1)·dt; 0 = fine."""
    err = x - js.target
    if js.near_tick < 0 and abs(err) <= NEAR_MM + EPS:
        js.near_tick = k
    exempt = k < js.exempt_until
    inside = abs(err) <= js.window + EPS
    acceptable = inside or (exempt and abs(err) <= STEP_BAND_MM + EPS)
    bound = STEP_BAND_MM if (js.extended or exempt) else js.overshoot
    if js.direction * err > bound + EPS:
        return 4, js.direction * err
    was_settled = js.settled
    if not acceptable:
        js.settled = 0
    elif inside and not js.settled:
        js.settled = 1
        js.settle_tick = k
    deadline = _deadline(js)
    if (k + 1) * DT > deadline + EPS:
        if was_settled and not js.settled:
            return 3, js.target
        if not js.settled or (js.settle_tick + 1) * DT > deadline + EPS:
            return 2, js.target
    return 0, 0.0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    pa, st, op, js = plant[0][c, 0], plant[1][c, 0], plant[4][c], plant[5][c]
    violation = 0
    if safety.s_vmax(st.x_prev, st.x, V_LIMIT):
        violation = 3
    if safety.s_end_stop(st.x, pa.stop_neg, pa.stop_pos):
        violation = 2
    elif safety.s_switch_zone(st.x, pa.lim_neg, pa.lim_pos):
        violation = 1
    _track_steps(js, pa, k)
    strobe = inp[I_NEW_TARGET] != 0.0
    if strobe and not js.prev_strobe:
        if js.n_seen > 0 and not js.settled:
            js.prev_strobe = 1
            return violation, -1, 1, js.target
        _new_target(js, plant[3][c, js.n_seen], k)
    js.prev_strobe = 1 if strobe else 0
    if js.n_seen == 0:
        return violation, 0, 0, 0.0
    reason, arg = _judge_target(js, st.x, k)
    if reason:
        return violation, -1, reason, arg
    if js.n_seen < op.n_targets:
        if js.n_seen == op.n_armed and k - js.t0 >= WAIT_TICKS:
            return violation, -1, 5, js.target
    elif js.settled and k - js.settle_tick >= HOLD_LAST_TICKS:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
