"""Native (njit) parsers for integer, BOOL and duration text of §5.2.

They accept what `textforms.parse_int`, `parse_bool` and `parse_duration` accept (those
state the rules readably and are the tests' oracle; durations here are also limited to
2^64 ns in total), without `numba.objmode`, whose cached load costs ~0.2 s per process
per helper. Each parser takes a character buffer and the half-open range [start, end) to
read, and returns an ok flag first; nothing here raises.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_jit = njit(cache=True, error_model="numpy")

_ZERO = np.int64(0)
_U0 = np.uint64(0)
_U_MAX = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
_INT_TYPE_NAMES = np.frombuffer(
    b"SINT INT DINT LINT USINT UINT UDINT ULINT BYTE WORD DWORD LWORD ", dtype=np.uint8
)
_BOOL_WORDS = np.frombuffer(b"TRUE FALSE 1 0 BOOL#1 BOOL#0 ", dtype=np.uint8)
_BOOL_VALUES = np.array([1, 0, 1, 0, 1, 0], dtype=np.int64)
_TIME_PREFIXES = np.frombuffer(b"T# TIME# LT# LTIME# ", dtype=np.uint8)
_UNIT_NS = np.array(
    [86_400 * 10**9, 3_600 * 10**9, 60 * 10**9, 10**9, 10**6, 10**3, 1], dtype=np.uint64
)
_NS_PER_MS = np.uint64(1_000_000)


@_jit
def _upper(c):
    return np.int64(c) - 32 * np.int64((c >= 97) & (c <= 122))


@_jit
def _is_digit(c):
    return (c >= 48) & (c <= 57)


@_jit
def _digit_value(c):
    """Value of a hex digit character, 99 for anything else."""
    u = _upper(c)
    if (u >= 48) & (u <= 57):
        return u - 48
    if (u >= 65) & (u <= 70):
        return u - 55
    return np.int64(99)


@_jit
def _is_blank(c):
    return (c == 32) | (c == 9) | (c == 10) | (c == 13)


@_jit
def trim(buf, n):
    """[start, end) of buf[:n] without leading and trailing blanks (space, tab, CR, LF)."""
    start = _ZERO
    end = np.int64(n)
    while (start < end) and _is_blank(buf[start]):
        start += 1
    while (end > start) and _is_blank(buf[end - 1]):
        end -= 1
    return start, end


@_jit
def _word_index(buf, start, end, words):
    """Index of buf[start:end] (case-insensitive) in a space-separated word list, or -1."""
    index = _ZERO
    w = _ZERO
    while w < words.size:
        stop = w
        while words[stop] != 32:
            stop += 1
        if stop - w == end - start:
            same = True
            for k in range(end - start):
                if _upper(buf[start + k]) != words[w + k]:
                    same = False
                    break
            if same:
                return index
        index += 1
        w = stop + 1
    return np.int64(-1)


@_jit
def _digits(buf, i, end, base):
    """Digits of `base` with single '_' between digits, from i up to the first non-digit.

    Returns (ok, next index, value); ok is False on overflow of uint64, an empty run or a
    misplaced '_'.
    """
    value = _U0
    count = 0
    ub = np.uint64(base)
    while i < end:
        c = buf[i]
        if c == 95:  # '_' only between two digits
            if (count == 0) or (i + 1 >= end) or (_digit_value(buf[i + 1]) >= base):
                return False, i, _U0
            i += 1
            continue
        d = _digit_value(c)
        if d >= base:
            break
        if value > (_U_MAX - np.uint64(d)) // ub:
            return False, i, _U0
        value = value * ub + np.uint64(d)
        count += 1
        i += 1
    return count > 0, i, value


@_jit
def parse_int(buf, start, end):
    """Decimal, based (`16#FF`) or typed (`INT#-5`) integer text.

    Returns (ok, negative, magnitude as uint64); the caller checks the range.
    """
    i = start
    j = start
    while (j < end) and ((_upper(buf[j]) >= 65) & (_upper(buf[j]) <= 90)):
        j += 1
    if (j > start) and (j < end) and (buf[j] == 35):  # 'NAME#' prefix
        if _word_index(buf, start, j, _INT_TYPE_NAMES) < 0:
            return False, False, _U0
        i = j + 1
    negative = False
    if (i < end) and ((buf[i] == 43) | (buf[i] == 45)):
        negative = buf[i] == 45
        i += 1
    if (i >= end) or not _is_digit(buf[i]):
        return False, False, _U0
    ok, i, value = _digits(buf, i, end, np.int64(10))
    if ok and (i < end) and (buf[i] == 35):  # based literal: base must be 2, 8 or 16
        if (value != 2) & (value != 8) & (value != 16):
            return False, False, _U0
        ok, i, value = _digits(buf, i + 1, end, np.int64(value))
    return ok and (i == end), negative, value


@_jit
def parse_bool(buf, start, end):
    """TRUE/FALSE/1/0/BOOL#1/BOOL#0 (case-insensitive): (ok, 0/1)."""
    k = _word_index(buf, start, end, _BOOL_WORDS)
    if k < 0:
        return False, _ZERO
    return True, _BOOL_VALUES[k]


