"""`plantloop trace`: the trace shows the run the verifier judged (same verdict, same I/O images
as the kernel), the VCD/CSV/PNG files carry it faithfully, and the command's exit codes."""

from __future__ import annotations

import csv
import re
import struct
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from plants.tasks.mot_e01 import TASK, plant
from stc.compiler import compile_source
from tests.verifier import echo_plant
from verifier.bind import bind
from verifier.cli import app
from verifier.kernel import run_kernel
from verifier.trace import TraceMismatchError, _check_same_run, task_probes, trace_condition
from verifier.trace_csv import write_csv
from verifier.vcd import render_vcd
from verifier.verify import verify_source

REFERENCE_PATH = Path(plant.__file__).parent / TASK.reference
REFERENCE = REFERENCE_PATH.read_text()
STOP_IGNORED = REFERENCE.replace("IF NOT STOP_NC OR NOT OL_OK OR fault THEN", "IF NOT OL_OK OR fault THEN")
runner = CliRunner()


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "plantloop-cache"
    path.mkdir(exist_ok=True)
    return path


def _trace(text: str, task, condition: str, cache_dir, **kw):
    compiled = compile_source(text, "p.st", cache_dir=cache_dir)
    assert compiled.program is not None, compiled.diagnostics.render(text)
    binding = bind(compiled.program, task, "p.st")
    trace = trace_condition(compiled.program, binding, task, condition, cache_dir=cache_dir, **kw)
    return compiled.program, binding, trace


# --- a tiny VCD reader: enough of IEEE 1364 to check what the writer produced -----------------


def read_vcd(text: str) -> tuple[dict[str, str], dict[str, dict], int]:
    """(header sections, {scope.name: {kind, bits, changes: [(time, value)]}}, last time)."""
    tokens = text.split()
    header: dict[str, str] = {}
    by_code: dict[str, dict] = {}
    variables: dict[str, dict] = {}
    scopes: list[str] = []
    i = 0
    while tokens[i] != "$enddefinitions":
        keyword = tokens[i]
        end = tokens.index("$end", i)
        body = tokens[i + 1:end]
        if keyword == "$scope":
            assert body[0] == "module"
            scopes.append(body[1])
        elif keyword == "$upscope":
            scopes.pop()
        elif keyword == "$var":
            kind, bits, code, name = body[0], int(body[1]), body[2], body[3]
            var = {"kind": kind, "bits": bits, "changes": []}
            by_code[code] = var
            variables[".".join([*scopes[1:], name])] = var
        else:
            header[keyword] = " ".join(body)
        i = end + 1
    assert scopes == []
    i += 2  # $enddefinitions $end
    time = -1
    while i < len(tokens):
        tok = tokens[i]
        if tok.startswith("#"):
            assert int(tok[1:]) > time, "time stamps must increase"
            time = int(tok[1:])
        elif tok == "$comment":
            i = tokens.index("$end", i)
        elif tok in ("$dumpvars", "$end"):
            pass
        elif tok[0] in "br":
            by_code[tokens[i + 1]]["changes"].append((time, tok[1:]))
            i += 1
        else:
            assert tok[0] in "01xz", tok
            by_code[tok[1:]]["changes"].append((time, tok[0]))
        i += 1
    return header, variables, time


