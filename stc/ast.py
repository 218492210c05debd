"""The compiler's own syntax tree: small typed nodes with a source position on every node.

The parser maps textX objects to these nodes immediately, so no later stage touches textX.
Names keep the spelling of the source; `key` gives the case-insensitive lookup form.
Expression nodes carry two slots the semantic pass fills in: `ty` (the resolved type) and
`const` (the folded constant value, or `NOT_CONST`); `Name` additionally gets `symbol`.
Code generation and the interpreter read only these nodes and the semantic model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Pos:
    """1-based line and column of the first character of a construct."""

    line: int
    col: int


NOWHERE = Pos(1, 1)


class _NotConst:
    _instance: _NotConst | None = None

    def __new__(cls) -> _NotConst:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_CONST"

    def __bool__(self) -> bool:
        return False


NOT_CONST: Any = _NotConst()


def key(name: str) -> str:
    """Case-insensitive symbol key (ST identifiers are case-insensitive)."""
    return name.upper()


@dataclass(eq=False, slots=True)
class Node:
    pos: Pos


# --------------------------------------------------------------------------- expressions


@dataclass(eq=False, slots=True)
class Expr(Node):
    ty: Any = field(default=None, init=False, repr=False)
    const: Any = field(default=NOT_CONST, init=False, repr=False)


@dataclass(eq=False, slots=True)
class IntLit(Expr):
    """Integer literal; `type_prefix` is the upper-cased `INT` of `INT#5`, else None."""

    value: int
    type_prefix: str | None = None
    text: str = ""


@dataclass(eq=False, slots=True)
class RealLit(Expr):
    value: float
    type_prefix: str | None = None
    text: str = ""


@dataclass(eq=False, slots=True)
class BoolLit(Expr):
    value: bool
    text: str = ""


@dataclass(eq=False, slots=True)
class DurationLit(Expr):
    """TIME literal (value in ms, `kind` 'TIME') or LTIME literal (value in ns, 'LTIME')."""

    value: int
    kind: str = "TIME"
    text: str = ""


@dataclass(eq=False, slots=True)
class DateTimeLit(Expr):
    """DATE / DT (seconds since 1970) or TOD (ms since midnight); `kind` is the canonical type."""

    value: int
    kind: str  # 'DATE' | 'TOD' | 'DT'
    text: str = ""


@dataclass(eq=False, slots=True)
class StringLit(Expr):
    value: str
    wide: bool = False
    text: str = ""


@dataclass(eq=False, slots=True)
class EnumValueLit(Expr):
    """`E_State#RUN` (typed enumerator literal)."""

    type_name: str
    value_name: str


@dataclass(eq=False, slots=True)
class Name(Expr):
    name: str
    symbol: Any = field(default=None, init=False, repr=False)


@dataclass(eq=False, slots=True)
class This(Expr):
    """`THIS^` inside a METHOD or FB body."""


@dataclass(eq=False, slots=True)
class DirectAddress(Expr):
    """`%IX0.3` used directly in code."""

    address: Location


@dataclass(eq=False, slots=True)
class Member(Expr):
    """`obj.member` (struct member, FB input/output, `E.X`, `prog.var`, method name)."""

    obj: Expr
    member: str
    member_pos: Pos = NOWHERE


@dataclass(eq=False, slots=True)
class BitAccess(Expr):
    """`obj.3` — bit index given as an integer literal; `bit_pos` is where the 3 is."""

    obj: Expr
    bit: int
    bit_pos: Pos = NOWHERE


@dataclass(eq=False, slots=True)
class Index(Expr):
    """`obj[i, j]`; `a[i][j]` is Index(Index(a, [i]), [j])."""

    obj: Expr
    indices: list[Expr]


@dataclass(eq=False, slots=True)
class Arg(Node):
    """One call argument: positional (`name` None), `name := value`, or `name => target`."""

    name: str | None
    value: Expr | None
    is_output: bool = False
    negated: bool = False  # `NOT Q => v`


@dataclass(eq=False, slots=True)
class Call(Expr):
    """Function, FB-instance or method call; `func` is Name, or Member for `inst.M`."""

    func: Expr
    args: list[Arg]


@dataclass(eq=False, slots=True)
class Unary(Expr):
    op: str  # '-', '+', 'NOT'
    operand: Expr


@dataclass(eq=False, slots=True)
class Binary(Expr):
    """`op` normalised: 'AND' (also for '&'), 'OR', 'XOR', 'AND_THEN', 'OR_ELSE',
    '+', '-', '*', '/', 'MOD', '**', '=', '<>', '<', '>', '<=', '>='.
    `pos` is where the left operand starts; `op_pos` is where the operator is."""

    op: str
    left: Expr
    right: Expr
    op_pos: Pos = NOWHERE


# --------------------------------------------------------------------------- types


@dataclass(eq=False, slots=True)
class TypeRef(Node):
    pass


@dataclass(eq=False, slots=True)
class NamedType(TypeRef):
    """Elementary type, user type, or FB type by name."""

    name: str


@dataclass(eq=False, slots=True)
class StringType(TypeRef):
    wide: bool = False
    length: Expr | None = None


@dataclass(eq=False, slots=True)
class DimRange(Node):
    lo: Expr
    hi: Expr


@dataclass(eq=False, slots=True)
class ArrayType(TypeRef):
    dims: list[DimRange]
    elem: TypeRef


@dataclass(eq=False, slots=True)
class SubrangeType(TypeRef):
    base: str
    lo: Expr
    hi: Expr


@dataclass(eq=False, slots=True)
class Enumerator(Node):
    name: str
    value: Expr | None = None


@dataclass(eq=False, slots=True)
class EnumType(TypeRef):
    values: list[Enumerator]
    base: str | None = None


@dataclass(eq=False, slots=True)
class StructType(TypeRef):
    members: list[VarDecl]
    extends: str | None = None


# --------------------------------------------------------------------------- initialisers


@dataclass(eq=False, slots=True)
class ArrayInitItem(Node):
    value: Init
    repeat: Expr | None = None  # `n(v)`


@dataclass(eq=False, slots=True)
class ArrayInit(Node):
    items: list[ArrayInitItem]


@dataclass(eq=False, slots=True)
class FieldInit(Node):
    name: str
    value: Init


@dataclass(eq=False, slots=True)
class StructInit(Node):
    """`(x := 1, y := 2)` for structs and FB instances (`t : TON := (PT := T#5s)`)."""

    fields: list[FieldInit]


Init = Expr | ArrayInit | StructInit


# --------------------------------------------------------------------------- declarations


@dataclass(eq=False, slots=True)
class Location(Node):
    """A direct address: `%IX0.3`, `%QW4`, `%MD8`, or a wildcard `%I*`.

    area: 'I' | 'Q' | 'M'; size: 'X' | 'B' | 'W' | 'D' | 'L' (None for a wildcard);
    index: byte/word number; bit: 0..7 or None.
    """

    text: str
    area: str
    size: str | None
    index: int | None
    bit: int | None = None
    wildcard: bool = False


@dataclass(eq=False, slots=True)
class DeclName(Node):
    name: str


@dataclass(eq=False, slots=True)
class VarDecl(Node):
    names: list[DeclName]
    type: TypeRef
    init: Init | None = None
    location: Location | None = None


@dataclass(eq=False, slots=True)
class VarBlock(Node):
    """`kind`: VAR, VAR_INPUT, VAR_OUTPUT, VAR_IN_OUT, VAR_TEMP, VAR_GLOBAL, VAR_EXTERNAL,
    VAR_STAT, VAR_INST. `qualifiers`: subset of CONSTANT, RETAIN, PERSISTENT, NON_RETAIN."""

    kind: str
    decls: list[VarDecl]
    qualifiers: frozenset[str] = frozenset()

    @property
    def constant(self) -> bool:
        return "CONSTANT" in self.qualifiers


@dataclass(eq=False, slots=True)
class TypeDecl(Node):
    name: str
    type: TypeRef
    init: Init | None = None


# --------------------------------------------------------------------------- statements


@dataclass(eq=False, slots=True)
class Stmt(Node):
    pass


@dataclass(eq=False, slots=True)
class Assign(Stmt):
    target: Expr
    value: Expr


@dataclass(eq=False, slots=True)
class CallStmt(Stmt):
    call: Call


@dataclass(eq=False, slots=True)
class IfBranch(Node):
    cond: Expr
    body: list[Stmt]


@dataclass(eq=False, slots=True)
class If(Stmt):
    branches: list[IfBranch]  # IF, then each ELSIF
    else_body: list[Stmt] | None = None


@dataclass(eq=False, slots=True)
class CaseRange(Node):
    lo: Expr
    hi: Expr


CaseLabel = Expr | CaseRange


@dataclass(eq=False, slots=True)
class CaseBranch(Node):
    labels: list[CaseLabel]
    body: list[Stmt]


@dataclass(eq=False, slots=True)
class Case(Stmt):
    selector: Expr
    branches: list[CaseBranch]
    else_body: list[Stmt] | None = None


@dataclass(eq=False, slots=True)
class For(Stmt):
    var: Name
    start: Expr
    end: Expr
    step: Expr | None
    body: list[Stmt]


@dataclass(eq=False, slots=True)
class While(Stmt):
    cond: Expr
    body: list[Stmt]


@dataclass(eq=False, slots=True)
class Repeat(Stmt):
    body: list[Stmt]
    cond: Expr


@dataclass(eq=False, slots=True)
class Exit(Stmt):
    pass


@dataclass(eq=False, slots=True)
class Continue(Stmt):
    pass


@dataclass(eq=False, slots=True)
class Return(Stmt):
    pass


@dataclass(eq=False, slots=True)
class Empty(Stmt):
    pass


# --------------------------------------------------------------------------- POUs


@dataclass(eq=False, slots=True)
class POU(Node):
    name: str
    var_blocks: list[VarBlock]
    body: list[Stmt]
    end_pos: Pos = NOWHERE


@dataclass(eq=False, slots=True)
class Program(POU):
    pass


@dataclass(eq=False, slots=True)
class Method(POU):
    """`fb_name` is set for the qualified form `METHOD FB.M` written after the FB."""

    return_type: TypeRef | None = None
    access: str | None = None  # PUBLIC | PRIVATE | PROTECTED | INTERNAL
    fb_name: str | None = None


@dataclass(eq=False, slots=True)
class FunctionBlock(POU):
    methods: list[Method] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class Function(POU):
    return_type: TypeRef | None = None


@dataclass(eq=False, slots=True)
class TaskDecl(Node):
    name: str
    properties: list[tuple[str, Expr]] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class ProgramInstance(Node):
    name: str
    type_name: str
    task: str | None = None


@dataclass(eq=False, slots=True)
class Resource(Node):
    name: str
    on: str | None
    globals: list[VarBlock]
    tasks: list[TaskDecl]
    instances: list[ProgramInstance]


@dataclass(eq=False, slots=True)
class Configuration(Node):
    name: str
    globals: list[VarBlock]
    resources: list[Resource]
    instances: list[ProgramInstance] = field(default_factory=list)  # declared outside a RESOURCE


@dataclass(eq=False, slots=True)
class SourceFile(Node):
    """All top-level items of one file, in source order within each list."""

    types: list[TypeDecl] = field(default_factory=list)
    pous: list[POU] = field(default_factory=list)  # Program, FunctionBlock, Function, Method (qualified, outside FB)
    globals: list[VarBlock] = field(default_factory=list)
    configurations: list[Configuration] = field(default_factory=list)
