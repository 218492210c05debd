"""Explicit conversion functions of §5.2 (`X_TO_Y`, `TO_Y`, TRUNC, BCD) and text forms.

REAL -> integer rounds ties-to-even and faults (CONVERSION) when the result does not fit or
the input is NaN/INF; integer -> integer keeps the low bits; TIME <-> integer is in ms.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from typing import Any

import numpy as np

from stc import types as T
from stc.interp import values as V
from stc.interp.faults import Fault

_INT_CLASSES = (T.SIGNED, T.UNSIGNED, T.BIT)
_EPOCH = _dt.datetime(1970, 1, 1)
_TIME_UNITS_MS = (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1))
_LTIME_UNITS_NS = (("d", 86_400 * 10**9), ("h", 3_600 * 10**9), ("m", 60 * 10**9), ("s", 10**9),
                   ("ms", 10**6), ("us", 1000), ("ns", 1))
_NUMBER = re.compile(r"^(?:[A-Za-z_]+#)?([+-]?)(?:(\d+)#([0-9A-Fa-f_]+)|([0-9_]+))$")
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|us|ns|d|h|m|s)", re.IGNORECASE)


def _cls(t: T.Type) -> str | None:
    b = T.base_of(t)
    if isinstance(b, T.EnumType):
        return T.SIGNED
    return T.cls_of(b)


def convert(value: Any, src: T.Type, dst: T.Type, name: str = "") -> Any:
    """`<src>_TO_<dst>(value)`."""
    if "BCD" in name:
        return _bcd(value, dst, decode="BCD_TO" in name)
    d = T.base_of(dst)
    s = T.base_of(src)
    if isinstance(d, T.StringType):
        return to_text(value, s)
    if isinstance(s, T.StringType):
        return from_text(value, d)
    if d is T.BOOL:
        return bool(value != 0)
    if isinstance(value, bool):
        value = int(value)
    sc, dc = _cls(s), _cls(d)
    if dc in _INT_CLASSES:
        if sc == T.REAL_CLS:
            return V.check_fits(V.round_half_even(float(value), name), d, name)
        return V.wrap_int(int(value), d)
    if dc == T.REAL_CLS:
        return V.to_real(value, d)
    if dc == T.DURATION:
        if sc == T.REAL_CLS:
            return V.check_fits(V.round_half_even(float(value), name), T.LINT, name)
        if sc == T.DURATION and s is not d:
            return value * 1_000_000 if d is T.LTIME else V.trunc_div(value, 1_000_000)
        return V.wrap64(int(value))
    if dc == T.DATE_CLS:
        if sc == T.REAL_CLS:
            value = V.check_fits(V.round_half_even(float(value), name), T.LINT, name)
        if s is T.DT and d is T.DATE:
            return value - value % 86_400
        if s is T.DT and d is T.TOD:
            return (value % 86_400) * 1000
        return V.wrap64(int(value))
    raise TypeError(f"unsupported conversion {src} -> {dst}")


def trunc(value: Any, dst: T.Type) -> int:
    """TRUNC / TRUNC_<int>: toward zero; NaN/INF or out of range is a CONVERSION fault."""
    x = float(value)
    if not math.isfinite(x):
        raise Fault("CONVERSION", f"TRUNC of {x}")
    return V.check_fits(math.trunc(x), dst, "TRUNC")


def _bcd(value: int, dst: T.Type, decode: bool) -> int:
    """BCD <-> binary; a nibble above 9, or a number with more digits than the bit string
    holds, gives 0 (the compiled back end's choice; §5.2 does not say)."""
    if decode:
        out, scale = 0, 1
        while value:
            digit = value & 0xF
            if digit > 9:
                return 0
            out += digit * scale
            value >>= 4
            scale *= 10
        return V.wrap_int(out, dst)
    digits = str(abs(int(value)))
    if len(digits) * 4 > V.int_type(dst).size:
        return 0
    out, shift = 0, 0
    for digit in reversed(digits):
        out |= int(digit) << shift
        shift += 4
    return out


# ---------------------------------------------------------------------- text forms


def real_text(x: Any, single: bool) -> str:
    """Shortest text that round-trips in the value's precision; exponent form beyond 1E15."""
    v = np.float32(x) if single else np.float64(x)
    f = float(v)
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "INF" if f > 0 else "-INF"
    if f == 0 or 1e-5 <= abs(f) < 1e15:
        return np.format_float_positional(v, unique=True, trim="-")
    sci = np.format_float_scientific(v, unique=True, trim="-")
    mantissa, exp = sci.split("e")
    return f"{mantissa}E{exp[0]}{int(exp[1:]):02d}"


def duration_text(value: int, long: bool) -> str:
    prefix = "LTIME#" if long else "T#"
    if value == 0:
        return prefix + ("0ns" if long else "0ms")
    sign, rest = ("-", -value) if value < 0 else ("", value)
    parts = []
    for unit, size in _LTIME_UNITS_NS if long else _TIME_UNITS_MS:
        n, rest = divmod(rest, size)
        if n:
            parts.append(f"{n}{unit}")
    return prefix + sign + "".join(parts)


def to_text(value: Any, src: T.Type) -> str:
    if isinstance(src, T.StringType):
        return value
    if src is T.BOOL:
        return "TRUE" if value else "FALSE"
    if src in (T.REAL, T.LREAL):
        return real_text(value, src is T.REAL)
    if src in (T.TIME, T.LTIME):
        return duration_text(value, src is T.LTIME)
    if src is T.DATE:
        return "D#" + (_EPOCH + _dt.timedelta(seconds=value)).strftime("%Y-%m-%d")
    if src is T.DT:
        return "DT#" + (_EPOCH + _dt.timedelta(seconds=value)).strftime("%Y-%m-%d-%H:%M:%S")
    if src is T.TOD:
        secs, ms = divmod(value, 1000)
        text = "TOD#" + (_EPOCH + _dt.timedelta(seconds=secs)).strftime("%H:%M:%S")
        return text + (f".{ms:03d}".rstrip("0") if ms else "")
    return str(int(value))


def _parse_int(text: str) -> int | None:
    m = _NUMBER.match(text)
    if not m:
        return None
    sign, base, digits, decimal = m.groups()
    try:
        v = int(digits.replace("_", ""), int(base)) if base else int(decimal.replace("_", ""))
    except ValueError:
        return None
    return -v if sign == "-" else v


def _parse_duration(text: str, long: bool) -> int | None:
    head, _, body = text.partition("#")
    if not body or head.upper() not in ("T", "TIME", "LT", "LTIME"):
        return None
    neg = body.startswith("-")
    body = body.lstrip("+-").replace("_", "")
    scale = dict(_LTIME_UNITS_NS if long else ((u, s * 10**6) for u, s in _TIME_UNITS_MS))
    total, pos = 0.0, 0
    for m in _DURATION_PART.finditer(body):
        if m.start() != pos:
            return None
        unit = m.group(2).lower()
        if unit not in scale and not long and unit in ("us", "ns"):
            scale[unit] = 1000 if unit == "us" else 1
        total += float(m.group(1)) * scale[unit]
        pos = m.end()
    if pos != len(body) or pos == 0:
        return None
    ns = int(total)
    v = ns if long else V.trunc_div(ns, 10**6)
    return -v if neg else v


def from_text(text: str, dst: T.Type) -> Any:
    """STRING -> number/TIME: blanks ignored; invalid text gives 0 (§5.2)."""
    s = text.strip(" \t")
    if dst is T.BOOL:
        if s.upper() in ("TRUE", "FALSE"):
            return s.upper() == "TRUE"
        n = _parse_int(s)
        return bool(n)
    if T.is_real(dst):
        try:
            return V.to_real(float(s.replace("_", "")), dst)
        except ValueError:
            return V.to_real(0, dst)
    if T.is_duration(dst):
        v = _parse_duration(s, dst is T.LTIME)
        return 0 if v is None else v
    n = _parse_int(s)
    return 0 if n is None else V.wrap_int(n, dst) if T.is_anyint(dst) else n
