"""STRING/WSTRING functions of §9 over fixed-capacity character buffers.

A string value is a pair (buf, n): `buf` a 1-D uint8 array (STRING, Latin-1 bytes) or
uint16 array (WSTRING, UTF-16 code units) whose size is the capacity, and `n` the
current length 0..buf.size. A STRING(80) variable is an 80-cell buffer plus a length
cell. Every function writes its result into a caller-supplied `dst` buffer and returns
the result length; the result is truncated to dst.size, which is the store rule of §5.2
when `dst` is the target variable. `dst` must not share memory with any source: the code
generator builds results in scratch buffers and copies with `s_assign`.

Positions are 1-based as in ST; out-of-range arguments follow the §9 table exactly
(nothing here raises a runtime error).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_jit = njit(cache=True, error_model="numpy")
_ZERO = np.int64(0)  # not a bare 0: a literal argument would compile a specialisation per value


@_jit
def _put(dst, at, src, start, count):
    """Copy src[start:start+count] to dst[at:], clipped to the capacity; new end of dst."""
    k = max(min(count, dst.size - at), 0)
    for i in range(k):
        dst[at + i] = src[start + i]
    return at + k


@_jit
def s_assign(dst, src, n):
    """Store src into dst, truncated to dst's capacity."""
    return _put(dst, _ZERO, src, _ZERO, n)


@_jit
def s_narrow(dst, src, n):
    """WSTRING -> STRING: code units above 255 (not Latin-1) become '?' [decision].

    STRING -> WSTRING needs no helper: `s_assign` into a uint16 buffer widens each byte.
    """
    k = max(min(n, dst.size), 0)
    for i in range(k):
        c = src[i]
        dst[i] = c if c <= 255 else 63
    return k


@_jit
def s_left(dst, s, n, count):
    """LEFT(s, L): the first min(L, LEN) characters; L <= 0 gives ''."""
    return _put(dst, _ZERO, s, _ZERO, min(max(count, 0), n))


@_jit
def s_right(dst, s, n, count):
    """RIGHT(s, L): the last min(L, LEN) characters; L <= 0 gives ''."""
    k = min(max(count, 0), n)
    return _put(dst, _ZERO, s, n - k, k)


@_jit
def s_mid(dst, s, n, count, pos):
    """MID(s, L, P): L characters from P; P outside 1..LEN gives ''; clipped at the end."""
    if (pos < 1) | (pos > n) | (count <= 0):
        return 0
    return _put(dst, _ZERO, s, pos - 1, min(count, n - pos + 1))


@_jit
def s_concat(dst, a, an, b, bn):
    """CONCAT(a, b); more arguments chain through a scratch buffer."""
    return _put(dst, _put(dst, _ZERO, a, _ZERO, an), b, _ZERO, bn)


@_jit
def s_insert(dst, a, an, b, bn, pos):
    """INSERT(a, b, P): b after character P of a, P clipped to 0..LEN(a)."""
    p = min(max(pos, 0), an)
    end = _put(dst, _ZERO, a, _ZERO, p)
    end = _put(dst, end, b, _ZERO, bn)
    return _put(dst, end, a, p, an - p)


@_jit
def s_delete(dst, s, n, count, pos):
    """DELETE(s, L, P): remove L characters from P; P outside 1..LEN leaves s unchanged."""
    if (pos < 1) | (pos > n):
        return _put(dst, _ZERO, s, _ZERO, n)
    k = min(max(count, 0), n - pos + 1)
    end = _put(dst, _ZERO, s, _ZERO, pos - 1)
    return _put(dst, end, s, pos - 1 + k, n - (pos - 1 + k))


@_jit
def s_replace(dst, a, an, b, bn, count, pos):
    """REPLACE(a, b, L, P) = INSERT(DELETE(a, L, P), b, P - 1); P outside 1..LEN: a."""
    if (pos < 1) | (pos > an):
        return _put(dst, _ZERO, a, _ZERO, an)
    k = min(max(count, 0), an - pos + 1)
    end = _put(dst, _ZERO, a, _ZERO, pos - 1)
    end = _put(dst, end, b, _ZERO, bn)
    return _put(dst, end, a, pos - 1 + k, an - (pos - 1 + k))


@_jit
def s_find(a, an, b, bn):
    """FIND(a, b): 1-based position of the first occurrence of b in a; 0 if none or b = ''."""
    if bn == 0:
        return 0
    for i in range(an - bn + 1):
        j = 0
        while (j < bn) and (a[i + j] == b[j]):
            j += 1
        if j == bn:
            return i + 1
    return 0


@_jit
def s_compare(a, an, b, bn):
    """Byte-wise (code-unit-wise) lexicographic order: -1, 0 or 1 (§6.4)."""
    for i in range(min(an, bn)):
        if a[i] != b[i]:
            return np.int64(a[i] > b[i]) - np.int64(a[i] < b[i])
    return np.int64(an > bn) - np.int64(an < bn)


# --- Python-side glue: literals into data arrays, buffers back to text -----------------


def string_buffer(text: str, capacity: int | None = None, wide: bool = False) -> np.ndarray:
    """A STRING (Latin-1) or WSTRING (UTF-16) buffer holding `text`, e.g. for literal data.

    Raises ValueError for characters a STRING cannot hold (the parser rejects them first).
    """
    if wide:
        units = np.frombuffer(text.encode("utf-16-le"), dtype=np.uint16)
    else:
        units = np.frombuffer(text.encode("latin-1"), dtype=np.uint8)
    size = units.size if capacity is None else capacity
    buf = np.zeros(size, dtype=units.dtype)
    n = min(units.size, size)
    buf[:n] = units[:n]
    return buf


def buffer_text(buf: np.ndarray, n: int) -> str:
    """The text of the first n characters of a STRING/WSTRING buffer."""
    if buf.dtype == np.uint16:
        return buf[:n].tobytes().decode("utf-16-le", errors="replace")
    return buf[:n].tobytes().decode("latin-1")
