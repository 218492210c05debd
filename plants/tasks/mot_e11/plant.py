"""MOT-E11 plant binding: panel switches + D06 drive, and the judge (checkpoints + 3 rules).

Script vocabulary: ``on`` / ``off`` of RUN_SW or DIR_SW (both FALSE at t = 0 unless the
condition's ``dir`` parameter is ``"rev"``), ``select`` with target ``"BA"`` (the new bits
SEL_B SEL_A; the initial position is the ``sel`` parameter), ``press`` of RESET_PB and
``trip`` of the drive (duration = how long its cause lasts).

The expected values at the checkpoints come from running a program that follows the
specification (``ideal_scan``) on a copy of the condition's plant before the run: the catalog
defines them as "what a program following the spec has at that moment", and a shadow run on
the very same device model is the exact way to get that. The checkpoint ticks follow the
catalog's formula (event + 0.5 s + ideal ramp time at the drive's rates).

Batch state (``build``): drive parameters and state ``(n, 1)``, the panel script, checkpoint
ticks, expected frequencies (Hz) and LAMP_FAULT values ``(n, m)`` (padded with -1 / 0), the
two S-RESTART trackers ``(n, 2)`` and one judge record per condition.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from plants.devices import safety, scripts, vfd
from plants.devices.panel import sense_no
from plants.devices.protocol import DT, NEVER, ticks
from plants.tasks.mot_e11 import SPEEDS_HZ
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
(I_RUN_SW, I_SEL_A, I_SEL_B, I_DIR_SW, I_RESET_PB,
 I_READY, I_RUNNING, I_AT_SPEED, I_FAULT, I_FREQ_ACT) = range(10)
O_FWD, O_REV, O_RST, O_LAMP_FAULT, O_SPEED_REF = range(5)
N_IN, N_OUT = 10, 5
# Script channels of the panel (TRUE while an event of the channel is active).
CH_RUN, CH_SEL_A, CH_SEL_B, CH_DIR, CH_RESET = range(5)
SWITCHES = {"RUN_SW": CH_RUN, "DIR_SW": CH_DIR}

F_MAX_HZ = 50.0
SPEED_HZ = np.array([SPEEDS_HZ[bits] for bits in ("00", "01", "10", "11")])  # [2*B + A]
REVERSE_COUNTS = 5  # 0.5 Hz in FREQ_ACT counts (0.1 Hz)
RST_PULSE_TICKS = 15  # the ideal program's VFD_RST pulse, 150 ms
FREQ_TOL_HZ = 0.5
FOREVER_S = 1.0e6  # end of a switch period that lasts past the run

VIOLATIONS = ("S-BOTHDIR", "S-REVERSE", "S-RESTART")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "FREQ_ACT reads {arg:.1f} Hz at a checkpoint, more than 0.5 Hz above the expected frequency",
    "FREQ_ACT reads {arg:.1f} Hz at a checkpoint, more than 0.5 Hz below the expected frequency",
    "LAMP_FAULT is TRUE at a checkpoint where the specification has no fault latched",
    "LAMP_FAULT is FALSE at a checkpoint where the specification has the fault latched",
)
"""Failure reason id i + 1 -> text."""

PROBES = {
    "freq_hz": ((1, 0), "f", "Hz"),
    "drive_fault": ((1, 0), "fault", "bool"),
    "run_inhibit": ((1, 0), "inhibit", "bool"),
}
"""Plant variables `plantloop trace` can show: the drive's frequency, fault and run-inhibit."""

IDEAL_DTYPE = np.dtype([
    ("prev_run_sw", np.uint8), ("prev_reset", np.uint8), ("need_cycle", np.uint8),
    ("rst_left", np.int64), ("demand", np.float64),
])
"""State of the specification's program: edge memories, the off->on latch after a fault, the
remaining VFD_RST pulse, and the signed frequency the specification calls for."""

JUDGE_DTYPE = np.dtype([("prev_run_sw", np.uint8), ("next_cp", np.int64), ("last_tick", np.int64)])


