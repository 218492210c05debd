"""MAT-E02 · Count parts into boxes (recipe batch) (TASKS/MAT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

PART_MM = 60.0
"""Length of every part."""

BOX_X_MM = 1500.0
"""Discharge edge: a part whose centre passes it falls into the box (or onto the floor)."""

PUBLISHED_RANGES = (
    ParamRange("batch", 3.0, 10.0, "", "BATCH (parts per box) {range}; it does not change "
               "during a run."),
    ParamRange("v_mm_s", 150.0, 300.0, "mm/s", "Belt speed v (steady state with CONV = TRUE) "
               "{range}."),
    ParamRange("boxes", 2.0, 3.0, "", "M = {range} full boxes per condition; at least M x BATCH "
               "parts are supplied."),
    ParamRange("part_t_s", 1.0, 20.0, "s", "Parts are placed at scripted times {range}, each "
               "only once [0, 150] mm of the belt is free, so part centres on the belt are at "
               "least 150 mm apart.", on="time", kinds=("part",)),
    ParamRange("t_a_s", 2.0, 4.0, "s", "Box swap: the operator removes the full box t_a = "
               "{range} after LAMP_BOX_FULL turns on."),
    ParamRange("t_b_s", 2.0, 3.0, "s", "The operator places an empty box t_b = {range} after "
               "removing the full one."),
    ParamRange("box_out_t_s", 1.0, 20.0, "s", "The box may also be taken away mid-batch (holding "
               "1 to BATCH - 1 parts), right after a part has dropped into it, at any time "
               "from t = {lo} s to {hi} s.",
               on="time", kinds=("box_out",)),
    ParamRange("box_out_s", 2.0, 4.0, "s", "A box taken away mid-batch is put back {range} "
               "later with its contents unchanged.", on="duration", kinds=("box_out",)),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition."""


def _parts(times: list[float]) -> tuple[Event, ...]:
    return tuple(Event(round(t, 2), "part") for t in times)


def _every(t0: float, dt: float, n: int) -> list[float]:
    return [t0 + i * dt for i in range(n)]


def _after_gaps(t0: float, gaps: list[float]) -> list[float]:
    times = [t0]
    for g in gaps:
        times.append(times[-1] + g)
    return times


C3_GAPS = [0.6, 3.0, 1.2, 0.8, 2.5, 0.6, 1.8, 3.0, 0.9]

