"""The cold-start memory image and the slot table (variable path -> where its value lives).

The image is built once per program from the semantic model's evaluated initial values
(§2.2): globals, program instances, FUNCTION/METHOD frames and their pristine images,
VAR_TEMP images, string literals and the watchdog limit. `new_memory` copies it.
The slot table lists every observable scalar under its backend.py path, in order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stc import types as T
from stc.codegen.layout import (
    DEFAULT_WATCHDOG,
    DTYPES,
    STORES,
    WD_LIMIT,
    Size,
    Sizer,
    Slot,
    add,
    storage,
)
from stc.runtime import fbs, strings
from stc.sema import consteval as C
from stc.stdlib import STANDARD_FBS


def _scalar_cell(value: Any, t: T.Type) -> Any:
    if isinstance(value, bool | np.bool_):
        return int(value)
    if storage(t) == "mi":
        v = int(value)
        return ((v + 2**63) % 2**64) - 2**63  # ULINT/LWORD: the int64 bit pattern
    return value


class ImageWriter:
    """Writes initial values of any type at a base into the five stores."""

    def __init__(self, sizer: Sizer, sizes: Size) -> None:
        self.sizer = sizer
        self.mem = {s: np.zeros(n, dtype=DTYPES[s]) for s, n in zip(STORES, sizes, strict=True)}
        self.mem["mi"][WD_LIMIT] = DEFAULT_WATCHDOG

    def write(self, base: Size, t: T.Type, value: Any) -> None:
        b = T.base_of(t)
        if value is None:
            value = C.default_value(t)
            if value is None:
                return
        if isinstance(b, T.ElementaryType | T.EnumType):
            st = storage(b)
            self.mem[st][base[STORES.index(st)]] = _scalar_cell(value, b)
        elif isinstance(b, T.StringType):
            buf = strings.string_buffer(str(value), b.length, b.wide)
            n = min(len(str(value)) if not b.wide else len(str(value).encode("utf-16-le")) // 2, b.length)
            st = "mw" if b.wide else "ms"
            start = base[STORES.index(st)]
            self.mem[st][start:start + b.length] = buf
            self.mem["mi"][base[0]] = n
        elif isinstance(b, T.ArrayType):
            elem = self.sizer.size(b.elem)
            for k, v in enumerate(value if isinstance(value, list) else []):
                self.write(add(base, tuple(n * k for n in elem)), b.elem, v)  # type: ignore[arg-type]
        elif isinstance(b, T.StructType):
            rec = self.sizer.struct(b)
            values = value if isinstance(value, dict) else {}
            for m in b.members:
                f = rec.fields[m.name.upper()]
                self.write(add(base, f.offset), m.type, values.get(m.name, m.init))
        elif isinstance(b, T.FBType) and b.standard:
            layout = fbs.LAYOUTS[b.name]
            for pin, v in (value if isinstance(value, dict) else {}).items():
                p = b.find(pin)
                if p is not None and v is not None:
                    self.mem["mi"][base[0] + layout.offset(p.name)] = _scalar_cell(v, p.type)
        elif isinstance(b, T.FBType):
            self.write_instance(base, b.pou, value if isinstance(value, dict) else {})

    def write_instance(self, base: Size, info: Any, values: dict[str, Any]) -> None:
        """An FB/PROGRAM instance: declared initial values, overridden by `values`."""
        rec = self.sizer.fb(info)
        for v in info.variables.values():
            if v.owner is not info or v.section == "VAR_IN_OUT":
                continue
            f = rec.fields[v.name.upper()]
            self.write(add(base, f.offset), v.type, values.get(v.name, v.init))
        for m in info.methods.values():
            for v in m.variables.values():
                if v.owner is m and v.section in ("VAR_INST", "VAR_STAT"):
                    f = rec.fields[f"{m.name.upper()}.{v.name.upper()}"]
                    self.write(add(base, f.offset), v.type, v.init)


# ---------------------------------------------------------------------- slot table


def slots_of(sizer: Sizer, path: str, t: T.Type, base: Size, out: dict[str, Slot]) -> None:
    """Every observable scalar below a variable, under its snapshot path."""
    b = T.base_of(t)
    if isinstance(b, T.ElementaryType | T.EnumType):
        st = storage(b)
        out[path] = Slot(st, base[STORES.index(st)], t)
    elif isinstance(b, T.StringType):
        st = "mw" if b.wide else "ms"
        out[path] = Slot(st, base[STORES.index(st)], t, base[0])
    elif isinstance(b, T.ArrayType):
        elem = sizer.size(b.elem)
        for k, idx in enumerate(_indices(b.dims)):
            sub = f"{path}[{','.join(str(i) for i in idx)}]"
            slots_of(sizer, sub, b.elem, add(base, tuple(n * k for n in elem)), out)  # type: ignore[arg-type]
    elif isinstance(b, T.StructType):
        rec = sizer.struct(b)
        for f in rec.fields.values():
            slots_of(sizer, f"{path}.{f.name}", f.type, add(base, f.offset), out)
    elif isinstance(b, T.FBType) and b.standard:
        layout = fbs.LAYOUTS[b.name]
        for pin in STANDARD_FBS[b.name]:
            p = b.find(pin.name)
            assert p is not None
            out[f"{path}.{pin.name}"] = Slot("mi", base[0] + layout.offset(pin.name), p.type)
    elif isinstance(b, T.FBType):
        instance_slots(sizer, path + ".", b.pou, base, out)


def instance_slots(sizer: Sizer, prefix: str, info: Any, base: Size, out: dict[str, Slot]) -> None:
    rec = sizer.fb(info)
    for f in rec.fields.values():
        if f.section in ("VAR_IN_OUT", "VAR_TEMP"):
            continue
        slots_of(sizer, prefix + f.name, f.type, add(base, f.offset), out)


def _indices(dims: tuple[tuple[int, int], ...]) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for lo, hi in dims:
        out = [i + (k,) for i in out for k in range(lo, hi + 1)]
    return out


def read_slot(mem: dict[str, np.ndarray], slot: Slot) -> Any:
    """One slot as a plain JSON value (backend.py): bool, int, float or str."""
    t = T.base_of(slot.type)
    if isinstance(t, T.StringType):
        n = int(mem["mi"][slot.length_offset])
        return strings.buffer_text(mem[slot.store][slot.offset:slot.offset + t.length], n)
    raw = mem[slot.store][slot.offset]
    if t is T.BOOL:
        return bool(raw)
    if slot.store == "mi":
        v = int(raw)
        if T.base_of(t) in (T.ULINT, T.LWORD):
            v %= 2**64
        return v
    return float(raw)


def write_slot(mem: dict[str, np.ndarray], slot: Slot, value: Any) -> None:
    """Set a slot from a Python value (inputs); integers wrap like a store."""
    t = T.base_of(slot.type)
    if isinstance(t, T.StringType):
        buf = strings.string_buffer(str(value), t.length, t.wide)
        mem[slot.store][slot.offset:slot.offset + t.length] = buf
        mem["mi"][slot.length_offset] = min(len(str(value)), t.length)
        return
    if slot.store == "mi":
        v = int(bool(value)) if t is T.BOOL else C.store(int(value), t)
        mem["mi"][slot.offset] = _scalar_cell(v, t)
    else:
        mem[slot.store][slot.offset] = float(value)
