"""MAT-E11 · Static checkweigher with reject and tare (TASKS/MAT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

PUBLISHED_RANGES = (
    ParamRange("v_mm_s", 200.0, 300.0, "mm/s", "All three conveyors run at v = {range} (DOL, "
               "time constant 0.1 s in both directions)."),
    ParamRange("tau_s", 0.1, 0.3, "s", "Load-cell filter time constant tau = {range}."),
    ParamRange("w_min_g", 400.0, 1000.0, "g", "Lower weight limit W_MIN (%IW142) {range}, "
               "constant during a run."),
    ParamRange("w_max_g", 450.0, 1100.0, "g", "Upper weight limit W_MAX (%IW144) {range}, "
               "constant during a run; W_MAX - W_MIN >= 20 g. Every item weighs at least 3 g "
               "more or less than each limit (never within 2 g of a limit), 300-1200 g."),
    ParamRange("offset_g", -20.0, 20.0, "g", "Before it is tared, the empty scale may read a "
               "zero offset between {lo} and {hi} g."),
    ParamRange("gap_mm", 50.0, 300.0, "mm", "An item is placed (rear at infeed x = 0) at its "
               "arrival time, but only once [0, 150 + gap] mm of the infeed is free, with a "
               "gap of {range}; so items may queue on the infeed with that spacing."),
    ParamRange("arrival_t_s", 0.0, 45.0, "s", "Items arrive at t = {range}, 5-8 items per "
               "run; several may arrive at the same time.", on="time", kinds=("item",)),
)
"""Published ranges as data: the text is rendered from them and the audit checks each condition."""

ITEM_LENGTH_MM = 150.0


def _items(t_first: float, every: float, weights: tuple[int, ...]) -> tuple[Event, ...]:
    """One `item` event per item: arrival time and its weight in grams."""
    return tuple(Event(round(t_first + every * j, 2), "item", "infeed", args=(("weight_g", w),))
                 for j, w in enumerate(weights))


TASK = TaskSpec(
    id="MAT-E11",
    title="Static checkweigher with reject and tare",
    devices=(
        "One conveyor line, flow coordinate x in mm: D18 infeed belt [0, 1000] (IN_CONV), D24 "
        "weigh belt [1000, 1500] (WEIGH_CONV) on a load cell, D18 outfeed belt [1500, 3000] "
        "(OUT_CONV) ending in the accept sink. Below, 'infeed x', 'weigh x' and 'outfeed x' "
        "are measured from the start of that belt. Each belt's speed follows its output with "
        "a time constant of 0.1 s in both directions (run-up and coast), no contactor delay. "
        "An item rides on the belt under its centre and changes belt when its centre crosses "
        "a joint; it is blocked by the item ahead (items never overlap).",
        "D17 items: 150 mm long, placed with their rear at infeed x = 0 at their arrival "
        "time, each only once [0, 150 + gap] mm of the infeed is free (else it waits).",
        "D24 load cell under the whole weigh belt: the raw load is the sum of each item's "
        "weight times the fraction of its footprint on [1000, 1500]; the filtered reading "
        "follows it with the time constant tau (first order, no ripple), starts settled at "
        "the zero offset at t = 0, and WEIGHT = round(reading - tare) in whole grams. A "
        "rising edge of TARE sets the tare to the current reading (the offset included).",
        "D19 diffuse photo-eyes, each TRUE while an item's footprint covers its position "
        "(rear <= x <= front): IN_END_PE at infeed x = 950 mm, SCALE_PE at weigh x = 325 mm "
        "(an item's front there puts its centre at weigh x = 250 mm), PUSH_PE at outfeed "
        "x = 775 mm (it rises when an item's centre reaches the pusher at outfeed x = 700 mm).",
        "D22 reject pusher across the outfeed at outfeed x = 700 mm, driven by a D11 cylinder "
        "with a monostable valve: PUSH = TRUE extends, FALSE retracts; the stroke changes "
        "linearly, 0 -> 1 in 0.3 s and 1 -> 0 in 0.3 s. PUSH_RET is TRUE at stroke <= 0.02, "
        "PUSH_EXT at stroke >= 0.98. Plate window outfeed x = 650-750 mm, capture tolerance "
        "±25 mm on the item centre.",
        "Capture: on the first scan the stroke reaches 0.05, the item whose centre is within "
        "±25 mm of the pusher leaves the belt with the plate (PUSH_PE no longer sees it) and "
        "drops into the reject bin when the stroke reaches 0.98. A captured item released "
        "before that (the plate retracts early) falls back onto the belt damaged.",
    ),
    io=(
        Signal("%IX0.0", "AUTO_SW", "BOOL", "maintained auto switch, TRUE from t = 0"),
        Signal("%IX0.1", "IN_END_PE", "BOOL", "item front at infeed x = 950"),
        Signal("%IX0.2", "SCALE_PE", "BOOL", "item front at weigh x = 325 (centre 250)"),
        Signal("%IX0.3", "PUSH_PE", "BOOL", "outfeed x = 775 (centre at pusher)"),
        Signal("%IX0.4", "PUSH_RET", "BOOL", "pusher retracted"),
        Signal("%IX0.5", "PUSH_EXT", "BOOL", "pusher extended"),
        Signal("%IW140", "WEIGHT", "INT", "scale reading minus tare", "g"),
        Signal("%IW142", "W_MIN", "INT", "lower weight limit", "g"),
        Signal("%IW144", "W_MAX", "INT", "upper weight limit", "g"),
        Signal("%QX0.0", "IN_CONV", "BOOL", "infeed conveyor motor"),
        Signal("%QX0.1", "WEIGH_CONV", "BOOL", "weigh conveyor motor"),
        Signal("%QX0.2", "OUT_CONV", "BOOL", "outfeed conveyor motor"),
        Signal("%QX0.3", "PUSH", "BOOL", "monostable: TRUE = extend"),
        Signal("%QX0.4", "TARE", "BOOL", "edge: zero the scale (only when empty)"),
        Signal("%QX0.5", "LAMP_REJECT", "BOOL", "last item rejected (not judged)"),
    ),
    spec=(
        "Tare (a TARE rising edge) once the scale has been empty for 0.5 s, before the first "
        "item reaches the weigh belt.",
        "Run IN_CONV while no item is at IN_END_PE. With the scale empty and an item at "
        "IN_END_PE, run IN_CONV + WEIGH_CONV; stop IN_CONV when IN_END_PE falls (the item's "
        "centre is then on the weigh belt) and WEIGH_CONV when SCALE_PE rises.",
        "Wait for a stable reading: at least 0.5 s after the stop, and a change of at most 1 g "
        "over the last 0.5 s. Classify: accept if W_MIN <= WEIGHT <= W_MAX, else reject.",
        "Send the item on (WEIGH_CONV; OUT_CONV may run all the time) once the previous item "
        "has passed PUSH_PE, so at most one item is between the scale and the pusher. The "
        "scale is free again when SCALE_PE = FALSE and WEIGHT < 10 g.",
        "Fire the pusher on the rising edge of PUSH_PE for a rejected item; retract at "
        "PUSH_EXT. Accepted items pass the pusher to the accept sink at the outfeed end. "
        "LAMP_REJECT shows the last verdict (not judged).",
    ),
    completion=(
        "Every item of the run reaches its correct destination undamaged: each item with "
        "W_MIN <= weight <= W_MAX (its true weight) at the accept sink at the outfeed end, "
        "each other item in the reject bin. Success holds on the scan on which the last item "
        "arrives. The condition fails at once when an item reaches the wrong destination or "
        "is damaged (struck by the plate, or fallen back onto the belt because the plate "
        "retracted before the stroke reached 0.98)."
    ),
    time_limit_s=60.0,
    safety=(
        SafetyRule("S-JAM", "On the first scan on which the pusher stroke reaches 0.05 (the "
                   "plate coming out), an item whose footprint overlaps the plate window "
                   "(outfeed x = 650-750 mm) but whose centre is more than 25 mm from the "
                   "pusher (outfeed x = 700 mm) is struck off-centre (the item is damaged)."),
        SafetyRule("S-STRIKE", "While the pusher stroke is >= 0.05 (the plate is in the belt "
                   "path), an item enters the plate window (outfeed x = 650-750 mm), i.e. its "
                   "footprint starts to overlap it (the item is damaged)."),
    ),
    published=(
        "W_MIN and W_MAX are read from %IW142/%IW144; the item weights are not known in "
        "advance.",
    ),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", {"v_mm_s": 250.0, "tau_s": 0.1, "w_min_g": 480.0, "w_max_g": 520.0,
                         "offset_g": 0.0, "gap_mm": 300.0},
                  _items(1.0, 5.0, (500, 530, 470, 505, 515, 499)), time_limit_s=60.0,
                  note="six items every 5 s from 1.0 s"),
        Condition("C2", {"v_mm_s": 250.0, "tau_s": 0.3, "w_min_g": 480.0, "w_max_g": 520.0,
                         "offset_g": 0.0, "gap_mm": 300.0},
                  _items(1.0, 5.0, (483, 517, 523, 477, 500)), time_limit_s=60.0,
                  note="slow filter, weights 3 g inside or outside the limits"),
        Condition("C3", {"v_mm_s": 250.0, "tau_s": 0.2, "w_min_g": 950.0, "w_max_g": 1050.0,
                         "offset_g": 0.0, "gap_mm": 50.0},
                  _items(0.0, 0.0, (1000, 1060, 940, 1020, 990, 1045, 955, 1070)),
                  time_limit_s=80.0, note="eight items all waiting from t = 0, 50 mm gaps"),
        Condition("C4", {"v_mm_s": 250.0, "tau_s": 0.15, "w_min_g": 480.0, "w_max_g": 520.0,
                         "offset_g": 12.0, "gap_mm": 300.0},
                  _items(1.0, 5.0, (495, 512, 514, 470, 508)), time_limit_s=60.0,
                  note="zero offset +12 g: 514 g reads 526 g without tare"),
    ),
    plant="plants.tasks.mat_e11.plant",
    reference="reference.st",
    search="plants.tasks.mat_e11.search",
    changes=(
        "The time limit differs per condition (C1, C2, C4 60 s, C3 80 s, as the catalog); the "
        "rendered text states the range.",
        "Published ranges made finite: W_MIN 400-1000 g, W_MAX 450-1100 g (W_MAX - W_MIN >= "
        "20 g), item weights 300-1200 g, gap 50-300 mm (catalog: >= 50 mm), arrivals 0-45 s "
        "with 5-8 items; all catalog values lie inside.",
        "The catalog's zero offset is modelled as an initial tare of minus the offset: the "
        "WEIGHT word then reads exactly what a load cell with that offset reads, before and "
        "after a TARE edge.",
        "S-STRIKE is judged for any item entering the plate window while the plate is out (the "
        "catalog names accepted items; an item that is to be rejected cannot be captured by a "
        "plate that is already out, so it is struck as well). S-JAM and S-STRIKE are judged on "
        "stroke >= 0.05 with the library's epsilon (A10).",
        "Completion made explicit: a damaged item (struck, or fallen back when the plate "
        "retracts early, A10) is not at its correct destination. Taring with a load on the "
        "scale is not a safety rule; it makes the readings wrong, which the completion judges.",
        "The reject bin receives at most 5 items in any condition and has no capacity limit; "
        "the outfeed end is a receiver, so S-OVERFLOW and S-DROP cannot occur and are not "
        "judged.",
    ),
)
