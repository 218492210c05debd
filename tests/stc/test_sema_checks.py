"""Every compile-time error and warning of the semantic pass: exact message and line:col.

Each case is a small PROGRAM (declarations on line 3, body from line 5). Where the position
is that of an operator, bit access or member, the expected position is read from the AST
(`{Binary}` operator, `{BitAccess}` bit number, `{member}` member name), so the test pins
"reported at that token" independently of column arithmetic.
"""

from __future__ import annotations

import pytest

from stc import ast
from stc.frontend import check_source

D = ("i : INT; d : DINT; u : UINT; r : REAL; lr : LREAL; b : BOOL; w : WORD; s : STRING; tm : TIME; "
     "arr : ARRAY[1..3] OF INT;")


def prog(decls: str, body: str) -> str:
    return f"PROGRAM Main\nVAR\n    {decls}\nEND_VAR\n{body}\nEND_PROGRAM\n"


def found(text: str) -> list[str]:
    result = check_source(text)
    return [f"{d.line}:{d.column}: {d.severity.value}: {d.message}" for d in result.diagnostics.sorted()]


def _first(node: object, cls: type) -> ast.Node | None:
    from stc.sema.iolist import all_nodes

    hits = [n for n in all_nodes(node) if isinstance(n, cls)]
    return min(hits, key=lambda n: (n.pos.line, n.pos.col)) if hits else None


def node_positions(text: str) -> dict[str, str]:
    tree = check_source(text).ast
    out = {}
    b = _first(tree, ast.Binary)
    if b is not None:
        out["Binary"] = f"{b.op_pos.line}:{b.op_pos.col}"
    bit = _first(tree, ast.BitAccess)
    if bit is not None:
        out["BitAccess"] = f"{bit.bit_pos.line}:{bit.bit_pos.col}"
    m = _first(tree, ast.Member)
    if m is not None:
        out["member"] = f"{m.member_pos.line}:{m.member_pos.col}"
    return out


