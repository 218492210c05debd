"""MOT-E05 · Pneumatic clamp-and-stamp sequence A+ B+ B− A− (TASKS/MOT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

CYCLES_NEEDED = 3
"""Counted cycles for success."""

HOLD_SCANS = 28
"""A counted cycle has A_EXT and B_EXT TRUE together in this many consecutive scans (0.3 s
hold less two ticks of sampling tolerance, A5)."""

STROKE_S = (0.2, 1.5)
"""Published stroke time, extend and retract, of each cylinder."""
FAULT_KINDS = ("stick", "air_loss")
STOP_KINDS = ("press_after_a_valve", "press_after_b_valve")

PUBLISHED_RANGES = (
    ParamRange("a_ext_s", *STROKE_S, "s", "Stroke time of A+ (clamp extends) {range}."),
    ParamRange("a_ret_s", *STROKE_S, "s", "Stroke time of A− (clamp retracts) {range}."),
    ParamRange("b_ext_s", *STROKE_S, "s", "Stroke time of B+ (stamp extends) {range}."),
    ParamRange("b_ret_s", *STROKE_S, "s", "Stroke time of B− (stamp retracts) {range}."),
    ParamRange("fault_s", 0.0, 2.0, "s", "Stalls (a rod sticking part-way) and air loss last up "
               "to {hi} s.", on="duration", kinds=FAULT_KINDS),
    ParamRange("fault_t_s", 0.0, 0.0, "s", "A stall or air loss begins the moment (after {lo} s) a "
               "rod passes some point part-way along its stroke.", on="time", kinds=FAULT_KINDS),
    ParamRange("reload_s", 1.5, 4.0, "s", "Operator reload time (cycle end to PART rising) {range}."),
    ParamRange("start_t_s", 1.0, 1.0, "s", "The operator presses START (presses last 0.3 s) first "
               "at t = {lo} s; later presses follow the cycles (after a reload, after a STOP).",
               on="time", kinds=("press",)),
    ParamRange("stop_delay_s", 0.0, 5.0, "s", "A STOP may come at any point of a cycle, and a START "
               "during a cycle: {range} after A_VALVE or B_VALVE rises.", on="time", kinds=STOP_KINDS),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition."""
RANGES = {r.name: (r.lo, r.hi) for r in PUBLISHED_RANGES}
"""name -> (lo, hi), for checks written against the earlier dict."""


def _strokes(a_ext: float, a_ret: float, b_ext: float, b_ret: float, reload: float) -> dict:
    return {"a_ext_s": a_ext, "a_ret_s": a_ret, "b_ext_s": b_ext, "b_ret_s": b_ret,
            "reload_s": reload}


