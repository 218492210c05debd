"""Expression typing: binds every `Name`, fills `ty` and `const` on every expression node.

Operator rules follow ST_LANGUAGE.md §6; errors about an operator's operands are reported
here (they are what typing the operator means), statement-level rules live in validate.
An expression whose type is `ERROR` has already been reported: nothing further is said.
"""

from __future__ import annotations

import numbers
from typing import Any

from stc import ast
from stc import types as T
from stc.ast import NOT_CONST
from stc.diagnostics import Diagnostics
from stc.sema import consteval as C
from stc.sema.calls import CallResolver
from stc.sema.literal_types import literal_type, retype_real
from stc.sema.model import EnumValue, POUInfo, SemanticModel, UserType, Variable
from stc.sema.symbols import Scope, program_type

RELATIONAL = ("=", "<>", "<", ">", "<=", ">=")
LOGICAL = ("AND", "OR", "XOR", "AND_THEN", "OR_ELSE")
ARITH = ("+", "-", "*", "/", "MOD", "**")
SIZE_TYPES = {"X": T.BOOL, "B": T.BYTE, "W": T.WORD, "D": T.DWORD, "L": T.LWORD}
# Sections of an FB instance visible from outside (§6.9).
VISIBLE_FROM_OUTSIDE = ("VAR_INPUT", "VAR_OUTPUT", "VAR_IN_OUT")


