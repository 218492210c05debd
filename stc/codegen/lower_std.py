"""Lowering of the standard functions (§9) and conversion functions (§5.2) to runtime helpers.

All arguments are evaluated, left to right, into temporaries before the helper runs
(SEL/MUX/MIN/MAX evaluate every input, §9). String results are built in a scratch
buffer owned by the call site, never in the destination (the helpers require it).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from stc import ast, stdlib
from stc import types as T
from stc.codegen.emit import typed
from stc.codegen.lower_expr import WRAP, CodegenError, StrVal, convert, rep_of, scalar_base

if TYPE_CHECKING:
    from stc.codegen.lower_pou import BodyLowering

_VARIADIC = re.compile(r"^([A-Z_]+?)(\d+)$")
_TEXT_OF = {"i": "int_to_text", "u": "int_to_text", "f": "real_to_text", "d": "lreal_to_text"}


def ordered_args(e: ast.Call, spec: stdlib.FunctionSpec) -> list[ast.Expr]:
    """Argument expressions in pin order (formal arguments may come in any order)."""
    pins = [p.name for p in spec.pins]
    found: dict[int, ast.Expr] = {}
    for i, a in enumerate(e.args):
        if a.value is None:
            continue
        if a.name is None:
            found[i] = a.value
            continue
        k = a.name.upper()
        if k in pins:
            found[pins.index(k)] = a.value
        else:
            m, lm = _VARIADIC.match(k), _VARIADIC.match(pins[-1])
            if m is None or lm is None:
                raise CodegenError(f"unknown parameter '{a.name}'", a.pos)
            found[len(pins) - 1 + int(m.group(2)) - int(lm.group(2))] = a.value
    return [found[i] for i in sorted(found)]


def wrap_to(code: str, t: T.Type) -> str:
    """Narrow an exact value to the type (§5.3) inside an expression."""
    b = scalar_base(t)
    if isinstance(b, T.ElementaryType) and b.name in WRAP:
        return f"_i.{WRAP[b.name]}({typed(code)})"
    if b is T.BOOL:
        return f"np.int64({code} != 0)"
    return code


class StdLowering:
    """Mixin of BodyLowering: standard and conversion functions."""

    def std_call(self: BodyLowering, e: ast.Call, spec: stdlib.FunctionSpec) -> str:
        name = spec.name
        args = ordered_args(e, spec)
        t = e.ty
        loc = self.loc_id(e.pos)
        if name == "TIME":
            return "now"
        if name in ("MOVE",):
            return self.conv(args[0], t)
        if name in UNARY_OR_ABS:
            return self.numeric(name, args, t)
        if name in ("ADD", "MUL"):
            acc = args[0]
            for nxt in args[1:]:
                code = self.arith("+" if name == "ADD" else "*", e, acc, nxt, t)
                acc = _Code(e.pos, code, t)
            return self.value(acc)
        if name in ("SUB", "DIV", "MOD", "EXPT"):
            op = {"SUB": "-", "DIV": "/", "MOD": "MOD", "EXPT": "**"}[name]
            return self.arith(op, e, args[0], args[1], t)
        if name in ("MIN", "MAX", "LIMIT", "SEL", "MUX"):
            return self.selection(name, args, t, loc)
        if name in ("SHL", "SHR", "ROL", "ROR"):
            x = self.conv(args[0], t)
            n = self.conv(args[1], T.LINT)
            b = scalar_base(t)
            width = b.size if isinstance(b, T.ElementaryType) and b is not T.BOOL else 1
            call = f"_i.{name.lower()}(err, {loc}, {typed(x)}, {typed(n)}, np.int64({width}))"
            k = self.checked(call)
            return wrap_to(k, t) if rep_of(t) != "u" else k
        if name == "LEN":
            return self.string(args[0]).n
        if name == "FIND":
            a, b = self.string(args[0]), self.string(args[1])
            return f"_s.s_find({a.buf}, {a.n}, {b.buf}, {b.n})"
        if name.startswith("TRUNC"):
            return self.trunc(args[0], t, loc)
        if "BCD" in name:
            return self.bcd(name, args[0], t, loc)
        if "_TO_" in name or name.startswith("TO_"):
            return self.conversion(args[0], t, loc, e.pos)
        raise CodegenError(f"standard function {name} is not supported by the compiler yet", e.pos)

    def numeric(self: BodyLowering, name: str, args: list[ast.Expr], t: T.Type) -> str:
        r = rep_of(t)
        if name == "ABS":
            x = self.conv(args[0], t)
            if r == "i":
                return f"_i.abs_int({typed(x)})"
            if r == "u":
                return x
            return f"np.float32(abs({x}))" if r == "f" else f"abs({x})"
        if name == "ATAN2":
            y, x = self.conv(args[0], t), self.conv(args[1], t)
            if r == "f":  # computed in binary64, rounded once: the correctly rounded REAL
                return f"np.float32(np.arctan2(np.float64({y}), np.float64({x})))"
            return f"np.arctan2({y}, {x})"
        x = self.conv(args[0], t)
        fn = UNARY_FLOAT[name]
        return f"np.float32(np.{fn}(np.float64({x})))" if r == "f" else f"np.{fn}({x})"

    def selection(self: BodyLowering, name: str, args: list[ast.Expr], t: T.Type, loc: str) -> str:
        if rep_of(t) == "s":
            raise CodegenError(f"{name} on strings is not supported by the compiler yet", args[0].pos)
        if name in ("MIN", "MAX", "LIMIT"):
            vals = [self.hold(self.conv(a, t)) for a in args]
            if name == "LIMIT":
                return f"min(max({vals[1]}, {vals[0]}), {vals[2]})"
            fn = name.lower()
            acc = vals[0]
            for v in vals[1:]:
                acc = f"{fn}({acc}, {v})"
            return acc
        sel = self.hold(self.conv(args[0], T.LINT if name == "MUX" else T.BOOL))
        vals = [self.hold(self.conv(a, t)) for a in args[1:]]
        if name == "MUX":
            sel = self.hold(self.checked(f"_c.check_mux(err, {loc}, {typed(sel)}, np.int64({len(vals)}))"))
        r = self.em.temp()
        self.em.out(f"{r} = {vals[0]}")
        for i, v in enumerate(vals[1:], start=1):
            test = sel if name == "SEL" else f"{sel} == {i}"
            self.em.out(f"if {test}:")
            self.em.out(f"    {r} = {v}")
        return r

    def hold(self: BodyLowering, code: str) -> str:
        """Evaluate now (argument order), unless the value cannot change."""
        from stc.codegen.lower_expr import _pure

        if _pure(code):
            return code
        k = self.em.temp()
        self.em.out(f"{k} = {code}")
        return k

    def trunc(self: BodyLowering, arg: ast.Expr, t: T.Type, loc: str) -> str:
        x = self.value(arg)
        b = scalar_base(t)
        assert isinstance(b, T.ElementaryType)
        if b.signed:
            call = f"_r.trunc_to_signed(err, {loc}, {x}, np.int64({b.size}))"
        elif b.size == 64:
            call = f"_r.trunc_to_ulint(err, {loc}, {x})"
        else:
            call = f"_r.trunc_to_unsigned(err, {loc}, {x}, np.int64({b.size}))"
        return self.checked(call)

    def bcd(self: BodyLowering, name: str, arg: ast.Expr, t: T.Type, loc: str) -> str:
        x = self.conv(arg, T.LINT)
        if name.startswith("BCD_TO") or "_BCD_TO_" in name:
            src = scalar_base(arg.ty)
            width = src.size if isinstance(src, T.ElementaryType) else 16
            return self.checked(f"_v.bcd_to_int(err, {loc}, {typed(x)}, np.int64({width}))")
        b = scalar_base(t)
        width = b.size if isinstance(b, T.ElementaryType) else 16
        return self.checked(f"_v.int_to_bcd(err, {loc}, {typed(x)}, np.int64({width}))")

    def conversion(self: BodyLowering, arg: ast.Expr, t: T.Type, loc: str, pos: ast.Pos) -> str:
        s, d = scalar_base(arg.ty), scalar_base(t)
        if isinstance(s, T.StringType):
            return self.from_text(arg, d, loc)
        x = self.value(arg)
        if d is T.BOOL:
            return f"np.int64({x} != 0)"
        if T.is_real(d):
            return convert(x, s, d)
        if T.is_real(s):
            width = d.size if isinstance(d, T.ElementaryType) and d.cls in (T.SIGNED, T.UNSIGNED, T.BIT) else 64
            signed = not (isinstance(d, T.ElementaryType) and d.cls in (T.UNSIGNED, T.BIT))
            if signed:
                return self.checked(f"_r.real_to_signed(err, {loc}, {x}, np.int64({width}))")
            if width == 64:
                return self.checked(f"_r.real_to_ulint(err, {loc}, {x})")
            return self.checked(f"_r.real_to_unsigned(err, {loc}, {x}, np.int64({width}))")
        if s is T.TIME and d is T.LTIME:
            return f"_t.time_to_ltime({typed(x)})"
        if s is T.LTIME and d is T.TIME:
            return f"_t.ltime_to_time({typed(x)})"
        if s is T.DT and d is T.TOD:
            return f"_t.tod_add({typed(x)} * 1000, np.int64(0))"
        if s is T.DT and d is T.DATE:
            return f"({x} - _t.tod_add({typed(x)} * 1000, np.int64(0)) // 1000)"
        return wrap_to(convert(x, s, d), d)

    def from_text(self: BodyLowering, arg: ast.Expr, d: T.Type, loc: str) -> str:
        s = self.string(arg)
        if d is T.BOOL:
            return self.checked(f"_v.text_to_bool(err, {loc}, {s.buf}, {s.n})")
        if T.is_real(d):
            k = self.checked(f"_v.text_to_real(err, {loc}, {s.buf}, {s.n})")
            return f"np.float32({k})" if d is T.REAL else k
        if T.is_duration(d):
            flag = 1 if d is T.LTIME else 0
            return self.checked(f"_v.text_to_duration(err, {loc}, {s.buf}, {s.n}, np.int64({flag}))")
        if rep_of(d) == "u":
            return self.checked(f"_v.text_to_ulint(err, {loc}, {s.buf}, {s.n})")
        return wrap_to(self.checked(f"_v.text_to_int(err, {loc}, {s.buf}, {s.n})"), d)

    # ------------------------------------------------------------------ string results

    def std_string_call(self: BodyLowering, e: ast.Call, spec: stdlib.FunctionSpec) -> StrVal:
        name = spec.name
        args = ordered_args(e, spec)
        t = _result_capacity(e.ty, args)
        if name == "MOVE":
            return self.string(args[0])
        if name in ("SEL", "MUX"):
            sel = self.hold(self.conv(args[0], T.LINT if name == "MUX" else T.BOOL))
            vals = [self.string(a) for a in args[1:]]
            if name == "MUX":
                sel = self.hold(self.checked(
                    f"_c.check_mux(err, {self.loc_id(e.pos)}, {typed(sel)}, np.int64({len(vals)}))"))
            dst = self.scratch(t)
            n = self.em.temp()
            self.em.out(f"{n} = _s.s_assign({dst.buf}, {vals[0].buf}, {vals[0].n})")
            for i, v in enumerate(vals[1:], start=1):
                self.em.out(f"if {sel if name == 'SEL' else f'{sel} == {i}'}:")
                self.em.out(f"    {n} = _s.s_assign({dst.buf}, {v.buf}, {v.n})")
            return StrVal(dst.buf, n, dst.wide)
        if name == "CONCAT":
            acc = self.string(args[0])
            for a in args[1:]:
                b = self.string(a)
                dst = self.scratch(t)
                n = self.em.temp()
                self.em.out(f"{n} = _s.s_concat({dst.buf}, {acc.buf}, {acc.n}, {b.buf}, {b.n})")
                acc = StrVal(dst.buf, n, dst.wide)
            return acc
        if "_TO_" in name or name.startswith("TO_"):
            return self.to_text(args[0], t)
        ints = {"LEFT": 1, "RIGHT": 1, "MID": 1, "DELETE": 1, "INSERT": 2, "REPLACE": 2}
        if name not in ints:
            raise CodegenError(f"string function {name} is not supported by the compiler yet", e.pos)
        strs = [self.string(a) for a in args[: ints[name]]]
        nums = [typed(self.conv(a, T.LINT)) for a in args[ints[name]:]]
        dst = self.scratch(t)
        n = self.em.temp()
        parts = [dst.buf] + [f"{s.buf}, {s.n}" for s in strs] + nums
        self.em.out(f"{n} = _s.s_{name.lower()}({', '.join(parts)})")
        return StrVal(dst.buf, n, dst.wide)

    def to_text(self: BodyLowering, arg: ast.Expr, t: T.Type) -> StrVal:
        dst = self.scratch(t)
        n = self.em.temp()
        s = scalar_base(arg.ty)
        if isinstance(s, T.StringType):
            src = self.string(arg)
            self.em.out(f"{n} = _s.s_assign({dst.buf}, {src.buf}, {src.n})")
            return StrVal(dst.buf, n, dst.wide)
        x = self.value(arg)
        if s is T.BOOL:
            fn = "bool_to_text"
        elif s is T.TIME:
            fn = "time_to_text"
        elif s is T.LTIME:
            fn = "ltime_to_text"
        else:
            fn = _TEXT_OF[rep_of(s)]
        self.em.out(f"{n} = _v.{fn}({dst.buf}, {typed(x)})")
        return StrVal(dst.buf, n, dst.wide)


def _result_capacity(t: T.Type, args: list[ast.Expr]) -> T.StringType:
    """Scratch type of a string result: large enough for every input together (the
    semantic pass types INSERT('ABC', 'XY', 2) as STRING(3); the store truncates later)."""
    b = T.base_of(t)
    assert isinstance(b, T.StringType)
    total = sum(a.ty.length for a in args if isinstance(T.base_of(a.ty), T.StringType))
    return T.StringType(min(max(b.length, total), 65535), b.wide)


UNARY_OR_ABS = {"ABS", "ATAN2", "SQRT", "LN", "LOG", "EXP", "SIN", "COS", "TAN", "ASIN", "ACOS", "ATAN"}
from stc.codegen.lower_expr import UNARY_FLOAT  # noqa: E402


class _Code(ast.Expr):
    """An already-lowered operand (used to chain variadic ADD/MUL)."""

    __slots__ = ("code",)

    def __init__(self, pos: ast.Pos, code: str, ty: T.Type) -> None:
        self.pos = pos
        self.code = code
        self.ty = ty
        self.const = ast.NOT_CONST
