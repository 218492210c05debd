"""MOT-E07 · Jog operation with homing guard and limit handling (TASKS/MOT-E.md)."""

from __future__ import annotations

from plants.tasks.axis_io import axis_block
from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

TIME_LIMIT_S = 40.0
JOG_SLOW_MM_S = 20.0
"""Jog speed while unhomed."""
JOG_FAST_MM_S = 100.0
"""Jog speed once homed."""
JOG_ACCEL = 500
BAND_MM = (5.0, 995.0)
"""The homed axis must stay inside this band (ERROR 1 would come at the soft limits 0/1000)."""
VALID_INSIDE_MM = 30.0
"""A homed jog press counts only when it starts more than this far from the bound it moves
toward (catalog: 15 mm, see `changes`)."""
REACH_S = 0.5
STANDSTILL_S = 0.5
MIN_JUDGED_PRESS_S = 0.3
ENABLE_SETTLE_S = 0.3
UNHOMED_V_LIMIT_MM_S = 25.0
MOTION_MM_S = 1.0

PANEL_BUTTONS = ("JOG_P", "JOG_N", "HOME_PB", "RESET_PB")

PUBLISHED_RANGES = (
    ParamRange("x0_mm", 0.0, 1000.0, "mm", "True start position {range}."),
    ParamRange("offset_mm", -300.0, 300.0, "mm", "Unhomed ACT_POS offset {lo}..+{hi} mm."),
    ParamRange("event_t_s", 0.3, 34.0, "s", "Scripted events at {range}: ENABLE_SW is switched on "
               "at 0.3-2 s; the last scripted event comes no later than {hi} s.", on="time"),
    ParamRange("enable_s", 1.0, TIME_LIMIT_S, "s", "Once on, ENABLE_SW stays on {range} (at most "
               "to the end of the run): it may be switched off and on again later, also while a jog "
               "button is held (not within the first 0.5 s of a jog press).", on="duration",
               kinds=("on",), default=TIME_LIMIT_S),
    ParamRange("jog_s", 0.2, 20.0, "s", "Jog presses last {range}; both jog buttons may be held "
               "together. No jog press starts during a homing run, and HOME_PB is not pressed while "
               "a jog button is held.", on="duration", kinds=("hold",)),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition."""


def hold(t: float, button: str, until: float) -> Event:
    """A push-button held from t to ``until`` (seconds)."""
    return Event(t, "hold", button, round(until - t, 6))


def press(t: float, button: str) -> Event:
    """A standard 0.3 s press."""
    return Event(t, "press", button)


def enable_on(t: float, until: float = 0.0) -> Event:
    """ENABLE_SW switched on at t, off again at ``until`` (0: stays on)."""
    return Event(t, "on", "ENABLE_SW", round(until - t, 6) if until else 0.0)


TASK = TaskSpec(
    id="MOT-E07",
    title="Jog operation with homing guard and limit handling",
    devices=(
        "D01 operator panel: maintained ENABLE_SW switch (TRUE = on; OFF at t = 0 until the "
        "operator switches it on); push-buttons JOG_P, JOG_N, HOME_PB, RESET_PB (NO, TRUE while "
        "pressed; a jog button is held for as long as the operator jogs); lamps LAMP_HOMED and "
        "LAMP_ERR.",
        "D07 servo positioning drive, axis n = 0 'X' of the standard axis block (Table A): "
        "linear, u = mm; soft limits SL = 0..1000 mm; v_max 300 mm/s, a_max 2000 mm/s², a_def "
        "500 mm/s²; power-up delay 0.1 s. ACT_POS reads the true position plus an unknown "
        "offset until homing. Hardware over-travel switches LIM_NEG at x <= -5 mm and LIM_POS "
        "at x >= 1005 mm, mechanical end stops at -15 / 1015 mm (true position). Reference cam "
        "REF_SW TRUE for x in [30, 50] mm.",
        "Drive power: ENABLE (level) sets POWERED after the power-up delay. ENABLE = FALSE "
        "while moving stops the axis at a_max; POWERED clears at standstill. HOMED is kept "
        "while the drive is disabled.",
        "Drive-internal homing (HOME edge), searching negative: if REF_SW is FALSE, the axis "
        "runs at -100 mm/s until REF_SW rises (if LIM_NEG is met first it reverses and "
        "searches at +100 mm/s) and decelerates at 500 mm/s²; then (or at once when it starts "
        "on the cam) it moves at +5 mm/s until REF_SW falls, sets ACT_POS := HOME_POS = "
        "50.00 mm at that edge and decelerates; then HOMED = TRUE and DONE = TRUE. The "
        "over-travel switches raise no error during homing.",
        "MOVE_VEL (edge): accelerates at ACCEL (mm/s², <= 0 means a_def, clipped to a_max) to "
        "the signed VELOCITY (0.1 mm/s, clipped to v_max); while MOVE_VEL stays TRUE, changes "
        "of VELOCITY and ACCEL are followed; its falling edge does NOT stop the axis. IN_VEL "
        "= within ±0.5 % (min 0.5 mm/s) of VELOCITY. When HOMED, a MOVE_VEL run brakes at "
        "a_max so as to stop exactly at a soft limit (0 or 1000 mm) and then raises ERROR "
        "(ERROR_ID 1). Rejected with ERROR_ID 5 when not POWERED.",
        "HALT (edge): decelerates at ACCEL to standstill, then DONE. A later edge of another "
        "command aborts the halt. STOP (level) brakes at a_max and blocks every other command.",
        "Command edges act on a FALSE->TRUE change of the output between consecutive output "
        "images; only the highest-ranked new edge of a cycle is executed (STOP > HALT > HOME "
        "> MOVE_ABS > MOVE_REL > MOVE_VEL > GEAR_IN). BUSY = a command is active; DONE is "
        "TRUE from completion until the next accepted command; STANDSTILL = |v| < 0.5 mm/s. "
        "MOVE_ABS needs HOMED (else ERROR_ID 2); MOVE_REL is accepted unhomed.",
        "Hardware limit: reaching an over-travel switch outside homing stops the axis at once "
        "with ERROR (ERROR_ID 4). An error puts the drive in ErrorStop, where every command is "
        "ignored, until a RESET edge clears it. After an ERROR_ID 4 has been reset, a motion "
        "command toward the limit whose switch is still TRUE is rejected: no motion, ERROR_ID "
        "4 again; motion away from it is accepted.",
    ),
    io=axis_block() + (
        Signal("%IX0.0", "ENABLE_SW", "BOOL", "maintained enable switch"),
        Signal("%IX0.1", "JOG_P", "BOOL", "jog + (hold)"),
        Signal("%IX0.2", "JOG_N", "BOOL", "jog - (hold)"),
        Signal("%IX0.3", "HOME_PB", "BOOL", "start homing"),
        Signal("%IX0.4", "RESET_PB", "BOOL", "reset axis error"),
        Signal("%QX0.0", "LAMP_HOMED", "BOOL", "axis homed"),
        Signal("%QX0.1", "LAMP_ERR", "BOOL", "axis error"),
    ),
    spec=(
        "ENABLE_SW drives ENABLE.",
        "While exactly one jog button is held: MOVE_VEL with VELOCITY ±20 mm/s (±200 in 0.1 "
        "mm/s) if the axis is not HOMED, ±100 mm/s (±1000) if HOMED, ACCEL 500. On release, or "
        "when both buttons are held: HALT with ACCEL 500.",
        "Homed jogging must stop by itself so that the axis stays within [5, 995] mm "
        "(ACT_POS) and the drive never raises ERROR_ID 1.",
        "HOME_PB starts the drive-internal homing (not while jogging).",
        "After a hardware limit stop (ERROR_ID 4): RESET_PB resets the error; then only "
        "jogging away from that limit is allowed. A jog toward a limit whose switch is TRUE "
        "is refused (no command is sent).",
        "LAMP_HOMED shows HOMED, LAMP_ERR shows an axis error.",
    ),
    completion=(
        "A jog press is valid when exactly one jog button becomes held while: the axis is at "
        "STANDSTILL, ENABLE_SW has been on for at least 0.3 s, ERROR is FALSE, no homing run "
        "is in progress, the button does not point toward a limit whose switch is TRUE, and, "
        "when HOMED, ACT_POS is more than 30 mm inside [5, 995] mm on the side the jog moves "
        "toward (all as read in the input image of the cycle the press is first seen). Each "
        "valid press reaches its commanded velocity (ACT_VEL within ±2 % of ±20 or ±100 "
        "mm/s) within 0.5 s of the press, and before its release when it is shorter; presses "
        "shorter than 0.3 s are judged only on the standstill. The axis is at STANDSTILL "
        "0.5 s after every change of the jog buttons to none held or both held, unless a "
        "new jog press or a homing run has started since. While HOMED, ACT_POS "
        "stays within [5.00, 995.00] mm. ERROR_ID 1 never occurs (it fails the condition at "
        "once). End state, judged after the last scripted event and after every pending "
        "standstill check: HOMED, STANDSTILL and LAMP_HOMED = TRUE."
    ),
    time_limit_s=TIME_LIMIT_S,
    safety=(
        SafetyRule("S-JOGVEL", "|ACT_VEL| > 25 mm/s while HOMED = FALSE, except during a "
                   "drive-internal homing run (from the accepted HOME edge until HOMED; if the "
                   "run is interrupted, until the axis is at standstill again)."),
        SafetyRule("S-LIMDIR", "Motion (|v| > 1 mm/s) toward a hardware limit whose switch "
                   "is TRUE (LIM_NEG: moving negative, LIM_POS: moving positive), or a MOVE_VEL "
                   "edge whose VELOCITY points toward a limit whose switch is TRUE in that "
                   "cycle's input image; both outside a drive-internal homing run (as in "
                   "S-JOGVEL). S-HWLIM does NOT apply in this task: creeping into a limit "
                   "while unhomed is allowed (the drive stops it with ERROR_ID 4)."),
    ),
    published=(
        "Homing may be started from any position (on the cam, beyond it, or below it).",
        "A jog may run the unhomed axis into a hardware limit switch; RESET_PB and further "
        "jog presses (also toward the actuated limit) follow.",
    ),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition(
            "C1", {"x0_mm": 500.0, "offset_mm": 37.0},
            (enable_on(0.5), press(1.0, "HOME_PB"), hold(10.0, "JOG_P", 12.0),
             hold(14.0, "JOG_P", 30.0), hold(32.0, "JOG_N", 33.0)),
            note="homed jog held until it must stop by itself at 995 mm"),
        Condition(
            "C2", {"x0_mm": 120.0, "offset_mm": 0.0},
            (enable_on(0.5), hold(1.0, "JOG_N", 10.0), press(12.0, "RESET_PB"),
             hold(13.0, "JOG_N", 14.0), hold(15.0, "JOG_P", 17.0), press(19.0, "HOME_PB"),
             hold(30.0, "JOG_N", 31.0)),
            note="unhomed creep into LIM_NEG (about 7.3 s), reset, refused jog, homing on the cam"),
        Condition(
            "C3", {"x0_mm": 900.0, "offset_mm": -200.0},
            (enable_on(0.5, 20.5), hold(1.0, "JOG_P", 2.0), hold(1.0, "JOG_N", 2.0),
             press(3.0, "HOME_PB"), hold(20.0, "JOG_P", 21.0), enable_on(23.0),
             hold(25.0, "JOG_N", 26.0)),
            note="both jogs together; ENABLE_SW off during a homed jog"),
    ),
    plant="plants.tasks.mot_e07.plant",
    reference="reference.st",
    changes=(
        "Valid homed press: 'more than 15 mm inside [5, 995]' became 'more than 30 mm on the "
        "side the jog moves toward'. At 500 mm/s² reaching 100 mm/s takes 10 mm and stopping "
        "again another 10 mm, so a press 15-20 mm inside the band cannot both reach its "
        "velocity and stay within [5, 995]; 30 mm leaves room for the cycle delay and a "
        "stopping margin. The side rule makes a jog away from a near bound valid.",
        "Completion made exact: a valid press also needs STANDSTILL, ENABLE_SW on for 0.3 s "
        "(power-up 0.1 s) and no homing run; presses shorter than 0.3 s need not reach the "
        "velocity (the 100 mm/s ramp alone takes 0.2 s of a 0.2 s press); 'standstill within "
        "0.5 s of release' counts from every change of the jog buttons to none or both "
        "held (so both buttons pressed together must not move the axis). "
        "The [5, 995] band of the specification is judged while HOMED.",
        "Safety rules made exact and named: S-JOGVEL (the unhomed speed rule) with the "
        "homing exception extended to an interrupted run's standstill; S-LIMDIR also judges "
        "the MOVE_VEL edge toward an actuated limit ('no command is sent'), because the D07 "
        "drive itself stops at an actuated switch and rejects such commands, so motion toward "
        "it cannot occur; only the command can be judged.",
        "Unstated values fixed: power-up 0.1 s (D07 default), C2 offset 0 mm; ENABLE_SW is "
        "OFF until the scripted switch-on (the catalog scripts 'ENABLE 0.5'). The published "
        "ranges state the event timing the scripts use.",
        "Published ranges are data (PUBLISHED_RANGES). 'ENABLE_SW may be switched off and on "
        "again later' got a number containing the catalog's value (C3: 20 s): once on, "
        "ENABLE_SW stays on 1-40 s (an ENABLE_SW left on counts as on to the end of the run).",
    ),
    judge={"reach_s": REACH_S, "standstill_s": STANDSTILL_S},
    deadlines=("reach_s", "standstill_s"),
)
