"""Constant folding with exact ST semantics (ST_LANGUAGE.md §5.3, §6.3-§6.8).

Integers are computed exactly in 64 bits and wrapped only on store; integer division
truncates toward zero; REAL is rounded to binary32 after every operation (numpy.float32);
TIME is a signed count of ms. Anything that would be a runtime error (division by zero,
out-of-range conversion) is left unfolded (`NOT_CONST`) so the runtime reports it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from stc import types as T
from stc.ast import NOT_CONST


def wrap(value: int, t: T.Type) -> int:
    """Store rule: reduce an integer modulo 2^width into the range of `t`."""
    t = T.base_of(t)
    if isinstance(t, T.EnumType):
        t = t.base or T.INT
    if not isinstance(t, T.ElementaryType) or t.cls not in (T.SIGNED, T.UNSIGNED, T.BIT):
        return value
    mask = (1 << t.size) - 1
    v = value & mask
    if t.signed and v >> (t.size - 1):
        v -= 1 << t.size
    return v


def _wrap64(value: int, unsigned: bool) -> int:
    return wrap(value, T.ULINT if unsigned else T.LINT)


def trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def trunc_mod(a: int, b: int) -> int:
    return a - trunc_div(a, b) * b


def round_even(x: float) -> int:
    return int(round(x))  # Python's round() is ties-to-even


def as_real(value: Any, t: T.Type) -> Any:
    """A number as the Python value of REAL (float32) or LREAL (float)."""
    if T.base_of(t) is T.REAL:
        return np.float32(value)
    return float(value)


def store(value: Any, t: T.Type) -> Any:
    """Convert a folded value into the representation of the target type on store."""
    if value is NOT_CONST:
        return value
    b = T.base_of(t)
    if isinstance(b, T.ElementaryType):
        if b.cls == T.REAL_CLS:
            return as_real(value, b) if isinstance(value, int | float | np.floating) else value
        if b.cls in (T.SIGNED, T.UNSIGNED, T.BIT) and isinstance(value, int):
            return wrap(int(value), b)
        if b is T.BOOL and isinstance(value, int | bool):
            return bool(value)
    if isinstance(b, T.EnumType) and isinstance(value, int):
        return wrap(value, b)
    if isinstance(b, T.StringType) and isinstance(value, str):
        return value[: b.length]
    return value


def repeat(value: Any, n: int) -> list[Any]:
    """n copies of an initial value: scalars shared, containers copied (arrays can be large)."""
    if n <= 0:
        return []
    if isinstance(value, list | dict):
        return [value] + [_clone(value) for _ in range(n - 1)]
    return [value] * n


def _clone(value: Any) -> Any:
    """Copy of a nested list/dict value; scalars are immutable and shared."""
    if isinstance(value, dict):
        return {k: _clone(v) if isinstance(v, list | dict) else v for k, v in value.items()}
    if isinstance(value, list):
        if value and isinstance(value[0], list | dict):
            return [_clone(v) for v in value]
        return list(value)
    return value


def default_value(t: T.Type) -> Any:
    """§2.2 defaults for a type without initializer (FB instances: see declare)."""
    if isinstance(t, T.SubrangeType):
        return t.lo
    if isinstance(t, T.EnumType):
        return t.initial
    if isinstance(t, T.ElementaryType):
        if t is T.BOOL:
            return False
        if t is T.REAL:
            return np.float32(0.0)
        if t is T.LREAL:
            return 0.0
        return 0
    if isinstance(t, T.StringType):
        return ""
    if isinstance(t, T.ArrayType):
        return repeat(default_value(t.elem), t.count)
    if isinstance(t, T.StructType):
        return {m.name: (m.init if m.init is not None else default_value(m.type)) for m in t.members}
    if isinstance(t, T.FBType):
        return {p.name: default_value(p.type) for p in t.params} if t.standard else {}
    return None


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float | np.floating) and not isinstance(v, bool)


def fold_unary(op: str, v: Any, t: T.Type) -> Any:
    if v is NOT_CONST or v is None:
        return NOT_CONST
    if op == "+":
        return v
    if op == "-" and _is_num(v):
        if T.is_real(t):
            return as_real(-v, t)
        return _wrap64(-v, False) if isinstance(v, int) else -v
    if op == "NOT":
        if isinstance(v, bool):
            return not v
        if isinstance(v, int):
            return wrap(~v, t)
    return NOT_CONST


def fold_binary(op: str, a: Any, b: Any, operand_t: T.Type, result_t: T.Type) -> Any:
    """Fold `a op b`; `operand_t` is the promoted operand type, `result_t` the result type."""
    if a is NOT_CONST or b is NOT_CONST or a is None or b is None:
        return NOT_CONST
    try:
        return _fold_binary(op, a, b, operand_t, result_t)
    except (ArithmeticError, ValueError, TypeError):
        return NOT_CONST


def _fold_binary(op: str, a: Any, b: Any, operand_t: T.Type, result_t: T.Type) -> Any:
    if op in ("=", "<>", "<", ">", "<=", ">="):
        return {"=": a == b, "<>": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
    if op in ("AND", "AND_THEN", "OR", "OR_ELSE", "XOR"):
        if isinstance(a, bool) and isinstance(b, bool):
            return {"AND": a and b, "AND_THEN": a and b, "OR": a or b, "OR_ELSE": a or b, "XOR": a != b}[op]
        a, b = int(a), int(b)
        r = a & b if op in ("AND", "AND_THEN") else a | b if op in ("OR", "OR_ELSE") else a ^ b
        return wrap(r, result_t)
    if T.is_duration(result_t) or T.cls_of(result_t) == T.DATE_CLS:
        return _fold_time(op, a, b, result_t)
    if T.is_real(result_t):
        if op == "**":
            r = float(a) ** float(b)
            return as_real(r, result_t)
        fa, fb = as_real(a, result_t), as_real(b, result_t)
        if op == "/" and fb == 0:
            return NOT_CONST
        r = {"+": fa + fb, "-": fa - fb, "*": fa * fb, "/": fa / fb if fb else 0}.get(op, NOT_CONST)
        return r if r is NOT_CONST else as_real(r, result_t)
    if isinstance(a, int) and isinstance(b, int):
        unsigned = T.base_of(result_t) in (T.ULINT, T.LWORD)
        if op == "+":
            return _wrap64(a + b, unsigned)
        if op == "-":
            return _wrap64(a - b, unsigned)
        if op == "*":
            return _wrap64(a * b, unsigned)
        if op in ("/", "MOD"):
            if b == 0:
                return NOT_CONST
            return trunc_div(a, b) if op == "/" else trunc_mod(a, b)
    return NOT_CONST


MS_PER_DAY = 86_400_000
NS_PER_MS = 1_000_000


def fold_time_arith(op: str, a: Any, b: Any, ta: T.Type, tb: T.Type, result_t: T.Type) -> Any:
    """Fold TIME/LTIME/DATE/TOD/DT arithmetic (§6.8) in each operand's own unit: TIME ms,
    LTIME ns, DATE/DT s since 1970, TOD ms since midnight; the result in `result_t`'s unit."""
    if a is NOT_CONST or b is NOT_CONST or a is None or b is None:
        return NOT_CONST
    ca, cb = T.cls_of(ta), T.cls_of(tb)
    if ca == T.DURATION and cb == T.DURATION:  # TIME and LTIME mix in ns (TIME_TO_LTIME: x 10^6)
        if result_t == T.LTIME:
            a = a * NS_PER_MS if ta == T.TIME else a
            b = b * NS_PER_MS if tb == T.TIME else b
        return fold_binary(op, a, b, result_t, result_t)
    if ca == T.DATE_CLS and cb == T.DURATION:
        ms = trunc_div(int(b), NS_PER_MS) if tb == T.LTIME else int(b)
        ms = ms if op == "+" else -ms
        if ta == T.TOD:
            return (int(a) + ms) % MS_PER_DAY
        return int(a) + trunc_div(ms, 1000)  # DT: the sub-second part is truncated toward zero
    if ca == T.DATE_CLS and cb == T.DATE_CLS and op == "-":
        return int(a) - int(b) if ta == T.TOD else (int(a) - int(b)) * 1000
    return fold_binary(op, a, b, result_t, result_t)


