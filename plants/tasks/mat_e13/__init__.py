"""MAT-E13 · Jam detection on a transport conveyor (TASKS/MAT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, ParamRange, SafetyRule, Signal, TaskSpec

SEGMENT_S = 8.5
"""Running time an item may take from one photo-eye to the next."""
BLOCKED_S = 3.0
"""Running time a photo-eye may stay blocked."""
ALARM_WINDOW_S = 0.5
"""LAMP_JAM must rise within this long after a deadline has run out."""

PUBLISHED_RANGES = (
    ParamRange("v_mm_s", 200.0, 300.0, "mm/s", "Belt speed v (steady state with CONV = TRUE) {range}."),
    ParamRange("pitch_mm", 1500.0, 3000.0, "mm", "Item pitch {range}: an item is placed every "
               "pitch / v seconds from t = 1.0 s (later if the infeed is not free)."),
    ParamRange("n_items", 1.0, 8.0, "", "Number of items per run {range}."),
    ParamRange("jam_item", 1.0, 8.0, "", "At most one jam per run, of any item (number {range} "
               "in placement order)."),
    ParamRange("jam_front_mm", 400.0, 2950.0, "mm", "A jammed item stops with its front anywhere "
               "in [{lo}, {hi}] mm and stays until the operator removes it."),
    ParamRange("stall_item", 1.0, 8.0, "", "At most one temporary stall per run, of any item "
               "(number {range}) but the jammed one."),
    ParamRange("stall_front_mm", 400.0, 2950.0, "mm", "A temporarily stalled item stops with its "
               "front anywhere in [{lo}, {hi}] mm."),
    ParamRange("stall_s", 0.1, 1.0, "s", "A temporary stall lasts {range} and ends by itself."),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition."""


def _cond(name: str, v: float, n: int, limit: float, note: str = "", **stalls: float) -> Condition:
    params = {"v_mm_s": v, "pitch_mm": 1500.0, "n_items": n, **stalls}
    return Condition(name, params, (), note=note, time_limit_s=limit)


