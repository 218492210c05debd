"""MOT-E01 · DOL conveyor drive: start/stop, overload, contactor check (TASKS/MOT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

CHECKPOINT_DELAY_S = 0.30
"""Checkpoints lie this long after every scripted event (completion rule)."""

PRESS_S = 0.3
"""Length of a press whose duration is left at 0 (plants.devices.scripts.PRESS_S, G5)."""

PUBLISHED_RANGES = (
    ParamRange("event_t_s", 0.5, 38.0, "s", "Scripted event times {range}.", on="time"),
    ParamRange("press_s", 0.2, 1.0, "s", "Button presses last {range}.", on="duration",
               kinds=("press",), default=PRESS_S),
    ParamRange("hold_s", 2.0, 8.0, "s", "A held button stays pressed {range}.", on="duration",
               kinds=("hold",)),
    ParamRange("pickup_ms", 20.0, 60.0, "ms", "Contactor pick-up delay {range}, drop-out 20 ms."),
    ParamRange("trip_s", 2.0, 10.0, "s", "An overload trip (OL_OK = FALSE) auto-recovers {range} "
               "after it occurred.", on="duration", kinds=("trip",)),
    ParamRange("dropout_s", 1.0, 5.0, "s", "Contactor faults are possible: the contactor may drop "
               "out by itself (RUN_FB = FALSE while K1 = TRUE) and be repaired {range} later.",
               on="duration", kinds=("dropout",)),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition."""

TASK = TaskSpec(
    id="MOT-E01",
    title="DOL conveyor drive: start/stop, overload, contactor check",
    devices=(
        "D01 operator panel: START (NO), STOP_NC (NC), RESET (NO) push-buttons.",
        "D03 direct-on-line starter + conveyor motor: contactor K1 with auxiliary contact RUN_FB, "
        "overload relay OL_OK; contactor pick-up delay 20-60 ms, drop-out 20 ms; motor run-up "
        "time constant 0.5 s.",
    ),
    io=(
        Signal("%IX0.0", "START", "BOOL", "NO push-button, TRUE while pressed"),
        Signal("%IX0.1", "STOP_NC", "BOOL", "Stop button, NC: FALSE while pressed"),
        Signal("%IX0.2", "RESET", "BOOL", "NO push-button"),
        Signal("%IX0.3", "OL_OK", "BOOL", "overload relay healthy (FALSE = tripped)"),
        Signal("%IX0.4", "RUN_FB", "BOOL", "contactor auxiliary contact (TRUE = closed)"),
        Signal("%QX0.0", "K1", "BOOL", "contactor coil"),
        Signal("%QX0.1", "LAMP_RUN", "BOOL", "run lamp (shall equal RUN_FB)"),
        Signal("%QX0.2", "LAMP_FAULT", "BOOL", "fault lamp, steady while a fault is latched"),
    ),
    spec=(
        "A START edge energises K1 only if STOP_NC = TRUE, OL_OK = TRUE and no fault is latched.",
        "STOP_NC = FALSE drops K1 in the same scan.",
        "OL_OK = FALSE drops K1 and latches the fault.",
        "If K1 and RUN_FB disagree for > 200 ms, drop K1 and latch the fault.",
        "A RESET edge clears the fault only when OL_OK = TRUE and RUN_FB = FALSE. K1 then stays "
        "off until the next START edge.",
        "START together with STOP means stay off.",
    ),
    completion=(
        "Run to T = 40 s. At every checkpoint (each scripted event + 0.30 s, where a press, the "
        "release of a held button, a fault onset and a fault end each count as an event; and "
        "t = 40 s), K1 and LAMP_FAULT equal the values of the state machine in the "
        "specification. In every scan, LAMP_RUN in the output image equals RUN_FB in that "
        "scan's input image."
    ),
    time_limit_s=40.0,
    safety=(
        SafetyRule("S-STOPPB", "K1 is TRUE in a scan whose input image has STOP_NC = FALSE."),
        SafetyRule("S-OLTRIP", "K1 is TRUE in a scan whose input image has OL_OK = FALSE."),
        SafetyRule("S-RESTART", "Every rising edge of K1 must follow a rising edge of START by "
                   "at most 50 ms (the START edge is in the same scan or at most 5 scans earlier)."),
    ),
    published=(),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", {"pickup_ms": 20}, (
            Event(1.0, "press", "START"), Event(6.0, "press", "STOP"),
            Event(9.0, "press", "START"), Event(15.0, "press", "STOP"),
            Event(20.0, "press", "START"), Event(30.0, "press", "STOP"),
        )),
        Condition("C2", {"pickup_ms": 40}, (
            Event(2.0, "press", "START"), Event(8.0, "trip", "overload", 5.0),
            Event(10.0, "press", "START"), Event(11.0, "press", "RESET"),
            Event(15.0, "press", "RESET"), Event(18.0, "press", "START", 0.8),
            Event(33.0, "press", "STOP"),
        ), note="START at 10.0 and RESET at 11.0 must be ignored (overload still tripped)"),
        Condition("C3", {"pickup_ms": 60}, (
            Event(3.0, "press", "START", 0.6), Event(3.0, "press", "STOP"),
            Event(5.0, "hold", "STOP", 4.0), Event(6.0, "press", "START"),
            Event(12.0, "press", "START", 0.6), Event(14.0, "press", "START"),
            Event(25.0, "press", "STOP"),
        ), note="START with STOP, START during a held STOP and a second START change nothing"),
        Condition("C4", {"pickup_ms": 30}, (
            Event(2.0, "press", "START"), Event(7.0, "dropout", "contactor", 2.0),
            Event(10.0, "press", "RESET", 1.0), Event(12.0, "press", "START"),
            Event(30.0, "press", "STOP"),
        ), note="the contactor drops out by itself at 7.0 while K1 = TRUE and is repaired at 9.0"),
    ),
    plant="plants.tasks.mot_e01.plant",
    reference="reference.st",
    changes=(
        "Presses last 0.3 s (G5) except START at 18.0 in C2 (0.8 s), START at 3.0 and 12.0 in "
        "C3 (0.6 s) and RESET at 10.0 in C4 (1.0 s), all inside the published 0.2-1.0 s. In C3 "
        "START, pressed together with STOP, is held 0.3 s longer than STOP, so a program that "
        "starts on the START level instead of its edge is caught.",
        "The overload safety rule, unnamed in the catalog, is judged as S-OLTRIP.",
        "Published ranges are data (PUBLISHED_RANGES). Two were prose and got numbers that "
        "contain every catalog value: a held button stays pressed 2-8 s ('several seconds'), a "
        "contactor drop-out is repaired 1-5 s later ('later').",
    ),
    judge={"checkpoint_delay_s": CHECKPOINT_DELAY_S},
    deadlines=("checkpoint_delay_s",),
    search="plants.tasks.mot_e01.search",
    run_to_t=True,
)
