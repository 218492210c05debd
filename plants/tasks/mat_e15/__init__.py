"""MAT-E15 · Pneumatic pick-and-place handling unit with vacuum retry (TASKS/MAT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

PUBLISHED_RANGES = (
    ParamRange("t_x_s", 0.3, 1.0, "s", "X slide stroke time (either direction): {range}."),
    ParamRange("t_z_s", 0.3, 1.0, "s", "Z slide stroke time (either direction): {range}."),
    ParamRange("t_vac_s", 0.05, 0.6, "s", "Vacuum build-up time (VAC on with the cup down on "
               "a part until VAC_OK): {range}."),
    ParamRange("t_rem_s", 2.0, 4.0, "s", "The downstream removes a placed part {range} after "
               "it was placed."),
    ParamRange("parts_to_place", 1, 5, "parts", "K = {range} must be placed."),
    ParamRange("porous_part", 0, 5, "", "At most one part (its number in arrival order "
               "{lo}-{hi}, 0 = none) is porous on its first vacuum attempt: VAC_OK never rises on that attempt; "
               "its second attempt succeeds."),
    ParamRange("arrival_t_s", 0.5, 30.0, "s", "Parts arrive at the pick nest at any time in "
               "{range}.", on="time", kinds=("arrive",)),
)
"""Published ranges as data (the audit checks every condition against them)."""

_ARRIVALS = (1.0, 6.0, 11.0, 16.0, 21.0)


def _arrivals(times: tuple[float, ...]) -> tuple[Event, ...]:
    return tuple(Event(t, "arrive", "pick nest") for t in times)


TASK = TaskSpec(
    id="MAT-E15",
    title="Pneumatic pick-and-place handling unit with vacuum retry",
    devices=(
        "D11 X slide, monostable valve: X_V = TRUE moves it to the place side, FALSE back "
        "home (valve return); the stroke changes linearly over the stroke time. X_HOME = "
        "stroke <= 2 % (cup above the pick nest), X_PLACE = stroke >= 98 % (cup above the "
        "place nest).",
        "D11 Z slide on the X slide, monostable valve: Z_V = TRUE moves the cup down, FALSE "
        "up. Z_UP = stroke <= 2 %, Z_DOWN_S = stroke >= 98 % (cup down on the nest below).",
        "D12 vacuum cup with BLOW. With VAC on and the cup down on a part in the pick nest "
        "(X_HOME, Z_DOWN_S), the part is gripped after the vacuum build-up time and VAC_OK "
        "turns TRUE; a gripped part moves with the cup. When VAC drops, the part is let go "
        "0.1 s later, or 0.02 s later while BLOW is on; VAC_OK falls then.",
        "Pick nest: parts arrive as scripted; a part waits while the pick nest is occupied "
        "or the cup is down there (Z not up at X home). PART_AT_PICK is TRUE while a part "
        "lies in the pick nest (a gripped part has left it).",
        "Place nest: a part counts as placed when it is let go with the cup down at the "
        "place nest (X_PLACE and Z_DOWN_S) into the empty nest; PLACE_FREE then turns FALSE. "
        "The downstream removes a placed part t_rem after it was placed, as soon as the cup "
        "is not down at the place nest (PLACE_FREE turns TRUE again).",
    ),
    io=(
        Signal("%IX0.0", "AUTO_SW", "BOOL", "maintained auto switch (TRUE in every condition)"),
        Signal("%IX0.1", "X_HOME", "BOOL", "X slide at home (pick side)"),
        Signal("%IX0.2", "X_PLACE", "BOOL", "X slide at the place side"),
        Signal("%IX0.3", "Z_UP", "BOOL", "Z slide up"),
        Signal("%IX0.4", "Z_DOWN_S", "BOOL", "Z slide down"),
        Signal("%IX0.5", "VAC_OK", "BOOL", "vacuum built: a part is held"),
        Signal("%IX0.6", "PART_AT_PICK", "BOOL", "part in the pick nest"),
        Signal("%IX0.7", "PLACE_FREE", "BOOL", "place nest empty"),
        Signal("%QX0.0", "X_V", "BOOL", "TRUE = X slide to the place side"),
        Signal("%QX0.1", "Z_V", "BOOL", "TRUE = Z slide down"),
        Signal("%QX0.2", "VAC", "BOOL", "vacuum on"),
        Signal("%QX0.3", "BLOW", "BOOL", "blow-off pulse"),
        Signal("%QX0.4", "LAMP_ALARM", "BOOL", "alarm lamp"),
    ),
    spec=(
        "At t = 0: X home, Z up, no part held, both nests empty.",
        "Cycle: part at pick -> Z down -> VAC -> wait for VAC_OK (at most 1.0 s after VAC; "
        "otherwise VAC off, Z up and retry once; a second failure -> LAMP_ALARM on and stop) "
        "-> Z up -> X to place -> wait for PLACE_FREE -> Z down -> VAC off + BLOW 0.1 s -> "
        "wait 0.2 s -> Z up -> X home.",
        "Change X_V only while Z_UP = TRUE.",
        "AUTO_SW is a maintained switch that reads TRUE from t = 0 in every condition (A1); "
        "it is not judged.",
    ),
    completion=(
        "K parts placed (success at the K-th placement). LAMP_ALARM must never be on (every "
        "part is gripped by the second attempt at the latest): the condition fails in the "
        "first scan that sets LAMP_ALARM. A dropped part fails the condition too."
    ),
    time_limit_s=50.0,
    safety=(
        SafetyRule("S-TOOLMOVE", "X_V changes state (either direction) in a scan whose input "
                   "image shows Z_UP = FALSE: the X slide must only be moved with the Z slide "
                   "up."),
        SafetyRule("S-DROP", "A part is let go (vacuum released) anywhere other than into the "
                   "empty place nest with the cup down there (X_PLACE = TRUE and Z_DOWN_S = "
                   "TRUE when the part comes off the cup), e.g. while Z is moving, over the "
                   "pick nest or into an occupied place nest."),
        SafetyRule("S-CRUSH", "The Z slide moves down (its stroke increases) during a scan "
                   "whose input image shows PLACE_FREE = FALSE while the X slide is away from "
                   "home (X_HOME = FALSE): the cup descends onto the occupied place nest."),
    ),
    published=(),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", {"t_x_s": 0.5, "t_z_s": 0.3, "t_vac_s": 0.1, "t_rem_s": 3.0,
                         "parts_to_place": 5, "porous_part": 0},
                  _arrivals((1.0, 3.0, 5.0, 7.0, 9.0)),
                  note="fast unit, parts every 2 s: it must wait for PLACE_FREE",
                  time_limit_s=40.0),
        Condition("C2", {"t_x_s": 1.0, "t_z_s": 0.6, "t_vac_s": 0.5, "t_rem_s": 4.0,
                         "parts_to_place": 5, "porous_part": 0},
                  _arrivals(_ARRIVALS), note="slow strokes and vacuum", time_limit_s=50.0),
        Condition("C3", {"t_x_s": 0.5, "t_z_s": 0.3, "t_vac_s": 0.1, "t_rem_s": 3.0,
                         "parts_to_place": 5, "porous_part": 2},
                  _arrivals(_ARRIVALS), note="part 2 porous on its first attempt",
                  time_limit_s=45.0),
    ),
    plant="plants.tasks.mat_e15.plant",
    reference="reference.st",
    search="plants.tasks.mat_e15.search",
    changes=(
        "C1's parts arrive at 1, 3, 5, 7, 9 s (catalog: every 5 s, as C2/C3). With a part "
        "every 5 s and t_rem <= 4 s the place nest was always free again before the unit "
        "returned, so no condition judged waiting for PLACE_FREE or S-CRUSH; now the fast "
        "unit of C1 waits for the removal in every cycle.",
        "The unnamed X_V rule is judged as S-TOOLMOVE; S-DROP and S-CRUSH are made exact "
        "(S-CRUSH judges downward Z motion with the X slide away from home, on the input "
        "image the program saw).",
        "A dropped part or LAMP_ALARM ends the condition as failed at once (neither can be "
        "undone: there is no part to replace it).",
        "Published ranges are data: 'arrivals at any time' is 0.5-30 s, K 1-5 (5 in every "
        "condition), the porous part any one part or none.",
        "Pick-nest arrivals wait while the nest is occupied or the cup is down there; the "
        "downstream waits for the cup to leave the place nest before removing a part.",
        "T stays 40/50/45 s; the reference finishes in 15.8/24.9/22.5 s.",
    ),
)
