"""MAT-E12 · Pallet dispenser (release the bottom pallet of a stack) (TASKS/MAT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

PUBLISHED_RANGES = (
    ParamRange("table_mm_s", 50.0, 100.0, "mm/s", "Lift table speed {range} (both directions)."),
    ParamRange("fork_s", 0.5, 1.0, "s", "Hold fork stroke time {range} (both directions)."),
    ParamRange("stack_n", 0.0, 8.0, "", "Pallets in the stack at t = 0: {range}."),
    ParamRange("refill_n", 0.0, 8.0, "", "A refill (scripted, at most once) adds {range} "
               "pallets; the forklift sets them on the hold forks at the first instant at or "
               "after its time at which F_IN = TRUE."),
    ParamRange("take_s", 2.0, 4.0, "s", "The downstream takes a pallet {range} after its "
               "front reached PAL_OUT_PE."),
    ParamRange("event_t_s", 0.5, 75.0, "s", "REQ pulses and the refill come at {range} "
               "(REQ at any time, also while a pallet is being dispensed).", on="time"),
    ParamRange("req_s", 0.3, 0.3, "s", "A REQ pulse lasts {lo} s.", on="duration",
               kinds=("press",), default=0.3),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition."""


def _reqs(*times: float) -> tuple[Event, ...]:
    return tuple(Event(t, "press", "REQ") for t in times)


