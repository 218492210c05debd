"""The ST type hierarchy and the typing rules of ST_LANGUAGE.md §1.1, §5.1 and §6.3-§6.8.

Types are small immutable descriptions; user types (structs, enums, FBs) compare by
identity because two declarations with the same layout are still different types.
`ERROR` is the type of anything that already produced a diagnostic: every rule accepts
it silently, so one mistake is reported once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Type classes of elementary types (IEC generic ANY_* families).
BOOL_CLS, SIGNED, UNSIGNED, BIT, REAL_CLS, DURATION, DATE_CLS = (
    "bool",
    "signed",
    "unsigned",
    "bit",
    "real",
    "duration",
    "date",
)


class Type:
    """Base of every ST type."""

    def __str__(self) -> str:
        return getattr(self, "name", "?")


@dataclass(frozen=True, eq=True)
class ElementaryType(Type):
    """BOOL, integers, bit strings, REAL/LREAL, TIME/LTIME, DATE/TOD/DT."""

    name: str
    size: int  # bits (BOOL: 1)
    signed: bool
    cls: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, eq=True)
class StringType(Type):
    length: int = 80
    wide: bool = False

    @property
    def name(self) -> str:  # type: ignore[override]
        base = "WSTRING" if self.wide else "STRING"
        return base if self.length == 80 else f"{base}({self.length})"


@dataclass(frozen=True, eq=True)
class ArrayType(Type):
    dims: tuple[tuple[int, int], ...]
    elem: Type

    @property
    def name(self) -> str:  # type: ignore[override]
        d = ", ".join(f"{lo}..{hi}" for lo, hi in self.dims)
        return f"ARRAY[{d}] OF {self.elem}"

    @property
    def count(self) -> int:
        n = 1
        for lo, hi in self.dims:
            n *= max(hi - lo + 1, 0)
        return n


@dataclass(eq=False)
class StructMember:
    name: str
    type: Type
    init: Any = None  # folded initial value (None: the type default)
    pos: Any = None


@dataclass(eq=False)
class StructType(Type):
    """A STRUCT with EXTENDS already flattened (base members first)."""

    name: str
    members: list[StructMember] = field(default_factory=list)

    def member(self, name: str) -> StructMember | None:
        k = name.upper()
        for m in self.members:
            if m.name.upper() == k:
                return m
        return None


@dataclass(eq=False)
class EnumType(Type):
    name: str
    values: dict[str, int] = field(default_factory=dict)  # upper-case key -> value
    spelling: dict[str, str] = field(default_factory=dict)  # upper-case key -> declared name
    base: ElementaryType | None = None
    default: int | None = None  # value of the explicit default, else the first enumerator

    @property
    def initial(self) -> int:
        if self.default is not None:
            return self.default
        return next(iter(self.values.values()), 0)


@dataclass(frozen=True, eq=True)
class SubrangeType(Type):
    base: ElementaryType
    lo: int
    hi: int

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"{self.base.name} ({self.lo}..{self.hi})"


@dataclass(eq=False)
class Param:
    """One variable of a POU interface (also used for standard FB pins)."""

    name: str
    type: Type
    section: str  # VAR_INPUT | VAR_OUTPUT | VAR_IN_OUT | VAR | ...
    aliases: tuple[str, ...] = ()


@dataclass(eq=False)
class FBType(Type):
    """A FUNCTION_BLOCK type (user-defined or standard); `pou` is the POU info for user FBs."""

    name: str
    params: list[Param] = field(default_factory=list)
    standard: bool = False
    pou: Any = field(default=None, repr=False)

    def find(self, name: str) -> Param | None:
        k = name.upper()
        for p in self.params:
            if p.name.upper() == k or k in p.aliases:
                return p
        return None


@dataclass(eq=False)
class ProgramType(Type):
    """Type of a PROGRAM instance (`prog.var` reads)."""

    name: str
    pou: Any = field(default=None, repr=False)


@dataclass(eq=False)
class FunctionType(Type):
    name: str
    ret: Type | None
    params: list[Param] = field(default_factory=list)
    pou: Any = field(default=None, repr=False)


class _VoidType(Type):
    name = "VOID"


class _ErrorType(Type):
    name = "<error>"


VOID = _VoidType()
ERROR = _ErrorType()


def _e(name: str, size: int, signed: bool, cls: str) -> ElementaryType:
    return ElementaryType(name, size, signed, cls)


BOOL = _e("BOOL", 1, False, BOOL_CLS)
SINT, INT, DINT, LINT = (_e(n, s, True, SIGNED) for n, s in (("SINT", 8), ("INT", 16), ("DINT", 32), ("LINT", 64)))
USINT, UINT, UDINT, ULINT = (
    _e(n, s, False, UNSIGNED) for n, s in (("USINT", 8), ("UINT", 16), ("UDINT", 32), ("ULINT", 64))
)
BYTE, WORD, DWORD, LWORD = (_e(n, s, False, BIT) for n, s in (("BYTE", 8), ("WORD", 16), ("DWORD", 32), ("LWORD", 64)))
REAL = _e("REAL", 32, True, REAL_CLS)
LREAL = _e("LREAL", 64, True, REAL_CLS)
TIME = _e("TIME", 64, True, DURATION)
LTIME = _e("LTIME", 64, True, DURATION)
DATE = _e("DATE", 64, True, DATE_CLS)
TOD = _e("TOD", 64, True, DATE_CLS)
DT = _e("DT", 64, True, DATE_CLS)
STRING = StringType(80, False)
WSTRING = StringType(80, True)

ELEMENTARY: dict[str, ElementaryType] = {
    t.name: t
    for t in (BOOL, SINT, INT, DINT, LINT, USINT, UINT, UDINT, ULINT, BYTE, WORD, DWORD, LWORD,
              REAL, LREAL, TIME, LTIME, DATE, TOD, DT)
}
TYPE_ALIASES = {"TIME_OF_DAY": "TOD", "DATE_AND_TIME": "DT", "LTIME_OF_DAY": "TOD", "LDT": "DT",
                "LDATE": "DATE", "LTOD": "TOD"}
ELEMENTARY_NAMES = frozenset(ELEMENTARY) | frozenset(TYPE_ALIASES) | {"STRING", "WSTRING"}


def elementary(name: str) -> ElementaryType | None:
    n = name.upper()
    return ELEMENTARY.get(TYPE_ALIASES.get(n, n))


# --------------------------------------------------------------------------- classification


def base_of(t: Type) -> Type:
    """A subrange behaves like its base type in expressions."""
    return t.base if isinstance(t, SubrangeType) else t


def cls_of(t: Type) -> str | None:
    t = base_of(t)
    return t.cls if isinstance(t, ElementaryType) else None


def is_integer(t: Type) -> bool:
    return cls_of(t) in (SIGNED, UNSIGNED)


def is_bit(t: Type) -> bool:
    return cls_of(t) == BIT


def is_anyint(t: Type) -> bool:
    """Integers and bit strings (ANY_INT plus ANY_BIT except BOOL)."""
    return cls_of(t) in (SIGNED, UNSIGNED, BIT)


def is_real(t: Type) -> bool:
    return cls_of(t) == REAL_CLS


def is_num(t: Type) -> bool:
    return cls_of(t) in (SIGNED, UNSIGNED, BIT, REAL_CLS)


def is_bool(t: Type) -> bool:
    return base_of(t) is BOOL


def is_duration(t: Type) -> bool:
    return cls_of(t) == DURATION


def is_string(t: Type) -> bool:
    return isinstance(t, StringType)


def int_range(t: Type) -> tuple[int, int]:
    """Value range of an integer/bit-string/enum type (subranges: their bounds)."""
    if isinstance(t, SubrangeType):
        return t.lo, t.hi
    if isinstance(t, EnumType):
        return int_range(t.base or INT)
    assert isinstance(t, ElementaryType)
    if t is BOOL:
        return 0, 1
    if t.signed:
        return -(1 << (t.size - 1)), (1 << (t.size - 1)) - 1
    return 0, (1 << t.size) - 1


def same_type(a: Type, b: Type) -> bool:
    """Exact type identity (VAR_IN_OUT binding, whole-array/struct copy)."""
    return a is b or a == b


# --------------------------------------------------------------------------- §5.1 implicit conversions

OK, WARN, ERR = "ok", "warning", "error"


def _silent_int(src: ElementaryType, dst: ElementaryType) -> bool:
    """Value-preserving integer/bit-string widening of §5.1."""
    if src.cls == dst.cls or (src.cls in (UNSIGNED, BIT) and dst.cls in (UNSIGNED, BIT)):
        return dst.size >= src.size
    if src.cls in (UNSIGNED, BIT) and dst.cls == SIGNED:
        return dst.size > src.size
    return False


def implicit(src: Type, dst: Type) -> tuple[str, str]:
    """Classify an implicit conversion src -> dst: (OK|WARN|ERR, message)."""
    if src is ERROR or dst is ERROR or same_type(src, dst):
        return OK, ""
    s, d = base_of(src), base_of(dst)
    if isinstance(s, EnumType):
        if d is s:
            return OK, ""
        if isinstance(d, ElementaryType) and d.cls in (SIGNED, UNSIGNED, BIT):
            return OK, ""
        return ERR, f"implicit conversion {src} -> {dst} is not allowed"
    if isinstance(d, EnumType):
        if isinstance(s, ElementaryType) and s.cls in (SIGNED, UNSIGNED, BIT):
            return WARN, f"implicit conversion {src} -> {dst} (integer to enumeration)"
        return ERR, f"implicit conversion {src} -> {dst} is not allowed"
    if isinstance(s, StringType) and isinstance(d, StringType):
        if s.wide != d.wide:
            return ERR, f"implicit conversion {src} -> {dst} is not allowed; use a conversion function"
        return OK, ""
    if isinstance(s, ElementaryType) and isinstance(d, ElementaryType):
        if s == d:
            return OK, ""
        sc, dc = s.cls, d.cls
        ints = (SIGNED, UNSIGNED, BIT)
        if sc in ints and dc in ints:
            if _silent_int(s, d):
                return OK, ""
            return WARN, f"implicit conversion {src} -> {dst} may lose information"
        if sc in ints and dc == REAL_CLS:
            if d is LREAL and s.size < 64 or d is REAL and s.size <= 16:
                return OK, ""
            return WARN, f"implicit conversion {src} -> {dst} may lose precision"
        if sc == REAL_CLS and dc == REAL_CLS:
            if d is LREAL:
                return OK, ""
            return WARN, f"implicit conversion {src} -> {dst} may lose precision"
        if sc == REAL_CLS and dc in ints:
            return ERR, f"implicit conversion {src} -> {dst} is not allowed; use REAL_TO_INT (rounds) or TRUNC (truncates)"
        if sc == DURATION and dc == DURATION and s is TIME:
            return OK, ""  # TIME -> LTIME widens
        if sc == DATE_CLS and dc == DATE_CLS:
            return ERR, f"implicit conversion {src} -> {dst} is not allowed; use a conversion function"
    return ERR, f"implicit conversion {src} -> {dst} is not allowed; use a conversion function"


# --------------------------------------------------------------------------- §6.3 result types

_SIGNED_BY_SIZE = {8: SINT, 16: INT, 32: DINT, 64: LINT}
_UNSIGNED_BY_SIZE = {8: USINT, 16: UINT, 32: UDINT, 64: ULINT}
_BIT_BY_SIZE = {8: BYTE, 16: WORD, 32: DWORD, 64: LWORD}


def common_int(a: ElementaryType, b: ElementaryType) -> ElementaryType:
    """Smallest type both integer/bit-string operands widen into silently (LINT at worst)."""
    if _silent_int(a, b):
        return b
    if _silent_int(b, a):
        return a
    size = max(a.size, b.size)
    if a.cls == BIT and b.cls == BIT:
        return _BIT_BY_SIZE[size]
    signed_size = min(size * 2, 64) if (not a.signed or not b.signed) else size
    return _SIGNED_BY_SIZE[max(signed_size, 8)]


def common_num(a: Type, b: Type) -> Type:
    """Result type of a numeric binary operation (promotion)."""
    a, b = base_of(a), base_of(b)
    if isinstance(a, EnumType):
        a = a.base or INT
    if isinstance(b, EnumType):
        b = b.base or INT
    assert isinstance(a, ElementaryType) and isinstance(b, ElementaryType)
    if a is LREAL or b is LREAL:
        return LREAL
    if a is REAL or b is REAL:
        other = b if a is REAL else a
        return LREAL if other.cls != REAL_CLS and other.size >= 64 else REAL
    return common_int(a, b)


def int_literal_type(value: int) -> ElementaryType:
    """Type of an untyped integer literal without context (§1.1): DINT, LINT if it does not fit."""
    lo, hi = int_range(DINT)
    if lo <= value <= hi:
        return DINT
    lo, hi = int_range(LINT)
    if lo <= value <= hi:
        return LINT
    return ULINT


def fits(value: int, t: Type) -> bool:
    lo, hi = int_range(base_of(t) if not isinstance(t, SubrangeType) else t)
    return lo <= value <= hi


def by_size(cls: str, size: int) -> ElementaryType:
    table = {SIGNED: _SIGNED_BY_SIZE, UNSIGNED: _UNSIGNED_BY_SIZE, BIT: _BIT_BY_SIZE}[cls]
    return table[size]


def byte_size(t: Type) -> int | None:
    """SIZEOF in CODESYS layout for elementary types, strings and arrays of those."""
    t = base_of(t)
    if isinstance(t, ElementaryType):
        return 1 if t is BOOL else t.size // 8
    if isinstance(t, StringType):
        return (t.length + 1) * (2 if t.wide else 1)
    if isinstance(t, EnumType):
        return byte_size(t.base or INT)
    if isinstance(t, ArrayType):
        e = byte_size(t.elem)
        return None if e is None else e * t.count
    return None
