"""MAT-E09 · Two-level tote lift (TASKS/MAT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

TOTE_MM = 600.0
"""Length of every tote."""

CAB_X0_MM, CAB_X1_MM = 1500.0, 2300.0
"""The cabin's edges on the line coordinate: infeed [0, 1500], cabin, outfeed [2300, 3800]."""

FLOOR_1_MM = 3000.0
"""Height of floor 1 (floor 0 is z = 0)."""

SHEAR_MM_S = 2.0
"""S-SHEAR speed threshold: the D08 speed decays exponentially and never reaches zero."""

LEVEL_MM = 8.0
"""S-DROP: a tote crosses a cabin edge only with the cabin within this distance of the floor."""

PUBLISHED_RANGES = (
    ParamRange("v_fast_mm_s", 300.0, 500.0, "mm/s", "Hoist fast speed v_fast {range}."),
    ParamRange("v_creep_mm_s", 20.0, 30.0, "mm/s", "Hoist creep speed v_creep {range}."),
    ParamRange("tau_s", 0.1, 0.2, "s", "Hoist time constant tau {range} (the stop distance "
               "from speed v is about v x tau)."),
    ParamRange("v_conv_mm_s", 200.0, 300.0, "mm/s", "All three conveyors run at the same "
               "speed v_c = {range}."),
    ParamRange("totes", 3.0, 4.0, "", "K = {range} totes per run."),
    ParamRange("tote_t_s", 1.0, 60.0, "s", "Totes arrive at scripted times {range} (any "
               "spacing; a tote waits while [0, 1000] mm of the infeed is occupied).",
               on="time", kinds=("tote",)),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition."""


def _cond(name: str, v_fast: float, v_creep: float, tau: float, v_conv: float,
          times: list[float], limit: float) -> Condition:
    params = {"v_fast_mm_s": v_fast, "v_creep_mm_s": v_creep, "tau_s": tau,
              "v_conv_mm_s": v_conv, "totes": len(times)}
    note = f"totes at {', '.join(f'{t:g}' for t in times)} s"
    return Condition(name, params, tuple(Event(t, "tote") for t in times), note=note,
                     time_limit_s=limit)


TASK = TaskSpec(
    id="MAT-E09",
    title="Two-level tote lift",
    devices=(
        "Line coordinate x along the flow (mm): infeed conveyor [0, 1500] at floor 0, cabin "
        "conveyor [1500, 2300] (the cabin's two edges), outfeed conveyor [2300, 3800] at "
        "floor 1, ending in a sink.",
        "D13 lift cabin hoisted by a D08 two-speed drive: floors z = 0 and z = 3000 mm, the "
        "cabin starts empty at rest at z = 0. Speed command +-(LIFT_FAST ? v_fast : v_creep) "
        "with exactly one of LIFT_UP / LIFT_DOWN, else 0; v += (v_cmd - v) x dt / tau, "
        "z += v x dt. Floor flags NEAR_f = |z - z_f| <= 150 mm and AT_f = |z - z_f| <= 8 mm. "
        "Over-travel switches LS_TOP (z >= 3100 mm) and LS_BOT (z <= -100 mm) force the speed "
        "command toward them to 0 (hard-wired).",
        "D18 conveyors (infeed, cabin, outfeed), direct-on-line: each belt speed follows its "
        "output with the time constant 0.1 s in both directions (run-up and coast). A tote "
        "moves with the belt under its centre and changes carrier when its centre crosses a "
        "cabin edge; it is blocked by the tote ahead. The infeed meets the cabin only with "
        "the cabin at floor 0, the outfeed only with the cabin at floor 1.",
        "D17 tote source: totes of length 600 mm are placed on the infeed with their rear at "
        "x = 0 at the scripted times, each only when [0, 1000] mm of the infeed is free "
        "(otherwise the tote waits).",
        "D19 photo-eyes (TRUE while a tote footprint covers them): IN_END_PE at x = 1450 "
        "(infeed end), CAB_PE in the cabin at x = 2200 (cabin x = 700: a tote stopped there "
        "is fully inside the cabin; it rides with the cabin and sees totes in the cabin, and "
        "totes on the outfeed while z > 1500 mm or on the infeed while z < 1500 mm), OUT_PE at x = 2500 (outfeed, 200 mm from the cabin).",
        "D01 panel: AUTO_SW (maintained switch) is ON throughout.",
    ),
    io=(
        Signal("%IX0.0", "AUTO_SW", "BOOL", "maintained auto switch"),
        Signal("%IX0.1", "IN_END_PE", "BOOL", "tote front at infeed x = 1450"),
        Signal("%IX0.2", "CAB_PE", "BOOL", "tote footprint at cabin x = 700 (a tote stopped "
               "here is fully inside)"),
        Signal("%IX0.3", "OUT_PE", "BOOL", "tote on outfeed at 200 mm"),
        Signal("%IX0.4", "NEAR_0", "BOOL", "cabin within 150 mm of floor 0"),
        Signal("%IX0.5", "AT_0", "BOOL", "cabin within 8 mm of floor 0"),
        Signal("%IX0.6", "NEAR_1", "BOOL", "cabin within 150 mm of floor 1"),
        Signal("%IX0.7", "AT_1", "BOOL", "cabin within 8 mm of floor 1"),
        Signal("%IX1.0", "LS_TOP", "BOOL", "upper over-travel switch (z >= 3100 mm)"),
        Signal("%IX1.1", "LS_BOT", "BOOL", "lower over-travel switch (z <= -100 mm)"),
        Signal("%QX0.0", "IN_CONV", "BOOL", "infeed conveyor motor"),
        Signal("%QX0.1", "CAB_CONV", "BOOL", "cabin conveyor motor"),
        Signal("%QX0.2", "OUT_CONV", "BOOL", "outfeed conveyor motor"),
        Signal("%QX0.3", "LIFT_UP", "BOOL", "hoist up"),
        Signal("%QX0.4", "LIFT_DOWN", "BOOL", "hoist down"),
        Signal("%QX0.5", "LIFT_FAST", "BOOL", "hoist fast speed (FALSE = creep)"),
    ),
    spec=(
        "Run IN_CONV while no tote is at IN_END_PE (bringing the next tote to the infeed end) "
        "and stop it there.",
        "With the cabin stopped at floor 0 (AT_0), empty, and a tote at IN_END_PE: run "
        "IN_CONV + CAB_CONV until CAB_PE, then stop both.",
        "Lift up (fast; creep from NEAR_1; stop at AT_1).",
        "After every stop at a floor wait 1.0 s (the cabin is then at rest) before moving a "
        "tote across the cabin edge.",
        "Unload: run CAB_CONV + OUT_CONV until CAB_PE has been FALSE for 1.0 s (the tote has "
        "then left the cabin). OUT_CONV may run all the time; the outfeed ends in the sink.",
        "Return to floor 0 the same way (fast, creep from NEAR_0, stop at AT_0).",
    ),
    completion=(
        "Success when all K totes have been delivered to the outfeed sink (a tote's centre "
        "passes x = 3800 mm). A dropped tote fails the condition at once."
    ),
    time_limit_s=175.0,
    safety=(
        SafetyRule("S-BOTHDIR", "LIFT_UP and LIFT_DOWN are both TRUE in one output image."),
        SafetyRule("S-HWLIM", "An over-travel switch is actuated: the cabin reaches z >= 3100 "
                   "mm (LS_TOP) or z <= -100 mm (LS_BOT)."),
        SafetyRule("S-SHEAR", "The cabin moves (hoist |v| > 2 mm/s) while a tote straddles a "
                   "cabin edge (its footprint strictly contains x = 1500 mm or x = 2300 mm)."),
        SafetyRule("S-DROP", "A tote's centre crosses from the infeed into the cabin (x = 1500 "
                   "mm) with |z| > 8 mm, or from the cabin onto the outfeed (x = 2300 mm) with "
                   "|z - 3000| > 8 mm: the tote falls into the shaft."),
    ),
    published=(),
    ranges=PUBLISHED_RANGES,
    conditions=(
        _cond("C1", 400.0, 20.0, 0.1, 300.0, [1.0, 20.0, 40.0], 110.0),
        _cond("C2", 500.0, 30.0, 0.2, 300.0, [1.0, 5.0, 30.0], 90.0),
        _cond("C3", 300.0, 25.0, 0.15, 200.0, [1.0, 25.0, 50.0, 60.0], 175.0),
    ),
    plant="plants.tasks.mat_e09.plant",
    reference="reference.st",
    search="plants.tasks.mat_e09.search",
    changes=(
        "The catalog's reviewed values are kept: NEAR +-150 mm, AT +-8 mm, T = 110/90/175 s, "
        "the S-SHEAR threshold of 2 mm/s.",
        "The hoist's speeds, time constant, conveyor speed, the number of totes K (3-4) and "
        "the arrival times ('at any time': 1-60 s, containing every catalog time) are "
        "published as ranges so that every condition value is checked.",
        "The catalog's I/O rows without a meaning (NEAR_f, AT_f, LS_*, the outputs) got one "
        "from the device line; addresses, names and types are unchanged.",
        "Geometry made exact: one line coordinate for the three conveyors; S-SHEAR is judged "
        "on a tote footprint strictly containing a cabin edge, S-DROP when a tote centre "
        "crosses a cabin edge with the cabin off the receiving floor (the tote then falls and "
        "the run fails at once). Totes on different floors still block each other along the "
        "line; only a program that already breaks S-DROP or S-SHEAR can reach that.",
    ),
)
