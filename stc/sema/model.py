"""The semantic model: what the code generator and the interpreter consume.

Built by the semantic pass from the AST; every declared thing appears once, with its
resolved type and its fully evaluated initial value. Values use these Python forms:
integers/bit strings/enumerations `int`, BOOL `bool`, REAL `numpy.float32`, LREAL `float`,
TIME ms / LTIME ns / DATE, DT s / TOD ms `int`, strings `str`, arrays a flat row-major
`list`, structs and FB instances a `dict` (declared member name -> value).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stc import ast
from stc import types as T


@dataclass(eq=False)
class Variable:
    """One declared variable (also a function's result and a PROGRAM instance)."""

    name: str
    type: T.Type
    section: str  # VAR, VAR_INPUT, VAR_OUTPUT, VAR_IN_OUT, VAR_TEMP, VAR_STAT, VAR_INST,
    #               VAR_GLOBAL, VAR_EXTERNAL, RESULT (function result), INSTANCE (program instance)
    pos: ast.Pos
    init: Any = None
    constant: bool = False
    retain: bool = False
    location: ast.Location | None = None
    owner: POUInfo | None = field(default=None, repr=False)  # None for globals
    decl: ast.VarDecl | None = field(default=None, repr=False)


@dataclass(eq=False)
class EnumValue:
    """An enumerator as a symbol (bound to `Name.symbol` for `RUN` / `E.RUN`)."""

    type: T.EnumType
    name: str
    value: int


@dataclass(eq=False)
class POUInfo:
    name: str
    kind: str  # PROGRAM | FUNCTION_BLOCK | FUNCTION | METHOD
    node: ast.POU = field(repr=False)
    variables: dict[str, Variable] = field(default_factory=dict, repr=False)  # key(name) -> Variable, in order
    return_type: T.Type | None = None
    methods: dict[str, POUInfo] = field(default_factory=dict, repr=False)
    fb: POUInfo | None = field(default=None, repr=False)  # the FB a METHOD belongs to
    type: T.Type | None = field(default=None, repr=False)  # FBType / FunctionType / ProgramType
    calls: dict[POUInfo, ast.Pos] = field(default_factory=dict, repr=False)  # user POU -> first call/instance site

    @property
    def pos(self) -> ast.Pos:
        return self.node.pos


@dataclass(eq=False)
class UserType:
    name: str
    type: T.Type
    init: Any
    pos: ast.Pos


@dataclass(eq=False)
class ProgramInstance:
    name: str
    pou: POUInfo
    task: str | None
    pos: ast.Pos


@dataclass(eq=False)
class SemanticModel:
    source: ast.SourceFile = field(repr=False)
    types: dict[str, UserType] = field(default_factory=dict)
    pous: dict[str, POUInfo] = field(default_factory=dict)
    globals: dict[str, Variable] = field(default_factory=dict)
    enumerators: dict[str, list[EnumValue]] = field(default_factory=dict)
    standard_fbs: dict[str, T.FBType] = field(default_factory=dict)
    entry: list[ProgramInstance] = field(default_factory=list)
    configuration: str | None = None

    def pou(self, name: str) -> POUInfo | None:
        return self.pous.get(ast.key(name))
