"""MAT-E04 · Stack-magazine separator feeding a handling unit (TASKS/MAT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

MAG_CAPACITY = 10
"""Parts the magazine holds; refills never fill it beyond this."""

LAMP_GRACE_S = 0.2
"""The lamp rule starts (and ends) this long after MAG_EMPTY AND REQ rises (falls)."""
LAMP_PHASE_S = (0.4, 0.6)
"""Every on and off phase of the flashing lamp lasts this long (1 Hz, 0.5 s / 0.5 s nominal)."""

PUBLISHED_RANGES = (
    ParamRange("n", 0, MAG_CAPACITY, "parts", "The magazine holds {range} at t = 0 "
               f"(capacity {MAG_CAPACITY})."),
    ParamRange("parts_to_take", 1, 7, "parts", "The handler must take K = {range}."),
    ParamRange("t_ext_s", 0.3, 1.0, "s", "Separator extension time {range} (retracted to "
               "extended)."),
    ParamRange("t_ret_s", 0.3, 1.0, "s", "Separator retraction time {range}."),
    ParamRange("t_d_s", 0.2, 3.0, "s", "Handler wait t_d before it descends: {range}."),
    ParamRange("t_g_s", 0.2, 3.0, "s", "Handler grip time t_g: {range}."),
    ParamRange("t_leave_s", 0.2, 3.0, "s", "Handler t_leave (lift to TAKING falling): {range}."),
    ParamRange("t_off_s", 2.0, 5.0, "s", "REQ returns t_off = {range} after each lift (t_off may "
               "differ from part to part)."),
    ParamRange("refill_t_s", 0.01, 60.0, "s", "The operator refills the magazine at any time "
               "({range}), with any number of parts that keeps the stack within its capacity.",
               on="time", kinds=("refill",)),
)
"""Published ranges as data. `t_off_s` bounds every entry of a condition's `t_off_list_s`
(a per-part list, so the audit cannot read it; tests/plants/test_mat_e04.py checks it)."""

TASK = TaskSpec(
    id="MAT-E04",
    title="Stack-magazine separator feeding a handling unit",
    devices=(
        "D17 gravity magazine (capacity 10 parts) above a separator slide. The separator "
        "pushes the bottom part to the pick position on the tick its stroke first reaches "
        "full extension (SEP_EXT); the next part drops into the separator's path only after "
        "the separator has left full extension again. An empty magazine pushes nothing. "
        "Refills are scripted (operator).",
        "D11 separator cylinder, monostable: SEP_V = TRUE extends, FALSE retracts (spring/valve "
        "return); the stroke changes linearly over the extension / retraction time. SEP_RET = "
        "stroke <= 2 %, SEP_EXT = stroke >= 98 %.",
        "Scripted downstream handler (pick-up unit). REQ is TRUE at t = 0 (unless a part is "
        "already at the pick position) while the handler is ready for a part, and falls when "
        "PICK_POS rises. With a part at the pick position, SEP_RET = TRUE and the handler "
        "back from its previous pick, it waits t_d, descends (TAKING rises), grips for t_g and "
        "lifts the part away (PICK_POS falls: the part is taken). TAKING falls t_leave after "
        "the lift; REQ returns t_off after the lift, which may be before or after TAKING "
        "falls.",
    ),
    io=(
        Signal("%IX0.0", "AUTO_SW", "BOOL", "maintained auto switch (TRUE in every condition)"),
        Signal("%IX0.1", "MAG_EMPTY", "BOOL", "magazine empty (no part left above the separator)"),
        Signal("%IX0.2", "PICK_POS", "BOOL", "part at pick position"),
        Signal("%IX0.3", "SEP_RET", "BOOL", "separator retracted (stroke <= 2 %)"),
        Signal("%IX0.4", "SEP_EXT", "BOOL", "separator extended (stroke >= 98 %)"),
        Signal("%IX0.5", "REQ", "BOOL", "handler ready for a part"),
        Signal("%IX0.6", "TAKING", "BOOL", "handler gripper in the pick zone"),
        Signal("%QX0.0", "SEP_V", "BOOL", "TRUE = extend separator"),
        Signal("%QX0.1", "LAMP_EMPTY", "BOOL", "flash 1 Hz while empty and requested"),
    ),
    spec=(
        "When REQ = TRUE, with PICK_POS = FALSE, MAG_EMPTY = FALSE, SEP_RET = TRUE and "
        "TAKING = FALSE: extend the separator until SEP_EXT, then retract it until SEP_RET "
        "(one part per stroke).",
        "Never start or continue extending the separator while PICK_POS = TRUE (other than "
        "for the part this stroke has just pushed) or TAKING = TRUE (S-COLLIDE).",
        "While MAG_EMPTY and REQ are both TRUE, LAMP_EMPTY flashes at 1 Hz (0.5 s on / 0.5 s "
        "off); otherwise it is off. The operator refills as scripted.",
        "AUTO_SW is a maintained switch that reads TRUE from t = 0 in every condition (A1); "
        "it is not judged.",
    ),
    completion=(
        "K parts are taken by the handler (success at the K-th lift). Lamp rule, judged in "
        "every scan on the input image the program saw: once MAG_EMPTY AND REQ has been TRUE "
        "for more than 0.2 s, LAMP_EMPTY must toggle, every on and off phase lasting "
        "0.4-0.6 s (the 0.4 s bound with a 20 ms tolerance; a phase that began before the 0.2 s grace ended, or that the end of the "
        "MAG_EMPTY AND REQ interval cuts short, may be shorter; a phase may not exceed 0.6 s "
        "while the interval lasts, and it counts from the scan the lamp last changed, even "
        "before the interval began, so the flashing must start within 0.2 s); once MAG_EMPTY AND REQ has been FALSE for more than "
        "0.2 s, LAMP_EMPTY must be FALSE."
    ),
    time_limit_s=60.0,
    safety=(
        SafetyRule("S-COLLIDE", "The separator stroke increases during a scan whose input "
                   "image shows PICK_POS = TRUE or TAKING = TRUE. Not counted: the rest of the "
                   "extension stroke that has itself just pushed the part now at the pick "
                   "position, while TAKING = FALSE. An extension into an occupied pick position or into the "
                   "descending gripper is a collision."),
    ),
    published=(),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", {"n": 6, "parts_to_take": 6, "t_ext_s": 0.3, "t_ret_s": 0.3,
                         "t_d_s": 0.5, "t_g_s": 0.3, "t_leave_s": 0.2, "t_off_list_s": (2.0,),
                         "part_at_pick": False}, (), time_limit_s=40.0),
        Condition("C2", {"n": 3, "parts_to_take": 7, "t_ext_s": 0.3, "t_ret_s": 0.3,
                         "t_d_s": 0.5, "t_g_s": 0.3, "t_leave_s": 0.2, "t_off_list_s": (2.0,),
                         "part_at_pick": False},
                  (Event(15.0, "refill", "magazine", args=(("parts", 5),)),),
                  note="empty and requested from about 10 s until the refill at 15 s",
                  time_limit_s=60.0),
        Condition("C3", {"n": 8, "parts_to_take": 6, "t_ext_s": 1.0, "t_ret_s": 1.0,
                         "t_d_s": 0.5, "t_g_s": 0.3, "t_leave_s": 0.2,
                         "t_off_list_s": (3.0, 5.0, 4.0, 3.0, 5.0), "part_at_pick": False},
                  (), note="slow separator, REQ off times vary", time_limit_s=50.0),
        Condition("C4", {"n": 6, "parts_to_take": 5, "t_ext_s": 0.5, "t_ret_s": 0.5,
                         "t_d_s": 0.5, "t_g_s": 0.3, "t_leave_s": 3.0, "t_off_list_s": (2.0,),
                         "part_at_pick": True}, (),
                  note="a part at the pick position at t = 0; REQ returns 1 s before TAKING "
                  "falls", time_limit_s=50.0),
    ),
    plant="plants.tasks.mat_e04.plant",
    reference="reference.st",
    changes=(
        "The parts a condition requires (K) and the magazine capacity (10, the top of the "
        "published n 0-10) are published as ranges; refill sizes keep the stack within it.",
        "Published ranges are data: the catalog's 'handler delays 0.2-3 s' bounds each of "
        "t_d, t_g and t_leave, 'strokes 0.3-1.0 s' each of the extension and retraction "
        "times, 'refills at any time' the refill times 0.01-60 s (the longest limit).",
        "The handler is 'back' for the next part only after TAKING has fallen and REQ has "
        "returned (as in the review simulation); REQ is FALSE at t = 0 when a part is already "
        "at the pick position (C4).",
        "AUTO_SW is in the catalog's I/O map but in no rule: it reads TRUE in every condition "
        "and is not judged (stated in the specification).",
        "A part the magazine receives while the separator is extended drops into the "
        "separator's path only after the separator has left full extension (the plant holds "
        "a refill back from the push of the stroke in progress).",
        "Lamp rule made exact: the 0.4 s lower bound is judged with the 20 ms tolerance of A5; "
        "the 0.6 s upper bound is exact and a phase counts from the lamp's last change, so an "
        "unlit lamp fails 0.2 s after MAG_EMPTY AND REQ rises (as in the review simulation).",
        "T stays per condition (40/60/50/50 s); the reference finishes in 18.4/26.6/36.4/19.9 s.",
    ),
    judge={"lamp_grace_s": LAMP_GRACE_S, "lamp_phase_s": LAMP_PHASE_S},
    deadlines=("lamp_grace_s",),
    search="plants.tasks.mat_e04.search",
)
