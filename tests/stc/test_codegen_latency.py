"""Compile-latency properties of the generated code (docs/codegen.md, "what helped").

Each guards a measured win: FB bodies typed once however many instances call them, the only
PROGRAM instance compiled as the scan itself, constant-step FOR loops without the step
machinery and float64 constants without casts, with the same results as the interpreter.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stc.compiler import compile_source, generate_source
from stc.frontend import check_source
from stc.interp import Interpreter
from stc.interp.run import drive
from stc.runner import CompiledRunner

FB_INSTANCES = """
FUNCTION_BLOCK FB_Count
VAR_INPUT go : BOOL; END_VAR
VAR_OUTPUT n : INT; END_VAR
IF go THEN n := n + 1; END_IF;
END_FUNCTION_BLOCK
PROGRAM Main
VAR a, b, c : FB_Count; arr : ARRAY[1..3] OF FB_Count; total : INT; i : INT; END_VAR
a(go := TRUE); b(go := TRUE); c(go := FALSE);
FOR i := 1 TO 3 DO arr[i](go := TRUE); END_FOR;
total := a.n + b.n + c.n + arr[1].n + arr[3].n;
END_PROGRAM
"""

FOR_LOOPS = """
PROGRAM Main
VAR i, j, k, s, d, up, down, var_step, zero_runs : INT; stp : INT := -2; l : LREAL; r : REAL; END_VAR
FOR i := 1 TO 10 BY 3 DO up := up + i; END_FOR;
FOR j := 10 TO -5 BY -4 DO down := down + j; END_FOR;
FOR k := 7 TO 0 BY stp DO var_step := var_step + k; END_FOR;
FOR s := 5 TO 1 DO zero_runs := zero_runs + 1; END_FOR;
FOR d := 32750 TO 32760 BY 5 DO l := l + 0.25; END_FOR;
l := l * -1.5E-3 + 1.0E300 - 1.0E300;
r := r + 0.1;
END_PROGRAM
"""


def _module_globals(program) -> dict:
    return program.scan.py_func.__globals__


def test_fb_instances_share_one_compiled_body(tmp_path: Path) -> None:
    res = compile_source(FB_INSTANCES, cache_dir=tmp_path)
    assert res.program is not None, res.diagnostics.render()
    runner = CompiledRunner(res.program)
    runner.scan()
    assert runner.snapshot()["total"] == 4
    bodies = {name: f for name, f in _module_globals(res.program).items()
              if name.startswith("pou") and hasattr(f, "overloads")}
    assert bodies
    # instance bases are passed typed (np.int64): a bare literal would compile one
    # specialisation per instance (measured ~0.14 s each)
    assert {name: len(f.overloads) for name, f in bodies.items()} == {name: 1 for name in bodies}


def test_only_program_instance_is_the_scan() -> None:
    checked = check_source(FB_INSTANCES)
    assert checked.model is not None
    _g, text = generate_source(checked.model)
    functions = [line.split("(")[0][4:] for line in text.splitlines() if line.startswith("def ")]
    assert functions == ["pou1", "scan"]  # the FB, and Main's body inside the scan


def _traces(text: str, cache: Path):
    checked = check_source(text)
    assert checked.model is not None
    res = compile_source(text, cache_dir=cache)
    assert res.program is not None, res.diagnostics.render()
    return drive(Interpreter(checked.model), 3), drive(CompiledRunner(res.program), 3)


@pytest.mark.parametrize("text", [FOR_LOOPS, FB_INSTANCES], ids=["for_loops", "fb_instances"])
def test_same_trace_as_interpreter(text: str, tmp_path: Path) -> None:
    interp, compiled = _traces(text, tmp_path)
    assert compiled.error is None and interp.error is None
    assert len(compiled.snapshots) == 3
    assert compiled.snapshots == interp.snapshots


def test_constant_step_loops_run_as_specified(tmp_path: Path) -> None:
    _interp, compiled = _traces(FOR_LOOPS, tmp_path)
    first = compiled.snapshots[0]
    assert (first["up"], first["down"], first["var_step"], first["zero_runs"]) == (22, 16, 16, 0)
    assert (first["i"], first["j"], first["k"], first["s"], first["d"]) == (13, -6, -1, 5, 32765)


def test_constant_step_loop_has_no_step_check() -> None:
    checked = check_source(FOR_LOOPS)
    assert checked.model is not None
    _g, text = generate_source(checked.model)
    assert text.count("check_for_step") == 1  # only the loop with a variable step
    assert "np.float64(" not in text  # float64 constants are bare literals
