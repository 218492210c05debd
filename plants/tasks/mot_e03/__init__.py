"""MOT-E03 · Star–delta start of a fan with stall detection (TASKS/MOT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

DELTA_DEADLINE_S = 0.5
"""K_DELTA must be TRUE this long after SPEED_90 first reads TRUE in a run-up."""
STALL_WINDOW_S = (7.95, 8.5)
"""The stall trip (all contactors off, LAMP_FAULT on) must come inside this window after START."""
RESET_DEADLINE_S = 0.5
"""LAMP_FAULT must be off this long after the RESET press begins."""

PUBLISHED_RANGES = (
    ParamRange("tau_s", 0.51, 2.04, "s", "Run-up in star from standstill to SPEED_90 takes 1.5-6 s "
               "(τ_s {range}); a fan restarted while still coasting reaches SPEED_90 sooner."),
    ParamRange("event_t_s", 0.5, 18.0, "s", "Scripted events (START, STOP, RESET presses of 0.3 s) "
               "at {range}; a STOP may come during star, the gap or delta.", on="time"),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition."""

TASK = TaskSpec(
    id="MOT-E03",
    title="Star–delta start of a fan with stall detection",
    devices=(
        "D01 operator panel: START (NO), STOP_NC (NC) and RESET (NO) push-buttons.",
        "D05 star–delta starter + high-inertia fan: main contactor K_MAIN, star contactor "
        "K_STAR, delta contactor K_DELTA; each contactor closes in the cycle its coil turns "
        "TRUE and opens 20 ms after its coil turns FALSE. With K_MAIN + K_STAR closed the fan "
        "speed n rises toward 95 % of rated speed with the load time constant τ_s; with "
        "K_MAIN + K_DELTA closed toward 100 % with τ_s/3; otherwise (including STAR and DELTA "
        "closed together) the fan coasts down with τ_c = 10·τ_s. A jammed fan saturates at "
        "70 % in star. The speed relay SPEED_90 reads TRUE while n >= 90 %. An overload relay "
        "OL_OK opens K_MAIN by itself while tripped.",
    ),
    io=(
        Signal("%IX0.0", "START", "BOOL", "NO push-button, TRUE while pressed"),
        Signal("%IX0.1", "STOP_NC", "BOOL", "NC stop button, FALSE while pressed"),
        Signal("%IX0.2", "OL_OK", "BOOL", "overload relay healthy (FALSE = tripped)"),
        Signal("%IX0.3", "SPEED_90", "BOOL", "speed relay, TRUE when n >= 90 % rated"),
        Signal("%IX0.4", "RESET", "BOOL", "NO push-button, TRUE while pressed"),
        Signal("%QX0.0", "K_MAIN", "BOOL", "main contactor coil"),
        Signal("%QX0.1", "K_STAR", "BOOL", "star contactor coil"),
        Signal("%QX0.2", "K_DELTA", "BOOL", "delta contactor coil"),
        Signal("%QX0.3", "LAMP_FAULT", "BOOL", "fault lamp: stall or overload fault latched"),
    ),
    spec=(
        "A START edge energises K_MAIN + K_STAR, only if STOP_NC = TRUE, OL_OK = TRUE and no "
        "fault is latched.",
        "When SPEED_90 becomes TRUE: drop K_STAR and, after a gap of 60-200 ms with both "
        "K_STAR and K_DELTA off, energise K_DELTA (K_MAIN stays on). The fan then runs in "
        "delta until it is stopped.",
        "If SPEED_90 is not reached within 8.0 s of the START edge: drop all contactors and "
        "latch the fault (stall).",
        "STOP (STOP_NC = FALSE) drops all contactors in the same scan. An overload "
        "(OL_OK = FALSE) drops all contactors and latches the fault.",
        "LAMP_FAULT is on while a fault is latched. A RESET edge clears the fault if "
        "OL_OK = TRUE. Any restart after a stop, stall or overload needs a new START edge.",
    ),
    completion=(
        "Normal start (the load is free): K_DELTA is TRUE at the latest 0.5 s after the "
        "first scan (since the START edge) in which SPEED_90 reads TRUE, and never before "
        "SPEED_90 has read TRUE; from the first scan with K_MAIN and K_DELTA on and K_STAR "
        "off the fan runs in delta (exactly those two on) in every scan until the next STOP "
        "press. The condition completes in the first scan of its last scripted STOP press if "
        "the fan was running in delta up to that scan and all three contactors are off in "
        "it. In every scan in which STOP is pressed all three contactors are off; LAMP_FAULT "
        "is never on. "
        "Jammed load: K_MAIN is on from 0.5 s after the START edge until the stall trip; "
        "the stall trip (all contactors off "
        "and LAMP_FAULT on) happens 7.95-8.5 s after the START edge (the 8.0 s stall time "
        "with sampling tolerance); afterwards all contactors stay off and LAMP_FAULT stays "
        "on until the scripted RESET press, and LAMP_FAULT goes off within 0.5 s after the "
        "RESET press begins, which completes the condition."
    ),
    time_limit_s=20.0,
    safety=(
        SafetyRule("S-STOPPB", "K_MAIN is TRUE in a scan whose input image has STOP_NC = FALSE."),
        SafetyRule("S-STARDELTA", "K_STAR and K_DELTA are TRUE in the same output image, or "
                   "K_DELTA rises less than 50 ms after K_STAR fell (fewer than 5 scans with "
                   "K_STAR = FALSE between the last scan with K_STAR = TRUE and the scan in "
                   "which K_DELTA turns TRUE)."),
        SafetyRule("S-INRUSH", "K_DELTA turns TRUE (FALSE in the previous output image) in a "
                   "scan in which the fan speed n is below 85 % of rated speed."),
        SafetyRule("S-RESTART", "K_MAIN turns TRUE without a rising edge of START in the "
                   "input image since K_MAIN was last FALSE (at power-up K_MAIN counts as "
                   "stopped): after a STOP, stall or overload stop the fan may only be "
                   "restarted by a new START edge."),
    ),
    published=(
        "The load may jam: then SPEED_90 is never reached in star (the speed settles at 70 %).",
        "Gap between K_STAR off and K_DELTA on: 60-200 ms (S-STARDELTA judges < 50 ms).",
    ),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", {"tau_s": 0.6, "jam": False}, (
            Event(1.0, "press", "START"), Event(12.0, "press", "STOP"),
        ), note="SPEED_90 about 1.8 s after START"),
        Condition("C2", {"tau_s": 1.8, "jam": False}, (
            Event(1.0, "press", "START"), Event(3.0, "press", "STOP"),
            Event(5.0, "press", "START"), Event(17.0, "press", "STOP"),
        ), note="STOP during star at n = 0.64; the restart from n = 0.57 reaches SPEED_90 at 8.63 s"),
        Condition("C3", {"tau_s": 1.0, "jam": True}, (
            Event(1.0, "press", "START"), Event(12.0, "press", "RESET"),
        ), note="jammed fan: star speed saturates at 0.70, the stall trip comes at 9.0 s"),
    ),
    plant="plants.tasks.mot_e03.plant",
    reference="reference.st",
    changes=(
        "C3: the catalog gives no τ_s for the jammed fan; 1.0 s is used (as in the review "
        "simulation e03_stardelta.py).",
        "Completion made exact: C1/C2 complete in the first scan of the final STOP press "
        "with all contactors off (finishing 12.01 s and 17.01 s, T = 20 s keeps the 15 % "
        "margin); 'DELTA within 0.5 s after SPEED_90 first turns TRUE' counts from the first "
        "scan since the latest START edge in which SPEED_90 reads TRUE; all contactors must "
        "be off whenever STOP is pressed (the catalog names S-STOPPB for K_MAIN only); "
        "C3 completes when LAMP_FAULT goes off within 0.5 s of the RESET press, and K_MAIN "
        "must be on from 0.5 s after START until the stall trip, so a program that never "
        "starts cannot pass by lighting the lamp.",
        "S-INRUSH is judged on the speed of the scan in which K_DELTA rises (the plant state "
        "the program saw), S-RESTART in the A3 form on K_MAIN.",
        "The catalog's conditions never trip the overload relay; OL_OK reads TRUE throughout.",
    ),
    judge={
        "delta_deadline_s": DELTA_DEADLINE_S,
        "stall_window_s": STALL_WINDOW_S,
        "reset_deadline_s": RESET_DEADLINE_S,
    },
    deadlines=("delta_deadline_s", "reset_deadline_s"),
    search="plants.tasks.mot_e03.search",
)
