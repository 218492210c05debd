"""Standard functions (§9) and conversion functions (§5.2) as plain Python.

`call_standard` evaluates every argument (left to right, as written), orders them by pin,
converts generic operands to the call's common type and dispatches on the name.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from stc import ast, stdlib
from stc import types as T
from stc.interp import values as V
from stc.interp.convert import convert, trunc
from stc.interp.eval_expr import arith, power
from stc.interp.faults import Fault
from stc.interp.memory import Frame

if TYPE_CHECKING:
    from stc.interp.machine import Interpreter

_VARIADIC = re.compile(r"^([A-Z_]+?)(\d+)$")


def ordered_args(spec: stdlib.FunctionSpec, call: ast.Call) -> list[ast.Expr]:
    """The argument expressions in pin order (positional first, then formal by pin name)."""
    slots: dict[int, ast.Expr] = {}
    names = [p.name for p in spec.pins]
    first_index = None
    if spec.variadic:
        m = _VARIADIC.match(names[-1])
        first_index = (m.group(1), int(m.group(2)) - len(names) + 1) if m else None
    for i, a in enumerate(call.args):
        assert a.value is not None
        if a.name is None:
            slots[i] = a.value
            continue
        k = ast.key(a.name)
        if k in names:
            slots[names.index(k)] = a.value
        elif first_index is not None:
            m = _VARIADIC.match(k)
            assert m is not None
            slots[int(m.group(2)) - first_index[1]] = a.value
    return [slots[i] for i in sorted(slots)]


def call_standard(interp: Interpreter, spec: stdlib.FunctionSpec, call: ast.Call, fr: Frame) -> Any:
    values = {id(a.value): interp.eval(a.value, fr) for a in call.args if a.value is not None}
    exprs = ordered_args(spec, call)
    args = [values[id(x)] for x in exprs]
    types = [x.ty for x in exprs]
    name = spec.name
    rt = call.ty
    if "_TO_" in name or name.startswith("TO_"):
        return convert(args[0], types[0], rt, name)
    if name.startswith("TRUNC"):
        return trunc(args[0], rt)
    fn = FUNCTIONS.get(name)
    if fn is None:
        raise TypeError(f"standard function {name} is not implemented by the interpreter")
    return fn(args, types, rt, interp)


# ---------------------------------------------------------------------- numeric


def _promote(a: Any, t: T.Type, rt: T.Type) -> Any:
    """A generic operand in the call's common type: integers stay exact (§6.3)."""
    if T.is_real(rt):
        return V.to_real(a, rt)
    if T.base_of(rt) is T.LTIME and T.base_of(t) is T.TIME:
        return a * 1_000_000
    return a


def _common(args: list[Any], types: list[T.Type], rt: T.Type) -> list[Any]:
    return [_promote(a, t, rt) for a, t in zip(args, types, strict=True)]


def _abs(args: list[Any], types: list[T.Type], rt: T.Type, _: Any) -> Any:
    (x,) = _common(args, types, rt)
    if T.is_real(rt):
        return abs(x)
    return V.wrap64(abs(x))  # exact like every integer result; ABS(min) wraps on store (§6.3, §9)


def _float_fn(f: Callable[..., float], pole: float = math.nan) -> Callable[..., Any]:
    """REAL in -> REAL out (computed in binary64, rounded once), otherwise LREAL (§9).

    Python's `math` calls the C library like compiled code does; a domain error gives NaN
    and `pole` for a zero argument (LN(0) = -INF), an overflow INF, as IEEE does."""

    def run(args: list[Any], types: list[T.Type], rt: T.Type, _: Any) -> Any:
        xs = [V.to_real(a, T.LREAL) for a in args]
        try:
            r = f(*xs)
        except OverflowError:
            r = math.inf
        except ValueError:
            r = pole if xs[0] == 0 else math.nan
        return V.to_real(r, rt)

    return run


def _fold(op: str) -> Callable[..., Any]:
    def run(args: list[Any], types: list[T.Type], rt: T.Type, _: Any) -> Any:
        acc, at = args[0], types[0]
        for x, xt in zip(args[1:], types[1:], strict=True):
            acc = arith(op, acc, x, at, xt, rt)
            at = rt
        return acc

    return run


def _min_max(pick: Callable[..., Any]) -> Callable[..., Any]:
    def run(args: list[Any], types: list[T.Type], rt: T.Type, _: Any) -> Any:
        vals = _common(args, types, rt)
        best = vals[0]
        for v in vals[1:]:
            if pick(v, best):
                best = v
        return best

    return run


def _limit(args: list[Any], types: list[T.Type], rt: T.Type, _: Any) -> Any:
    mn, x, mx = _common(args, types, rt)
    x = mn if x < mn else x
    return mx if x > mx else x


def _sel(args: list[Any], types: list[T.Type], rt: T.Type, _: Any) -> Any:
    g, in0, in1 = args
    return _promote(in1 if g else in0, types[2] if g else types[1], rt)


