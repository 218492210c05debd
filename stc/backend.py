"""The contract both execution back ends honour: the Numba-compiled program and the interpreter.

Differential testing compares the two scan by scan, and `plantloop scan` prints what they
return, so they must agree on how a program is driven and how its state is observed:

- Time: scan k (1-based) runs at `now_ms = (k - 1) * CYCLE_MS`; `now` is frozen in a scan.
- Inputs: before each scan the caller sets input values by I/O address (`'%IX0.3'`, `'%IW140'`)
  or, for `AT %I*` variables, by variable path; unset inputs keep their last value (FALSE/0
  at the start). A value set on a `%I` cell overwrites whatever the program wrote there.
- A snapshot maps every variable path as declared to a plain JSON value:
  program variables `x`, FB instance members `tmr.ET`, `motor.state`, array elements `arr[3]`
  (multi-dimensional `m[1,2]`), struct members `st.m`, nested `a[2].b.c`; with a
  CONFIGURATION, program instances prefix their variables (`inst.x`) and globals stand
  alone. Standard FB instances expose their pins only (TON: IN, PT, Q, ET). Values: BOOL
  -> bool, integers, bit strings and enumerations -> int, REAL/LREAL -> float (the exact
  binary32/binary64 value), TIME/LTIME/DATE/TOD/DT -> int (ms, ns, s, ms, s), STRING/WSTRING
  -> str. Located variables appear under their names; direct addresses used in code appear
  under their canonical address (`%QX0.1`).
- A runtime error (ST_LANGUAGE.md §12) stops the run: the scan that raised it returns a
  `RuntimeErrorRecord`, and the snapshot stays the one at the end of the last completed scan.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol

CYCLE_MS = 10


@dataclass(frozen=True, slots=True)
class RuntimeErrorRecord:
    """One runtime error, as the verifier reports it (ST_LANGUAGE.md §12)."""

    code: str  # DIV_ZERO, INDEX_RANGE, SUBRANGE, CONVERSION, MUX_RANGE, SHIFT_NEG, FOR_STEP_ZERO, WATCHDOG
    message: str
    pou: str
    line: int
    column: int
    scan: int
    time_ms: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": "runtime_error", **asdict(self)}

    def render(self, file: str) -> str:
        return (
            f"{file}:{self.line}:{self.column}: runtime error: {self.message} "
            f"(scan {self.scan}, t={self.time_ms / 1000:.3f} s, POU {self.pou})"
        )


class ScanBackend(Protocol):
    """One program instance executing scan by scan (one condition)."""

    def reset(self) -> None:
        """Cold start: every variable to its initial value, scan counter to 0."""

    def set_input(self, target: str, value: Any) -> None:
        """Set an input by address or `AT %I*` variable path, for the next scans."""

    def scan(self) -> RuntimeErrorRecord | None:
        """Run the next scan; None when it completed."""

    def snapshot(self) -> dict[str, Any]:
        """Every variable path -> JSON value at the end of the last completed scan."""
