"""MOT-H05 · PLC-closed position loop on an analog servo amplifier (TASKS/MOT-H.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

TARGETS = (300.0, 100.0, 550.0, 20.0)
"""The target list shared by C1-C4 and C6 (mm, true coordinates)."""

START = (Event(0.5, "press", "START"),)

PUBLISHED_RANGES = (
    ParamRange("tau_v_ms", 20.0, 80.0, "ms", "Amplifier velocity lag tau_v {range}."),
    ParamRange("dead_band_pct", 0.0, 2.0, "%", "Amplifier dead band {range} of full scale (0-8 mm/s)."),
    ParamRange("gain_error_pct", -10.0, 10.0, "%", "Amplifier gain error {lo} % to +{hi} %."),
    ParamRange("disturbance_period_s", 0.0, 20.0, "s", "Disturbance velocity up to 10 mm/s in "
               "magnitude, changing by at most 10 mm/s in one step: constant, single steps, or "
               "alternating steps (e.g. +5/-5 mm/s every 4 s) whose pattern repeats with a period of "
               "{range} (0: no repeat), possibly present from the start."),
    ParamRange("enc_offset_counts", -200000.0, 200000.0, "", "ENC power-up offset: any DINT value "
               "with |offset| <= {hi} counts."),
    ParamRange("x0_mm", 5.0, 600.0, "mm", "Start position x in [{lo}, {hi}] mm (true), at rest, "
               "possibly on the REF cam."),
    ParamRange("start_t_s", 0.5, 0.5, "s", "The START press (0.3 s) comes at t = {lo} s.", on="time",
               kinds=("press",)),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition.
Disturbance steps and targets are lists (prose, checked by the tests)."""


def _condition(name: str, x0: float, enc_offset: int, tau_ms: float, db_pct: float, gain_pct: float,
               disturbance: tuple[tuple[float, float], ...] = (), period_s: float = 0.0,
               targets: tuple[float, ...] = TARGETS, time_limit_s: float = 25.0, note: str = "") -> Condition:
    """One condition: amplifier values, disturbance steps [(t_s, mm/s)] (repeated every
    ``period_s`` when > 0) and the target list the operator strobes in order."""
    params = {
        "x0_mm": x0, "enc_offset_counts": enc_offset, "tau_v_ms": tau_ms, "dead_band_pct": db_pct,
        "gain_error_pct": gain_pct, "disturbance": [list(s) for s in disturbance],
        "disturbance_period_s": period_s, "targets_mm": list(targets),
    }
    return Condition(name, params, START, note, time_limit_s)


CONDITIONS = (
    _condition("C1", 250.0, 0, 20.0, 0.0, 0.0),
    _condition("C2", 400.0, 40000, 80.0, 2.0, -10.0, note="slowest, weakest amplifier, widest dead band"),
    _condition("C3", 150.0, -2500, 50.0, 1.0, 0.0, ((10.0, 8.0),),
               note="+8 mm/s disturbance from 10.0 s: integral action required"),
    _condition("C4", 580.0, 123456, 50.0, 1.0, 10.0, ((0.0, 5.0), (4.0, -5.0)), 8.0, time_limit_s=30.0,
               note="disturbance alternating +5/-5 mm/s every 4 s"),
    _condition("C5", 300.0, 0, 35.0, 1.0, 5.0, targets=(25.0, 20.0, 15.0, 10.0, 590.0), time_limit_s=30.0,
               note="four 5 mm moves, then a 580 mm move"),
    _condition("C6", 10.0, -12345, 50.0, 0.5, -5.0, note="starts on the REF cam: only the leaving part"),
)