CASES = {
    "unknown_identifier_reported_once": (D, "i := x + 1;\ni := x;", ["5:6: error: unknown identifier 'x'"]),
    "unknown_type": ("v : T_Missing;", "", ["3:9: error: unknown type 'T_Missing'"]),
    "unknown_function": (D, "i := FOO(1);", ["5:6: error: unknown function 'FOO'"]),
    "unknown_fb_type": ("t : RTC;", "", ["3:9: error: unknown function block type 'RTC'"]),
    "round_hint": (D, "i := ROUND(r);",
                   ["5:6: error: unknown function ROUND; use REAL_TO_INT (ties to even) or TRUNC"]),
    "duplicate_variable": ("a : INT; a : BOOL;", "",
                           ["3:14: error: duplicate declaration of 'a' (conflicts with 'a' at line 3)"]),
    "reserved_name": ("TON : INT;", "", ["3:5: error: 'TON' is a standard name and cannot be redeclared"]),
    "real_to_int": (D, "i := r;", ["5:6: error: implicit conversion REAL -> INT is not allowed; "
                                   "use REAL_TO_INT (rounds) or TRUNC (truncates)"]),
    "narrowing": (D, "i := d;", ["5:6: warning: implicit conversion DINT -> INT may lose information"]),
    "sign_change": (D, "u := i;", ["5:6: warning: implicit conversion INT -> UINT may lose information"]),
    "precision": (D, "r := d;", ["5:6: warning: implicit conversion DINT -> REAL may lose precision"]),
    "lreal_to_real": (D, "r := lr;", ["5:6: warning: implicit conversion LREAL -> REAL may lose precision"]),
    "bool_to_int": (D, "i := b;",
                    ["5:6: error: implicit conversion BOOL -> INT is not allowed; use a conversion function"]),
    "time_to_int": (D, "d := tm;",
                    ["5:6: error: implicit conversion TIME -> DINT is not allowed; use a conversion function"]),
    "string_to_wstring": ("s : STRING; ws : WSTRING;", "ws := s;",
                          ["5:7: error: implicit conversion STRING -> WSTRING is not allowed; use a conversion function"]),
    "literal_out_of_range": ("b : BYTE := 300; u : UINT := -1;", "",
                             ["3:17: error: literal 300 is out of range of BYTE",
                              "3:34: error: literal -1 is out of range of UINT"]),
    "subrange_literal": ("p : INT(0..10);", "p := 11;", ["5:6: error: literal 11 is out of range of INT (0..10)"]),
    "bool_arithmetic": (D, "i := b + 1;", ["{Binary}: error: BOOL is not a number: '+' is not defined for BOOL"]),
    "bool_with_bit_string": (D, "b := b AND w;", ["{Binary}: error: cannot mix BOOL and WORD in AND"]),
    "mod_on_real": (D, "r := r MOD 2.0;",
                    ["{Binary}: error: MOD is not defined for REAL/LREAL; MOD needs integer operands"]),
    "time_plus_number": (D, "tm := tm + 1;",
                         ["{Binary}: error: '+' is not defined for TIME and DINT; convert with TIME_TO_* / *_TO_TIME"]),
    "time_divided_by_time": (D, "tm := tm / tm;",
                             ["{Binary}: error: '/' is not defined for TIME and TIME; convert with TIME_TO_* / *_TO_TIME"]),
    "bool_ordering": (D, "b := b < b;", ["{Binary}: error: '<' is not defined for BOOL (only = and <>)"]),
    "array_equality": (D, "b := arr = arr;", ["{Binary}: error: '=' is not defined for arrays; compare element by element"]),
    "not_then_compare": (D, "b := NOT i > 5;",
                         ["5:6: warning: NOT on INT is a bitwise complement before '>'; did you mean NOT (a > b)?"]),
    "if_condition_not_bool": (D, "IF i THEN ; END_IF;", ["5:4: error: IF condition must be BOOL, got INT"]),
    "while_condition_not_bool": (D, "WHILE d DO ; END_WHILE;", ["5:7: error: WHILE condition must be BOOL, got DINT"]),
    "until_condition_not_bool": (D, "REPEAT ; UNTIL i END_REPEAT;", ["5:16: error: UNTIL condition must be BOOL, got INT"]),
    "case_selector_real": (D, "CASE r OF 1: ; END_CASE;",
                           ["5:6: error: CASE selector must be an integer, bit string or enumeration, got REAL"]),
    "case_overlap_and_empty_range": (D, "CASE i OF 1..3: ; 2: ; 5..4: ; END_CASE;",
                                     ["5:19: error: CASE label 2 overlaps an earlier label",
                                      "5:24: error: CASE range 5..4 is empty (lower bound greater than upper bound)"]),
    "case_duplicate": (D, "CASE i OF 1: ; 1: ; END_CASE;", ["5:16: error: duplicate CASE label 1"]),
    "case_label_not_constant": (D, "CASE i OF d: ; END_CASE;", ["5:11: error: CASE label must be a constant"]),
    "for_real_variable": (D, "FOR r := 1 TO 3 DO ; END_FOR;",
                          ["5:5: error: FOR control variable 'r' must be a plain variable of an integer type, got REAL"]),
    "for_variable_assigned": (D, "FOR i := 1 TO 3 DO i := 2; END_FOR;",
                              ["5:20: error: cannot assign to FOR control variable 'i' inside its loop"]),
    "for_end_is_type_maximum": ("k : SINT;", "FOR k := 0 TO 127 DO ; END_FOR;",
                                ["5:15: warning: FOR end value 127 is the maximum/minimum of SINT: the loop variable "
                                 "wraps and the loop never terminates (watchdog)"]),
    "for_body_changes_end": ("k : INT; n : INT := 5;", "FOR k := 1 TO n DO\n  n := 2;\nEND_FOR;",
                             ["6:3: warning: the FOR body assigns 'n', which the end/step expression reads "
                              "(re-evaluated before every test)"]),
    "for_step_zero": ("k : INT;", "FOR k := 1 TO 3 BY 0 DO ; END_FOR;",
                      ["5:20: warning: FOR step is 0: runtime error FOR_STEP_ZERO when the loop is reached"]),
    "exit_outside_loop": (D, "EXIT;", ["5:1: error: EXIT outside a loop"]),
    "continue_outside_loop": (D, "CONTINUE;", ["5:1: error: CONTINUE outside a loop"]),
    "bit_index_out_of_range": (D, "b := w.16;", ["{BitAccess}: error: bit index 16 is out of range for WORD (0..15)"]),
    "bit_access_on_real": (D, "b := r.1;", ["5:6: error: bit access on REAL; needs an integer or bit-string variable"]),
    "array_bounds_reversed": ("a : ARRAY[5..1] OF INT;", "",
                              ["3:15: error: array bounds 5..1: lower bound greater than upper bound"]),
    "array_bound_not_constant": ("n : INT := 3; a : ARRAY[1..n] OF INT;", "",
                                 ["3:32: error: array bound must be a constant integer expression"]),
    "array_initializer_too_long": ("a : ARRAY[1..3] OF INT := [1, 2, 3, 4];", "",
                                   ["3:41: error: too many initial values for 'a': 4 given, the array has 3 elements"]),
    "array_too_large": ("a : ARRAY[1..2000000] OF BYTE;", "",
                        ["3:9: error: array too large: 2000000 elements (limit 1000000 elements, 64 MB)"]),
    "fb_init_unknown_member": ("t : TON := (XX := 1);", "", ["3:17: error: 'TON' has no variable 'XX'"]),
    "fb_type_called_directly": (D, "TON(IN := b);", ["5:1: error: function block type 'TON' cannot be called "
                                                     "directly; declare an instance and call the instance"]),
    "fb_instance_in_expression": ("t : TON; q : BOOL;", "q := t(IN := TRUE);",
                                  ["5:6: error: FB instance 't' cannot be called inside an expression; call it as a "
                                   "statement and read its outputs"]),
    "fb_output_written": ("t : TON;", "t.Q := TRUE;", ["{member}: error: cannot assign to output 'Q' of FB instance 't'"]),
    "en_eno": ("t : TON;", "t(EN := TRUE);", ["5:3: error: EN/ENO are not supported"]),
    "unknown_parameter": ("t : TON;", "t(XX := TRUE);", ["5:3: error: 't' has no parameter 'XX'"]),
    "input_bound_with_arrow": ("t : TON; q : BOOL;", "t(IN => q);", ["5:3: error: 'IN' is not an output of 't'; use ':='"]),
    "output_bound_with_assign": ("t : TON;", "t(Q := TRUE);", ["5:3: error: 'Q' is an output of 't'; use '=>'"]),
    "shift_on_integer_warns": (D, "i := SHL(i, 1);",
                               ["5:6: warning: SHL on integer type INT; shifts are defined on bit strings "
                                "(the bit pattern is shifted)"]),
    "sizeof_fb_instance": ("t : TON; n : DINT;", "n := SIZEOF(t);",
                           ["5:6: error: SIZEOF is not supported for TON (structs and FB instances have no defined layout)"]),
    "min_with_one_argument": (D, "i := MIN(i);", ["5:6: error: 'MIN' expects at least 2 argument(s), got 1"]),
    "write_to_input_address": (D, "%IX0.0 := TRUE;",
                               ["5:1: warning: write to input %IX0.0 is overwritten at the next input refresh"]),
    "located_type_mismatch": ("x AT %IW0 : REAL;", "",
                              ["3:10: error: located variable 'x' of type REAL does not fit %IW0 (size W needs INT/UINT/WORD)"]),
    "located_bit_number": ("x AT %QX0.8 : BOOL;", "", ["3:10: error: bit number 8 in %QX0.8 is out of range 0..7"]),
    "overlapping_addresses": ("a AT %MW0 : WORD; bb AT %MB1 : BYTE;", "",
                              ["3:29: warning: addresses %MW0 and %MB1 overlap (byte offsets) but are independent "
                               "cells in plantloop (not aliased)"]),
    "integer_to_enum_warns": ("e : (A, B);", "e := 1;", ["5:6: warning: implicit conversion INT -> e (integer to enumeration)"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_diagnostics(name: str) -> None:
    decls, body, expected = CASES[name]
    text = prog(decls, body)
    positions = node_positions(text)
    assert found(text) == [e.format(**positions) for e in expected]


FILES = {
    "constant_written": (
        "PROGRAM Main\nVAR CONSTANT\n    c : INT := 1;\nEND_VAR\nc := 2;\nEND_PROGRAM\n",
        ["5:1: error: cannot assign to constant 'c'"]),
    "constant_without_value": (
        "PROGRAM Main\nVAR CONSTANT\n    c : INT;\nEND_VAR\nEND_PROGRAM\n",
        ["3:5: error: constant 'c' must have an initial value"]),
    "initial_value_not_constant": (
        "PROGRAM Main\nVAR\n    a : INT;\n    b : INT := a + 1;\nEND_VAR\nEND_PROGRAM\n",
        ["4:16: error: initial value of 'b' must be a constant expression"]),
    "multiple_programs": (
        "PROGRAM A\nEND_PROGRAM\nPROGRAM B\nEND_PROGRAM\n",
        ["3:1: error: multiple PROGRAMs; keep one or add a CONFIGURATION"]),
    "no_program": (
        "FUNCTION F : INT\nF := 1;\nEND_FUNCTION\n",
        ["1:1: error: no PROGRAM found: the file must contain exactly one PROGRAM (or a CONFIGURATION)"]),
    "direct_recursion": (
        "FUNCTION F : INT\nVAR_INPUT n : INT; END_VAR\nF := F(n - 1);\nEND_FUNCTION\nPROGRAM Main\nEND_PROGRAM\n",
        ["3:6: error: recursion between POUs is not supported: F -> F"]),
    "indirect_recursion_reports_every_call": (
        "FUNCTION A : INT\nA := B();\nEND_FUNCTION\nFUNCTION B : INT\nB := A();\nEND_FUNCTION\n"
        "PROGRAM Main\nEND_PROGRAM\n",
        ["2:6: error: recursion between POUs is not supported: A -> B -> A",
         "5:6: error: recursion between POUs is not supported: A -> B -> A"]),
    "fb_contains_itself": (
        "FUNCTION_BLOCK FB\nVAR child : FB; END_VAR\nEND_FUNCTION_BLOCK\nPROGRAM Main\nEND_PROGRAM\n",
        ["2:13: error: recursion between POUs is not supported: FB -> FB"]),
    "void_function_in_expression": (
        "FUNCTION Log\nVAR_INPUT m : INT; END_VAR\n;\nEND_FUNCTION\n"
        "PROGRAM Main\nVAR x : INT; END_VAR\nx := Log(1);\nEND_PROGRAM\n",
        ["7:6: error: function 'Log' has no return type and cannot be used in an expression"]),
    "function_arguments": (
        "FUNCTION F : INT\nVAR_INPUT a : INT; END_VAR\nVAR_IN_OUT acc : INT; END_VAR\nF := a;\nEND_FUNCTION\n"
        "PROGRAM Main\nVAR i : INT; d : DINT; END_VAR\n"
        "i := F(1, d);\ni := F(1, 5);\ni := F(a := 1, 2);\ni := F(1);\ni := F(1, i, 3);\nEND_PROGRAM\n",
        ["8:11: error: VAR_IN_OUT argument for 'acc' must have type INT, got DINT",
         "9:11: error: VAR_IN_OUT argument for 'acc' must be a variable",
         "10:16: error: positional argument after formal arguments",
         "11:6: error: 'F' expects 2 arguments, got 1",
         "12:14: error: too many arguments for 'F': it takes 2"]),
    "internal_variable_of_fb": (
        "FUNCTION_BLOCK FB\nVAR n : INT; END_VAR\nEND_FUNCTION_BLOCK\n"
        "PROGRAM Main\nVAR f : FB; x : INT; END_VAR\nx := f.n;\nEND_PROGRAM\n",
        ["{member}: error: 'f.n' is not accessible: 'n' is internal to 'FB'"]),
    "ambiguous_enumerator": (
        "TYPE\n  E_A : (IDLE, RUN);\n  E_B : (IDLE, STOP);\nEND_TYPE\n"
        "PROGRAM Main\nVAR a : E_A; END_VAR\na := IDLE;\na := E_A.IDLE;\na := E_A#IDLE;\nEND_PROGRAM\n",
        ["7:6: error: ambiguous enumerator 'IDLE' (defined in E_A, E_B); qualify it as Type.IDLE"]),
    "shadowing_global": (
        "VAR_GLOBAL g : INT; END_VAR\nPROGRAM Main\nVAR g : INT; END_VAR\nEND_PROGRAM\n",
        ["3:5: warning: 'g' shadows the global variable declared at line 1"]),
    "var_external_mismatch": (
        "VAR_GLOBAL g : INT; END_VAR\nPROGRAM Main\nVAR_EXTERNAL g : DINT; h : INT; END_VAR\nEND_PROGRAM\n",
        ["3:14: error: VAR_EXTERNAL 'g' has type DINT but the global has type INT",
         "3:24: error: VAR_EXTERNAL 'h' does not match a global variable"]),
    "sections_per_pou_kind": (
        "FUNCTION F : INT\nVAR_TEMP t : INT; END_VAR\nF := 1;\nEND_FUNCTION\n"
        "PROGRAM Main\nVAR_IN_OUT x : INT; END_VAR\nVAR_INST y : INT; END_VAR\nEND_PROGRAM\n",
        ["2:1: error: VAR_TEMP is not allowed in a FUNCTION", "6:1: error: VAR_IN_OUT is not allowed in a PROGRAM",
         "7:1: error: VAR_INST is only allowed in a METHOD"]),
    "fb_instance_in_function_warns": (
        "FUNCTION F : BOOL\nVAR t : TON; END_VAR\nt(IN := TRUE);\nF := t.Q;\nEND_FUNCTION\nPROGRAM Main\nEND_PROGRAM\n",
        ["2:5: warning: FB instance 't' in a FUNCTION is re-initialised at every call and keeps no state"]),
    "task_properties_ignored": (
        "CONFIGURATION C\nRESOURCE R ON PLC\nTASK T1 (INTERVAL := T#10ms);\nPROGRAM p WITH T1 : Main;\n"
        "END_RESOURCE\nEND_CONFIGURATION\nPROGRAM Main\nEND_PROGRAM\n",
        ["3:10: warning: TASK 'T1' properties are ignored: the harness cycle (10 ms) is the only clock"]),
    "program_instance_is_read_only": (
        "CONFIGURATION C\nRESOURCE R ON PLC\nPROGRAM a : PA;\nPROGRAM b : PB;\nEND_RESOURCE\nEND_CONFIGURATION\n"
        "PROGRAM PA\nVAR_OUTPUT o : INT; END_VAR\nEND_PROGRAM\n"
        "PROGRAM PB\nVAR x : INT; END_VAR\nx := a.o;\na.o := 1;\nEND_PROGRAM\n",
        ["13:3: error: cannot assign to 'o' of PROGRAM instance 'a': variables of another PROGRAM are read-only"]),
    "unknown_method_mentions_actions": (
        "FUNCTION_BLOCK FB\nEND_FUNCTION_BLOCK\nPROGRAM Main\nVAR f : FB; END_VAR\nf.Go();\nEND_PROGRAM\n",
        ["{member}: error: 'FB' has no method 'Go' (ACTIONs are not supported)"]),
    "recursive_type": (
        "TYPE A : STRUCT x : A; END_STRUCT; END_TYPE\nPROGRAM Main\nEND_PROGRAM\n",
        ["1:6: error: type 'A' is defined in terms of itself"]),
    "nested_arrays_count_every_cell": (
        "PROGRAM Main\nVAR a : ARRAY[1..1000] OF ARRAY[1..1000] OF ARRAY[1..1000] OF BYTE; END_VAR\nEND_PROGRAM\n",
        ["2:9: error: array too large: 1000000000 elements (limit 1000000 elements, 64 MB)"]),
    "program_memory_limit": (
        "PROGRAM Main\nVAR\n" + "".join(f"a{i} : ARRAY[1..600] OF STRING(65535);\n" for i in range(2))
        + "END_VAR\nEND_PROGRAM\n",
        ["1:1: error: program memory too large: 78643200 bytes (limit 64 MB)"]),
    "program_cell_limit": (
        "PROGRAM Main\nVAR\n" + "".join(f"a{i} : ARRAY[1..1000000] OF BOOL;\n" for i in range(5))
        + "END_VAR\nEND_PROGRAM\n",
        ["7:6: error: program too large: more than 4000000 variable cells in total"]),
    "division_by_constant_zero": (
        "PROGRAM Main\nVAR x : INT := 1 / 0; END_VAR\nEND_PROGRAM\n",
        ["2:16: error: initial value of 'x' must be a constant expression",
         "{Binary}: warning: division by zero (runtime error DIV_ZERO when executed)"]),
    "struct_unknown_member": (
        "TYPE P : STRUCT x : REAL; END_STRUCT; END_TYPE\nPROGRAM Main\nVAR p : P; END_VAR\np.z := 1.0;\nEND_PROGRAM\n",
        ["{member}: error: 'P' has no member 'z'"]),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_file_diagnostics(name: str) -> None:
    text, expected = FILES[name]
    positions = node_positions(text)
    assert found(text) == [e.format(**positions) for e in expected]


def test_all_errors_are_collected_without_cascades() -> None:
    text = prog(D + " q : Missing;", "i := r;\nq := 1;\nq.x := q.y + 1;\nIF i THEN EXIT; END_IF;")
    assert found(text) == [
        "3:129: error: unknown type 'Missing'",
        "5:6: error: implicit conversion REAL -> INT is not allowed; use REAL_TO_INT (rounds) or TRUNC (truncates)",
        "8:4: error: IF condition must be BOOL, got INT",
        "8:11: error: EXIT outside a loop",
    ]
