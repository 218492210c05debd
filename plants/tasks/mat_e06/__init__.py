"""MAT-E06 · Bottle fill station with flow meter (TASKS/MAT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

PUBLISHED_RANGES = (
    ParamRange("volume_ml", 200.0, 1000.0, "ml", "Target volume VOLUME {range} (constant during a "
               "run)."),
    ParamRange("q_ml_s", 20.0, 100.0, "ml/s", "Flow through the open valve q = {range}."),
    ParamRange("q_late_ml_s", 20.0, 100.0, "ml/s", "The flow may change once during a run, to "
               "another value in {range}, also while a bottle is being filled.", ),
    ParamRange("flow_change_t_s", 1.0, 120.0, "s", "Such a flow change happens at t = {range}.",
               on="time", kinds=("flow_change",)),
    ParamRange("v_mm_s", 150.0, 250.0, "mm/s", "Conveyor speed v = {range}."),
    ParamRange("pitch_mm", 200.0, 500.0, "mm", "Bottle pitch {range} (each next placement when "
               "the previous bottle has travelled the pitch)."),
    ParamRange("bottles", 1.0, 10.0, "", "{lo}-{hi} bottles per run; single placements after "
               "the first may be skipped (a gap of one pitch)."),
    ParamRange("lift_away_s", 0.5, 5.0, "s", "The operator may lift a bottle away from the "
               "filling position while it is being filled, {range} after its valve opened.",
               on="time", kinds=("lift_away",)),
)
"""Published ranges as data: the text is rendered from them and the audit checks each condition."""


def _lift(after_s: float, bottle: int) -> Event:
    """Operator lifts bottle ``bottle`` away ``after_s`` after the valve opened for it."""
    return Event(after_s, "lift_away", "bottle", args=(("bottle", bottle),))


TASK = TaskSpec(
    id="MAT-E06",
    title="Bottle fill station with flow meter",
    devices=(
        "D18 conveyor from x = 0 to x = 1500 mm, direct-on-line motor switched by CONV: the "
        "belt speed follows CONV with the time constant 0.1 s in both directions (run-up and "
        "coast). A bottle moves with the belt surface under its centre; a bottle whose centre "
        "passes x = 1500 mm goes into the exit receiver.",
        "D17 bottle source: bottles of length 80 mm are placed with their rear at x = 0, the "
        "first at t = 1.0 s and each next one when the previous bottle has travelled the pitch "
        "(a missing bottle leaves a gap of one pitch). Bottles queue behind a stopped bottle "
        "without overlapping.",
        "D21 stopper blade at x = 1000 mm, single-acting, driven by STOP_UP: it rises and "
        "lowers linearly in 0.1 s and is down at t = 0. It stops bottles while it is more than "
        "half raised; a bottle resting against it has its front at 1000 mm and its centre at "
        "960 mm. STOP_UP_S reads TRUE when the blade is fully raised.",
        "D19 diffuse photo-eye BOT_AT_FILL at x = 990 mm: TRUE while a bottle footprint "
        "covers it (a bottle resting against the blade covers it; it falls when the rear of a "
        "released bottle passes 990 mm, 10 mm before the blade).",
        "D25 filler over x = 960 mm: the valve opens and closes 30 ms after the FILL command "
        "(3 scans); while open, liquid flows at q ml/s and FLOW_CNT counts it (1 count = 1 ml, "
        "free running, whole ml). The liquid goes into the bottle at rest with its centre "
        "within 960 +/- 10 mm, otherwise it is spilled. Bottle capacity VOLUME + 40 ml.",
    ),
    io=(
        Signal("%IX0.0", "AUTO_SW", "BOOL", "maintained auto switch (ON throughout)"),
        Signal("%IX0.1", "BOT_AT_FILL", "BOOL", "bottle footprint at x = 990 (a bottle resting "
               "against the blade covers it)"),
        Signal("%IX0.2", "STOP_UP_S", "BOOL", "blade fully raised"),
        Signal("%ID240", "FLOW_CNT", "DINT", "flow meter, 1 count = 1 ml (free running)", "ml"),
        Signal("%IW140", "VOLUME", "INT", "target volume", "ml"),
        Signal("%QX0.0", "CONV", "BOOL", "conveyor motor"),
        Signal("%QX0.1", "STOP_UP", "BOOL", "TRUE = raise blade"),
        Signal("%QX0.2", "FILL", "BOOL", "fill valve"),
    ),
    spec=(
        "Raise the blade at start and keep it up except to release a filled bottle.",
        "When BOT_AT_FILL rises: stop the conveyor, wait 0.3 s, open FILL until the counted "
        "volume (FLOW_CNT minus its value at the open command) >= VOLUME minus the expected "
        "after-flow (the valve closes 30 ms after the command, so about q*0.03 ml still flow; "
        "q is not an input: estimate it from FLOW_CNT), then close.",
        "Release: lower the blade and run the conveyor. BOT_AT_FILL falls when the bottle's "
        "rear passes 990 mm, 10 mm before the blade; raise the blade 0.1 s after BOT_AT_FILL "
        "falls (the rear has then cleared x = 1000) and keep the conveyor running.",
        "If BOT_AT_FILL falls during filling (the operator lifted the bottle away), close FILL "
        "at once, keep the blade up and run on to the next bottle.",
    ),
    completion=(
        "Success when every bottle has left the belt: every bottle that reaches the exit "
        "receiver holds VOLUME +/- 5 ml, and every other bottle was lifted away by the "
        "operator. A bottle reaching the exit outside VOLUME +/- 5 ml fails the condition at "
        "once."
    ),
    time_limit_s=125.0,
    safety=(
        SafetyRule("S-SPILL", "The valve is physically open for more than 50 ms in a row "
                   "(more than 5 consecutive plant steps) while no bottle is at rest with its "
                   "centre within 960 +/- 10 mm."),
        SafetyRule("S-OVERFLOW", "A bottle holds more than VOLUME + 40 ml."),
        SafetyRule("S-LIFT", "The blade's stroke increases (it moves up) while a bottle "
                   "straddles x = 1000 mm (rear < 999 mm and front > 1001 mm)."),
    ),
    published=(),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", {"volume_ml": 500, "q_ml_s": 50.0, "v_mm_s": 200.0, "pitch_mm": 400.0,
                         "bottles": 6}, time_limit_s=100.0),
        Condition("C2", {"volume_ml": 330, "q_ml_s": 80.0, "v_mm_s": 250.0, "pitch_mm": 300.0,
                         "bottles": 8}, time_limit_s=70.0),
        Condition("C3", {"volume_ml": 750, "q_ml_s": 60.0, "q_late_ml_s": 30.0, "v_mm_s": 150.0,
                         "pitch_mm": 300.0, "bottles": 4},
                  (Event(20.0, "flow_change", "q"),), note="q drops from 60 to 30 ml/s at 20 s",
                  time_limit_s=125.0),
        Condition("C4", {"volume_ml": 250, "q_ml_s": 40.0, "v_mm_s": 200.0, "pitch_mm": 300.0,
                         "bottles": 6, "skipped": (4,)},
                  (_lift(2.0, 3),), note="4th placement empty; the 3rd bottle is lifted away "
                  "2 s after its valve opened", time_limit_s=70.0),
    ),
    plant="plants.tasks.mat_e06.plant",
    reference="reference.st",
    search="plants.tasks.mat_e06.search",
    changes=(
        "Catalog time limits kept (100/70/125/70 s).",
        "Published ranges made finite: pitch 200-500 mm (catalog: >= 200), 1-10 bottles per "
        "run, a flow change at 1-120 s, a lift-away 0.5-5 s after the valve opened; every "
        "catalog value lies inside.",
        "C4's lift-away is tied to the program (A39): the operator lifts the 3rd bottle 2.0 s "
        "after the valve physically opened with it at the filling position (its `lift_away` "
        "event's t counts from that instant); a bottle no longer there is not lifted.",
        "S-SPILL's 50 ms is judged exactly on the physical valve (more than 5 consecutive plant "
        "steps); a program that closes FILL in the scan that sees BOT_AT_FILL fall keeps the "
        "valve open for 3 steps.",
        "AUTO_SW is in the catalog's I/O map but no rule uses it; it reads TRUE throughout "
        "(A1) and is stated so.",
        "The spec line on the after-flow states that q must be estimated from FLOW_CNT (q is "
        "not an input).",
    ),
)