TASK = TaskSpec(
    id="MOT-H05",
    title="PLC-closed position loop on an analog servo amplifier",
    devices=(
        "D09 analog-command servo amplifier driving a linear axis: VEL_CMD raw +-27648 = +-400 mm/s "
        "nominal; the real velocity u = VEL_CMD/27648 * 400 mm/s * (1 + gain error), minus a dead "
        "band (|u| below the dead band gives no motion, above it the dead band is subtracted), plus a "
        "disturbance velocity d(t); the axis velocity follows with a first-order lag tau_v "
        "(v += (u_eff + d - v) * dt / tau_v); the disturbance acts only while enabled; disabled, the "
        "velocity decays with 30 ms. READY rises 100 ms after AMP_ENABLE and falls with it.",
        "Linear axis 0-600 mm. ENC = true position in 0.01 mm rounded to the nearest count plus an "
        "arbitrary power-up offset (counts). REF cam switch TRUE for x in [0, 20] mm. Over-travel "
        "switches LIM_NEG TRUE at x <= -5 mm and LIM_POS TRUE at x >= 605 mm; mechanical end stops at "
        "-15 mm and 615 mm.",
        "Operator: presses START (0.3 s) at t = 0.5 s. He sets TARGET 0.1 s before each NEW_TARGET "
        "rising edge (the strobe is TRUE for 0.1 s) and keeps it until the next strobe. The first "
        "strobe comes 0.5 s after IN_POS first reads TRUE after START; each further strobe 1.0 s after "
        "IN_POS turns TRUE (a FALSE -> TRUE change after the previous strobe) for the previous "
        "target. He waits up to 10 s for IN_POS after a strobe.",
    ),
    io=(
        Signal("%IX0.0", "START", "BOOL", "NO push-button, TRUE while pressed"),
        Signal("%IX0.1", "NEW_TARGET", "BOOL", "strobe: TARGET is valid, move on its rising edge"),
        Signal("%IX0.2", "REF", "BOOL", "reference cam, TRUE for x in [0, 20] mm"),
        Signal("%IX0.3", "LIM_NEG", "BOOL", "negative over-travel switch (TRUE = actuated)"),
        Signal("%IX0.4", "LIM_POS", "BOOL", "positive over-travel switch (TRUE = actuated)"),
        Signal("%IX0.5", "READY", "BOOL", "amplifier ready"),
        Signal("%ID240", "ENC", "DINT", "encoder, arbitrary power-up offset", "0.01 mm"),
        Signal("%IW140", "TARGET", "INT", "target position in the REF-based coordinate", "0.1 mm"),
        Signal("%QX0.0", "AMP_ENABLE", "BOOL", "amplifier enable"),
        Signal("%QW140", "VEL_CMD", "INT", "velocity command, raw +-27648 = +-400 mm/s", "raw"),
        Signal("%QX0.1", "IN_POS", "BOOL", "in position (see the specification)"),
    ),
    spec=(
        "On START: set AMP_ENABLE, wait for READY, then do the reference run. If REF is FALSE, "
        "move negative at <= 100 mm/s until REF rises and brake so that the axis comes to rest "
        "inside the cam (clear of LIM_NEG). Then leave the cam in + at <= 2 mm/s; at the REF "
        "falling edge your position is 20.00 mm (set your zero there). Starting on the cam, only "
        "the leaving part is done. Then hold the position and set IN_POS.",
        "On each NEW_TARGET rising edge: read TARGET (0.1 mm) and move there. Generate a "
        "jerk-limited reference (v <= 300 mm/s, a <= 1500 mm/s^2, acceleration ramps >= 0.2 s "
        "long) and track it with velocity and acceleration feed-forward plus PI(D) on the position "
        "error, with dead-band compensation. The amplifier lag, gain and dead band are unknown "
        "within the published ranges: a plain trapezoid excites the unknown lag and overshoots by "
        "more than 0.2 mm at the end of a move, and a fixed dead-band compensation can be far off, "
        "so measure the dead band once after READY (for example: with zero command the axis drifts "
        "with the disturbance alone, so measure that drift; then ramp the command slowly against "
        "the drift until the axis reverses: the command there is minus (dead band + drift); with no "
        "drift, half the difference of the break-away commands of a ramp in each direction is the "
        "dead band).",
        "IN_POS is TRUE while the reference has finished and |target - position| <= 0.05 mm in "
        "your coordinates; it is FALSE from each strobe until then.",
        "Hold each target until the next strobe. The disturbance can change at any time, also "
        "while holding, so keep integral action.",
    ),
    completion=(
        "Judged on the true position, whose zero is the true REF edge (x = 20.00 mm is the REF "
        "falling edge). Each target: the position enters +-0.08 mm of the target (the +-0.05 mm "
        "IN_POS window plus up to 0.03 mm for sampling the REF edge at <= 2 mm/s) and stays inside "
        "until the next strobe (the last target: for 1.0 s; the condition succeeds then). The entry "
        "is no later than 0.8 s after the position first came within +-1 mm of the target, and no "
        "later than |D|/300 + 1.5 s after the strobe (D = the move length in mm, from the previous "
        "target, or from 20 mm for the first). The overshoot past the target, in the direction of "
        "the move, is <= 0.2 mm. Disturbance steps: for a target whose move or settling (from 1.0 s "
        "before its strobe until it has entered the window) contains a step of the disturbance, "
        "the overshoot bound is 0.6 mm and both entry deadlines are 1.0 s later; for 1.0 s after any step, the "
        "position may be outside the +-0.08 mm window by at most 0.6 mm from the target. All "
        "targets done by T."
    ),
    time_limit_s=25.0,
    safety=(
        SafetyRule("S-HWLIM", "An over-travel switch is actuated: the true position is <= -5 mm "
                   "(LIM_NEG) or >= 605 mm (LIM_POS)."),
        SafetyRule("S-CRASH", "A mechanical end stop is reached: the true position is <= -15 mm "
                   "or >= 615 mm."),
        SafetyRule("S-VMAX", "Overspeed: the axis speed |v| exceeds 380 mm/s, judged as the "
                   "tick-average speed |x(k+1) - x(k)| / 10 ms of the true position."),
    ),
    published=("Targets 5-595 mm; moves of 5-590 mm; 4-5 targets per condition.",),
    ranges=PUBLISHED_RANGES,
    conditions=CONDITIONS,
    plant="plants.tasks.mot_h05.plant",
    reference="reference.st",
    changes=(
        "The dead-band measurement example is reworded. The catalog's two break-away ramps from zero "
        "command only work without a disturbance: any disturbance moves the axis at zero command "
        "(it is added after the dead band), so one ramp breaks away at once and the estimate is "
        "off by up to the disturbance; the rendered example measures the drift first. The "
        "catalog's 'their mean the disturbance' also had the sign wrong (the mean cancels it).",
        "Disturbance steps and their exemption are made exact: a step is a tick at which the "
        "disturbance value changes; it counts for the target being moved or settled if it comes "
        "between the strobe and the entry into the window, or in the 1.0 s before the strobe (its "
        "hold exemption is still running and no loop has absorbed it yet); the 1.0 s hold "
        "exemption applies to every step. The overspeed rule is judged as S-VMAX on the tick-average speed (A33).",
        "The operator's first strobe: 0.5 s after IN_POS first reads TRUE in a scan at or after "
        "the START press (the operator cannot see the reference run). A FALSE -> TRUE change of "
        "IN_POS after a strobe triggers the next one.",
        "Published start range [5, 600] mm instead of [0, 600]: at x = 0 the axis sits on the "
        "cam's lower end, and a negative disturbance moves it off the cam (REF FALSE, below it) "
        "while READY is awaited; a program then searches in the wrong direction into LIM_NEG, and "
        "no program can tell that case from a start above the cam.",
        "Disturbance steps are published as at most 10 mm/s each (D09: steps of 2-10 mm/s); the "
        "catalog's 'up to 10 mm/s' left a +10 -> -10 mm/s step of 20 mm/s open.",
        "The ENC offset range (|offset| <= 200000 counts) and the number of targets per condition "
        "are published, so that a solver knows the DINT range is ample and how long a run is.",
        "Published ranges are data (PUBLISHED_RANGES). The alternating disturbance's repeat "
        "period got a number containing the catalog's (C4: 8 s): 0-20 s, 0 for no repeat; the "
        "START time of the operator line is also a range (0.5 s). Targets and disturbance "
        "steps are lists and stay prose.",
    ),
    judge={"window_mm": 0.08, "overshoot_mm": 0.2, "settle_after_1mm_s": 0.8, "deadline_base_s": 1.5},
    deadlines=("settle_after_1mm_s", "deadline_base_s"),
)