TASK = TaskSpec(
    id="MOT-E05",
    title="Pneumatic clamp-and-stamp sequence A+ B+ B− A−",
    devices=(
        "D01 operator panel: START (NO) and STOP_NC (NC) push-buttons; a press lasts 0.3 s.",
        "D11 cylinder A (clamp) and D11 cylinder B (stamp): double-acting, each driven by a "
        "monostable 5/2 valve (valve output TRUE = extend, FALSE = retract). The rod moves at a "
        "constant rate over its stroke time. RET switches read TRUE at stroke <= 2 %, EXT "
        "switches at stroke >= 98 %. Both cylinders are retracted at t = 0. Air loss freezes "
        "both rods where they are; a sticking rod stops part-way for a while and then goes on.",
        "Part presence sensor PART in the fixture; a part is in the fixture at t = 0.",
        "Scripted operator: presses START at t = 1.0 s. After each counted cycle (see "
        "Completion) PART falls 0.5 s after the cycle end, a new part is inserted (PART rises) "
        "at the cycle end + the reload time, and START is pressed 0.5 s after PART rises. "
        "After a STOP-aborted cycle the part stays in and START is pressed 1.0 s after both "
        "cylinders are retracted. The operator may also press START while a cycle runs.",
    ),
    io=(
        Signal("%IX0.0", "START", "BOOL", "NO push-button, TRUE while pressed"),
        Signal("%IX0.1", "STOP_NC", "BOOL", "stop button, NC: FALSE while pressed"),
        Signal("%IX0.2", "PART", "BOOL", "part in fixture"),
        Signal("%IX0.3", "A_RET", "BOOL", "clamp retracted"),
        Signal("%IX0.4", "A_EXT", "BOOL", "clamp extended"),
        Signal("%IX0.5", "B_RET", "BOOL", "stamp retracted"),
        Signal("%IX0.6", "B_EXT", "BOOL", "stamp extended"),
        Signal("%QX0.0", "A_VALVE", "BOOL", "TRUE = extend A"),
        Signal("%QX0.1", "B_VALVE", "BOOL", "TRUE = extend B"),
        Signal("%QX0.2", "LAMP_CYCLE", "BOOL", "cycle running"),
    ),
    spec=(
        "START edge, with PART, A_RET and B_RET all TRUE: A+ until A_EXT; B+ until B_EXT; hold "
        ">= 0.3 s; B- until B_RET; A- until A_RET. The cycle ends when A_RET is TRUE again.",
        "After a completed cycle the operator removes the part and inserts a new one (PART "
        "falls, then rises) and presses START again.",
        "STOP during a cycle: B_VALVE off at once; A stays extended until B_RET, then A- (safe "
        "retreat). The cycle does not count. The operator then presses START again without "
        "reloading.",
        "START during a cycle is ignored.",
        "Air loss or a sticking cylinder only delays the sequence: wait for the switch, with "
        "no timeout.",
        "LAMP_CYCLE shows that a cycle is running (not judged).",
    ),
    completion=(
        f"{CYCLES_NEEDED} counted cycles, then both cylinders retracted. A cycle runs from a "
        "rising edge of A_VALVE until A_RET and B_RET both read TRUE again after A has left "
        "its retracted position (the cycle end). It counts when A_EXT and B_EXT are TRUE "
        f"together in the input image of at least {HOLD_SCANS} consecutive scans (>= 0.28 s: "
        "the 0.3 s hold less two ticks of sampling tolerance) and STOP_NC stayed TRUE in "
        "every scan of the cycle. A cycle without a STOP that ends without counting fails the "
        "condition at once (the part was clamped but not stamped). Every rising edge of A_VALVE must follow an accepted START "
        "edge (a START rising edge in a scan whose input image has PART, A_RET and B_RET TRUE "
        "while A_VALVE was FALSE in the scan before), with no other rising edge of A_VALVE in "
        "between; otherwise the condition fails at once. Success is judged at the end of the "
        "third counted cycle."
    ),
    time_limit_s=40.0,
    safety=(
        SafetyRule("S-STOPPB", "B_VALVE is TRUE in a scan whose input image has STOP_NC = FALSE."),
        SafetyRule("S-CLAMP", "B_VALVE is TRUE in a scan whose input image has A_EXT = FALSE "
                   "(stamping a part that is not clamped)."),
        SafetyRule("S-UNCLAMP", "A_VALVE is FALSE in a scan whose input image has B_RET = FALSE "
                   "(unclamping under the stamp)."),
        SafetyRule("S-NOPART", "A_VALVE or B_VALVE is TRUE in a scan whose input image has "
                   "PART = FALSE."),
    ),
    published=("Per condition at most one STOP, and at most one stall or air loss.",),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", _strokes(0.3, 0.3, 0.4, 0.4, 2.0), (
            Event(1.0, "press", "START"),
        )),
        Condition("C2", _strokes(1.2, 1.0, 0.9, 0.8, 3.0), (
            Event(1.0, "press", "START"),
            Event(0.4, "press_after_b_valve", "STOP", args=(("cycle", 2),)),
        ), note="STOP 0.4 s after B_VALVE rises in cycle 2 (B about half out); the aborted "
                "cycle is repeated"),
        Condition("C3", _strokes(0.3, 0.3, 0.4, 0.4, 2.5), (
            Event(1.0, "press", "START"),
            Event(0.0, "stick", "B", 1.5, args=(("cycle", 2), ("stroke", 0.7))),
        ), note="B sticks at 70 % stroke for 1.5 s during B+ of cycle 2"),
        Condition("C4", _strokes(0.5, 0.5, 0.5, 0.5, 2.0), (
            Event(1.0, "press", "START"),
            Event(0.4, "press_after_a_valve", "START", args=(("cycle", 1),)),
            Event(0.0, "air_loss", "supply", 1.0, args=(("cycle", 2), ("b_stroke", 0.5))),
        ), note="an extra START 0.4 s after A_VALVE rises in cycle 1 (ignored); air loss of "
                "1.0 s when B reaches 50 % stroke during B+ of cycle 2"),
    ),
    plant="plants.tasks.mot_e05.plant",
    reference="reference.st",
    changes=(
        "The operator script and the faults are tied to program events (A39): cycle n is the "
        "n-th cycle of the completion's definition (started by a rising edge of A_VALVE), "
        "relative events carry their delay in Event.t and the cycle in args. The catalog's "
        "`s ≈ 0.5` air loss starts on the first tick B's stroke reaches 0.5 while extending.",
        "C4: the extra START comes 0.4 s (catalog: 0.2 s) after A_VALVE rises in cycle 1. The "
        "cycle starts on the first START press, which lasts 0.3 s, so a press 0.2 s later "
        "would overlap it and give no new START edge; at 0.4 s the clamp is still extending "
        "(0.5 s stroke).",
        "Air loss is one supply for both cylinders: both rods freeze (double-acting cylinders, "
        "D11).",
        "The three task rules the catalog left unnamed are judged as S-CLAMP (B_VALVE without "
        "A_EXT), S-UNCLAMP (A_VALVE off while B_RET = FALSE) and S-NOPART (a valve on without "
        "PART).",
        "The completion states exactly what a cycle is and when it counts, and adds two "
        "failure rules the catalog left implicit: a cycle may only start on an accepted START "
        "edge (the specification's START rule; without it a self-restarting program would "
        "pass), and a cycle without a STOP must count (the 'wait, with no timeout' rule; "
        "without it a program that abandons a stalled stroke and lets the operator reload "
        "would pass).",
        "Published ranges are data (PUBLISHED_RANGES). Prose made precise, containing every "
        "catalog value: 'a STOP may come at any point of a cycle' is a STOP (or an extra START) "
        "0-5 s after A_VALVE or B_VALVE rises (catalog: 0.4 s; 5 s reaches past the slowest "
        "B+, hold and B− into A−); the catalog's operator script (first START at 1.0 s, presses "
        "0.3 s) and the fault onset (the moment the rod passes the fault point) are now stated.",
    ),
    judge={"hold_scans": HOLD_SCANS, "cycles": CYCLES_NEEDED},
)
