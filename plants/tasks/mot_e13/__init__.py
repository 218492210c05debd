"""MOT-E13 · Reference search for a raw encoder axis (TASKS/MOT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

PUBLISHED_RANGES = (
    ParamRange("x0_mm", 200.0, 1400.0, "mm", "The axis starts at rest at x = {range} (on the cam "
               "or to its right)."),
    ParamRange("v_fast_mm_s", 150.0, 200.0, "mm/s", "Fast speed v_fast {range}; creep speed "
               "v_creep 10 mm/s."),
    ParamRange("tau_s", 0.05, 0.2, "s", "Time constant tau {range} (run-up and coast-down)."),
    ParamRange("enc_offset", -999999, 999999, "counts", "ENC at power-up: any value from {lo} "
               "to {hi} counts."),
    ParamRange("event_t_s", 1.0, 7.0, "s", "Presses (0.3 s) at {range}: HOME_PB at 1 s; a STOP "
               "press may interrupt the run, followed by a new HOME_PB press at least 1.5 s "
               "later.", on="time"),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition."""

ZERO_WINDOW_MM = (259.5, 260.5)
"""The counter must be zeroed while the true position lies here (the cam's + edge is 260)."""
FINAL_WINDOW_MM = (1257.0, 1263.0)
"""Final standstill window: the cam edge + 1000.0 mm, +-3 mm."""
CREEP_COUNTS = 9040
"""After the zeroing FAST must be off while driving once ENC > 9040 (100 mm before the
target, with a 2-tick tolerance at 200 mm/s, A5)."""


