"""One job in a forked child: every way the child can end becomes a valid result, in time."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.verifier import bulk_hooks as hooks
from verifier.bulk.isolate import JobInput, Limits, run_isolated
from verifier.results import validate_result


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> Path:
    path = tmp_path_factory.getbasetemp() / "plantloop-cache"
    path.mkdir(exist_ok=True)
    return path


def _job(text: str = hooks.IDLE) -> JobInput:
    return JobInput("MOT-E01", "m/MOT-E01/t1.st", text.encode())


def _vm_mb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) // 1024
    raise AssertionError("no VmSize")


def _error(outcome) -> dict:
    validate_result(outcome.result)
    assert outcome.result["reward"] == 0 and outcome.result["conditions"] == []
    assert outcome.result["program"]["path"] == "m/MOT-E01/t1.st"
    return outcome.result["error"]


def test_real_jobs_give_their_verdicts(cache_dir: Path) -> None:
    limits = Limits(timeout_s=120, cache_dir=cache_dir)
    passed = run_isolated(_job(hooks.REFERENCE), limits)
    validate_result(passed.result)
    assert passed.result["reward"] == 1 and passed.error_kind is None
    assert passed.wall_seconds > passed.kernel_seconds > 0
    broken = run_isolated(_job(hooks.BROKEN), limits)
    assert broken.result["reward"] == 0 and not broken.result["compile"]["ok"]


def test_a_hang_is_killed_at_the_timeout(tmp_path: Path, monkeypatch) -> None:
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("BULK_TEST_PID_FILE", str(pid_file))
    start = time.perf_counter()
    outcome = run_isolated(_job(), Limits(timeout_s=1.5), hooks.hang)
    elapsed = time.perf_counter() - start
    error = _error(outcome)
    assert error["kind"] == "timeout" and error["seconds"] == 1.5
    assert 1.5 <= elapsed < 8
    with pytest.raises(ProcessLookupError):  # killed and reaped, not left running
        os.kill(int(pid_file.read_text()), 0)


def test_a_memory_blow_up_is_a_memory_error() -> None:
    limit = _vm_mb() + 300  # the child starts with this process's address space
    outcome = run_isolated(_job(), Limits(timeout_s=60, memory_mb=limit), hooks.blow_memory)
    error = _error(outcome)
    assert error["kind"] == "memory" and f"{limit} MB" in error["message"]


def test_an_outside_sigkill_is_reported_as_probable_out_of_memory() -> None:
    error = _error(run_isolated(_job(), Limits(timeout_s=60), hooks.killed))
    assert error["kind"] == "memory" and "SIGKILL" in error["message"]


@pytest.mark.parametrize(("body", "message"), [
    (hooks.segfault, "killed by SIGSEGV"),
    (hooks.exit_abruptly, "exited with status 7 without a result; last output: giving up"),
])
def test_a_crash_is_a_crash_error(body, message: str) -> None:
    error = _error(run_isolated(_job(), Limits(timeout_s=60), body))
    assert error["kind"] == "crash" and message in error["message"]


def test_an_exception_in_the_verifier_is_an_internal_error() -> None:
    error = _error(run_isolated(_job(), Limits(timeout_s=60), hooks.raise_error))
    assert error == {"kind": "internal", "message": "ValueError: boom", "seconds": error["seconds"]}
