"""Value semantics of the interpreter, written independently of the Numba runtime helpers.

Python forms (those of stc.sema.model): BOOL `bool`, integers/bit strings/enumerations and
TIME/LTIME/DATE/TOD/DT exact `int`, REAL `numpy.float32`, LREAL `float`, strings `str`,
arrays flat row-major `list`, structs and FB instances `dict`. Integer expressions are kept
exact (wrapped only to 64 bits) and reduced to the target width on store (§5.3); every REAL
operation is rounded to binary32 (§4).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from stc import types as T
from stc.interp.faults import Fault

INT64_LO, INT64_HI = -(1 << 63), (1 << 63) - 1
MS_PER_DAY = 86_400_000
F32_MANTISSA_BITS = 24


def wrap_to(value: int, size: int, signed: bool) -> int:
    """Two's-complement reduction of an exact integer into `size` bits."""
    v = value & ((1 << size) - 1)
    if signed and v >> (size - 1):
        v -= 1 << size
    return v


def wrap64(value: int, unsigned: bool = False) -> int:
    """Intermediate integer results live in 64 bits (§6.3)."""
    return wrap_to(value, 64, not unsigned)


def int_type(t: T.Type) -> T.ElementaryType:
    """The elementary integer type behind an enum or subrange (bit width and signedness)."""
    b = T.base_of(t)
    if isinstance(b, T.EnumType):
        b = b.base or T.INT
    assert isinstance(b, T.ElementaryType)
    return b


def wrap_int(value: int, t: T.Type) -> int:
    b = int_type(t)
    if b.cls not in (T.SIGNED, T.UNSIGNED, T.BIT):
        return wrap64(value)
    return wrap_to(value, b.size, b.signed)


def trunc_div(a: int, b: int) -> int:
    """Integer division truncating toward zero (`-7 / 2` = -3)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def trunc_mod(a: int, b: int) -> int:
    """`a MOD b = a - (a / b) * b`; the sign follows the dividend."""
    return a - trunc_div(a, b) * b


def int_to_f32(value: int) -> np.float32:
    """Nearest binary32 of an exact integer (no double rounding through binary64)."""
    mag = abs(value)
    extra = mag.bit_length() - F32_MANTISSA_BITS
    if extra > 0:
        mantissa, rest = mag >> extra, mag & ((1 << extra) - 1)
        half = 1 << (extra - 1)
        if rest > half or (rest == half and mantissa & 1):
            mantissa += 1
        mag = mantissa << extra
    with np.errstate(over="ignore"):
        f = np.float32(float(mag)) if mag < (1 << 1024) else np.float32(np.inf)
    return -f if value < 0 else f


def to_real(value: Any, real_t: T.Type) -> Any:
    """A number (int, float32, float, bool) as REAL or LREAL."""
    if isinstance(value, bool):
        value = int(value)
    if T.base_of(real_t) is T.REAL:
        if isinstance(value, int):
            return int_to_f32(value)
        return np.float32(value)
    return float(value)


def is_real_value(v: Any) -> bool:
    return isinstance(v, float | np.floating)


def round_half_even(x: float, what: str) -> int:
    """REAL -> integer rounding of §5.2 (ties to even); NaN/INF are a CONVERSION fault."""
    if not math.isfinite(x):
        raise Fault("CONVERSION", f"cannot convert {x} to an integer ({what})")
    return round(x)


def check_fits(value: int, t: T.Type, what: str) -> int:
    lo, hi = T.int_range(int_type(t)) if T.is_anyint(t) or isinstance(T.base_of(t), T.EnumType) else (
        INT64_LO, INT64_HI)
    if not lo <= value <= hi:
        raise Fault("CONVERSION", f"{what}: value {value} is out of range of {t}")
    return value


def clone(v: Any) -> Any:
    """Copy of an aggregate (whole-array/struct assignment copies by value)."""
    if isinstance(v, list):
        return [clone(x) for x in v]
    if isinstance(v, dict):
        return {k: clone(x) for k, x in v.items()}
    return v


def store(value: Any, src: T.Type | None, dst: T.Type) -> Any:
    """The value written into a location of type `dst` (§5.1 implicit conversion, §5.3 wrap).

    Raises the SUBRANGE fault of §12 for a subrange violation."""
    d = T.base_of(dst)
    if isinstance(d, T.ElementaryType):
        cls = d.cls
        if cls in (T.SIGNED, T.UNSIGNED, T.BIT):
            v = wrap_to(int(value), d.size, d.signed)
            if isinstance(dst, T.SubrangeType) and not dst.lo <= v <= dst.hi:
                raise Fault("SUBRANGE", f"value {v} is outside the subrange {dst.lo}..{dst.hi}")
            return v
        if cls == T.REAL_CLS:
            return to_real(value, d)
        if d is T.BOOL:
            return bool(value)
        if cls == T.DURATION:
            v = int(value)
            if d is T.LTIME and src is not None and T.base_of(src) is T.TIME:
                v *= 1_000_000
            return wrap64(v)
        return wrap64(int(value))
    if isinstance(d, T.EnumType):
        return wrap_int(int(value), d)
    if isinstance(d, T.StringType):
        return value[: d.length]
    return clone(value)


def represent(value: Any, t: T.Type) -> Any:
    """A folded constant of the semantic model in the interpreter's form for type `t`."""
    b = T.base_of(t)
    if b is T.REAL:
        return value if isinstance(value, np.float32) else to_real(value, T.REAL)
    if b is T.LREAL:
        return float(value)
    if b is T.BOOL:
        return bool(value)
    return value


def to_json(value: Any) -> Any:
    """Snapshot value form of stc.backend (REAL as the exact binary32 value in a float)."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, np.floating):
        return float(value)
    return value
