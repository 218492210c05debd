"""Parser: AST shapes for ST_LANGUAGE.md sections 1-9 and 13, precedence, rejects, limits."""

from __future__ import annotations

import dataclasses
import re
import time

import pytest

from stc import ast
from stc.diagnostics import Diagnostics
from stc.grammar import GRAMMAR_FILE
from stc.grammar.keywords import RESERVED
from stc.grammar.limits import MAX_NESTING, MAX_SOURCE_BYTES, MAX_TOKENS
from stc.parser import parse

# ------------------------------------------------------------------------------- helpers

HEADER = "PROGRAM P\nVAR x, y, z : INT; a, b, c, d : BOOL; END_VAR\n"  # statements start on line 3


def parse_ok(text: str) -> ast.SourceFile:
    diags = Diagnostics("t.st")
    tree = parse(text, "t.st", diags)
    assert tree is not None and not diags.items, diags.render(text)
    return tree


def parse_tree_with_errors(text: str) -> ast.SourceFile:
    diags = Diagnostics("t.st")
    tree = parse(text, "t.st", diags)
    assert tree is not None and diags.has_errors
    return tree


def problems(text: str) -> list[tuple[int, int, str]]:
    """All diagnostics as (line, column, message); the parse must not raise."""
    diags = Diagnostics("t.st")
    parse(text, "t.st", diags)
    return [(d.line, d.column, d.message) for d in diags.sorted()]


def stmts(body: str) -> list[ast.Stmt]:
    return parse_ok(HEADER + body + "\nEND_PROGRAM\n").pous[0].body


def expr(text: str) -> ast.Expr:
    [stmt] = stmts(f"x := {text};")
    assert isinstance(stmt, ast.Assign)
    return stmt.value


def shape(node: object) -> object:
    """Compact structural view of an expression for readable assertions."""
    match node:
        case ast.Binary(op=op, left=left, right=right):
            return (op, shape(left), shape(right))
        case ast.Unary(op=op, operand=operand):
            return (op, shape(operand))
        case ast.Name(name=name):
            return name
        case ast.IntLit(value=value) | ast.RealLit(value=value) | ast.BoolLit(value=value):
            return value
        case ast.Member(obj=obj, member=member):
            return ("member", shape(obj), member)
        case ast.BitAccess(obj=obj, bit=bit):
            return ("bit", shape(obj), bit)
        case ast.Index(obj=obj, indices=indices):
            return ("index", shape(obj), [shape(i) for i in indices])
        case ast.Call(func=func, args=args):
            return ("call", shape(func), [shape(a) for a in args])
        case ast.Arg(name=name, value=value, is_output=out, negated=neg):
            return (name, shape(value), out, neg)
        case ast.This():
            return "THIS"
        case None:
            return None
    return type(node).__name__


def only_error(text: str) -> tuple[int, int, str]:
    found = problems(text)
    assert len(found) == 1, found
    return found[0]


# ------------------------------------------------------------------------------- POUs and declarations


def test_program_with_var_blocks_and_located_variables() -> None:
    tree = parse_ok(
        "PROGRAM Main\n"
        "VAR_INPUT go : BOOL; END_VAR\n"
        "VAR\n"
        "  start AT %IX0.0 : BOOL;\n"
        "  lamp AT %Q0.3 : BOOL;\n"
        "  speed AT %QW4 : INT := 5;\n"
        "  raw AT %ID8 : DINT;\n"
        "  io AT %I* : BOOL;\n"
        "END_VAR\n"
        "VAR_TEMP t : INT; END_VAR\n"
        "END_PROGRAM\n"
    )
    [prog] = tree.pous
    assert isinstance(prog, ast.Program) and prog.name == "Main"
    assert [b.kind for b in prog.var_blocks] == ["VAR_INPUT", "VAR", "VAR_TEMP"]
    locs = [d.location for d in prog.var_blocks[1].decls]
    assert [(loc.area, loc.size, loc.index, loc.bit, loc.wildcard) for loc in locs] == [
        ("I", "X", 0, 0, False), ("Q", "X", 0, 3, False), ("Q", "W", 4, None, False),
        ("I", "D", 8, None, False), ("I", None, None, None, True),
    ]
    assert locs[0].pos == ast.Pos(4, 12)
    assert prog.var_blocks[1].decls[2].init.value == 5
    assert prog.end_pos == ast.Pos(11, 1)


def test_var_qualifiers_and_all_sections() -> None:
    kinds = ["VAR_INPUT", "VAR_OUTPUT", "VAR_IN_OUT", "VAR_TEMP", "VAR_EXTERNAL", "VAR_STAT"]
    text = "FUNCTION_BLOCK FB\n" + "".join(f"{k} v{i} : INT; END_VAR\n" for i, k in enumerate(kinds))
    text += "VAR CONSTANT k : INT := 1; END_VAR VAR RETAIN r : INT; END_VAR\n"
    text += "VAR PERSISTENT p : INT; END_VAR; VAR NON_RETAIN n : INT; END_VAR\nEND_FUNCTION_BLOCK"
    [fb] = parse_ok(text).pous
    assert [b.kind for b in fb.var_blocks] == kinds + ["VAR"] * 4
    assert fb.var_blocks[6].constant
    assert [b.qualifiers for b in fb.var_blocks[6:]] == [
        frozenset({"CONSTANT"}), frozenset({"RETAIN"}), frozenset({"PERSISTENT"}), frozenset({"NON_RETAIN"})
    ]


