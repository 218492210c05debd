"""Integer and bit-string helpers: store wrap, truncating division, ABS, shifts, bit access.

Values arrive as int64 (every integer type except ULINT/LWORD) or uint64 (ULINT/LWORD), the
widths at which ST integer expressions are evaluated (§6.3 [D] D2). Wrap helpers narrow a
value to a storage type at a store (§5.3) and return int64 (uint64 for ULINT/LWORD).

Bit-pattern helpers (shifts, rotates, `set_bit`) return the pattern as uint64 holding
exactly `width` low bits; the caller narrows it with the wrap helper of the operand's type,
which also gives signed types their value (`wrap_int(shl(.., 16#4000, 1, 16))` = -32768).

Python's `//` and `%` floor; ST truncates toward zero, so generated code calls `div_int`
/ `mod_int` and never uses those operators on integers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from stc.runtime.errors import DIV_ZERO, SHIFT_NEG, raise_error

_ALL_ONES = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
_ONE = np.uint64(1)

_jit = njit(cache=True, error_model="numpy")


# --- store wrap (§5.3): keep the low bits, reinterpret in the target type -----------------


@_jit
def wrap_sint(x):
    return np.int64(np.int8(x))


@_jit
def wrap_int(x):
    return np.int64(np.int16(x))


@_jit
def wrap_dint(x):
    return np.int64(np.int32(x))


@_jit
def wrap_lint(x):
    return np.int64(x)


@_jit
def wrap_usint(x):
    return np.int64(np.uint8(x))


@_jit
def wrap_uint(x):
    return np.int64(np.uint16(x))


@_jit
def wrap_udint(x):
    return np.int64(np.uint32(x))


@_jit
def wrap_ulint(x):
    return np.uint64(x)


# Bit strings store exactly like the unsigned type of their width.
wrap_byte = wrap_usint
wrap_word = wrap_uint
wrap_dword = wrap_udint
wrap_lword = wrap_ulint


@_jit
def to_bool(x):
    """number -> BOOL (§5.2): `x <> 0` as the 0/1 integer generated code uses for BOOL."""
    return np.int64(x != 0)


# --- arithmetic (§6.3) -----------------------------------------------------------------


@_jit
def div_int(err, loc, a, b):
    """Signed `/` truncating toward zero; DIV_ZERO on b = 0; LINT_MIN / -1 wraps."""
    a = np.int64(a)
    b = np.int64(b)
    if b == 0:
        raise_error(err, DIV_ZERO, loc)
        return np.int64(0)
    if b == -1:
        return -a  # the one quotient that overflows int64; hardware division would trap
    q = a // b  # floor; corrected below to truncation
    r = a - q * b
    return q + np.int64((r != 0) & ((a ^ b) < 0))


@_jit
def mod_int(err, loc, a, b):
    """Signed MOD = a - (a / b) * b, sign of the dividend; DIV_ZERO on b = 0."""
    a = np.int64(a)
    b = np.int64(b)
    if b == 0:
        raise_error(err, DIV_ZERO, loc)
        return np.int64(0)
    if b == -1:
        return np.int64(0)
    q = a // b
    r = a - q * b
    fix = np.int64((r != 0) & ((a ^ b) < 0))
    return r - fix * b


@_jit
def div_ulint(err, loc, a, b):
    """ULINT/LWORD `/` (unsigned, so floor = truncation); DIV_ZERO on b = 0."""
    a = np.uint64(a)
    b = np.uint64(b)
    if b == 0:
        raise_error(err, DIV_ZERO, loc)
        return np.uint64(0)
    return a // b


@_jit
def mod_ulint(err, loc, a, b):
    a = np.uint64(a)
    b = np.uint64(b)
    if b == 0:
        raise_error(err, DIV_ZERO, loc)
        return np.uint64(0)
    return a - (a // b) * b


@_jit
def abs_int(x):
    """ABS in int64, branch-free; the minimum of a narrower type wraps at its store."""
    x = np.int64(x)
    s = x >> 63
    return (x ^ s) - s


@_jit
def cmp_ulint_lint(a, b):
    """Exact three-way comparison of a ULINT with a signed value (-1, 0, 1).

    Numba compares uint64 with int64 through float64, which is inexact above 2^53.
    """
    a = np.uint64(a)
    b = np.int64(b)
    if b < 0:
        return np.int64(1)
    bu = np.uint64(b)
    return np.int64(a > bu) - np.int64(a < bu)


# --- shifts and rotations (§6.7): exactly `width` bits, logical on signed types [D13] ----


@_jit
def bit_mask(width):
    """The low `width` bits set (width 1..64)."""
    return _ALL_ONES >> np.uint64(64 - width)


@_jit
def shl(err, loc, x, n, width):
    if n < 0:
        raise_error(err, SHIFT_NEG, loc)
    inside = (n >= 0) & (n < width)
    k = np.uint64(n * inside)
    mask = bit_mask(width)
    return (((np.uint64(x) & mask) << k) & mask) * np.uint64(inside)


@_jit
def shr(err, loc, x, n, width):
    if n < 0:
        raise_error(err, SHIFT_NEG, loc)
    inside = (n >= 0) & (n < width)
    k = np.uint64(n * inside)
    mask = bit_mask(width)
    return ((np.uint64(x) & mask) >> k) * np.uint64(inside)


@_jit
def _rotate_count(err, loc, n, width):
    if n < 0:
        raise_error(err, SHIFT_NEG, loc)
    return np.uint64(n * (n >= 0)) % np.uint64(width)


@_jit
def rol(err, loc, x, n, width):
    k = _rotate_count(err, loc, n, width)
    mask = bit_mask(width)
    u = np.uint64(x) & mask
    # two shifts, so the count never reaches 64 (undefined in LLVM) when k = 0
    back = (u >> (np.uint64(width) - k - _ONE)) >> _ONE
    return ((u << k) | back) & mask


@_jit
def ror(err, loc, x, n, width):
    k = _rotate_count(err, loc, n, width)
    mask = bit_mask(width)
    u = np.uint64(x) & mask
    back = (u << (np.uint64(width) - k - _ONE)) << _ONE
    return ((u >> k) | back) & mask


# --- bit access (§6.6); n is a checked constant 0..width-1 ------------------------------


@_jit
def get_bit(x, n):
    """`v.n` as a 0/1 BOOL."""
    return np.int64((np.uint64(x) >> np.uint64(n)) & _ONE)


@_jit
def set_bit(x, n, value):
    """`v.n := value`: the new bit pattern (uint64); narrow with the type's wrap helper."""
    k = np.uint64(n)
    cleared = np.uint64(x) & ~(_ONE << k)
    return cleared | (np.uint64(value != 0) << k)
