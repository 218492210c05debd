"""Memory layout: every piece of program state in five flat typed arrays, plus a slot table.

One condition's state is five 1-D numpy arrays, one per storage dtype (`STORES`): int64
cells for every integer, bit string, BOOL, enumeration, TIME/date value, standard-FB cell,
string length and VAR_IN_OUT reference; float32 for REAL; float64 for LREAL; uint8 for
STRING characters; uint16 for WSTRING code units. A kernel holds a batch as
`[n_conditions, size]` per store and hands the scan one row of each.

A type occupies a `Size` (cells per store); an aggregate places its parts one after the
other in every store at once, so an array element or struct member is found by adding a
per-store offset to a per-store base. FB and PROGRAM instances are such aggregates (a
`Record`); their bodies receive the five bases. FUNCTION and METHOD frames are static
records at absolute offsets (recursion is a compile error, so one frame per POU suffices).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from stc import types as T
from stc.runtime import fbs

STORES = ("mi", "mr", "ml", "ms", "mw")
DTYPES = {"mi": np.int64, "mr": np.float32, "ml": np.float64, "ms": np.uint8, "mw": np.uint16}
N_STORES = len(STORES)
MAX_MEMORY_BYTES = 64 * 1024 * 1024
"""Largest memory of one condition (all stores); above it compilation fails with a clear error."""

# Header cells of `mi` used by the scan itself.
WD_COUNT, WD_LIMIT, HEADER_CELLS = 0, 1, 2
DEFAULT_WATCHDOG = 1_000_000

Size = tuple[int, int, int, int, int]
ZERO: Size = (0, 0, 0, 0, 0)


class LayoutError(Exception):
    """The program needs more memory than MAX_MEMORY_BYTES or has an unsupported type."""


def add(a: Size, b: Size) -> Size:
    return tuple(x + y for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def scale(a: Size, n: int) -> Size:
    return tuple(x * n for x in a)  # type: ignore[return-value]


def storage(t: T.Type) -> str:
    """The store of a scalar type: 'mi', 'mr', 'ml'; strings are 'ms'/'mw' plus a length cell."""
    b = T.base_of(t)
    if b is T.REAL:
        return "mr"
    if b is T.LREAL:
        return "ml"
    if isinstance(b, T.StringType):
        return "mw" if b.wide else "ms"
    return "mi"


def is_scalar(t: T.Type) -> bool:
    b = T.base_of(t)
    return isinstance(b, T.ElementaryType | T.EnumType)


@dataclass
class Field:
    name: str
    type: T.Type
    offset: Size
    section: str = "VAR"


@dataclass
class Record:
    """Consecutive fields of a struct, an FB/PROGRAM instance or a FUNCTION/METHOD frame."""

    name: str
    fields: dict[str, Field] = field(default_factory=dict)  # upper-case key -> Field
    size: Size = ZERO
    temp_start: Size | None = None  # VAR_TEMP block (re-initialised per call) starts here

    def add(self, key: str, name: str, t: T.Type, section: str, sizer: Sizer) -> Field:
        f = Field(name, t, self.size, section)
        self.fields[key] = f
        self.size = add(self.size, sizer.size(t, section))
        return f


REF_SIZE: Size = (N_STORES, 0, 0, 0, 0)
"""A VAR_IN_OUT reference: the five bases of the referenced variable, in `mi` cells."""


class Sizer:
    """Sizes of types; user FB types are laid out once as records."""

    def __init__(self) -> None:
        self.fb_records: dict[int, Record] = {}
        self.struct_records: dict[int, Record] = {}

    def size(self, t: T.Type, section: str = "VAR") -> Size:
        if section == "VAR_IN_OUT":
            return REF_SIZE
        b = T.base_of(t)
        if isinstance(b, T.ElementaryType | T.EnumType):
            return {"mi": (1, 0, 0, 0, 0), "mr": (0, 1, 0, 0, 0), "ml": (0, 0, 1, 0, 0)}[storage(b)]
        if isinstance(b, T.StringType):
            return (1, 0, 0, 0, b.length) if b.wide else (1, 0, 0, b.length, 0)
        if isinstance(b, T.ArrayType):
            return scale(self.size(b.elem), b.count)
        if isinstance(b, T.StructType):
            return self.struct(b).size
        if isinstance(b, T.FBType):
            if b.standard:
                return (fbs.LAYOUTS[b.name].size, 0, 0, 0, 0)
            return self.fb(b.pou).size
        raise LayoutError(f"type {t} has no memory layout")

    def struct(self, st: T.StructType) -> Record:
        rec = self.struct_records.get(id(st))
        if rec is None:
            rec = Record(st.name)
            for m in st.members:
                rec.add(m.name.upper(), m.name, m.type, "VAR", self)
            self.struct_records[id(st)] = rec
        return rec

    def fb(self, info: Any) -> Record:
        """Instance record of a user FB or a PROGRAM: persistent variables, then VAR_TEMP."""
        rec = self.fb_records.get(id(info))
        if rec is None:
            rec = Record(info.name)
            self.fb_records[id(info)] = rec
            own = [v for v in info.variables.values() if v.owner is info]
            for v in own:
                if v.section not in ("VAR_TEMP",):
                    rec.add(v.name.upper(), v.name, v.type, v.section, self)
            for m in info.methods.values():
                for v in m.variables.values():
                    if v.owner is m and v.section in ("VAR_INST", "VAR_STAT"):
                        rec.add(f"{m.name.upper()}.{v.name.upper()}", f"{m.name}.{v.name}", v.type, v.section, self)
            rec.temp_start = rec.size
            for v in own:
                if v.section == "VAR_TEMP":
                    rec.add(v.name.upper(), v.name, v.type, v.section, self)
        return rec


@dataclass
class Allocator:
    """Hands out absolute regions of the five stores."""

    top: list[int] = field(default_factory=lambda: [HEADER_CELLS, 0, 0, 0, 0])

    def take(self, size: Size) -> Size:
        start = tuple(self.top)
        for i, n in enumerate(size):
            self.top[i] += n
        self.check()
        return start  # type: ignore[return-value]

    def check(self) -> None:
        total = sum(n * np.dtype(DTYPES[s]).itemsize for n, s in zip(self.top, STORES, strict=True))
        if total > MAX_MEMORY_BYTES:
            raise LayoutError(f"program memory too large: more than {MAX_MEMORY_BYTES // (1024 * 1024)} MB "
                              "per condition")

    @property
    def sizes(self) -> Size:
        return tuple(max(n, 1) for n in self.top)  # type: ignore[return-value]


@dataclass(frozen=True)
class Slot:
    """Where one scalar lives: store name, absolute offset and ST type (strings: data offset
    in ms/mw plus `length_offset` in mi)."""

    store: str
    offset: int
    type: T.Type
    length_offset: int = -1