def test_declaration_forms() -> None:
    [prog] = parse_ok(
        "PROGRAM P VAR\n"
        "  a, b : INT := 5;\n"
        "  s : STRING(20) := 'x';\n"
        "  s2 : STRING[20];\n"
        "  w : WSTRING;\n"
        "  t : TON := (PT := T#5s);\n"
        "  arr : ARRAY[1..10] OF REAL;\n"
        "  v : UINT (1..10);\n"
        "  e : (RED, GREEN);\n"
        "END_VAR END_PROGRAM"
    ).pous
    d = prog.var_blocks[0].decls
    assert [n.name for n in d[0].names] == ["a", "b"] and d[0].init.value == 5
    assert d[0].names[1].pos == ast.Pos(2, 6)
    assert isinstance(d[1].type, ast.StringType) and d[1].type.length.value == 20 and not d[1].type.wide
    assert d[2].type.length.value == 20 and d[2].type.wide is False
    assert d[3].type.wide and d[3].type.length is None
    assert isinstance(d[4].init, ast.StructInit) and d[4].init.fields[0].name == "PT"
    assert d[4].init.fields[0].value.value == 5000
    assert isinstance(d[5].type, ast.ArrayType) and d[5].type.elem.name == "REAL"
    assert isinstance(d[6].type, ast.SubrangeType) and d[6].type.base == "UINT"
    assert (d[6].type.lo.value, d[6].type.hi.value) == (1, 10)
    assert [v.name for v in d[7].type.values] == ["RED", "GREEN"]


def test_function_and_function_block_with_methods() -> None:
    tree = parse_ok(
        "FUNCTION Add : INT\nVAR_INPUT a, b : INT; END_VAR\nAdd := a + b;\nEND_FUNCTION\n"
        "FUNCTION NoResult\nVAR_INPUT a : INT; END_VAR\nEND_FUNCTION\n"
        "FUNCTION_BLOCK PUBLIC FB\nVAR n : INT; END_VAR\n"
        "METHOD PUBLIC Inc : INT\nVAR_INPUT amount : INT; END_VAR\nVAR_INST k : INT; END_VAR\n"
        "n := n + amount; Inc := n;\nEND_METHOD\n"
        "n := THIS^.Inc(1);\n"
        "METHOD PRIVATE Reset\nn := 0;\nEND_METHOD\n"
        "END_FUNCTION_BLOCK\n"
        "METHOD FB.Later : BOOL\nLater := TRUE;\nEND_METHOD\n"
    )
    add, none, fb, later = tree.pous
    assert isinstance(add, ast.Function) and add.return_type.name == "INT"
    assert isinstance(none, ast.Function) and none.return_type is None
    assert isinstance(fb, ast.FunctionBlock) and [m.name for m in fb.methods] == ["Inc", "Reset"]
    assert [m.access for m in fb.methods] == ["PUBLIC", "PRIVATE"]
    assert fb.methods[0].var_blocks[1].kind == "VAR_INST"
    assert shape(fb.body[0].value) == ("call", ("member", "THIS", "Inc"), [(None, 1, False, False)])
    assert isinstance(later, ast.Method) and later.fb_name == "FB" and later.name == "Later"
    assert later.return_type.name == "BOOL"


def test_address_forms_and_their_errors() -> None:
    [prog] = parse_ok("PROGRAM P VAR m AT %MX10.2 : BOOL; w AT %mw6 : WORD; END_VAR END_PROGRAM").pous
    m, w = (d.location for d in prog.var_blocks[0].decls)
    assert (m.area, m.size, m.index, m.bit, m.text) == ("M", "X", 10, 2, "%MX10.2")
    assert (w.area, w.size, w.index) == ("M", "W", 6)
    assert problems("PROGRAM P VAR a AT %I5 : BOOL; END_VAR END_PROGRAM") == [
        (1, 20, "direct address '%I5' needs a size letter (X, B, W, D, L)")
    ]
    assert problems("PROGRAM P VAR a AT %IX1.2.3 : BOOL; END_VAR END_PROGRAM") == [
        (1, 20, "hierarchical direct address '%IX1.2.3' is not supported")
    ]


def test_configuration_oddities_are_reported() -> None:
    found = problems(
        "PROGRAM Main END_PROGRAM\nCONFIGURATION C\n  TASK t (INTERVAL := T#10ms);\n"
        "  RESOURCE R ON PLC\n    PROGRAM p WITH t : Main (x := 1);\n  END_RESOURCE\nEND_CONFIGURATION"
    )
    assert found == [
        (3, 3, "a TASK must be declared inside a RESOURCE"),
        (5, 5, "program instance connections are ignored"),
    ]


def test_crlf_line_ends_keep_positions() -> None:
    text = (HEADER + "x := 1;\n  y :=  'a$b';\nEND_PROGRAM\n").replace("\n", "\r\n")
    assert only_error(text) == (4, 11, "invalid escape '$b' in string literal")


def test_byte_order_mark_is_whitespace() -> None:
    assert parse_ok("\ufeffPROGRAM P END_PROGRAM").pous[0].name == "P"


def test_semicolon_after_pou_headers_is_tolerated() -> None:
    tree = parse_ok(
        "FUNCTION F : BOOL;\nF := TRUE;\nEND_FUNCTION\nFUNCTION_BLOCK FB;\nMETHOD M;\nEND_METHOD\n"
        "END_FUNCTION_BLOCK\nPROGRAM P;\nEND_PROGRAM"
    )
    assert [p.name for p in tree.pous] == ["F", "FB", "P"]