@_jit
def _unit(buf, i, end):
    """Rank (0 = d .. 6 = ns) and length of the duration unit at i, or (-1, 0)."""
    c = _upper(buf[i]) if i < end else 0
    c2 = _upper(buf[i + 1]) if i + 1 < end else 0
    if c == 68:  # D
        return np.int64(0), np.int64(1)
    if c == 72:  # H
        return np.int64(1), np.int64(1)
    if (c == 77) & (c2 == 83):  # MS
        return np.int64(4), np.int64(2)
    if c == 77:  # M
        return np.int64(2), np.int64(1)
    if c == 83:  # S
        return np.int64(3), np.int64(1)
    if (c == 85) & (c2 == 83):  # US
        return np.int64(5), np.int64(2)
    if (c == 78) & (c2 == 83):  # NS
        return np.int64(6), np.int64(2)
    return np.int64(-1), np.int64(0)


@_jit
def _fraction_digits(buf, i, end):
    """End of a run of decimal digits with single '_' between (any length): (ok, end)."""
    count = 0
    while i < end:
        c = buf[i]
        if c == 95:
            if (count == 0) or (i + 1 >= end) or not _is_digit(buf[i + 1]):
                return False, i
            i += 1
            continue
        if not _is_digit(c):
            break
        count += 1
        i += 1
    return count > 0, i


@_jit
def parse_duration(buf, start, end, ltime):
    """`T#1d2h3m4s5ms` style text -> (ok, value) in ms (ltime = 0) or ns (ltime = 1).

    Units go from larger to smaller, `_` may follow a unit, only the last number may have
    a fraction; the total is truncated toward zero. Totals beyond ±2^64 ns are invalid.
    """
    j = start
    while (j < end) and (buf[j] != 35):
        j += 1
    if (j >= end) or (_word_index(buf, start, j + 1, _TIME_PREFIXES) < 0):
        return False, _ZERO
    i = j + 1
    negative = False
    if (i < end) and ((buf[i] == 43) | (buf[i] == 45)):
        negative = buf[i] == 45
        i += 1
    total = _U0
    last_rank = np.int64(-1)
    parts = 0
    while i < end:
        ok, i, whole = _digits(buf, i, end, np.int64(10))
        if not ok:
            return False, _ZERO
        frac_start = i
        frac_end = i
        if (i < end) and (buf[i] == 46):  # '.'
            ok, frac_end = _fraction_digits(buf, i + 1, end)
            if not ok:
                return False, _ZERO
            frac_start = i + 1
            i = frac_end
        rank, length = _unit(buf, i, end)
        if (rank <= last_rank) or (length == 0):
            return False, _ZERO
        i += length
        if (i < end) and (buf[i] == 95):  # '_' after a unit
            i += 1
        if (frac_end > frac_start) and (i != end):
            return False, _ZERO  # only the last number may have a fraction
        size = _UNIT_NS[rank]
        if whole > (_U_MAX - total) // size:
            return False, _ZERO
        total += whole * size
        # fraction digits right to left: acc = floor((acc + d * size) / 10), exact floor
        acc = _U0
        for k in range(frac_end - 1, frac_start - 1, -1):
            if buf[k] != 95:
                acc = (acc + np.uint64(buf[k] - 48) * size) // np.uint64(10)
        if acc > _U_MAX - total:
            return False, _ZERO
        total += acc
        last_rank = rank
        parts += 1
    if parts == 0:
        return False, _ZERO
    value = total if ltime != 0 else total // _NS_PER_MS
    if value > np.uint64(2**63) - np.uint64(1 - negative):
        return False, _ZERO
    signed = np.int64(value)
    if negative:
        signed = -signed
    return True, signed