TASK = TaskSpec(
    id="MAT-E12",
    title="Pallet dispenser (release the bottom pallet of a stack)",
    devices=(
        "D27 pallet dispenser. Lift table on a 5/3 cylinder: TABLE_UP raises it, TABLE_DOWN "
        "lowers it, neither holds it; table height 0-300 mm at a constant speed. Table switches "
        "(window +-3 mm): T_DOWN at 0 mm (table sunk in the conveyor), T_MID at 150 mm, T_UP at "
        "300 mm (table top under the bottom pallet of the stack).",
        "Hold forks at the fork level 300 mm, on a monostable valve with spring return: "
        "FORKS_IN = TRUE moves them in (holding the stack), FORKS_IN = FALSE opens them. At "
        "t = 0 they are in and hold the stack, so FORKS_IN must be TRUE from the first scan. "
        "Switches F_IN (fully in) and F_OUT (fully retracted); in between they are mid-stroke. "
        "The forks carry the stack once they are more than half in.",
        "Pallets 150 mm high and 1200 mm long. With the forks out, the stack rests on the table "
        "(which must be at T_UP to receive it); the forks closing with the table at T_MID "
        "enter the joint between the bottom pallet and the next one, so only the bottom pallet "
        "stays on the table. STACK_EMPTY = TRUE while no pallet rests on the hold forks.",
        "Pallet conveyor, on/off motor PAL_CONV, 200 mm/s (time constant 0.1 s). A pallet set "
        "down by the table at T_DOWN lies on x = 0..1200 mm; PAL_OUT_PE sees a pallet whose "
        "front is at x >= 1700 mm; the conveyor ends at 1750 mm with a stop plate. The "
        "downstream takes each pallet a fixed time after its front reached PAL_OUT_PE.",
        "At t = 0: forks in holding the stack, table down, conveyor empty. AUTO_SW reads TRUE "
        "throughout.",
    ),
    io=(
        Signal("%IX0.0", "AUTO_SW", "BOOL", "automatic mode selector (TRUE throughout)"),
        Signal("%IX0.1", "REQ", "BOOL", "downstream requests a pallet (pulse)"),
        Signal("%IX0.2", "T_UP", "BOOL", "table at 300 mm (+-3 mm)"),
        Signal("%IX0.3", "T_MID", "BOOL", "table at 150 mm (+-3 mm)"),
        Signal("%IX0.4", "T_DOWN", "BOOL", "table at 0 mm (+-3 mm)"),
        Signal("%IX0.5", "F_IN", "BOOL", "forks in (holding position)"),
        Signal("%IX0.6", "F_OUT", "BOOL", "forks retracted"),
        Signal("%IX0.7", "PAL_OUT_PE", "BOOL", "pallet at conveyor end (front at x >= 1700 mm)"),
        Signal("%IX1.0", "STACK_EMPTY", "BOOL", "no pallet on the hold forks"),
        Signal("%QX0.0", "TABLE_UP", "BOOL", "table valve coil: raise"),
        Signal("%QX0.1", "TABLE_DOWN", "BOOL", "table valve coil: lower"),
        Signal("%QX0.2", "FORKS_IN", "BOOL", "TRUE = forks in"),
        Signal("%QX0.3", "PAL_CONV", "BOOL", "pallet conveyor motor"),
        Signal("%QX0.4", "LAMP_EMPTY", "BOOL", "stack empty lamp"),
    ),
    spec=(
        "Count REQ rising edges; serve each once, in turn, when the conveyor is free (the "
        "previous pallet has been taken: PAL_OUT_PE fell).",
        "Per request: table up to T_UP; forks out; table down to T_MID; forks in; table down to "
        "T_DOWN; run the conveyor until PAL_OUT_PE, then stop it.",
        "STACK_EMPTY -> LAMP_EMPTY; keep the request pending until the refill.",
    ),
    completion=(
        "K pallets delivered, K being the number of REQ pulses of the run: a pallet is "
        "delivered when its front reaches PAL_OUT_PE, and it must travel alone (a load of two "
        "or more pallets fails the run). At no time may more pallets have reached PAL_OUT_PE "
        "than REQ rising edges have occurred so far (the run fails at once). Success on the "
        "tick the K-th pallet reaches PAL_OUT_PE. A pallet stack that falls or a pallet that is "
        "struck or sheared fails the run."
    ),
    time_limit_s=90.0,
    safety=(
        SafetyRule("S-DROP", "FORKS_IN is FALSE in a scan whose input image has T_UP = FALSE "
                   "and F_OUT = FALSE (the forks start or keep opening while the table is not "
                   "under the stack); or a pallet stack falls because nothing supports it."),
        SafetyRule("S-COLLIDE", "FORKS_IN is TRUE in a scan whose input image has F_IN = FALSE "
                   "while neither T_MID nor T_DOWN is TRUE (the forks start or keep closing at "
                   "a height where they would strike a pallet); or the table moves (its height "
                   "changes in the plant step a scan drives) while that scan's input image has "
                   "F_IN = FALSE and F_OUT = FALSE (forks mid-stroke); or the forks or the "
                   "table push into a pallet."),
        SafetyRule("S-COILS", "TABLE_UP and TABLE_DOWN are both TRUE in one scan."),
        SafetyRule("S-CONV", "PAL_CONV is TRUE in a scan whose input image has T_DOWN = FALSE "
                   "while a pallet lies on the table."),
        SafetyRule("S-SHEAR", "The table leaves T_DOWN while a pallet that the conveyor has "
                   "moved off its set-down position still lies partly over the table (rear "
                   "between 1 mm and 1200 mm)."),
    ),
    published=("Every run has enough pallets (stack plus refill) for all its requests; the "
               "requests may come faster than pallets can be dispensed. REQ pulses are at least "
               "1 s apart.",),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", {"table_mm_s": 100.0, "fork_s": 0.5, "stack_n": 6, "refill_n": 0,
                         "take_s": 3.0},
                  _reqs(1.0, 15.0, 29.0, 43.0), time_limit_s=65.0),
        Condition("C2", {"table_mm_s": 50.0, "fork_s": 1.0, "stack_n": 6, "refill_n": 0,
                         "take_s": 2.0},
                  _reqs(1.0, 20.0, 40.0, 60.0), time_limit_s=90.0),
        Condition("C3", {"table_mm_s": 100.0, "fork_s": 0.5, "stack_n": 2, "refill_n": 4,
                         "take_s": 4.0},
                  _reqs(1.0, 14.0, 27.0, 45.0) + (Event(30.0, "refill", "STACK"),),
                  note="the stack empties after two pallets; refill of 4 at 30.0",
                  time_limit_s=70.0),
    ),
    plant="plants.tasks.mat_e12.plant",
    reference="reference.st",
    changes=(
        "Catalog T values kept (65 / 90 / 70 s, already corrected by the review).",
        "The unnamed catalog rule 'PAL_CONV TRUE while a pallet is on the table and T_DOWN = "
        "FALSE' is judged as S-CONV. The catalog rules are stated on the signals the program "
        "sees: S-DROP 'forks start opening' as FORKS_IN = FALSE with F_OUT = FALSE and T_UP = "
        "FALSE; S-COLLIDE 'forks start closing' as FORKS_IN = TRUE with F_IN = FALSE away from "
        "T_MID/T_DOWN, and 'mid-stroke' on the switches (A23). The physical outcomes (a falling "
        "stack, forks or table pushing into a pallet) raise the same codes.",
        "S-SHEAR added: the catalog's conveyor-free rule has a physical cause (a pallet on its "
        "way out still lies over the table until it is taken); raising the table under it "
        "damages it.",
        "STACK_EMPTY is defined as 'no pallet on the hold forks'; the refill waits for F_IN "
        "(A39); REQ pulses last 0.3 s (G5); the refill count is the condition parameter "
        "refill_n (0 = no refill). 'REQ at any time' is published as 0.5-75 s.",
        "LAMP_EMPTY is asked for but not judged (the catalog completion does not include it).",
    ),
    judge={},
    search="plants.tasks.mat_e12.search",
)
