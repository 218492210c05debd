"""`CompiledProgram`: the njit scan function plus everything needed to drive and observe it.

The verifier binds `io` to a task's I/O map, allocates `new_memory(n_conditions)` (one row
per condition, five stores), calls `scan` on rows, and turns the error state into a
`RuntimeErrorRecord` with `error_record`. Every program's `scan` has the one numba type
`SCAN_SIGNATURE`, so a kernel compiled once can call any program's scan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from stc.backend import RuntimeErrorRecord
from stc.codegen.layout import STORES, WD_LIMIT, Size, Slot
from stc.codegen.memory import read_slot
from stc.runtime import errors
from stc.sema.iolist import IOPoint

Memory = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class IOBinding:
    """One I/O point of the program (§2.3) and the memory slot the verifier reads/writes."""

    point: IOPoint
    slot: Slot


@dataclass
class CompiledProgram:
    scan: Any  # numba dispatcher of type SCAN_SIGNATURE
    sizes: Size
    slots: dict[str, Slot]  # snapshot path -> slot, in declaration order
    io: list[IOBinding]
    locations: list[tuple[str, int, int]]  # location id -> (POU, line, column)
    template: dict[str, np.ndarray] = field(repr=False)
    module_path: str = ""
    source_sha256: str = ""

    def new_memory(self, n_conditions: int = 1, watchdog: int | None = None) -> Memory:
        """Cold-start memory for n conditions: five C-contiguous [n, size] arrays."""
        mem = tuple(np.tile(self.template[s], (n_conditions, 1)) for s in STORES)
        if watchdog is not None:
            mem[0][:, WD_LIMIT] = watchdog
        return mem  # type: ignore[return-value]

    @staticmethod
    def row(memory: Memory, row: int) -> Memory:
        """The five 1-D stores of one condition (views, as the scan function takes them)."""
        return tuple(m[row] for m in memory)  # type: ignore[return-value]

    def snapshot(self, memory: Memory, row: int = 0) -> dict[str, Any]:
        stores = dict(zip(STORES, self.row(memory, row), strict=True))
        return {path: read_slot(stores, slot) for path, slot in self.slots.items()}

    def io_slot(self, target: str) -> Slot | None:
        """The slot of an I/O address (`%IX0.3`, `%I0.3`) or an `AT %I*`/located variable path."""
        key = normalise_address(target)
        for b in self.io:
            if b.point.address == key or (b.point.name and b.point.name.upper() == target.upper()):
                return b.slot
        return None

    def error_record(self, err: np.ndarray, scan_no: int, time_ms: int) -> RuntimeErrorRecord | None:
        code = int(err[errors.ERR_CODE])
        if code == 0:
            return None
        loc = int(err[errors.ERR_LOC])
        pou, line, col = self.locations[loc] if 0 <= loc < len(self.locations) else ("?", 1, 1)
        return RuntimeErrorRecord(errors.code_name(code), errors.code_message(code), pou, line, col,
                                  scan_no, time_ms)


def normalise_address(text: str) -> str:
    """`%i0.3` -> `%IX0.3`; other text upper-cased."""
    t = text.strip().upper()
    if t.startswith("%") and len(t) > 2 and t[1] in "IQM" and t[2].isdigit():
        return f"%{t[1]}X{t[2:]}"
    return t
