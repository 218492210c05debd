"""MAT-E14 · Hopper level keeping with a screw feeder (TASKS/MAT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

LAMP_WINDOW_S = 0.5
"""Each alarm lamp may lag a change of its level switch by at most this long."""

PUBLISHED_RANGES = (
    ParamRange("fill_pct_s", 1.5, 3.0, "%/s", "Feeder fill rate at full screw speed {range} "
               "(level per second); it exceeds the consumption by at least 1 %/s."),
    ParamRange("cons1_pct_s", 0.0, 1.5, "%/s", "Consumption rate from t = 0: {range}."),
    ParamRange("cons2_pct_s", 0.0, 1.5, "%/s", "Second consumption rate {range} (may equal the "
               "first)."),
    ParamRange("cons_period_s", 20.0, 60.0, "s", "The consumption switches between its two "
               "rates every {range}."),
    ParamRange("h0_pct", 40.0, 60.0, "%", "Initial level {range}."),
    ParamRange("trip_t_s", 10.0, 100.0, "s", "A feeder overload trip (FEEDER_OL_OK = FALSE) "
               "starts at {range}, possibly while the feeder runs.", on="time", kinds=("trip",)),
    ParamRange("trip_s", 0.5, 5.0, "s", "An overload trip lasts {range}.", on="duration",
               kinds=("trip",)),
    ParamRange("bridge_t_s", 10.0, 40.0, "s", "A feeder output failure (material bridging: the "
               "running screw delivers nothing) starts at {range}.", on="time", kinds=("bridge",)),
    ParamRange("bridge_s", 5.0, 30.0, "s", "A feeder output failure lasts {range}.",
               on="duration", kinds=("bridge",)),
)
"""Published ranges as data: the text is rendered from them and audit checks every condition."""


def _cond(name: str, fill: float, cons1: float, cons2: float, script: tuple[Event, ...] = (),
          note: str = "") -> Condition:
    params = {"fill_pct_s": fill, "cons1_pct_s": cons1, "cons2_pct_s": cons2,
              "cons_period_s": 20.0, "h0_pct": 50.0}
    return Condition(name, params, script, note=note)


TASK = TaskSpec(
    id="MAT-E14",
    title="Hopper level keeping with a screw feeder (hysteresis + start limit)",
    devices=(
        "D24-type hopper, level 0-100 %: the level rises by the feeder's delivery and falls by "
        "the scripted consumption (level per second); it cannot fall below 0 %. Level switches "
        "LL (TRUE at level >= 10 %), LOW (>= 30 %), HIGH (>= 80 %) and HH (>= 95 %).",
        "D03 screw feeder on a DOL starter: delivery = fill rate x screw speed n (0-1); n "
        "follows the contactor with tau = 0.5 s on run-up and coast-down, no contactor delay. "
        "The contactor opens while FEEDER_OL_OK = FALSE (overload relay tripped).",
        "AUTO_SW: maintained selector switch, TRUE throughout every run.",
    ),
    io=(
        Signal("%IX0.0", "AUTO_SW", "BOOL", "automatic mode selector (TRUE = auto)"),
        Signal("%IX0.1", "LL", "BOOL", "level >= 10 %"),
        Signal("%IX0.2", "LOW", "BOOL", "level >= 30 %"),
        Signal("%IX0.3", "HIGH", "BOOL", "level >= 80 %"),
        Signal("%IX0.4", "HH", "BOOL", "level >= 95 %"),
        Signal("%IX0.5", "FEEDER_OL_OK", "BOOL", "feeder overload relay healthy (FALSE = tripped)"),
        Signal("%QX0.0", "FEEDER", "BOOL", "screw feeder contactor (TRUE = run)"),
        Signal("%QX0.1", "LAMP_LOW_ALARM", "BOOL", "low-low level alarm lamp"),
        Signal("%QX0.2", "LAMP_HIGH_ALARM", "BOOL", "high-high level alarm lamp"),
    ),
    spec=(
        "Start the feeder when LOW turns FALSE; stop it when HIGH turns TRUE. Once stopped, "
        "the feeder stays off for at least 5 s.",
        "FEEDER is off while FEEDER_OL_OK = FALSE; when the relay returns, the normal start "
        "rule applies (start when LOW is FALSE and the 5 s minimum off time has passed).",
        "LAMP_LOW_ALARM follows LL = FALSE and LAMP_HIGH_ALARM follows HH = TRUE, each within "
        "0.5 s both ways. HH = TRUE: feeder off.",
    ),
    completion=(
        "Run to the time limit T, judged at T (a run fails as soon as one part is broken): "
        "(1) in every scan LAMP_LOW_ALARM = NOT LL and LAMP_HIGH_ALARM = HH, except that each "
        "lamp may lag a change of its switch by at most 0.5 s, both ways; "
        "(2) runs without a feeder output failure: from 0 to T the level stays within "
        "10-95 % (so neither lamp is ever on); "
        "(3) runs with a feeder output failure (bridging): the level stays below 95 % and "
        "is within 25-85 % at T (the 30-80 % band of the switches, with an allowance for the "
        "feeder's lag)."
    ),
    time_limit_s=120.0,
    safety=(
        SafetyRule("S-CYCLE", "FEEDER turns from FALSE to TRUE (a motor start) more than 6 "
                   "times within any 60 s window."),
        SafetyRule("S-OVERFLOW", "The hopper level reaches 100 % or more."),
        SafetyRule("S-OLRUN", "FEEDER is TRUE in a scan whose input image has FEEDER_OL_OK = "
                   "FALSE."),
    ),
    published=("A run has at most one disturbance: one overload trip or one feeder output "
               "failure, or none.",),
    ranges=PUBLISHED_RANGES,
    conditions=(
        _cond("C1", 2.0, 0.8, 0.8, note="constant consumption 0.8 %/s"),
        _cond("C2", 3.0, 0.2, 1.5, (Event(40.0, "trip", "FEEDER_OL_OK", 5.0),),
              note="consumption 0.2 / 1.5 %/s alternating every 20 s; overload trip 40-45 s "
                   "while the feeder runs"),
        _cond("C3", 2.0, 1.0, 1.0, (Event(25.0, "bridge", "FEEDER", 30.0),),
              note="bridging 25-55 s: LL falls at about 49 s"),
    ),
    plant="plants.tasks.mat_e14.plant",
    reference="reference.st",
    changes=(
        "The unnamed catalog rule 'FEEDER TRUE in a tick whose input has FEEDER_OL_OK = FALSE' "
        "is judged as S-OLRUN; an S-CYCLE start is a FALSE -> TRUE change of the FEEDER output.",
        "The two catalog completions are stated as one rule set: the lamp-following rule of C3 "
        "holds in every run (in C1/C2 it is equivalent to 'neither lamp is ever on', since the "
        "level stays within 10-95 %); which band applies follows from the script (a run with "
        "a feeder output failure). The run fails as soon as the band is left or a lamp lags "
        "by more than 0.5 s.",
        "Published ranges are data. 'Consumption 0-1.5 %/s, varying' is made precise as two "
        "alternating rates switching every 20-60 s (C2: 0.2 / 1.5 every 20 s); 'always above "
        "the consumption' as at least 1 %/s above it; the failure and trip start times "
        "(10-40 s, 10-100 s) were not published and are bounded so that a correct program "
        "can recover the level by T; at most one disturbance per run.",
        "C3's final band '30-80 % at T' is judged as 25-85 %: a correct two-point controller "
        "overshoots HIGH by the screw's coast (up to fill x tau = 1.5 %) and undershoots LOW "
        "while the screw runs up, so with published disturbance times T may fall on such a "
        "moment; C3 itself ends at about 69 %.",
        "The 5 s minimum off time and 'HH = TRUE: feeder off' are specification rules without "
        "a catalog safety code and are not judged on their own; S-CYCLE, S-OVERFLOW and the "
        "level band catch their consequences.",
        "AUTO_SW is listed in the catalog map without a rule; it reads TRUE throughout every "
        "run (A1) and is not judged.",
    ),
    judge={"lamp_window_s": LAMP_WINDOW_S},
    deadlines=("lamp_window_s",),
    run_to_t=True,
    search="plants.tasks.mat_e14.search",
)
