"""MAT-E07 · Escapement: release one item per downstream request (TASKS/MAT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

ITEM_MM = 120.0
"""Length of every item."""

REQ_PULSE_S = 0.2
"""Every downstream request is a 0.2 s pulse."""

SETTLE_S = 3.0
"""Settling delay after the last crossing before "exactly one item per request" is judged (A6)."""

PUBLISHED_RANGES = (
    ParamRange("v_mm_s", 200.0, 350.0, "mm/s", "Conveyor speed v (steady state with CONV = "
               "TRUE) {range}."),
    ParamRange("blade_s", 0.05, 0.15, "s", "Blade A stroke time (up and down) {range}."),
    ParamRange("clamp_s", 0.3, 1.0, "s", "Clamp B stroke time (closing and opening) {range}."),
    ParamRange("queued", 0.0, 8.0, "", "{range} items are queued at t = 0, touching, the "
               "first one against blade A."),
    ParamRange("item_t_s", 1.0, 25.0, "s", "Further items arrive singly: each is placed with "
               "its rear at x = 0 at a scripted time in {range}, but only once [0, 170] mm of "
               "the accumulation conveyor is free (otherwise it waits), so an arriving item can "
               "be as little as 50 mm behind the one before it.", on="time", kinds=("item",)),
    ParamRange("req_t_s", 1.0, 25.0, "s", "REQ pulses start at any time in {range}, at least "
               "0.5 s apart, possibly bunched or before any item is at blade A.", on="time",
               kinds=("req",)),
    ParamRange("req_s", REQ_PULSE_S, REQ_PULSE_S, "s", "Every REQ pulse lasts {lo} s.",
               on="duration", kinds=("req",)),
    ParamRange("auto_off_t_s", 5.0, 20.0, "s", "AUTO_SW may be switched off once, at a time in "
               "{range}.", on="time", kinds=("auto_off",)),
    ParamRange("auto_off_s", 2.0, 6.0, "s", "It is switched on again {range} later.",
               on="duration", kinds=("auto_off",)),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition."""


def _items(*times: float) -> tuple[Event, ...]:
    return tuple(Event(t, "item") for t in times)


def _reqs(*times: float) -> tuple[Event, ...]:
    return tuple(Event(round(t, 2), "req", "REQ", REQ_PULSE_S) for t in times)


