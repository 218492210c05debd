"""Statement checks (§7) and whole-program rules (recursion), run after declarations.

Walks every POU body once: expressions are typed through the resolver, then each
statement's own rules are checked (targets, conditions, CASE labels, FOR, EXIT/CONTINUE).
"""

from __future__ import annotations

from stc import ast
from stc import types as T
from stc.diagnostics import Diagnostics
from stc.sema.iolist import canonical_address
from stc.sema.model import POUInfo, SemanticModel, Variable
from stc.sema.resolve import RELATIONAL, Resolver, root_variable
from stc.sema.symbols import Scope


class BodyChecker:
    """Checks the statements of one POU body."""

    def __init__(self, resolver: Resolver, scope: Scope, diags: Diagnostics) -> None:
        self.r = resolver
        self.scope = scope
        self.diags = diags
        self.loop_depth = 0
        self.for_vars: list[Variable] = []

    def error(self, msg: str, pos: ast.Pos) -> None:
        self.diags.error(msg, pos.line, pos.col)

    def warn(self, msg: str, pos: ast.Pos) -> None:
        self.diags.warning(msg, pos.line, pos.col)

    def block(self, stmts: list[ast.Stmt]) -> None:
        for s in stmts:
            method = getattr(self, "_" + type(s).__name__, None)
            if method is not None:
                method(s)

    # ------------------------------------------------------------------ statements

    def _Assign(self, s: ast.Assign) -> None:
        tt = self.r.expr(s.target, self.scope)
        self.r.expr(s.value, self.scope, tt if tt is not T.ERROR else None)
        if isinstance(s.value, ast.Call) and s.value.ty is T.VOID:
            return
        if self.check_target(s.target) and tt is not T.ERROR:
            self.r.coerce(s.value, tt)

    def check_target(self, target: ast.Expr) -> bool:
        problem = self.r.lvalue_problem_at(target)
        if problem:
            self.error(*problem)
            return False
        v = root_variable(target)
        if v is not None and isinstance(target, ast.Name) and any(v is f for f in self.for_vars):
            self.error(f"cannot assign to FOR control variable '{v.name}' inside its loop", target.pos)
            return False
        loc = target.address if isinstance(target, ast.DirectAddress) else (
            v.location if v is not None and target is not None and isinstance(target, ast.Name) else None)
        if loc is not None and loc.area.upper() == "I":
            self.warn(f"write to input {canonical_address(loc)} is overwritten at the next input refresh",
                      target.pos)
        return True

    def _CallStmt(self, s: ast.CallStmt) -> None:
        self.r.call(s.call, self.scope, statement=True)

    def _cond(self, c: ast.Expr, what: str) -> None:
        t = self.r.expr(c, self.scope, T.BOOL)
        if t is not T.ERROR and T.base_of(t) is not T.BOOL:
            self.error(f"{what} condition must be BOOL, got {t}", c.pos)

    def _If(self, s: ast.If) -> None:
        for i, br in enumerate(s.branches):
            self._cond(br.cond, "IF" if i == 0 else "ELSIF")
            self.block(br.body)
        if s.else_body:
            self.block(s.else_body)

    def _While(self, s: ast.While) -> None:
        self._cond(s.cond, "WHILE")
        self._loop(s.body)

    def _Repeat(self, s: ast.Repeat) -> None:
        self._loop(s.body)
        self._cond(s.cond, "UNTIL")

    def _loop(self, body: list[ast.Stmt]) -> None:
        self.loop_depth += 1
        self.block(body)
        self.loop_depth -= 1

    def _Exit(self, s: ast.Exit) -> None:
        if not self.loop_depth:
            self.error("EXIT outside a loop", s.pos)

    def _Continue(self, s: ast.Continue) -> None:
        if not self.loop_depth:
            self.error("CONTINUE outside a loop", s.pos)

    def _For(self, s: ast.For) -> None:
        vt = self.r.expr(s.var, self.scope)
        v = s.var.symbol if isinstance(s.var.symbol, Variable) else None
        ok_var = vt is not T.ERROR
        if ok_var and (v is None or not T.is_integer(vt) or isinstance(vt, T.EnumType)):
            self.error(f"FOR control variable '{s.var.name}' must be a plain variable of an integer type, got {vt}",
                       s.var.pos)
            ok_var = False
        elif ok_var and v is not None and (v.constant or v.section == "VAR_IN_OUT" and False):
            self.error(f"cannot use constant '{v.name}' as FOR control variable", s.var.pos)
        for part in (s.start, s.end, s.step):
            if part is None:
                continue
            t = self.r.expr(part, self.scope, vt if ok_var else None)
            if t is not T.ERROR and not T.is_integer(t):
                self.error(f"FOR start, end and step must be integers, got {t}", part.pos)
            elif ok_var and t is not T.ERROR and part is s.start:
                self.r.coerce(part, vt)
        if s.step is not None and s.step.const == 0 and not isinstance(s.step.const, bool):
            self.warn("FOR step is 0: runtime error FOR_STEP_ZERO when the loop is reached", s.step.pos)
        if ok_var and isinstance(s.end.const, int):
            lo, hi = T.int_range(T.base_of(vt))
            step = s.step.const if s.step is not None else 1
            if (isinstance(step, int) and step > 0 and s.end.const >= hi) or (
                    isinstance(step, int) and step < 0 and s.end.const <= lo):
                self.warn(f"FOR end value {s.end.const} is the maximum/minimum of {vt}: the loop variable wraps and "
                          "the loop never terminates (watchdog)", s.end.pos)
        read = _names_read([s.end] + ([s.step] if s.step is not None else []))
        written = _names_written(s.body)
        for k, pos in written.items():
            if k in read:
                self.warn(f"the FOR body assigns '{read[k]}', which the end/step expression reads "
                          "(re-evaluated before every test)", pos)
        if v is not None:
            self.for_vars.append(v)
        self._loop(s.body)
        if v is not None:
            self.for_vars.pop()

    def _Case(self, s: ast.Case) -> None:
        st = self.r.expr(s.selector, self.scope)
        sb = T.base_of(st)
        ok = st is not T.ERROR
        if ok and not (T.is_anyint(sb) or isinstance(sb, T.EnumType)):
            self.error(f"CASE selector must be an integer, bit string or enumeration, got {st}", s.selector.pos)
            ok = False
        seen: list[tuple[int, int, ast.Pos]] = []
        for br in s.branches:
            for label in br.labels:
                rng = self._case_label(label, st if ok else None)
                if rng is None:
                    continue
                lo, hi = rng
                for plo, phi, _ppos in seen:
                    if lo <= phi and plo <= hi:
                        text = str(lo) if lo == hi else f"{lo}..{hi}"
                        if (lo, hi) == (plo, phi):
                            self.error(f"duplicate CASE label {text}", label.pos)
                        else:
                            self.error(f"CASE label {text} overlaps an earlier label", label.pos)
                        break
                seen.append((lo, hi, label.pos))
            self.block(br.body)
        if s.else_body:
            self.block(s.else_body)

    def _case_label(self, label: ast.CaseLabel, st: T.Type | None) -> tuple[int, int] | None:
        parts = [label.lo, label.hi] if isinstance(label, ast.CaseRange) else [label]
        values: list[int] = []
        for p in parts:
            t = self.r.expr(p, self.scope, st)
            if t is T.ERROR:
                return None
            if not isinstance(p.const, int):
                self.error("CASE label must be a constant", p.pos)
                return None
            if st is not None:
                sb, lb = T.base_of(st), T.base_of(t)
                if isinstance(sb, T.EnumType) != isinstance(lb, T.EnumType) or (
                        isinstance(sb, T.EnumType) and sb is not lb) or not (T.is_anyint(lb) or isinstance(lb, T.EnumType)):
                    self.error(f"CASE label of type {t} does not match the selector type {st}", p.pos)
                    return None
            values.append(int(p.const))
        if len(values) == 2 and values[0] > values[1]:
            self.error(f"CASE range {values[0]}..{values[1]} is empty (lower bound greater than upper bound)", label.pos)
            return None
        return values[0], values[-1]