def per_tick(var: dict, ticks: int, signed: bool = False) -> np.ndarray:
    """A VCD variable's value at every 10 ms tick (NaN for x)."""
    values = np.full(ticks, np.nan)
    changes = var["changes"]
    assert changes[0][0] == 0, "every variable has a value at #0"
    for n, (time, raw) in enumerate(changes):
        assert time % 10 == 0
        end = changes[n + 1][0] // 10 if n + 1 < len(changes) else ticks
        if var["kind"] == "real":
            x = float(raw)
        elif "x" in raw:
            x = np.nan
        else:
            x = int(raw, 2)
            if signed and x >= 1 << (var["bits"] - 1):
                x -= 1 << var["bits"]
        values[time // 10:end] = x
    return values


# --- the trace is the judged run ------------------------------------------------------------


def test_reference_trace_is_the_kernel_run_with_plant_variables(cache_dir) -> None:
    program, binding, trace = _trace(REFERENCE, TASK, "c2", cache_dir)
    verified = verify_source(REFERENCE, TASK, "p.st", cache_dir=cache_dir).conditions[1]
    assert trace.verdict == verified and trace.verdict.passed
    assert trace.ticks == 4000 and [e.kind for e in trace.events] == ["success"]
    kernel = run_kernel(program, binding, TASK, cache_dir=cache_dir, trace_condition=1)
    for j, sig in enumerate(TASK.inputs):
        np.testing.assert_array_equal(trace.signal(sig.name).values, kernel.trace_in[:, j])
    for j, sig in enumerate(TASK.outputs):
        np.testing.assert_array_equal(trace.signal(sig.name).values, kernel.trace_out[:, j])
    # a probe row is the state after its tick: the contactor is what the next scan reads
    contactor = trace.signal("contactor").values
    np.testing.assert_array_equal(contactor[:-1], trace.signal("RUN_FB").values[1:])
    speed = trace.signal("motor_speed").values
    assert speed[199] == 0.0 and speed[790] > 0.97 and speed[1700] < 0.01  # runs from 2.0 s to 8.0 s
    fault = trace.signal("spec_fault").values
    assert fault[799] == 0 and fault[800] == 1 and trace.signal("LAMP_FAULT").values[800] == 1


def test_failing_mutant_trace_marks_violation_and_failure(cache_dir) -> None:
    _, _, trace = _trace(STOP_IGNORED, TASK, "C1", cache_dir)
    verified = verify_source(STOP_IGNORED, TASK, "p.st", cache_dir=cache_dir).conditions[0]
    assert trace.verdict == verified and not trace.verdict.passed
    assert trace.ticks == verified.ticks == 631
    assert [(e.tick, e.kind) for e in trace.events] == [(600, "violation"), (630, "failure")]
    assert trace.events[0].text.startswith("S-STOPPB: K1 is TRUE")
    stop, k1 = trace.signal("STOP_NC").values, trace.signal("K1").values
    pressed = np.flatnonzero(stop == 0)
    assert pressed.tolist() == list(range(600, 630))  # STOP pressed 6.0-6.3 s
    assert np.all(k1[pressed] == 1) and trace.signal("spec_k1").values[600] == 0
    assert [trace.violation_code(k) for k in (599, 600, 629, 630)] == ["", "S-STOPPB", "S-STOPPB", ""]


def test_runtime_error_tick_has_inputs_but_no_outputs_and_no_probes_is_fine(cache_dir) -> None:
    text = ("PROGRAM P\nVAR\n s AT %IX0.0 : BOOL; a AT %IW140 : INT; y AT %QW140 : INT; n, z : INT;\n"
            "END_VAR\ny := a + 1;\nIF s THEN n := 1 / z; END_IF;\nEND_PROGRAM\n")
    assert task_probes(echo_plant.TASK) == []
    _, _, trace = _trace(text, echo_plant.TASK, "C1", cache_dir)
    assert trace.ticks == 31 and trace.verdict.runtime_error.code == "DIV_ZERO"
    assert [s.name for s in trace.signals] == ["A", "S", "Y", "Q"]
    assert trace.events[-1].tick == 30 and trace.events[-1].kind == "runtime_error"
    y = trace.signal("Y").values
    assert y[29] == -4 and np.isnan(y[30]) and trace.signal("S").values[30] == 1
    _, variables, end = read_vcd(render_vcd(trace))
    assert end == 310
    vcd_y = per_tick(variables["outputs.Y"], 31, signed=True)
    assert vcd_y[29] == -4 and np.isnan(vcd_y[30]) and variables["outputs.Y"]["bits"] == 16
    assert per_tick(variables["verdict.runtime_error"], 31).tolist() == [0] * 30 + [1]


def test_replay_that_differs_from_the_kernel_is_refused(cache_dir) -> None:
    program, binding, _ = _trace(REFERENCE, TASK, "C1", cache_dir)
    from verifier.trace import _replay

    replay = _replay(program, binding, TASK, 0, task_probes(TASK), None)
    run = run_kernel(program, binding, TASK, cache_dir=cache_dir, trace_condition=0)
    _check_same_run(run, replay, 0)  # the honest case passes
    run.trace_out[1234, 0] = 1 - run.trace_out[1234, 0]
    with pytest.raises(TraceMismatchError, match="output image of tick 1234"):
        _check_same_run(run, replay, 0)
    run.verdict[0, 0] += 1
    with pytest.raises(TraceMismatchError, match="verdict"):
        _check_same_run(run, replay, 0)


def test_probe_declarations_are_validated(monkeypatch) -> None:
    assert [p.name for p in task_probes(TASK)] == ["contactor", "motor_speed", "spec_k1", "spec_fault"]
    monkeypatch.setattr(plant, "PROBES", {"K1": (1, "k", "bool")})
    with pytest.raises(ValueError, match="unlike any I/O name"):
        task_probes(TASK)
    monkeypatch.setattr(plant, "PROBES", {"speed": (1, "n")})
    with pytest.raises(ValueError, match=r"\(array, column, unit\)"):
        task_probes(TASK)


# --- the files ------------------------------------------------------------------------------


def test_vcd_and_csv_carry_every_value_of_the_trace(cache_dir, tmp_path) -> None:
    _, _, trace = _trace(STOP_IGNORED, TASK, "C1", cache_dir, signals=["k1", "START", "motor_speed"])
    assert [s.name for s in trace.signals] == ["START", "K1", "motor_speed"]
    header, variables, end = read_vcd(render_vcd(trace))
    assert header["$timescale"] == "1 ms" and header["$version"].startswith("plantloop ")
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", header["$date"])
    assert "task MOT-E01 condition C1" in header["$comment"] and "failed" in header["$comment"]
    assert end == 6310
    assert {k: (v["kind"], v["bits"]) for k, v in variables.items()} == {
        "inputs.START": ("wire", 1), "outputs.K1": ("wire", 1), "plant.motor_speed": ("real", 64),
        "verdict.violation": ("reg", 8), "verdict.success": ("wire", 1),
        "verdict.failure": ("wire", 1), "verdict.runtime_error": ("wire", 1),
        "verdict.time_limit": ("wire", 1)}
    for name in ("inputs.START", "outputs.K1", "plant.motor_speed"):
        np.testing.assert_array_equal(per_tick(variables[name], 631), trace.signal(name.split(".")[1]).values)
    np.testing.assert_array_equal(per_tick(variables["verdict.violation"], 631), trace.violations)
    assert np.flatnonzero(per_tick(variables["verdict.failure"], 631)).tolist() == [630]

    path = tmp_path / "t.csv"
    write_csv(trace, path)
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == trace.ticks
    assert list(rows[0]) == ["tick", "time_ms", "START", "K1", "motor_speed", "violation", "event"]
    assert rows[600]["time_ms"] == "6000" and rows[600]["K1"] == "1" and rows[600]["violation"] == "S-STOPPB"
    assert rows[630]["event"].startswith("failure: K1 is TRUE at a checkpoint")
    assert float(rows[300]["motor_speed"]) == trace.signal("motor_speed").values[300]


# --- the command ----------------------------------------------------------------------------


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and data.endswith(b"IEND\xaeB`\x82")
    return struct.unpack(">II", data[16:24])


@pytest.mark.slow
def test_trace_command_writes_the_chosen_files(tmp_path, cache_dir, monkeypatch) -> None:
    monkeypatch.setenv("PLANTLOOP_CACHE_DIR", str(cache_dir))
    monkeypatch.chdir(tmp_path)
    program = tmp_path / "stop.st"
    program.write_text(STOP_IGNORED)
    res = runner.invoke(app, ["trace", str(program), "--task", "mot-e01", "--condition", "C1"])
    assert res.exit_code == 1, res.output  # the condition failed
    assert "C1: failed: K1 is TRUE at a checkpoint" in res.output
    for suffix in ("vcd", "csv", "png"):
        assert (tmp_path / f"stop-MOT-E01-C1.{suffix}").stat().st_size > 0
    width, height = _png_size(tmp_path / "stop-MOT-E01-C1.png")
    assert width > 600 and height > 300

    res = runner.invoke(app, ["trace", str(REFERENCE_PATH), "--task", "MOT-E01", "--condition", "C3",
                              "--out", str(tmp_path / "ref"), "--csv", "--vcd", "--signals", "K1,run_fb",
                              "--signals", "spec_k1"])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in tmp_path.glob("ref.*")) == ["ref.csv", "ref.vcd"]
    with (tmp_path / "ref.csv").open(newline="") as f:
        header = next(csv.reader(f))
    assert header == ["tick", "time_ms", "RUN_FB", "K1", "spec_k1", "violation", "event"]


