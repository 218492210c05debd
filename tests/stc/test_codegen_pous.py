"""Compiled POUs: user FBs, FUNCTIONs, METHODs, VAR_IN_OUT, VAR_TEMP/VAR_STAT, standard FBs,
structs/arrays/enums/subranges, CONFIGURATION instances, and the process image (§2, §8, §10, §11)."""

from __future__ import annotations

import numpy as np
import pytest

from stc.compiler import compile_source
from stc.runner import CompiledRunner

POUS = """
TYPE ST_Point : STRUCT x : REAL; y : REAL := 1.0; END_STRUCT; END_TYPE
TYPE T_Pct : INT (10..100); END_TYPE
FUNCTION Twice : INT
VAR_INPUT v : INT; END_VAR
VAR calls : INT; END_VAR
VAR_STAT total : INT; END_VAR
calls := calls + 1;
total := total + 1;
Twice := v * 2 + calls * 100 + total * 1000 - 1000;
END_FUNCTION
FUNCTION_BLOCK FB_Acc
VAR_INPUT inc : INT := 1; END_VAR
VAR_OUTPUT total : INT; END_VAR
VAR_IN_OUT shared : INT; END_VAR
VAR_TEMP scratch : INT := 5; END_VAR
scratch := scratch + 1;
total := total + inc;
shared := shared + scratch;
END_FUNCTION_BLOCK
FUNCTION_BLOCK FB_Motor
VAR_OUTPUT running : BOOL; END_VAR
VAR state : INT; END_VAR
METHOD Start : BOOL
VAR_INPUT speed : INT; END_VAR
state := speed;
running := TRUE;
Start := TRUE;
END_METHOD
END_FUNCTION_BLOCK
PROGRAM Main
VAR
  t : TON;
  tq_scan : INT;
  scans : INT;
  cnt : CTU := (PV := 3);
  edge_r : R_TRIG;
  edge_f : F_TRIG;
  rq, fq : BOOL;
  acc : FB_Acc;
  accs : ARRAY[1..2] OF FB_Acc;
  shared : INT;
  tot : INT;
  f1, f2 : INT;
  m : FB_Motor;
  ok : BOOL;
  p : ST_Point;
  pts : ARRAY[0..2] OF ST_Point;
  pct : T_Pct;
  grid : ARRAY[1..2, 0..1] OF INT := [1, 2, 3, 4];
  g : INT;
  copy : ARRAY[1..2, 0..1] OF INT;
  start AT %IX0.0 : BOOL;
  lamp AT %QX0.1 : BOOL;
  level AT %IW2 : INT;
  out_w AT %QW4 : INT;
END_VAR
scans := scans + 1;
t(IN := TRUE, PT := T#50ms);
IF t.Q AND (tq_scan = 0) THEN tq_scan := scans; END_IF;
cnt(CU := TRUE);
edge_r(CLK := TRUE, Q => rq);
edge_f(CLK := FALSE, Q => fq);
acc(inc := 2, shared := shared, total => tot);
accs[2](shared := shared);
f1 := Twice(3);
f2 := Twice(v := 4);
ok := m.Start(speed := 7);
p.x := p.y + 0.5;
pts[1] := p;
g := grid[2, 1];
copy := grid;
lamp := start;
out_w := level * 2;
%QX0.2 := NOT start;
END_PROGRAM
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory):
    result = compile_source(POUS, "t.st", cache_dir=tmp_path_factory.mktemp("cache"))
    assert result.program is not None, result.diagnostics.render()
    return result.program


def test_timer_counter_triggers(program) -> None:
    runner = CompiledRunner(program)
    for _ in range(7):
        assert runner.scan() is None
    s = runner.snapshot()
    assert s["tq_scan"] == 6 and s["t.ET"] == 50  # §10: PT = T#50ms -> Q on scan 6
    assert s["cnt.CV"] == 1 and s["cnt.Q"] is False  # CU stays TRUE: counts once
    assert s["rq"] is False and s["fq"] is False  # R_TRIG pulsed only on scan 1; F_TRIG never (D4)
    assert set(s) >= {"t.IN", "t.PT", "t.Q", "t.ET"} and "t.RUNNING" not in s


def test_first_scan_edges(program) -> None:
    runner = CompiledRunner(program)
    assert runner.scan() is None
    s = runner.snapshot()
    assert s["rq"] is True and s["fq"] is False


def test_user_fb_in_out_temp(program) -> None:
    runner = CompiledRunner(program)
    for _ in range(2):
        assert runner.scan() is None
    s = runner.snapshot()
    assert s["acc.total"] == 4 and s["tot"] == 4  # inc := 2 per call
    assert s["accs[2].total"] == 2  # omitted input keeps its initial value 1
    assert s["shared"] == 4 * 6  # VAR_TEMP re-initialised to 5 on every call; in-out by reference


def test_function_var_reinitialised_and_var_stat(program) -> None:
    runner = CompiledRunner(program)
    assert runner.scan() is None
    s = runner.snapshot()
    assert s["f1"] == 3 * 2 + 100 + 0 and s["f2"] == 4 * 2 + 100 + 1000  # VAR fresh, VAR_STAT persists
    assert "Twice.calls" not in s


def test_method_and_aggregates(program) -> None:
    runner = CompiledRunner(program)
    assert runner.scan() is None
    s = runner.snapshot()
    assert s["ok"] is True and s["m.running"] is True and s["m.state"] == 7
    assert s["p.x"] == 1.5 and s["pts[1].x"] == 1.5 and s["pts[1].y"] == 1.0 and s["pts[0].y"] == 1.0
    assert s["pct"] == 10  # subrange default = lower bound
    assert s["g"] == 4 and s["copy[2,1]"] == 4 and s["copy[1,0]"] == 1


def test_process_image(program) -> None:
    runner = CompiledRunner(program)
    runner.set_input("%IX0.0", True)
    runner.set_input("%IW2", 21)
    assert runner.scan() is None
    s = runner.snapshot()
    assert s["lamp"] is True and s["out_w"] == 42 and s["%QX0.2"] is False
    runner.set_input("%I0.0", False)
    assert runner.scan() is None
    s = runner.snapshot()
    assert s["lamp"] is False and s["%QX0.2"] is True and s["out_w"] == 42  # inputs persist
    addresses = {b.point.address for b in program.io}
    assert {"%IX0.0", "%QX0.1", "%IW2", "%QW4", "%QX0.2"} <= addresses


CONFIG = """
VAR_GLOBAL g_count : INT; END_VAR
PROGRAM Counter
VAR n : INT; END_VAR
n := n + 1;
g_count := g_count + 1;
END_PROGRAM
CONFIGURATION Cell
  RESOURCE R ON PLC
    TASK Fast (INTERVAL := T#10ms, PRIORITY := 1);
    PROGRAM a WITH Fast : Counter;
    PROGRAM b WITH Fast : Counter;
  END_RESOURCE
END_CONFIGURATION
"""


def test_configuration_instances(tmp_path_factory: pytest.TempPathFactory) -> None:
    result = compile_source(CONFIG, "c.st", cache_dir=tmp_path_factory.mktemp("cache"))
    assert result.program is not None, result.diagnostics.render()
    runner = CompiledRunner(result.program)
    for _ in range(3):
        assert runner.scan() is None
    s = runner.snapshot()
    assert s == {"g_count": 6, "a.n": 3, "b.n": 3}


STRINGS_AND_AGGREGATES = """
TYPE ST_Rec : STRUCT name : STRING(10); vals : ARRAY[1..3] OF INT; END_STRUCT; END_TYPE
FUNCTION Greet : STRING(30)
VAR_INPUT who : STRING(10); END_VAR
Greet := CONCAT('Hello ', who);
END_FUNCTION
FUNCTION SumArr : DINT
VAR_INPUT a : ARRAY[1..3] OF INT; END_VAR
VAR i : INT; END_VAR
FOR i := 1 TO 3 DO SumArr := SumArr + a[i]; END_FOR;
END_FUNCTION
FUNCTION_BLOCK FB_Name
VAR_INPUT n : STRING(10); END_VAR
VAR_OUTPUT up : STRING(12); len_n : INT; END_VAR
VAR_IN_OUT rec : ST_Rec; END_VAR
up := CONCAT(n, '!');
len_n := LEN(n);
rec.vals[2] := rec.vals[2] + 1;
rec.name := n;
END_FUNCTION_BLOCK
PROGRAM Main
VAR
  g, g2 : STRING(30);
  s : DINT;
  arr : ARRAY[1..3] OF INT := [4, 5, 6];
  fbn : FB_Name;
  r : ST_Rec;
  o : STRING(12);
  tnow : TIME;
  lt : LTON;
  lq : BOOL;
  w : WSTRING := "abc";
  wl : INT;
  big : ULINT := 18446744073709551615;
  neg : LINT := -1;
  cmpb : BOOL;
  sel_s : STRING;
  mx : REAL;
  x : LREAL := 2.0;
  sq : LREAL;
  rr : REAL := 2.0;
  sqr : REAL;
  bc : WORD;
  un : USINT;
END_VAR
g := Greet('Bob');
g2 := Greet(who := CONCAT('Al', 'ice'));
s := SumArr(arr);
fbn(n := 'plc', rec := r, up => o);
tnow := TIME();
lt(IN := TRUE, PT := LTIME#20ms, Q => lq);
wl := LEN(w);
cmpb := big > 5;
sel_s := SEL(s > 10, 'small', 'big');
mx := MAX(1.5, rr, 0.5);
sq := SQRT(x);
sqr := SQRT(rr);
bc := UINT_TO_BCD_WORD(1234);
un := BYTE_BCD_TO_USINT(16#42);
END_PROGRAM
"""


def test_string_parameters_results_and_aggregates(tmp_path_factory: pytest.TempPathFactory) -> None:
    result = compile_source(STRINGS_AND_AGGREGATES, "s.st", cache_dir=tmp_path_factory.mktemp("cache"))
    assert result.program is not None, result.diagnostics.render()
    runner = CompiledRunner(result.program)
    for _ in range(4):
        assert runner.scan() is None
    s = runner.snapshot()
    assert s["g"] == "Hello Bob" and s["g2"] == "Hello Alice"  # CONCAT result stored into STRING(10)
    assert s["s"] == 15  # array passed by value
    assert (s["fbn.up"], s["fbn.len_n"], s["o"], s["r.name"], s["r.vals[2]"]) == ("plc!", 3, "plc!", "plc", 4)
    assert s["tnow"] == 30 and s["lq"] is True and s["lt.ET"] == 20_000_000  # LTON in ns, Q at t = 20 ms
    assert s["wl"] == 3 and s["cmpb"] is True and s["sel_s"] == "big" and s["mx"] == 2.0
    assert s["sq"] == 2.0 ** 0.5 and s["sqr"] == float(np.sqrt(np.float32(2.0)))
    assert s["bc"] == 0x1234 and s["un"] == 42
