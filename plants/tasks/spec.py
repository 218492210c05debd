"""The task declaration: the one source of truth for a benchmark task.

Everything a solver sees (`plantloop show ID`), everything the verifier runs (plant, conditions,
judge), the Harbor export and the audit are derived from one `TaskSpec`. A declaration is plain
data; its plant is named by module path and imported only when a task is run, so listing and
rendering tasks never compiles a plant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

SUITES = ("MOT", "MAT")
LEVELS = {"E": "easy", "M": "medium", "H": "hard"}
TASK_ID = re.compile(r"^(MOT|MAT)-([EMH])(\d{2})$")
ADDRESS = re.compile(r"^%(I|Q)(X\d+\.[0-7]|W\d+|D\d+)$")
ADDRESS_TYPES = {"X": {"BOOL"}, "W": {"INT", "UINT", "WORD"}, "D": {"DINT", "UDINT", "DWORD", "REAL"}}


@dataclass(frozen=True)
class Signal:
    """One row of the I/O map."""

    address: str  # '%IX0.0', '%QW140', '%ID240'
    name: str
    type: str  # elementary type name
    meaning: str
    unit: str = ""

    @property
    def direction(self) -> str:
        return "input" if self.address[1] == "I" else "output"


@dataclass(frozen=True)
class SafetyRule:
    """A judged safety rule: its S-code and its full wording with the task's parameters."""

    code: str  # 'S-STOPPB', or a task-specific code such as 'S-OLRUN'
    text: str


@dataclass(frozen=True)
class Event:
    """One scripted operator or disturbance action at a plant time."""

    t: float  # seconds
    kind: str  # e.g. 'press', 'hold', 'trip', 'recover', 'item'
    target: str = ""  # signal or device name
    duration: float = 0.0
    args: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Condition:
    """Exact values of one run: parameters plus the event script. Never shown to the solver."""

    name: str  # 'C1'
    params: dict[str, Any]
    script: tuple[Event, ...] = ()
    note: str = ""
    time_limit_s: float | None = None  # overrides the task's limit for this condition


TEXT_ONLY = "published ranges are text only; condition parameters cannot be checked"
"""Range finding of a task that publishes prose only (no `TaskSpec.ranges`)."""

RANGE_ON = ("param", "time", "duration")