def test_iec_enum_form_with_elementary_base_is_an_enum() -> None:
    [decl] = parse_ok("TYPE E : WORD (A := 1, B); END_TYPE").types
    assert isinstance(decl.type, ast.EnumType) and decl.type.base == "WORD"


def test_global_block_and_configuration() -> None:
    tree = parse_ok(
        "VAR_GLOBAL CONSTANT limit : INT := 10; END_VAR\n"
        "PROGRAM Main END_PROGRAM\n"
        "CONFIGURATION Cell\n"
        "  VAR_GLOBAL g : BOOL; END_VAR\n"
        "  RESOURCE Cpu ON PLC\n"
        "    TASK Fast (INTERVAL := T#10ms, PRIORITY := 1);\n"
        "    PROGRAM inst WITH Fast : Main;\n"
        "  END_RESOURCE\n"
        "  PROGRAM other : Main;\n"
        "END_CONFIGURATION\n"
    )
    assert tree.globals[0].kind == "VAR_GLOBAL" and tree.globals[0].constant
    [conf] = tree.configurations
    assert conf.name == "Cell" and conf.globals[0].decls[0].names[0].name == "g"
    [res] = conf.resources
    assert (res.name, res.on) == ("Cpu", "PLC")
    [task] = res.tasks
    assert task.name == "Fast" and [p for p, _ in task.properties] == ["INTERVAL", "PRIORITY"]
    assert task.properties[0][1].value == 10
    assert [(i.name, i.type_name, i.task) for i in res.instances] == [("inst", "Main", "Fast")]
    assert [(i.name, i.type_name, i.task) for i in conf.instances] == [("other", "Main", None)]


# ------------------------------------------------------------------------------- types


def test_type_block_with_every_kind() -> None:
    tree = parse_ok(
        "TYPE\n"
        "  T_Speed : REAL := 1.0;\n"
        "  T_Name : STRING(32);\n"
        "  E_State : (IDLE, RUN, FAULT := 10, DONE) := RUN;\n"
        "  E_Cod : (A := 1, B) DINT;\n"
        "  E_Iec : DINT (C := 1, D);\n"
        "  T_Pct : INT (0..100);\n"
        "  T_Buf : ARRAY[-5..5] OF INT;\n"
        "  T_Mat : ARRAY[1..3, 0..1] OF INT;\n"
        "  T_AoA : ARRAY[1..2] OF ARRAY[1..3] OF INT;\n"
        "  ST_P : STRUCT x : REAL; y : REAL := 1.0; END_STRUCT;\n"
        "  ST_Q : STRUCT EXTENDS ST_P z : REAL; END_STRUCT\n"
        "  ST_R EXTENDS ST_P : STRUCT w : ARRAY[1..2] OF ST_P; END_STRUCT;\n"
        "END_TYPE\n"
    )
    t = {d.name: d for d in tree.types}
    assert t["T_Speed"].type.name == "REAL" and t["T_Speed"].init.value == 1.0
    assert t["T_Name"].type.length.value == 32
    state = t["E_State"]
    assert [(e.name, e.value.value if e.value else None) for e in state.type.values] == [
        ("IDLE", None), ("RUN", None), ("FAULT", 10), ("DONE", None)
    ]
    assert state.type.base is None and state.init.name == "RUN"
    assert t["E_Cod"].type.base == "DINT" and t["E_Iec"].type.base == "DINT"
    assert [e.name for e in t["E_Iec"].type.values] == ["C", "D"]
    assert isinstance(t["T_Pct"].type, ast.SubrangeType)
    assert t["T_Buf"].type.dims[0].lo.value == -5
    assert len(t["T_Mat"].type.dims) == 2
    assert isinstance(t["T_AoA"].type.elem, ast.ArrayType)
    members = t["ST_P"].type.members
    assert [m.names[0].name for m in members] == ["x", "y"] and members[1].init.value == 1.0
    assert t["ST_Q"].type.extends == "ST_P" and t["ST_R"].type.extends == "ST_P"
    assert t["ST_R"].pos == ast.Pos(13, 3)


def test_array_and_struct_initialisers() -> None:
    [prog] = parse_ok(
        "PROGRAM P VAR\n"
        "  a : ARRAY[1..6] OF INT := [5, 2(9), 3(0)];\n"
        "  b : ARRAY[1..3] OF INT := 1, 2, 3;\n"
        "  s : ST := (p := (x := 1), tag := 'a');\n"
        "  c : ARRAY[1..2] OF ST := [(x := 1), (y := 2)];\n"
        "  m : ARRAY[1..2, 1..2] OF INT := [[1, 2], [3, 4]];\n"
        "END_VAR END_PROGRAM"
    ).pous
    a, b, s, c, m = (d.init for d in prog.var_blocks[0].decls)
    assert [(i.repeat.value if i.repeat else None, i.value.value) for i in a.items] == [
        (None, 5), (2, 9), (3, 0)
    ]
    assert isinstance(b, ast.ArrayInit) and [i.value.value for i in b.items] == [1, 2, 3]
    assert isinstance(s, ast.StructInit) and s.fields[0].name == "p"
    assert isinstance(s.fields[0].value, ast.StructInit) and s.fields[1].value.value == "a"
    assert all(isinstance(i.value, ast.StructInit) for i in c.items)
    assert isinstance(m.items[0].value, ast.ArrayInit)


