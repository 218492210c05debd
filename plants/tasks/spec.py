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
        return problems