TASK = TaskSpec(
    id="MOT-E13",
    title="Reference search for a raw encoder axis",
    devices=(
        "D01 operator panel: HOME_PB (NO) push-button, STOP_NC (NC) stop button.",
        "D08 two-speed motor axis on a 1500 mm travel (true position x, 0 to 1500 mm). FWD "
        "drives toward +x, REV toward -x, FAST selects the fast speed v_fast (FALSE = creep "
        "speed v_creep = 10 mm/s); FWD and REV together, or neither, command speed 0. The "
        "speed follows the command as a first order lag with time constant tau in both "
        "directions (no brake: after the drive is switched off the axis coasts about v * tau, "
        "i.e. up to 40 mm from fast speed and up to 2 mm from creep speed).",
        "Incremental encoder ENC: 0.1 mm per count, counting up toward +x; its value at "
        "power-up is arbitrary. A rising edge of ENC_RESET sets the counter to 0 at the "
        "position the axis has in that scan (it reads 0 there from the next scan on).",
        "Reference cam REF: TRUE for 200 mm <= x <= 260 mm. Its + edge (x = 260 mm, where REF "
        "falls when moving +) is the reference point.",
        "Over-travel switches LS_NEG (TRUE for x <= 20 mm) and LS_POS (TRUE for x >= 1480 mm), "
        "also hard-wired: an actuated switch cuts the drive in its direction. Mechanical end "
        "stops at x = 0 and x = 1500 mm.",
    ),
    io=(
        Signal("%IX0.0", "HOME_PB", "BOOL", "start reference run (NO push-button)"),
        Signal("%IX0.1", "STOP_NC", "BOOL", "NC stop: FALSE while pressed"),
        Signal("%IX0.2", "REF", "BOOL", "reference cam"),
        Signal("%IX0.3", "LS_NEG", "BOOL", "over-travel - (TRUE = actuated)"),
        Signal("%IX0.4", "LS_POS", "BOOL", "over-travel + (TRUE = actuated)"),
        Signal("%ID240", "ENC", "DINT", "encoder counts", "0.1 mm"),
        Signal("%QX0.0", "FWD", "BOOL", "drive toward +x"),
        Signal("%QX0.1", "REV", "BOOL", "drive toward -x"),
        Signal("%QX0.2", "FAST", "BOOL", "TRUE = fast, FALSE = creep"),
        Signal("%QX0.3", "ENC_RESET", "BOOL", "edge: counter := 0"),
        Signal("%QX0.4", "LAMP_HOMED", "BOOL", "axis referenced"),
    ),
    spec=(
        "A HOME_PB rising edge in a scan with STOP_NC = TRUE starts a reference run when none "
        "is running (an edge during a run is ignored).",
        "If REF is TRUE at the start of the run, first creep + until REF falls, stop, then "
        "continue with the search.",
        "Search - in FAST until REF rises; stop; wait >= 0.5 s; creep + until REF falls; at "
        "that edge pulse ENC_RESET (the reference is the cam's + edge).",
        "Then move on to ENC = +10000 (1000.0 mm from the reference) in FAST, switching to "
        "creep >= 100 mm before the target, and stop within +-3 mm (a creeping axis coasts "
        "about v_creep * tau <= 2 mm after the drive is switched off). Light LAMP_HOMED (at "
        "the zeroing or on arrival).",
        "Every change of direction respects the 0.5 s dead time (S-DEADTIME), also after "
        "leaving the cam at the start.",
        "STOP_NC = FALSE switches FWD and REV off in the same scan and aborts the run. The "
        "axis then stays off until the next accepted HOME_PB edge, which starts the reference "
        "run again from the beginning.",
    ),
    completion=(
        "A run is active from an accepted HOME_PB edge (a rising edge in a scan whose input "
        "image has STOP_NC = TRUE, while no run is active) until a scan whose input image has "
        "STOP_NC = FALSE. (1) Every rising edge of ENC_RESET happens while the true position "
        "is 259.5 mm <= x <= 260.5 mm (the counter's zeroing at the cam's + edge). (2) "
        "LAMP_HOMED is FALSE from power-up, and from every accepted HOME_PB edge, until the "
        "next zeroing. (3) After the zeroing, "
        "FAST is FALSE in every scan in which FWD or REV is TRUE and the input image shows "
        "ENC > 9040 (the 100 mm creep distance, with a 4 mm tolerance). (4) FWD and REV are "
        "FALSE in every scan in which no run is active (before the first HOME_PB edge, after a "
        "STOP). Success: at the first scan after the zeroing in which FWD and REV are FALSE, "
        "LAMP_HOMED is TRUE, the axis is at standstill (|v| < 0.5 mm/s) and the true position "
        "is 1257 mm <= x <= 1263 mm."
    ),
    time_limit_s=40.0,
    safety=(
        SafetyRule("S-BOTHDIR", "FWD and REV are TRUE in one output image."),
        SafetyRule("S-DEADTIME", "T_rev = 0.5 s: FWD is TRUE in a scan less than 0.48 s (0.5 s "
                   "with a 20 ms tolerance) after the first scan in which REV was FALSE again; "
                   "likewise REV after FWD."),
        SafetyRule("S-HWLIM", "An over-travel switch is actuated: x <= 20 mm (LS_NEG) or "
                   "x >= 1480 mm (LS_POS)."),
        SafetyRule("S-CRASH", "The axis reaches a mechanical end stop: x <= 0 mm or "
                   "x >= 1500 mm."),
        SafetyRule("S-STOPPB", "FWD or REV is TRUE in a scan whose input image has "
                   "STOP_NC = FALSE."),
    ),
    published=(
        "REF may chatter: for 3 scans after each true edge the reading alternates (the first "
        "scan still shows the old value, the second the new, the third the old again).",
    ),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", {"x0_mm": 900.0, "v_fast_mm_s": 150.0, "tau_s": 0.10,
                         "enc_offset": 12345, "ref_chatter": False}, (
            Event(1.0, "press", "HOME_PB"), Event(3.0, "press", "STOP"),
            Event(5.0, "press", "HOME_PB"),
        ), note="STOP during the fast search, then a new HOME_PB"),
        Condition("C2", {"x0_mm": 230.0, "v_fast_mm_s": 150.0, "tau_s": 0.05,
                         "enc_offset": -43210, "ref_chatter": False}, (
            Event(1.0, "press", "HOME_PB"),
        ), note="starts on the cam"),
        Condition("C3", {"x0_mm": 1400.0, "v_fast_mm_s": 200.0, "tau_s": 0.20,
                         "enc_offset": 250000, "ref_chatter": True}, (
            Event(1.0, "press", "HOME_PB"),
        ), note="REF edges chatter for 3 scans"),
    ),
    plant="plants.tasks.mot_e13.plant",
    reference="reference.st",
    search="plants.tasks.mot_e13.search",
    changes=(
        "C1 gains a STOP press at 3.0 s (during the fast search) and a new HOME_PB at 5.0 s, "
        "and the specification says what a STOP does: without it no condition could raise "
        "the task's S-STOPPB rule, so a program ignoring STOP would pass. Presses are "
        "published at 1-7 s: a full run takes up to 28 s, so a later restart would leave no "
        "15 % margin on T = 40 s.",
        "C2 and C3 get power-up encoder values (-43210 and 250000 counts; the catalog gave "
        "only C1's 12345), as the blind/idle note asks for differing offsets.",
        "The completion judges rules of the specification the catalog's completion left "
        "unjudged: every ENC_RESET edge lies in the zero window (1), LAMP_HOMED not before the "
        "zeroing (2), creep in the last 100 mm (3) and no drive without an active run (4); "
        "success also needs the drive switched off.",
        "REF chatter is the D08 bouncing edge: the reading alternates for 3 scans after each "
        "true edge (the review simulation's model).",
        "S-HWLIM and S-CRASH are judged on the true position; the hard-wired switches cut the "
        "drive in their direction (D08).",
    ),
    judge={"creep_counts": CREEP_COUNTS, "zero_window_mm": ZERO_WINDOW_MM,
           "final_window_mm": FINAL_WINDOW_MM},
)
