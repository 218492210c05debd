"""Conversions to and from STRING (§5.2) and BCD conversions, callable from njit code.

Text conversions write into a STRING/WSTRING buffer (`strings.py` conventions) and return
the length, truncated to the buffer's capacity; parsing reads (buf, n). Integer, BOOL and
duration text is produced and parsed natively (`textparse.py`). REAL text and REAL parsing
follow `textforms.py` and run in `numba.objmode` (see there why); loading such a helper
from the cache costs ~0.2 s once per process, so only programs that use them pay it.
Invalid text gives 0 plus a BAD_NUMBER_TEXT warning-level diagnostic, never a stop (§5.2).
BCD conversions are native: an invalid BCD input or an unencodable value gives 0 plus a
BAD_BCD warning [decision: §5.2 does not say].
"""

from __future__ import annotations

import numpy as np
from numba import njit, objmode

from stc.runtime import textforms, textparse
from stc.runtime.errors import BAD_BCD, BAD_NUMBER_TEXT, raise_warning

_jit = njit(cache=True, error_model="numpy")


def _store_text(dst: np.ndarray, text: str) -> int:
    """Write text into a STRING (Latin-1) or WSTRING (UTF-16) buffer; returns the length."""
    if dst.dtype == np.uint16:
        units = np.frombuffer(text.encode("utf-16-le"), dtype=np.uint16)
    else:
        units = np.frombuffer(text.encode("latin-1", errors="replace"), dtype=np.uint8)
    n = min(units.size, dst.size)
    dst[:n] = units[:n]
    return n


def _load_text(buf: np.ndarray, n: int) -> str:
    if buf.dtype == np.uint16:
        return buf[:n].tobytes().decode("utf-16-le", errors="replace")
    return buf[:n].tobytes().decode("latin-1")


# --- to text: integers, BOOL and durations natively (objmode costs ~0.2 s per process) ----

_ZERO = np.int64(0)  # typed: a bare literal argument would compile a specialisation per value
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U10 = np.uint64(10)
_U48 = np.uint64(48)  # '0'
_MINUS = np.uint64(45)  # '-'
_TRUE_TEXT = np.frombuffer(b"TRUE", dtype=np.uint8)
_FALSE_TEXT = np.frombuffer(b"FALSE", dtype=np.uint8)
_TIME_PREFIX = np.frombuffer(b"T#", dtype=np.uint8)
_LTIME_PREFIX = np.frombuffer(b"LTIME#", dtype=np.uint8)
# Duration units largest first: d h m s ms us ns; TIME uses the first five (in ms).
_UNIT_TEXT = np.frombuffer(b"dhmsmsusns", dtype=np.uint8)
_UNIT_START = np.array([0, 1, 2, 3, 4, 6, 8, 10], dtype=np.int64)
_MS_UNITS = np.array([86_400_000, 3_600_000, 60_000, 1_000, 1], dtype=np.uint64)
_NS_UNITS = np.array(
    [86_400 * 10**9, 3_600 * 10**9, 60 * 10**9, 10**9, 10**6, 10**3, 1], dtype=np.uint64
)


@_jit
def _put_char(dst, at, c):
    """Write one character if it fits; positions past the capacity are only counted."""
    if at < dst.size:
        dst[at] = c
    return at + 1


@_jit
def _put_chars(dst, at, chars):
    for i in range(chars.size):
        at = _put_char(dst, at, chars[i])
    return at


@_jit
def _put_digits(dst, at, mag):
    """Decimal digits of a uint64, most significant first."""
    digits = 1
    rest = mag
    while rest >= _U10:
        rest = rest // _U10
        digits += 1
    for i in range(digits):
        pos = at + digits - 1 - i
        if pos < dst.size:
            dst[pos] = _U48 + mag % _U10
        mag = mag // _U10
    return at + digits


@_jit
def _magnitude(x):
    """|x| as uint64 (exact also for the most negative int64) and whether x < 0."""
    negative = x < 0
    mag = np.uint64(x)
    if negative:
        mag = ~mag + _U1
    return mag, negative


@_jit
def int_to_text(dst, x):
    """Any integer or bit string (int64 or uint64) -> decimal text, '-' for negatives."""
    mag, negative = _magnitude(x)
    at = _ZERO
    if negative:
        at = _put_char(dst, at, _MINUS)
    return min(_put_digits(dst, at, mag), dst.size)


@_jit
def bool_to_text(dst, b):
    """BOOL -> 'TRUE' / 'FALSE'."""
    if b != 0:
        return min(_put_chars(dst, _ZERO, _TRUE_TEXT), dst.size)
    return min(_put_chars(dst, _ZERO, _FALSE_TEXT), dst.size)