TASK = TaskSpec(
    id="MAT-E13",
    title="Jam detection on a transport conveyor",
    devices=(
        "D18 belt conveyor from x = 0 to x = 3000 mm, direct-on-line motor switched by CONV: "
        "the belt speed follows CONV with the time constant 0.1 s in both directions (run-up "
        "and coast). An item moves with the belt under its centre; an end plate closes x = 0 "
        "and an item whose centre passes x = 3000 mm is delivered to the sink.",
        "D17 item source: items of length 300 mm are placed with their rear at x = 0 mm every "
        "pitch / v seconds from t = 1.0 s, each only once [0, 400] mm of the belt is free (otherwise "
        "it waits).",
        "D19 diffuse photo-eyes PE_A at x = 200 mm, PE_M at x = 1600 mm and PE_B at x = 2800 mm; "
        "each reads TRUE while an item's footprint covers its position.",
        "Jams: a jammed item stops (the belt slides under it) and the items behind it are held "
        "up when they reach it. The operator removes a jammed item 3.0 s after LAMP_JAM turns "
        "on and presses RESET_PB (0.3 s) 1.0 s after the removal; after a false alarm nobody "
        "removes anything but RESET_PB is still pressed at the same times. A temporary stall "
        "stops an item the same way but ends by itself.",
    ),
    io=(
        Signal("%IX0.0", "AUTO_SW", "BOOL", "maintained auto switch (ON throughout)"),
        Signal("%IX0.1", "PE_A", "BOOL", "item footprint at x = 200 mm"),
        Signal("%IX0.2", "PE_M", "BOOL", "item footprint at x = 1600 mm"),
        Signal("%IX0.3", "PE_B", "BOOL", "item footprint at x = 2800 mm"),
        Signal("%IX0.4", "RESET_PB", "BOOL", "jam reset push-button"),
        Signal("%QX0.0", "CONV", "BOOL", "conveyor motor"),
        Signal("%QX0.1", "LAMP_JAM", "BOOL", "jam alarm lamp"),
    ),
    spec=(
        "Run the belt (CONV) in AUTO unless a jam is signalled.",
        "Every item passing A (PE_A rises) must reach M (PE_M rises) within 8.5 s, and every "
        "item passing M must reach B (PE_B rises) within 8.5 s. Items cannot overtake each "
        "other, so the n-th rise at M belongs to the n-th item that passed A (likewise M to B). "
        "When an item stalls, the next one can enter the same segment; each item keeps its own "
        "deadline.",
        "Any photo-eye blocked continuously for more than 3.0 s is a jam.",
        "These times count only while CONV is TRUE: the clocks pause while the belt is stopped "
        "(a scan's 10 ms count if CONV was TRUE in the scan before).",
        "On a jam: CONV off and LAMP_JAM on in the same scan. A RESET_PB rising edge (the "
        "operator presses it after the removal) clears the lamp and the belt restarts. The item "
        "that caused the jam is assumed removed: drop its deadline. For a blocked photo-eye that "
        "is the newest deadline of the segment the eye starts (none for PE_B), and the eye is "
        "ignored until it clears. Tracking continues for the others.",
    ),
    completion=(
        "Success when every item has been delivered to the sink or removed by the operator and "
        "LAMP_JAM is FALSE. The judge runs the deadlines of the specification on the input "
        "images the program saw. For every deadline that runs out (more than 8.5 s or 3.0 s "
        "counted while CONV is TRUE), LAMP_JAM must rise within [deadline, deadline + 0.5 s] "
        "(the lower bound judged with a 20 ms tolerance); that rise drops every deadline that "
        "has run out, as the specification says. LAMP_JAM rising at any other time (a false "
        "alarm), or not rising within 0.5 s of a deadline, fails the condition at once."
    ),
    time_limit_s=90.0,
    safety=(
        SafetyRule("S-JAMRUN", "CONV is TRUE in an output image that has LAMP_JAM = TRUE."),
    ),
    published=(),
    ranges=PUBLISHED_RANGES,
    conditions=(
        _cond("C1", 250.0, 8, 70.0, "no jam (false-alarm check)"),
        _cond("C2", 250.0, 6, 90.0, "item 3 jams in A-M; item 4 is held up behind it before "
              "the alarm", jam_item=3, jam_front_mm=900.0),
        _cond("C3", 300.0, 6, 90.0, "item 4 jams covering PE_B", jam_item=4,
              jam_front_mm=2850.0),
        _cond("C4", 200.0, 7, 110.0, "item 2 stalls 1.0 s in A-M (no alarm, 7 + 1 < 8.5 s); "
              "item 5 jams in M-B and item 6 waits on PE_M through the stop", jam_item=5,
              jam_front_mm=2000.0, stall_item=2, stall_front_mm=800.0, stall_s=1.0),
    ),
    plant="plants.tasks.mat_e13.plant",
    reference="reference.st",
    changes=(
        "S-STOPPB is not used (no STOP button); the rule 'CONV TRUE with LAMP_JAM TRUE' is "
        "judged as the task-specific S-JAMRUN.",
        "Operator timing made exact: the jammed item is removed in the plant step 3.0 s (300 "
        "scans) after the scan whose output first had LAMP_JAM = TRUE, RESET_PB is TRUE for "
        "0.3 s from 1.0 s after the removal; a lamp rise during that sequence is not noticed.",
        "The alarm window's lower bound is judged with the 20 ms tolerance of A5/A17; one lamp "
        "rise drops every deadline that has run out (as in the review simulation).",
        "Success is every item delivered or removed with the lamp off (the review simulation's "
        "rule); 'T' is the time limit. The belt is 3000 mm with the sink at its end and the "
        "infeed needs [0, 400] mm free, as simulated.",
        "Published ranges are data. 'Jams anywhere' became a jam front position of 400-2950 mm "
        "(every catalog value inside), pitch >= 1500 mm became 1500-3000 mm, and the item "
        "count (1-8) and 'at most one jam and one temporary stall per run' are published.",
    ),
    judge={"alarm_window_s": ALARM_WINDOW_S, "segment_s": SEGMENT_S, "blocked_s": BLOCKED_S},
    deadlines=("alarm_window_s",),
    search="plants.tasks.mat_e13.search",
)
