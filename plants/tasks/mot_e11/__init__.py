"""MOT-E11 · VFD conveyor drive with preset speeds, direction change and fault reset
(TASKS/MOT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

CHECKPOINT_SLACK_S = 0.5
"""A checkpoint lies this long after the end of the ideal ramp that follows an event."""

PUBLISHED_RANGES = (
    ParamRange("t_acc_s", 1.0, 4.0, "s", "Ramp-up time T_acc (0 -> 50 Hz) {range}."),
    ParamRange("t_dec_s", 1.0, 4.0, "s", "Ramp-down time T_dec (50 Hz -> 0) {range}, independent "
               "of T_acc."),
    ParamRange("coast_hz_s", 5.0, 20.0, "Hz/s", "Coast-down after a trip {range}."),
    ParamRange("cause_s", 1.0, 5.0, "s", "At most one trip per condition, at any time; its cause "
               "lasts {range}, and RESET_PB may be pressed before the cause has ended (that reset "
               "fails).", on="duration", kinds=("trip",)),
    ParamRange("event_t_s", 1.0, 26.0, "s", "Operator events (switch and selector changes, "
               "RESET_PB presses) and the trip at {range}.", on="time"),
)
"""Published ranges as data: the text is rendered from them and the tests check every condition."""

SPEEDS_HZ = {"00": 15.0, "01": 25.0, "10": 35.0, "11": 50.0}
"""Preset frequency of each selector position, keyed by the bits SEL_B SEL_A."""


TASK = TaskSpec(
    id="MOT-E11",
    title="VFD conveyor drive with preset speeds, direction change and fault reset",
    devices=(
        "D01 operator panel: RUN_SW (maintained run switch), DIR_SW (maintained direction "
        "switch), the speed selector (two maintained bits SEL_B, SEL_A) and RESET_PB (NO "
        "push-button, a press lasts 0.3 s).",
        "D06 variable-frequency drive (f_max = 50 Hz) driving the conveyor. With exactly one of "
        "VFD_FWD / VFD_REV TRUE, no fault and no run-inhibit, the output frequency f ramps "
        "toward +f_ref (VFD_FWD) or -f_ref (VFD_REV), f_ref = SPEED_REF / 27648 * 50 Hz "
        "(negative SPEED_REF reads as 0); otherwise (no run command, or both) it ramps toward "
        "0. f changes at 50 Hz / T_acc per second while |f| rises and at 50 Hz / T_dec per "
        "second while |f| falls; a reversal passes through 0 (down at the T_dec rate, up at "
        "the T_acc rate).",
        "Drive trip: VFD_FAULT goes TRUE, VFD_READY and VFD_RUNNING go FALSE, and f coasts "
        "to 0 at the coast-down rate whatever the run commands are. A FALSE->TRUE edge of "
        "VFD_RST clears the fault only if the trip's cause has ended (an edge before that is "
        "ignored; a new edge is needed). After a successful reset the drive runs only after a "
        "fresh FALSE->TRUE edge of VFD_FWD or VFD_REV (run-inhibit).",
        "Drive status: VFD_READY = no fault; VFD_RUNNING = |f| > 0.2 Hz and no fault; "
        "VFD_AT_SPEED = running and |f - target| <= 0.5 Hz; FREQ_ACT = f in 0.1 Hz, signed "
        "(positive = forward).",
    ),
    io=(
        Signal("%IX0.0", "RUN_SW", "BOOL", "maintained run switch (TRUE = run)"),
        Signal("%IX0.1", "SEL_A", "BOOL", "speed select bit A"),
        Signal("%IX0.2", "SEL_B", "BOOL", "speed select bit B"),
        Signal("%IX0.3", "DIR_SW", "BOOL", "FALSE = forward, TRUE = reverse"),
        Signal("%IX0.4", "RESET_PB", "BOOL", "NO push-button, TRUE while pressed"),
        Signal("%IX1.0", "VFD_READY", "BOOL", "drive ready (no fault)"),
        Signal("%IX1.1", "VFD_RUNNING", "BOOL",
               "drive running (frequency above 0.2 Hz either way, no fault)"),
        Signal("%IX1.2", "VFD_AT_SPEED", "BOOL", "drive at its commanded frequency (±0.5 Hz)"),
        Signal("%IX1.3", "VFD_FAULT", "BOOL", "drive tripped"),
        Signal("%IW140", "FREQ_ACT", "INT", "actual frequency, signed", "0.1 Hz"),
        Signal("%QX0.0", "VFD_FWD", "BOOL", "run forward command"),
        Signal("%QX0.1", "VFD_REV", "BOOL", "run reverse command"),
        Signal("%QX0.2", "VFD_RST", "BOOL", "fault reset (acts on its FALSE->TRUE edge)"),
        Signal("%QX0.3", "LAMP_FAULT", "BOOL", "fault lamp"),
        Signal("%QW140", "SPEED_REF", "INT", "frequency reference, raw 0..27648 = 0..50 Hz",
               "raw"),
    ),
    spec=(
        "(SEL_B, SEL_A) = 00 -> 15 Hz, 01 -> 25 Hz, 10 -> 35 Hz, 11 -> 50 Hz.",
        "RUN_SW = TRUE runs the conveyor in the direction of DIR_SW (VFD_FWD for FALSE, VFD_REV "
        "for TRUE); RUN_SW = FALSE removes the run command (the drive ramps down).",
        "A DIR_SW change while running: remove the run command, wait until |FREQ_ACT| < 0.5 Hz, "
        "then run in the new direction. In general: never command the direction opposite to "
        "the drive's rotation while |FREQ_ACT| >= 0.5 Hz; if DIR_SW returns to the direction "
        "of rotation before the drive has stopped, run on in that direction at once.",
        "While running, SPEED_REF carries the selected frequency (raw = f_sel / 50 * 27648, "
        "rounded); a selector change while running takes effect at once.",
        "A fault (VFD_FAULT = TRUE) drops the run command. LAMP_FAULT = VFD_FAULT (on from the "
        "trip until a successful reset).",
        "A RESET_PB rising edge pulses VFD_RST for >= 100 ms.",
        "After a fault, running again needs an off->on change of RUN_SW (a FALSE->TRUE change "
        "between consecutive scans) that comes after VFD_FAULT has returned to FALSE; keeping "
        "RUN_SW on through the fault and the reset is not enough.",
    ),
    completion=(
        "Checkpoints: one lies 0.5 s after each event (a change of the selector, RUN_SW or "
        "DIR_SW, a drive trip, a RESET_PB press) plus the time the drive needs at its rates "
        "(50 Hz / T_acc while |f| rises, 50 Hz / T_dec while it falls, the coast-down rate "
        "while tripped) to go from its frequency at the event to the frequency the "
        "specification then calls for (through 0 for a reversal). At every checkpoint FREQ_ACT "
        "must equal the expected signed frequency within ±0.5 Hz, and LAMP_FAULT the expected "
        "value, where expected means what a program following the specification has at that "
        "moment. Success holds at the last checkpoint if every checkpoint was met; a missed "
        "checkpoint fails the condition at once."
    ),
    time_limit_s=32.0,
    safety=(
        SafetyRule("S-BOTHDIR", "VFD_FWD and VFD_REV are both TRUE in one output image."),
        SafetyRule("S-REVERSE", "VFD_REV is TRUE in a scan whose input image has FREQ_ACT > 5 "
                   "(turning forward faster than 0.5 Hz), or VFD_FWD is TRUE in a scan whose "
                   "input image has FREQ_ACT < -5 (turning in reverse faster than 0.5 Hz)."),
        SafetyRule("S-RESTART", "After a drive trip (a scan whose input image has VFD_FAULT = "
                   "TRUE), a FALSE->TRUE edge of VFD_FWD or VFD_REV is allowed only once RUN_SW "
                   "has changed from FALSE to TRUE between two consecutive scans, the later of "
                   "which has VFD_FAULT = FALSE."),
    ),
    published=(
        "RUN_SW is off at t = 0; the selector and DIR_SW may be in any position at t = 0.",
        "Any selector changes, with running, stopped and reversing drives. An event that "
        "changes the frequency the specification calls for comes only after the drive has "
        "settled (plus 0.5 s) from the previous one.",
    ),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", {"t_acc_s": 2.0, "t_dec_s": 2.0, "coast_hz_s": 10.0, "sel": "00"}, (
            Event(1.0, "on", "RUN_SW"), Event(6.0, "select", "01"), Event(12.0, "select", "11"),
            Event(18.0, "select", "10"), Event(24.0, "off", "RUN_SW"),
        )),
        Condition("C2", {"t_acc_s": 1.0, "t_dec_s": 3.0, "coast_hz_s": 10.0, "sel": "11"}, (
            Event(1.0, "on", "RUN_SW"), Event(8.0, "on", "DIR_SW"), Event(16.0, "select", "00"),
            Event(20.0, "off", "DIR_SW"), Event(26.0, "off", "RUN_SW"),
        ), note="reversal from +50 Hz to -50 Hz at 8.0 and from -15 Hz to +15 Hz at 20.0"),
        Condition("C3", {"t_acc_s": 2.0, "t_dec_s": 2.0, "coast_hz_s": 10.0, "sel": "01"}, (
            Event(1.0, "on", "RUN_SW"), Event(8.0, "trip", "VFD", 3.0),
            Event(9.0, "press", "RESET_PB"), Event(12.0, "press", "RESET_PB"),
            Event(15.0, "off", "RUN_SW"), Event(16.0, "on", "RUN_SW"), Event(24.0, "off", "RUN_SW"),
        ), note="the reset at 9.0 fails (cause until 11.0); RUN_SW stays on through the fault "
                "and the reset at 12.0, so the drive stays off until RUN_SW is cycled at 15/16",
            time_limit_s=30.0),
    ),
    plant="plants.tasks.mot_e11.plant",
    reference="reference.st",
    search="plants.tasks.mot_e11.search",
    changes=(
        "The spec's direction-change rule is stated in general form (never command the "
        "direction opposite to a rotation of >= 0.5 Hz; run on at once if DIR_SW returns "
        "before the stop), so that it and S-REVERSE are unambiguous; the catalog conditions "
        "are not affected.",
        "S-REVERSE is judged on FREQ_ACT in the input image of the same scan (threshold "
        "0.5 Hz = 5 counts) and S-RESTART on RUN_SW off->on changes seen with VFD_FAULT = "
        "FALSE, i.e. after the fault has cleared, as the specification asks.",
        "The VFD_RST pulse length (>= 100 ms) is part of the specification but not judged: "
        "the drive model acts on the edge.",
        "Two checkpoints that fall on the same tick (C3: after the trip and after the failed "
        "reset, both at 11.0 s) are judged once. The expected values are computed by running "
        "a program that follows the specification on the condition's plant before the run.",
        "Published ranges are data (PUBLISHED_RANGES). Additions the catalog left implicit: "
        "RUN_SW is off at t = 0, at most one trip per condition, operator events at 1-26 s "
        "(the catalog's span), and a demand-changing event only "
        "after the drive has settled from the previous one (all catalog conditions keep "
        "this); the catalog's numbers (ramps, coast, cause, script, T = 32/32/30 s) are "
        "unchanged. The initial selector position is the condition parameter `sel`.",
    ),
    judge={"checkpoint_slack_s": CHECKPOINT_SLACK_S},
    deadlines=("checkpoint_slack_s",),
)
