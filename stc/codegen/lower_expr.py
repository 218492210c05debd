"""Lowering of expressions and access paths to Python source for numba.

Values: every integer-like type (BOOL 0/1, integers, bit strings, enumerations, TIME ms,
LTIME ns, dates) is int64 except ULINT/LWORD (uint64); REAL float32; LREAL float64
(`rep_of`). Integer expressions stay exact in 64 bits and narrow only at stores (§6.3,
D2). Every sub-expression is parenthesised; there are no conditional expressions and no
Python `and`/`or`. Anything with side effects or a runtime check is evaluated into a
temporary before the statement that uses it, keeping §6.2's left-to-right order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from stc import ast, stdlib
from stc import types as T
from stc.ast import NOT_CONST
from stc.codegen.emit import number, typed
from stc.codegen.layout import STORES, storage
from stc.runtime import fbs
from stc.sema import consteval as C
from stc.sema.model import EnumValue, POUInfo, Variable

if TYPE_CHECKING:
    from stc.codegen.lower_pou import BodyLowering

WRAP = {"SINT": "wrap_sint", "INT": "wrap_int", "DINT": "wrap_dint", "USINT": "wrap_usint",
        "UINT": "wrap_uint", "UDINT": "wrap_udint", "BYTE": "wrap_byte", "WORD": "wrap_word",
        "DWORD": "wrap_dword"}
UNARY_FLOAT = {"SQRT": "sqrt", "LN": "log", "LOG": "log10", "EXP": "exp", "SIN": "sin", "COS": "cos",
               "TAN": "tan", "ASIN": "arcsin", "ACOS": "arccos", "ATAN": "arctan"}
COMPARE = {"=": "==", "<>": "!=", "<": "<", ">": ">", "<=": "<=", ">=": ">="}


class CodegenError(Exception):
    """A construct the code generator cannot lower (reported as a diagnostic)."""

    def __init__(self, message: str, pos: ast.Pos) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


def scalar_base(t: T.Type) -> T.Type:
    b = T.base_of(t)
    if isinstance(b, T.EnumType):
        return b.base or T.INT
    return b


def rep_of(t: T.Type) -> str:
    b = scalar_base(t)
    if b in (T.ULINT, T.LWORD):
        return "u"
    if b is T.REAL:
        return "f"
    if b is T.LREAL:
        return "d"
    if isinstance(b, T.StringType):
        return "s"
    return "i"


def convert(code: str, src: T.Type, dst: T.Type) -> str:
    """Change the representation of a value from type src to type dst (no narrowing)."""
    a, b = rep_of(src), rep_of(dst)
    if scalar_base(src) is T.TIME and scalar_base(dst) is T.LTIME:
        code = f"({code} * 1000000)"
    if a == b:
        return code
    return {"i": f"np.int64({code})", "u": f"np.uint64({code})", "f": f"np.float32({code})",
            "d": f"np.float64({code})"}[b]


def offset(base: str, k: int) -> str:
    if k == 0:
        return base
    if base.isdigit():
        return str(int(base) + k)
    return f"({base} + {k})"


@dataclass(frozen=True)
class Loc:
    """An lvalue: one base offset expression per store, and the ST type living there."""

    bases: tuple[str, ...]
    type: T.Type

    def at(self, store: str) -> str:
        return self.bases[STORES.index(store)]

    def shifted(self, delta: tuple[int, ...], t: T.Type) -> Loc:
        return Loc(tuple(offset(b, d) for b, d in zip(self.bases, delta, strict=True)), t)


@dataclass(frozen=True)
class StrVal:
    """A string operand: buffer expression (a slice) and length expression."""

    buf: str
    n: str
    wide: bool


class ExprLowering:
    """Mixin of BodyLowering: expressions, access paths, loads and stores."""

    # ------------------------------------------------------------------ loads/stores

    def load(self: BodyLowering, loc: Loc) -> str:
        st = storage(loc.type)
        cell = f"{st}[{loc.at(st)}]"
        if rep_of(loc.type) == "u":
            return f"np.uint64({cell})"
        return cell

    def store(self: BodyLowering, loc: Loc, code: str, src: T.Type, pos: ast.Pos) -> None:
        """Assign a value (implicit conversion, then the §5.3 store rule) to a scalar lvalue."""
        t = loc.type
        b = T.base_of(t)
        if isinstance(b, T.StringType):
            raise CodegenError("internal: string store through scalar path", pos)
        c = convert(code, src, t)
        sb = scalar_base(t)
        literal = _int_literal(c)
        if literal is not None and storage(t) == "mi" and not isinstance(t, T.SubrangeType):
            c = number(C.store(literal, sb), "i")  # a constant store narrows at compile time
        elif isinstance(t, T.SubrangeType):
            c = f"_c.check_subrange(err, {self.loc_id(pos)}, {typed(c)}, np.int64({t.lo}), np.int64({t.hi}))"
        elif isinstance(sb, T.ElementaryType) and sb.name in WRAP:
            c = f"_i.{WRAP[sb.name]}({typed(c)})"
        elif rep_of(t) == "u":
            c = f"np.int64({c})"
        st = storage(t)
        self.em.out(f"{st}[{loc.at(st)}] = {c}")

    def copy_block(self: BodyLowering, dst: Loc, src: Loc, size: tuple[int, ...]) -> None:
        """Whole-array / whole-struct assignment: copy every store's slice (same type)."""
        for st, n in zip(STORES, size, strict=True):
            if n:
                d, s = dst.at(st), src.at(st)
                self.em.out(f"_m.copy_cells({st}, {typed(d)}, {st}, {typed(s)}, np.int64({n}))")

    # ------------------------------------------------------------------ access paths

    def lvalue(self: BodyLowering, e: ast.Expr) -> Loc:
        if isinstance(e, ast.Name):
            if isinstance(e.symbol, Variable):
                return self.var_loc(e.symbol)
            raise CodegenError(f"'{e.name}' is not a variable", e.pos)
        if isinstance(e, ast.This):
            return self.this_loc()
        if isinstance(e, ast.DirectAddress):
            return self.g.direct_loc(e.address)
        if isinstance(e, ast.Member):
            return self.member_loc(e)
        if isinstance(e, ast.Index):
            return self.index_loc(e)
        raise CodegenError("expression is not a variable", e.pos)

    def member_loc(self: BodyLowering, e: ast.Member) -> Loc:
        obj = e.obj
        ot = T.base_of(obj.ty)
        if isinstance(ot, T.ProgramType):
            return self.g.program_var_loc(ot.pou, e.member, e.pos)
        base = self.lvalue(obj)
        if isinstance(ot, T.StructType):
            f = self.g.sizer.struct(ot).fields[e.member.upper()]
            return base.shifted(f.offset, f.type)
        if isinstance(ot, T.FBType) and ot.standard:
            layout = fbs.LAYOUTS[ot.name]
            p = ot.find(e.member)
            assert p is not None
            k = layout.offset(p.name)
            return base.shifted((k, 0, 0, 0, 0), p.type)
        if isinstance(ot, T.FBType):
            f = self.g.sizer.fb(ot.pou).fields[e.member.upper()]
            floc = base.shifted(f.offset, f.type)
            if f.section == "VAR_IN_OUT":
                return self.deref(floc)
            return floc
        raise CodegenError(f"cannot access member '{e.member}'", e.pos)

    def deref(self: BodyLowering, ref: Loc) -> Loc:
        """A VAR_IN_OUT reference cell block -> the referenced variable."""
        i = ref.at("mi")
        return Loc(tuple(f"mi[{offset(i, k)}]" for k in range(len(STORES))), ref.type)

    def index_loc(self: BodyLowering, e: ast.Index) -> Loc:
        at = T.base_of(e.obj.ty)
        assert isinstance(at, T.ArrayType)
        base = self.lvalue(e.obj)
        elem = self.g.sizer.size(at.elem)
        stride = 1
        strides = []
        for lo, hi in reversed(at.dims):
            strides.append(stride)
            stride *= hi - lo + 1
        strides.reverse()
        terms = []
        for idx, (lo, hi), s in zip(e.indices, at.dims, strides, strict=True):
            if isinstance(idx.const, int) and not isinstance(idx.const, bool):
                terms.append(str((idx.const - lo) * s))
                continue
            code = self.conv(idx, T.LINT)
            k = self.em.temp()
            self.em.out(f"{k} = _c.check_index(err, {self.loc_id(idx.pos)}, {typed(code)}, "
                        f"np.int64({lo}), np.int64({hi}))")
            scaled = f"({k} - {lo})" if lo else k
            terms.append(scaled if s == 1 else f"({scaled} * {s})")
        if all(t.lstrip("-").isdigit() for t in terms):
            lin = sum(int(t) for t in terms)
            return base.shifted(tuple(lin * n for n in elem), at.elem)
        if len(terms) == 1 and sum(1 for n in elem if n) == 1:
            lin = terms[0]
        else:
            lin = self.em.temp()
            self.em.out(f"{lin} = {' + '.join(terms)}")
        bases = []
        for b, n in zip(base.bases, elem, strict=True):
            bases.append(b if n == 0 else (f"({b} + {lin})" if n == 1 else f"({b} + {lin} * {n})"))
        return Loc(tuple(bases), at.elem)

    # ------------------------------------------------------------------ values

    def conv(self: BodyLowering, e: ast.Expr, target: T.Type) -> str:
        """Value of e in the representation of `target` (no narrowing)."""
        return convert(self.value(e), e.ty, target)

    def const_code(self: BodyLowering, value: Any, t: T.Type) -> str | None:
        if value is NOT_CONST or value is None:
            return None
        r = rep_of(t)
        if r == "s" or isinstance(value, dict | list | str):
            return None
        if r == "i" and isinstance(value, float):
            return None
        return number(value, r)

    def value(self: BodyLowering, e: ast.Expr) -> str:
        """Python expression for a scalar (non-string) ST expression."""
        c = self.const_code(e.const, e.ty)
        if c is not None:
            return c
        method = getattr(self, "_v_" + type(e).__name__, None)
        if method is None:
            raise CodegenError(f"unsupported expression {type(e).__name__}", e.pos)
        return method(e)

    def _v_Name(self: BodyLowering, e: ast.Name) -> str:
        s = e.symbol
        if isinstance(s, EnumValue):
            return number(s.value, "i")
        if isinstance(s, Variable):
            if isinstance(T.base_of(s.type), T.StringType):
                raise CodegenError("internal: string in scalar context", e.pos)
            return self.load(self.var_loc(s))
        raise CodegenError(f"'{e.name}' has no value", e.pos)

    def _v_DirectAddress(self: BodyLowering, e: ast.DirectAddress) -> str:
        return self.load(self.lvalue(e))

    def _v_Index(self: BodyLowering, e: ast.Index) -> str:
        return self.load(self.lvalue(e))

    def _v_Member(self: BodyLowering, e: ast.Member) -> str:
        ot = T.base_of(e.obj.ty)
        if T.is_anyint(ot) and T.base_of(e.ty) is T.BOOL and not isinstance(ot, T.FBType):
            # `status.BIT_READY`: bit index given by a named constant
            v = self.scope_variable(e.member)
            return f"_i.get_bit({typed(self.value(e.obj))}, np.int64({v.init}))"
        return self.load(self.lvalue(e))

    def _v_BitAccess(self: BodyLowering, e: ast.BitAccess) -> str:
        return f"_i.get_bit({typed(self.value(e.obj))}, np.int64({e.bit}))"

    def _v_Unary(self: BodyLowering, e: ast.Unary) -> str:
        x = self.conv(e.operand, e.ty)
        r = rep_of(e.ty)
        if e.op == "+":
            return x
        if e.op == "-":
            return f"(np.uint64(0) - {x})" if r == "u" else f"(-{x})"
        b = scalar_base(e.ty)
        if b is T.BOOL:
            return f"(1 - {x})"
        assert isinstance(b, T.ElementaryType)
        if b.signed or b.size == 64:
            return f"(~{x})"
        return f"({x} ^ {(1 << b.size) - 1})"

    def _v_Binary(self: BodyLowering, e: ast.Binary) -> str:
        op = e.op
        if op in ("AND_THEN", "OR_ELSE"):
            return self.short_circuit(e)
        if op in COMPARE:
            return self.compare(e)
        lt, rt = scalar_base(e.left.ty), scalar_base(e.right.ty)
        if op in ("AND", "OR", "XOR"):
            a, b = self.operands(e, e.ty, e.ty)
            return f"({a} {dict(AND='&', OR='|', XOR='^')[op]} {b})"
        if T.cls_of(lt) in (T.DURATION, T.DATE_CLS) or T.cls_of(rt) in (T.DURATION, T.DATE_CLS):
            return self.time_arith(e, lt, rt)
        return self.arith(op, e, e.left, e.right, e.ty)

    def operands(self: BodyLowering, e: ast.Binary, lt: T.Type, rt: T.Type) -> tuple[str, str]:
        """Both operands, left evaluated first even when the right one needs statements."""
        a = self.conv(e.left, lt)
        mark, indent = self.em.mark(), self.em.indent
        b = self.conv(e.right, rt)
        if self.em.mark() != mark and not _pure(a):
            k = self.em.temp()
            self.em.insert(mark, indent, f"{k} = {a}")
            a = k
        return a, b

    def arith(self: BodyLowering, op: str, e: ast.Expr, left: ast.Expr, right: ast.Expr, t: T.Type) -> str:
        fake = ast.Binary(e.pos, op, left, right)
        r = rep_of(t)
        if op == "**":
            a, b = self.operands(fake, T.LREAL, T.LREAL)
            fn = "expt_real" if r == "f" else "expt_lreal"
            return f"_r.{fn}({a}, {b})"
        a, b = self.operands(fake, t, t)
        if op in ("+", "-", "*"):
            return f"({a} {op} {b})"
        loc = self.loc_id(e.pos)
        if op == "/":
            fn = {"i": "_i.div_int", "u": "_i.div_ulint", "f": "_r.div_real", "d": "_r.div_lreal"}[r]
        elif op == "MOD":
            fn = {"i": "_i.mod_int", "u": "_i.mod_ulint"}[r]
        else:
            raise CodegenError(f"operator {op} is not supported here", e.pos)
        return self.checked(f"{fn}(err, {loc}, {typed(a)}, {typed(b)})")

    def checked(self: BodyLowering, call: str) -> str:
        """A helper call that may record a runtime error (tested at the next loop iteration)."""
        return call

    def time_arith(self: BodyLowering, e: ast.Binary, lt: T.Type, rt: T.Type) -> str:
        op, rt_ = e.op, scalar_base(e.ty)
        cl, cr = T.cls_of(lt), T.cls_of(rt)
        loc = self.loc_id(e.pos)
        if cl == T.DURATION and cr == T.DURATION:
            a, b = self.operands(e, rt_, rt_)
            return f"({a} {op} {b})"
        if cl == T.DURATION and T.is_real(rt) or cr == T.DURATION and T.is_real(lt):
            if cl == T.DURATION:
                a, b = self.operands(e, T.LINT, T.LREAL)
            else:
                b, a = self.operands(e, T.LREAL, T.LINT)
            fn = "time_mul_real" if op == "*" else "time_div_real"
            return self.checked(f"_t.{fn}(err, {loc}, {typed(a)}, {b})")
        if cl == T.DURATION or cr == T.DURATION and cl not in (T.DATE_CLS,):
            if op in ("*",):
                a, b = self.operands(e, T.LINT, T.LINT)
                return f"({a} * {b})"
            if op == "/":
                a, b = self.operands(e, T.LINT, T.LINT)
                return self.checked(f"_i.div_int(err, {loc}, {typed(a)}, {typed(b)})")
        if cl == T.DATE_CLS and cr == T.DURATION:
            a, b = self.operands(e, T.LINT, T.LINT)
            sign = "" if op == "+" else "-"
            fn = "tod_add" if lt is T.TOD else "dt_add"
            return f"_t.{fn}({typed(a)}, {typed(sign + b if sign else b)})"
        if cl == T.DATE_CLS and cr == T.DATE_CLS and op == "-":
            a, b = self.operands(e, T.LINT, T.LINT)
            if lt is T.TOD:
                return f"({a} - {b})"
            return f"_t.seconds_diff_to_time({typed(a)}, {typed(b)})"
        raise CodegenError(f"'{op}' on {lt} and {rt} is not supported", e.pos)

    def compare(self: BodyLowering, e: ast.Binary) -> str:
        a, b = T.base_of(e.left.ty), T.base_of(e.right.ty)
        op = COMPARE[e.op]
        if isinstance(a, T.StringType):
            sa = self.string(e.left)
            sb = self.string(e.right)
            return f"(_s.s_compare({sa.buf}, {sa.n}, {sb.buf}, {sb.n}) {op} 0)"
        if T.is_num(a) and T.is_num(b):
            t = T.common_num(a, b)
        elif T.cls_of(a) == T.DURATION:
            t = T.LTIME if T.LTIME in (a, b) else T.TIME
        else:
            t = T.LINT
        x, y = self.operands(e, t, t)
        return f"({x} {op} {y})"

    def short_circuit(self: BodyLowering, e: ast.Binary) -> str:
        """AND_THEN / OR_ELSE as a nested `if` (the right side only when needed)."""
        k = self.em.temp()
        self.em.out(f"{k} = np.int64({self.value(e.left)})")
        test = k if e.op == "AND_THEN" else f"{k} == 0"
        self.em.out(f"if {test}:")
        self.em.indent += 1
        self.em.out(f"{k} = np.int64({self.value(e.right)})")
        self.em.indent -= 1
        return k

    def _v_Call(self: BodyLowering, e: ast.Call) -> str:
        sym = e.func.symbol if isinstance(e.func, ast.Name) else None
        if isinstance(sym, stdlib.FunctionSpec):
            return self.std_call(e, sym)
        result = self.user_call(e)
        if result is None:
            raise CodegenError("call without a result used as a value", e.pos)
        return result

    def scope_variable(self: BodyLowering, name: str) -> Variable:
        k = ast.key(name)
        pou: POUInfo | None = self.pou
        for p in (pou, pou.fb if pou is not None else None):
            if p is not None and k in p.variables:
                return p.variables[k]
        return self.g.model.globals[k]

    # ------------------------------------------------------------------ strings

    def string(self: BodyLowering, e: ast.Expr) -> StrVal:
        t = T.base_of(e.ty)
        assert isinstance(t, T.StringType)
        if isinstance(e.const, str):
            return self.g.literal(e.const, t.wide)
        if isinstance(e, ast.Name | ast.Member | ast.Index):
            return self.string_at(self.lvalue(e))
        if isinstance(e, ast.Call):
            sym = e.func.symbol if isinstance(e.func, ast.Name) else None
            if isinstance(sym, stdlib.FunctionSpec):
                return self.std_string_call(e, sym)
            self.user_call(e)
            return self.string_at(self.last_result)
        raise CodegenError("unsupported string expression", e.pos)

    def string_at(self: BodyLowering, loc: Loc) -> StrVal:
        t = T.base_of(loc.type)
        assert isinstance(t, T.StringType)
        st = "mw" if t.wide else "ms"
        d = loc.at(st)
        return StrVal(f"{st}[{d}:{offset(d, t.length)}]", f"mi[{loc.at('mi')}]", t.wide)

    def store_string(self: BodyLowering, loc: Loc, s: StrVal) -> None:
        dst = self.string_at(loc)
        self.em.out(f"{dst.n} = _s.s_assign({dst.buf}, {s.buf}, {s.n})")

    def scratch(self: BodyLowering, t: T.Type) -> StrVal:
        b = T.base_of(t)
        assert isinstance(b, T.StringType)
        return self.string_at(self.g.scratch_loc(b))


_PURE = (r"\(?-?[0-9][0-9.e+-]*\)?|\(?-?np\.(nan|inf)\)?|k[0-9]+|now"
         r"|np\.(int64|uint64|float32|float64)\(-?[0-9.e+inf]*\)")


def _pure(code: str) -> bool:
    """Constants and temporaries: values a later statement cannot change."""
    import re

    return re.fullmatch(_PURE, code) is not None


def _int_literal(code: str) -> int | None:
    """The value of an int64 literal produced by `number` (possibly inside np.int64(...))."""
    import re

    m = re.fullmatch(r"(?:np\.int64\()?\(?(-?[0-9]+)\)?\)?", code)
    return int(m.group(1)) if m else None