# ------------------------------------------------------------------------------- expressions


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("-x ** 2.0", ("**", ("-", "x"), 2.0)),
        ("2.0 ** 3.0 ** 2.0", ("**", ("**", 2.0, 3.0), 2.0)),
        ("NOT a > b", (">", ("NOT", "a"), "b")),
        ("a < b = c < d", ("=", ("<", "a", "b"), ("<", "c", "d"))),
        ("x AND y XOR z OR w", ("OR", ("XOR", ("AND", "x", "y"), "z"), "w")),
        ("a OR b AND c", ("OR", "a", ("AND", "b", "c"))),
        ("1 + 2 * 3 - 4", ("-", ("+", 1, ("*", 2, 3)), 4)),
        ("x - y - z", ("-", ("-", "x", "y"), "z")),
        ("x / y MOD z * 2", ("*", ("MOD", ("/", "x", "y"), "z"), 2)),
        ("(x + y) * z", ("*", ("+", "x", "y"), "z")),
        ("a & b", ("AND", "a", "b")),
        ("a AND_THEN b OR_ELSE c", ("OR_ELSE", ("AND_THEN", "a", "b"), "c")),
        ("x <= y <> y >= z", ("<>", ("<=", "x", "y"), (">=", "y", "z"))),
        ("- - x", ("-", ("-", "x"))),
        ("NOT NOT a", ("NOT", ("NOT", "a"))),
        ("x ** -y", ("**", "x", ("-", "y"))),
        ("-5", -5),
        ("-x.3", ("-", ("bit", "x", 3))),
        ("a XOR b AND c", ("XOR", "a", ("AND", "b", "c"))),
        ("x + y < z AND a", ("AND", ("<", ("+", "x", "y"), "z"), "a")),
    ],
)
def test_precedence(text: str, tree: object) -> None:
    assert shape(expr(text)) == tree


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("a.3", ("bit", "a", 3)),
        ("a.b", ("member", "a", "b")),
        ("a.b.c", ("member", ("member", "a", "b"), "c")),
        ("a[i, j]", ("index", "a", ["i", "j"])),
        ("a[i][j]", ("index", ("index", "a", ["i"]), ["j"])),
        ("a[i].m[j]", ("index", ("member", ("index", "a", ["i"]), "m"), ["j"])),
        ("inst.M(1)", ("call", ("member", "inst", "M"), [(None, 1, False, False)])),
        ("THIS^.M(x := 1)", ("call", ("member", "THIS", "M"), [("x", 1, False, False)])),
        ("f()", ("call", "f", [])),
        ("MAX(1, y)", ("call", "MAX", [(None, 1, False, False), (None, "y", False, False)])),
        ("E_State.RUN", ("member", "E_State", "RUN")),
        ("TO_INT(x) + TRUNC_INT(1.5)", ("+", ("call", "TO_INT", [(None, "x", False, False)]),
                                         ("call", "TRUNC_INT", [(None, 1.5, False, False)]))),
        ("TIME()", ("call", "TIME", [])),
        ("MOD(x, 2) + ADD(x, 1, 2)", ("+", ("call", "MOD", [(None, "x", False, False), (None, 2, False, False)]),
                                      ("call", "ADD", [(None, "x", False, False), (None, 1, False, False),
                                                       (None, 2, False, False)]))),
        ("AND(a, b) OR XOR(a, b)", ("OR", ("call", "AND", [(None, "a", False, False), (None, "b", False, False)]),
                                    ("call", "XOR", [(None, "a", False, False), (None, "b", False, False)]))),
    ],
)
def test_access_paths_and_calls(text: str, tree: object) -> None:
    assert shape(expr(text)) == tree


def test_literal_and_address_operands() -> None:
    enum = expr("E_State#RUN")
    assert isinstance(enum, ast.EnumValueLit) and (enum.type_name, enum.value_name) == ("E_State", "RUN")
    addr = expr("%IW2 + 1").left
    assert isinstance(addr, ast.DirectAddress) and (addr.address.area, addr.address.size) == ("I", "W")
    assert isinstance(expr("T#1s"), ast.DurationLit)
    assert isinstance(expr("INT#-5"), ast.IntLit) and expr("INT#-5").type_prefix == "INT"
    assert isinstance(expr("'s'"), ast.StringLit) and expr('"w"').wide
    assert isinstance(expr("TOD#12:00:00"), ast.DateTimeLit)
    assert expr("- 16#10").value == -16


def test_expression_positions() -> None:
    [stmt] = stmts("x :=  y  +  -z;")
    assert stmt.pos == ast.Pos(3, 1)
    assert stmt.value.pos == ast.Pos(3, 7)  # a Binary sits at its left operand
    unary = stmt.value.right
    assert unary.pos == ast.Pos(3, 13) and unary.operand.pos == ast.Pos(3, 14)
    [call] = stmts("  tmr(IN := a,\n      PT := T#1s);")
    assert call.call.args[1].pos == ast.Pos(4, 7) and call.call.args[1].value.pos == ast.Pos(4, 13)
    member = expr("a. b")
    assert member.pos == ast.Pos(3, 6) and member.member_pos == ast.Pos(3, 9)
    bit = expr("w.15")
    assert bit.pos == ast.Pos(3, 6) and bit.bit_pos == ast.Pos(3, 8)


# ------------------------------------------------------------------------------- statements


