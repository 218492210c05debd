"""Calls (§8): user FUNCTIONs, FB instances, METHODs, standard FBs and standard functions.

A call assigns the supplied inputs (stored with the implicit conversion of §5.1), binds each
VAR_IN_OUT to the caller's location, runs the body once, then performs the `=>` copies.
Omitted FB inputs keep their value; omitted FUNCTION inputs take their initial value
because a FUNCTION's variables are created afresh for every call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stc import ast, stdlib
from stc import types as T
from stc.interp import values as V
from stc.interp.memory import Frame
from stc.interp.stdfbs import run_standard_fb
from stc.interp.stdfns import call_standard
from stc.sema.model import POUInfo, Variable

if TYPE_CHECKING:
    from stc.interp.machine import Interpreter

# Sections created afresh on every FUNCTION/METHOD call.
CALL_LOCAL = ("VAR", "VAR_INPUT", "VAR_OUTPUT", "RESULT", "VAR_TEMP")


class CallMixin:
    """Mixin of `Interpreter` for every kind of call."""

    def call(self: Interpreter, e: ast.Call, fr: Frame) -> Any:
        f = e.func
        ft = T.base_of(f.ty) if f.ty is not None else None
        if isinstance(f, ast.Member) and not isinstance(ft, T.FBType):
            ot = T.base_of(f.obj.ty)
            method = ot.pou.methods[ast.key(f.member)]
            return self.call_method(method, self._object(f.obj, fr), e, fr)
        if not isinstance(f, ast.Name):  # `arr[i](...)`, `s.fb(...)`: an FB instance by access path
            self.call_fb(self.eval(f, fr), ft, e, fr)
            return None
        sym = f.symbol
        if isinstance(sym, stdlib.FunctionSpec):
            return call_standard(self, sym, e, fr)
        if isinstance(sym, POUInfo):
            if sym.kind == "METHOD":
                return self.call_method(sym, fr.inst, e, fr)
            return self.call_function(sym, e, fr)
        if isinstance(sym, Variable):
            container, key = self.slot(sym, fr)
            self.call_fb(container[key], T.base_of(sym.type), e, fr)
            return None
        raise TypeError(f"cannot call {f!r}")

    # ------------------------------------------------------------------ user POUs

    def call_function(self: Interpreter, info: POUInfo, e: ast.Call, fr: Frame) -> Any:
        callee = Frame(info, _fresh_locals(info))
        return self._invoke(info, callee, e, fr)

    def call_method(self: Interpreter, info: POUInfo, inst: dict[str, Any], e: ast.Call, fr: Frame) -> Any:
        callee = Frame(info, _fresh_locals(info), inst=inst)
        return self._invoke(info, callee, e, fr)

    def call_fb(self: Interpreter, inst: dict[str, Any], ft: Any, e: ast.Call, fr: Frame) -> None:
        assert isinstance(ft, T.FBType)
        if ft.standard:
            outputs = self._assign_inputs(inst, None, ft, e, fr)
            run_standard_fb(ft.name, inst, self.now_ms)
            self._copy_outputs(outputs, inst, ft, fr)
            return
        info: POUInfo = ft.pou
        for v in info.variables.values():
            if v.owner is info and v.section == "VAR_TEMP":
                inst[v.name] = V.clone(v.init)
        callee = Frame(info, inst, inst=inst, inouts={})
        inst["$io"] = callee.inouts
        self._invoke(info, callee, e, fr)

    def _invoke(self: Interpreter, info: POUInfo, callee: Frame, e: ast.Call, fr: Frame) -> Any:
        outputs = self._assign_inputs(callee.locals, callee, info.type, e, fr, info)
        self.exec_block(info.node.body, callee)
        self._copy_outputs(outputs, callee.locals, info.type, fr, info)
        result = info.variables.get(ast.key(info.name))
        if result is not None and result.section == "RESULT" and result.owner is info:
            return callee.locals[result.name]
        return None

    def _assign_inputs(self: Interpreter, target: dict[str, Any], callee: Frame | None, ft: Any,
                       e: ast.Call, fr: Frame, info: POUInfo | None = None) -> list[tuple[ast.Arg, Any]]:
        """Inputs and in-outs in argument order; returns the `=>` arguments for later."""
        outputs = []
        for a in e.args:
            assert a.value is not None and a.name is not None
            p = _param(ft, info, a.name)
            if a.is_output:
                outputs.append((a, p))
            elif p.section == "VAR_IN_OUT":
                assert callee is not None
                callee.inouts[p.name] = self.ref(a.value, fr)
            else:
                target[p.name] = V.store(self.eval(a.value, fr), a.value.ty, p.type)
        return outputs

    def _copy_outputs(self: Interpreter, outputs: list[tuple[ast.Arg, Any]], source: dict[str, Any], ft: Any,
                      fr: Frame, info: POUInfo | None = None) -> None:
        for a, p in outputs:
            assert a.value is not None
            value = source[p.name]
            src_t = p.type
            if a.negated:
                value, src_t = not value, T.BOOL
            target = self.ref(a.value, fr)
            target.set(V.store(value, src_t, a.value.ty))

    # ------------------------------------------------------------------ static storage

    def method_static(self: Interpreter, fr: Frame, v: Variable) -> tuple[dict[str, Any], str]:
        """VAR_INST / VAR_STAT of a METHOD: persistent per FB instance."""
        assert fr.inst is not None and v.owner is not None
        key = f"${v.owner.name}.{v.name}"
        if key not in fr.inst:
            fr.inst[key] = V.clone(v.init)
        return fr.inst, key

    def function_static(self: Interpreter, v: Variable) -> tuple[dict[str, Any], str]:
        """VAR_STAT of a FUNCTION: one copy per POU."""
        assert v.owner is not None
        store = self.statics.setdefault(v.owner.name, {})
        if v.name not in store:
            store[v.name] = V.clone(v.init)
        return store, v.name


def _fresh_locals(info: POUInfo) -> dict[str, Any]:
    return {v.name: V.clone(v.init) for v in info.variables.values()
            if v.owner is info and v.section in CALL_LOCAL}


def _param(ft: Any, info: POUInfo | None, name: str) -> Any:
    """The interface variable (user POU) or pin (standard FB) an argument binds to."""
    if info is not None:
        return info.variables[ast.key(name)]
    p = ft.find(name)
    assert p is not None
    return p

