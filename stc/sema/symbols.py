"""The symbol index: every declared name of the file, and name lookup in a POU's scope.

ST names are case-insensitive and resolved file-wide (use before declaration is
allowed), so the index is built from the whole AST before any body is looked at.
"""

from __future__ import annotations

from typing import Any

from stc import ast
from stc import types as T
from stc.diagnostics import Diagnostics
from stc.sema.model import POUInfo, SemanticModel, Variable
from stc.stdlib import RESERVED_NAMES

POU_KINDS = {ast.Program: "PROGRAM", ast.FunctionBlock: "FUNCTION_BLOCK", ast.Function: "FUNCTION", ast.Method: "METHOD"}


def check_reserved(name: str, pos: ast.Pos, diags: Diagnostics) -> bool:
    """Standard type/function/FB names cannot be redeclared (§1)."""
    if ast.key(name) in RESERVED_NAMES:
        diags.error(f"'{name}' is a standard name and cannot be redeclared", pos.line, pos.col)
        return False
    return True


_KEYWORD_LEN = {ast.Program: 8, ast.FunctionBlock: 15, ast.Function: 9, ast.Method: 7}


def name_pos(node: ast.POU) -> ast.Pos:
    """Where a POU's name starts (the AST keeps the keyword's position; one blank assumed)."""
    return ast.Pos(node.pos.line, node.pos.col + _KEYWORD_LEN.get(type(node), 0))


def build_index(src: ast.SourceFile, diags: Diagnostics) -> tuple[SemanticModel, dict[str, ast.TypeDecl]]:
    """Register user types and POUs (with their methods); report duplicates and reserved names."""
    model = SemanticModel(src)
    type_decls: dict[str, ast.TypeDecl] = {}
    seen: dict[str, ast.Pos] = {}

    def register(name: str, pos: ast.Pos) -> bool:
        k = ast.key(name)
        if not check_reserved(name, pos, diags):
            return False
        if k in seen:
            first = seen[k]
            diags.error(f"duplicate declaration of '{name}' (first declared at line {first.line})", pos.line, pos.col)
            return False
        seen[k] = pos
        return True

    for td in src.types:
        if register(td.name, td.pos):
            type_decls[ast.key(td.name)] = td
    detached: list[ast.Method] = []
    for node in src.pous:
        if isinstance(node, ast.Method) and node.fb_name:
            detached.append(node)
            continue
        kind = POU_KINDS.get(type(node))
        if kind is None or not register(node.name, name_pos(node)):
            continue
        info = POUInfo(node.name, kind, node)
        model.pous[ast.key(node.name)] = info
        if isinstance(node, ast.FunctionBlock):
            for m in node.methods:
                _add_method(info, m, diags)
    for m in detached:
        owner = model.pous.get(ast.key(m.fb_name or ""))
        if owner is None or owner.kind != "FUNCTION_BLOCK":
            diags.error(f"unknown function block '{m.fb_name}' for METHOD '{m.name}'", m.pos.line, m.pos.col)
            continue
        _add_method(owner, m, diags)
    return model, type_decls


def _add_method(fb: POUInfo, node: ast.Method, diags: Diagnostics) -> None:
    k = ast.key(node.name)
    if k in fb.methods:
        diags.error(f"duplicate declaration of method '{node.name}' in '{fb.name}'", node.pos.line, node.pos.col)
        return
    fb.methods[k] = POUInfo(node.name, "METHOD", node, fb=fb)


class Scope:
    """Name lookup inside one POU: locals, then the FB's variables (methods), then globals,
    then POUs; enumerators are looked up separately (they may be ambiguous)."""

    def __init__(self, model: SemanticModel, pou: POUInfo | None) -> None:
        self.model = model
        self.pou = pou
        self.unknown_reported: set[str] = set()

    def variable(self, name: str) -> Variable | None:
        k = ast.key(name)
        pou = self.pou
        if pou is not None:
            v = pou.variables.get(k)
            if v is not None:
                return v
            if pou.fb is not None:
                v = pou.fb.variables.get(k)
                if v is not None:
                    return v
        return self.model.globals.get(k)

    def lookup(self, name: str) -> Any:
        """A Variable, a POUInfo, a UserType, or None."""
        v = self.variable(name)
        if v is not None:
            return v
        k = ast.key(name)
        if k in self.model.pous:
            return self.model.pous[k]
        return self.model.types.get(k)

    def method(self, name: str) -> POUInfo | None:
        pou = self.pou
        fb = pou.fb if pou is not None and pou.fb is not None else pou
        if fb is not None and fb.kind == "FUNCTION_BLOCK":
            return fb.methods.get(ast.key(name))
        return None

    @property
    def fb(self) -> POUInfo | None:
        pou = self.pou
        if pou is None:
            return None
        if pou.kind == "FUNCTION_BLOCK":
            return pou
        return pou.fb


def program_type(info: POUInfo) -> T.ProgramType:
    if not isinstance(info.type, T.ProgramType):
        info.type = T.ProgramType(info.name, info)
    return info.type
