"""MOT-E03 plant binding: panel + star–delta starter with a fan load, and the judge.

Batch state (``build``): D05 parameters and state ``(n, 1)``, the panel script ``(n, events)``,
one judge record per condition and the S-STARDELTA / S-RESTART trackers. A free-running
condition (normal start) is judged on the delta switch-over and the final STOP, a jammed one
on the stall trip window and the fault reset. ``advance`` stores the speed of the scan in the
judge record before the step, because S-INRUSH is about the speed at which K_DELTA was issued.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import safety, scripts, stardelta
from plants.devices.panel import sense_nc, sense_no
from plants.devices.protocol import NEVER, ticks
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_START, I_STOP_NC, I_OL_OK, I_SPEED_90, I_RESET = range(5)
O_MAIN, O_STAR, O_DELTA, O_LAMP = range(4)
# Script channels of the panel.
CH_START, CH_STOP, CH_RESET = range(3)
CHANNELS = {"START": CH_START, "STOP": CH_STOP, "RESET": CH_RESET}

DROPOUT_TICKS = 2  # 20 ms
START_GRACE_TICKS = 50  # a jammed fan must be powered from 0.5 s after the START edge

VIOLATIONS = ("S-STOPPB", "S-STARDELTA", "S-INRUSH", "S-RESTART")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "LAMP_FAULT is on although the load is free",
    "a contactor is on in a scan in which STOP is pressed",
    "K_DELTA turned TRUE before SPEED_90 had read TRUE since the START edge",
    "K_DELTA is not on {arg:.2f} s after SPEED_90 first read TRUE",
    "the fan left delta (K_MAIN and K_DELTA on, K_STAR off) before the final STOP",
    "the fan was not running in delta when the final STOP came",
    "K_MAIN is off {arg:.2f} s after the START edge, before the stall time",
    "LAMP_FAULT is on before the stall trip",
    "no stall trip (all contactors off and LAMP_FAULT on) by {arg:.2f} s after the START edge",
    "a contactor is on or LAMP_FAULT is off after the stall trip, before RESET",
    "LAMP_FAULT is still on {arg:.2f} s after the RESET press began",
)
"""Failure reason id i + 1 -> text."""

# Phases of a jammed condition.
P_WAIT, P_STAR, P_TRIPPED = range(3)

JUDGE_DTYPE = np.dtype([
    ("jam", np.uint8),
    ("final_stop", np.int64), ("reset_tick", np.int64),  # scripted ticks (NEVER if absent)
    ("delta_ticks", np.int64), ("stall_lo", np.int64), ("stall_hi", np.int64),
    ("reset_ticks", np.int64),
    ("n_scan", np.float64),  # fan speed of the current scan (written by advance)
    ("prev_start", np.uint8), ("prev_delta", np.uint8),
    ("start_tick", np.int64), ("sp90_tick", np.int64),
    ("in_delta", np.uint8), ("phase", np.int64),
])


def _press_ticks(cond, button: str) -> list[int]:
    """Ticks at which the script presses one button."""
    return [ticks(ev.t) for ev in cond.script if ev.target == button]


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    jp = task.judge
    events = []
    js = np.zeros(n, JUDGE_DTYPE)
    for c, cond in enumerate(task.conditions):
        evs = []
        for ev in cond.script:
            if ev.kind != "press" or ev.target not in CHANNELS:
                raise ValueError(f"{task.id} {cond.name}: unknown event {ev.kind!r} {ev.target!r}")
            evs.append(scripts.press(CHANNELS[ev.target], ev.t, ev.duration or scripts.PRESS_S))
        events.append(evs)
        jam = bool(cond.params["jam"])
        stops, resets = _press_ticks(cond, "STOP"), _press_ticks(cond, "RESET")
        if jam != bool(resets) or jam == bool(stops):
            raise ValueError(f"{task.id} {cond.name}: a free fan ends with a STOP, a jammed one with a RESET")
        js[c]["jam"] = jam
        js[c]["final_stop"] = NEVER if jam else max(stops)
        js[c]["reset_tick"] = max(resets) if jam else NEVER
    js["delta_ticks"] = ticks(float(jp["delta_deadline_s"]))
    js["stall_lo"] = ticks(float(jp["stall_window_s"][0]))
    js["stall_hi"] = ticks(float(jp["stall_window_s"][1]))
    js["reset_ticks"] = ticks(float(jp["reset_deadline_s"]))
    js["start_tick"] = NEVER
    js["sp90_tick"] = NEVER
    sdp = stardelta.make_params(n, 1, tau_s=[float(c.params["tau_s"]) for c in task.conditions],
                                dropout=DROPOUT_TICKS, jam=[int(c.params["jam"]) for c in task.conditions])
    star_tr = np.zeros(n, safety.STARDELTA_DTYPE)
    star_tr["star_off"] = 1 << 40  # STAR has never been on
    restart_tr = np.zeros(n, safety.RESTART_DTYPE)
    restart_tr["armed"] = 1  # power-up counts as a stop: the first start needs a START edge
    return (sdp, stardelta.make_state(sdp), scripts.build_scripts(events, spare_rows=0), js,
            star_tr, restart_tr)


@njit(cache=True)
def sense(plant, c, k, inp):
    """Panel buttons from the script, OL_OK and SPEED_90 from the starter."""
    sdp, sds, script = plant[0][c, 0], plant[1][c, 0], plant[2][c]
    inp[I_START] = 1.0 if sense_no(script, CH_START, k) else 0.0
    inp[I_STOP_NC] = 1.0 if sense_nc(script, CH_STOP, k) else 0.0
    inp[I_OL_OK] = 0.0 if sdp.ol_from <= k < sdp.ol_to else 1.0
    inp[I_SPEED_90] = 1.0 if stardelta.sense_speed_90(sds) else 0.0
    inp[I_RESET] = 1.0 if sense_no(script, CH_RESET, k) else 0.0


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step of the starter with the latched coil outputs."""
    sds = plant[1][c, 0]
    plant[3][c].n_scan = sds.n
    stardelta.tick(sds, plant[0][c, 0], out[O_MAIN] != 0.0, out[O_STAR] != 0.0,
                   out[O_DELTA] != 0.0, k)


