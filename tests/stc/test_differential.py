"""Differential test: the Numba-compiled back end against the interpreter, scan by scan.

Random well-typed programs (tests/stc/progen.py) run for SCANS scans on both back ends with
the same input sequence; every snapshot (keys and values) and the runtime error record
(code, POU, line, column, scan) must be identical. Numba compile time (~0.3-4 s per
program) dominates, so CI runs a modest number of examples; set PLANTLOOP_DIFF_EXAMPLES
for a larger run and PLANTLOOP_DIFF_SHRINK=1 to let hypothesis shrink a failure (each
shrink step compiles again). See docs/testing.md.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings

from stc.backend import RuntimeErrorRecord
from stc.frontend import check_source
from stc.interp import Interpreter
from stc.interp.run import Trace, drive

from .progen import GeneratedProgram, programs

EXAMPLES = int(os.environ.get("PLANTLOOP_DIFF_EXAMPLES", "200"))
SHRINK = os.environ.get("PLANTLOOP_DIFF_SHRINK", "") == "1"
SCANS = 20
PHASES = [Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.shrink] if SHRINK else [])


def compiled_backend() -> tuple[Any, Any]:
    """stc.compiler.compile_source and stc.runner.CompiledRunner, or a clear failure."""
    try:
        from stc.compiler import compile_source
        from stc.runner import CompiledRunner
    except ImportError as exc:
        pytest.fail(f"the compiled back end is missing (stc.compiler / stc.runner: {exc}); "
                    "the differential test compares it with the interpreter and cannot run without it")
    return compile_source, CompiledRunner


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("diff_cache")


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def error_key(e: RuntimeErrorRecord | None) -> tuple | None:
    return None if e is None else (e.code, e.pou, e.line, e.column, e.scan, e.time_ms)


def first_difference(interp: Trace, compiled: Trace) -> str | None:
    """A readable description of the first disagreement, or None."""
    for k, (x, y) in enumerate(zip(interp.snapshots, compiled.snapshots, strict=False), start=1):
        if set(x) != set(y):
            return (f"scan {k}: snapshot paths differ; only interpreter: {sorted(set(x) - set(y))[:10]}, "
                    f"only compiled: {sorted(set(y) - set(x))[:10]}")
        bad = {p: (x[p], y[p]) for p in x if not same_value(x[p], y[p])}
        if bad:
            shown = ", ".join(f"{p}: interpreter {a!r} vs compiled {b!r}" for p, (a, b) in list(bad.items())[:8])
            return f"scan {k}: {shown}"
    if error_key(interp.error) != error_key(compiled.error):
        return f"runtime error: interpreter {interp.error} vs compiled {compiled.error}"
    if len(interp.snapshots) != len(compiled.snapshots):
        return f"completed scans: interpreter {len(interp.snapshots)} vs compiled {len(compiled.snapshots)}"
    return None


def check_program(prog: GeneratedProgram, model: Any, cache: Path) -> None:
    """Compile the checked program and compare both back ends' traces."""
    compile_source, compiled_runner = compiled_backend()
    result = compile_source(prog.text, cache_dir=cache)
    if result.program is None:
        msgs = [d["message"] for d in result.diagnostics.to_json() if d["severity"] == "error"]
        pytest.fail(f"the compiler rejects a program the front end accepts: {msgs}\n{prog.text}")
    interp = drive(Interpreter(model), SCANS, prog.inputs)
    compiled = drive(compiled_runner(result.program), SCANS, prog.inputs)
    diff = first_difference(interp, compiled)
    assert diff is None, f"{diff}\n--- program ---\n{prog.text}\n--- inputs ---\n{prog.inputs}"


def test_compiled_back_end_is_available() -> None:
    compiled_backend()


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, database=None, phases=PHASES,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(prog=programs(scans=SCANS))
def test_compiled_and_interpreted_traces_are_identical(prog: GeneratedProgram, cache_dir: Path) -> None:
    compiled_backend()
    checked = check_source(prog.text)
    assume(checked.ok and checked.model is not None)
    check_program(prog, checked.model, cache_dir)