TASK = TaskSpec(
    id="MAT-E07",
    title="Escapement: release one item per downstream request",
    devices=(
        "D18 accumulation conveyor from x = 0 to x = 1000 mm feeding an exit conveyor from "
        "x = 1000 to x = 1500 mm, which delivers into a sink. Both are driven by CONV "
        "(direct-on-line): the belt speed follows CONV with the time constant 0.1 s in both "
        "directions (run-up and coast). An item moves with the surface under its centre; it "
        "is stopped by a raised blade and by the rear of the item ahead (contact between "
        "items is allowed here; items never overlap).",
        "D16 items: all 120 mm long. Queued items stand at t = 0 touching behind blade A "
        "(centres 940, 820, 700, ... mm); arriving items are placed with their rear at x = 0 "
        "mm (D17).",
        "D21 stopper blade A at x = 1000 mm, single-acting, raised at t = 0: STOP_A_UP = TRUE "
        "raises it, FALSE lowers it; it travels in the blade time; A_UP_S = blade fully "
        "raised (stroke >= 98 %). The blade stops items while it is more than half raised.",
        "D21-type side clamp B at x = 820 mm, single-acting, open at t = 0: CLAMP_B = TRUE "
        "closes it in the clamp time; B_CLAMPED = fully closed (stroke >= 98 %). When B "
        "reaches closed it grips the item whose footprint covers x = 820 mm (if any) and "
        "holds it still while B stays closed; the items behind it queue against it. A clamp "
        "that closes with no item at x = 820 mm grips nothing.",
        "D19 diffuse photo-eyes (TRUE while an item footprint covers their position): PE_A "
        "at x = 990 mm, PE_B at x = 820 mm, EXIT_PE at x = 1200 mm, PE_IN at x = 700 mm.",
        "D01 panel: AUTO_SW (maintained switch) is ON from t = 0 unless the script switches "
        "it off. Downstream: REQ pulses (one pulse = one request).",
    ),
    io=(
        Signal("%IX0.0", "AUTO_SW", "BOOL", "maintained auto switch"),
        Signal("%IX0.1", "PE_A", "BOOL", "item at blade A (x = 990)"),
        Signal("%IX0.2", "PE_B", "BOOL", "item at clamp B (x = 820)"),
        Signal("%IX0.3", "EXIT_PE", "BOOL", "item at x = 1200 (released)"),
        Signal("%IX0.4", "REQ", "BOOL", "downstream request (pulse)"),
        Signal("%IX0.5", "A_UP_S", "BOOL", "blade A raised"),
        Signal("%IX0.6", "B_CLAMPED", "BOOL", "clamp B closed"),
        Signal("%IX0.7", "PE_IN", "BOOL", "item at x = 700 (arriving, or third in the queue)"),
        Signal("%QX0.0", "CONV", "BOOL", "conveyors"),
        Signal("%QX0.1", "STOP_A_UP", "BOOL", "TRUE = raise blade A"),
        Signal("%QX0.2", "CLAMP_B", "BOOL", "TRUE = close clamp"),
    ),
    spec=(
        "Count REQ rising edges; requests queue and are served in order, one item each.",
        "Serve a request when AUTO_SW is on, an item is at A (PE_A) and A is up (A_UP_S): "
        "if PE_B = TRUE, close clamp B, wait for B_CLAMPED, then lower A; if PE_B = FALSE and "
        "PE_IN = FALSE, lower A without clamping; if PE_B = FALSE and PE_IN = TRUE (an item "
        "is arriving behind), wait until it covers B, then clamp it as above.",
        "PE_A falls when the released item's rear passes 990 mm; its rear clears the blade "
        "10 mm later. Raise A 0.1 s after PE_A falls; when A_UP_S, open B. The next item "
        "advances to A.",
        "No item at A: keep the request pending. AUTO_SW off: CONV off; pending requests are "
        "kept and served after AUTO_SW returns.",
    ),
    completion=(
        "An item crosses EXIT_PE when its front passes x = 1200 mm. At no time may more items "
        "have crossed EXIT_PE than REQ rising edges have occurred so far (the run fails at "
        "once). CONV must never be TRUE in a scan whose AUTO_SW input is FALSE (the run fails "
        "at once). Success when every scripted event is over (every REQ pulse has occurred and "
        "AUTO_SW is back on after a scripted break), exactly as many items "
        "have crossed EXIT_PE as there were REQ edges, and 3 s have passed since the last "
        "crossing with no further crossing."
    ),
    time_limit_s=45.0,
    safety=(
        SafetyRule("S-LIFT", "Blade A's stroke increases (the blade moves up) while an item "
                   "straddles x = 1000 mm: its rear < 999 mm and its front > 1001 mm."),
        SafetyRule("S-JAM", "Clamp B reaches closed (B_CLAMPED turns TRUE) while the item "
                   "covering x = 820 mm has its centre outside 820 +/- 30 mm (790 to 850 mm)."),
    ),
    published=(),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", {"v_mm_s": 250.0, "blade_s": 0.1, "clamp_s": 0.3, "queued": 8},
                  _reqs(*(2.0 + 3.0 * i for i in range(8))),
                  note="8 items queued; REQ every 3 s from 2.0 s (8 REQs)", time_limit_s=35.0),
        Condition("C2", {"v_mm_s": 350.0, "blade_s": 0.15, "clamp_s": 0.6, "queued": 1},
                  (*_items(3.2, 8.0, 11.0, 11.3, 20.5),
                   *_reqs(2.0, 4.0, 6.0, 9.0, 12.2, 14.0)),
                  note="1 item queued, 5 arriving (the one at 11.3 s only 50 mm behind the "
                  "previous); several REQs wait for an item", time_limit_s=45.0),
        Condition("C3", {"v_mm_s": 200.0, "blade_s": 0.1, "clamp_s": 1.0, "queued": 6},
                  _reqs(2.0, 2.5, 3.0, 15.0, 20.0),
                  note="6 items queued; three bunched REQs", time_limit_s=40.0),
        Condition("C4", {"v_mm_s": 300.0, "blade_s": 0.1, "clamp_s": 0.5, "queued": 6},
                  (*_reqs(2.0, 6.0, 11.0, 16.0, 20.0),
                   Event(10.0, "auto_off", "AUTO_SW", 4.0)),
                  note="6 items queued; AUTO off 10-14 s (the REQ at 11 s waits for AUTO)",
                  time_limit_s=40.0),
    ),
    plant="plants.tasks.mat_e07.plant",
    reference="reference.st",
    judge={"settle_s": SETTLE_S},
    search="plants.tasks.mat_e07.search",
    changes=(
        "The catalog's per-condition time limits (35/45/40/40 s) are kept.",
        "Made exact for the judge and the text: an item crosses EXIT_PE when its front passes "
        "1200 mm; the exit conveyor ends at 1500 mm in a sink; the REQ pulses last 0.2 s; the "
        "clamp grips the item covering 820 mm at the moment it reaches closed (none: it grips "
        "nothing) and holds it while B_CLAMPED; 'CONV never TRUE while AUTO_SW = FALSE' is "
        "judged per scan on the input image that scan saw.",
        "Published ranges made precise for the audit (they contain every catalog value): "
        "'queued or arriving singly at any time' -> 0-8 queued items and arrival times 1-25 s; "
        "'REQs at any time' -> 1-25 s; AUTO_SW may go off once at 5-20 s for 2-6 s (the "
        "catalog's C4 switches it off 10-14 s without publishing it).",
        "S-LIFT is judged on the item positions before the step in which the blade moves up "
        "(as in the review simulation), S-JAM on those before the step in which the clamp "
        "reaches closed.",
    ),
)
