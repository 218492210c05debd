"""MOT-E15 · Programmable cam switch on a rotating shaft (TASKS/MOT-E.md)."""

from __future__ import annotations

from plants.tasks.spec import Condition, Event, ParamRange, SafetyRule, Signal, TaskSpec

REVOLUTIONS = 20
"""Success: this many shaft revolutions (both directions count) with zero mismatches."""

RANGES: dict[str, tuple[float, float]] = {
    "speed_rpm": (-150.0, 150.0),
    "start_deg": (0.0, 359.9),
    "event_t_s": (0.0, 20.0),
    "ramp_s": (0.0, 10.0),
}
"""Published ranges (lo, hi), the one copy of the numbers: the solver text is rendered from
them and the tests check every condition against them. Shaft speeds are `speed` event
arguments (`rpm`), so the tests check them against `speed_rpm`."""


def _range(name: str, unit: str, text: str, **kw) -> ParamRange:
    lo, hi = RANGES[name]
    return ParamRange(name, lo, hi, unit, text, **kw)


PUBLISHED_RANGES = (
    _range("speed_rpm", "rpm", "Shaft speed {lo} to {hi} rpm (negative = reverse rotation); the shaft "
           "may stop (MACHINE_RUN = FALSE) and reverse several times in one run."),
    _range("start_deg", "deg", "The shaft starts at any angle ({range})."),
    _range("event_t_s", "s", "Speed changes start at {range}.", on="time", kinds=("speed",)),
    _range("ramp_s", "s", "A speed change is a step or a linear ramp of up to {hi} s.",
           on="duration", kinds=("speed",)),
)
"""RANGES as the framework's range data (rendered text, audit)."""


def speed(t: float, rpm: float, ramp_s: float = 0.0) -> Event:
    """The shaft speed changes at t to `rpm`, by a step (ramp 0) or a linear ramp."""
    return Event(t, "speed", "shaft", ramp_s, (("rpm", rpm),))


TASK = TaskSpec(
    id="MOT-E15",
    title="Programmable cam switch on a rotating shaft",
    devices=(
        "D15-type shaft encoder (angle only) on a shaft driven by the machine at a scripted "
        "speed (steps and linear ramps, stops and reversals); the program cannot influence it.",
        "Two glue valves VALVE_1 and VALVE_2, switching without dead time.",
    ),
    io=(
        Signal("%IX0.0", "MACHINE_RUN", "BOOL", "shaft turning (abs(w) > 1 deg/s)"),
        Signal("%IW140", "ANGLE", "INT",
               "shaft angle, 0.1 deg, 0..3599 (truncated, wraps 3599 -> 0)", "0.1 deg"),
        Signal("%QX0.0", "VALVE_1", "BOOL", "cam 1"),
        Signal("%QX0.1", "VALVE_2", "BOOL", "cam 2"),
    ),
    spec=(
        "VALVE_1 = MACHINE_RUN AND 800 <= ANGLE < 1400 (80.0 deg up to, not including, 140.0 deg).",
        "VALVE_2 = MACHINE_RUN AND (ANGLE >= 3000 OR ANGLE < 200) (the window 300.0 deg to, not "
        "including, 20.0 deg, across the wrap 3599 -> 0).",
        "This holds in both directions of rotation and while the speed changes. ANGLE is the "
        "true shaft angle truncated to 0.1 deg.",
    ),
    completion=(
        "In every scan, VALVE_1 and VALVE_2 in the output image equal the specification's "
        "function of that scan's input image (zero mismatches, the first scan included), until "
        f"the shaft has turned {REVOLUTIONS} revolutions in total (cumulative |change of "
        f"angle| = {REVOLUTIONS * 360} deg, both directions counting). Success is reached in the "
        f"scan in which the {REVOLUTIONS}th revolution completes."
    ),
    time_limit_s=30.0,
    safety=(
        SafetyRule("S-PUDDLE", "VALVE_1 or VALVE_2 is TRUE in a scan whose input image has "
                   "MACHINE_RUN = FALSE (glue on a standing shaft; no grace time)."),
    ),
    published=(),
    ranges=PUBLISHED_RANGES,
    conditions=(
        Condition("C1", {"start_deg": 0.8}, (speed(0.0, 60.0),), time_limit_s=25.0,
                  note="constant 60 rpm; the 3.6 deg samples hit ANGLE = 800 exactly"),
        Condition("C2", {"start_deg": 3.0}, (speed(0.0, 30.0), speed(0.0, 150.0, 10.0)),
                  time_limit_s=20.0, note="ramp 30 -> 150 rpm over 10 s, then 150 rpm"),
        Condition("C3", {"start_deg": 120.0}, (
            speed(0.0, 60.0), speed(5.0, 0.0), speed(7.0, -90.0), speed(13.0, 0.0),
            speed(14.0, 120.0),
        ), time_limit_s=30.0, note="60 rpm 5 s, stop 2 s at 118.2 deg (inside cam 1), -90 rpm "
                                   "6 s, stop 1 s, then 120 rpm"),
    ),
    plant="plants.tasks.mot_e15.plant",
    reference="reference.st",
    changes=(
        "The catalog's unnamed safety rule (a valve TRUE while MACHINE_RUN = FALSE) is judged "
        "as S-PUDDLE with zero grace time, written out in full.",
        "C2 starts at 3.0 deg (catalog 0 deg). The shaft integrates its speed with the "
        "trapezoidal rule (D15 master) and ANGLE is truncated to 0.1 deg; with that "
        "quantisation, checked as the catalog asks, a start at 0 deg leaves the slip "
        "'ANGLE <= 200' of cam 2 uncaught in every condition; a start at 3.0 deg catches it "
        "(and 'ANGLE > 3000' of cam 2, 'ANGLE <= 1400' of cam 1). C1 (0.8 deg) still catches "
        "'ANGLE > 800', C3 (120.0 deg, stopping at 118.2 deg inside cam 1 because the step "
        "stop is integrated over half a tick) 'ANGLE > 3000' and a valve not gated by "
        "MACHINE_RUN.",
        "MACHINE_RUN's meaning is written abs(w) > 1 deg/s (catalog |w|): a '|' would split "
        "the cell of the rendered I/O table.",
        "Published ranges are data (RANGES). Prose made precise, containing every catalog "
        "value: the shaft starts at any angle 0-359.9 deg, speed changes start at 0-20 s and "
        "are steps or ramps of up to 10 s.",
    ),
    judge={"revolutions": REVOLUTIONS},
)
