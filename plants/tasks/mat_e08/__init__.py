"""MAT-E08 · Height sorting with a swing-arm diverter (TASKS/MAT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, ParamRange, SafetyRule, Signal, TaskSpec

ITEM_MM = 200.0
"""Length of every item along the flow."""

TALL_MM, SHORT_MM = 150.0, 80.0
"""Heights of tall and short items; the height gate switches at 120 mm."""

PUBLISHED_RANGES = (
    ParamRange("v_mm_s", 200.0, 300.0, "mm/s", "Belt speed v (steady state with CONV = TRUE) "
               "{range}."),
    ParamRange("arm_s", 0.3, 0.6, "s", "Swing-arm travel time (either direction) {range}."),
    ParamRange("pitch_min_mm", 900.0, 2000.0, "mm", "Pitch (the distance the previous item has "
               "travelled when the next one is placed) {range}; the pitch may change from item "
               "to item."),
    ParamRange("pitch_max_mm", 900.0, 2000.0, "mm", "The largest pitch within one run is also "
               "in {range}."),
)
"""Published ranges as data; the condition's pitch list is summarised by its min and max."""


def _condition(name: str, v: float, arm: float, items: str, pitches: tuple[float, ...],
               limit: float, note: str) -> Condition:
    """One condition: item heights as a T/S string, the pitch before each item after the first."""
    params = {"v_mm_s": v, "arm_s": arm, "items": items, "pitches_mm": pitches,
              "pitch_min_mm": min(pitches), "pitch_max_mm": max(pitches)}
    return Condition(name, params, note=note, time_limit_s=limit)


TASK = TaskSpec(
    id="MAT-E08",
    title="Height sorting with a swing-arm diverter",
    devices=(
        "D17 emitter: items 200 mm long along the flow, tall (150 mm high) or short (80 mm), "
        "placed with their rear at x = 0 mm; the first at t = 1.0 s, each next one when the "
        "item before it has travelled the pitch on the belt (the emitter waits while the belt "
        "stands).",
        "D18 conveyor from x = 0 to x = 2000 mm with an on/off drive (CONV): the belt speed "
        "follows CONV with a time constant of 0.1 s in both directions (run-up and coast), no "
        "contactor delay. An item rides with the belt under its centre; an item whose centre "
        "passes x = 2000 mm is delivered to the straight lane.",
        "D19 sensors at x = 500 mm, each TRUE while an item's footprint covers it (rear <= x "
        "<= front): ENTRY_PE (diffuse, any item) and TALL_S (height gate, items >= 120 mm "
        "high, i.e. tall items only).",
        "D22 swing-arm diverter with the arm zone [1150, 1350] mm: DIVERT = TRUE swings the "
        "arm towards the side lane, FALSE back to straight; the arm moves linearly in its "
        "travel time. ARM_HOME is TRUE at the straight end position, ARM_DIV at the diverting "
        "end position, neither in between. An item takes the lane set by the arm when its "
        "front reaches x = 1150 mm; a diverted item rides through the zone and leaves the belt "
        "into the side lane when its rear passes x = 1350 mm. ZONE_OCC is TRUE while any item "
        "footprint is in the zone (1150 < front and rear < 1350), diverted items included.",
        "D01 panel: AUTO_SW (maintained switch) is ON throughout.",
    ),
    io=(
        Signal("%IX0.0", "AUTO_SW", "BOOL", "maintained auto switch (TRUE = auto)"),
        Signal("%IX0.1", "ENTRY_PE", "BOOL", "item at x = 500 mm"),
        Signal("%IX0.2", "TALL_S", "BOOL", "height gate at x = 500 mm (TRUE = tall item)"),
        Signal("%IX0.3", "ZONE_OCC", "BOOL", "any item footprint in the arm zone [1150, 1350] "
               "mm (diverted or not)"),
        Signal("%IX0.4", "ARM_HOME", "BOOL", "arm straight"),
        Signal("%IX0.5", "ARM_DIV", "BOOL", "arm diverting"),
        Signal("%QX0.0", "CONV", "BOOL", "conveyor motor"),
        Signal("%QX0.1", "DIVERT", "BOOL", "TRUE = swing arm to side lane"),
    ),
    spec=(
        "Tall items go to the side lane (diverted by the arm), short items to the straight lane "
        "at the belt end.",
        "When an item passes the gate (ENTRY_PE rises), remember tall/short (TALL_S): both "
        "sensors look at x = 500 mm, so TALL_S is TRUE for a tall item on the scan its front "
        "reaches ENTRY_PE.",
        "Set the arm for that item while ZONE_OCC = FALSE, so that it is at ARM_HOME (short) "
        "or ARM_DIV (tall) before the item's front reaches x = 1150 mm. Never move the arm "
        "while ZONE_OCC is TRUE.",
        "With the published pitch the gap between items on the belt is at least 700 mm, "
        "enough to switch the arm between two items without stopping the belt.",
        "Run the belt (CONV) while AUTO_SW is TRUE.",
    ),
    completion=(
        "Success when every item has left the belt into its correct lane: every tall item in "
        "the side lane, every short item in the straight lane, none damaged. The run fails at "
        "once when an item reaches the wrong lane or is damaged by the arm."
    ),
    time_limit_s=60.0,
    safety=(
        SafetyRule("S-JAM", "An item's front reaches x = 1150 mm while the arm is between its "
                   "end positions (neither ARM_HOME nor ARM_DIV: the item is struck and damaged), "
                   "or the arm moves (its stroke changes in a 10 ms step) while any item "
                   "footprint is in the arm zone [1150, 1350] mm (ZONE_OCC)."),
    ),
    published=(),
    ranges=PUBLISHED_RANGES,
    conditions=(
        _condition("C1", 200.0, 0.3, "TSTSTSTSTS", (900.0,) * 9, 60.0,
                   "10 items alternating, tall first, pitch 900 mm"),
        _condition("C2", 300.0, 0.6, "TTTSSSTTTSSS", (900.0,) * 11, 50.0,
                   "tall x 3 then short x 3, twice, pitch 900 mm"),
        _condition("C3", 250.0, 0.4, "TSSTTSTSST",
                   (900.0, 2000.0, 1100.0, 900.0, 1500.0, 1000.0, 1800.0, 900.0, 1200.0), 60.0,
                   "irregular pitches"),
        _condition("C4", 300.0, 0.6, "STSTSTSTST", (900.0,) * 9, 45.0,
                   "10 items alternating, short first, pitch 900 mm"),
    ),
    plant="plants.tasks.mat_e08.plant",
    reference="reference.st",
    search="plants.tasks.mat_e08.search",
    changes=(
        "The time limit differs per condition (C1 60 s, C2 50 s, C3 60 s, C4 45 s, as the "
        "catalog); the rendered text states the range.",
        "Published pitch: the catalog's 'pitch >= 900 mm' gets the upper bound 2000 mm (the "
        "largest catalog pitch), so that every condition value is checked; each condition's "
        "pitch list is checked through its smallest and largest value.",
        "S-JAM wording made exact: 'the arm moves while the zone is occupied' is judged as the "
        "arm stroke changing in a plant step after which an item footprint is in the zone; "
        "'front reaches 1150' is the first step at whose end the item's front is at or past "
        "1150 mm. A struck item continues straight and is damaged, which also fails completion.",
        "Completion made explicit: items go to the straight lane when their centre passes the "
        "belt end at 2000 mm (D18 receiver); the run fails at once on a wrong lane or a damaged "
        "item.",
        "AUTO_SW is ON throughout (A1) and no condition switches it, so no rule judges CONV "
        "against it (the catalog names none).",
    ),
)
