"""Run an ST text on the interpreter for N scans and collect its trace (tests, `plantloop scan`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stc.backend import RuntimeErrorRecord, ScanBackend
from stc.frontend import check_source
from stc.interp.machine import WATCHDOG_ITERATIONS, Interpreter


@dataclass
class Trace:
    """Snapshots after each completed scan, and the runtime error that stopped the run (if any)."""

    snapshots: list[dict[str, Any]] = field(default_factory=list)
    error: RuntimeErrorRecord | None = None

    @property
    def last(self) -> dict[str, Any]:
        return self.snapshots[-1]


class SourceError(ValueError):
    """The text does not check clean; the message holds the rendered diagnostics."""


def drive(backend: ScanBackend, scans: int, inputs: Sequence[Mapping[str, Any]] | None = None) -> Trace:
    """Run up to `scans` scans, setting `inputs[k]` before scan k+1; stop at a runtime error."""
    trace = Trace()
    for k in range(scans):
        if inputs is not None and k < len(inputs):
            for target, value in inputs[k].items():
                backend.set_input(target, value)
        err = backend.scan()
        if err is not None:
            trace.error = err
            break
        trace.snapshots.append(backend.snapshot())
    return trace


def interpret(text: str, scans: int, inputs: Sequence[Mapping[str, Any]] | None = None,
              watchdog_limit: int = WATCHDOG_ITERATIONS) -> Trace:
    result = check_source(text)
    if result.model is None:
        raise SourceError(result.diagnostics.render(text))
    return drive(Interpreter(result.model, watchdog_limit=watchdog_limit), scans, inputs)
