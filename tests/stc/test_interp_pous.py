"""Interpreter: POUs, calls, variable lifetimes, configurations and process-image I/O."""

from __future__ import annotations

import pytest

from stc.interp import Interpreter
from stc.interp.run import SourceError, interpret

FB_COUNTER = """
FUNCTION_BLOCK FB_Counter
VAR_INPUT inc : INT := 1; END_VAR
VAR_OUTPUT total : INT; END_VAR
VAR calls : INT; END_VAR
calls := calls + 1;
total := total + inc;
END_FUNCTION_BLOCK
"""


def test_fb_instances_keep_state_across_scans_and_omitted_inputs_keep_their_value() -> None:
    src = FB_COUNTER + """
PROGRAM Main
VAR a, b : FB_Counter; out : INT; END_VAR
a(inc := 5, total => out);
b();
END_PROGRAM
"""
    s = interpret(src, 3).last
    assert (s["a.total"], s["a.calls"], s["a.inc"], s["out"]) == (15, 3, 5, 15)
    assert (s["b.total"], s["b.inc"]) == (3, 1)


def test_function_variables_are_re_initialised_on_every_call_but_var_stat_persists() -> None:
    src = """
FUNCTION F_Count : INT
VAR_INPUT inc : INT := 2; END_VAR
VAR n : INT := 100; END_VAR
VAR_STAT calls : INT; END_VAR
n := n + inc;
calls := calls + 1;
F_Count := n + calls * 1000;
END_FUNCTION
PROGRAM Main
VAR r1, r2 : INT; END_VAR
r1 := F_Count(inc := 1);
r2 := F_Count();
END_PROGRAM
"""
    s = interpret(src, 2).last
    assert (s["r1"], s["r2"]) == (3101, 4102)


def test_var_temp_is_re_initialised_every_scan() -> None:
    src = "PROGRAM Main\nVAR_TEMP t : INT := 5; END_VAR\nVAR keep : INT; END_VAR\nt := t + 1;\nkeep := keep + t;\nEND_PROGRAM\n"
    snaps = interpret(src, 3).snapshots
    assert [s["keep"] for s in snaps] == [6, 12, 18]
    assert "t" not in snaps[0]


def test_var_in_out_aliases_the_callers_variable() -> None:
    src = """
FUNCTION F_Swap : BOOL
VAR_IN_OUT a, b : INT; END_VAR
VAR t : INT; END_VAR
t := a; a := b; b := t; a := a + 100;
F_Swap := a > b;
END_FUNCTION
FUNCTION_BLOCK FB_Inc
VAR_IN_OUT x : INT; END_VAR
x := x + 1;
END_FUNCTION_BLOCK
PROGRAM Main
VAR p : INT := 1; q : INT := 2; arr : ARRAY[0..2] OF INT; inc : FB_Inc; ok : BOOL; END_VAR
ok := F_Swap(p, q);
inc(x := arr[1]);
inc(x := arr[1]);
END_PROGRAM
"""
    s = interpret(src, 1).last
    assert (s["p"], s["q"], s["ok"], s["arr[1]"]) == (102, 1, True, 2)


def test_methods_see_instance_variables_and_keep_var_inst() -> None:
    src = """
FUNCTION_BLOCK FB_Acc
VAR sum : INT; END_VAR
METHOD Add : INT
VAR_INPUT v : INT; END_VAR
VAR_INST n : INT; END_VAR
n := n + 1;
sum := sum + v;
Add := n;
END_METHOD
METHOD Twice : INT
VAR_INPUT v : INT; END_VAR
Twice := Add(v) + THIS^.Add(v);
END_METHOD
END_FUNCTION_BLOCK
PROGRAM Main
VAR acc : FB_Acc; r : INT; END_VAR
r := acc.Twice(3);
END_PROGRAM
"""
    snaps = interpret(src, 2).snapshots
    assert [(s["acc.sum"], s["r"]) for s in snaps] == [(6, 3), (12, 7)]


def test_configuration_runs_program_instances_in_order_with_shared_globals() -> None:
    src = """
PROGRAM P_Write
VAR n : INT; END_VAR
n := n + 1;
shared := n * 10;
END_PROGRAM
PROGRAM P_Read
VAR seen : INT; END_VAR
seen := shared;
END_PROGRAM
CONFIGURATION Cell
VAR_GLOBAL shared : INT; END_VAR
RESOURCE Cpu ON PLC
TASK Main (INTERVAL := T#10ms, PRIORITY := 1);
PROGRAM first WITH Main : P_Write;
PROGRAM second WITH Main : P_Read;
PROGRAM third WITH Main : P_Write;
END_RESOURCE
END_CONFIGURATION
"""
    s = interpret(src, 2).last
    assert s == {"shared": 20, "first.n": 2, "second.seen": 20, "third.n": 2}


def test_inputs_by_address_and_by_name_direct_addresses_and_located_outputs() -> None:
    src = """
PROGRAM Main
VAR start AT %IX0.0 : BOOL; level AT %IW2 : INT; sp AT %I* : REAL; lamp AT %QX0.1 : BOOL; x : INT; END_VAR
lamp := start AND %IX0.3;
x := level + 1;
%QW4 := INT_TO_WORD(x);
END_PROGRAM
"""
    from stc.frontend import check_source

    it = Interpreter(check_source(src).model)
    it.set_input("%IX0.0", True)
    it.set_input("%i0.3", True)
    it.set_input("%IW2", 70000)
    it.set_input("sp", 1.1)
    assert it.scan() is None
    s = it.snapshot()
    assert (s["lamp"], s["level"], s["x"], s["%QW4"], s["%IX0.3"]) == (True, 4464, 4465, 4465, True)
    assert s["sp"] == pytest.approx(1.1) and s["sp"] != 1.1  # stored as binary32
    with pytest.raises(KeyError):
        it.set_input("nosuch", 1)
    it.reset()
    assert it.snapshot()["lamp"] is False and it.scan_no == 0


def test_struct_and_array_whole_copy_and_snapshot_paths() -> None:
    src = """
TYPE ST_P : STRUCT x : REAL; tag : STRING(4) := 'ab'; END_STRUCT; END_TYPE
PROGRAM Main
VAR a, b : ARRAY[1..2] OF ST_P; m : ARRAY[1..2, 0..1] OF INT := [1, 2, 3, 4]; n : ARRAY[1..2] OF ARRAY[1..2] OF BOOL; END_VAR
a[1].x := 1.5;
b := a;
a[1].x := 2.5;
n[2][1] := TRUE;
END_PROGRAM
"""
    s = interpret(src, 1).last
    assert (s["a[1].x"], s["b[1].x"], s["b[2].tag"], s["m[2,0]"], s["n[2][1]"]) == (2.5, 1.5, "ab", 3, True)


def test_a_program_that_does_not_check_is_rejected() -> None:
    with pytest.raises(SourceError):
        interpret("PROGRAM Main\nx := 1;\nEND_PROGRAM\n", 1)