def _fold_time(op: str, a: Any, b: Any, result_t: T.Type) -> Any:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        if isinstance(a, float | np.floating) or isinstance(b, float | np.floating):
            return round_even(float(a) * float(b))
        return a * b
    if op == "/":
        if b == 0:
            return NOT_CONST
        if isinstance(b, float | np.floating):
            return round_even(float(a) / float(b))
        return trunc_div(a, b)
    return NOT_CONST


def convert(value: Any, src: T.Type, dst: T.Type) -> Any:
    """Fold an explicit conversion function (§5.2) where the result is certain."""
    if value is NOT_CONST:
        return NOT_CONST
    s, d = T.base_of(src), T.base_of(dst)
    if isinstance(s, T.EnumType):
        s = s.base or T.INT
    if not isinstance(s, T.ElementaryType) or not isinstance(d, T.ElementaryType):
        return NOT_CONST
    if d is T.BOOL:
        return bool(value != 0)
    if s is T.BOOL:
        value = int(value)
    if d.cls in (T.SIGNED, T.UNSIGNED, T.BIT, T.DURATION, T.DATE_CLS):
        if isinstance(value, float | np.floating):
            if not math.isfinite(float(value)):
                return NOT_CONST
            value = round_even(float(value))
            if d.cls in (T.SIGNED, T.UNSIGNED, T.BIT) and not T.fits(value, d):
                return NOT_CONST
        if s.cls == T.DURATION and d.cls == T.DURATION and s is not d:
            value = value * 1_000_000 if d is T.LTIME else trunc_div(value, 1_000_000)
        return wrap(int(value), d)
    if d.cls == T.REAL_CLS:
        return as_real(value, d)
    return NOT_CONST


def trunc(value: Any, dst: T.Type) -> Any:
    if value is NOT_CONST or not math.isfinite(float(value)):
        return NOT_CONST
    r = math.trunc(float(value))
    return r if T.fits(r, dst) else NOT_CONST
