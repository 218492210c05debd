"""MOT-E10 · Strip feed by relative servo moves for a press (recipe length) (TASKS/MOT-E.md)."""

from __future__ import annotations

from plants.tasks.axis_io import axis_block
from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

START_S = 0.5
"""The first START press of every condition (catalog: 'START at 0.5 in every condition')."""
SETTLE_S = 3.0
"""A6: 'exactly BATCH punches' is judged this long after the last punch of the batch."""
DISTANCE_TOL_MM = 0.05
TEAR_SPEED_MM_S = 0.5
LAST_EVENT_S = 25.0
"""Scripted presses come no later than this (the longest time limit)."""

PUBLISHED_RANGES = (
    ParamRange("feed_len", 1000.0, 30000.0, "", "FEED_LEN {range} (10-300 mm)."),
    ParamRange("batch", 3.0, 10.0, "", "BATCH {range}."),
    ParamRange("stroke_s", 0.5, 1.5, "s", "Press stroke time (PRESS_TOP FALSE) {range}; it may "
               "differ from stroke to stroke."),
    ParamRange("press_delay_s", 0.1, 0.3, "s", "Press start delay (FEED_DONE edge to stroke start) "
               "{range}."),
    ParamRange("event_t_s", START_S, LAST_EVENT_S, "s", "The first START press comes at {lo} s. STOP "
               "presses may come at any time after it (up to {hi} s), each followed by a START press "
               "later.", on="time"),
    ParamRange("press_s", 0.3, 0.3, "s", "Every press lasts {lo} s.", on="duration", kinds=("press",),
               default=0.3),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition.
`stroke_s` bounds each entry of the condition's `strokes_s` tuple, which the tests check."""
RANGES = {r.name: (r.lo, r.hi) for r in PUBLISHED_RANGES}
"""name -> (lo, hi)."""


def make_condition(name: str, *, feed_len: int, batch: int, strokes: tuple[float, ...],
                   delay: float, time_limit: float, pauses: tuple[tuple[float, float, float], ...] = (),
                   note: str = "") -> Condition:
    """One run: recipe words, press stroke times (cycled stroke by stroke), start delay and
    the panel script: START at 0.5 s, then per pause a STOP press held over [from, to) and
    the START press that resumes, as (from, to, start) triples."""
    script = [Event(START_S, "press", "START")]
    for stop_from, stop_to, start_t in pauses:
        script.append(Event(stop_from, "press", "STOP_NC", round(stop_to - stop_from, 3)))
        script.append(Event(start_t, "press", "START"))
    return Condition(
        name,
        {"feed_len": feed_len, "batch": batch, "strokes_s": strokes, "press_delay_s": delay},
        tuple(script),
        note=note,
        time_limit_s=time_limit,
    )


TASK = TaskSpec(
    id="MOT-E10",
    title="Strip feed by relative servo moves for a press (recipe length)",
    devices=(
        "D01 operator panel: START push-button (NO, TRUE while pressed) and STOP_NC "
        "push-button (NC, FALSE while pressed), 0.3 s per press; LAMP_BATCH lamp.",
        "D07 servo positioning drive, axis n = 0 'FEED' of the standard axis block (Table A), "
        "driving the strip feed rolls: linear, u = mm, an endless feed: no soft limits, no "
        "hardware limit switches (LIM_NEG, LIM_POS stay FALSE), no reference cam (REF_SW "
        "stays FALSE; the axis is never homed and need not be). v_max 800 mm/s, a_max "
        "8000 mm/s², a_def 2000 mm/s², power-up delay 100 ms. ACT_POS reads 0.00 mm at "
        "t = 0 and grows with the strip fed forward.",
        "Drive power: ENABLE (level) sets POWERED after the power-up delay.",
        "MOVE_REL (edge): relative move by TARGET (0.01 mm) from ACT_POS at the edge, accepted "
        "unhomed, with VELOCITY (0.1 mm/s, clipped to v_max) and ACCEL (mm/s², used for "
        "deceleration too; <= 0 means a_def, clipped to a_max), a trapezoid that ends exactly "
        "on the target; DONE = TRUE at the target with v = 0. Rejected with ERROR when not "
        "POWERED (ERROR_ID 5) or VELOCITY <= 0 (6). MOVE_ABS needs HOMED (else ERROR_ID 2). "
        "A new command edge aborts the running one (ABORTED).",
        "Command edges act on a FALSE->TRUE change of the output between consecutive output "
        "images; only the highest-ranked new edge of a cycle is executed (STOP > HALT > HOME "
        "> MOVE_ABS > MOVE_REL > MOVE_VEL > GEAR_IN). BUSY = a command is active; DONE is "
        "TRUE from completion until the next accepted command; STANDSTILL = |v| < 0.5 mm/s. "
        "An error puts the drive in ErrorStop (ERROR, ERROR_ID) until a RESET edge.",
        "Press (not programmed by you, it watches FEED_DONE): PRESS_TOP is TRUE while the ram "
        "is in its top zone. On a FALSE->TRUE edge of FEED_DONE while PRESS_TOP = TRUE and the "
        "feed axis is at standstill (|v| < 0.5 mm/s, and it moved less than 0.005 mm in the "
        "last cycle) the press arms; after its start delay it starts a stroke only if "
        "FEED_DONE is still TRUE and the axis still at standstill (otherwise it disarms and "
        "waits for the next FEED_DONE edge). During a stroke PRESS_TOP is FALSE for the "
        "stroke time (the stroke cannot be stopped); the punch is made at mid-stroke, at the "
        "strip position ACT_POS of that moment. FEED_DONE edges during a stroke or while "
        "armed are ignored.",
    ),
    io=axis_block(0) + (
        Signal("%IX0.0", "START", "BOOL", "start push-button, NO"),
        Signal("%IX0.1", "STOP_NC", "BOOL", "stop push-button, NC (FALSE while pressed): pause"),
        Signal("%IX0.2", "PRESS_TOP", "BOOL", "press ram in its top zone"),
        Signal("%IW140", "FEED_LEN", "INT", "feed length per punch", "0.01 mm"),
        Signal("%IW142", "BATCH", "INT", "number of punches"),
        Signal("%QX0.0", "FEED_DONE", "BOOL", "strip positioned: the press may stroke"),
        Signal("%QX0.1", "LAMP_BATCH", "BOOL", "batch complete"),
    ),
    spec=(
        "On START: ENABLE the axis and wait for POWERED. Then, per punch: MOVE_REL by "
        "FEED_LEN with VELOCITY = 8000 (800 mm/s) and ACCEL = 8000 mm/s²; at DONE set "
        "FEED_DONE; after PRESS_TOP falls, reset FEED_DONE; after PRESS_TOP returns, feed "
        "the next length.",
        "After BATCH punches, set LAMP_BATCH (and keep it on; no further feed).",
        "STOP pauses: a feed already running is finished (its FEED_DONE is given and its "
        "punch is made), but no new feed starts after a STOP press until the next START "
        "edge; that START resumes the batch where it stopped.",
        "The recipe words FEED_LEN and BATCH are valid from t = 0 and do not change.",
    ),
    completion=(
        "Exactly BATCH punches are made, and each punch after the first is made FEED_LEN "
        f"± {DISTANCE_TOL_MM:.2f} mm (ACT_POS) further along than the previous one. "
        "LAMP_BATCH is TRUE at the end and never TRUE before the last stroke of the batch has "
        "started (PRESS_TOP fell for the BATCH-th time). A punch at a wrong distance, a punch "
        "beyond BATCH or an early LAMP_BATCH fails the condition at once. 'Exactly' is judged "
        f"{SETTLE_S:g} s after the last punch of the batch, so success comes at the "
        f"earliest {SETTLE_S:g} s after that punch (and after the last scripted press)."
    ),
    time_limit_s=25.0,
    safety=(
        SafetyRule("S-TOOLMOVE", "Strip tear: the feed axis moves faster than "
                   f"{TEAR_SPEED_MM_S:g} mm/s (tick-average speed, change of position per "
                   "10 ms cycle) in a cycle at whose end the press ram is out of its top zone "
                   "(PRESS_TOP = FALSE)."),
        SafetyRule("S-STOPAXIS", "A motion command edge (HOME, MOVE_ABS, MOVE_REL or MOVE_VEL "
                   "of the FEED axis going FALSE->TRUE) in a cycle whose input image shows "
                   "STOP_NC = FALSE, or in any later cycle before the next START edge (START "
                   "FALSE in one input image and TRUE in the next). This task has no stop "
                   "time: a feed already running when STOP is pressed may finish."),
    ),
    published=(),
    ranges=PUBLISHED_RANGES,
    conditions=(
        make_condition("C1", feed_len=12000, batch=5, strokes=(0.6,), delay=0.1,
                       time_limit=20.0),
        make_condition("C2", feed_len=3750, batch=8, strokes=(1.2,), delay=0.2,
                       time_limit=25.0),
        make_condition("C3", feed_len=25000, batch=4, strokes=(0.6, 1.5, 0.8, 1.0), delay=0.3,
                       time_limit=25.0, pauses=((3.5, 3.8, 6.0),),
                       note="STOP during the 2nd stroke; START resumes at 6.0 s"),
    ),
    plant="plants.tasks.mot_e10.plant",
    reference="reference.st",
    changes=(
        "Press standstill made exact: the press arms and strokes only when |v| < 0.5 mm/s "
        "and the axis moved less than 0.005 mm in the last cycle, so a stroke can never "
        "start in a cycle whose tick-average speed already breaks the strip-tear rule.",
        "HOME added to the motion command edges of the STOP rule (it moves the strip too).",
        "Completion made exact: the first punch has no distance rule; the lamp may not be "
        "TRUE before the BATCH-th stroke started; 'exactly BATCH' is judged 3 s after the "
        "last punch (A6).",
        "Time limits as in the catalog (20/25/25 s), one per condition; they are sized for "
        "the condition's batch. The slowest corner of the published ranges (300 mm x 10 "
        "punches, 1.5 s strokes, 0.3 s delay) needs about 26 s with the settle delay; a "
        "condition there would get its own longer limit.",
        "Published ranges are data (PUBLISHED_RANGES). 'STOP presses may come at any time "
        "after' the first START got an end containing every catalog value: up to 25 s, the "
        "longest time limit.",
    ),
    judge={"settle_s": SETTLE_S, "tolerance_mm": DISTANCE_TOL_MM,
           "tear_speed_mm_s": TEAR_SPEED_MM_S},
)