def _mux(args: list[Any], types: list[T.Type], rt: T.Type, _: Any) -> Any:
    k, inputs = args[0], args[1:]
    if not 0 <= k < len(inputs):
        raise Fault("MUX_RANGE", f"MUX selector {k} is outside 0..{len(inputs) - 1}")
    return _promote(inputs[k], types[k + 1], rt)


def _move(args: list[Any], types: list[T.Type], rt: T.Type, _: Any) -> Any:
    return _promote(args[0], types[0], rt)


def _shift(kind: str) -> Callable[..., Any]:
    """SHL/SHR/ROL/ROR on exactly the bit width of the operand's type (§6.7)."""

    def run(args: list[Any], types: list[T.Type], rt: T.Type, _: Any) -> Any:
        x, n = args
        if n < 0:
            raise Fault("SHIFT_NEG", f"negative shift count {n}")
        b = V.int_type(rt) if T.base_of(rt) is not T.BOOL else T.BOOL
        width = 1 if b is T.BOOL else b.size
        mask = (1 << width) - 1
        bits = int(x) & mask
        if kind == "SHL":
            r = (bits << n) & mask if n < width else 0
        elif kind == "SHR":
            r = bits >> n if n < width else 0
        else:
            n %= width
            r = ((bits << n) | (bits >> (width - n))) & mask if kind == "ROL" else (
                (bits >> n) | (bits << (width - n))) & mask
        return bool(r) if b is T.BOOL else V.wrap_int(r, b)

    return run


def _time(args: list[Any], types: list[T.Type], rt: T.Type, interp: Any) -> Any:
    return interp.now_ms


# ---------------------------------------------------------------------- strings (1-based positions)


def _len(args: list[Any], *_: Any) -> int:
    return len(args[0])


def _left(args: list[Any], *_: Any) -> str:
    s, n = args
    return s[: max(n, 0)] if n > 0 else ""


def _right(args: list[Any], *_: Any) -> str:
    s, n = args
    return s[len(s) - min(n, len(s)):] if n > 0 else ""


def _mid(args: list[Any], *_: Any) -> str:
    s, n, p = args
    if p < 1 or p > len(s) or n <= 0:
        return ""
    return s[p - 1: p - 1 + n]


def _concat(args: list[Any], *_: Any) -> str:
    return "".join(args)


def _insert_text(s1: str, s2: str, p: int) -> str:
    p = min(max(p, 0), len(s1))
    return s1[:p] + s2 + s1[p:]


def _delete_text(s: str, n: int, p: int) -> str:
    if p < 1 or p > len(s):
        return s
    return s[: p - 1] + s[p - 1 + max(n, 0):]


def _insert(args: list[Any], *_: Any) -> str:
    return _insert_text(*args)


def _delete(args: list[Any], *_: Any) -> str:
    return _delete_text(*args)


def _replace(args: list[Any], *_: Any) -> str:
    s1, s2, n, p = args
    if p < 1 or p > len(s1):
        return s1
    return _insert_text(_delete_text(s1, n, p), s2, p - 1)


def _find(args: list[Any], *_: Any) -> int:
    s1, s2 = args
    return s1.find(s2) + 1 if s2 else 0


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "ABS": _abs,
    "SQRT": _float_fn(math.sqrt),
    "LN": _float_fn(math.log, -math.inf),
    "LOG": _float_fn(math.log10, -math.inf),
    "EXP": _float_fn(math.exp),
    "SIN": _float_fn(math.sin),
    "COS": _float_fn(math.cos),
    "TAN": _float_fn(math.tan),
    "ASIN": _float_fn(math.asin),
    "ACOS": _float_fn(math.acos),
    "ATAN": _float_fn(math.atan),
    "ATAN2": _float_fn(math.atan2),
    "EXPT": lambda args, types, rt, _: power(args[0], args[1], rt),
    "ADD": _fold("+"),
    "MUL": _fold("*"),
    "SUB": _fold("-"),
    "DIV": _fold("/"),
    "MOD": _fold("MOD"),
    "MIN": _min_max(lambda v, best: v < best),
    "MAX": _min_max(lambda v, best: v > best),
    "LIMIT": _limit,
    "SEL": _sel,
    "MUX": _mux,
    "MOVE": _move,
    "SHL": _shift("SHL"),
    "SHR": _shift("SHR"),
    "ROL": _shift("ROL"),
    "ROR": _shift("ROR"),
    "TIME": _time,
    "LEN": _len,
    "LEFT": _left,
    "RIGHT": _right,
    "MID": _mid,
    "CONCAT": _concat,
    "INSERT": _insert,
    "DELETE": _delete,
    "REPLACE": _replace,
    "FIND": _find,
}

__all__ = ["call_standard", "ordered_args", "FUNCTIONS"]
