"""MOT-E15 plant binding: a shaft driven at a scripted speed (the D15 master) read by an
angle encoder, and the judge (the cam function compared in every scan).

Batch state (``build``): D15 parameters (the speed profile, deg/s) and state (``x`` = shaft
angle in deg, unwrapped; ``s_roll`` = cumulative |change of angle|), and one judge record per
condition. The judge evaluates the specification's cam function on the same input image the
program saw, so the encoder quantisation can never make the program and the judge disagree.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from plants.devices import web
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_MACHINE_RUN, I_ANGLE = range(2)
O_VALVE_1, O_VALVE_2 = range(2)

RUN_DEG_S = 1.0  # MACHINE_RUN = |w| > 1 deg/s
COUNTS = 3600  # ANGLE counts per turn (0.1 deg)
TRUNC_EPS = 1e-6  # counts: keeps exact grid angles (80.0 deg) from truncating to 799
CAM_1 = (800, 1400)  # on <= ANGLE < off
CAM_2 = (3000, 200)  # wraps: ANGLE >= on or ANGLE < off

VIOLATIONS = ("S-PUDDLE",)
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "VALVE_1 is TRUE outside cam 1 (ANGLE = {arg:.0f})",
    "VALVE_1 is FALSE inside cam 1 with MACHINE_RUN (ANGLE = {arg:.0f})",
    "VALVE_2 is TRUE outside cam 2 (ANGLE = {arg:.0f})",
    "VALVE_2 is FALSE inside cam 2 with MACHINE_RUN (ANGLE = {arg:.0f})",
)
"""Failure reason id i + 1 -> text; the argument is the scan's ANGLE."""

PROBES = {
    "shaft_angle": ((1, 0), "x", "deg"),
    "shaft_speed": ((1, 0), "v", "deg/s"),
    "turned": ((1, 0), "s_roll", "deg"),
    "spec_valve_1": (2, "v1", "bool"),
    "spec_valve_2": (2, "v2", "bool"),
}
"""Plant variables `plantloop trace` can show: the unwrapped shaft angle, its speed, the
cumulative angle turned, and the valves the specification asks for in the same scan."""

JUDGE_DTYPE = np.dtype([("target_deg", np.float64), ("v1", np.uint8), ("v2", np.uint8)])


def profile(condition) -> list[tuple[float, float]]:
    """Speed breakpoints (s, deg/s) of a condition's `speed` events, from standstill at t = 0.
    A step is two breakpoints at one instant (the later one wins, D15 `master_speed`)."""
    points = [(0.0, 0.0)]
    for ev in condition.script:
        if ev.kind != "speed":
            raise ValueError(f"MOT-E15 {condition.name}: unknown event kind {ev.kind!r}")
        target = dict(ev.args)["rpm"] * 6.0
        points += [(ev.t, points[-1][1]), (ev.t + ev.duration, target)]
    if len(points) > web.N_PROFILE:
        raise ValueError(f"MOT-E15 {condition.name}: too many speed changes")
    return points


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    params = web.make_params(n, 1)
    for c, cond in enumerate(task.conditions):
        params[c:c + 1] = web.make_params(1, 1, profile=profile(cond))
    state = web.make_state(params)
    state["x"] = [[cond.params["start_deg"]] for cond in task.conditions]
    state["v"] = [[web.master_speed(params[c, 0], 0)] for c in range(n)]
    judge_state = np.zeros(n, JUDGE_DTYPE)
    judge_state["target_deg"] = 360.0 * float(task.judge.get("revolutions", 20))
    return params, state, judge_state


@njit(cache=True)
def angle_counts(x_deg):
    """ANGLE: the shaft angle truncated to 0.1 deg, wrapped to 0..3599 (A8)."""
    q = math.floor(x_deg * 10.0 + TRUNC_EPS)
    return q - COUNTS * math.floor(q / COUNTS)


@njit(cache=True)
def in_cam(angle, on, off):
    """on <= angle < off, across the wrap when on > off."""
    if on <= off:
        return on <= angle < off
    return angle >= on or angle < off


@njit(cache=True)
def sense(plant, c, k, inp):
    """MACHINE_RUN from the shaft speed, ANGLE from the shaft angle."""
    st = plant[1][c, 0]
    inp[I_MACHINE_RUN] = 1.0 if abs(st.v) > RUN_DEG_S else 0.0
    inp[I_ANGLE] = angle_counts(st.x)


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step of the shaft; the valves act on nothing the program can see."""
    web.tick(plant[1][c, 0], plant[0][c, 0], False, 0.0, k)


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    js = plant[2][c]
    run = inp[I_MACHINE_RUN] != 0.0
    angle = inp[I_ANGLE]
    v1 = out[O_VALVE_1] != 0.0
    v2 = out[O_VALVE_2] != 0.0
    want1 = run and in_cam(angle, CAM_1[0], CAM_1[1])
    want2 = run and in_cam(angle, CAM_2[0], CAM_2[1])
    js.v1 = 1 if want1 else 0
    js.v2 = 1 if want2 else 0
    violation = 1 if (v1 or v2) and not run else 0
    if v1 != want1:
        return violation, -1, 1 if v1 else 2, angle
    if v2 != want2:
        return violation, -1, 3 if v2 else 4, angle
    if plant[1][c, 0].s_roll >= js.target_deg - 1e-6:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
