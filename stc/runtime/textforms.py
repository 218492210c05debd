"""Text forms of ST values (§5.2) in plain Python: REAL -> text, text -> number/BOOL/TIME.

The REAL functions run inside `numba.objmode` blocks of `convert.py`: Python's exact float
formatting and parsing (shortest round-trip text, correctly rounded decimal input) are
not worth re-implementing in njit. The integer, BOOL and duration parsers state the rules
readably and are the oracle that the native parsers of `textparse.py` are tested against.
Parsing uses regular expressions only; no text is ever evaluated.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np

# Integer types accepted as a typed-literal prefix (`INT#5`, `WORD#16#FF`).
_INT_TYPES = "SINT|INT|DINT|LINT|USINT|UINT|UDINT|ULINT|BYTE|WORD|DWORD|LWORD"
_DEC = r"\d(?:_?\d)*"
_INT_BODY = (
    rf"(?P<sign>[+-]?)(?:(?P<base>2|8|16)#(?P<digits>[0-9a-f](?:_?[0-9a-f])*)|(?P<dec>{_DEC}))"
)
_INT_RE = re.compile(rf"(?:(?:{_INT_TYPES})#)?{_INT_BODY}", re.IGNORECASE | re.ASCII)
_REAL_RE = re.compile(
    rf"(?:(?:REAL|LREAL)#)?(?P<num>[+-]?{_DEC}(?:\.{_DEC})?(?:e[+-]?{_DEC})?)",
    re.IGNORECASE | re.ASCII,
)
_TIME_RE = re.compile(
    r"(?P<prefix>T|TIME|LT|LTIME)#(?P<sign>[+-]?)(?P<body>.+)", re.IGNORECASE | re.ASCII
)
_TIME_PART_RE = re.compile(rf"({_DEC}(?:\.{_DEC})?)(ms|us|ns|d|h|m|s)_?", re.IGNORECASE | re.ASCII)
_BLANKS = " \t\r\n"
_BOOL_TEXT = {"TRUE": 1, "FALSE": 0, "1": 1, "0": 0, "BOOL#1": 1, "BOOL#0": 0}

# Units in nanoseconds, largest first; the text form uses them in this order.
_UNIT_NS = {"d": 86_400 * 10**9, "h": 3_600 * 10**9, "m": 60 * 10**9, "s": 10**9,
            "ms": 10**6, "us": 10**3, "ns": 1}  # fmt: skip


def real_text(x: float, single: bool) -> str:
    """Shortest text that round-trips in binary32 (`single`) or binary64.

    Plain decimal for 1E-6 <= |x| < 1E15 ('1.5', '0.1', '100'), otherwise an exponent
    ('1E+20', '2.5E-07'); 'NaN', 'INF', '-INF' for the IEEE specials [decision].
    """
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "INF" if x > 0 else "-INF"
    v = np.float32(x) if single else np.float64(x)
    if v == 0:
        return "0"
    scientific = np.format_float_scientific(v, unique=True, trim="-", exp_digits=2).upper()
    exponent = int(scientific.rsplit("E", 1)[1])  # of the shortest digits, not of the binary value
    if -6 <= exponent < 15:
        return np.format_float_positional(v, unique=True, trim="-")
    return scientific


def parse_int(text: str) -> int | None:
    """Decimal, based or typed-literal integer text, blanks around ignored; None if invalid."""
    m = _INT_RE.fullmatch(text.strip(_BLANKS))
    if m is None:
        return None
    if m["base"]:
        base = int(m["base"])
        digits = m["digits"].replace("_", "")
        if any(int(c, 16) >= base for c in digits):
            return None
        value = int(digits, base)
    else:
        value = int(m["dec"].replace("_", ""))
    return -value if m["sign"] == "-" else value


def parse_real(text: str) -> float | None:
    """Real or integer text (`1.5`, `-2.5E3`, `REAL#1`, `16#FF`) as a float; None if invalid."""
    stripped = text.strip(_BLANKS)
    m = _REAL_RE.fullmatch(stripped)
    if m is not None:
        return float(m["num"].replace("_", ""))
    value = parse_int(stripped)
    return None if value is None else float(value)


def parse_bool(text: str) -> int | None:
    return _BOOL_TEXT.get(text.strip(_BLANKS).upper())


def parse_duration(text: str, ltime: bool) -> int | None:
    """`T#1s500ms`-style text in ms (TIME) or ns (LTIME), truncated toward zero."""
    m = _TIME_RE.fullmatch(text.strip(_BLANKS))
    if m is None:
        return None
    body = m["body"]
    total = Fraction(0)
    pos = 0
    last_rank = -1
    ranks = list(_UNIT_NS)
    while pos < len(body):
        part = _TIME_PART_RE.match(body, pos)
        if part is None:
            return None
        unit = part[2].lower()
        rank = ranks.index(unit)
        if rank <= last_rank:  # units must go from larger to smaller
            return None
        number = part[1].replace("_", "")
        if "." in number and part.end() != len(body):  # only the last unit may be fractional
            return None
        total += Fraction(number) * _UNIT_NS[unit]
        last_rank = rank
        pos = part.end()
    scaled = total / (1 if ltime else 10**6)
    value = math.trunc(scaled)
    return -value if m["sign"] == "-" else value