def test_assignment_and_call_statements() -> None:
    s = stmts(
        "x := 1;\n%QX0.1 := a;\nw.15 := TRUE;\n"
        "tmr(IN := a, PT := T#1s, Q => b, ET =>, NOT Q => c);\nf(1, 2);\n;"
    )
    assert [type(i).__name__ for i in s] == ["Assign", "Assign", "Assign", "CallStmt", "CallStmt", "Empty"]
    assert isinstance(s[1].target, ast.DirectAddress)
    assert isinstance(s[2].target, ast.BitAccess) and s[2].target.bit == 15
    args = s[3].call.args
    assert [(a.name, a.is_output, a.negated) for a in args] == [
        ("IN", False, False), ("PT", False, False), ("Q", True, False), ("ET", True, False),
        ("Q", True, True),
    ]
    assert args[3].value is None and shape(args[4].value) == "c"


def test_if_elsif_else() -> None:
    [stmt] = stmts("IF a THEN x := 1; ELSIF b THEN x := 2; ELSIF c THEN ELSE x := 3; END_IF;")
    assert isinstance(stmt, ast.If) and len(stmt.branches) == 3
    assert [shape(b.cond) for b in stmt.branches] == ["a", "b", "c"]
    assert stmt.branches[2].body == [] and len(stmt.else_body) == 1
    assert stmt.branches[1].pos == ast.Pos(3, 19)
    [plain] = stmts("IF a THEN END_IF")
    assert plain.else_body is None
    [empty_else] = stmts("IF a THEN ELSE END_IF")
    assert empty_else.else_body == []


def test_case_with_lists_ranges_and_enumerators() -> None:
    [stmt] = stmts(
        "CASE x OF\n"
        "  1, 3, 5: y := 1;\n"
        "  6..8, 10: y := 2; z := 1;\n"
        "  E.RUN, IDLE: ;\n"
        "  -1: y := -1;\n"
        "ELSE y := 0;\n"
        "END_CASE"
    )
    assert isinstance(stmt, ast.Case) and shape(stmt.selector) == "x"
    labels = [[shape(lab) if not isinstance(lab, ast.CaseRange) else (lab.lo.value, lab.hi.value)
               for lab in br.labels] for br in stmt.branches]
    assert labels == [[1, 3, 5], [(6, 8), 10], [("member", "E", "RUN"), "IDLE"], [-1]]
    assert [len(br.body) for br in stmt.branches] == [1, 2, 1, 1]
    assert len(stmt.else_body) == 1
    assert stmt.branches[1].pos == ast.Pos(5, 3)


def test_loops_and_jumps() -> None:
    s = stmts(
        "FOR x := 1 TO 10 BY 2 DO y := y + x; IF y > 5 THEN EXIT; END_IF; END_FOR;\n"
        "FOR x := 10 TO 1 DO CONTINUE; END_FOR\n"
        "WHILE x < 3 DO x := x + 1; END_WHILE\n"
        "REPEAT x := x - 1; UNTIL x <= 0; END_REPEAT\n"
        "REPEAT x := x - 1; UNTIL x <= 0 END_REPEAT;\n"
        "RETURN;"
    )
    loop = s[0]
    assert isinstance(loop, ast.For) and loop.var.name == "x" and loop.var.pos == ast.Pos(3, 5)
    assert (loop.start.value, loop.end.value, loop.step.value) == (1, 10, 2)
    assert isinstance(loop.body[1].branches[0].body[0], ast.Exit)
    assert s[1].step is None and isinstance(s[1].body[0], ast.Continue)
    assert isinstance(s[2], ast.While) and shape(s[2].cond) == ("<", "x", 3)
    assert isinstance(s[3], ast.Repeat) and shape(s[3].cond) == ("<=", "x", 0)
    assert isinstance(s[4], ast.Repeat) and isinstance(s[5], ast.Return)


def test_case_insensitive_keywords_and_pragmas() -> None:
    tree = parse_ok(
        "{attribute 'qualified_only'}\n"
        "program Main\nvar x : int; end_var\n"
        "if x > 1 then x := 2; elsif x < 0 then x := 3; end_if\n"
        "x := x mod 2; // trailing\n"
        "(* comment (* nested *) *) end_program"
    )
    assert isinstance(tree.pous[0].body[0], ast.If)
    assert tree.pous[0].body[1].value.op == "MOD"


def walk(node: object) -> list[ast.Node]:
    """Every stc.ast node reachable from `node` (dataclass fields, lists, tuples)."""
    found: list[ast.Node] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, ast.Node):
            found.append(item)
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item) if f.name != "pos")
    return found


def test_every_node_is_an_ast_node_with_a_real_position() -> None:
    from tests.stc.test_parser_fuzz import SEEDS

    text = SEEDS[0] + SEEDS[1] + (
        "CONFIGURATION C VAR_GLOBAL g : INT; END_VAR RESOURCE R ON PLC TASK T (INTERVAL := T#10ms);"
        " PROGRAM i WITH T : Main; END_RESOURCE END_CONFIGURATION\n"
        "TYPE T_A : ARRAY[1..2, 0..1] OF STRING(10) := [2([1, 2])]; T_S : INT (0..9); END_TYPE\n"
    )
    tree = parse_ok(text)
    nodes = walk(tree)
    assert len(nodes) > 200
    lines = text.count("\n") + 1
    for node in nodes:
        assert isinstance(node.pos, ast.Pos), node
        assert 1 <= node.pos.line <= lines and node.pos.col >= 1, node
    kinds = {type(n).__name__ for n in nodes}
    assert {"Configuration", "Resource", "TaskDecl", "ProgramInstance", "ArrayInitItem", "CaseRange",
            "DimRange", "Enumerator", "FieldInit", "Location", "DeclName", "Method"} <= kinds


# ------------------------------------------------------------------------------- rejected constructs

