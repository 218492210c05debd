"""Expression evaluation (§6) and access paths (§6.9) over the typed AST.

Operands are evaluated left to right; AND/OR/XOR evaluate both sides, AND_THEN/OR_ELSE
short-circuit (§6.2). Integer results stay exact within 64 bits (§6.3) and are narrowed
only by `values.store`; REAL results are rounded to binary32 after every operation.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from stc import ast
from stc import types as T
from stc.ast import NOT_CONST
from stc.interp import values as V
from stc.interp.faults import Fault
from stc.interp.memory import BitRef, Frame, ItemRef, Ref
from stc.sema.iolist import canonical_address
from stc.sema.model import EnumValue, POUInfo, Variable

if TYPE_CHECKING:
    from stc.interp.machine import Interpreter

RELATIONAL = {"=", "<>", "<", ">", "<=", ">="}


class ExprEvaluator:
    """Mixin of `Interpreter`: `eval` (r-values) and `ref` (locations)."""

    # ------------------------------------------------------------------ entry points

    def eval(self: Interpreter, e: ast.Expr, fr: Frame) -> Any:
        c = e.const
        if c is not NOT_CONST and c is not None:
            return V.represent(c, e.ty)
        try:
            return _EVAL[type(e)](self, e, fr)
        except Fault as f:
            raise f.at(e.pos, fr.pou_name) from None

    def ref(self: Interpreter, e: ast.Expr, fr: Frame) -> Ref:
        """The location an access path denotes (assignment target, VAR_IN_OUT argument)."""
        try:
            if isinstance(e, ast.Name):
                return ItemRef(*self.slot(e.symbol, fr))
            if isinstance(e, ast.Member):
                if isinstance(T.base_of(e.obj.ty), T.ElementaryType):
                    return BitRef(self._item_ref(e.obj, fr), self._named_bit(e, fr), e.obj.ty)
                obj = self._object(e.obj, fr)
                return ItemRef(obj, self.member_key(e.obj.ty, e.member))
            if isinstance(e, ast.Index):
                arr = self.eval(e.obj, fr)
                return ItemRef(arr, self._offset(e, fr))
            if isinstance(e, ast.BitAccess):
                return BitRef(self._item_ref(e.obj, fr), e.bit, e.obj.ty)
            if isinstance(e, ast.DirectAddress):
                return ItemRef(self.addresses, canonical_address(e.address))
        except Fault as f:
            raise f.at(e.pos, fr.pou_name) from None
        raise TypeError(f"not an assignable expression: {type(e).__name__}")

    def _item_ref(self: Interpreter, e: ast.Expr, fr: Frame) -> ItemRef:
        r = self.ref(e, fr)
        assert isinstance(r, ItemRef)
        return r

    # ------------------------------------------------------------------ names and paths

    def slot(self: Interpreter, v: Any, fr: Frame) -> tuple[Any, str]:
        """(container, key) of a declared variable as seen from frame `fr`."""
        if not isinstance(v, Variable):
            raise TypeError(f"not a variable: {v!r}")
        owner = v.owner
        if owner is None:
            if v.section == "INSTANCE":
                return self.instances, v.name
            return self.globals, v.name
        if owner is fr.pou:
            sec = v.section
            if sec == "VAR_IN_OUT":
                r = fr.inouts[v.name]
                return r.container, r.key
            if owner.kind == "METHOD" and sec in ("VAR_INST", "VAR_STAT"):
                return self.method_static(fr, v)
            if owner.kind == "FUNCTION" and sec == "VAR_STAT":
                return self.function_static(v)
            return fr.locals, v.name
        # a METHOD reading its FB's variables
        assert fr.inst is not None
        if v.section == "VAR_IN_OUT":
            r = fr.inst["$io"][v.name]
            return r.container, r.key
        return fr.inst, v.name

    def _Name(self: Interpreter, e: ast.Name, fr: Frame) -> Any:
        sym = e.symbol
        if isinstance(sym, Variable):
            container, key = self.slot(sym, fr)
            return container[key]
        if isinstance(sym, EnumValue):
            return sym.value
        if isinstance(sym, POUInfo) and sym.kind == "PROGRAM":
            return self.instances[self.instance_of[sym]]
        raise TypeError(f"cannot evaluate name {e.name}")

    def _object(self: Interpreter, e: ast.Expr, fr: Frame) -> Any:
        if isinstance(e, ast.This):
            return fr.inst
        return self.eval(e, fr)

    def member_key(self: Interpreter, ty: T.Type, member: str) -> str:
        """The storage key (declared spelling) of `obj.member` for the object's type."""
        cache_key = (id(ty), member)
        hit = self._member_keys.get(cache_key)
        if hit is not None:
            return hit
        b = T.base_of(ty)
        k = ast.key(member)
        if isinstance(b, T.StructType):
            m = b.member(member)
            assert m is not None
            name = m.name
        elif isinstance(b, T.FBType) and b.standard:
            p = b.find(member)
            assert p is not None
            name = p.name
        elif isinstance(b, T.FBType | T.ProgramType):
            name = b.pou.variables[k].name
        else:
            raise TypeError(f"no member {member} in {ty}")
        self._member_keys[cache_key] = name
        return name

    def _Member(self: Interpreter, e: ast.Member, fr: Frame) -> Any:
        if isinstance(T.base_of(e.obj.ty), T.ElementaryType):
            word = self.eval(e.obj, fr)
            return bool((word >> self._named_bit(e, fr)) & 1)
        obj = self._object(e.obj, fr)
        return obj[self.member_key(e.obj.ty, e.member)]

    def _named_bit(self: Interpreter, e: ast.Member, fr: Frame) -> int:
        """`status.BIT_READY`: the bit index is a named integer constant (§6.6)."""
        k = ast.key(e.member)
        pou = fr.pou
        for scope in (pou.variables, pou.fb.variables if pou.fb else {}, self.model.globals):
            v = scope.get(k)
            if v is not None:
                return int(v.init)
        raise TypeError(f"unknown bit constant {e.member}")

    def _BitAccess(self: Interpreter, e: ast.BitAccess, fr: Frame) -> Any:
        return bool((self.eval(e.obj, fr) >> e.bit) & 1)

    def _offset(self: Interpreter, e: ast.Index, fr: Frame) -> int:
        at = T.base_of(e.obj.ty)
        assert isinstance(at, T.ArrayType)
        offset = 0
        for i, (lo, hi) in zip(e.indices, at.dims, strict=True):
            n = self.eval(i, fr)
            if not lo <= n <= hi:
                fault = Fault("INDEX_RANGE", f"array index {n} is out of bounds {lo}..{hi}")
                raise fault.at(i.pos, fr.pou_name)  # the offending subscript, not the array
            offset = offset * (hi - lo + 1) + (n - lo)
        return offset

    def _Index(self: Interpreter, e: ast.Index, fr: Frame) -> Any:
        arr = self.eval(e.obj, fr)
        return arr[self._offset(e, fr)]

    def _DirectAddress(self: Interpreter, e: ast.DirectAddress, fr: Frame) -> Any:
        return self.addresses[canonical_address(e.address)]

    def _This(self: Interpreter, e: ast.This, fr: Frame) -> Any:
        return fr.inst

    def _Call(self: Interpreter, e: ast.Call, fr: Frame) -> Any:
        return self.call(e, fr)

    # ------------------------------------------------------------------ operators

    def _Unary(self: Interpreter, e: ast.Unary, fr: Frame) -> Any:
        v = self.eval(e.operand, fr)
        t = T.base_of(e.ty)
        if e.op == "+":
            return v
        if e.op == "NOT":
            if isinstance(v, bool):
                return not v
            return V.wrap_int(~v, t)
        if isinstance(v, int):
            return V.wrap64(-v)
        return -v

    def _Binary(self: Interpreter, e: ast.Binary, fr: Frame) -> Any:
        op = e.op
        if op == "AND_THEN":
            return bool(self.eval(e.left, fr)) and bool(self.eval(e.right, fr))
        if op == "OR_ELSE":
            return bool(self.eval(e.left, fr)) or bool(self.eval(e.right, fr))
        a = self.eval(e.left, fr)
        b = self.eval(e.right, fr)
        if op in RELATIONAL:
            return compare(op, a, b, e.left.ty, e.right.ty)
        if op in ("AND", "OR", "XOR"):
            return logical(op, a, b, e.ty)
        return arith(op, a, b, e.left.ty, e.right.ty, e.ty)


