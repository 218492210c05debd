"""MAT-E05 · Tank batch fill and drain with dry-run protection (TASKS/MAT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

SETTLE_S = 3.0
"""A6: the final state of an "exactly BATCHES cycles" run must hold this long."""

ALARM_WINDOW_S = 0.3
"""LAMP_ALARM must be on at most this long after HH first reads TRUE."""

ALARM_HOLD_S = 5.0
"""After the alarm drain, the tank must stay safe and the alarm on for this long."""

PUBLISHED_RANGES = (
    ParamRange("q_in_pct_s", 4.0, 8.0, "%/s", "Fill valve inflow q_in {range} (level per second)."),
    ParamRange("q_out_pct_s", 4.0, 10.0, "%/s", "Drain pump outflow q_out {range} (while the "
               "level is above 0 %)."),
    ParamRange("batches", 1.0, 5.0, "", "BATCHES {range}; it does not change during a run."),
    ParamRange("h0_pct", 0.0, 5.0, "%", "Initial level {range}."),
    ParamRange("event_t_s", 0.5, 60.0, "s", "START and STOP presses at {range}; STOP and START "
               "may come mid-batch (during a fill, the 3 s wait or a drain).", on="time"),
    ParamRange("press_s", 0.3, 1.0, "s", "A press lasts {range}.", on="duration",
               kinds=("press",), default=0.3),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition."""

TASK = TaskSpec(
    id="MAT-E05",
    title="Tank batch fill and drain with dry-run protection",
    devices=(
        "D01 operator panel: START (NO) and STOP_NC (NC) push-buttons.",
        "D25 liquid tank, level h 0-100 %: h changes by (q_in x FILL_V - q_out x PUMP) per "
        "second, the pump moving liquid only while h > 0 %. On/off fill valve and drain pump, "
        "both without delay. Level switches LOW (TRUE at h >= 10 %), HIGH (TRUE at h >= 80 %) "
        "and HH (TRUE at h >= 95 %).",
    ),
    io=(
        Signal("%IX0.0", "START", "BOOL", "NO push-button, TRUE while pressed"),
        Signal("%IX0.1", "STOP_NC", "BOOL", "stop button, NC: FALSE while pressed"),
        Signal("%IX0.2", "LOW", "BOOL", "level >= 10 %"),
        Signal("%IX0.3", "HIGH", "BOOL", "level >= 80 %"),
        Signal("%IX0.4", "HH", "BOOL", "level >= 95 %"),
        Signal("%IW140", "BATCHES", "INT", "number of cycles", "cycles"),
        Signal("%QX0.0", "FILL_V", "BOOL", "fill valve (TRUE = open)"),
        Signal("%QX0.1", "PUMP", "BOOL", "drain pump (TRUE = running)"),
        Signal("%QX0.2", "LAMP_ALARM", "BOOL", "high-high alarm lamp"),
        Signal("%QX0.3", "LAMP_DONE", "BOOL", "batches complete lamp"),
    ),
    spec=(
        "START: repeat BATCHES times: fill (FILL_V) until HIGH; wait 3 s; pump (PUMP) until LOW "
        "turns FALSE. Then light LAMP_DONE (until the next START).",
        "HH: close the fill valve in the same scan, light LAMP_ALARM, drain until LOW turns "
        "FALSE, stop and abort the batch (the alarm stays on until the next START).",
        "STOP: valve and pump off at once; the sequence pauses and resumes on the next START "
        "press (the batch count is kept; a running 3 s wait starts again).",
    ),
    completion=(
        "Normal runs: exactly BATCHES cycles, each cycle being the level reaching >= 80 % and "
        "then falling below 10 %; then LAMP_DONE = TRUE with FILL_V and PUMP off and the level "
        "below 10 %, held without interruption for 3 s (success at the end of these 3 s; a "
        "cycle beyond BATCHES fails at once). "
        "Runs in which the HIGH switch fails: LAMP_ALARM on at most 0.3 s after HH first reads "
        "TRUE; the tank then drained below 10 % with the pump off, and from that moment for "
        "5 s FILL_V and PUMP stay off and LAMP_ALARM stays on in every scan (success at the end "
        "of these 5 s)."
    ),
    time_limit_s=120.0,
    safety=(
        SafetyRule("S-OVERFLOW", "The tank level reaches 98 % or more."),
        SafetyRule("S-DRYRUN", "PUMP is TRUE in a scan and the tank level at the end of the "
                   "10 ms plant step that scan drives is below 5 %."),
        SafetyRule("S-HHFILL", "FILL_V is TRUE in a scan whose input image has HH = TRUE."),
        SafetyRule("S-STOPPB", "FILL_V or PUMP is TRUE in a scan whose input image has "
                   "STOP_NC = FALSE."),
        SafetyRule("S-LATCH", "After a STOP press, FILL_V or PUMP is TRUE before the next START "
                   "rising edge (a START edge counts only in a scan with STOP_NC = TRUE)."),
    ),
    published=("The HIGH switch may fail stuck FALSE for a whole run (the level then reaches "
               "HH); the other switches work.",),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", {"q_in_pct_s": 5.0, "q_out_pct_s": 6.0, "batches": 3, "h0_pct": 2.0,
                         "high_stuck": False},
                  (Event(1.0, "press", "START"),), time_limit_s=120.0),
        Condition("C2", {"q_in_pct_s": 8.0, "q_out_pct_s": 4.0, "batches": 3, "h0_pct": 0.0,
                         "high_stuck": False},
                  (Event(1.0, "press", "START"), Event(20.0, "press", "STOP"),
                   Event(25.0, "press", "START")),
                  note="STOP at 20.0 during the first drain, resumed by START at 25.0",
                  time_limit_s=120.0),
        Condition("C3", {"q_in_pct_s": 6.0, "q_out_pct_s": 6.0, "batches": 3, "h0_pct": 5.0,
                         "high_stuck": True},
                  (Event(1.0, "press", "START"),), note="HIGH stuck FALSE: HH at about 16 s",
                  time_limit_s=60.0),
    ),
    plant="plants.tasks.mat_e05.plant",
    reference="reference.st",
    changes=(
        "The unnamed catalog rule 'FILL_V TRUE in a tick whose input has HH = TRUE' is judged "
        "as S-HHFILL; 'FILL_V or PUMP turning on after a STOP press before the next START "
        "press' as S-LATCH (A2, release event: a START rising edge in a scan with STOP_NC = "
        "TRUE).",
        "S-DRYRUN is judged on the level at the end of the plant step the PUMP output drives "
        "(as in the review simulation).",
        "The C1/C2 completion holds for 3 s (A6 settling for 'exactly BATCHES'); a cycle beyond "
        "BATCHES fails at once. The C3 checkpoint '5 s later still off / still on' is judged in "
        "every scan of those 5 s.",
        "'a level switch may fail' is published precisely: the HIGH switch may stick FALSE "
        "(the only failure any condition uses). The expected outcome (batches or alarm) "
        "follows the condition's `high_stuck`, a judge input, not a ranged number.",
        "Published ranges are data; event times (0.5-60 s) and press lengths (0.3-1.0 s, G5 "
        "default 0.3 s) were prose-only ('STOP and START may come mid-batch') and contain "
        "every catalog value.",
    ),
    judge={"settle_s": SETTLE_S, "alarm_window_s": ALARM_WINDOW_S, "alarm_hold_s": ALARM_HOLD_S},
    deadlines=("alarm_window_s",),
    search="plants.tasks.mat_e05.search",
)
