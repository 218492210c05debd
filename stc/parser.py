"""ST source text -> `stc.ast.SourceFile`: preprocess, textX parse, build our own nodes.

The textX model is converted immediately (no later stage sees textX objects). The grammar
parses expressions flat; `_climb` applies the precedence table of ST_LANGUAGE.md 6.1.
Constructs the dialect rejects are recognised by the grammar and reported here with the
wording of ST_LANGUAGE.md. No input text ever raises: every failure becomes a diagnostic.

Tree conventions the later stages rely on:
- parentheses leave no node; `-` directly before an untyped number is folded into the
  literal (`-128` is IntLit(-128, text='-128')), any other unary minus is a Unary;
- Binary.pos is where its left operand starts, Binary.op_pos where the operator is;
  Member.member_pos / BitAccess.bit_pos point at the name / bit number after the dot;
- a simple statement that contained a reported error (ADR, `^`, SUPER^, a bad literal,
  ExST forms) is left out of the body; rejected types are replaced by a stand-in
  (POINTER TO T -> T, UNION -> STRUCT) so no follow-on errors are produced.
"""

from __future__ import annotations

import bisect
import functools
import gc
import re
import sys
from typing import Any

from textx import metamodel_from_file
from textx.exceptions import TextXSyntaxError

from stc import ast
from stc.diagnostics import CompileLimitError, Diagnostics, Severity
from stc.grammar import GRAMMAR_FILE
from stc.grammar.limits import check_nesting, check_size, check_tokens
from stc.grammar.syntax_errors import syntax_message
from stc.literals import build_literal
from stc.preprocess import line_col, preprocess

MSG_POINTER = "pointers/references/dynamic memory are not supported"
MSG_OO = "object-oriented inheritance/interfaces are not supported"
MSG_JMP = "JMP/labels are not supported"
MSG_EXST = "ExST assignment forms are not supported"
MSG_FB_INIT = ("FB_init arguments in declarations are not supported;"
               " initialise inputs with ':= (name := value)'")
MSG_COMPARISON_STMT = "comparison used as statement; did you mean ':='?"

_POINTER_FUNCTIONS = {"ADR", "ADRINST", "BITADR", "__NEW", "__DELETE", "__ISVALIDREF",
                      "__QUERYINTERFACE", "__QUERYPOINTER"}
_REJECTED_BLOCKS = {
    "PROPERTY": "PROPERTY is not supported; use a METHOD or a VAR_OUTPUT",
    "INTERFACE": MSG_OO,
    "ACTION": "ACTIONs are not supported",
    "VAR_ACCESS": "VAR_ACCESS is not supported by plantloop",
    "VAR_CONFIG": "VAR_CONFIG is not supported by plantloop",
    "STEP": "SFC (STEP/TRANSITION) is not supported by plantloop",
    "INITIAL_STEP": "SFC (STEP/TRANSITION) is not supported by plantloop",
    "TRANSITION": "SFC (STEP/TRANSITION) is not supported by plantloop",
    "__TRY": "__TRY/__CATCH/__FINALLY exception handling is not supported",
}
_ELEMENTARY_TYPES = {
    "BOOL", "SINT", "INT", "DINT", "LINT", "USINT", "UINT", "UDINT", "ULINT", "BYTE", "WORD",
    "DWORD", "LWORD", "REAL", "LREAL", "TIME", "LTIME", "DATE", "TOD", "DT", "TIME_OF_DAY",
    "DATE_AND_TIME", "STRING", "WSTRING", "CHAR", "WCHAR",
}
_ACCESS_MODIFIERS = {"PUBLIC", "PRIVATE", "PROTECTED", "INTERNAL"}

# ST_LANGUAGE.md 6.1: smaller binds tighter; all binary operators are left-associative.
_PRECEDENCE = {"**": 3, "*": 4, "/": 4, "MOD": 4, "+": 5, "-": 5,
               "<": 6, ">": 6, "<=": 6, ">=": 6, "=": 7, "<>": 7,
               "AND": 8, "AND_THEN": 8, "XOR": 9, "OR": 10, "OR_ELSE": 10}
