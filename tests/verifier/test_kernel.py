"""The closed-loop kernel on the echo plant: conversions, verdicts, early exits, runtime
errors per condition, tracing, and one compiled kernel for every program."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from stc.compiler import compile_source
from tests.verifier.echo_plant import TASK
from verifier.bind import bind
from verifier.kernel import limit_ticks, run_kernel, task_kernel
from verifier.kernel_source import (
    V_ERROR_SCAN,
    V_FAIL,
    V_FAIL_TICK,
    V_SUCCESS,
    V_TICKS,
    V_VIOLATION,
    V_VIOLATION_TICK,
)

DECLS = "a AT %IW140 : INT; s AT %IX0.0 : BOOL; y AT %QW140 : INT; q AT %QX0.0 : BOOL; z : INT; n : INT;"


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "plantloop-cache"
    path.mkdir(exist_ok=True)
    return path


def _run(body: str, cache_dir, decls: str = DECLS, **kwargs):
    src = f"PROGRAM P\nVAR\n{decls}\nEND_VAR\n{body}\nEND_PROGRAM\n"
    res = compile_source(src, "p.st", cache_dir=cache_dir)
    assert res.program is not None, res.diagnostics.render(src)
    binding = bind(res.program, TASK)
    assert binding.ok, binding.diagnostics.render(src)
    return res.program, run_kernel(res.program, binding, TASK, cache_dir=cache_dir, **kwargs)


def test_echo_succeeds_at_the_first_judged_tick_in_every_condition(cache_dir) -> None:
    _, run = _run("y := a; q := s;", cache_dir)
    assert run.verdict[:, V_SUCCESS].tolist() == [10, 50]  # the `done` tick of each condition
    assert run.verdict[:, V_TICKS].tolist() == [11, 51]  # early exit at success
    assert run.verdict[:, V_VIOLATION].tolist() == [0, 0]


def test_values_are_wrapped_to_the_program_type_and_back_to_the_signal_type(cache_dir) -> None:
    # -5 (INT signal) reads as WORD 65531; written back from a UINT it is INT -5 again
    decls = "a AT %IW140 : WORD; y AT %QW140 : UINT; big : BOOL;"
    _, run = _run("y := a; big := a = 65531;", cache_dir, decls)
    assert run.verdict[:, V_SUCCESS].tolist() == [10, 50]


def test_time_limit_per_condition_and_failure_reason_with_argument(cache_dir) -> None:
    assert limit_ticks(TASK).tolist() == [100, 80]
    _, run = _run("", cache_dir)  # idle: Y stays 0, never equals A
    assert run.verdict[:, V_SUCCESS].tolist() == [-1, -1]
    assert run.verdict[:, V_TICKS].tolist() == [100, 80]
    _, run = _run("n := n + 1; IF n = 20 THEN y := 99; END_IF;", cache_dir)
    assert run.verdict[:, V_FAIL].tolist() == [1, 1]
    assert run.verdict[:, V_FAIL_TICK].tolist() == [19, 19]  # scan 20 runs at tick 19
    assert run.fail_arg.tolist() == [99.0, 99.0]
    assert run.verdict[:, V_TICKS].tolist() == [20, 20]


def test_first_violation_is_kept_and_the_run_continues(cache_dir) -> None:
    _, run = _run("y := a; n := n + 1; q := n >= 5;", cache_dir)
    assert run.verdict[:, V_VIOLATION].tolist() == [1, 1]
    assert run.verdict[:, V_VIOLATION_TICK].tolist() == [4, 4]
    assert run.verdict[:, V_SUCCESS].tolist() == [10, 50]  # success is still scored (G8)


def test_runtime_error_stops_only_its_condition(cache_dir) -> None:
    program, run = _run("IF s THEN n := 10 / z; END_IF;", cache_dir)
    assert run.verdict[:, V_ERROR_SCAN].tolist() == [31, 0]  # scan 31 runs at tick 30 (t = 0.30 s)
    assert run.verdict[:, V_TICKS].tolist() == [31, 80]  # C2 ran to its time limit
    rec = program.error_record(run.err[0], 31, 300)
    assert (rec.code, rec.line, rec.scan, rec.time_ms) == ("DIV_ZERO", 5, 31, 300)


def test_trace_records_the_images_of_one_condition(cache_dir) -> None:
    _, run = _run("n := n + 1; y := n; q := s;", cache_dir, trace_condition=1)
    assert run.trace_in.shape == (80, 2) and run.trace_out.shape == (80, 2)
    assert np.all(run.trace_in[:, 0] == 1234.0)
    assert run.trace_out[:5, 0].tolist() == [1, 2, 3, 4, 5]


def test_one_compiled_kernel_runs_two_programs_without_recompiling(cache_dir) -> None:
    kernel = task_kernel(TASK, cache_dir)
    _run("y := a;", cache_dir)
    start = time.perf_counter()
    _, run = _run("y := a + 0; q := FALSE;", cache_dir)
    assert run.verdict[:, V_SUCCESS].tolist() == [10, 50]
    assert task_kernel(TASK, cache_dir) is kernel
    assert len(kernel.signatures) == 1 and len(kernel.overloads) == 1  # explicit signature only
    assert run.seconds < 0.1 and time.perf_counter() - start < 5.0


@pytest.mark.slow
def test_a_new_process_loads_the_kernel_from_the_disk_cache(cache_dir) -> None:
    import subprocess
    import sys

    task_kernel(TASK, cache_dir)  # compiled (or loaded) in this process
    code = (
        "from pathlib import Path; from tests.verifier.echo_plant import TASK;"
        "from verifier.kernel import task_kernel;"
        f"k = task_kernel(TASK, Path({str(cache_dir)!r}));"
        "print(sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2]).stdout.split()
    assert out == ["1", "0"]
    assert len(list((cache_dir / "kernels").glob("k_tests_verifier_echo_plant_*.py"))) >= 1
