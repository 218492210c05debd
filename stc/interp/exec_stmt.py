"""Statement execution (§7), with the watchdog of §12 counting every loop iteration.

A statement list returns a completion signal (None, EXIT, CONTINUE, RETURN) rather than
raising, because EXIT/CONTINUE are ordinary control flow inside hot loops.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stc import ast
from stc.interp import values as V
from stc.interp.faults import CONTINUE, EXIT, RETURN, Fault
from stc.interp.memory import Frame, ItemRef

if TYPE_CHECKING:
    from stc.interp.machine import Interpreter


class StmtExecutor:
    """Mixin of `Interpreter`: `exec_block`."""

    def exec_block(self: Interpreter, stmts: list[ast.Stmt], fr: Frame) -> str | None:
        for s in stmts:
            try:
                sig = _EXEC[type(s)](self, s, fr)
            except Fault as f:
                raise f.at(s.pos, fr.pou_name) from None
            if sig is not None:
                return sig
        return None

    def back_edge(self: Interpreter) -> None:
        self.loop_count += 1
        if self.loop_count > self.watchdog_limit:
            raise Fault("WATCHDOG", f"more than {self.watchdog_limit} loop iterations in one scan")

    def _Assign(self: Interpreter, s: ast.Assign, fr: Frame) -> None:
        value = self.eval(s.value, fr)
        target = self.ref(s.target, fr)
        target.set(V.store(value, s.value.ty, s.target.ty))

    def _CallStmt(self: Interpreter, s: ast.CallStmt, fr: Frame) -> None:
        self.call(s.call, fr)

    def _If(self: Interpreter, s: ast.If, fr: Frame) -> str | None:
        for br in s.branches:
            if self.eval(br.cond, fr):
                return self.exec_block(br.body, fr)
        if s.else_body:
            return self.exec_block(s.else_body, fr)
        return None

    def _Case(self: Interpreter, s: ast.Case, fr: Frame) -> str | None:
        sel = self.eval(s.selector, fr)
        for br in s.branches:
            for label in br.labels:
                if isinstance(label, ast.CaseRange):
                    hit = label.lo.const <= sel <= label.hi.const
                else:
                    hit = label.const == sel
                if hit:
                    return self.exec_block(br.body, fr)
        if s.else_body:
            return self.exec_block(s.else_body, fr)
        return None

    def _For(self: Interpreter, s: ast.For, fr: Frame) -> str | None:
        """`v := start; WHILE (step > 0 AND v <= end) OR (step < 0 AND v >= end) DO body;
        v := v + step; END_WHILE` with end and step re-evaluated before every test (D6)."""
        var = ItemRef(*self.slot(s.var.symbol, fr))
        vt = s.var.ty
        var.set(V.store(self.eval(s.start, fr), s.start.ty, vt))
        first = True
        while True:
            step = self.eval(s.step, fr) if s.step is not None else 1
            if first and step == 0:
                raise Fault("FOR_STEP_ZERO", "FOR loop with BY 0")
            first = False
            end = self.eval(s.end, fr)
            v = var.get()
            if not ((step > 0 and v <= end) or (step < 0 and v >= end)):
                return None
            sig = self.exec_block(s.body, fr)
            if sig == EXIT:
                return None
            if sig == RETURN:
                return sig
            var.set(V.store(var.get() + step, vt, vt))
            self.back_edge()

    def _While(self: Interpreter, s: ast.While, fr: Frame) -> str | None:
        while self.eval(s.cond, fr):
            sig = self.exec_block(s.body, fr)
            if sig == EXIT:
                return None
            if sig == RETURN:
                return sig
            self.back_edge()
        return None

    def _Repeat(self: Interpreter, s: ast.Repeat, fr: Frame) -> str | None:
        while True:
            sig = self.exec_block(s.body, fr)
            if sig == EXIT:
                return None
            if sig == RETURN:
                return sig
            self.back_edge()  # counts every iteration, like the FOR/WHILE body executions
            if self.eval(s.cond, fr):
                return None

    def _Exit(self: Interpreter, s: ast.Stmt, fr: Frame) -> str:
        return EXIT

    def _Continue(self: Interpreter, s: ast.Stmt, fr: Frame) -> str:
        return CONTINUE

    def _Return(self: Interpreter, s: ast.Stmt, fr: Frame) -> str:
        return RETURN

    def _Empty(self: Interpreter, s: ast.Stmt, fr: Frame) -> None:
        return None


_EXEC: dict[type, Any] = {
    ast.Assign: StmtExecutor._Assign,
    ast.CallStmt: StmtExecutor._CallStmt,
    ast.If: StmtExecutor._If,
    ast.Case: StmtExecutor._Case,
    ast.For: StmtExecutor._For,
    ast.While: StmtExecutor._While,
    ast.Repeat: StmtExecutor._Repeat,
    ast.Exit: StmtExecutor._Exit,
    ast.Continue: StmtExecutor._Continue,
    ast.Return: StmtExecutor._Return,
    ast.Empty: StmtExecutor._Empty,
}
