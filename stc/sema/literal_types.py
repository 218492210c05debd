"""Typing of literals (§1.1): typed prefixes, and untyped literals that take their context.

An untyped literal has no type of its own: `i + 1` is INT arithmetic when `i` is INT,
`b : BYTE := 300` is an out-of-range error. The resolver remembers which expressions
are built only from untyped literals so that the context can give them a type later.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stc import ast
from stc import types as T
from stc.sema.consteval import as_real


def literal_type(e: ast.Expr, expected: T.Type | None) -> tuple[T.Type, Any, bool, str | None]:
    """(type, value, untyped?, error message) of a literal node."""
    if isinstance(e, ast.IntLit):
        if e.type_prefix:
            t = T.elementary(e.type_prefix)
            if t is None:
                return T.ERROR, None, False, f"unknown type '{e.type_prefix}' in typed literal"
            if t.cls == T.REAL_CLS:
                return t, as_real(e.value, t), False, None
            if t is T.BOOL:
                if e.value in (0, 1):
                    return t, bool(e.value), False, None
                return t, None, False, f"literal {e.value} is out of range of BOOL"
            if not T.fits(e.value, t):
                return t, None, False, f"literal {e.value} is out of range of {t.name}"
            return t, e.value, False, None
        b = T.base_of(expected) if expected is not None else None
        if isinstance(b, T.EnumType):
            b = b.base or T.INT
        if b is not None and T.is_anyint(b) and T.fits(e.value, expected if isinstance(expected, T.SubrangeType) else b):
            return b, e.value, True, None
        return T.int_literal_type(e.value), e.value, True, None
    if isinstance(e, ast.RealLit):
        if e.type_prefix:
            t = T.elementary(e.type_prefix)
            if t is None or t.cls != T.REAL_CLS:
                return T.ERROR, None, False, f"real literal cannot have type {e.type_prefix}"
            return t, as_real(e.value, t), False, None
        t = T.REAL if expected is not None and T.base_of(expected) is T.REAL else T.LREAL
        return t, as_real(e.value, t), True, None
    if isinstance(e, ast.BoolLit):
        return T.BOOL, bool(e.value), False, None
    if isinstance(e, ast.DurationLit):
        return (T.LTIME if e.kind == "LTIME" else T.TIME), e.value, False, None
    if isinstance(e, ast.DateTimeLit):
        return T.elementary(e.kind) or T.ERROR, e.value, False, None
    if isinstance(e, ast.StringLit):
        return T.StringType(max(len(e.value), 1), e.wide), e.value, False, None
    raise TypeError(type(e).__name__)


def retype_real(value: Any, t: T.Type) -> Any:
    """The value of an untyped real literal once its context made it REAL."""
    return np.float32(value) if T.base_of(t) is T.REAL else float(value)
