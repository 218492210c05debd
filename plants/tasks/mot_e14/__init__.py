"""MOT-E14 · Servo belt in velocity mode: stop, error, reset, controlled restart (TASKS/MOT-E.md)."""

from __future__ import annotations

from plants.tasks.axis_io import axis_block
from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

RUN_VELOCITY_MM_S = 250.0
RUN_ACCEL = 500
REACH_S = 1.5
"""IN_VEL at 250 mm/s is due this long after every valid RUN_SW rising edge."""
STANDSTILL_S = 1.0
"""Standstill is due this long after RUN_SW is switched off."""
RESET_S = 0.5
"""ERROR is FALSE this long after a RESET_PB press that the drive can accept."""
FLASH_PERIOD_S = (0.9, 1.1)
FLASH_DUTY = (0.4, 0.6)

RANGES = {  # name -> (lo, hi): the published ranges; the solver's sentences are rendered from them
    "event_t_s": (0.5, 33.0),
    "run_on_s": (0.2, 15.0),
    "stop_hold_s": (0.3, 3.0),
    "press_s": (0.3, 0.3),
    "fault_clear_s": (1.0, 5.0),
    "powerup_ms": (100.0, 100.0),
}
_RANGE_TEXT = {  # name -> (unit, sentence with {range}, on, event kinds)
    "event_t_s": ("s", "Scripted events (RUN_SW switched on, STOP and RESET_PB presses, fault "
                  "onsets) start at {range}; RUN_SW is OFF at t = 0.", "time", ()),
    "run_on_s": ("s", "RUN_SW stays on {range} each time it is switched on; it is off at least "
                 "0.2 s between two on periods and is off after the last one. It may be switched "
                 "on while STOP is pressed, while the drive is in error, and switched off during "
                 "the run-up.", "duration", ("on",)),
    "stop_hold_s": ("s", "STOP is held {range}, also while the belt runs or while RUN_SW is "
                    "switched.", "duration", ("hold",)),
    "press_s": ("s", "RESET_PB presses last {lo} s; RESET_PB may be pressed before the cause of "
                "a fault has ended (the drive then keeps ERROR).", "duration", ("press",)),
    "fault_clear_s": ("s", "Faults of types 3 (belt jam) and 8 (drive fault), at most one of each "
                      "type per run, at any time: the cause ends {range} after the onset.",
                      "duration", ("jam", "drive_fault")),
    "powerup_ms": ("ms", "Drive power-up delay {lo} ms.", "param", ()),
}


def published_ranges() -> tuple[ParamRange, ...]:
    """`RANGES` as the framework's range records (rendered text, audit, fuzzing)."""
    rows = []
    for name, (lo, hi) in RANGES.items():
        unit, text, on, kinds = _RANGE_TEXT[name]
        default = 0.3 if name == "press_s" else 0.0
        rows.append(ParamRange(name, lo, hi, unit, text, on=on, kinds=kinds, default=default))
    return tuple(rows)


def run(t_on: float, t_off: float) -> Event:
    """RUN_SW switched on at ``t_on`` and off again at ``t_off`` (seconds)."""
    return Event(t_on, "on", "RUN_SW", round(t_off - t_on, 6))


def stop(t: float, until: float) -> Event:
    """STOP pressed (STOP_NC = FALSE) from t to ``until``."""
    return Event(t, "hold", "STOP", round(until - t, 6))


def reset(t: float) -> Event:
    """A standard 0.3 s RESET_PB press."""
    return Event(t, "press", "RESET_PB")


def drive_fault(t: float, clears: float) -> Event:
    """ERROR 8 at t; its cause ends at ``clears``."""
    return Event(t, "drive_fault", "BELT", round(clears - t, 6))


def jam(t: float, freed: float) -> Event:
    """Belt jam (ERROR 3) from t until it is freed."""
    return Event(t, "jam", "BELT", round(freed - t, 6))