# ---------------------------------------------------------------------- operator semantics


def _comparable(a: Any, b: Any, at: T.Type, bt: T.Type) -> tuple[Any, Any]:
    if V.is_real_value(a) or V.is_real_value(b):
        ct = T.common_num(at, bt)
        return V.to_real(a, ct), V.to_real(b, ct)
    if isinstance(a, int) and not isinstance(a, bool) and T.is_num(at) and T.is_num(bt):
        ct = T.common_num(at, bt)
        if isinstance(ct, T.ElementaryType) and ct.size == 64:  # promotion into a 64-bit type wraps
            unsigned = not ct.signed
            return V.wrap64(a, unsigned), V.wrap64(b, unsigned)
        return a, b
    if T.is_duration(at) and T.is_duration(bt) and T.base_of(at) is not T.base_of(bt):
        if T.base_of(at) is T.TIME:
            a *= 1_000_000
        else:
            b *= 1_000_000
    return a, b


def compare(op: str, a: Any, b: Any, at: T.Type, bt: T.Type) -> bool:
    """§6.4: numbers by mathematical value after promotion; REAL equality is exact."""
    a, b = _comparable(a, b, at, bt)
    if op == "=":
        r = a == b
    elif op == "<>":
        r = a != b
    elif op == "<":
        r = a < b
    elif op == ">":
        r = a > b
    elif op == "<=":
        r = a <= b
    else:
        r = a >= b
    return bool(r)