@njit(cache=True)
def ideal_scan(ps, inp, out):
    """One scan of a program that follows the specification (writes ``out``)."""
    run_sw = inp[I_RUN_SW] != 0.0
    reset = inp[I_RESET_PB] != 0.0
    fault = inp[I_FAULT] != 0.0
    freq = inp[I_FREQ_ACT]
    if fault:
        ps.need_cycle = 1
    elif run_sw and not ps.prev_run_sw:
        ps.need_cycle = 0
    if reset and not ps.prev_reset:
        ps.rst_left = RST_PULSE_TICKS
    ps.prev_run_sw = 1 if run_sw else 0
    ps.prev_reset = 1 if reset else 0
    out[O_RST] = 1.0 if ps.rst_left > 0 else 0.0
    if ps.rst_left > 0:
        ps.rst_left -= 1
    out[O_LAMP_FAULT] = 1.0 if fault else 0.0
    f_sel = SPEED_HZ[(2 if inp[I_SEL_B] != 0.0 else 0) + (1 if inp[I_SEL_A] != 0.0 else 0)]
    out[O_SPEED_REF] = float(round(f_sel / F_MAX_HZ * vfd.FULL_SCALE))
    reverse = inp[I_DIR_SW] != 0.0
    out[O_FWD] = 0.0
    out[O_REV] = 0.0
    ps.demand = 0.0
    if run_sw and not fault and not ps.need_cycle:
        ps.demand = -f_sel if reverse else f_sel
        if reverse and freq < REVERSE_COUNTS:
            out[O_REV] = 1.0
        elif not reverse and freq > -REVERSE_COUNTS:
            out[O_FWD] = 1.0


@njit(cache=True)
def sense(plant, c, k, inp):
    """Panel switches and button from the script, drive status from the D06 model."""
    st, script = plant[1][c, 0], plant[2][c]
    inp[I_RUN_SW] = 1.0 if sense_no(script, CH_RUN, k) else 0.0
    inp[I_SEL_A] = 1.0 if sense_no(script, CH_SEL_A, k) else 0.0
    inp[I_SEL_B] = 1.0 if sense_no(script, CH_SEL_B, k) else 0.0
    inp[I_DIR_SW] = 1.0 if sense_no(script, CH_DIR, k) else 0.0
    inp[I_RESET_PB] = 1.0 if sense_no(script, CH_RESET, k) else 0.0
    inp[I_READY] = 1.0 if vfd.sense_ready(st) else 0.0
    inp[I_RUNNING] = 1.0 if vfd.sense_running(st) else 0.0
    inp[I_AT_SPEED] = 1.0 if vfd.sense_at_speed(st) else 0.0
    inp[I_FAULT] = 0.0 if vfd.sense_ready(st) else 1.0
    inp[I_FREQ_ACT] = float(vfd.sense_freq_act(st))


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step of the drive with the latched run commands, reset and SPEED_REF."""
    vfd.tick(plant[1][c, 0], plant[0][c, 0], out[O_FWD] != 0.0, out[O_REV] != 0.0,
             out[O_RST] != 0.0, out[O_SPEED_REF], k)


@njit(cache=True)
def follow_spec(plant, c, n_ticks, ideal, f_hz, fault, lamp, demand):
    """Run the specification's program on condition ``c`` for ``n_ticks`` scans and record,
    per scan, the drive's frequency and fault (as sensed), LAMP_FAULT and the demand."""
    inp = np.zeros(N_IN)
    out = np.zeros(N_OUT)
    for k in range(n_ticks):
        sense(plant, c, k, inp)
        f_hz[k] = plant[1][c, 0].f
        fault[k] = inp[I_FAULT]
        ideal_scan(ideal[c], inp, out)
        lamp[k] = out[O_LAMP_FAULT]
        demand[k] = ideal[c].demand
        advance(plant, c, k, out)


def _panel_events(cond) -> list[tuple]:
    """Script rows of the switches, selector bits and RESET_PB of one condition."""
    on_since = {CH_DIR: 0.0} if cond.params.get("dir", "fwd") == "rev" else {}
    sel = cond.params["sel"]
    bits_since = {CH_SEL_B: 0.0} if sel[0] == "1" else {}
    if sel[1] == "1":
        bits_since[CH_SEL_A] = 0.0
    rows = []

    def switch(since: dict, channel: int, on: bool, t: float) -> None:
        if on and channel not in since:
            since[channel] = t
        elif not on and channel in since:
            rows.append(scripts.event(channel, since.pop(channel), t))

    for ev in sorted(cond.script, key=lambda e: e.t):
        if ev.kind in ("on", "off"):
            switch(on_since, SWITCHES[ev.target], ev.kind == "on", ev.t)
        elif ev.kind == "select":
            switch(bits_since, CH_SEL_B, ev.target[0] == "1", ev.t)
            switch(bits_since, CH_SEL_A, ev.target[1] == "1", ev.t)
        elif ev.kind == "press":
            rows.append(scripts.press(CH_RESET, ev.t, ev.duration or scripts.PRESS_S))
        elif ev.kind != "trip":
            raise ValueError(f"MOT-E11 {cond.name}: unknown event kind {ev.kind!r}")
    for since in (on_since, bits_since):
        rows += [scripts.event(ch, t0, FOREVER_S) for ch, t0 in since.items()]
    return rows