TASK = TaskSpec(
    id="MOT-E14",
    title="Servo belt in velocity mode: stop, error, reset, controlled restart",
    devices=(
        "D01 operator panel: maintained run switch RUN_SW (TRUE = on), stop push-button "
        "STOP_NC (NC: FALSE while pressed), RESET_PB (NO: TRUE while pressed); lamps LAMP_RUN "
        "and LAMP_ERR.",
        "D07 servo drive, axis n = 0 'BELT' of the standard axis block (Table A): an endless "
        "belt, u = mm, no soft limits, no limit switches, no reference cam (HOME is not used); "
        "v_max 500 mm/s, a_max 5000 mm/s², a_def 1000 mm/s²; power-up delay 100 ms. ACT_POS "
        "counts the belt travel (starts at 0).",
        "Drive power: ENABLE (level) sets POWERED after the power-up delay; ENABLE = FALSE "
        "while moving stops the belt at a_max and POWERED clears at standstill.",
        "MOVE_VEL (edge): needs POWERED (else ERROR with ERROR_ID 5), allowed unhomed; "
        "accelerates at ACCEL (mm/s², <= 0 means a_def, clipped to a_max) to the signed "
        "VELOCITY (0.1 mm/s, clipped to v_max); while MOVE_VEL stays TRUE, changes of VELOCITY "
        "and ACCEL are followed; its falling edge does NOT stop the belt. IN_VEL = TRUE while "
        "the speed is within ±0.5 % (min 0.5 mm/s) of VELOCITY.",
        "HALT (edge): decelerates at ACCEL to standstill, then DONE; a later MOVE_VEL edge "
        "aborts the halt. STOP (level): brakes at a_max; while STOP is TRUE every other command "
        "is ignored (ABORTED is set). Command edges act on a FALSE->TRUE change between "
        "consecutive output images; only the highest-ranked new edge of a cycle is executed "
        "(STOP > HALT > HOME > MOVE_ABS > MOVE_REL > MOVE_VEL > GEAR_IN). STANDSTILL = |v| < "
        "0.5 mm/s.",
        "Faults (ErrorStop: ERROR = TRUE, every command is ignored, IN_VEL = FALSE, the active "
        "command ends): ERROR_ID 8 (drive fault) brakes the belt at a_max and drops POWERED; "
        "ERROR_ID 3 (belt jam) stops a moving belt at once (a jammed belt at rest raises it as "
        "soon as it is commanded to move). A RESET edge clears ERROR only after the fault's "
        "cause has ended (otherwise nothing happens and ERROR stays); after an ERROR_ID 8 reset "
        "the drive re-powers 100 ms later if ENABLE is TRUE. Motion commands of the program "
        "that the drive rejects (MOVE_VEL while not POWERED, bad parameters) also raise ERROR.",
    ),
    io=axis_block() + (
        Signal("%IX0.0", "RUN_SW", "BOOL", "maintained run switch"),
        Signal("%IX0.1", "STOP_NC", "BOOL", "NC stop"),
        Signal("%IX0.2", "RESET_PB", "BOOL", "NO"),
        Signal("%QX0.0", "LAMP_RUN", "BOOL", "= IN_VEL"),
        Signal("%QX0.1", "LAMP_ERR", "BOOL", "flashing 1 Hz while ERROR"),
    ),
    spec=(
        "A valid RUN_SW rising edge (ERROR = FALSE and STOP_NC = TRUE in that cycle): ENABLE "
        "(if not yet on), wait for POWERED, then MOVE_VEL with VELOCITY 2500 (250.0 mm/s) and "
        "ACCEL 500. A RUN_SW rising edge while ERROR is TRUE or STOP is pressed is ignored.",
        "RUN_SW off: HALT with ACCEL 500.",
        "STOP_NC = FALSE: STOP (level) while pressed. Afterwards the belt stays stopped until "
        "the next RUN_SW rising edge that comes after the STOP release.",
        "On ERROR: LAMP_ERR flashes (0.5 s on / 0.5 s off); LAMP_ERR is off while ERROR is "
        "FALSE. A RESET_PB rising edge pulses the axis RESET; after a successful reset the belt "
        "stays stopped until a new RUN_SW rising edge.",
        "LAMP_RUN shows IN_VEL.",
    ),
    completion=(
        "Every valid RUN_SW rising edge is followed within 1.5 s by IN_VEL = TRUE with the belt "
        "at 250.0 mm/s ±0.5 %, unless RUN_SW is switched off, STOP is pressed or ERROR rises "
        "before. The belt reaches standstill within 1.0 s after RUN_SW is switched off, unless "
        "RUN_SW is switched on again first. A RESET_PB press (rising edge) while ERROR is TRUE "
        "and the "
        "fault's cause has ended gives ERROR = FALSE within 0.5 s. In every cycle LAMP_RUN in "
        "the output image equals IN_VEL in that cycle's input image, and LAMP_ERR is FALSE "
        "when that input image has ERROR = FALSE. While ERROR is TRUE, LAMP_ERR flashes: "
        "between two consecutive rising edges of LAMP_ERR inside one error the period is "
        "0.88-1.10 s and the lamp is on for 40-60 % of it (lower bound 20 ms tolerant), and "
        "LAMP_ERR never keeps one state for more than 0.66 s (counted from the error onset at "
        "the latest). Success: after the last scripted event (and every pending check above), "
        "the belt is at standstill with ERROR = FALSE."
    ),
    time_limit_s=38.0,
    safety=(
        SafetyRule("S-STOPPB", "The axis STOP output is FALSE in a cycle whose input image has "
                   "STOP_NC = FALSE."),
        SafetyRule("S-RESTART", "A motion command (a rising edge of MOVE_VEL, MOVE_ABS, "
                   "MOVE_REL, HOME or GEAR_IN, or CSP_ON rising) with no valid RUN_SW rising "
                   "edge since the last stopping event. Stopping events: a cycle whose input "
                   "image has STOP_NC = FALSE or ERROR = TRUE, and a cycle whose output image "
                   "has STOP = TRUE or a HALT rising edge. A RUN_SW rising edge is valid in a "
                   "cycle whose input image has STOP_NC = TRUE and ERROR = FALSE; a stopping "
                   "event in the same cycle counts before that cycle's RUN_SW edge."),
    ),
    published=(),
    ranges=published_ranges(),
    conditions=(
        Condition("C1", {"powerup_ms": 100}, (run(1.0, 10.0), run(14.0, 25.0)),
                  time_limit_s=30.0),
        Condition("C2", {"powerup_ms": 100}, (
            run(1.0, 14.0), drive_fault(6.0, 11.0), reset(8.0), reset(12.0), run(15.0, 28.0),
        ), note="RESET at 8.0 fails (fault cause still active)", time_limit_s=35.0),
        Condition("C3", {"powerup_ms": 100}, (
            run(1.0, 11.0), jam(8.0, 9.5), reset(10.0), run(12.0, 23.0), stop(20.0, 21.0),
            run(24.0, 32.0),
        ), time_limit_s=38.0),
        Condition("C4", {"powerup_ms": 100}, (
            run(1.0, 5.0), run(5.2, 12.0), stop(13.5, 16.0), run(14.0, 20.0), run(21.0, 30.0),
        ), note="RUN on at 14.0 during the held STOP is ignored", time_limit_s=36.0),
    ),
    plant="plants.tasks.mot_e14.plant",
    reference="reference.st",
    changes=(
        "Completion made exact: the 1.5 s IN_VEL check also requires the belt at 250.0 mm/s "
        "(a program commanding another speed would get IN_VEL too) and is dropped when RUN_SW "
        "goes off, STOP is pressed or an error occurs before it is due; LAMP_RUN = IN_VEL and "
        "LAMP_ERR off without ERROR are judged in every cycle; the flash rule is judged on the "
        "lamp edges inside one error (period 1.0 ± 0.1 s with the 2-tick tolerance of A5 on "
        "the lower bound, duty 40-60 %, no state held longer than 0.6·1.1 = 0.66 s).",
        "Added a reset check (ERROR FALSE 0.5 s after a RESET_PB press the drive can accept) "
        "and ERROR = FALSE in the final state: without them a program that never resets passes "
        "(a RUN_SW edge during an error is not valid, so no IN_VEL check would follow).",
        "S-RESTART (task form) covers every motion command of the block, not only MOVE_VEL, "
        "and its stopping events are spelt out (STOP_NC or ERROR in the input image, STOP or a "
        "HALT edge in the output image). The STOP rule is judged as S-STOPPB.",
        "Belt jam: the catalog's 'stops the belt at once' is modelled as an obstruction at the "
        "belt's current position for the jam window, so a belt at rest raises ERROR 3 only "
        "when commanded to move. No soft limits: the D07 limit logic is placed far outside any "
        "reachable travel.",
        "Unstated values fixed: RUN_SW is OFF at t = 0 (the scripts switch it on), STOP and "
        "RESET_PB presses as scripted (RESET 0.3 s), power-up delay 100 ms in every "
        "condition. Published prose ('any operator sequence') became ranges (RANGES).",
    ),
    judge={"reach_s": REACH_S, "standstill_s": STANDSTILL_S, "reset_s": RESET_S},
    deadlines=("reach_s", "standstill_s", "reset_s"),
)
