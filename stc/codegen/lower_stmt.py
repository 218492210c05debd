"""Lowering of statements (§7).

Every POU body runs inside one `while True: ... break` so that RETURN and a runtime
error can leave it without an early `return` (numba would add reference counting to
the hot path). A statement that may record a runtime error is followed by
`if err[0] != 0: break`; after every ST loop the same test (and the RETURN flag)
propagates the exit outwards. Loops count iterations in `mi[WD_COUNT]` (watchdog, §12).
FOR is the WHILE expansion of §7: bound and step re-evaluated before every test, the
increment stored with wrap-around, the variable left at the first failing value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stc import ast
from stc import types as T
from stc.codegen.emit import number, typed
from stc.codegen.layout import WD_COUNT, WD_LIMIT, is_scalar
from stc.codegen.lower_expr import CodegenError, rep_of

if TYPE_CHECKING:
    from stc.codegen.lower_pou import BodyLowering


class StmtLowering:
    """Mixin of BodyLowering: statements."""

    def block(self: BodyLowering, stmts: list[ast.Stmt]) -> None:
        mark = self.em.mark()
        for s in stmts:
            self.statement(s)
        if self.em.mark() == mark:
            self.em.out("pass")

    def statement(self: BodyLowering, s: ast.Stmt) -> None:
        getattr(self, "_s_" + type(s).__name__)(s)

    def check_error(self: BodyLowering) -> None:
        """Runtime errors are tested once per loop iteration (see `watchdog`), not per
        statement: after an error, straight-line code only computes harmless values into
        memory that is discarded, and every loop leaves at its next iteration."""

    def cond(self: BodyLowering, e: ast.Expr) -> str:
        return self.value(e)

    # ------------------------------------------------------------------ simple statements

    def _s_Empty(self: BodyLowering, s: ast.Empty) -> None:
        pass

    def _s_Assign(self: BodyLowering, s: ast.Assign) -> None:
        target, value = s.target, s.value
        tt = T.base_of(target.ty)
        if isinstance(target, ast.BitAccess) or (
            isinstance(target, ast.Member) and T.is_anyint(T.base_of(target.obj.ty)) and tt is T.BOOL):
            self.assign_bit(target, value)
            return
        if isinstance(tt, T.StringType):
            src = self.string(value)
            self.store_string(self.lvalue(target), src)
        elif not is_scalar(target.ty):
            src_loc = self.lvalue(value)
            self.copy_block(self.lvalue(target), src_loc, self.g.sizer.size(target.ty))
        else:
            code = self.value(value)
            self.store(self.lvalue(target), code, value.ty, s.pos)

    def assign_bit(self: BodyLowering, target: ast.Expr, value: ast.Expr) -> None:
        assert isinstance(target, ast.BitAccess | ast.Member)
        bit = target.bit if isinstance(target, ast.BitAccess) else self.scope_variable(target.member).init
        v = self.hold(self.conv(value, T.BOOL))
        loc = self.lvalue(target.obj)
        code = f"_i.set_bit({typed(self.load(loc))}, np.int64({bit}), {typed(v)})"
        self.store(loc, code, T.ULINT, target.pos)

    def _s_CallStmt(self: BodyLowering, s: ast.CallStmt) -> None:
        e = s.call
        if T.is_string(T.base_of(e.ty)):
            self.string(e)
        elif e.ty is T.VOID or e.ty is None:
            self.user_call(e)
        else:
            self.hold(self.value(e))

    def _s_Return(self: BodyLowering, s: ast.Return) -> None:
        self.em.out("rf = 1")
        self.uses_return_flag = True
        self.em.out("break")

    def _s_Exit(self: BodyLowering, s: ast.Exit) -> None:
        self.em.out("break")

    def _s_Continue(self: BodyLowering, s: ast.Continue) -> None:
        self.em.out("continue")

    # ------------------------------------------------------------------ selection

    def _s_If(self: BodyLowering, s: ast.If) -> None:
        first = True
        depth = 0
        for br in s.branches:
            if first:
                c = self.cond(br.cond)
                self.em.out(f"if {c}:")
                first = False
            else:
                self.em.out("else:")
                self.em.indent += 1
                mark = self.em.mark()
                c = self.cond(br.cond)
                if self.em.mark() == mark:
                    self.em.lines.pop()
                    self.em.indent -= 1
                    self.em.out(f"elif {c}:")
                else:
                    depth += 1
                    self.em.out(f"if {c}:")
            self.em.indent += 1
            self.block(br.body)
            self.em.indent -= 1
        if s.else_body:
            self.em.out("else:")
            self.em.indent += 1
            self.block(s.else_body)
            self.em.indent -= 1
        self.em.indent -= depth

    def _s_Case(self: BodyLowering, s: ast.Case) -> None:
        sel_t = T.LINT if rep_of(s.selector.ty) == "i" else s.selector.ty
        k = self.hold(self.conv(s.selector, sel_t))
        if self.needs_check:
            self.check_error()
        kw = "if"
        for br in s.branches:
            tests = []
            for lab in br.labels:
                if isinstance(lab, ast.CaseRange):
                    tests.append(f"(({k} >= {self.label(lab.lo)}) & ({k} <= {self.label(lab.hi)}))")
                else:
                    tests.append(f"({k} == {self.label(lab)})")
            self.em.out(f"{kw} {' | '.join(tests)}:")
            kw = "elif"
            self.em.indent += 1
            self.block(br.body)
            self.em.indent -= 1
        if s.else_body:
            if kw == "if":
                self.em.out("if True:")
            else:
                self.em.out("else:")
            self.em.indent += 1
            self.block(s.else_body)
            self.em.indent -= 1

    def label(self: BodyLowering, e: ast.Expr) -> str:
        v = e.const
        if isinstance(v, bool) or not isinstance(v, int):
            raise CodegenError("CASE label is not a constant integer", e.pos)
        return str(v) if rep_of(e.ty) != "u" else f"np.uint64({v})"

    # ------------------------------------------------------------------ loops

    def watchdog(self: BodyLowering, pos: ast.Pos) -> None:
        self.em.out(f"mi[{WD_COUNT}] += 1")
        self.em.out(f"if (mi[{WD_COUNT}] > mi[{WD_LIMIT}]) | (err[0] != 0):")
        self.em.out(f"    _e.raise_error(err, _e.WATCHDOG, {self.loc_id(pos)})  # keeps an earlier error")
        self.em.out("    break")

    def loop_body(self: BodyLowering, body: list[ast.Stmt]) -> bool:
        """Lower a loop body; True when it contains a RETURN (the flag must propagate)."""
        before = self.uses_return_flag
        self.uses_return_flag = False
        self.loop_depth += 1
        self.block(body)
        self.loop_depth -= 1
        inside = self.uses_return_flag
        self.uses_return_flag = before or inside
        return inside

    def after_loop(self: BodyLowering, has_return: bool) -> None:
        """Propagate a RETURN out of the loop just closed (errors stop at the next iteration)."""
        if has_return:
            self.em.out("if rf != 0:")
            self.em.out("    break")

    def _s_While(self: BodyLowering, s: ast.While) -> None:
        self.em.out("while True:")
        self.em.indent += 1
        c = self.cond(s.cond)
        self.em.out(f"if not ({c}):")
        self.em.out("    break")
        self.watchdog(s.pos)
        has_return = self.loop_body(s.body)
        self.em.indent -= 1
        self.after_loop(has_return)

    def _s_Repeat(self: BodyLowering, s: ast.Repeat) -> None:
        started = self.em.temp("r")
        self.em.out(f"{started} = 0")
        self.em.out("while True:")
        self.em.indent += 1
        self.em.out(f"if {started} != 0:")
        self.em.indent += 1
        c = self.cond(s.cond)
        self.em.out(f"if {c}:")
        self.em.out("    break")
        self.em.indent -= 1
        self.em.out(f"{started} = 1")
        self.watchdog(s.pos)
        has_return = self.loop_body(s.body)
        self.em.indent -= 1
        self.after_loop(has_return)

    def _s_For(self: BodyLowering, s: ast.For) -> None:
        var = self.lvalue(s.var)
        vt = s.var.ty
        wt = T.LINT if rep_of(vt) == "i" else vt
        self.needs_check = False
        self.store(var, self.value(s.start), s.start.ty, s.pos)
        fixed = _fixed_step(s) if rep_of(vt) == "i" else None
        if fixed is not None:
            # a constant non-zero step: no step variable, no BY 0 check, a one-sided test
            # (the same loop with about half the statements numba has to compile)
            step = number(fixed, "i")
        else:
            step = self.em.temp()
            step_code = self.conv(s.step, wt) if s.step is not None else ("1" if wt is T.LINT else "np.uint64(1)")
            self.em.out(f"{step} = {step_code}")
            if rep_of(vt) == "i":
                self.em.out(f"_c.check_for_step(err, {self.loc_id(s.step.pos if s.step else s.pos)}, {step})")
        self.check_error()
        started = self.em.temp("r")
        self.em.out(f"{started} = 0")
        self.em.out("while True:")
        self.em.indent += 1
        self.em.out(f"if {started} != 0:")
        self.em.indent += 1
        self.store(var, f"({self.load(var)} + {step})", wt, s.pos)
        if fixed is None and s.step is not None and s.step.const is ast.NOT_CONST:
            self.needs_check = False
            self.em.out(f"{step} = {self.conv(s.step, wt)}")
            if self.needs_check:
                self.check_error()
        self.em.indent -= 1
        self.em.out(f"{started} = 1")
        self.needs_check = False
        end = self.hold(self.conv(s.end, wt))
        if self.needs_check:
            self.check_error()
        v = self.load(var)
        if rep_of(vt) == "u":
            self.em.out(f"if not ({v} <= {end}):")
        elif fixed is not None:
            self.em.out(f"if not ({v} {'<=' if fixed > 0 else '>='} {end}):")
        else:
            self.em.out(f"if not ((({step} > 0) & ({v} <= {end})) | (({step} < 0) & ({v} >= {end}))):")
        self.em.out("    break")
        self.watchdog(s.pos)
        has_return = self.loop_body(s.body)
        self.em.indent -= 1
        self.after_loop(has_return)


def _fixed_step(s: ast.For) -> int | None:
    """The FOR step when it is a non-zero integer constant (BY omitted is 1), else None."""
    if s.step is None:
        return 1
    c = s.step.const
    if isinstance(c, int) and not isinstance(c, bool) and c != 0:
        return c
    return None
