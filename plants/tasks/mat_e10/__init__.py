"""MAT-E10 · 90° turntable transfer (TASKS/MAT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

INFEED_MM = 1500.0
TABLE_MM = 800.0
OUTFEED_MM = 1500.0
PLACE_GAP_MM = 200.0
"""An item is placed only when [0, length + 200] mm of the infeed is free."""

PUBLISHED_RANGES = (
    ParamRange("rotation_s", 1.0, 2.0, "s", "Rotation time 0° -> 90° and back: {range}."),
    ParamRange("v_mm_s", 250.0, 300.0, "mm/s", "Speed v of the three conveyors (steady state "
               "with the output TRUE): {range}."),
    ParamRange("items", 3.0, 8.0, "items", "K = {range} per run."),
    ParamRange("min_len_mm", 300.0, 700.0, "mm", "Item lengths ℓ {range}; the items of one "
               "run may differ in length."),
    ParamRange("max_len_mm", 300.0, 700.0, "mm", "No item is longer than {hi} mm."),
    ParamRange("min_gap_s", 1.5, 5.0, "s", "Scheduled arrival gaps: at least {lo} s (items "
               "that cannot be placed yet queue in the emitter)."),
    ParamRange("arrival_t_s", 1.0, 25.0, "s", "Items are scheduled at t = {range}.",
               on="time", kinds=("item",)),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition."""


def _items(t0: float, gap: float, lengths: list[float]) -> tuple[Event, ...]:
    return tuple(Event(round(t0 + i * gap, 2), "item", "infeed", args=(("length_mm", ln),))
                 for i, ln in enumerate(lengths))


def _condition(name: str, rotation: float, v: float, t0: float, gap: float,
               lengths: list[float], limit: float, note: str) -> Condition:
    params = {"rotation_s": rotation, "v_mm_s": v, "items": len(lengths),
              "min_len_mm": min(lengths), "max_len_mm": max(lengths), "min_gap_s": gap}
    return Condition(name, params, _items(t0, gap, lengths), note=note, time_limit_s=limit)


