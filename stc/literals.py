"""Literal text -> literal AST node with its value (ST_LANGUAGE.md section 1.1).

The grammar matches every literal form with one regular expression; this module decides
which form a text is and computes its value exactly (durations with `Fraction`, so
`T#1.1s` is 1100 ms, not 1099). Range checks of typed literals against their type
(`BYTE#300`) belong to the semantic pass; here the prefix is only recorded.
"""

from __future__ import annotations

import calendar
import math
import re
from collections.abc import Callable
from fractions import Fraction

from stc import ast
from stc.diagnostics import Diagnostics

_DATE_PREFIX = {"D": "DATE", "DATE": "DATE", "TOD": "TOD", "TIME_OF_DAY": "TOD",
                "DT": "DT", "DATE_AND_TIME": "DT"}
_DURATION_PREFIX = {"T": "TIME", "TIME": "TIME", "LT": "LTIME", "LTIME": "LTIME"}
_REAL_TYPES = {"REAL", "LREAL"}
_BOOL_VALUES = {"TRUE": True, "FALSE": False, "1": True, "0": False}
_MAX_INTEGER = 2**64 - 1

# Duration units in nanoseconds, most significant first.
_UNIT_NS = {"D": 86_400 * 10**9, "H": 3_600 * 10**9, "M": 60 * 10**9, "S": 10**9,
            "MS": 10**6, "US": 10**3, "NS": 1}
_UNIT_ORDER = list(_UNIT_NS)
_UNIT_LIMIT = {"H": 24, "M": 60, "S": 60, "MS": 1000, "US": 1000, "NS": 1000}
_DURATION_PART = re.compile(r"(\d[\d_]*(?:\.\d[\d_]*)?)(MS|US|NS|D|H|M|S)_?", re.IGNORECASE)
_DECIMAL = re.compile(r"\d(?:_?\d)*_?\Z")
_REAL = re.compile(r"\d[\d_]*(?:\.\d[\d_]*)?(?:E[-+]?\d[\d_]*)?\Z", re.IGNORECASE)
_BASED = re.compile(r"(\d+)#(\w+)\Z")
_NAME = re.compile(r"[A-Za-z_]\w*\Z")
_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})\Z")
_TOD = re.compile(r"(\d{1,2}):(\d{1,2})(?::(\d{1,2}(?:\.\d+)?))?\Z")

_STRING_ESCAPES = {"$": "$", "L": "\n", "N": "\n", "R": "\r", "P": "\f", "T": "\t"}
_HEX = set("0123456789abcdefABCDEF")


