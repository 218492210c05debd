"""MOT-E04 · Two-speed transfer carriage to three stations by flag sensors (TASKS/MOT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

REQUEST_WINDOW_S = 20.0
"""Every accepted request must be completed within this time (completion rule)."""

PUBLISHED_RANGES = (
    ParamRange("v_fast_mm_s", 250.0, 400.0, "mm/s", "Fast speed v_fast {range}."),
    ParamRange("v_creep_mm_s", 20.0, 30.0, "mm/s", "Creep speed v_creep {range}."),
    ParamRange("tau_s", 0.05, 0.2, "s", "Time constant tau {range} (run-up and coast-down)."),
    ParamRange("start", 1.0, 3.0, "", "The carriage starts at rest at station {lo}, 2 or {hi}."),
    ParamRange("event_t_s", 1.0, 45.0, "s", "Scripted presses (0.3 s) of GOTO_1..3 and STOP at "
               "{range}, never two buttons together. A request comes either during motion (and is "
               "to be ignored) or while the carriage rests: since power-up, or at least 2 s after "
               "it came to rest. It may name the station the carriage stands at. A STOP may come "
               "during a move.", on="time"),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition."""
RANGES = {r.name: (r.lo, r.hi) for r in PUBLISHED_RANGES}
"""name -> (lo, hi), for checks written against the earlier dict."""


