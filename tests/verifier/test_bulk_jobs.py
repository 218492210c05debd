"""Job discovery and resume: what is run, what is skipped, what is listed as a problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.verifier.bulk_hooks import BROKEN, IDLE, write_tree
from verifier.bulk.jobs import discover, remove_stale_temp_files
from verifier.bulk.run import RunLocked, run_lock
from verifier.console import decode_program
from verifier.results import JobError, build_result, write_result_atomic

TASKS = {"MOT-E01", "MAT-E01"}


def _result(task_id: str, program: Path, *, error: JobError | None = None) -> dict:
    return build_result(task_id=task_id, program_path="x.st", program_bytes=program.read_bytes(),
                        compile_seconds=0.1, error=error,
                        diagnostics=[{"severity": "error", "message": "m", "line": 1, "column": 1, "file": "x.st"}])


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "sub", {
        "m1/MOT-E01/t1.st": IDLE,
        "m1/MOT-E01/t2.st": BROKEN,
        "m1/MAT-E01/t1.ST": IDLE,
        "m2/MOT-E01/t1.st": IDLE,
        "m2/MOT-E01/notes.txt": "not a program",
        "m2/MOT-E01/.hidden.st": IDLE,
        "m2/MOT-E99/t1.st": IDLE,
        "m2/mot-e01/t1.st": IDLE,
        "m2/README.md": "stray",
        "README.md": "stray",
    })


def test_discovery_finds_the_jobs_in_task_major_order_and_lists_the_rest(tree: Path, tmp_path: Path) -> None:
    plan = discover(tree, tmp_path / "out", TASKS)
    assert [j.key for j in plan.jobs] == ["m1/MAT-E01/t1", "m1/MOT-E01/t1", "m1/MOT-E01/t2",
                                          "m2/MOT-E01/t1"]
    job = plan.jobs[0]
    assert job.result == tmp_path / "out" / "m1" / "MAT-E01" / "t1.json"
    assert job.program_path == "m1/MAT-E01/t1.ST" and plan.skipped == []
    problems = "\n".join(plan.problems)
    assert len(plan.problems) == 5
    for needle in ("notes.txt: not a .st program", "unknown task id 'MOT-E99'",
                   "unknown task id 'mot-e01'", "m2/README.md: not a task directory",
                   "sub/README.md: not a model directory"):
        assert needle in problems
    assert ".hidden" not in problems


def test_valid_results_are_skipped_and_bad_or_stale_ones_redone(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    programs = {j.key: j for j in discover(tree, out, TASKS).jobs}
    valid = programs["m1/MOT-E01/t1"]
    write_result_atomic(valid.result, _result("MOT-E01", valid.program))
    truncated = programs["m1/MOT-E01/t2"]
    write_result_atomic(truncated.result, _result("MOT-E01", truncated.program))
    truncated.result.write_text(truncated.result.read_text()[:200])
    edited = programs["m2/MOT-E01/t1"]
    write_result_atomic(edited.result, _result("MOT-E01", edited.program))
    edited.program.write_text(IDLE + "\n(* edited *)\n")
    wrong_task = programs["m1/MAT-E01/t1"]
    write_result_atomic(wrong_task.result, _result("MOT-E01", wrong_task.program))

    plan = discover(tree, out, TASKS)
    assert [j.key for j in plan.skipped] == ["m1/MOT-E01/t1"]
    assert sorted(j.key for j in plan.jobs) == ["m1/MAT-E01/t1", "m1/MOT-E01/t2", "m2/MOT-E01/t1"]
    assert plan.total == 4


def test_job_error_results_count_as_done_unless_retried_or_internal(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    timeout, internal = discover(tree, out, TASKS).jobs[1:3]
    write_result_atomic(timeout.result, _result(timeout.task_id, timeout.program,
                                                error=JobError("timeout", "killed", 1.0)))
    write_result_atomic(internal.result, _result(internal.task_id, internal.program,
                                                 error=JobError("internal", "dask: lost", 0.0)))
    assert [j.key for j in discover(tree, out, TASKS).skipped] == [timeout.key]
    assert discover(tree, out, TASKS, retry_errors=True).skipped == []


def test_stale_temp_files_are_removed_and_nothing_else(tmp_path: Path) -> None:
    d = tmp_path / "out" / "m" / "MOT-E01"
    d.mkdir(parents=True)
    (d / ".t1.json.k2j3h4.tmp").write_text("{")
    (d / "t1.json").write_text("{}")
    (d / ".keep.tmp").write_text("")
    assert remove_stale_temp_files(tmp_path / "out") == 1
    assert sorted(p.name for p in d.iterdir()) == [".keep.tmp", "t1.json"]


def test_one_run_per_output_directory(tmp_path: Path) -> None:
    with run_lock(tmp_path / "out"):
        with pytest.raises(RunLocked), run_lock(tmp_path / "out"):
            pass
    with run_lock(tmp_path / "out"):  # released on exit
        pass


def test_program_text_is_decoded_like_verify_does() -> None:
    assert decode_program(b"\xef\xbb\xbfPROGRAM") == "PROGRAM"
    assert decode_program("x := 'é';".encode("latin-1")) == "x := 'é';"