def logical(op: str, a: Any, b: Any, t: T.Type) -> Any:
    """AND/OR/XOR: logical on BOOL, bitwise (in the result type's width) on integers (§6.5)."""
    if isinstance(a, bool):
        return (a and b) if op == "AND" else (a or b) if op == "OR" else (a != b)
    r = a & b if op == "AND" else a | b if op == "OR" else a ^ b
    return V.wrap_int(r, t)


def arith(op: str, a: Any, b: Any, at: T.Type, bt: T.Type, rt: T.Type) -> Any:
    """`+ - * / MOD **` for numbers and durations (§6.3, §6.8)."""
    r = T.base_of(rt)
    if op == "**":
        return power(a, b, r)
    if T.cls_of(r) in (T.DURATION, T.DATE_CLS) or T.cls_of(at) == T.DATE_CLS:
        return time_arith(op, a, b, at, bt, r)
    if T.is_real(r):
        x, y = V.to_real(a, r), V.to_real(b, r)
        if op == "+":
            return x + y
        if op == "-":
            return x - y
        if op == "*":
            return x * y
        if y == 0:
            raise Fault("DIV_ZERO", "division by zero")
        return x / y
    unsigned = r in (T.ULINT, T.LWORD)
    a, b = V.wrap64(a, unsigned), V.wrap64(b, unsigned)  # operands in the operation's 64-bit domain
    if op == "+":
        return V.wrap64(a + b, unsigned)
    if op == "-":
        return V.wrap64(a - b, unsigned)
    if op == "*":
        return V.wrap64(a * b, unsigned)
    if b == 0:
        raise Fault("DIV_ZERO", "integer division by zero")
    if op == "/":
        return V.wrap64(V.trunc_div(a, b), unsigned)
    return V.wrap64(V.trunc_mod(a, b), unsigned)


def power(a: Any, b: Any, rt: T.Type) -> Any:
    """`**` / EXPT: computed in binary64 and rounded once (0 ** negative = INF, no fault)."""
    return V.to_real(c_pow(V.to_real(a, T.LREAL), V.to_real(b, T.LREAL)), rt)


def c_pow(x: float, y: float) -> float:
    """C `pow` (IEEE special cases) on top of Python's correctly rounding libm call."""
    try:
        return math.pow(x, y)
    except OverflowError:
        odd = y.is_integer() and int(y) % 2 == 1
        return -math.inf if x < 0 and odd else math.inf
    except ValueError:
        if x == 0:
            odd = y.is_integer() and int(y) % 2 == 1
            return -math.inf if odd and math.copysign(1.0, x) < 0 else math.inf
        return math.nan


def time_arith(op: str, a: Any, b: Any, at: T.Type, bt: T.Type, rt: T.Type) -> int:
    """§6.8: durations in ms (TIME) / ns (LTIME), DATE/DT in s, TOD in ms."""
    ac, bc = T.cls_of(at), T.cls_of(bt)
    if ac == T.DATE_CLS:
        return _date_arith(op, a, b, T.base_of(at), T.base_of(bt), rt)
    if ac == T.DURATION and bc == T.DURATION:
        if T.base_of(rt) is T.LTIME:
            a = a * 1_000_000 if T.base_of(at) is T.TIME else a
            b = b * 1_000_000 if T.base_of(bt) is T.TIME else b
        return V.wrap64(a + b if op == "+" else a - b)
    if V.is_real_value(a) or V.is_real_value(b):
        x, y = float(a), float(b)
        if op == "/" and y == 0:
            raise Fault("DIV_ZERO", "division by zero")
        return V.check_fits(V.round_half_even(x * y if op == "*" else x / y, "duration"), rt, "duration")
    if op == "*":
        return V.wrap64(a * b)
    if b == 0:
        raise Fault("DIV_ZERO", "integer division by zero")
    return V.wrap64(V.trunc_div(a, b))


def _date_arith(op: str, a: int, b: int, at: T.Type, bt: T.Type, rt: T.Type) -> int:
    if T.cls_of(bt) == T.DURATION:
        ms = b // 1_000_000 if bt is T.LTIME else b
        if at is T.TOD:
            return (a + ms if op == "+" else a - ms) % V.MS_PER_DAY
        secs = V.trunc_div(ms, 1000)
        return a + secs if op == "+" else a - secs
    diff = a - b  # TOD - TOD in ms; DATE - DATE, DT - DT in s
    return diff if at is T.TOD else diff * 1000


_EVAL: dict[type, Any] = {
    ast.Name: ExprEvaluator._Name,
    ast.Member: ExprEvaluator._Member,
    ast.BitAccess: ExprEvaluator._BitAccess,
    ast.Index: ExprEvaluator._Index,
    ast.DirectAddress: ExprEvaluator._DirectAddress,
    ast.This: ExprEvaluator._This,
    ast.Call: ExprEvaluator._Call,
    ast.Unary: ExprEvaluator._Unary,
    ast.Binary: ExprEvaluator._Binary,
}