def test_trace_command_usage_and_compile_errors(tmp_path, cache_dir, monkeypatch) -> None:
    monkeypatch.setenv("PLANTLOOP_CACHE_DIR", str(cache_dir))
    base = ["trace", str(REFERENCE_PATH), "--task", "MOT-E01"]
    res = runner.invoke(app, [*base, "--condition", "C9"])
    assert res.exit_code == 2 and "conditions: C1, C2, C3, C4" in res.output
    res = runner.invoke(app, [*base, "--condition", "C1", "--signals", "K1,SPEED"])
    assert res.exit_code == 2 and "'SPEED'" in res.output and "motor_speed" in res.output
    assert runner.invoke(app, ["trace", str(REFERENCE_PATH), "--task", "MOT-E77", "--condition", "C1"]).exit_code == 2
    assert runner.invoke(app, ["trace", str(tmp_path / "no.st"), "--task", "MOT-E01",
                               "--condition", "C1"]).exit_code == 2
    bad = tmp_path / "bad.st"
    bad.write_text("PROGRAM P\nVAR\n k AT %QX0.0 : BOOL;\nEND_VAR\nk := nothing;\nEND_PROGRAM\n")
    res = runner.invoke(app, ["trace", str(bad), "--task", "MOT-E01", "--condition", "C1",
                              "--out", str(tmp_path / "bad")])
    assert res.exit_code == 1 and f"{bad}:5:" in res.output and "error" in res.output
    assert list(tmp_path.glob("bad.*")) == [bad]


def test_png_without_matplotlib_is_a_usage_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # makes the import fail
    res = runner.invoke(app, ["trace", str(REFERENCE_PATH), "--task", "MOT-E01", "--condition", "C1",
                              "--png", "--out", str(tmp_path / "t")])
    assert res.exit_code == 2 and "pip install 'plantloop[plot]'" in res.output
    assert list(tmp_path.iterdir()) == []