TASK = TaskSpec(
    id="MAT-E02",
    title="Count parts into boxes (recipe batch)",
    devices=(
        "D17 item source: parts of length 60 mm are placed with their rear at x = 0 mm at "
        "scripted times, each only once [0, 150] mm of the belt is free of parts (otherwise "
        "the part waits).",
        "D18 belt conveyor from x = 0 to x = 1500 mm, direct-on-line motor switched by CONV: "
        "the belt speed follows CONV with the time constant 0.1 s in both directions (run-up "
        "and coast), no contactor delay. A part moves with the belt surface under its centre. "
        "At x = 1500 mm the belt discharges: a part whose centre passes x = 1500 mm falls "
        "into the box under the discharge, or onto the floor if no box is there.",
        "D19 diffuse photo-eye COUNT_PE at x = 1400 mm: TRUE while a part footprint covers it. "
        "A part falls 70 mm of travel after its rear has left COUNT_PE.",
        "Box presence sensor BOX_PRESENT under the discharge.",
        "D01 panel: AUTO_SW (maintained switch) is ON throughout.",
        "Operator: removes the box t_a after LAMP_BOX_FULL turns on (FALSE -> TRUE) and places "
        "an empty box t_b after the removal; the lamp must turn off and on again for the next "
        "swap. The operator may also take the box away mid-batch and put it back later with "
        "its contents.",
    ),
    io=(
        Signal("%IX0.0", "AUTO_SW", "BOOL", "maintained auto switch"),
        Signal("%IX0.1", "COUNT_PE", "BOOL", "part footprint at x = 1400 mm"),
        Signal("%IX0.2", "BOX_PRESENT", "BOOL", "box under the discharge"),
        Signal("%IW140", "BATCH", "INT", "parts per box", "parts"),
        Signal("%QX0.0", "CONV", "BOOL", "conveyor motor"),
        Signal("%QX0.1", "LAMP_BOX_FULL", "BOOL", "box full: call the operator to swap it"),
    ),
    spec=(
        "Run the belt (CONV) while AUTO_SW = TRUE, BOX_PRESENT = TRUE and the box is not full.",
        "A part is in the box when its centre passes x = 1500 mm (70 mm after its rear leaves "
        "COUNT_PE). After BATCH parts, stop before the next part drops, and light "
        "LAMP_BOX_FULL.",
        "The operator removes the full box t_a after LAMP_BOX_FULL turns on and places an "
        "empty one t_b later; then turn the lamp off and resume.",
        "If BOX_PRESENT goes FALSE during a batch, stop at once. The box returns with its "
        "contents; continue counting.",
    ),
    completion=(
        "Success when the operator has removed M full boxes (removals that follow "
        "LAMP_BOX_FULL, not mid-batch removals), each holding exactly BATCH parts when "
        "removed. A box removed with any other number of parts fails the condition at once."
    ),
    time_limit_s=60.0,
    safety=(
        SafetyRule("S-DROP", "A part's centre passes the discharge edge x = 1500 mm while "
                   "no box is under the discharge (BOX_PRESENT = FALSE in the plant): the part "
                   "falls onto the floor."),
    ),
    published=(),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", {"batch": 5, "v_mm_s": 200.0, "boxes": 2, "t_a_s": 3.0, "t_b_s": 2.0},
                  _parts(_every(1.0, 0.8, 12)), note="12 parts every 0.8 s", time_limit_s=40.0),
        Condition("C2", {"batch": 8, "v_mm_s": 300.0, "boxes": 3, "t_a_s": 4.0, "t_b_s": 3.0},
                  _parts(_every(1.0, 0.5, 26)),
                  note="26 parts every 0.5 s: the emitter waits for 150 mm, so parts run nose "
                  "to tail at the minimum pitch", time_limit_s=45.0),
        Condition("C3", {"batch": 4, "v_mm_s": 250.0, "boxes": 2, "t_a_s": 3.0, "t_b_s": 2.0},
                  _parts(_after_gaps(1.0, C3_GAPS)), note="10 parts at irregular gaps",
                  time_limit_s=40.0),
        Condition("C4", {"batch": 6, "v_mm_s": 150.0, "boxes": 2, "t_a_s": 3.0, "t_b_s": 2.0},
                  (*_parts(_every(1.0, 1.2, 14)),
                   Event(1.0, "box_out", "BOX", 3.0, (("after_parts", 3),))),
                  note="the box is taken away right after the 3rd part drops (the next part "
                  "is 180 mm from the edge) and put back 3 s later", time_limit_s=60.0),
    ),
    plant="plants.tasks.mat_e02.plant",
    reference="reference.st",
    search="plants.tasks.mat_e02.search",
    changes=(
        "The catalog's per-condition time limits (40/45/40/60 s) are kept.",
        "The mid-batch removal is a state-triggered script (A39): 'box_out' at t takes the box "
        "away on the first plant step at or after t in which the box under the discharge holds "
        "`after_parts` parts (1 to BATCH - 1: a box holding BATCH parts is not mid-batch, and "
        "taking it away before the lamp could not be told apart from the full-box swap), and "
        "puts it back `duration` later. Its published return delay (2-4 s, containing the "
        "catalog's 3 s) was not bounded in the catalog ('returned').",
        "The number of full boxes M (2-3) and the part placement times (1-20 s) are published "
        "as ranges so that every condition value is checked; they contain every catalog value.",
        "Box swap made exact: the operator removes the box in the plant step t_a after the "
        "output image in which LAMP_BOX_FULL rose (waiting while the box is away mid-batch), "
        "places the empty box t_b after the removal, and reacts to the next lamp rise only "
        "after that (as in the review simulation).",
        "A run also fails early once every part has left the belt and the remaining boxes can "
        "no longer be filled.",
    ),
)
