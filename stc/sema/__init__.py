"""The semantic pass: index -> declarations -> typed bodies and checks -> I/O list.

`analyze` runs every stage and collects all diagnostics; it never stops at the first.
"""

from __future__ import annotations

from stc import ast
from stc.diagnostics import Diagnostics
from stc.sema.declare import Declarer
from stc.sema.iolist import IOPoint, build_io_list
from stc.sema.model import SemanticModel
from stc.sema.resolve import Resolver
from stc.sema.symbols import build_index
from stc.sema.validate import check_bodies, check_recursion

__all__ = ["analyze", "SemanticModel", "IOPoint"]


def analyze(src: ast.SourceFile, diags: Diagnostics) -> tuple[SemanticModel, list[IOPoint]]:
    model, type_decls = build_index(src, diags)
    resolver = Resolver(model, diags)
    declarer = Declarer(model, type_decls, resolver, diags)
    declarer.declare_all()
    declarer.declare_entry()
    declarer.check_memory()
    check_bodies(model, resolver, diags)
    check_recursion(model, diags)
    io = build_io_list(model, diags)
    return model, io