REJECTS = [
    ("x := y^;", 3, 7, "pointers/references/dynamic memory are not supported"),
    ("x := ADR(y);", 3, 6, "pointers/references/dynamic memory are not supported"),
    ("x := __NEW(INT);", 3, 6, "pointers/references/dynamic memory are not supported"),
    ("__DELETE(x);", 3, 1, "pointers/references/dynamic memory are not supported"),
    ("b := __ISVALIDREF(x);", 3, 6, "pointers/references/dynamic memory are not supported"),
    ("x REF= y;", 3, 3, "pointers/references/dynamic memory are not supported"),
    ("x := SUPER^.M();", 3, 6, "object-oriented inheritance/interfaces are not supported"),
    ("JMP lbl;", 3, 1, "JMP/labels are not supported"),
    ("  lbl: x := 1;", 3, 3, "JMP/labels are not supported"),
    ("a S= b;", 3, 3, "ExST assignment forms are not supported"),
    ("a R= b;", 3, 3, "ExST assignment forms are not supported"),
    ("x := y := 0;", 3, 8, "ExST assignment forms are not supported"),
    ("x  = 5;", 3, 4, "comparison used as statement; did you mean ':='?"),
    ("IF a THEN x := 1; ELSEIF b THEN x := 2; END_IF", 3, 19, "ELSEIF is not ST; use ELSIF"),
    ("__TRY x := 1; __CATCH(e) x := 2; __FINALLY __ENDTRY",
     3, 1, "__TRY/__CATCH/__FINALLY exception handling is not supported"),
    ("x;", 3, 1, "expression used as statement; assign it with ':=' or call a function"),
]


@pytest.mark.parametrize(("body", "line", "col", "message"), REJECTS)
def test_rejected_statements(body: str, line: int, col: int, message: str) -> None:
    found = problems(HEADER + body + "\nEND_PROGRAM\n")
    assert (line, col, message) in found


TOP_REJECTS = [
    ("TYPE U : UNION a : INT; END_UNION; END_TYPE", 1, 10, "UNION is not supported"),
    ("TYPE P : POINTER TO INT; END_TYPE", 1, 10, "pointers/references/dynamic memory are not supported"),
    ("TYPE R : REFERENCE TO INT; END_TYPE", 1, 10, "pointers/references/dynamic memory are not supported"),
    ("TYPE A : ARRAY[*] OF INT; END_TYPE", 1, 10, "ARRAY[*] (variable-length arrays) is not supported"),
    ("TYPE B : BIT; END_TYPE", 1, 10, "BIT type is not supported; use BOOL"),
    ("TYPE E EXTENDS B : INT; END_TYPE", 1, 6, "object-oriented inheritance/interfaces are not supported"),
    ("INTERFACE I\nMETHOD M : INT\nEND_METHOD\nEND_INTERFACE", 1, 1,
     "object-oriented inheritance/interfaces are not supported"),
    ("FUNCTION_BLOCK FB EXTENDS Base\nEND_FUNCTION_BLOCK", 1, 19,
     "object-oriented inheritance/interfaces are not supported"),
    ("FUNCTION_BLOCK FB IMPLEMENTS I1, I2\nEND_FUNCTION_BLOCK", 1, 19,
     "object-oriented inheritance/interfaces are not supported"),
    ("FUNCTION_BLOCK ABSTRACT FB\nEND_FUNCTION_BLOCK", 1, 16,
     "object-oriented inheritance/interfaces are not supported"),
    ("FUNCTION_BLOCK FB\nMETHOD FINAL M : INT\nEND_METHOD\nEND_FUNCTION_BLOCK", 2, 8,
     "object-oriented inheritance/interfaces are not supported"),
    ("FUNCTION_BLOCK FB\nPROPERTY P : INT\nGET\nVAR v : INT; END_VAR\nP := 1;\nEND_GET\nEND_PROPERTY\n"
     "END_FUNCTION_BLOCK", 2, 1, "PROPERTY is not supported; use a METHOD or a VAR_OUTPUT"),
    ("FUNCTION_BLOCK FB\nVAR x : INT; END_VAR\nx := 1;\nACTION Reset:\nx := 0;\nEND_ACTION\n"
     "END_FUNCTION_BLOCK", 4, 1, "ACTIONs are not supported"),
    ("PROGRAM P VAR p : POINTER TO INT; END_VAR END_PROGRAM", 1, 19,
     "pointers/references/dynamic memory are not supported"),
    ("PROGRAM P VAR r : REFERENCE TO INT; END_VAR END_PROGRAM", 1, 19,
     "pointers/references/dynamic memory are not supported"),
    ("CONFIGURATION C\nVAR_ACCESS a : P.x : INT READ_ONLY; END_VAR\nEND_CONFIGURATION", 2, 1,
     "VAR_ACCESS is not supported by plantloop"),
    ("CONFIGURATION C\nVAR_CONFIG P.x : INT := 1; END_VAR\nEND_CONFIGURATION", 2, 1,
     "VAR_CONFIG is not supported by plantloop"),
    ("PROGRAM P\nINITIAL_STEP s0:\nEND_STEP\nTRANSITION FROM s0 TO s1 := TRUE;\nEND_TRANSITION\n"
     "END_PROGRAM", 2, 1, "SFC (STEP/TRANSITION) is not supported by plantloop"),
    ("PROGRAM P VAR f : FB_X(1, a := 2); END_VAR END_PROGRAM", 1, 23,
     "FB_init arguments in declarations are not supported; initialise inputs with ':= (name := value)'"),
    ("PROGRAM P VAR f : FB_X (a := 2); END_VAR END_PROGRAM", 1, 24,
     "FB_init arguments in declarations are not supported; initialise inputs with ':= (name := value)'"),
    ("PROGRAM P VAR f : ARRAY[1..2] OF FB_X[(a := 1), (a := 2)]; END_VAR END_PROGRAM", 1, 38,
     "FB_init arguments in declarations are not supported; initialise inputs with ':= (name := value)'"),
    ("PROGRAM P\nMETHOD M\nEND_METHOD\nEND_PROGRAM", 2, 1, "METHODs are only supported in a FUNCTION_BLOCK"),
    ("FUNCTION F : INT\nMETHOD M\nEND_METHOD\nEND_FUNCTION", 2, 1,
     "METHODs are only supported in a FUNCTION_BLOCK"),
    ("METHOD M : INT\nEND_METHOD", 1, 1,
     "a METHOD outside its FUNCTION_BLOCK must be qualified: METHOD FB.M"),
]