class Resolver(CallResolver):
    def __init__(self, model: SemanticModel, diags: Diagnostics) -> None:
        self.model = model
        self.diags = diags
        self.untyped: set[ast.Expr] = set()  # expressions made only of untyped literals

    # ------------------------------------------------------------------ helpers

    def error(self, msg: str, pos: ast.Pos) -> T.Type:
        self.diags.error(msg, pos.line, pos.col)
        return T.ERROR

    def warn(self, msg: str, pos: ast.Pos) -> None:
        self.diags.warning(msg, pos.line, pos.col)

    def set(self, e: ast.Expr, ty: T.Type, const: Any = NOT_CONST) -> T.Type:
        e.ty = ty
        e.const = const
        return ty

    def fb_type(self, info: POUInfo) -> T.FBType:
        if not isinstance(info.type, T.FBType):
            info.type = T.FBType(info.name, [], pou=info)
        return info.type

    def standard_fb(self, name: str) -> T.FBType | None:
        from stc.stdlib import standard_fb_type

        k = ast.key(name)
        if k not in self.model.standard_fbs:
            t = standard_fb_type(k)
            if t is None:
                return None
            self.model.standard_fbs[k] = t
        return self.model.standard_fbs[k]

    # ------------------------------------------------------------------ entry

    def expr(self, e: ast.Expr, scope: Scope, expected: T.Type | None = None) -> T.Type:
        """Type `e` (and its children); `expected` is the context type for untyped literals."""
        method = getattr(self, "_" + type(e).__name__, None)
        if method is None:
            return self.set(e, self.error(f"unsupported expression {type(e).__name__}", e.pos))
        return method(e, scope, expected)

    # ------------------------------------------------------------------ leaves

    def _literal(self, e: ast.Expr, scope: Scope, expected: T.Type | None) -> T.Type:
        ty, value, untyped, msg = literal_type(e, expected)
        if msg:
            return self.set(e, self.error(msg, e.pos))
        if untyped:
            self.untyped.add(e)
        return self.set(e, ty, value)

    _IntLit = _RealLit = _BoolLit = _DurationLit = _DateTimeLit = _StringLit = _literal

    def _EnumValueLit(self, e: ast.EnumValueLit, scope: Scope, expected: T.Type | None) -> T.Type:
        ut = self.model.types.get(ast.key(e.type_name))
        if ut is None or not isinstance(ut.type, T.EnumType):
            return self.set(e, self.error(f"unknown enumeration type '{e.type_name}'", e.pos))
        return self._enum_member(e, ut.type, e.value_name, e.pos)

    def _enum_member(self, e: ast.Expr, et: T.EnumType, name: str, pos: ast.Pos) -> T.Type:
        k = ast.key(name)
        if k not in et.values:
            return self.set(e, self.error(f"'{name}' is not a value of enumeration '{et.name}'", pos))
        if isinstance(e, ast.Name):
            e.symbol = EnumValue(et, et.spelling[k], et.values[k])
        return self.set(e, et, et.values[k])

    def _Name(self, e: ast.Name, scope: Scope, expected: T.Type | None) -> T.Type:
        sym = scope.variable(e.name)
        if sym is not None:
            e.symbol = sym
            return self.set(e, sym.type, sym.init if sym.constant else NOT_CONST)
        k = ast.key(e.name)
        candidates = self.model.enumerators.get(k)
        if candidates:
            if len({id(ev.type) for ev in candidates}) > 1:
                names = ", ".join(sorted(ev.type.name for ev in candidates))
                return self.set(e, self.error(
                    f"ambiguous enumerator '{e.name}' (defined in {names}); qualify it as Type.{e.name}", e.pos))
            return self._enum_member(e, candidates[0].type, e.name, e.pos)
        other = scope.lookup(e.name)
        if isinstance(other, POUInfo):
            e.symbol = other
            if other.kind == "PROGRAM":
                return self.set(e, program_type(other))
            what = "function block type" if other.kind == "FUNCTION_BLOCK" else "function"
            return self.set(e, self.error(f"{what} '{other.name}' used as a value", e.pos))
        if isinstance(other, UserType):
            e.symbol = other
            return self.set(e, self.error(f"type '{other.name}' used as a value", e.pos))
        if k not in scope.unknown_reported:
            scope.unknown_reported.add(k)
            self.error(f"unknown identifier '{e.name}'", e.pos)
        return self.set(e, T.ERROR)

    def _This(self, e: ast.This, scope: Scope, expected: T.Type | None) -> T.Type:
        fb = scope.fb
        if fb is None:
            return self.set(e, self.error("THIS^ is only allowed inside a FUNCTION_BLOCK or METHOD", e.pos))
        return self.set(e, self.fb_type(fb))

    def _DirectAddress(self, e: ast.DirectAddress, scope: Scope, expected: T.Type | None) -> T.Type:
        loc = e.address
        if loc.wildcard or loc.size is None:
            return self.set(e, self.error(f"'{loc.text}' cannot be used in code", e.pos))
        return self.set(e, SIZE_TYPES.get(loc.size, T.ERROR))

    # ------------------------------------------------------------------ access paths

    def _Member(self, e: ast.Member, scope: Scope, expected: T.Type | None) -> T.Type:
        obj = e.obj
        if isinstance(obj, ast.Name) and scope.variable(obj.name) is None:
            ut = self.model.types.get(ast.key(obj.name))
            if ut is not None and isinstance(ut.type, T.EnumType):
                obj.symbol = ut
                self.set(obj, ut.type)
                return self._enum_member(e, ut.type, e.member, e.member_pos)
        ot = T.base_of(self.expr(obj, scope))
        mpos = e.member_pos if e.member_pos is not ast.NOWHERE else e.pos
        if ot is T.ERROR:
            return self.set(e, T.ERROR)
        if isinstance(ot, T.StructType):
            m = ot.member(e.member)
            if m is None:
                return self.set(e, self.error(f"'{ot.name}' has no member '{e.member}'", mpos))
            const = obj.const.get(m.name, NOT_CONST) if isinstance(obj.const, dict) else NOT_CONST
            return self.set(e, m.type, const)
        if isinstance(ot, T.FBType):
            return self._fb_member(e, ot, obj, mpos)
        if T.is_anyint(ot):
            return self._named_bit(e, ot, scope, mpos)
        if isinstance(ot, T.ProgramType):
            v = ot.pou.variables.get(ast.key(e.member)) if ot.pou else None
            if v is None:
                return self.set(e, self.error(f"PROGRAM '{ot.name}' has no variable '{e.member}'", mpos))
            return self.set(e, v.type)
        return self.set(e, self.error(f"'{_path(obj)}' of type {ot} has no members", mpos))

    def _fb_member(self, e: ast.Member, ft: T.FBType, obj: ast.Expr, mpos: ast.Pos) -> T.Type:
        inside = isinstance(obj, ast.This)
        if ft.standard:
            p = ft.find(e.member)
            if p is None:
                return self.set(e, self.error(f"'{ft.name}' has no input or output '{e.member}'", mpos))
            return self.set(e, p.type)
        info: POUInfo = ft.pou
        v = info.variables.get(ast.key(e.member))
        if v is None or v.owner is not info:
            if ast.key(e.member) in info.methods:
                return self.set(e, self.error(f"method '{e.member}' must be called", mpos))
            return self.set(e, self.error(f"'{ft.name}' has no variable '{e.member}'", mpos))
        if not inside and v.section not in VISIBLE_FROM_OUTSIDE:
            return self.set(e, self.error(
                f"'{_path(obj)}.{v.name}' is not accessible: '{v.name}' is internal to '{ft.name}'", mpos))
        return self.set(e, v.type)

    def _named_bit(self, e: ast.Member, ot: T.Type, scope: Scope, mpos: ast.Pos) -> T.Type:
        """`status.BIT_READY`: a bit index given by a named integer constant (§6.6)."""
        v = scope.variable(e.member)
        if v is None or not v.constant or not isinstance(v.init, int) or isinstance(v.init, bool):
            return self.set(e, self.error(f"bit index '{e.member}' must be an integer literal or constant", mpos))
        assert isinstance(ot, T.ElementaryType)
        if not 0 <= v.init < ot.size:
            return self.set(e, self.error(
                f"bit index {v.init} is out of range for {ot.name} (0..{ot.size - 1})", mpos))
        const = bool((e.obj.const >> v.init) & 1) if isinstance(e.obj.const, int) else NOT_CONST
        return self.set(e, T.BOOL, const)

    def _BitAccess(self, e: ast.BitAccess, scope: Scope, expected: T.Type | None) -> T.Type:
        ot = T.base_of(self.expr(e.obj, scope))
        if ot is T.ERROR:
            return self.set(e, T.ERROR)
        if not T.is_anyint(ot):
            return self.set(e, self.error(f"bit access on {ot}; needs an integer or bit-string variable", e.pos))
        assert isinstance(ot, T.ElementaryType)
        if not 0 <= e.bit < ot.size:
            return self.set(e, self.error(f"bit index {e.bit} is out of range for {ot.name} (0..{ot.size - 1})", _bit(e)))
        const = NOT_CONST
        if isinstance(e.obj.const, int):
            const = bool((e.obj.const >> e.bit) & 1)
        return self.set(e, T.BOOL, const)

    def _Index(self, e: ast.Index, scope: Scope, expected: T.Type | None) -> T.Type:
        at = T.base_of(self.expr(e.obj, scope))
        for i in e.indices:
            it = self.expr(i, scope, T.DINT)
            if it is not T.ERROR and not T.is_anyint(it):
                self.error(f"array index must be an integer, got {it}", i.pos)
        if at is T.ERROR:
            return self.set(e, T.ERROR)
        if not isinstance(at, T.ArrayType):
            return self.set(e, self.error(f"'{_path(e.obj)}' of type {at} is not an array", e.pos))
        if len(e.indices) != len(at.dims):
            return self.set(e, self.error(
                f"'{_path(e.obj)}' has {len(at.dims)} dimension(s), {len(e.indices)} index(es) given", e.pos))
        for i, (lo, hi) in zip(e.indices, at.dims, strict=True):
            if isinstance(i.const, int) and not lo <= i.const <= hi:
                self.error(f"index {i.const} is out of bounds {lo}..{hi}", i.pos)
        return self.set(e, at.elem)

    # ------------------------------------------------------------------ operators

    def _Unary(self, e: ast.Unary, scope: Scope, expected: T.Type | None) -> T.Type:
        t = self.expr(e.operand, scope, expected)
        if e.operand in self.untyped:
            self.untyped.add(e)
        b = T.base_of(t)
        if b is T.ERROR:
            return self.set(e, T.ERROR)
        if e.op == "NOT":
            if not (b is T.BOOL or T.is_anyint(b)):
                return self.set(e, self.error(f"NOT needs BOOL or a bit string, got {t}", e.pos))
            return self.set(e, b, C.fold_unary("NOT", e.operand.const, b))
        if b is T.BOOL:
            return self.set(e, self.error(f"BOOL is not a number: unary '{e.op}' is not allowed", e.pos))
        if not (T.is_num(b) or T.is_duration(b)):
            return self.set(e, self.error(f"unary '{e.op}' needs a number, got {t}", e.pos))
        return self.set(e, b, C.fold_unary(e.op, e.operand.const, b))

    def _operands(self, e: ast.Binary, scope: Scope, expected: T.Type | None,
                  left_done: bool) -> tuple[T.Type, T.Type]:
        """Type both operands; an untyped literal side takes the other side's type."""
        left_lit = _is_literalish(e.left)
        if left_done:  # the left operand is an already typed operator node of the chain
            ctx = expected if e.op not in RELATIONAL else None
            lt = e.left.ty
            rt = self.expr(e.right, scope, lt if e.left not in self.untyped else ctx)
            if e.left in self.untyped and e.right not in self.untyped and lt is not T.ERROR:
                lt = self._retype(e.left, rt)
        elif left_lit and not _is_literalish(e.right):
            rt = self.expr(e.right, scope, expected if e.op not in RELATIONAL else None)
            lt = self.expr(e.left, scope, rt)
        else:
            ctx = expected if e.op not in RELATIONAL else None
            lt = self.expr(e.left, scope, ctx)
            rt = self.expr(e.right, scope, lt if e.left not in self.untyped else ctx)
            if e.left in self.untyped and e.right not in self.untyped and lt is not T.ERROR:
                lt = self._retype(e.left, rt)
        return lt, rt

    def _retype(self, e: ast.Expr, t: T.Type) -> T.Type:
        """Give an untyped literal expression the type of its context, when it fits."""
        tb = T.base_of(t)
        if isinstance(tb, T.EnumType):
            tb = tb.base or T.INT
        if isinstance(e.const, int) and not isinstance(e.const, bool) and T.is_anyint(tb) and T.fits(e.const, tb):
            e.ty = tb
        elif T.is_real(tb) and T.is_real(e.ty) and tb is T.REAL:
            e.ty = T.REAL
            if e.const is not NOT_CONST:
                e.const = retype_real(e.const, T.REAL)
        return e.ty

    def _Binary(self, e: ast.Binary, scope: Scope, expected: T.Type | None) -> T.Type:
        """Operator chains are left-deep and may be thousands long: walk the spine iteratively."""
        spine = [e]
        while isinstance(spine[-1].left, ast.Binary):
            spine.append(spine[-1].left)
        for i, node in enumerate(reversed(spine)):
            self._binary_node(node, scope, expected, left_done=i > 0)
        return e.ty

    def _binary_node(self, e: ast.Binary, scope: Scope, expected: T.Type | None, left_done: bool) -> T.Type:
        lt, rt = self._operands(e, scope, expected, left_done)
        if e.left in self.untyped and e.right in self.untyped:
            self.untyped.add(e)
        if lt is T.ERROR or rt is T.ERROR:
            return self.set(e, T.ERROR)
        op = e.op
        if op in RELATIONAL:
            return self._compare(e, lt, rt)
        if op in LOGICAL:
            return self._logical(e, lt, rt)
        return self._arith(e, lt, rt)

    def _logical(self, e: ast.Binary, lt: T.Type, rt: T.Type) -> T.Type:
        a, b = T.base_of(lt), T.base_of(rt)
        if a is T.BOOL and b is T.BOOL:
            return self.set(e, T.BOOL, C.fold_binary(e.op, e.left.const, e.right.const, T.BOOL, T.BOOL))
        if e.op in ("AND_THEN", "OR_ELSE"):
            return self.set(e, self.error(f"{e.op} needs BOOL operands, got {lt} and {rt}", _op(e)))
        if T.is_anyint(a) and T.is_anyint(b):
            assert isinstance(a, T.ElementaryType) and isinstance(b, T.ElementaryType)
            t = T.common_int(a, b)
            return self.set(e, t, C.fold_binary(e.op, e.left.const, e.right.const, t, t))
        if (a is T.BOOL and T.is_anyint(b)) or (b is T.BOOL and T.is_anyint(a)):
            return self.set(e, self.error(f"cannot mix BOOL and {b if a is T.BOOL else a} in {e.op}", _op(e)))
        return self.set(e, self.error(f"{e.op} is not defined for {lt} and {rt}", _op(e)))

    def _arith(self, e: ast.Binary, lt: T.Type, rt: T.Type) -> T.Type:
        op = e.op
        a, b = T.base_of(lt), T.base_of(rt)
        if a is T.BOOL or b is T.BOOL:
            return self.set(e, self.error(f"BOOL is not a number: '{op}' is not defined for BOOL", _op(e)))
        if T.cls_of(a) in (T.DURATION, T.DATE_CLS) or T.cls_of(b) in (T.DURATION, T.DATE_CLS):
            return self._time_arith(e, a, b)
        if not (T.is_num(a) or isinstance(a, T.EnumType)) or not (T.is_num(b) or isinstance(b, T.EnumType)):
            return self.set(e, self.error(f"'{op}' is not defined for {lt} and {rt}", _op(e)))
        if op == "MOD" and (T.is_real(a) or T.is_real(b)):
            return self.set(e, self.error("MOD is not defined for REAL/LREAL; MOD needs integer operands", _op(e)))
        if op == "**":
            t = T.REAL if (a is T.REAL or b is T.REAL) and T.LREAL not in (a, b) else T.LREAL
            return self.set(e, t, C.fold_binary("**", e.left.const, e.right.const, t, t))
        t = T.common_num(a, b)
        if op in ("/", "MOD") and _is_zero(e.right.const):
            self.warn("division by zero (runtime error DIV_ZERO when executed)", _op(e))
        return self.set(e, t, C.fold_binary(op, e.left.const, e.right.const, t, t))

    def _time_arith(self, e: ast.Binary, a: T.Type, b: T.Type) -> T.Type:
        op, ca, cb = e.op, T.cls_of(a), T.cls_of(b)
        result: T.Type | None = None
        if ca == T.DURATION and cb == T.DURATION and op in ("+", "-"):
            result = T.LTIME if T.LTIME in (a, b) else T.TIME
        elif ca == T.DURATION and op in ("*", "/") and (T.is_anyint(b) or T.is_real(b)):
            result = a
        elif cb == T.DURATION and op == "*" and (T.is_anyint(a) or T.is_real(a)):
            result = b
        elif ca == T.DATE_CLS and cb == T.DURATION and op in ("+", "-") and a in (T.TOD, T.DT):
            result = a
        elif ca == T.DATE_CLS and a == b and op == "-":
            result = T.TIME
        if result is None:
            return self.set(e, self.error(
                f"'{op}' is not defined for {a} and {b}; convert with TIME_TO_* / *_TO_TIME", _op(e)))
        return self.set(e, result, C.fold_time_arith(op, e.left.const, e.right.const, a, b, result))

    def _compare(self, e: ast.Binary, lt: T.Type, rt: T.Type) -> T.Type:
        op = e.op
        a, b = T.base_of(lt), T.base_of(rt)
        for side in (e.left, e.right):
            if isinstance(side, ast.Unary) and side.op == "NOT" and T.base_of(side.ty) is not T.BOOL:
                self.warn(f"NOT on {side.ty} is a bitwise complement before '{op}'; "
                          "did you mean NOT (a " + op + " b)?", side.pos)
        ok = False
        if isinstance(a, T.ArrayType | T.StructType | T.FBType) or isinstance(b, T.ArrayType | T.StructType | T.FBType):
            what = "arrays" if isinstance(a, T.ArrayType) or isinstance(b, T.ArrayType) else "structs"
            return self.set(e, self.error(f"'{op}' is not defined for {what}; compare element by element", _op(e)))
        if a is T.BOOL and b is T.BOOL:
            if op not in ("=", "<>"):
                return self.set(e, self.error(f"'{op}' is not defined for BOOL (only = and <>)", _op(e)))
            ok = True
        elif (T.is_num(a) or isinstance(a, T.EnumType)) and (T.is_num(b) or isinstance(b, T.EnumType)):
            ok = not (isinstance(a, T.EnumType) or isinstance(b, T.EnumType)) or a is b
        elif T.cls_of(a) in (T.DURATION, T.DATE_CLS):
            ok = a == b or {a, b} == {T.TIME, T.LTIME}
        elif isinstance(a, T.StringType) and isinstance(b, T.StringType):
            ok = a.wide == b.wide
        if not ok:
            chained = any(isinstance(s, ast.Binary) and s.op in RELATIONAL for s in (e.left, e.right))
            hint = " (chained comparison; use (a < b) AND (b < c))" if chained else ""
            return self.set(e, self.error(f"cannot compare {lt} with {rt}{hint}", _op(e)))
        operand = T.common_num(a, b) if T.is_num(a) and T.is_num(b) else a
        return self.set(e, T.BOOL, C.fold_binary(op, e.left.const, e.right.const, operand, T.BOOL))

    # ------------------------------------------------------------------ assignment compatibility

    def coerce(self, e: ast.Expr, target: T.Type, what: str = "") -> bool:
        """Check that the value `e` may be stored into `target` (§5.1, §1.1); retype literals.

        Returns False when an error was reported."""
        src = e.ty
        if src is T.ERROR or target is T.ERROR or src is None:
            return True
        tb = T.base_of(target)
        if e in self.untyped and isinstance(e.const, int) and not isinstance(e.const, bool):
            if T.is_anyint(tb) or isinstance(tb, T.EnumType) or isinstance(target, T.SubrangeType):
                rng_t = target if isinstance(target, T.SubrangeType) else tb
                if not T.fits(e.const, rng_t):
                    self.error(f"literal {e.const} is out of range of {target}", e.pos)
                    return False
                if isinstance(tb, T.EnumType):
                    self.warn(f"implicit conversion {src} -> {target} (integer to enumeration)", e.pos)
                self._retype(e, tb if not isinstance(tb, T.EnumType) else (tb.base or T.INT))
                return True
            if T.is_real(tb):
                return True
        if e in self.untyped and T.is_real(src) and T.is_real(tb):
            self._retype(e, tb)
            return True
        if isinstance(target, T.SubrangeType) and isinstance(e.const, int) and not T.fits(e.const, target):
            self.error(f"value {e.const} is out of range of {target}", e.pos)
            return False
        if isinstance(tb, T.ArrayType | T.StructType | T.FBType) or isinstance(T.base_of(src), T.ArrayType | T.StructType | T.FBType):
            if not T.same_type(T.base_of(src), tb):
                self.error(f"cannot assign {src} to {target}{what}", e.pos)
                return False
            return True
        verdict, msg = T.implicit(src, target)
        if verdict == T.ERR:
            self.error(msg + what, e.pos)
            return False
        if verdict == T.WARN:
            self.warn(msg + what, e.pos)
        return True

    def const_int(self, e: ast.Expr, scope: Scope, what: str) -> int | None:
        """A constant integer expression (array bounds, string lengths, repeat counts)."""
        t = self.expr(e, scope, T.DINT)
        if t is T.ERROR:
            return None
        if not isinstance(e.const, int) or isinstance(e.const, bool) or not T.is_anyint(t):
            self.error(f"{what} must be a constant integer expression", e.pos)
            return None
        return e.const


