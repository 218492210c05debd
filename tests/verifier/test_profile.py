"""`plantloop profile`: compile stages, kernel split by record and replay, interpreter ratio."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from plants.tasks.registry import get_task
from verifier.cli import app
from verifier.cmd_tasks import reference_path
from verifier.profile import interpreter_run, kernel_split
from verifier.verify import verify_source

REFERENCE = reference_path(get_task("MOT-E01"))


@pytest.fixture(scope="module")
def profiled() -> dict:
    result = CliRunner().invoke(app, ["profile", str(REFERENCE), "--task", "MOT-E01", "--runs", "3",
                                      "--condition", "c2", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.slow
def test_profile_reports_every_compile_stage(profiled) -> None:
    stages = profiled["stages"]
    for stage in ("parse", "semantic", "lowering", "emit", "numba_compile", "numba_cached_load"):
        assert stages[stage] > 0, stage
    assert stages["numba_compile"] > 5 * stages["numba_cached_load"]  # a cold compile, not a load
    assert stages["source_lines"] == REFERENCE.read_text().count("\n") + 1


@pytest.mark.slow
def test_kernel_parts_add_up_to_the_kernel_and_ticks_match_verify(profiled) -> None:
    task = get_task("MOT-E01")
    verified = verify_source(REFERENCE.read_text(), task, str(REFERENCE))
    assert profiled["condition_ticks"] == sum(r.ticks for r in verified.conditions)
    split = profiled["split"]
    parts = split["scan"] + split["plant"] + split["judge"]
    assert all(split[p] > 0 for p in ("kernel", "scan", "plant"))
    assert 0.5 < parts / split["kernel"] < 2.0, split
    assert profiled["condition_ticks_per_s"] == pytest.approx(profiled["condition_ticks"] / split["kernel"])


@pytest.mark.slow
def test_interpreter_runs_the_chosen_condition_with_the_kernels_verdict(profiled) -> None:
    interp = profiled["interpreter"]
    assert interp["condition"] == "C2" and interp["agrees"] is True
    assert interp["ticks"] == 4000  # MOT-E01 runs to T = 40 s
    assert interp["speedup"] > 10 and interp["speedup"] == pytest.approx(
        interp["kernel_ticks_per_s"] / interp["interpreter_ticks_per_s"])


@pytest.mark.slow
def test_interpreter_agrees_with_the_kernel_on_a_failing_program(tmp_path) -> None:
    from stc.compiler import compile_source
    from verifier.bind import bind

    task = get_task("MOT-E01")
    first = task.io[0]
    text = (f"PROGRAM P\nVAR\n  x AT {first.address} : {first.type};\nEND_VAR\nEND_PROGRAM\n")
    verified = verify_source(text, task, "idle.st", cache_dir=tmp_path)
    compiled = compile_source(text, "idle.st", cache_dir=tmp_path)
    binding = bind(compiled.program, task)
    ticks, seconds, verdict = interpreter_run(text, task, binding, 0, max_ticks=10_000)
    c1 = verified.result["conditions"][0]
    assert seconds > 0 and ticks == c1["ticks"] == verdict[0]
    assert (verdict[1] >= 0) == c1["success"]
    split, total = kernel_split(compiled.program, binding, task, runs=1, cache_dir=tmp_path)
    assert total == sum(r.ticks for r in verified.conditions) and split.kernel > 0


def test_profile_usage_errors_exit_2_and_a_broken_program_exits_1(tmp_path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["profile", str(REFERENCE), "--task", "MOT-X99"]).exit_code == 2
    assert runner.invoke(app, ["profile", str(REFERENCE), "--task", "MOT-E01",
                               "--condition", "C99"]).exit_code == 2
    assert runner.invoke(app, ["profile", str(tmp_path / "none.st"), "--task", "MOT-E01"]).exit_code == 2
    broken = tmp_path / "broken.st"
    broken.write_text("PROGRAM P\nVAR x : INT; END_VAR\nx := ;\nEND_PROGRAM\n")
    result = runner.invoke(app, ["profile", str(broken), "--task", "MOT-E01"])
    assert result.exit_code == 1 and "nothing to profile" in result.output


@pytest.mark.slow
def test_profile_table_output_names_every_part(tmp_path) -> None:
    result = CliRunner().invoke(app, ["profile", str(REFERENCE), "--task", "MOT-E01", "--runs", "1",
                                      "--no-interpreter"])
    assert result.exit_code == 0, result.output
    for words in ("numba compile (cold)", "program scan", "plant (sense + advance)", "judge",
                  "condition-ticks/s"):
        assert words in result.output
    assert "interpreter on" not in result.output