TASK = TaskSpec(
    id="MAT-E10",
    title="90° turntable transfer",
    devices=(
        "D17 item source: items of length ℓ are placed on the infeed with their rear at "
        "x = 0 mm at scripted times, each only when [0, ℓ + 200] mm of the infeed is free "
        "(otherwise the item waits).",
        "D18 infeed conveyor, 1500 mm long (x = 0 to 1500 mm), DOL motor IN_CONV. Its end "
        "x = 1500 mm meets the table entry when the table is at 0°; when the table is not at "
        "0° the infeed end is closed by the side of the table.",
        "D23 turntable: table rollers 800 mm long (table position u = 0 at the entry to "
        "u = 800 mm at the discharge end), DOL motor TT_ROLL (forward only). Rotation 0° <-> "
        "90° by a cylinder-driven gear: ROTATE = TRUE turns to 90°, FALSE back to 0°, moving "
        "linearly with the rotation time in either direction; AT_0 / AT_90 are its end "
        "switches. At 0° (and while turning) the discharge end u = 800 mm is closed by an end "
        "plate (no drop, but an item driven against it is pressed); at 90° the discharge end "
        "meets the side outfeed and the entry end is closed.",
        "D18 side outfeed, 1500 mm long, DOL motor OUT_CONV, delivering into a sink at its "
        "end (an item is delivered when its centre passes the end).",
        "All three conveyors run at v with the time constant 0.1 s in both directions (run-up "
        "and coast), no contactor delay. An item moves with the surface under its centre, "
        "changes carrier when its centre crosses a joint, and is blocked by end plates and "
        "by the rear of the item ahead.",
        "D19 diffuse photo-eyes (TRUE while an item footprint covers them, on any carrier): "
        "IN_PE at infeed x = 1450 mm, TT_ENTRY_PE at table u = 20 mm, TT_FRONT_PE at table "
        "u = 760 mm, OUT_PE at outfeed 300 mm.",
        "D01 panel: AUTO_SW (maintained switch) is ON throughout.",
    ),
    io=(
        Signal("%IX0.0", "AUTO_SW", "BOOL", "maintained auto switch"),
        Signal("%IX0.1", "IN_PE", "BOOL", "item front at infeed x = 1450"),
        Signal("%IX0.2", "TT_ENTRY_PE", "BOOL", "item footprint at table x = 20"),
        Signal("%IX0.3", "TT_FRONT_PE", "BOOL", "item footprint at table x = 760"),
        Signal("%IX0.4", "AT_0", "BOOL", "table at 0°"),
        Signal("%IX0.5", "AT_90", "BOOL", "table at 90°"),
        Signal("%IX0.6", "OUT_PE", "BOOL", "item on outfeed at 300 mm"),
        Signal("%QX0.0", "IN_CONV", "BOOL", "infeed conveyor motor"),
        Signal("%QX0.1", "TT_ROLL", "BOOL", "table rollers (forward)"),
        Signal("%QX0.2", "ROTATE", "BOOL", "TRUE = to 90 deg, FALSE = to 0 deg"),
        Signal("%QX0.3", "OUT_CONV", "BOOL", "outfeed conveyor motor"),
    ),
    spec=(
        "Run IN_CONV while no item is at IN_PE (bringing the next item to the infeed end).",
        "Load: with the table at 0° and empty and an item at IN_PE, run IN_CONV + TT_ROLL; stop "
        "IN_CONV as soon as IN_PE falls (the item's centre is then on the table and the next "
        "item stays on the infeed); stop TT_ROLL at TT_FRONT_PE.",
        "When TT_ENTRY_PE = FALSE (item fully on), rotate to 90°. At AT_90 run TT_ROLL + "
        "OUT_CONV until TT_FRONT_PE has been FALSE for 0.5 s (the rear has then left the "
        "table); stop the rollers and rotate back to 0°. OUT_CONV may run all the time.",
    ),
    completion=(
        "Success when all K items of the run have been delivered to the outfeed sink (an "
        "item is delivered when its centre passes the outfeed end), within the time limit."
    ),
    time_limit_s=75.0,
    safety=(
        SafetyRule("S-SHEAR", "The table rotates (its rotation position changes from one "
                   "10 ms step to the next) while an item straddles a table edge: an item's "
                   "footprint extends more than 1 mm to both sides of the infeed/table joint "
                   "or of the table/outfeed joint (half on the table, half on a conveyor)."),
        SafetyRule("S-PRESSURE", "An item is pressed against the end plate at the table's "
                   "discharge end (its front at the plate, the table not at 90°) while the "
                   "table rollers move (surface speed >= 5 mm/s) for longer than 2 s in a row."),
        SafetyRule("S-PILEUP", "An infeed item's front reaches the infeed end x = 1500 mm "
                   "(runs against the side of the table, within 1 mm) while the table is not "
                   "at 0° (AT_0 = FALSE)."),
    ),
    published=(),
    ranges=PUBLISHED_RANGES,
    conditions=(
        _condition("C1", 1.0, 300.0, 1.0, 4.0, [500.0] * 6, 60.0,
                   "6 items of 500 mm every 4 s from 1.0 s"),
        _condition("C2", 2.0, 300.0, 1.0, 1.5, [500.0] * 6, 70.0,
                   "6 items of 500 mm 1.5 s apart: they queue on the infeed"),
        _condition("C3", 1.5, 250.0, 1.0, 3.0, [300.0, 700.0, 450.0, 600.0, 350.0, 500.0],
                   75.0, "6 items of mixed length every 3 s"),
    ),
    plant="plants.tasks.mat_e10.plant",
    reference="reference.st",
    search="plants.tasks.mat_e10.search",
    changes=(
        "The catalog's per-condition time limits (60/70/75 s) are kept.",
        "S-SHEAR made exact: 'moves' = the rotation position changes between two steps; "
        "'straddles' = the footprint extends more than 1 mm beyond both sides of a table joint.",
        "S-PILEUP made exact: the catalog's 'an infeed item's front passes the infeed end "
        "while the table is not at 0°' cannot happen in the plant (the turned table closes "
        "the infeed end), so the rule fires when the front reaches the closed end (within "
        "1 mm); an item already past the end when the table turns is S-SHEAR.",
        "S-PRESSURE made exact: pressed = the front at the discharge end plate while the "
        "rollers' surface speed is >= 5 mm/s (A4 standstill), for more than 2 s in a row.",
        "Published ranges as data: K (3-8 items, catalog 6), the shortest and longest item "
        "(each 300-700 mm), the smallest scheduled arrival gap (1.5-5 s) and the scheduled "
        "arrival times (1-25 s) were prose or unstated in the catalog; they contain every "
        "catalog value.",
    ),
)