# Hand-written programs for features the random generator does not draw (text forms, dates,
# LTIME timers, nested FB arrays, STRUCT EXTENDS, subranges, CONFIGURATION, math, VAR_IN_OUT).
FEATURE_PROGRAMS = {
    "text": """\
PROGRAM Main
VAR r : REAL := 1.5; lr : LREAL := 0.1; big : REAL := 1.0E20; t : TIME := T#1h2m3s4ms; n : DINT; k : INT;
    s1, s2, s3, s4, s5, s6, s7 : STRING; v1, v2 : INT; tt : TIME; b : BOOL; ws : WSTRING := "héllo"; wl : INT; END_VAR
k := k + 1;
s1 := REAL_TO_STRING(r * INT_TO_REAL(k));
s2 := LREAL_TO_STRING(lr * k);
s3 := REAL_TO_STRING(big);
s4 := TIME_TO_STRING(t * k);
s5 := DINT_TO_STRING(-12345 * k);
s6 := BOOL_TO_STRING(k MOD 2 = 0);
v1 := STRING_TO_INT(' 42 ');
v2 := STRING_TO_INT('16#FF');
tt := STRING_TO_TIME('T#1s500ms');
s7 := CONCAT(s5, s6);
wl := LEN(ws);
b := STRING_TO_BOOL('TRUE');
END_PROGRAM
""",
    "time": """\
PROGRAM Main
VAR d : DATE := D#2024-01-31; dt1 : DT := DT#2024-01-31-12:30:00; tod1 : TOD := TOD#23:59:59.5; t1, t2, t3, t4 : TIME;
    lt1 : LTIME := LT#1ms5us; lt2 : LTIME; d2 : DATE; tod2 : TOD; dt2 : DT; k : DINT; lton1 : LTON; q : BOOL; et : LTIME; END_VAR
k := k + 1;
tod2 := tod1 + T#1s * k;
dt2 := dt1 + T#90m;
t1 := dt2 - dt1;
t2 := tod2 - tod1;
d2 := DT_TO_DATE(dt2);
t3 := T#10s / 3 * k;
t4 := T#1s * 1.5 - T#250ms * k;
lt2 := lt1 * k + TIME_TO_LTIME(T#2ms);
lton1(IN := TRUE, PT := LT#30ms);
q := lton1.Q; et := lton1.ET;
END_PROGRAM
""",
    "fbnest": """\
FUNCTION_BLOCK FB_Inner
VAR_INPUT x : INT; END_VAR
VAR_OUTPUT y : INT; END_VAR
VAR t : TON; c : CTU; END_VAR
t(IN := x > 2, PT := T#20ms);
c(CU := t.Q, PV := 3);
y := y + x + c.CV;
END_FUNCTION_BLOCK
FUNCTION_BLOCK FB_Outer
VAR_INPUT go : BOOL; END_VAR
VAR_OUTPUT total : INT; END_VAR
VAR parts : ARRAY[1..3] OF FB_Inner; i : INT; END_VAR
FOR i := 1 TO 3 DO
  parts[i](x := i + BOOL_TO_INT(go));
  total := total + parts[i].y;
END_FOR;
END_FUNCTION_BLOCK
PROGRAM Main
VAR o : FB_Outer; k : INT; tons : ARRAY[0..1] OF TON; END_VAR
k := k + 1;
o(go := k MOD 2 = 0);
tons[k MOD 2](IN := TRUE, PT := T#30ms);
END_PROGRAM
""",
    "structs": """\
TYPE ST_P : STRUCT x : REAL; tag : STRING(4) := 'ab'; n : ARRAY[1..2] OF INT; END_STRUCT; END_TYPE
TYPE ST_Q EXTENDS ST_P : STRUCT extra : LREAL := 2.5; END_STRUCT; END_TYPE
TYPE T_Pct : INT (0..100) := 5;
     E_C : (RED := 1, GREEN, BLUE := 7) DINT; END_TYPE
PROGRAM Main
VAR a, b : ARRAY[1..2] OF ST_P; q : ST_Q := (x := 1.25, n := [3, 4]); p : T_Pct; c : E_C; m : ARRAY[1..2, 1..2] OF ARRAY[0..1] OF INT; k : INT; e : INT; END_VAR
k := k + 1;
a[1].x := a[1].x + 0.5;
a[2].n[k MOD 2 + 1] := k;
b := a;
q.tag := CONCAT(q.tag, 'xyz');
q.n[1] := q.n[1] * 2;
p := p + 10;
c := GREEN;
IF k > 2 THEN c := E_C#BLUE; END_IF;
e := c;
m[2, 1][1] := k * 3;
END_PROGRAM
""",
    "config": """\
VAR_GLOBAL g : DINT; gs : STRING := 'g'; END_VAR
PROGRAM P_A
VAR_TEMP tmp : INT := 1; END_VAR
VAR n : INT; END_VAR
tmp := tmp + n;
n := n + tmp;
g := g + n;
IF n > 5 THEN RETURN; END_IF;
gs := CONCAT(gs, 'a');
END_PROGRAM
PROGRAM P_B
VAR seen : DINT; q AT %QX0.0 : BOOL; END_VAR
seen := g;
q := g > 10;
%QW2 := DINT_TO_WORD(g);
END_PROGRAM
CONFIGURATION Cfg
RESOURCE R ON PLC
TASK T (INTERVAL := T#10ms, PRIORITY := 1);
PROGRAM a1 WITH T : P_A;
PROGRAM b1 WITH T : P_B;
PROGRAM a2 WITH T : P_A;
END_RESOURCE
END_CONFIGURATION
""",
    "math": """\
PROGRAM Main
VAR r : REAL := 0.7; lr : LREAL := 2.0; a, b, c, d, e, f, g, h : REAL; la, lb, lc : LREAL; i : INT := -7; k : INT; x, y, z : LREAL; ii : DINT; u : UINT; ab : INT := -32768; w : WORD; END_VAR
k := k + 1;
a := SQRT(r * k); d := EXP(r); e := LN(r);
la := SQRT(lr * k); lb := EXPT(lr, 0.5); lc := lr ** 3;
x := EXPT(i, 2); y := i ** k; z := SQRT(i);
ii := ABS(ab); u := ABS(ab);
w := ROR(WORD#16#0001, k);
END_PROGRAM
""",
    "inout": """\
TYPE ST_V : STRUCT v : INT; arr : ARRAY[1..3] OF INT; END_STRUCT; END_TYPE
FUNCTION F_Touch : INT
VAR_IN_OUT s : ST_V; n : INT; END_VAR
VAR_INPUT inc : INT; END_VAR
s.v := s.v + inc;
s.arr[2] := s.arr[2] + n;
n := n * 2;
F_Touch := s.v;
END_FUNCTION
FUNCTION_BLOCK FB_Ref
VAR_IN_OUT target : DINT; END_VAR
VAR_OUTPUT seen : DINT; END_VAR
target := target + 1;
seen := target;
END_FUNCTION_BLOCK
PROGRAM Main
VAR s : ST_V; n : INT := 1; r : INT; arr : ARRAY[1..2] OF DINT; fr : FB_Ref; k : INT; o : DINT; END_VAR
k := k + 1;
r := F_Touch(s := s, n := n, inc := k);
fr(target := arr[(k MOD 2) + 1], seen => o);
END_PROGRAM
""",
    "date_time_folding": """
PROGRAM Main
VAR
  d1 : DT := DT#2024-01-31-12:30:00 + T#90m;
  d2 : TIME := DT#2024-01-31-13:00:00 - DT#2024-01-31-12:30:00;
  t1 : TOD := TOD#23:00:00 + T#2h;
  dd : TIME := D#2024-01-02 - D#2024-01-01;
  lt : LTIME := LT#1ms + T#2ms;
  rd1 : DT; rd2 : TIME; rt1 : TOD; rdd : TIME; rlt : LTIME;
  a : DT := DT#2024-01-31-12:30:00; b : DT := DT#2024-01-31-13:00:00; c : TOD := TOD#23:00:00;
  da : DATE := D#2024-01-01; db : DATE := D#2024-01-02; x : TIME := T#90m; y : TIME := T#2h; l : LTIME := LT#1ms; z : TIME := T#2ms;
END_VAR
rd1 := a + x; rd2 := b - a; rt1 := c + y; rdd := db - da; rlt := l + z;
END_PROGRAM
""",
    "real_math_correctly_rounded": """
PROGRAM Main
VAR r : REAL := 0.7; k : INT; a : ARRAY[1..10] OF REAL; END_VAR
k := k + 1;
r := r + 0.37;
a[1] := LOG(r); a[2] := LN(r); a[3] := SIN(r); a[4] := COS(r); a[5] := TAN(r);
a[6] := ATAN(r); a[7] := ASIN(r / (r + 1.0)); a[8] := ACOS(r / (r + 1.0)); a[9] := EXP(r);
a[10] := ATAN2(r, 0.3);
END_PROGRAM
""",
    "this_member_write": """
FUNCTION_BLOCK FB_Acc
VAR total : DINT; END_VAR
METHOD Add : DINT
VAR_INPUT v : DINT; END_VAR
THIS^.total := THIS^.total + v;
Add := THIS^.total;
END_METHOD
END_FUNCTION_BLOCK
PROGRAM Main
VAR acc : FB_Acc; r : DINT; END_VAR
r := acc.Add(v := 5);
END_PROGRAM
""",
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FEATURE_PROGRAMS))
def test_feature_programs_agree(name: str, cache_dir: Path) -> None:
    text = FEATURE_PROGRAMS[name]
    checked = check_source(text)
    assert checked.ok, checked.diagnostics.render(text)
    check_program(GeneratedProgram(text, [{} for _ in range(SCANS)]), checked.model, cache_dir)


def test_first_difference_reports_values_keys_and_errors() -> None:
    a = Trace([{"x": 1, "r": float("nan")}], None)
    assert first_difference(a, Trace([{"x": 1, "r": float("nan")}], None)) is None
    assert "x: interpreter 1 vs compiled 2" in (first_difference(a, Trace([{"x": 2, "r": 0.0}], None)) or "")
    assert "only compiled: ['y']" in (first_difference(a, Trace([{"x": 1, "r": 0.0, "y": 0}], None)) or "")
    err = RuntimeErrorRecord("DIV_ZERO", "integer division by zero", "Main", 3, 6, 2, 10)
    assert "runtime error" in (first_difference(a, Trace([a.snapshots[0]], err)) or "")
    assert first_difference(Trace([{"b": True}]), Trace([{"b": 1}])) is not None  # BOOL must stay bool