def _names_read(exprs: list[ast.Expr]) -> dict[str, str]:
    out: dict[str, str] = {}
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if isinstance(e, ast.Name):
            out[ast.key(e.name)] = e.name
        elif isinstance(e, ast.Binary):
            stack += [e.left, e.right]
        elif isinstance(e, ast.Unary):
            stack.append(e.operand)
        elif isinstance(e, ast.Member | ast.BitAccess):
            stack.append(e.obj)
        elif isinstance(e, ast.Index):
            stack += [e.obj, *e.indices]
        elif isinstance(e, ast.Call):
            stack += [a.value for a in e.args if a.value is not None]
    return out


def _names_written(stmts: list[ast.Stmt]) -> dict[str, ast.Pos]:
    out: dict[str, ast.Pos] = {}
    for s in _walk_stmts(stmts):
        if isinstance(s, ast.Assign):
            t = s.target
            while isinstance(t, ast.Member | ast.Index | ast.BitAccess):
                t = t.obj
            if isinstance(t, ast.Name):
                out.setdefault(ast.key(t.name), s.target.pos)
    return out


def _walk_stmts(stmts: list[ast.Stmt]):
    for s in stmts:
        yield s
        if isinstance(s, ast.If):
            for br in s.branches:
                yield from _walk_stmts(br.body)
            yield from _walk_stmts(s.else_body or [])
        elif isinstance(s, ast.Case):
            for cb in s.branches:
                yield from _walk_stmts(cb.body)
            yield from _walk_stmts(s.else_body or [])
        elif isinstance(s, ast.For | ast.While | ast.Repeat):
            yield from _walk_stmts(s.body)


def check_bodies(model: SemanticModel, resolver: Resolver, diags: Diagnostics) -> None:
    for info in model.pous.values():
        BodyChecker(resolver, Scope(model, info), diags).block(info.node.body)
        for m in info.methods.values():
            BodyChecker(resolver, Scope(model, m), diags).block(m.node.body)


def check_recursion(model: SemanticModel, diags: Diagnostics) -> None:
    """Direct or indirect recursion between POUs (calls or FB instance nesting) is an error."""
    state: dict[POUInfo, int] = {}  # 1 = on the stack, 2 = done

    def visit(p: POUInfo, stack: list[POUInfo]) -> None:
        state[p] = 1
        stack.append(p)
        for q in p.calls:
            if state.get(q) == 1:
                cycle = stack[stack.index(q):] + [q]
                path = " -> ".join(_qualified(x) for x in cycle)
                for caller, callee in zip(cycle, cycle[1:], strict=False):  # every call on the cycle
                    site = caller.calls[callee]
                    diags.error(f"recursion between POUs is not supported: {path}", site.line, site.col)
            elif q not in state:
                visit(q, stack)
        stack.pop()
        state[p] = 2

    for info in _all_pous(model):
        if info not in state:
            visit(info, [])


def _qualified(p: POUInfo) -> str:
    return f"{p.fb.name}.{p.name}" if p.fb is not None else p.name


def _all_pous(model: SemanticModel) -> list[POUInfo]:
    out = []
    for info in model.pous.values():
        out.append(info)
        out.extend(info.methods.values())
    return out


__all__ = ["BodyChecker", "check_bodies", "check_recursion", "RELATIONAL"]
