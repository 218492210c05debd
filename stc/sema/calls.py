"""Calls: user functions, FB instances, methods and the standard functions of stdlib.

Argument binding follows §8: positional arguments first (to VAR_INPUT, then VAR_IN_OUT),
then formal ones; every parameter at most once; VAR_IN_OUT needs a variable of exactly
the parameter's type. After checking, every argument of a user POU or standard FB call
carries its parameter's declared name in `Arg.name`, so back ends need not re-bind.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from stc import ast, stdlib
from stc import types as T
from stc.ast import NOT_CONST
from stc.sema import consteval as C
from stc.sema.model import POUInfo, Variable
from stc.sema.symbols import Scope

if TYPE_CHECKING:
    from stc.sema.resolve import Resolver

_VARIADIC_NAME = re.compile(r"^([A-Z_]+?)(\d+)$")


class CallResolver:
    """Mixin of `Resolver` for call expressions and assignability."""

    def _Call(self: Resolver, e: ast.Call, scope: Scope, expected: T.Type | None) -> T.Type:
        return self.call(e, scope, expected, statement=False)

    def call(self: Resolver, e: ast.Call, scope: Scope, expected: T.Type | None = None,
             statement: bool = False) -> T.Type:
        for a in e.args:
            if a.name and ast.key(a.name) in ("EN", "ENO"):
                self.error("EN/ENO are not supported", a.pos)
                return self._loose(e, scope)
        f = e.func
        if isinstance(f, ast.Member):
            return self._method_call(e, f, scope, statement)
        if not isinstance(f, ast.Name):
            return self._path_call(e, f, scope, statement)
        v = scope.variable(f.name)
        if v is not None:
            if v.section == "RESULT" and v.owner is not None:  # `F(...)` inside F: a recursive call
                f.symbol = v.owner
                return self._user_call(e, v.owner, scope, statement)
            f.symbol = v
            f.ty = v.type
            if isinstance(T.base_of(v.type), T.FBType):
                return self._fb_call(e, v.name, T.base_of(v.type), scope, statement)
            self.error(f"'{v.name}' is a variable of type {v.type}, not a function", f.pos)
            return self._loose(e, scope)
        m = scope.method(f.name)
        if m is not None:
            f.symbol = m
            return self._user_call(e, m, scope, statement)
        k = ast.key(f.name)
        if k in stdlib.POINTER_FUNCTIONS:  # already rejected by the parser
            return self.set(e, T.ERROR)
        info = self.model.pous.get(k)
        if info is not None:
            f.symbol = info
            if info.kind == "FUNCTION":
                return self._user_call(e, info, scope, statement)
            if info.kind == "FUNCTION_BLOCK":
                self.error(f"function block type '{info.name}' cannot be called directly; "
                           "declare an instance and call the instance", f.pos)
            else:
                self.error(f"PROGRAM '{info.name}' cannot be called; programs run from the entry point", f.pos)
            return self._loose(e, scope)
        if k in stdlib.STANDARD_FBS:
            self.error(f"function block type '{k}' cannot be called directly; declare an instance "
                       "and call the instance", f.pos)
            return self._loose(e, scope)
        spec = stdlib.FUNCTIONS.get(k)
        if spec is not None:
            f.symbol = spec
            return self._std_call(e, spec, scope, expected)
        msg = stdlib.FUNCTION_HINTS.get(k, f"unknown function '{f.name}'")
        self.error(msg, f.pos)
        return self._loose(e, scope)

    def _loose(self: Resolver, e: ast.Call, scope: Scope) -> T.Type:
        """Type the arguments of a call that cannot be checked (no follow-up errors)."""
        for a in e.args:
            if a.value is not None:
                self.expr(a.value, scope)
        return self.set(e, T.ERROR)

    # ------------------------------------------------------------------ user POUs

    def _path_call(self: Resolver, e: ast.Call, f: ast.Expr, scope: Scope, statement: bool) -> T.Type:
        """`arr[i](...)`, `s.fb(...)`: an FB instance reached through an access path."""
        t = T.base_of(self.expr(f, scope))
        if t is T.ERROR:
            return self._loose(e, scope)
        if isinstance(t, T.FBType):
            return self._fb_call(e, path_text(f), t, scope, statement)
        self.error(f"'{path_text(f)}' of type {t} is not callable", f.pos)
        return self._loose(e, scope)

    def _method_call(self: Resolver, e: ast.Call, f: ast.Member, scope: Scope, statement: bool) -> T.Type:
        ot = T.base_of(self.expr(f.obj, scope))
        if ot is T.ERROR:
            return self._loose(e, scope)
        if isinstance(ot, T.FBType) and not ot.standard:
            m = ot.pou.methods.get(ast.key(f.member))
            if m is not None:
                f.ty = T.VOID
                return self._user_call(e, m, scope, statement)
            if isinstance(ot.pou.variables.get(ast.key(f.member)) and ot.pou.variables[ast.key(f.member)].type,
                          T.FBType):
                return self._path_call(e, f, scope, statement)
            self.error(f"'{ot.name}' has no method '{f.member}' (ACTIONs are not supported)", f.member_pos)
            return self._loose(e, scope)
        if isinstance(ot, T.StructType | T.ProgramType):
            return self._path_call(e, f, scope, statement)
        self.error(f"'{ot}' has no methods", f.pos)
        return self._loose(e, scope)

    def _user_call(self: Resolver, e: ast.Call, info: POUInfo, scope: Scope, statement: bool) -> T.Type:
        if scope.pou is not None:
            scope.pou.calls.setdefault(info, e.func.member_pos if isinstance(e.func, ast.Member) else e.func.pos)
        params = [T.Param(v.name, v.type, v.section) for v in info.variables.values()
                  if v.owner is info and v.section in ("VAR_INPUT", "VAR_OUTPUT", "VAR_IN_OUT")]
        self._bind(e, info.name, params, scope, function=True)
        if e.func.ty is None:
            e.func.ty = info.type if info.type is not None else T.FunctionType(info.name, info.return_type)
        ret = info.return_type
        if ret is None or ret is T.VOID:
            if not statement:
                kind = "method" if info.kind == "METHOD" else "function"
                self.error(f"{kind} '{info.name}' has no return type and cannot be used in an expression", e.pos)
                return self.set(e, T.ERROR)
            return self.set(e, T.VOID)
        return self.set(e, ret)

    def _fb_call(self: Resolver, e: ast.Call, inst: str, ft: T.FBType, scope: Scope, statement: bool) -> T.Type:
        if not statement:
            self.error(f"FB instance '{inst}' cannot be called inside an expression; call it as a "
                       "statement and read its outputs", e.pos)
            return self._loose(e, scope)
        if ft.standard:
            params = ft.params
        else:
            info: POUInfo = ft.pou
            params = [T.Param(v.name, v.type, v.section) for v in info.variables.values()
                      if v.owner is info and v.section in ("VAR_INPUT", "VAR_OUTPUT", "VAR_IN_OUT")]
        self._bind(e, inst, params, scope, function=False)
        if e.func.ty is None:
            e.func.ty = ft
        return self.set(e, T.VOID)

    def _bind(self: Resolver, e: ast.Call, name: str, params: list[T.Param], scope: Scope, function: bool) -> None:
        positional = [p for p in params if p.section == "VAR_INPUT"] + [p for p in params if p.section == "VAR_IN_OUT"]
        seen: set[str] = set()
        formal = False
        misplaced = False
        n_positional = 0
        for a in e.args:
            p: T.Param | None
            if a.name is None:
                if formal:
                    self.error("positional argument after formal arguments", a.pos)
                    self._arg_value(a, scope)
                    misplaced = True
                    continue
                if n_positional >= len(positional):
                    self.error(f"too many arguments for '{name}': it takes {len(positional)}", a.pos)
                    self._arg_value(a, scope)
                    n_positional += 1
                    continue
                p = positional[n_positional]
                n_positional += 1
            else:
                formal = True
                k = ast.key(a.name)
                p = next((q for q in params if ast.key(q.name) == k or k in q.aliases), None)
                if p is None:
                    self.error(f"'{name}' has no parameter '{a.name}'", a.pos)
                    self._arg_value(a, scope)
                    continue
            if p.name in seen and not a.is_output:
                self.error(f"parameter '{p.name}' given more than once", a.pos)
            seen.add(p.name)
            a.name = p.name
            self._bind_one(a, p, name, scope)
        if function and n_positional and not formal and n_positional < len(positional):
            self.error(f"'{name}' expects {len(positional)} arguments, got {n_positional}", e.pos)
            return
        for p in params:
            if p.section == "VAR_IN_OUT" and p.name not in seen and not misplaced:
                self.error(f"VAR_IN_OUT parameter '{p.name}' of '{name}' must be supplied", e.pos)

    def _arg_value(self: Resolver, a: ast.Arg, scope: Scope) -> None:
        if a.value is not None:
            self.expr(a.value, scope)

    def _bind_one(self: Resolver, a: ast.Arg, p: T.Param, callee: str, scope: Scope) -> None:
        if a.value is None:
            return
        if a.is_output:
            t = self.expr(a.value, scope)
            if p.section != "VAR_OUTPUT":
                self.error(f"'{p.name}' is not an output of '{callee}'; use ':='", a.pos)
                return
            problem = self.lvalue_problem(a.value)
            if problem:
                self.error(problem, a.value.pos)
                return
            if t is T.ERROR:
                return
            src = T.BOOL if a.negated else p.type
            if a.negated and T.base_of(p.type) is not T.BOOL:
                self.error(f"NOT => needs a BOOL output, '{p.name}' is {p.type}", a.pos)
                return
            verdict, msg = T.implicit(src, t)
            if verdict == T.ERR:
                self.error(msg, a.value.pos)
            elif verdict == T.WARN:
                self.warn(msg, a.value.pos)
            return
        if p.section == "VAR_OUTPUT":
            self.expr(a.value, scope)
            self.error(f"'{p.name}' is an output of '{callee}'; use '=>'", a.pos)
            return
        if p.section == "VAR_IN_OUT":
            t = self.expr(a.value, scope, p.type)
            if not _is_variable_path(a.value) or self.lvalue_problem(a.value):
                self.error(f"VAR_IN_OUT argument for '{p.name}' must be a variable", a.value.pos)
                return
            if t is not T.ERROR and p.type is not T.ERROR and not T.same_type(t, p.type):
                self.error(f"VAR_IN_OUT argument for '{p.name}' must have type {p.type}, got {t}", a.value.pos)
            return
        self.expr(a.value, scope, p.type)
        self.coerce(a.value, p.type, f" (argument '{p.name}' of '{callee}')")

    # ------------------------------------------------------------------ assignability

    def lvalue_problem(self: Resolver, e: ast.Expr) -> str | None:
        """Why `e` cannot be written, or None (also None when `e` already had an error)."""
        found = self.lvalue_problem_at(e)
        return found[0] if found else None

    def lvalue_problem_at(self: Resolver, e: ast.Expr) -> tuple[str, ast.Pos] | None:
        """(why `e` cannot be written, where), or None."""
        if e.ty is T.ERROR:
            return None
        if isinstance(e, ast.Member):
            ot = T.base_of(e.obj.ty) if e.obj.ty is not None else None
            if isinstance(ot, T.FBType) and not isinstance(e.obj, ast.This):
                p = ot.find(e.member) if ot.standard else ot.pou.variables.get(ast.key(e.member))
                if p is not None and p.section == "VAR_OUTPUT":
                    return (f"cannot assign to output '{e.member}' of FB instance '{_text(e.obj)}'",
                            e.member_pos if e.member_pos is not ast.NOWHERE else e.pos)
            if isinstance(ot, T.ProgramType):
                return (f"cannot assign to '{e.member}' of PROGRAM instance '{_text(e.obj)}': "
                        "variables of another PROGRAM are read-only",
                        e.member_pos if e.member_pos is not ast.NOWHERE else e.pos)
            if isinstance(e.obj, ast.Member | ast.Index | ast.BitAccess):
                inner = self.lvalue_problem_at(e.obj)
                if inner:
                    return inner
        msg = self._lvalue_message(e)
        return (msg, e.pos) if msg else None

    def _lvalue_message(self: Resolver, e: ast.Expr) -> str | None:
        if e.ty is T.ERROR:
            return None
        if isinstance(e, ast.Name):
            s = e.symbol
            if isinstance(s, Variable):
                if s.constant:
                    return f"cannot assign to constant '{s.name}'"
                if s.section == "INSTANCE":
                    return f"cannot assign to PROGRAM instance '{s.name}'"
                return None
            return f"cannot assign to '{e.name}'"
        if isinstance(e, ast.Member):
            ot = T.base_of(e.obj.ty) if e.obj.ty is not None else None
            if isinstance(ot, T.FBType) and not isinstance(e.obj, ast.This):
                p = ot.find(e.member) if ot.standard else ot.pou.variables.get(ast.key(e.member))
                section = p.section if p is not None else ""
                if section == "VAR_OUTPUT":
                    return f"cannot assign to output '{e.member}' of FB instance '{_text(e.obj)}'"
            if isinstance(ot, T.ProgramType):
                return (f"cannot assign to '{e.member}' of PROGRAM instance '{_text(e.obj)}': "
                        "variables of another PROGRAM are read-only")
            if isinstance(ot, T.EnumType) or isinstance(e.ty, T.EnumType) and isinstance(e.obj.ty, T.EnumType):
                return "cannot assign to an enumerator"
            if isinstance(e.obj, ast.This):  # THIS^.x: a variable of the own instance
                return None
            return self._lvalue_message(e.obj)
        if isinstance(e, ast.Index | ast.BitAccess):
            return self._lvalue_message(e.obj)
        if isinstance(e, ast.DirectAddress):
            return None
        if isinstance(e, ast.This):
            return "cannot assign to THIS^"
        return "cannot assign to an expression"

    # ------------------------------------------------------------------ standard functions

    def _std_call(self: Resolver, e: ast.Call, spec: stdlib.FunctionSpec, scope: Scope,
                  expected: T.Type | None) -> T.Type:
        e.func.ty = T.FunctionType(spec.name, None)
        bound = self._bind_std(e, spec)
        if bound is None:
            return self._loose(e, scope)
        generic = [(p, a) for p, a in bound if p.generic]
        # Typed operands first, so untyped literals can take their type.
        common: T.Type | None = None
        for _p, a in generic:
            if a.value is not None and not _literal_like(a.value):
                t = self.expr(a.value, scope)
                common = t if common is None else _common(common, t)
        if common is None and spec.result == "T" and expected is not None and T.is_num(T.base_of(expected)):
            common = T.base_of(expected)  # only untyped literals: they take the context type (§1.1)
        for p, a in bound:
            if a.value is None or (p.generic and not _literal_like(a.value)):
                continue
            exp = common if p.generic else T.elementary(p.accepts)
            if exp is None and spec.result == "IN" and p.name == "IN" and expected is not None:
                exp = T.base_of(expected)  # SHL(1, n): an untyped literal takes the context's width
            t = self.expr(a.value, scope, exp)
            if p.generic:
                common = t if common is None else _common(common, t)
        if any(a.value is not None and a.value.ty is T.ERROR for _, a in bound) or common is T.ERROR:
            return self.set(e, T.ERROR)
        for p, a in bound:
            if not self._accepts(p, a, spec, e):
                return self.set(e, T.ERROR)
        return self._std_result(e, spec, bound, common)

    def _bind_std(self: Resolver, e: ast.Call, spec: stdlib.FunctionSpec) -> list[tuple[stdlib.Pin, ast.Arg]] | None:
        pins = list(spec.pins)
        out: list[tuple[stdlib.Pin, ast.Arg]] = []
        formal = False
        for i, a in enumerate(e.args):
            if a.is_output:
                self.error(f"standard function '{spec.name}' has no outputs", a.pos)
                return None
            if a.name is None:
                if formal:
                    self.error("positional argument after formal arguments", a.pos)
                    return None
                if i < len(pins):
                    pin = pins[i]
                elif spec.variadic:
                    last = pins[-1]
                    m = _VARIADIC_NAME.match(last.name)
                    idx = int(m.group(2)) + i - len(pins) + 1 if m else i
                    pin = stdlib.Pin(f"{m.group(1) if m else 'IN'}{idx}", last.accepts, last.generic)
                else:
                    self.error(f"'{spec.name}' expects {len(pins)} argument(s), got {len(e.args)}", e.pos)
                    return None
            else:
                formal = True
                k = ast.key(a.name)
                pin = next((p for p in pins if p.name == k), None)
                if pin is None and spec.variadic:
                    m, last = _VARIADIC_NAME.match(k), pins[-1]
                    lm = _VARIADIC_NAME.match(last.name)
                    if m and lm and m.group(1) == lm.group(1):
                        pin = stdlib.Pin(k, last.accepts, last.generic)
                if pin is None:
                    self.error(f"'{spec.name}' has no parameter '{a.name}'", a.pos)
                    return None
                if any(p.name == pin.name for p, _ in out):
                    self.error(f"parameter '{pin.name}' given more than once", a.pos)
                    return None
            a.name = pin.name if a.name is not None else a.name
            out.append((pin, a))
        minimum = spec.min_args if spec.min_args is not None else len(pins)
        if len(out) < minimum:
            more = "at least " if spec.variadic else ""
            self.error(f"'{spec.name}' expects {more}{minimum} argument(s), got {len(out)}", e.pos)
            return None
        return out

    def _accepts(self: Resolver, p: stdlib.Pin, a: ast.Arg, spec: stdlib.FunctionSpec, call: ast.Call) -> bool:
        v = a.value
        assert v is not None
        t = T.base_of(v.ty)
        if isinstance(t, T.EnumType):
            t = t.base or T.INT
        acc = p.accepts
        fixed = T.elementary(acc) or ({"STRING": T.STRING, "WSTRING": T.WSTRING}.get(acc))
        if fixed is not None:
            return self.coerce(v, fixed, f" (argument '{p.name}' of {spec.name})")
        checks = {
            stdlib.ANY: lambda: True,
            stdlib.ANY_ELEMENTARY: lambda: isinstance(t, T.ElementaryType | T.StringType),
            stdlib.ANY_NUM: lambda: T.is_num(t),
            stdlib.ANY_REAL: lambda: T.is_real(t),
            stdlib.ANY_INT: lambda: T.is_anyint(t),
            stdlib.ANY_BIT: lambda: T.is_anyint(t) or t is T.BOOL,
            stdlib.ANY_STRING: lambda: isinstance(t, T.StringType),
            stdlib.ANY_MAGNITUDE: lambda: T.is_num(t) or T.is_duration(t),
            stdlib.ARRAY: lambda: isinstance(t, T.ArrayType),
        }
        ok = checks[acc]()
        if not ok:
            self.error(f"argument '{p.name}' of {spec.name} must be {acc}, got {v.ty}", v.pos)
        elif acc == stdlib.ANY_BIT and T.is_integer(t) and v not in self.untyped:
            self.warn(f"{spec.name} on integer type {v.ty}; shifts are defined on bit strings "
                      "(the bit pattern is shifted)", call.pos)
        return ok

    def _std_result(self: Resolver, e: ast.Call, spec: stdlib.FunctionSpec,
                    bound: list[tuple[stdlib.Pin, ast.Arg]], common: T.Type | None) -> T.Type:
        vals = [a.value for _, a in bound]
        consts = [v.const if v is not None else NOT_CONST for v in vals]
        rule = spec.result
        if rule == "T":
            rt = common or T.ERROR
        elif rule == "FLOAT":
            rt = common if common is not None and T.is_real(common) else T.LREAL
        elif rule == "EXPT":
            ts = [T.base_of(v.ty) for v in vals if v is not None]
            rt = T.REAL if T.REAL in ts and T.LREAL not in ts else T.LREAL
        elif rule == "STRING":
            s = next((v.ty for v in vals if v is not None and isinstance(v.ty, T.StringType)), T.STRING)
            rt = T.StringType(max((v.ty.length for v in vals if v is not None and isinstance(v.ty, T.StringType)),
                                  default=80), s.wide) if spec.name == "CONCAT" else s
        elif rule == "IN":
            rt = vals[0].ty if vals and vals[0] is not None else T.ERROR
        else:
            rt = T.elementary(rule) or {"STRING": T.STRING, "WSTRING": T.WSTRING}.get(rule, T.ERROR)
        if spec.name == "SIZEOF":
            return self._sizeof(e, vals[0])
        if spec.name in ("LOWER_BOUND", "UPPER_BOUND"):
            return self._bound(e, spec.name, vals[0], vals[1])
        for i, (p, a) in enumerate(bound):  # the generic operands are converted to the common type
            if p.generic and a.value is not None and a.value in self.untyped and common is not None:
                self._retype(a.value, common)
                consts[i] = a.value.const
        e.func.ty = T.FunctionType(spec.name, rt)
        return self.set(e, rt, _fold_std(spec, consts, [v.ty if v is not None else None for v in vals], rt))

    def _sizeof(self: Resolver, e: ast.Call, v: ast.Expr | None) -> T.Type:
        n = T.byte_size(v.ty) if v is not None else None
        if n is None:
            return self.set(e, self.error(f"SIZEOF is not supported for {v.ty if v is not None else '?'} "
                                          "(structs and FB instances have no defined layout)", e.pos))
        self.untyped.add(e)  # a compile-time number: fits any integer target it fits (like a literal)
        return self.set(e, T.int_literal_type(n), n)

    def _bound(self: Resolver, e: ast.Call, name: str, arr: ast.Expr | None, dim: ast.Expr | None) -> T.Type:
        at = T.base_of(arr.ty) if arr is not None else None
        if not isinstance(at, T.ArrayType) or dim is None:
            return self.set(e, T.DINT)
        if not isinstance(dim.const, int):
            self.error(f"{name}: the dimension must be a constant", dim.pos)
            return self.set(e, T.ERROR)
        if not 1 <= dim.const <= len(at.dims):
            self.error(f"{name}: dimension {dim.const} out of range 1..{len(at.dims)}", dim.pos)
            return self.set(e, T.ERROR)
        value = at.dims[dim.const - 1][0 if name == "LOWER_BOUND" else 1]
        self.untyped.add(e)
        return self.set(e, T.int_literal_type(value), value)


def _literal_like(e: ast.Expr) -> bool:
    while isinstance(e, ast.Unary) and e.op in ("-", "+"):
        e = e.operand
    return isinstance(e, ast.IntLit | ast.RealLit) and e.type_prefix is None


def _common(a: T.Type, b: T.Type) -> T.Type:
    if a is T.ERROR or b is T.ERROR:
        return T.ERROR
    ab, bb = T.base_of(a), T.base_of(b)
    if (T.is_num(ab) or isinstance(ab, T.EnumType)) and (T.is_num(bb) or isinstance(bb, T.EnumType)):
        if ab is bb:
            return ab
        return T.common_num(ab, bb)
    if isinstance(ab, T.StringType) and isinstance(bb, T.StringType) and ab.wide == bb.wide:
        return ab if ab.length >= bb.length else bb
    if ab == bb or T.same_type(ab, bb):
        return ab
    if {ab, bb} == {T.TIME, T.LTIME}:
        return T.LTIME
    return ab


def _is_variable_path(e: ast.Expr) -> bool:
    if isinstance(e, ast.Name):
        return isinstance(e.symbol, Variable)
    if isinstance(e, ast.Member | ast.Index):
        return _is_variable_path(e.obj)
    return False


def path_text(e: ast.Expr) -> str:
    from stc.sema.resolve import path_text as text

    return text(e)


_text = path_text


def _fold_std(spec: stdlib.FunctionSpec, consts: list[Any], tys: list[Any], rt: T.Type) -> Any:
    """Fold the standard functions whose constant result is used in declarations."""
    if any(c is NOT_CONST or c is None for c in consts):
        return NOT_CONST
    name = spec.name
    try:
        if "_TO_" in name and "BCD" not in name or name.startswith("TO_"):
            return C.convert(consts[0], tys[0], rt)
        if name.startswith("TRUNC"):
            return C.trunc(consts[0], rt)
        if name in ("MIN", "MAX"):
            return C.store((min if name == "MIN" else max)(consts), rt)
        if name == "LIMIT":
            return C.store(min(max(consts[1], consts[0]), consts[2]), rt)
        if name == "ABS":
            return C.store(abs(consts[0]), rt)
        if name == "MOVE":
            return consts[0]
        if name == "SEL":
            return consts[2] if consts[0] else consts[1]
    except (TypeError, ValueError, ArithmeticError):
        return NOT_CONST
    return NOT_CONST
