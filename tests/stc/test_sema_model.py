"""The semantic model the back ends consume: variables, initial values, types, annotations."""

from __future__ import annotations

import numpy as np

from stc import ast
from stc import types as T
from stc.frontend import check_source
from stc.sema.model import EnumValue, Variable

SOURCE = """TYPE
  E_State : (IDLE, RUN, FAULT := 10, DONE) := RUN;
  ST_Base : STRUCT id : INT := 7; END_STRUCT;
  ST_P EXTENDS ST_Base : STRUCT x : REAL; y : REAL := 1.0; END_STRUCT;
  T_Speed : REAL := 1.5;
  T_Pct : INT (0..100);
END_TYPE
VAR_GLOBAL
  gArr : ARRAY[1..2, 0..1] OF INT := [1, 2, 3];
END_VAR
VAR_GLOBAL CONSTANT
  N : INT := 4;
  M : INT := N * 2 + 1;
END_VAR
FUNCTION_BLOCK FB_X
VAR_INPUT go : BOOL; lim : INT := 3; END_VAR
VAR_OUTPUT q : BOOL; END_VAR
VAR cnt : INT; t : TON := (PT := T#2s); END_VAR
METHOD Reset : BOOL
VAR_INPUT hard : BOOL; END_VAR
cnt := 0; Reset := hard;
END_METHOD
cnt := cnt + 1;
q := Reset(TRUE);
END_FUNCTION_BLOCK
PROGRAM Main
VAR
  st : E_State;
  p : ST_P := (x := 2.0);
  ps : ARRAY[1..2] OF ST_P := [(x := 1.0), (y := 3.0, id := 1)];
  sp : T_Speed;
  buf : ARRAY[0..5] OF INT := [5, 2(9), 3(0)];
  pct : T_Pct;
  fb : FB_X := (lim := 9);
  a : ARRAY[1..M] OF BYTE;
  r : REAL := 0.1;
  i : INT := -7 / 2;
  j : INT := -7 MOD 3;
  w : WORD := NOT WORD#16#0F;
  ok : BOOL;
END_VAR
fb(go := TRUE);
ok := fb.Reset(FALSE);
st := E_State#DONE;
st := FAULT;
i := i + 1;
r := r * 2.0;
END_PROGRAM
"""


def _model():
    result = check_source(SOURCE, "m.st")
    assert result.diagnostics.items == []
    assert result.model is not None
    return result


def _init(name: str):
    return _model().model.pous["MAIN"].variables[name.upper()].init


def test_initial_values_are_fully_evaluated() -> None:
    assert _init("st") == 1  # the type's declared default RUN
    assert _init("p") == {"id": 7, "x": np.float32(2.0), "y": np.float32(1.0)}  # EXTENDS: base members first
    assert _init("ps")[1] == {"id": 1, "x": np.float32(0.0), "y": np.float32(3.0)}
    assert _init("sp") == np.float32(1.5) and isinstance(_init("sp"), np.float32)  # alias default
    assert _init("buf") == [5, 9, 9, 0, 0, 0]
    assert _init("pct") == 0  # subrange: lower bound
    assert _init("i") == -3 and _init("j") == -1  # truncating / and MOD
    assert _init("w") == 0xFFF0
    assert _init("r") == np.float32(0.1)


def test_fb_instance_initial_value_includes_declared_defaults_and_init_list() -> None:
    assert _init("fb") == {"go": False, "lim": 9, "q": False, "cnt": 0,
                           "t": {"IN": False, "PT": 2000, "Q": False, "ET": 0}}


def test_globals_constants_and_array_dims() -> None:
    m = _model().model
    assert m.globals["GARR"].init == [1, 2, 3, 0]  # row-major, missing tail keeps defaults
    assert m.globals["M"].init == 9 and m.globals["M"].constant
    a = m.pous["MAIN"].variables["A"].type
    assert isinstance(a, T.ArrayType) and a.dims == ((1, 9),) and a.elem is T.BYTE


def test_user_types_resolved() -> None:
    m = _model().model
    e = m.types["E_STATE"].type
    assert isinstance(e, T.EnumType) and e.values == {"IDLE": 0, "RUN": 1, "FAULT": 10, "DONE": 11}
    st = m.types["ST_P"].type
    assert isinstance(st, T.StructType) and [x.name for x in st.members] == ["id", "x", "y"]
    pct = m.types["T_PCT"].type
    assert pct == T.SubrangeType(T.INT, 0, 100)


def test_pous_methods_and_entry_point() -> None:
    m = _model().model
    fb = m.pous["FB_X"]
    assert fb.kind == "FUNCTION_BLOCK" and list(fb.methods) == ["RESET"]
    assert fb.methods["RESET"].return_type is T.BOOL
    assert [v.section for v in fb.variables.values()] == ["VAR_INPUT", "VAR_INPUT", "VAR_OUTPUT", "VAR", "VAR"]
    assert [(e.name, e.pou.name) for e in m.entry] == [("Main", "Main")]