_RECURSION_HEADROOM = 20_000
_FIRST_WORD = re.compile(r"\w+")
_SPACES = re.compile(r"\s*")
_NEWLINE = re.compile(r"\n")
_DOT = re.compile(r"\.\s*")
_OPERATOR_NAMES = {"&": "AND"}
_UNARY_PREFIX = re.compile(r"(?:\s*(?:NOT(?!\w)|-|\+))*\s*")


@functools.cache
def _metamodel() -> Any:
    """The textX metamodel, built once per process (it takes ~50 ms)."""
    return metamodel_from_file(
        str(GRAMMAR_FILE), ignore_case=True, autokwd=True, ws=" \t\r\n\f\v\ufeff"
    )


def parse(text: str, filename: str, diags: Diagnostics) -> ast.SourceFile | None:
    """Parse one ST source into a SourceFile, reporting into `diags`.

    Returns None when the text cannot be parsed at all (syntax error, unterminated
    comment/string, a limit of stc.grammar.limits). Rejected-but-recognised constructs
    (POINTER TO, ELSEIF, JMP ...) are reported as errors and a tree is still returned, so
    callers must check `diags.has_errors`. `filename` names `diags.file` if it has none.

    Cyclic GC is paused meanwhile: textX allocates tens of thousands of objects and the
    repeated full collections made parse time grow super-linearly with the file size.
    """
    if diags.file == "<input>":
        diags.file = filename
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse(text, diags)
    finally:
        if gc_was_enabled:
            gc.enable()


def _parse(text: str, diags: Diagnostics) -> ast.SourceFile | None:
    clean = text
    try:
        check_size(text)
        errors_before = len(diags.errors)
        clean = preprocess(text, diags)
        if len(diags.errors) > errors_before:
            return None
        check_tokens(clean)
        check_nesting(clean)
        model = _parse_model(clean)
    except CompileLimitError as err:
        diags.error(err.message, err.line, err.column)
        return None
    except TextXSyntaxError as err:
        offset = _offset(clean, err.line or 1, err.col or 1)
        message, offset = syntax_message(clean, offset, err.expected_rules or [])
        diags.error(message, *line_col(clean, offset))
        return None
    except Exception as err:  # noqa: BLE001 - no input may surface a traceback
        diags.error(f"cannot parse this source (internal parser error: {type(err).__name__})", 1, 1)
        return None
    if isinstance(model, str):  # textX returns '' for a source with no items
        return ast.SourceFile(ast.Pos(1, 1))
    try:
        return _Builder(clean, diags).source_file(model)
    except RecursionError:
        diags.error("cannot parse this source (nesting too deep)", 1, 1)
        return None


def _parse_model(text: str) -> Any:
    """Run textX with room for deep (but pre-checked) recursion."""
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, _RECURSION_HEADROOM))
    try:
        model = _metamodel().model_from_str(text)
    finally:
        sys.setrecursionlimit(old_limit)
    return model


def _offset(text: str, line: int, col: int) -> int:
    start = 0
    for _ in range(line - 1):
        nl = text.find("\n", start)
        if nl < 0:
            break
        start = nl + 1
    return min(start + col - 1, len(text))


def _kind(obj: Any) -> str:
    return type(obj).__name__