@_jit
def _duration_text(dst, t, prefix, units):
    mag, negative = _magnitude(np.int64(t))
    at = _put_chars(dst, _ZERO, prefix)
    if negative:
        at = _put_char(dst, at, _MINUS)
    written = 0
    for i in range(units.size):
        count = mag // units[i]
        mag = mag - count * units[i]
        if count != _U0:
            at = _put_digits(dst, at, count)
            at = _put_chars(dst, at, _UNIT_TEXT[_UNIT_START[i] : _UNIT_START[i + 1]])
            written += 1
    if written == 0:  # 'T#0ms' / 'LTIME#0ns'
        last = units.size - 1
        at = _put_char(dst, at, _U48)
        at = _put_chars(dst, at, _UNIT_TEXT[_UNIT_START[last] : _UNIT_START[last + 1]])
    return min(at, dst.size)


@_jit
def time_to_text(dst, t):
    """TIME (ms) -> 'T#1s500ms' (CODESYS format, zero units omitted, 'T#0ms' for zero)."""
    return _duration_text(dst, t, _TIME_PREFIX, _MS_UNITS)


@_jit
def ltime_to_text(dst, t):
    """LTIME (ns) -> 'LTIME#1ms5us' [decision: §5.2 gives only the TIME format]."""
    return _duration_text(dst, t, _LTIME_PREFIX, _NS_UNITS)


@_jit
def real_to_text(dst, x):
    """REAL -> shortest text that round-trips in binary32."""
    with objmode(n="int64"):
        n = _store_text(dst, textforms.real_text(float(x), True))
    return n


@_jit
def lreal_to_text(dst, x):
    """LREAL -> shortest text that round-trips in binary64."""
    with objmode(n="int64"):
        n = _store_text(dst, textforms.real_text(float(x), False))
    return n


# --- from text -------------------------------------------------------------------------


_INT64_MAX = np.uint64(2**63 - 1)


@_jit
def text_to_int(err, loc, buf, n):
    """STRING -> any integer type except ULINT/LWORD: the int64 value, narrowed by the
    caller's wrap helper at the store; text outside int64 is invalid."""
    start, end = textparse.trim(buf, n)
    ok, negative, mag = textparse.parse_int(buf, start, end)
    if (not ok) or (mag > _INT64_MAX + np.uint64(negative)):
        raise_warning(err, BAD_NUMBER_TEXT, loc)
        return _ZERO
    value = np.int64(mag)
    if negative:
        value = -value
    return value


@_jit
def text_to_ulint(err, loc, buf, n):
    """STRING -> ULINT/LWORD (uint64); negative text down to -2^63 wraps like any store."""
    start, end = textparse.trim(buf, n)
    ok, negative, mag = textparse.parse_int(buf, start, end)
    if (not ok) or (negative and (mag > _INT64_MAX + _U1)):
        raise_warning(err, BAD_NUMBER_TEXT, loc)
        return _U0
    if negative:
        mag = ~mag + _U1
    return mag


@_jit
def text_to_bool(err, loc, buf, n):
    """STRING -> BOOL: TRUE, FALSE, 1, 0, BOOL#1, BOOL#0 (case-insensitive)."""
    start, end = textparse.trim(buf, n)
    ok, value = textparse.parse_bool(buf, start, end)
    if not ok:
        raise_warning(err, BAD_NUMBER_TEXT, loc)
    return value


@_jit
def text_to_duration(err, loc, buf, n, ltime):
    """STRING -> TIME (ms, ltime = 0) or LTIME (ns, ltime = 1) from `T#...` text."""
    start, end = textparse.trim(buf, n)
    ok, value = textparse.parse_duration(buf, start, end, ltime)
    if not ok:
        raise_warning(err, BAD_NUMBER_TEXT, loc)
    return value


@_jit
def text_to_real(err, loc, buf, n):
    """STRING -> LREAL (float64); STRING_TO_REAL rounds the result with np.float32."""
    with objmode(ok="int64", v="float64"):
        parsed = textforms.parse_real(_load_text(buf, n))
        ok, v = (0, 0.0) if parsed is None else (1, parsed)
    if ok == 0:
        raise_warning(err, BAD_NUMBER_TEXT, loc)
    return v


# --- BCD (BYTE/WORD/DWORD <-> USINT/UINT/UDINT) ------------------------------------------


@_jit
def bcd_to_int(err, loc, x, width):
    """*_BCD_TO_*: decode `width` bits of packed BCD digits."""
    x = np.int64(x)
    value = np.int64(0)
    scale = np.int64(1)
    bad = np.int64(0)
    for i in range(width // 4):
        digit = (x >> (4 * i)) & 15
        bad |= np.int64(digit > 9)
        value += digit * scale
        scale *= 10
    if bad != 0:
        raise_warning(err, BAD_BCD, loc)
        return np.int64(0)
    return value


@_jit
def int_to_bcd(err, loc, x, width):
    """*_TO_BCD*: encode 0 .. 10^(width/4)-1 as packed BCD in `width` bits."""
    x = np.int64(x)
    digits = width // 4
    limit = np.int64(1)
    for _ in range(digits):
        limit *= 10
    if (x < 0) | (x >= limit):
        raise_warning(err, BAD_BCD, loc)
        return np.int64(0)
    out = np.int64(0)
    for i in range(digits):
        out |= (x % 10) << (4 * i)
        x = x // 10
    return out