TASK = TaskSpec(
    id="MOT-E04",
    title="Two-speed transfer carriage to three stations by flag sensors",
    devices=(
        "D01 operator panel: GOTO_1, GOTO_2, GOTO_3 (NO) request push-buttons, STOP_NC (NC) "
        "stop button.",
        "D08 two-speed motor axis: a carriage on a 3000 mm track. FWD drives toward +x, REV "
        "toward -x, FAST selects the fast speed v_fast (FALSE = creep speed v_creep); FWD and "
        "REV together, or neither, command speed 0. The speed follows the command as a first "
        "order lag with time constant tau in both directions (no brake: after the drive is "
        "switched off the carriage coasts about v * tau). There is no encoder.",
        "Stations at x = 500, 1500 and 2500 mm. Flag sensors: SLOW_k is TRUE for "
        "|x - x_k| <= 100 mm, AT_k for |x - x_k| <= 8 mm.",
        "Over-travel switches LS_L (TRUE for x <= 40 mm) and LS_R (TRUE for x >= 2960 mm) are "
        "also hard-wired: an actuated switch cuts the drive in its direction. Mechanical end "
        "stops at x = 0 and x = 3000 mm.",
    ),
    io=(
        Signal("%IX0.0", "GOTO_1", "BOOL", "request station 1"),
        Signal("%IX0.1", "GOTO_2", "BOOL", "request station 2"),
        Signal("%IX0.2", "GOTO_3", "BOOL", "request station 3"),
        Signal("%IX0.3", "STOP_NC", "BOOL", "NC stop (cancels the request)"),
        Signal("%IX1.0", "SLOW_1", "BOOL", "slow-down flag station 1"),
        Signal("%IX1.1", "SLOW_2", "BOOL", "slow-down flag station 2"),
        Signal("%IX1.2", "SLOW_3", "BOOL", "slow-down flag station 3"),
        Signal("%IX1.3", "AT_1", "BOOL", "in-position flag station 1"),
        Signal("%IX1.4", "AT_2", "BOOL", "in-position flag station 2"),
        Signal("%IX1.5", "AT_3", "BOOL", "in-position flag station 3"),
        Signal("%IX1.6", "LS_L", "BOOL", "over-travel left"),
        Signal("%IX1.7", "LS_R", "BOOL", "over-travel right"),
        Signal("%QX0.0", "FWD", "BOOL", "drive toward +x"),
        Signal("%QX0.1", "REV", "BOOL", "drive toward -x"),
        Signal("%QX0.2", "FAST", "BOOL", "TRUE = fast, FALSE = creep"),
        Signal("%QX0.3", "LAMP_AT", "BOOL", "stopped at requested station"),
    ),
    spec=(
        "At power-up the carriage stands at a station (its AT flag is TRUE).",
        "On a GOTO_k edge: drive toward station k, in FAST while SLOW_k is FALSE and in creep "
        "while SLOW_k is TRUE; switch the drive off when AT_k turns TRUE. The SLOW and AT flags "
        "of intermediate stations are ignored.",
        "LAMP_AT is on while the carriage rests at the requested station (drive off, AT_k TRUE).",
        "Requests during motion are ignored. A request for the current station just lights "
        "LAMP_AT.",
        "STOP cancels the running request; the carriage may then rest between stations, even "
        "past a station it was about to pass. The next request must still drive toward its "
        "station, so the program has to keep track of which side of each station the carriage "
        "is on (from the flags passed and the direction of travel).",
        "GOTO_k edges in a scan with STOP_NC = FALSE are ignored. After a STOP the drive stays "
        "off until the next accepted request.",
    ),
    completion=(
        "A request is accepted when a rising edge of GOTO_k occurs in a scan whose input image "
        "has STOP_NC = TRUE and no accepted request is pending; an accepted request is pending "
        "until it is completed or a scan shows STOP_NC = FALSE (cancelled). Completed means: "
        "|x - x_k| <= 8 mm and |v| < 1 mm/s, with LAMP_AT TRUE in that scan's output image. "
        "(1) Every accepted request is completed within 20 s of its GOTO_k edge. (2) While a "
        "request for station k is pending, FAST is FALSE in every scan in which FWD or REV is "
        "TRUE and the input image shows SLOW_k = TRUE. (3) LAMP_AT is FALSE in every scan in "
        "which FWD or REV is TRUE or no AT flag is TRUE in the input image. (4) FWD and REV "
        "are FALSE in every scan in which no accepted request is pending (before the first "
        "one, after completion, after a STOP). Success: all requests done by T, judged from the "
        "scan of the last scripted press on, at the first scan in which no request is pending."
    ),
    time_limit_s=65.0,
    safety=(
        SafetyRule("S-BOTHDIR", "FWD and REV are TRUE in one output image."),
        SafetyRule("S-DEADTIME", "T_rev = 0.5 s: FWD is TRUE in a scan less than 0.48 s (0.5 s "
                   "with a 20 ms tolerance) after the first scan in which REV was FALSE again; "
                   "likewise REV after FWD."),
        SafetyRule("S-HWLIM", "An over-travel switch is actuated: x <= 40 mm (LS_L) or "
                   "x >= 2960 mm (LS_R)."),
        SafetyRule("S-CRASH", "The carriage reaches a mechanical end stop: x <= 0 mm or "
                   "x >= 3000 mm."),
        SafetyRule("S-STOPPB", "FWD or REV is TRUE in a scan whose input image has "
                   "STOP_NC = FALSE."),
    ),
    published=("Flag windows as above: SLOW_k |x - x_k| <= 100 mm, AT_k |x - x_k| <= 8 mm.",),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", {"start": 1, "v_fast_mm_s": 300.0, "v_creep_mm_s": 20.0, "tau_s": 0.05}, (
            Event(1.0, "press", "GOTO_3"), Event(22.0, "press", "GOTO_1"),
            Event(43.0, "press", "GOTO_2"),
        )),
        Condition("C2", {"start": 2, "v_fast_mm_s": 400.0, "v_creep_mm_s": 30.0, "tau_s": 0.20}, (
            Event(1.0, "press", "GOTO_3"), Event(20.0, "press", "GOTO_1"),
            Event(42.0, "press", "GOTO_2"),
        ), note="GOTO_1 passes station 2 fast"),
        Condition("C3", {"start": 3, "v_fast_mm_s": 250.0, "v_creep_mm_s": 25.0, "tau_s": 0.15}, (
            Event(1.0, "press", "GOTO_3"), Event(3.0, "press", "GOTO_1"),
            Event(6.0, "press", "GOTO_2"), Event(26.0, "press", "GOTO_2"),
        ), note="GOTO_3 at 1.0: already there; GOTO_2 at 6.0 comes during motion (ignored)",
            time_limit_s=50.0),
        Condition("C4", {"start": 1, "v_fast_mm_s": 350.0, "v_creep_mm_s": 30.0, "tau_s": 0.20}, (
            Event(1.0, "press", "GOTO_3"), Event(4.0, "press", "STOP"),
            Event(7.0, "press", "GOTO_3"), Event(30.0, "press", "GOTO_2"),
        ), note="STOP at 4.0 leaves the carriage just past station 2", time_limit_s=55.0),
    ),
    plant="plants.tasks.mot_e04.plant",
    reference="reference.st",
    changes=(
        "The completion states when a request is accepted and pending, and judges three rules "
        "of the specification the catalog's completion left unjudged: creep inside the "
        "requested station's SLOW window (2), LAMP_AT only with the drive off at an AT flag "
        "(3), and no drive without a pending request (4), so a program that enters the AT "
        "window fast, lights the lamp blindly or resumes a cancelled move after STOP fails.",
        "The specification states that GOTO edges during STOP are ignored and that the drive "
        "stays off after a STOP until the next accepted request (A3).",
        "S-HWLIM and S-CRASH are judged on the true position; the hard-wired switches cut the "
        "drive in their direction (D08).",
        "Published ranges add the script's shape (press times, requests only during motion or "
        "after >= 2 s of rest); T is 50-65 s.",
    ),
    judge={"request_window_s": REQUEST_WINDOW_S},
    deadlines=("request_window_s",),
)
