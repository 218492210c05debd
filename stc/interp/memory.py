"""Storage locations: references (for assignment targets and VAR_IN_OUT aliasing) and frames.

Every variable lives in a Python container (a dict for program/FB instances, call frames,
structs and globals; a flat list for arrays), so a location is just (container, key), and
VAR_IN_OUT passes that pair: writes through it are visible to the caller at once (§8).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stc.interp.values import wrap_int
from stc.sema.model import POUInfo


class ItemRef:
    """A location `container[key]`."""

    __slots__ = ("container", "key")

    def __init__(self, container: Any, key: Any) -> None:
        self.container = container
        self.key = key

    def get(self) -> Any:
        return self.container[self.key]

    def set(self, value: Any) -> None:
        self.container[self.key] = value


class BitRef:
    """Bit `n` of an integer location (`w.15 := TRUE` sets or clears only that bit, §6.6)."""

    __slots__ = ("inner", "bit", "type")

    def __init__(self, inner: ItemRef, bit: int, type_: Any) -> None:
        self.inner = inner
        self.bit = bit
        self.type = type_

    def get(self) -> bool:
        return bool((self.inner.get() >> self.bit) & 1)

    def set(self, value: Any) -> None:
        word = self.inner.get()
        mask = 1 << self.bit
        word = (word | mask) if value else (word & ~mask)
        self.inner.set(wrap_int(word, self.type))


Ref = ItemRef | BitRef


@dataclass(eq=False, slots=True)
class Frame:
    """One activation: the POU running, its own variables, and the FB instance it works on.

    `locals` is the program/FB instance dict for PROGRAM and FB bodies and a fresh dict for
    FUNCTION/METHOD calls; `inst` is the FB instance (FB body and its methods); `inouts`
    maps a VAR_IN_OUT name to the caller's location."""

    pou: POUInfo
    locals: dict[str, Any]
    inst: dict[str, Any] | None = None
    inouts: dict[str, Ref] = field(default_factory=dict)

    @property
    def pou_name(self) -> str:
        fb = self.pou.fb
        return f"{fb.name}.{self.pou.name}" if fb is not None else self.pou.name
