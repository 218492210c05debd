"""One trial of one model on one task: the unit the pass@k aggregator counts.

Both input formats (plantloop result trees and Harbor job directories) are read into this
one shape, so the statistics never depend on where a result came from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TASK_ID = re.compile(r"^(?P<suite>MOT|MAT)-(?P<level>[EMH])(?P<number>\d{2})$")
UNKNOWN = "unknown"


def suite_and_level(task_id: str) -> tuple[str, str]:
    """Suite (MOT|MAT) and level (E|M|H) from an id like `MOT-E01`; "unknown" otherwise.

    Harbor task names may carry a dataset prefix (`plcbench/MOT-E01`); callers strip it.
    """
    m = TASK_ID.match(task_id)
    if m is None:
        return UNKNOWN, UNKNOWN
    return m["suite"], m["level"]


@dataclass(frozen=True, slots=True)
class Trial:
    """A trial's outcome. `reward is None` means errored: the trial produced no usable reward.

    `error` names what went wrong (a Harbor exception type, a plantloop job error kind,
    `invalid-result` ...). A trial can carry an `error` and still a valid reward, e.g. a
    Harbor agent time-out after which the verifier graded the work anyway.
    """

    model: str
    task: str
    trial: str
    reward: float | None
    error: str | None = None
    origin: str = ""

    @property
    def errored(self) -> bool:
        return self.reward is None

    @property
    def suite(self) -> str:
        return suite_and_level(self.task)[0]

    @property
    def level(self) -> str:
        return suite_and_level(self.task)[1]