@pytest.mark.parametrize(("text", "line", "col", "message"), TOP_REJECTS)
def test_rejected_declarations(text: str, line: int, col: int, message: str) -> None:
    assert (line, col, message) in problems(text)


def test_sfc_transition_gets_the_same_message() -> None:
    found = problems("PROGRAM P\nTRANSITION FROM s0 TO s1 := TRUE;\nEND_TRANSITION\nEND_PROGRAM")
    assert found == [(2, 1, "SFC (STEP/TRANSITION) is not supported by plantloop")]


def test_for_control_variable_must_be_plain() -> None:
    assert only_error(HEADER + "FOR a.b := 1 TO 2 DO END_FOR\nEND_PROGRAM") == (
        3, 5, "FOR control variable must be a plain variable (not an element or member)"
    )


def test_rejected_types_and_expressions_cause_no_follow_on_nodes() -> None:
    [prog] = parse_tree_with_errors(
        "PROGRAM P VAR p : POINTER TO INT; u : UNION a : INT; END_UNION; END_VAR\n"
        "x := ADR(y);\nx := 1;\nEND_PROGRAM"
    ).pous
    p, u = prog.var_blocks[0].decls
    assert isinstance(p.type, ast.NamedType) and p.type.name == "INT"  # the pointer's target
    assert isinstance(u.type, ast.StructType)
    assert [type(s).__name__ for s in prog.body] == ["Assign"]  # `x := ADR(y)` dropped


def test_binary_operator_positions() -> None:
    value = expr("y +\n  z * 2")
    assert value.op_pos == ast.Pos(3, 8) and value.right.op_pos == ast.Pos(4, 5)


def test_en_eno_parse_as_ordinary_arguments() -> None:
    [stmt] = stmts("f(EN := a, x := 1, ENO => b);")
    assert [(a.name, a.is_output) for a in stmt.call.args] == [("EN", False), ("x", False), ("ENO", True)]


# ------------------------------------------------------------------------------- syntax errors


def test_missing_end_if_is_reported_at_the_if() -> None:
    line, col, message = only_error(HEADER + "  IF a THEN\n    x := 1;\nEND_PROGRAM\n")
    assert (line, col) == (3, 3)
    assert message == (
        "syntax error: missing END_IF for the IF at line 3 (expected 'ELSIF', 'ELSE' or 'END_IF',"
        " found 'END_PROGRAM' at line 5, column 1)"
    )


def test_missing_end_if_names_the_inner_if() -> None:
    text = HEADER + "IF a THEN\n  IF b THEN x := 1;\nEND_IF\nEND_PROGRAM\n"
    assert only_error(text)[:2] == (3, 1)
    text = HEADER + "IF a THEN\n  IF b THEN x := 1;\nEND_PROGRAM\n"
    assert only_error(text)[:2] == (4, 3)


def test_unclosed_loop_at_end_of_input() -> None:
    line, col, message = only_error(HEADER + "WHILE a DO\n  x := 1;\n")
    assert (line, col) == (3, 1)
    assert message.startswith("syntax error: missing END_WHILE for the WHILE at line 3")
    assert "found end of input" in message


def test_junk_inside_an_if_is_not_blamed_on_the_if() -> None:
    line, col, message = only_error(HEADER + "IF a THEN\n  x := 1; 5\nEND_IF\nEND_PROGRAM")
    assert (line, col) == (4, 12) and "missing" not in message


def test_missing_semicolon_is_reported_after_the_previous_token() -> None:
    assert only_error(HEADER + "x := 1\ny := 2;\nEND_PROGRAM") == (
        3, 7, "syntax error: expected operator, ':=' or ';', found 'y'"
    )


def test_missing_operand_names_expression() -> None:
    assert only_error(HEADER + "x := (1 + ;\nEND_PROGRAM") == (
        3, 11, "syntax error: expected expression, found ';'"
    )


def test_reserved_word_as_name_gets_a_hint() -> None:
    line, col, message = only_error("PROGRAM P VAR step : INT; END_VAR END_PROGRAM")
    assert (line, col) == (1, 15)
    assert "step is a reserved keyword and cannot be used as a name" in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("PROGRAM P x := 1; @ END_PROGRAM", (1, 19, "syntax error: expected statement, 'METHOD' or 'END_PROGRAM', found '@'")),
        ("PROGRAM P CASE x OF 1: x := 1; @ END_CASE END_PROGRAM",
         (1, 32, "syntax error: expected statement, 'ELSE' or 'END_CASE', found '@'")),
        ("PROGRAM P IF THEN END_IF END_PROGRAM", (1, 14, "syntax error: expected expression, found 'THEN'")),
        ("PROGRAM P VAR x INT; END_VAR END_PROGRAM", (1, 17, "syntax error: expected ',', 'AT' or ':', found 'INT'")),
        ("PROGRAM P END_PROGRAM PROGRAM", (1, 30, "syntax error: expected identifier, found end of input")),
    ],
)
def test_syntax_error_wording(text: str, expected: tuple[int, int, str]) -> None:
    assert only_error(text) == expected


