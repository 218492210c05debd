"""Bind a compiled program's I/O list to a task's I/O map (DESIGN.md section 4).

The result is two small integer tables the kernel walks every tick: which program memory
cell receives which input-image slot, and which output-image slot is read from which cell,
with the integer width to wrap to on the way. Decisions (ST_LANGUAGE.md 2.3, G3):

* error   - an `AT %I*`/`AT %Q*` variable named like a task signal of the other direction;
          - a type whose representation differs from the signal's (REAL vs an integer,
            a 16-bit variable on a 32-bit signal via `*`, ...);
          - two variables driving the same task output (which one would the plant see?).
* warning - an address (or `*` name) the task does not define: unlisted inputs read
            FALSE/0, writes to unlisted outputs are ignored and never judged (G3);
          - a same-size integer of another type (INT on a WORD signal): the bit pattern
            is reinterpreted, which is legal but rarely meant.
Writing to a `%I` variable is already a compiler warning (overwritten at the next input
refresh), so it is not reported twice. `%M` addresses are memory, not I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from plants.tasks.spec import Signal, TaskSpec
from stc.codegen.program import CompiledProgram
from stc.diagnostics import Diagnostics

STORE_CODES = {"mi": 0, "mr": 1, "ml": 2}
"""Program stores the kernel copies I/O to and from (strings are never I/O)."""

SLOT_COLUMNS = ("image", "store", "offset", "bits", "signed")
"""Columns of a slot table row: image index, store code, cell offset, integer width, signedness."""

INTEGER_WIDTHS = {
    "BOOL": (1, 0),
    "SINT": (8, 1), "USINT": (8, 0), "BYTE": (8, 0),
    "INT": (16, 1), "UINT": (16, 0), "WORD": (16, 0),
    "DINT": (32, 1), "UDINT": (32, 0), "DWORD": (32, 0),
    "LINT": (64, 1), "ULINT": (64, 0), "LWORD": (64, 0),
}
"""Bit width and signedness of the types an I/O value is wrapped to (REAL/LREAL: 0, 0)."""


@dataclass
class Binding:
    """The slot tables of one program on one task, plus what the binder had to say."""

    inputs: np.ndarray  # int64 [n, 5]: image <- program cell (wrapped to the program's type)
    outputs: np.ndarray  # int64 [n, 5]: image <- program cell (wrapped to the signal's type)
    diagnostics: Diagnostics
    bound: dict[str, str] = field(default_factory=dict)  # task signal name -> program variable

    @property
    def ok(self) -> bool:
        return not self.diagnostics.has_errors


def _widths(type_name: str) -> tuple[int, int]:
    return INTEGER_WIDTHS.get(type_name, (0, 0))


def _representation(type_name: str) -> str:
    if type_name == "BOOL":
        return "bit"
    if type_name in ("REAL", "LREAL"):
        return type_name
    return f"int{_widths(type_name)[0]}"


def _describe(sig: Signal) -> str:
    return f"{sig.name} ({sig.address} {sig.type})"


def bind(program: CompiledProgram, task: TaskSpec, filename: str = "<input>") -> Binding:
    """Match every I/O point of `program` to `task`'s map; see the module doc for the rules."""
    diags = Diagnostics(file=filename)
    by_address = {s.address: s for s in task.io}
    by_name = {s.name.upper(): s for s in task.io}
    image = {s.name: i for i, s in enumerate(task.inputs)} | {s.name: i for i, s in enumerate(task.outputs)}
    rows_in: list[tuple[int, ...]] = []
    rows_out: list[tuple[int, ...]] = []
    bound: dict[str, str] = {}
    drivers: dict[str, str] = {}
    for b in program.io:
        p = b.point
        if p.area == "M":
            continue
        label = p.name or p.address
        short = p.name.rsplit(".", 1)[-1].upper()
        if p.address in ("%I*", "%Q*"):
            sig = by_name.get(short)
            if sig is not None and sig.direction != p.direction:
                diags.error(f"'{label} AT {p.address}' names the task's {sig.direction} "
                            f"{_describe(sig)}; declare it AT %{sig.address[1]}*", p.line, p.column)
                continue
        else:
            sig = by_address.get(p.address)
        if sig is None:
            what = ("it reads FALSE/0" if p.direction == "input"
                    else "writes to it are ignored and never judged")
            key = f"name {short!r}" if p.address.endswith("*") else "address"
            diags.warning(f"'{label}' ({p.address}): the task's I/O map has no {p.direction} with this "
                          f"{key}; {what}", p.line, p.column)
            continue
        if _representation(p.type) != _representation(sig.type) or b.slot.store not in STORE_CODES:
            diags.error(f"'{label}' has type {p.type}, which does not fit the task's signal "
                        f"{_describe(sig)}", p.line, p.column)
            continue
        if p.type != sig.type:
            diags.warning(f"'{label}' has type {p.type} but the task's signal {_describe(sig)} is "
                          f"{sig.type}; the bit pattern is reinterpreted", p.line, p.column)
        if sig.direction == "output":
            if sig.name in drivers:
                diags.error(f"'{label}' and '{drivers[sig.name]}' both drive the task's output "
                            f"{_describe(sig)}; keep one", p.line, p.column)
                continue
            drivers[sig.name] = label
            bits, signed = _widths(sig.type)
            rows_out.append((image[sig.name], STORE_CODES[b.slot.store], b.slot.offset, bits, signed))
        else:
            bits, signed = _widths(p.type)
            rows_in.append((image[sig.name], STORE_CODES[b.slot.store], b.slot.offset, bits, signed))
        bound.setdefault(sig.name, label)
    return Binding(_table(rows_in), _table(rows_out), diags, bound)


def _table(rows: list[tuple[int, ...]]) -> np.ndarray:
    return np.array(rows, dtype=np.int64).reshape(len(rows), len(SLOT_COLUMNS))