def _op(e: ast.Binary) -> ast.Pos:
    """Operator errors point at the operator (older parsers gave only the operand start)."""
    return e.op_pos if e.op_pos is not ast.NOWHERE else e.pos


def _bit(e: ast.BitAccess) -> ast.Pos:
    return e.bit_pos if e.bit_pos is not ast.NOWHERE else e.pos


def _is_zero(value: Any) -> bool:
    return value is not NOT_CONST and not isinstance(value, bool) and isinstance(value, numbers.Real) and value == 0


def _is_literalish(e: ast.Expr) -> bool:
    while isinstance(e, ast.Unary) and e.op in ("-", "+"):
        e = e.operand
    return isinstance(e, ast.IntLit | ast.RealLit) and e.type_prefix is None


def _path(e: ast.Expr) -> str:
    if isinstance(e, ast.Name):
        return e.name
    if isinstance(e, ast.Member):
        return f"{_path(e.obj)}.{e.member}"
    if isinstance(e, ast.Index):
        return f"{_path(e.obj)}[...]"
    if isinstance(e, ast.This):
        return "THIS^"
    return "expression"


def root_variable(e: ast.Expr) -> Variable | None:
    """The variable at the root of an access path (`a[i].m.3` -> a)."""
    while isinstance(e, ast.Member | ast.Index | ast.BitAccess):
        e = e.obj
    return e.symbol if isinstance(e, ast.Name) and isinstance(e.symbol, Variable) else None


path_text = _path