def test_garbage_at_top_level() -> None:
    line, col, message = only_error("\n  @@@")
    assert (line, col) == (2, 3)
    assert message.startswith("syntax error: expected 'TYPE', 'FUNCTION_BLOCK', 'FUNCTION', 'PROGRAM'")
    assert message.endswith("found '@'")


def test_errors_from_preprocess_and_literals_are_positioned() -> None:
    assert only_error(HEADER + "  (* open\nEND_PROGRAM") == (3, 3, "unterminated comment '(*' (missing '*)')")
    assert only_error(HEADER + "x := 'a$Qb';\nEND_PROGRAM") == (3, 8, "invalid escape '$Q' in string literal")
    assert only_error(HEADER + "x :=   'ab$z';\nEND_PROGRAM") == (3, 11, "invalid escape '$z' in string literal")


def test_empty_source_is_an_empty_file() -> None:
    tree = parse_ok("  (* nothing *)\n")
    assert tree.pous == [] and tree.types == []


# ------------------------------------------------------------------------------- limits and hostile input


def test_source_too_large_is_rejected_at_1_1() -> None:
    text = "PROGRAM P END_PROGRAM" + " " * MAX_SOURCE_BYTES
    [(line, col, message)] = problems(text)
    assert (line, col) == (1, 1)
    assert message == f"source too large ({len(text)} bytes > limit {MAX_SOURCE_BYTES})"


@pytest.mark.parametrize(
    ("text", "limit_at"),
    [
        (HEADER + "x := " + "(" * 10_000 + "1" + ")" * 10_000 + ";\nEND_PROGRAM", (3, 6 + MAX_NESTING)),
        (HEADER + "IF a THEN\n" * 100 + "END_IF\n" * 100 + "END_PROGRAM", (3 + MAX_NESTING, 1)),
        ("PROGRAM P VAR v : INT := " + "[" * 5000 + "\nEND_PROGRAM", (1, 26 + MAX_NESTING)),
        ("TYPE S : " + "STRUCT a : " * 200 + "INT; END_TYPE", (1, 10 + 11 * MAX_NESTING)),
    ],
)
def test_deep_nesting_is_a_limit_error_where_crossed(text: str, limit_at: tuple[int, int]) -> None:
    start = time.perf_counter()
    [(line, col, message)] = problems(text)
    assert time.perf_counter() - start < 2.0
    assert (line, col) == limit_at
    assert message.startswith(f"nesting too deep (more than {MAX_NESTING} levels")


def test_nesting_just_below_the_limit_parses() -> None:
    depth = MAX_NESTING - 1
    tree = parse_ok(HEADER + "x := " + "(" * depth + "1" + ")" * depth + ";\nEND_PROGRAM")
    assert tree.pous[0].body[0].value.value == 1


def test_too_many_tokens() -> None:
    text = HEADER + "x := " + " + ".join(["1"] * MAX_TOKENS) + ";\nEND_PROGRAM"
    start = time.perf_counter()
    [(line, _, message)] = problems(text)
    assert time.perf_counter() - start < 1.0
    assert line == 3 and message == f"too many tokens (more than {MAX_TOKENS})"


def test_long_flat_expression_is_not_recursive() -> None:
    """5,000 operands: far beyond Python's default recursion limit if the parser recursed."""
    value = expr(" - ".join(["x"] * 5000))
    depth = 0
    while isinstance(value, ast.Binary):
        assert value.op == "-" and shape(value.right) == "x"  # left-associative
        value, depth = value.left, depth + 1
    assert depth == 4999


@pytest.mark.parametrize(
    "text",
    [
        "", "\x00\x01\x02", "PROGRAM", "END_PROGRAM", "(*", "'", "{", "PROGRAM P x := ",
        "PROGRAM P VAR x : ARRAY[1..", "\ufeffPROGRAM P END_PROGRAM", "x" * 10_000, "-" * 30_000,
        "PROGRAM P IF " + "NOT " * 20_000 + "a THEN END_IF END_PROGRAM",
    ],
)
def test_hostile_input_never_raises(text: str) -> None:
    start = time.perf_counter()
    diags = Diagnostics("t.st")
    parse(text, "t.st", diags)
    assert time.perf_counter() - start < 2.0


def test_grammar_id_rule_rejects_exactly_the_reserved_words() -> None:
    grammar = GRAMMAR_FILE.read_text()
    id_regex = re.compile(re.search(r"^ID:\n\s+/(.*)/\n;", grammar, re.M).group(1), re.IGNORECASE)
    assert [w for w in RESERVED if id_regex.fullmatch(w)] == []
    for name in ["x", "Step1", "TO_INT", "ON_OFF", "_tmp", "IFx", "END_IFA", "MyVar", "INT", "TON"]:
        assert id_regex.fullmatch(name), name


def test_parse_speed_of_a_generated_program() -> None:
    from benchmarks.parse_speed import generate_program

    text = generate_program(300)
    start = time.perf_counter()
    parse_ok(text)
    assert time.perf_counter() - start < 1.5  # ~0.1 s unloaded; generous for shared CI cores