class _Builder:
    """Converts one textX model into stc.ast nodes, reporting rejected constructs."""

    def __init__(self, text: str, diags: Diagnostics) -> None:
        self._line_starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        self._text = text
        self._upper = text.upper()
        self.diags = diags

    # ------------------------------------------------------------------ helpers

    def _linecol(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def pos(self, obj: Any) -> ast.Pos:
        line, col = self._linecol(obj._tx_position)
        return ast.Pos(line, col)

    def error(self, message: str, pos: ast.Pos) -> None:
        self.diags.error(message, pos.line, pos.col)

    def pos_after(self, obj: Any) -> ast.Pos:
        """Position of the first token after `obj` (an operator between two operands)."""
        line, col = self._linecol(_SPACES.match(self._text, obj._tx_position_end).end())
        return ast.Pos(line, col)

    def end_pos(self, obj: Any, keyword: str) -> ast.Pos:
        at = self._upper.rfind(keyword, obj._tx_position, obj._tx_position_end)
        line, col = self._linecol(at if at >= 0 else obj._tx_position_end)
        return ast.Pos(line, col)

    def rejected_block(self, obj: Any) -> None:
        keyword = _FIRST_WORD.match(obj.text).group().upper()
        self.error(_REJECTED_BLOCKS[keyword], self.pos(obj))

    # ------------------------------------------------------------------ file and POUs

    def source_file(self, model: Any) -> ast.SourceFile:
        result = ast.SourceFile(ast.Pos(1, 1))
        for item in model.items:
            kind = _kind(item)
            if kind == "TypeBlock":
                result.types.extend(self.type_decl(d) for d in item.decls)
            elif kind == "VarBlock":
                result.globals.append(self.var_block(item))
            elif kind == "Configuration":
                result.configurations.append(self.configuration(item))
            elif kind == "RejectedBlock":
                self.rejected_block(item)
            else:
                pou = self.pou(item)
                if isinstance(pou, ast.Method) and pou.fb_name is None:
                    self.error("a METHOD outside its FUNCTION_BLOCK must be qualified: METHOD FB.M", pou.pos)
                result.pous.append(pou)
        return result

    def pou(self, obj: Any) -> ast.POU:
        return getattr(self, "pou_" + _kind(obj))(obj, self.pos(obj))

    def pou_parts(self, obj: Any) -> tuple[list[ast.VarBlock], list[ast.Method], list[ast.Stmt]]:
        """Variable blocks, nested methods (before or after the body) and the body."""
        blocks: list[ast.VarBlock] = []
        methods: list[ast.Method] = []
        for item in [*obj.items, *getattr(obj, "after", [])]:
            item_kind = _kind(item)
            if item_kind == "VarBlock":
                blocks.append(self.var_block(item))
            elif item_kind == "Method":
                methods.append(self.pou_Method(item, self.pos(item)))
            else:
                self.rejected_block(item)
        return blocks, methods, self.stmts(obj.body)

    def no_methods(self, methods: list[ast.Method]) -> None:
        for m in methods:
            self.error("METHODs are only supported in a FUNCTION_BLOCK", m.pos)

    def pou_Program(self, obj: Any, pos: ast.Pos) -> ast.Program:
        blocks, methods, body = self.pou_parts(obj)
        self.no_methods(methods)
        return ast.Program(pos, obj.name, blocks, body, self.end_pos(obj, "END_PROGRAM"))

    def pou_Function(self, obj: Any, pos: ast.Pos) -> ast.Function:
        blocks, methods, body = self.pou_parts(obj)
        self.no_methods(methods)
        ret = self.type_spec(obj.ret) if obj.ret is not None else None
        return ast.Function(pos, obj.name, blocks, body, self.end_pos(obj, "END_FUNCTION"), ret)

    def pou_FunctionBlock(self, obj: Any, pos: ast.Pos) -> ast.FunctionBlock:
        self.modifiers(obj.mods)  # PUBLIC/INTERNAL are accepted and ignored
        for clause in obj.oo:
            self.error(MSG_OO, self.pos(clause))
        blocks, methods, body = self.pou_parts(obj)
        end = self.end_pos(obj, "END_FUNCTION_BLOCK")
        return ast.FunctionBlock(pos, obj.name, blocks, body, end, methods)

    def pou_Method(self, obj: Any, pos: ast.Pos) -> ast.Method:
        access = self.modifiers(obj.mods)
        blocks, methods, body = self.pou_parts(obj)
        self.no_methods(methods)
        ret = self.type_spec(obj.ret) if obj.ret is not None else None
        return ast.Method(pos, obj.name, blocks, body, self.end_pos(obj, "END_METHOD"),
                          ret, access, obj.fb or None)

    def modifiers(self, mods: list[Any]) -> str | None:
        access = None
        for mod in mods:
            word = mod.kw.upper()
            if word in _ACCESS_MODIFIERS:
                access = word
            else:
                self.error(MSG_OO, self.pos(mod))
        return access

    def configuration(self, obj: Any) -> ast.Configuration:
        result = ast.Configuration(self.pos(obj), obj.name, [], [], [])
        for item in obj.items:
            kind = _kind(item)
            if kind == "VarBlock":
                result.globals.append(self.var_block(item))
            elif kind == "Resource":
                result.resources.append(self.resource(item))
            elif kind == "ProgramInstance":
                result.instances.append(self.program_instance(item))
            elif kind == "TaskDecl":
                self.error("a TASK must be declared inside a RESOURCE", self.pos(item))
            else:
                self.rejected_block(item)
        return result

    def resource(self, obj: Any) -> ast.Resource:
        result = ast.Resource(self.pos(obj), obj.name, obj.on or None, [], [], [])
        for item in obj.items:
            kind = _kind(item)
            if kind == "VarBlock":
                result.globals.append(self.var_block(item))
            elif kind == "TaskDecl":
                props = [(p.name, self.expr(p.value)) for p in item.props]
                result.tasks.append(ast.TaskDecl(self.pos(item), item.name, props))
            elif kind == "ProgramInstance":
                result.instances.append(self.program_instance(item))
            elif kind == "Resource":
                self.error("a RESOURCE cannot contain a RESOURCE", self.pos(item))
            else:
                self.rejected_block(item)
        return result

    def program_instance(self, obj: Any) -> ast.ProgramInstance:
        pos = self.pos(obj)
        if obj.args:
            self.diags.warning("program instance connections are ignored", pos.line, pos.col)
        return ast.ProgramInstance(pos, obj.name, obj.type_name, obj.task or None)

    # ------------------------------------------------------------------ declarations

    def var_block(self, obj: Any) -> ast.VarBlock:
        decls = [self.var_decl(d) for d in obj.decls]
        quals = frozenset(q.upper() for q in obj.quals)
        return ast.VarBlock(self.pos(obj), obj.kind.upper(), decls, quals)

    def var_decl(self, obj: Any) -> ast.VarDecl:
        names = [ast.DeclName(self.pos(n), n.name) for n in obj.names]
        location = self.location(obj.location) if obj.location is not None else None
        init = self.init_list(obj.inits) if obj.inits else None
        return ast.VarDecl(self.pos(obj), names, self.type_spec(obj.type), init, location)

    def location(self, obj: Any) -> ast.Location:
        return self.parse_address(obj.text, self.pos(obj))

    def parse_address(self, text: str, pos: ast.Pos) -> ast.Location:
        area = text[1].upper()
        rest = text[2:]
        if rest == "*":
            return ast.Location(pos, text, area, None, None, None, True)
        size = rest[0].upper() if rest[0].isalpha() else None
        numbers = (rest[1:] if size else rest).split(".")
        bit = int(numbers[1]) if len(numbers) == 2 else None
        if len(numbers) > 2:
            self.error(f"hierarchical direct address '{text}' is not supported", pos)
        if size is None:
            if bit is None:
                self.error(f"direct address '{text}' needs a size letter (X, B, W, D, L)", pos)
            size = "X"
        return ast.Location(pos, text, area, size, int(numbers[0]), bit)

    def type_decl(self, obj: Any) -> ast.TypeDecl:
        pos = self.pos(obj)
        spec = self.type_spec(obj.type)
        if obj.extends:
            if isinstance(spec, ast.StructType):
                spec.extends = obj.extends
            else:
                self.error(MSG_OO, pos)
        init = self.init(obj.init) if obj.init is not None else None
        return ast.TypeDecl(pos, obj.name, spec, init)

    def type_spec(self, obj: Any) -> ast.TypeRef:
        kind = _kind(obj)
        pos = self.pos(obj)
        if kind == "NamedSpec":
            if obj.fb_init is not None:
                self.error(MSG_FB_INIT, self.pos(obj.fb_init))
            if obj.lo is not None:
                return ast.SubrangeType(pos, obj.name, self.expr(obj.lo), self.expr(obj.hi))
            if obj.name.upper() == "BIT":
                self.error("BIT type is not supported; use BOOL", pos)
            return ast.NamedType(pos, obj.name)
        if kind == "StringSpec":
            length = self.expr(obj.length) if obj.length is not None else None
            return ast.StringType(pos, obj.kind.upper() == "WSTRING", length)
        if kind == "ArraySpec":
            dims = []
            for dim in obj.dims:
                if dim.star:
                    self.error("ARRAY[*] (variable-length arrays) is not supported", pos)
                    continue
                dims.append(ast.DimRange(self.pos(dim), self.expr(dim.lo), self.expr(dim.hi)))
            return ast.ArrayType(pos, dims, self.type_spec(obj.elem))
        if kind == "StructSpec":
            return ast.StructType(pos, [self.var_decl(d) for d in obj.members], obj.extends or None)
        if kind == "EnumSpec":
            if self._text[obj._tx_position] != "(" and obj.base.upper() not in _ELEMENTARY_TYPES:
                # `FB_X(a := 1)` reads like the IEC enum form `DINT (A := 1)`; only the
                # base type tells them apart.
                line, col = self._linecol(self._text.index("(", obj._tx_position))
                self.error(MSG_FB_INIT, ast.Pos(line, col))
                return ast.NamedType(pos, obj.base)
            values = [ast.Enumerator(self.pos(v), v.name,
                                     self.expr(v.value) if v.value is not None else None)
                      for v in obj.values]
            return ast.EnumType(pos, values, obj.base or None)
        # Rejected: reported once; a stand-in type keeps later stages from adding noise.
        if obj.kw.upper() == "UNION":
            self.error("UNION is not supported", pos)
            return ast.StructType(pos, [self.var_decl(d) for d in obj.members])
        self.error(MSG_POINTER, pos)
        return self.type_spec(obj.target)

    # ------------------------------------------------------------------ initialisers

    def init_list(self, items: list[Any]) -> ast.Init:
        """`:= v` or the bracket-less 2nd-edition array form `:= 1, 2(0), 3`."""
        if len(items) == 1 and not items[0].repeat:
            return self.init(items[0].value)
        return ast.ArrayInit(self.pos(items[0]), [self.init_item(i) for i in items])

    def init_item(self, obj: Any) -> ast.ArrayInitItem:
        pos = self.pos(obj)
        repeat = None
        if obj.repeat:
            repeat = build_literal(obj.repeat, pos, self.diags)
            if obj.value is None:
                self.error("empty repetition n() is not supported; write n(value)", pos)
                return ast.ArrayInitItem(pos, repeat, repeat)
        return ast.ArrayInitItem(pos, self.init(obj.value), repeat)

    def init(self, obj: Any) -> ast.Init:
        kind = _kind(obj)
        if kind == "StructInit":
            fields = [ast.FieldInit(self.pos(f), f.name, self.init(f.value)) for f in obj.fields]
            return ast.StructInit(self.pos(obj), fields)
        if kind == "ArrayInit":
            return ast.ArrayInit(self.pos(obj), [self.init_item(i) for i in obj.items])
        return self.expr(obj)

    # ------------------------------------------------------------------ statements

    def stmts(self, objs: list[Any]) -> list[ast.Stmt]:
        out = []
        for obj in objs:
            stmt = self.stmt(obj)
            if stmt is not None:
                out.append(stmt)
        return out

    def stmt(self, obj: Any) -> ast.Stmt | None:
        return getattr(self, "stmt_" + _kind(obj))(obj, self.pos(obj))

    def stmt_ExprStmt(self, obj: Any, pos: ast.Pos) -> ast.Stmt | None:
        """Assignment or call; dropped once it held a reported error (ADR, SUPER^, a bad
        literal ...) so the semantic pass does not pile follow-on errors onto it."""
        reported_before = len(self.diags.items)
        stmt = self.simple_stmt(obj, pos)
        new = self.diags.items[reported_before:]
        return None if any(d.severity is Severity.ERROR for d in new) else stmt

    def simple_stmt(self, obj: Any, pos: ast.Pos) -> ast.Stmt | None:
        lhs = self.expr(obj.lhs)
        ops = [op.upper() for op in obj.ops]
        if not ops:
            if isinstance(lhs, ast.Call):
                return ast.CallStmt(pos, lhs)
            if isinstance(lhs, ast.Binary) and lhs.op == "=":
                self.error(MSG_COMPARISON_STMT, lhs.op_pos)
            else:
                self.error("expression used as statement; assign it with ':=' or call a function", pos)
            return None
        if ops[0] != ":=":
            self.error(MSG_POINTER if ops[0] == "REF=" else MSG_EXST, self.pos_after(obj.lhs))
            return None
        if len(ops) > 1:
            self.error(MSG_EXST, self.pos_after(obj.rhs[0]))
            return None
        return ast.Assign(pos, lhs, self.expr(obj.rhs[0]))

    def stmt_IfStmt(self, obj: Any, pos: ast.Pos) -> ast.Stmt:
        branches = [ast.IfBranch(pos, self.expr(obj.cond), self.stmts(obj.body))]
        for part in obj.elsifs:
            part_pos = self.pos(part)
            if part.kw.upper() == "ELSEIF":
                self.error("ELSEIF is not ST; use ELSIF", part_pos)
            branches.append(ast.IfBranch(part_pos, self.expr(part.cond), self.stmts(part.body)))
        else_body = self.stmts(obj.else_body) if obj.has_else else None
        return ast.If(pos, branches, else_body)

    def stmt_CaseStmt(self, obj: Any, pos: ast.Pos) -> ast.Stmt:
        branches = []
        for br in obj.branches:
            labels: list[ast.CaseLabel] = []
            for lab in br.labels:
                lo = self.expr(lab.lo)
                labels.append(ast.CaseRange(lo.pos, lo, self.expr(lab.hi)) if lab.hi else lo)
            branches.append(ast.CaseBranch(self.pos(br), labels, self.stmts(br.body)))
        else_body = self.stmts(obj.else_body) if obj.has_else else None
        return ast.Case(pos, self.expr(obj.selector), branches, else_body)

    def stmt_ForStmt(self, obj: Any, pos: ast.Pos) -> ast.Stmt | None:
        var = self.operand(obj.var)
        if not isinstance(var, ast.Name):
            self.error("FOR control variable must be a plain variable (not an element or member)",
                       var.pos)
            return None
        step = self.expr(obj.step) if obj.step is not None else None
        return ast.For(pos, var, self.expr(obj.start), self.expr(obj.end), step, self.stmts(obj.body))

    def stmt_WhileStmt(self, obj: Any, pos: ast.Pos) -> ast.Stmt:
        return ast.While(pos, self.expr(obj.cond), self.stmts(obj.body))

    def stmt_RepeatStmt(self, obj: Any, pos: ast.Pos) -> ast.Stmt:
        return ast.Repeat(pos, self.stmts(obj.body), self.expr(obj.cond))

    def stmt_ExitStmt(self, obj: Any, pos: ast.Pos) -> ast.Stmt:
        return ast.Exit(pos)

    def stmt_ContinueStmt(self, obj: Any, pos: ast.Pos) -> ast.Stmt:
        return ast.Continue(pos)

    def stmt_ReturnStmt(self, obj: Any, pos: ast.Pos) -> ast.Stmt:
        return ast.Return(pos)

    def stmt_EmptyStmt(self, obj: Any, pos: ast.Pos) -> ast.Stmt:
        return ast.Empty(pos)

    def stmt_JmpStmt(self, obj: Any, pos: ast.Pos) -> None:
        self.error(MSG_JMP, pos)

    def stmt_LabelStmt(self, obj: Any, pos: ast.Pos) -> None:
        self.error(MSG_JMP, pos)

    def stmt_RejectedBlock(self, obj: Any, pos: ast.Pos) -> None:
        self.rejected_block(obj)

    # ------------------------------------------------------------------ expressions

    def expr(self, obj: Any) -> ast.Expr:
        operands = obj.operands
        if len(operands) == 1:
            return self.operand(operands[0])
        ops = [_OPERATOR_NAMES.get(op.upper(), op.upper()) for op in obj.ops]
        op_positions = [self.pos_after(o) for o in operands[:-1]]
        return _climb([self.operand(o) for o in operands], ops, op_positions)

    def operand(self, obj: Any) -> ast.Expr:
        pos = self.pos(obj)
        node = self.primary(obj, self.primary_pos(obj, pos) if obj.unops else pos)
        for suffix in obj.suffixes:
            node = self.suffix(node, suffix, pos)
        for op in reversed(obj.unops):
            word = op.upper()
            node = _negate_literal(node, pos) if word == "-" else ast.Unary(pos, word, node)
        return node

    def primary_pos(self, obj: Any, pos: ast.Pos) -> ast.Pos:
        """Position of the operand after its unary operators (`NOT x` -> where x starts)."""
        skipped = _UNARY_PREFIX.match(self._upper, obj._tx_position).end()
        line, col = self._linecol(skipped)
        return ast.Pos(line, col)

    def primary(self, obj: Any, pos: ast.Pos) -> ast.Expr:
        if obj.name:
            return ast.Name(pos, obj.name)
        if obj.literal:
            return build_literal(obj.literal, pos, self.diags)
        if obj.paren is not None:
            return self.expr(obj.paren.expr)
        if obj.address:
            return ast.DirectAddress(pos, self.parse_address(obj.address, pos))
        if obj.super:
            self.error(MSG_OO, pos)
        return ast.This(pos)

    def suffix(self, node: ast.Expr, obj: Any, pos: ast.Pos) -> ast.Expr:
        kind = _kind(obj)
        if kind == "MemberSuffix":
            after_dot = _DOT.match(self._text, obj._tx_position).end()
            line, col = self._linecol(after_dot)
            if obj.bit:
                return ast.BitAccess(pos, node, int(obj.bit), ast.Pos(line, col))
            return ast.Member(pos, node, obj.name, ast.Pos(line, col))
        if kind == "IndexSuffix":
            return ast.Index(pos, node, [self.expr(e) for e in obj.indices])
        if kind == "CallSuffix":
            if isinstance(node, ast.Name) and node.name.upper() in _POINTER_FUNCTIONS:
                self.error(MSG_POINTER, pos)
            return ast.Call(pos, node, [self.arg(a) for a in obj.args])
        self.error(MSG_POINTER, self.pos(obj))
        return node

    def arg(self, obj: Any) -> ast.Arg:
        pos = self.pos(obj)
        if obj.negated or obj.output:
            target = self.expr(obj.target) if obj.target is not None else None
            return ast.Arg(pos, obj.name, target, True, bool(obj.negated))
        if obj.name:
            return ast.Arg(pos, obj.name, self.expr(obj.value))
        return ast.Arg(pos, None, self.expr(obj.value))


def _negate_literal(node: ast.Expr, pos: ast.Pos) -> ast.Expr:
    """Fold `-5` into IntLit(-5) so `-128` fits SINT; other operands get a Unary."""
    if isinstance(node, ast.IntLit | ast.RealLit) and node.type_prefix is None and node.value >= 0 \
            and not node.text.startswith("-"):
        node.value = -node.value
        node.text = "-" + node.text
        node.pos = pos
        return node
    return ast.Unary(pos, "-", node)


def _climb(operands: list[ast.Expr], ops: list[str], op_positions: list[ast.Pos]) -> ast.Expr:
    """Shunting-yard over a flat operand/operator list (iterative: long chains are safe)."""
    out = [operands[0]]
    pending: list[tuple[str, ast.Pos]] = []

    def reduce() -> None:
        right = out.pop()
        left = out.pop()
        op, op_pos = pending.pop()
        out.append(ast.Binary(left.pos, op, left, right, op_pos))

    for op, op_pos, right in zip(ops, op_positions, operands[1:], strict=True):
        while pending and _PRECEDENCE[pending[-1][0]] <= _PRECEDENCE[op]:
            reduce()
        pending.append((op, op_pos))
        out.append(right)
    while pending:
        reduce()
    return out[0]
