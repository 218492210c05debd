"""Lowering of calls to user POUs and FB instances (§8).

FB instance call: store the given inputs into the instance, bind in-outs (their five
bases go into the instance's reference cells), run the body, copy `=>` outputs.
FUNCTION/METHOD call: evaluate every argument first (a nested call of the same function
would otherwise clobber the frame), reset the static frame from its pristine image
(VAR, omitted inputs and VAR_TEMP start from their initial values at every call), store
the arguments, run the body, read the result into a temporary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stc import ast
from stc import types as T
from stc.codegen.emit import typed
from stc.codegen.layout import STORES, Field, is_scalar
from stc.codegen.lower_expr import CodegenError, Loc, StrVal, offset
from stc.runtime import fbs
from stc.sema.model import POUInfo

if TYPE_CHECKING:
    from stc.codegen.lower_pou import BodyLowering

TIMERS = {"TON", "TOF", "TP", "LTON", "LTOF", "LTP"}


class CallLowering:
    """Mixin of BodyLowering: user FUNCTION / METHOD / FB instance calls."""

    last_result: Loc

    def user_call(self: BodyLowering, e: ast.Call) -> str | None:
        f = e.func
        ft = T.base_of(f.ty) if f.ty is not None else None
        if isinstance(ft, T.FBType):  # an instance: `inst(...)`, `arr[i](...)`, `s.fb(...)`
            inst = self.lvalue(f)
            if ft.standard:
                self.std_fb_call(e, ft, inst)
            else:
                self.fb_call(e, ft.pou, inst)
            return None
        if isinstance(f, ast.Member):
            info = self.method_of(f)
            return self.pou_call(e, info, self.lvalue(f.obj))
        sym = f.symbol if isinstance(f, ast.Name) else None
        if isinstance(sym, POUInfo) and sym.kind == "METHOD":
            return self.pou_call(e, sym, self.this_loc())
        if isinstance(sym, POUInfo):
            return self.pou_call(e, sym, None)
        raise CodegenError("unsupported call", e.pos)

    def method_of(self: BodyLowering, f: ast.Member) -> POUInfo:
        ot = T.base_of(f.obj.ty)
        if not isinstance(ot, T.FBType) or ot.standard:
            raise CodegenError("method call on a non-FB value", f.pos)
        return ot.pou.methods[ast.key(f.member)]

    # ------------------------------------------------------------------ standard FBs

    def std_fb_call(self: BodyLowering, e: ast.Call, ft: T.FBType, inst: Loc) -> None:
        layout = fbs.LAYOUTS[ft.name]
        outputs = []
        for a in e.args:
            if a.value is None or a.name is None:
                continue
            p = ft.find(a.name)
            assert p is not None
            pin = inst.shifted((layout.offset(p.name), 0, 0, 0, 0), p.type)
            if a.is_output:
                outputs.append((a, pin))
            else:
                self.assign_value(pin, a.value)
        step, consts = fbs.step_call(ft.name)
        extra = "".join(f", np.int64({c})" for c in consts)
        if ft.name in TIMERS:
            extra += ", now * 1000000" if ft.name.startswith("L") else ", now"
        self.em.out(f"_f.{step}(mi, {typed(inst.at('mi'))}{extra})")
        for a, pin in outputs:
            self.copy_out(a, pin)

    def copy_out(self: BodyLowering, a: ast.Arg, src: Loc) -> None:
        assert a.value is not None
        if a.negated:
            code = f"(1 - {self.load(src)})"
            self.store(self.lvalue(a.value), code, T.BOOL, a.pos)
        elif T.is_string(T.base_of(src.type)):
            self.store_string(self.lvalue(a.value), self.string_at(src))
        elif not is_scalar(src.type):
            self.copy_block(self.lvalue(a.value), src, self.g.sizer.size(src.type))
        else:
            self.store(self.lvalue(a.value), self.load(src), src.type, a.pos)

    # ------------------------------------------------------------------ user FBs

    def fb_call(self: BodyLowering, e: ast.Call, info: POUInfo, inst: Loc) -> None:
        rec = self.g.sizer.fb(info)
        outputs = []
        for a in e.args:
            if a.value is None or a.name is None:
                continue
            fld = rec.fields[a.name.upper()]
            dst = inst.shifted(fld.offset, fld.type)
            if a.is_output:
                outputs.append((a, dst))
            elif fld.section == "VAR_IN_OUT":
                self.bind_ref(dst, a.value)
            else:
                self.assign_value(dst, a.value)
        self.em.out(f"{self.g.fn_name(info)}(mi, mr, ml, ms, mw, {', '.join(map(typed, inst.bases))}, now, err)")
        self.needs_check = True
        for a, src in outputs:
            self.copy_out(a, src)

    def bind_ref(self: BodyLowering, ref: Loc, target: ast.Expr) -> None:
        loc = self.lvalue(target)
        i = ref.at("mi")
        for k, b in enumerate(loc.bases):
            self.em.out(f"mi[{offset(i, k)}] = {b}")

    # ------------------------------------------------------------------ functions and methods

    def pou_call(self: BodyLowering, e: ast.Call, info: POUInfo, inst: Loc | None) -> str | None:
        frame = self.g.frame(info)
        held: list[tuple[ast.Arg, Field, Any]] = []
        outputs = []
        for a in e.args:
            if a.value is None or a.name is None:
                continue
            fld = frame.record.fields[a.name.upper()]
            if a.is_output:
                outputs.append((a, fld))
            elif fld.section == "VAR_IN_OUT":
                held.append((a, fld, self.lvalue(a.value)))
            elif T.is_string(T.base_of(fld.type)):
                held.append((a, fld, self.held_string(a.value, fld.type)))
            elif not is_scalar(fld.type):
                held.append((a, fld, self.lvalue(a.value)))
            else:
                held.append((a, fld, self.hold(self.conv(a.value, fld.type))))
        self.reset_block(frame.base, frame.image, frame.record.size)
        fbase = Loc(tuple(str(b) for b in frame.base), T.VOID)
        for a, fld, v in held:
            dst = fbase.shifted(fld.offset, fld.type)
            if fld.section == "VAR_IN_OUT":
                i = dst.at("mi")
                for k, b in enumerate(v.bases):
                    self.em.out(f"mi[{offset(i, k)}] = {b}")
            elif isinstance(v, StrVal):
                self.store_string(dst, v)
            elif isinstance(v, Loc):
                self.copy_block(dst, v, self.g.sizer.size(fld.type))
            else:
                self.store(dst, v, fld.type, a.pos)
        args = "mi, mr, ml, ms, mw"
        if inst is not None:
            args += ", " + ", ".join(map(typed, inst.bases))
        self.em.out(f"{self.g.fn_name(info)}({args}, now, err)")
        self.needs_check = True
        for a, fld in outputs:
            self.copy_out(a, fbase.shifted(fld.offset, fld.type))
        rfield = frame.record.fields.get(info.name.upper())
        if rfield is None or info.return_type in (None, T.VOID):
            return None
        rloc = fbase.shifted(rfield.offset, rfield.type)
        if T.is_string(T.base_of(rfield.type)):
            tmp = self.g.scratch_loc(T.base_of(rfield.type))
            self.store_string(tmp, self.string_at(rloc))
            self.last_result = tmp
            return None
        if not is_scalar(rfield.type):
            raise CodegenError("functions returning arrays or structs are not supported by the compiler yet", e.pos)
        return self.hold(self.load(rloc))

    def held_string(self: BodyLowering, e: ast.Expr, param: T.Type) -> StrVal:
        """A string argument copied into a scratch buffer of the parameter's type (the
        callee's frame may alias the argument; the store truncates to the parameter)."""
        s = self.string(e)
        tmp = self.g.scratch_loc(T.base_of(param))
        self.store_string(tmp, s)
        return self.string_at(tmp)

    def reset_block(self: BodyLowering, dst: tuple[Any, ...], image: tuple[int, ...], size: tuple[int, ...]) -> None:
        """Copy a pristine image over a frame or VAR_TEMP block (re-initialisation)."""
        for st, d, s, n in zip(STORES, dst, image, size, strict=True):
            if n:
                self.em.out(f"_m.copy_cells({st}, {typed(str(d))}, {st}, np.int64({s}), np.int64({n}))")

    def assign_value(self: BodyLowering, dst: Loc, value: ast.Expr) -> None:
        """`dst := value` for any type (scalar store rule, string copy, block copy)."""
        b = T.base_of(dst.type)
        if isinstance(b, T.StringType):
            self.store_string(dst, self.string(value))
        elif not is_scalar(dst.type):
            self.copy_block(dst, self.lvalue(value), self.g.sizer.size(dst.type))
        else:
            self.store(dst, self.value(value), value.ty, value.pos)


__all__ = ["CallLowering", "typed"]