@njit(cache=True)
def _judge_free(js, k, stop_nc, sp90, start_edge, delta_rise, main, star, delta, lamp):
    """(outcome, reason, arg) of a free-running condition: delta switch-over, final STOP."""
    off = not (main or star or delta)
    if lamp:
        return -1, 1, 0.0
    if k == js.final_stop:
        if not js.in_delta:
            return -1, 6, 0.0
        if not off:
            return -1, 2, 0.0
        return 1, 0, 0.0
    if not stop_nc:  # a STOP ends the run-up: SPEED_90 counts again after the next START edge
        js.in_delta = 0
        js.start_tick = NEVER
        js.sp90_tick = NEVER
        return (0, 0, 0.0) if off else (-1, 2, 0.0)
    if start_edge:
        js.start_tick = k
        js.sp90_tick = NEVER
    if sp90 and js.sp90_tick == NEVER and js.start_tick != NEVER:
        js.sp90_tick = k
    if delta_rise and js.sp90_tick == NEVER:
        return -1, 3, 0.0
    running_delta = main and delta and not star
    if js.in_delta and not running_delta:
        return -1, 5, 0.0
    if running_delta:
        js.in_delta = 1
    if js.sp90_tick != NEVER and not js.in_delta and k - js.sp90_tick >= js.delta_ticks:
        return -1, 4, js.delta_ticks * 0.01
    return 0, 0, 0.0


@njit(cache=True)
def _judge_jammed(js, k, start_edge, main, star, delta, lamp):
    """(outcome, reason, arg) of a jammed condition: powered until the stall trip window,
    then tripped until RESET. Star or delta before the trip is left to S-STARDELTA and
    S-INRUSH, so a program that switches the jammed fan to delta is told so."""
    off = not (main or star or delta)
    if js.phase == P_WAIT:
        if start_edge:
            js.phase = P_STAR
            js.start_tick = k
        elif lamp:
            return -1, 8, 0.0
    if js.phase == P_STAR:
        el = k - js.start_tick
        if el >= js.stall_lo and off and lamp:
            js.phase = P_TRIPPED
            return 0, 0, 0.0
        if START_GRACE_TICKS <= el < js.stall_lo and not main:
            return -1, 7, el * 0.01
        if lamp:
            return -1, 8, 0.0
        if el >= js.stall_hi:
            return -1, 9, js.stall_hi * 0.01
        return 0, 0, 0.0
    if js.phase == P_TRIPPED:
        if not off or (k < js.reset_tick and not lamp):
            return -1, 10, 0.0
        if k >= js.reset_tick:
            if not lamp:
                return 1, 0, 0.0
            if k - js.reset_tick >= js.reset_ticks:
                return -1, 11, js.reset_ticks * 0.01
    return 0, 0, 0.0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    js, star_tr, restart_tr = plant[3][c], plant[4][c], plant[5][c]
    start = inp[I_START] != 0.0
    stop_nc = inp[I_STOP_NC] != 0.0
    main = out[O_MAIN] != 0.0
    star = out[O_STAR] != 0.0
    delta = out[O_DELTA] != 0.0
    lamp = out[O_LAMP] != 0.0
    start_edge = start and not js.prev_start
    delta_rise = delta and not js.prev_delta
    js.prev_start = 1 if start else 0
    js.prev_delta = 1 if delta else 0

    main_fell = restart_tr.prev_out != 0 and not main
    restarted = safety.s_restart(restart_tr, main, start_edge, main_fell)
    overlapped = safety.s_stardelta(star_tr, star, delta)
    inrush = safety.s_inrush(delta_rise, js.n_scan)
    violation = 0
    if restarted:
        violation = 4
    if inrush:
        violation = 3
    if overlapped:
        violation = 2
    if safety.s_stoppb(stop_nc, main):
        violation = 1

    if js.jam:
        outcome, reason, arg = _judge_jammed(js, k, start_edge, main, star, delta, lamp)
    else:
        outcome, reason, arg = _judge_free(js, k, stop_nc, inp[I_SPEED_90] != 0.0, start_edge,
                                           delta_rise, main, star, delta, lamp)
    return violation, outcome, reason, arg