@dataclass(frozen=True)
class ParamRange:
    """One published range as data: the solver's sentence is rendered from it, the audit
    checks every condition against it and the fuzzer samples inside it.

    `on` says what it bounds: a condition parameter named `name` ("param"), the time of
    scripted events ("time") or their duration ("duration"); `kinds` narrows events to those
    kinds (empty = every kind). A duration left at 0 stands for `default` (the plant's own
    default, e.g. the 0.3 s press). `text` is the sentence, with `{range}` where
    "lo-hi unit" goes (or `{lo}` and `{hi}` for the bare numbers).
    """

    name: str
    lo: float
    hi: float
    unit: str
    text: str
    on: str = "param"
    kinds: tuple[str, ...] = ()
    default: float = 0.0

    @property
    def span(self) -> str:
        return f"{self.lo:g}-{self.hi:g}" + (f" {self.unit}" if self.unit else "")

    def render(self) -> str:
        return (self.text.replace("{range}", self.span).replace("{lo}", f"{self.lo:g}")
                .replace("{hi}", f"{self.hi:g}"))

    def covers_event(self, event: Event) -> bool:
        return self.on != "param" and (not self.kinds or event.kind in self.kinds)

    def values(self, condition: Condition) -> list[float]:
        """The values of one condition this range bounds (empty when it uses none)."""
        if self.on == "param":
            value = condition.params.get(self.name)
            return [] if value is None else [float(value)]
        if self.on == "time":
            return [ev.t for ev in condition.script if self.covers_event(ev)]
        return [ev.duration or self.default for ev in condition.script if self.covers_event(ev)]

    def contains(self, value: float) -> bool:
        return self.lo <= value <= self.hi


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass(frozen=True)
class TaskSpec:
    id: str
    title: str
    devices: tuple[str, ...]
    io: tuple[Signal, ...]
    spec: tuple[str, ...]  # operating specification, one rule per item
    completion: str
    time_limit_s: float
    safety: tuple[SafetyRule, ...]
    published: tuple[str, ...]  # published parameter ranges, as shown to the solver
    conditions: tuple[Condition, ...]
    plant: str  # module path of the plant binding, imported when the task runs
    reference: str  # file name of the reference program, beside the plant module
    changes: tuple[str, ...] = ()  # what the implementation changed against the catalog, and why
    notes: tuple[str, ...] = field(default=())  # extra solver-facing notes
    judge: dict[str, Any] = field(default_factory=dict)  # task-level judge parameters (not secret)
    ranges: tuple[ParamRange, ...] = ()  # published ranges as data, rendered before `published`
    search: str = ""  # module path of the fuzzer's search space (`search_space(task)`), if any
    deadlines: tuple[str, ...] = ()  # `judge` time allowances the 15 % margin check shrinks
    run_to_t: bool = False  # success is judged at T, so the margin check keeps T

    @property
    def suite(self) -> str:
        return self.id[:3]

    @property
    def level(self) -> str:
        return LEVELS[self.id[4]]

    @property
    def inputs(self) -> tuple[Signal, ...]:
        """Input signals in map order: the index of a signal is its slot in the input image."""
        return tuple(s for s in self.io if s.direction == "input")

    @property
    def outputs(self) -> tuple[Signal, ...]:
        """Output signals in map order: the index of a signal is its slot in the output image."""
        return tuple(s for s in self.io if s.direction == "output")

    def time_limit(self, condition: Condition) -> float:
        """Time limit of one condition, seconds of plant time."""
        return condition.time_limit_s if condition.time_limit_s is not None else self.time_limit_s

    def signal(self, name: str) -> Signal:
        for s in self.io:
            if s.name == name:
                return s
        raise KeyError(f"{self.id}: no signal named {name!r}")

    def range_findings(self, conditions: tuple[Condition, ...] | None = None) -> list[str]:
        """Why `conditions` (default: the task's own) leave the published ranges; empty when
        every numeric parameter, event time and event duration lies inside a range of data."""
        if not self.ranges:
            return [TEXT_ONLY]
        problems: list[str] = []
        params = {r.name: r for r in self.ranges if r.on == "param"}
        for cond in self.conditions if conditions is None else conditions:
            for name, value in cond.params.items():
                if _is_number(value) and name not in params:
                    problems.append(f"{cond.name}: parameter {name} = {value} has no published range")
            for r in self.ranges:
                for value in r.values(cond):
                    if not r.contains(value):
                        problems.append(f"{cond.name}: {r.name} = {value:g} is outside the published {r.span}")
            for ev in cond.script:
                for quantity in self._unbounded(ev):
                    problems.append(f"{cond.name}: no published range bounds the {quantity} of "
                                    f"{ev.kind} events (t = {ev.t:g} s)")
        return problems

    def _unbounded(self, event: Event) -> list[str]:
        """Quantities of an event no range bounds: its time, and its duration when set."""
        quantities = ["time"] + (["duration"] if event.duration else [])
        return [q for q in quantities if not any(r.on == q and r.covers_event(event) for r in self.ranges)]

    def validate(self) -> list[str]:
        """Consistency findings of the declaration itself (empty when sound)."""
        problems: list[str] = []
        if not TASK_ID.match(self.id):
            problems.append(f"task id {self.id!r} is not of the form MOT-E01")
        seen_addr: set[str] = set()
        seen_name: set[str] = set()
        for s in self.io:
            m = ADDRESS.match(s.address)
            if not m:
                problems.append(f"{s.name}: address {s.address!r} is not a %I/%Q bit, word or double word")
            elif s.type not in ADDRESS_TYPES[m.group(2)[0]]:
                problems.append(f"{s.name}: type {s.type} does not fit address {s.address}")
            if s.address in seen_addr:
                problems.append(f"address {s.address} is used twice")
            if s.name.upper() in seen_name:
                problems.append(f"signal name {s.name} is used twice")
            seen_addr.add(s.address)
            seen_name.add(s.name.upper())
        names = [c.name for c in self.conditions]
        if len(set(names)) != len(names):
            problems.append("condition names are not unique")
        if not self.conditions:
            problems.append("no conditions")
        if self.time_limit_s <= 0 or any(self.time_limit(c) <= 0 for c in self.conditions):
            problems.append("time limit must be positive")
        range_names = [r.name for r in self.ranges]
        if len(set(range_names)) != len(range_names):
            problems.append("published range names are not unique")
        for r in self.ranges:
            if r.on not in RANGE_ON or not r.lo <= r.hi or r.render() == r.text:
                problems.append(f"published range {r.name}: needs on in {RANGE_ON}, lo <= hi and "
                                "'{range}' (or '{lo}', '{hi}') in its text")
        missing = [d for d in self.deadlines if d not in self.judge]
        if missing:
            problems.append(f"deadlines {missing} are not judge parameters")
        return problems
