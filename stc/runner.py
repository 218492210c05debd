"""`CompiledRunner`: one condition of a compiled program driven per the stc/backend.py contract.

Used by `plantloop scan` and the differential tests. Inputs persist between scans and
are written into their cells before every scan (a value set on a `%I` cell overwrites
what the program wrote there). After a runtime error the run is over: the snapshot
stays the one at the end of the last completed scan, and `scan` keeps returning the
error record.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stc.backend import CYCLE_MS, RuntimeErrorRecord
from stc.codegen.layout import STORES, Slot
from stc.codegen.memory import write_slot
from stc.codegen.program import CompiledProgram
from stc.runtime import errors


class CompiledRunner:
    """ScanBackend over a CompiledProgram (one condition, memory row 0)."""

    def __init__(self, program: CompiledProgram, watchdog: int | None = None) -> None:
        self.program = program
        self.watchdog = watchdog
        self.reset()

    def reset(self) -> None:
        self.memory = self.program.new_memory(1, self.watchdog)
        self.err = errors.new_error_state()
        self.scan_no = 0
        self.inputs: dict[Slot, Any] = {}
        self.error: RuntimeErrorRecord | None = None
        self._snapshot = self.program.snapshot(self.memory, 0)

    def set_input(self, target: str, value: Any) -> None:
        slot = self.program.io_slot(target)
        if slot is None:
            raise KeyError(f"no input '{target}' in this program")
        self.inputs[slot] = value

    def scan(self) -> RuntimeErrorRecord | None:
        if self.error is not None:
            return self.error
        stores = dict(zip(STORES, self.program.row(self.memory, 0), strict=True))
        for slot, value in self.inputs.items():
            write_slot(stores, slot, value)
        now = self.scan_no * CYCLE_MS
        self.scan_no += 1
        self.program.scan(*stores.values(), np.int64(now), np.int64(self.scan_no), self.err)
        record = self.program.error_record(self.err, self.scan_no, now)
        if record is not None:
            self.error = record
            return record
        self._snapshot = self.program.snapshot(self.memory, 0)
        return None

    def snapshot(self) -> dict[str, Any]:
        return dict(self._snapshot)

    @property
    def warnings(self) -> int:
        """Warning-level runtime diagnostics so far (invalid number text, bad BCD)."""
        return int(self.err[errors.WARN_COUNT])