def test_expressions_are_annotated() -> None:
    result = _model()
    body = result.model.pous["MAIN"].node.body
    call = body[0].call
    assert isinstance(call.func.symbol, Variable) and call.func.symbol.name == "fb"
    method_call = body[1].value
    assert method_call.ty is T.BOOL and method_call.args[0].name == "hard"  # positional bound by name
    assert body[2].value.ty.name == "E_State" and body[2].value.const == 11
    fault = body[3].value
    assert isinstance(fault.symbol, EnumValue) and fault.const == 10
    inc = body[4].value
    assert inc.ty is T.INT and inc.right.ty is T.INT  # untyped literal takes the other operand's type
    scaled = body[5].value
    assert scaled.ty is T.REAL and scaled.right.ty is T.REAL and isinstance(scaled.right.const, np.float32)


def _expr_of(decls: str, expr: str) -> ast.Expr:
    result = check_source(f"PROGRAM Main\nVAR\n{decls}\nEND_VAR\nx := {expr};\nEND_PROGRAM\n")
    assert not result.diagnostics.has_errors, result.diagnostics.render()
    return result.ast.pous[0].body[0].value


def test_literal_typing_rules() -> None:
    assert _expr_of("x : LINT;", "7 / 2").const == 3  # a literal never changes class
    big = _expr_of("x : LINT;", "3000000000")
    assert big.ty is T.LINT
    assert _expr_of("x : LREAL; i : INT;", "i * 1.5").ty is T.LREAL
    assert _expr_of("x : REAL; r : REAL;", "r + 0.5").ty is T.REAL
    assert _expr_of("x : LREAL; a : INT;", "a ** 2").ty is T.LREAL  # both integer: LREAL
    assert _expr_of("x : BYTE;", "SIZEOF(x)").const == 1


def test_constant_folding_of_constants_and_conversions() -> None:
    e = _expr_of("x : INT;\nEND_VAR\nVAR CONSTANT K : INT := 3;", "K * 2 + DINT_TO_INT(70000)")
    assert e.const == 6 + 4464
    assert _expr_of("x : INT;", "REAL_TO_INT(2.5) + REAL_TO_INT(3.5)").const == 6


def test_model_is_none_when_there_are_errors() -> None:
    result = check_source("PROGRAM Main\nVAR x : INT; END_VAR\nx := y;\nEND_PROGRAM\n")
    assert result.model is None and result.ast is not None


def test_every_expression_is_annotated() -> None:
    from stc.sema.iolist import all_nodes

    result = _model()
    missing = [n for n in all_nodes(result.ast) if isinstance(n, ast.Expr) and n.ty is None]
    assert missing == []


def test_fb_instances_reached_through_paths_can_be_called() -> None:
    text = ("TYPE S : STRUCT t : TON; END_STRUCT; END_TYPE\n"
            "PROGRAM Main\nVAR arr : ARRAY[1..2] OF TOF; s : S; go : BOOL; END_VAR\n"
            "arr[1](IN := go, PT := T#1s);\ns.t(IN := arr[1].Q);\nEND_PROGRAM\n")
    result = check_source(text)
    assert result.diagnostics.items == []
    call = result.ast.pous[0].body[1].call
    assert call.func.ty.name == "TON" and [a.name for a in call.args] == ["IN"]


def test_configuration_entry_points_in_textual_order() -> None:
    text = ("CONFIGURATION C\nVAR_GLOBAL g : INT := 2; END_VAR\nRESOURCE R ON PLC\nTASK T (INTERVAL := T#10ms);\n"
            "PROGRAM second WITH T : PB;\nPROGRAM first WITH T : PA;\nEND_RESOURCE\nEND_CONFIGURATION\n"
            "PROGRAM PA\nVAR_OUTPUT o : INT; END_VAR\no := g;\nEND_PROGRAM\n"
            "PROGRAM PB\nVAR x : INT; END_VAR\nx := first.o;\nEND_PROGRAM\n")
    result = check_source(text)
    assert not result.diagnostics.has_errors
    m = result.model
    assert [(e.name, e.pou.name, e.task) for e in m.entry] == [("second", "PB", "T"), ("first", "PA", "T")]
    assert m.configuration == "C" and m.globals["G"].init == 2
    assert m.globals["FIRST"].section == "INSTANCE"


def test_check_file_reports_unreadable_path(tmp_path) -> None:
    from stc.frontend import check_file

    result = check_file(str(tmp_path / "missing.st"))
    assert [d.message.startswith("cannot read") for d in result.diagnostics.items] == [True]
    assert result.ast is None and result.model is None