class LiteralError(ValueError):
    """A literal that cannot be evaluated; `offset` is the column offset of the fault."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def build_literal(text: str, pos: ast.Pos, diags: Diagnostics) -> ast.Expr:
    """Evaluate one literal token; errors and warnings go to `diags` at their position."""

    def warn(message: str) -> None:
        diags.warning(message, pos.line, pos.col)

    try:
        return _classify(text, pos, warn)
    except LiteralError as err:
        diags.error(err.message, pos.line, pos.col + err.offset)
        return _placeholder(text, pos)


def _placeholder(text: str, pos: ast.Pos) -> ast.Expr:
    """A zero literal of the right kind, so one bad literal causes no follow-on type errors."""
    if text[0] in "'\"":
        return ast.StringLit(pos, text[1:-1], text[0] == '"', text)
    prefix, has_prefix, _ = text.partition("#")
    key = prefix.upper() if has_prefix and not prefix.isdigit() else ""  # `16#..` is a base
    if key in _DURATION_PREFIX:
        return ast.DurationLit(pos, 0, _DURATION_PREFIX[key], text)
    if key in _DATE_PREFIX:
        return ast.DateTimeLit(pos, 0, _DATE_PREFIX[key], text)
    if key in _REAL_TYPES or (not key and _REAL.match(text) and not _DECIMAL.match(text)):
        return ast.RealLit(pos, 0.0, key or None, text)
    return ast.IntLit(pos, 0, key or None, text)


def _classify(text: str, pos: ast.Pos, warn: Callable[[str], None]) -> ast.Expr:
    first = text[0]
    if first == "'" or first == '"':
        return ast.StringLit(pos, decode_string(text), first == '"', text)
    upper = text.upper()
    if upper in ("TRUE", "FALSE"):
        return ast.BoolLit(pos, upper == "TRUE", text)
    if "#" not in text or _BASED.match(text):
        return _number(text, pos, None)
    prefix, _, rest = text.partition("#")
    prefix_key = prefix.upper()
    if prefix_key in _DURATION_PREFIX:
        kind = _DURATION_PREFIX[prefix_key]
        return ast.DurationLit(pos, parse_duration(rest, kind, warn), kind, text)
    if prefix_key in _DATE_PREFIX:
        kind = _DATE_PREFIX[prefix_key]
        return ast.DateTimeLit(pos, parse_date_time(rest, kind, warn, len(prefix) + 1), kind, text)
    if prefix_key == "BOOL" and rest.upper() in _BOOL_VALUES:
        return ast.BoolLit(pos, _BOOL_VALUES[rest.upper()], text)
    if _NAME.match(rest):
        return ast.EnumValueLit(pos, prefix, rest)
    node = _number(rest, pos, prefix_key, len(prefix) + 1)
    node.text = text
    if prefix_key in _REAL_TYPES and isinstance(node, ast.IntLit):
        return ast.RealLit(pos, float(node.value), prefix_key, text)
    if isinstance(node, ast.RealLit) and prefix_key not in _REAL_TYPES:
        raise LiteralError(f"real value in a {prefix_key}# literal", len(prefix) + 1)
    return node


def _number(text: str, pos: ast.Pos, prefix: str | None, offset: int = 0) -> ast.Expr:
    sign = 1
    body = text
    if body[:1] in "+-":
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
        offset += 1
    based = _BASED.match(body)
    if based:
        value = sign * parse_based(based.group(1), based.group(2), offset)
    elif _DECIMAL.match(body):
        value = sign * int(body.replace("_", ""))
    elif _REAL.match(body):
        real = float(body.replace("_", ""))
        if math.isinf(real):
            raise LiteralError("real literal out of range", offset)
        return ast.RealLit(pos, sign * real, prefix, text)
    else:
        raise LiteralError(f"malformed numeric literal '{text}'", offset)
    if abs(value) > _MAX_INTEGER:
        raise LiteralError("integer literal too large (more than 64 bits)", offset)
    return ast.IntLit(pos, value, prefix, text)


def parse_based(base_text: str, digits: str, offset: int = 0) -> int:
    """`16#FF_FF` -> 65535; only bases 2, 8 and 16 exist in ST."""
    base = int(base_text)
    if base not in (2, 8, 16):
        raise LiteralError(f"invalid base {base} (use 2#, 8# or 16#)", offset)
    clean = digits.replace("_", "")
    try:
        if not clean:
            raise ValueError
        return int(clean, base)
    except ValueError:
        raise LiteralError(f"invalid digits '{digits}' for base {base}", offset) from None


def parse_duration(body: str, kind: str, warn: Callable[[str], None]) -> int:
    """`1h_30m`, `-1.5s` -> milliseconds (TIME) or nanoseconds (LTIME)."""
    sign = 1
    text = body
    if text[:1] in "+-":
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    total = Fraction(0)
    last_rank = -1
    pos = 0
    parts = 0
    while pos < len(text):
        m = _DURATION_PART.match(text, pos)
        if m is None:
            raise LiteralError(f"malformed duration literal '{body}'")
        number, unit = m.group(1).replace("_", ""), m.group(2).upper()
        rank = _UNIT_ORDER.index(unit)
        if rank <= last_rank:
            raise LiteralError(f"duration units out of order or repeated in '{body}'")
        if "." in number and m.end() < len(text):
            raise LiteralError(f"only the last unit of a duration may have a fraction ('{body}')")
        amount = Fraction(number)
        if parts and unit in _UNIT_LIMIT and amount >= _UNIT_LIMIT[unit]:
            warn(f"duration literal '{body}': {unit.lower()} value {number} exceeds its range")
        total += amount * _UNIT_NS[unit]
        last_rank = rank
        parts += 1
        pos = m.end()
    if parts == 0:
        raise LiteralError(f"malformed duration literal '{body}'")
    scale = 10**6 if kind == "TIME" else 1
    value = total / scale
    whole = math.trunc(value)
    if value != whole:
        unit = "millisecond" if kind == "TIME" else "nanosecond"
        warn(f"sub-{unit} part of {kind} literal '{body}' truncated toward zero")
    return sign * whole


def parse_date_time(body: str, kind: str, warn: Callable[[str], None], offset: int = 0) -> int:
    """DATE / DT -> seconds since 1970-01-01; TOD -> milliseconds since midnight."""
    if kind == "TOD":
        return _time_of_day_ms(body, warn, offset)
    if kind == "DATE":
        return _date_seconds(body, offset)
    date_part, sep, tod_part = body.rpartition("-") if body.count("-") == 3 else ("", "", "")
    if not sep:
        raise LiteralError(f"malformed DT literal '{body}' (expected YYYY-MM-DD-hh:mm:ss)", offset)
    return _date_seconds(date_part, offset) + _time_of_day_ms(tod_part, warn, offset) // 1000


def _date_seconds(text: str, offset: int) -> int:
    m = _DATE.match(text)
    if not m:
        raise LiteralError(f"malformed date '{text}' (expected YYYY-MM-DD)", offset)
    year, month, day = (int(g) for g in m.groups())
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]):
        raise LiteralError(f"invalid date '{text}'", offset)
    return calendar.timegm((year, month, day, 0, 0, 0, 0, 0, 0))


def _time_of_day_ms(text: str, warn: Callable[[str], None], offset: int) -> int:
    m = _TOD.match(text)
    if not m:
        raise LiteralError(f"malformed time of day '{text}' (expected hh:mm:ss)", offset)
    hours, minutes = int(m.group(1)), int(m.group(2))
    seconds = Fraction(m.group(3) or "0")
    if hours > 23 or minutes > 59 or seconds >= 60:
        raise LiteralError(f"invalid time of day '{text}'", offset)
    ms = (hours * 3600 + minutes * 60 + seconds) * 1000
    if ms != math.trunc(ms):
        warn(f"sub-millisecond part of time of day '{text}' truncated toward zero")
    return math.trunc(ms)


def decode_string(text: str) -> str:
    """Decode a quoted STRING ('...') or WSTRING ("...") literal with its `$` escapes."""
    quote = text[0]
    wide = quote == '"'
    body = text[1:-1]
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        ch = body[i]
        if ch != "$":
            if not wide and ord(ch) > 255:
                raise LiteralError(f"character {ch!r} is not representable in a STRING (Latin-1)", i + 1)
            out.append(ch)
            i += 1
            continue
        esc = body[i + 1 : i + 2]
        digits = 4 if wide else 2
        hex_text = body[i + 1 : i + 1 + digits]
        if esc.upper() in _STRING_ESCAPES:
            out.append(_STRING_ESCAPES[esc.upper()])
            i += 2
        elif esc == quote:
            out.append(quote)
            i += 2
        elif len(hex_text) == digits and set(hex_text) <= _HEX:
            out.append(chr(int(hex_text, 16)))
            i += 1 + digits
        else:
            raise LiteralError(f"invalid escape '${esc}' in string literal", i + 1)
    return "".join(out)