def _ramp_ticks(f0: float, f1: float, tripped: bool, pa) -> int:
    """Ticks the drive needs from f0 to f1 at its rates (through 0 for a reversal)."""
    acc, dec = pa["f_max"] / pa["t_acc"], pa["f_max"] / pa["t_dec"]
    if tripped:
        seconds = abs(f0) / pa["coast"]
    elif f0 * f1 < 0.0:
        seconds = abs(f0) / dec + abs(f1) / acc
    elif abs(f1) >= abs(f0):
        seconds = (abs(f1) - abs(f0)) / acc
    else:
        seconds = (abs(f0) - abs(f1)) / dec
    return math.ceil(seconds / DT - 1e-6)


def _devices(task: TaskSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fresh drive parameters, drive state and panel script of every condition."""
    n = len(task.conditions)
    trip_from, trip_to = [NEVER] * n, [NEVER] * n
    for c, cond in enumerate(task.conditions):
        for ev in cond.script:
            if ev.kind == "trip":
                trip_from[c], trip_to[c] = ticks(ev.t), ticks(ev.t + ev.duration)
    pa = vfd.make_params(
        n, 1, f_max=F_MAX_HZ, t_acc=[c.params["t_acc_s"] for c in task.conditions],
        t_dec=[c.params["t_dec_s"] for c in task.conditions],
        coast=[c.params["coast_hz_s"] for c in task.conditions], trip_from=trip_from, trip_to=trip_to)
    script = scripts.build_scripts([_panel_events(c) for c in task.conditions], spare_rows=0)
    return pa, vfd.make_state(pa), script


def expectations(task: TaskSpec) -> list[list[tuple[int, float, bool]]]:
    """Per condition: (checkpoint tick, expected frequency Hz, expected LAMP_FAULT), from a
    shadow run of the specification's program on the condition's plant."""
    slack = ticks(float(task.judge.get("checkpoint_slack_s", 0.5)))
    pa, st, script = _devices(task)
    shadow = (pa, st, script)
    ideal = np.zeros(len(task.conditions), IDEAL_DTYPE)
    result = []
    for c, cond in enumerate(task.conditions):
        n_ticks = ticks(task.time_limit(cond))
        f_hz, fault, lamp, demand = (np.zeros(n_ticks) for _ in range(4))
        follow_spec(shadow, c, n_ticks, ideal, f_hz, fault, lamp, demand)
        cps = set()
        for ev in cond.script:
            ke = ticks(ev.t)
            cps.add(ke + slack + _ramp_ticks(f_hz[ke], demand[ke], fault[ke] != 0.0, pa[c, 0]))
        if max(cps) >= n_ticks:
            raise ValueError(f"{task.id} {cond.name}: a checkpoint lies beyond the time limit")
        result.append([(k, float(f_hz[k]), bool(lamp[k])) for k in sorted(cps)])
    return result


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    expected = expectations(task)
    width = max(len(e) for e in expected)
    checkpoints = np.full((n, width), -1, np.int64)
    freq = np.zeros((n, width))
    lamp = np.zeros((n, width), np.uint8)
    judge_state = np.zeros(n, JUDGE_DTYPE)
    for c, rows in enumerate(expected):
        for j, (k, f, on) in enumerate(rows):
            checkpoints[c, j], freq[c, j], lamp[c, j] = k, f, on
        judge_state[c]["last_tick"] = rows[-1][0]
    pa, st, script = _devices(task)
    restart = np.zeros((n, 2), safety.RESTART_DTYPE)
    return pa, st, script, checkpoints, freq, lamp, restart, judge_state


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    js, restart = plant[7][c], plant[6][c]
    fwd = out[O_FWD] != 0.0
    rev = out[O_REV] != 0.0
    fault = inp[I_FAULT] != 0.0
    run_sw = inp[I_RUN_SW] != 0.0
    freq = inp[I_FREQ_ACT]
    cycled = run_sw and not js.prev_run_sw and not fault
    js.prev_run_sw = 1 if run_sw else 0
    violation = 0
    restart_fwd = safety.s_restart(restart[0], fwd, cycled, fault)
    restart_rev = safety.s_restart(restart[1], rev, cycled, fault)
    if restart_fwd or restart_rev:
        violation = 3
    if safety.s_reverse(rev, freq, REVERSE_COUNTS) or safety.s_reverse(fwd, -freq, REVERSE_COUNTS):
        violation = 2
    if safety.s_bothdir(fwd, rev):
        violation = 1
    j = js.next_cp
    if j < plant[3].shape[1] and plant[3][c, j] == k:
        js.next_cp += 1
        f_act = freq / 10.0
        expected = plant[4][c, j]
        if f_act > expected + FREQ_TOL_HZ + 1e-9:
            return violation, -1, 1, f_act
        if f_act < expected - FREQ_TOL_HZ - 1e-9:
            return violation, -1, 2, f_act
        lamp = out[O_LAMP_FAULT] != 0.0
        if lamp != (plant[5][c, j] != 0):
            return violation, -1, 3 if lamp else 4, 0.0
        if k == js.last_tick:
            return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
