"""Test job bodies and tree builders for the bulk-run tests.

The hooks replace only the job body (`isolate.execute_job`): the isolation, pool and result code
under test is the production code. A hook must live in an importable module because the local
pool's workers are spawned and receive the body by reference.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import time
from pathlib import Path

from plants.tasks.registry import get_task
from verifier.baselines import idle_program
from verifier.bulk.isolate import JobInput, Limits, Outcome, execute_job

REFERENCE = (Path(__file__).resolve().parents[2] / "plants" / "tasks" / "mot_e01"
             / "reference.st").read_text(encoding="utf-8")
IDLE = idle_program(get_task("MOT-E01"))
BROKEN = "PROGRAM P\nVAR x : INT; END_VAR\nx := ;\nEND_PROGRAM\n"


def hang(job: JobInput, limits: Limits) -> Outcome:
    _note_pid(job)
    time.sleep(600)
    raise AssertionError("not killed")


def blow_memory(job: JobInput, limits: Limits) -> Outcome:
    hoard = []
    while True:
        hoard.append(bytearray(64 << 20))


def exit_abruptly(job: JobInput, limits: Limits) -> Outcome:
    print("giving up", flush=True)
    os._exit(7)


def segfault(job: JobInput, limits: Limits) -> Outcome:
    ctypes.string_at(0)  # reads address 0: a real SIGSEGV
    raise AssertionError("no segfault")


def killed(job: JobInput, limits: Limits) -> Outcome:
    os.kill(os.getpid(), signal.SIGKILL)  # what the kernel's OOM killer does
    raise AssertionError("not killed")


def raise_error(job: JobInput, limits: Limits) -> Outcome:
    raise ValueError("boom")


def kill_worker(job: JobInput, limits: Limits) -> Outcome:
    os.kill(os.getppid(), signal.SIGKILL)  # the supervising worker process
    time.sleep(600)
    raise AssertionError("not killed")


def misbehave_some(job: JobInput, limits: Limits) -> Outcome:
    """Hang or kill the worker for programs whose path says so, the real job for the others."""
    if "hang" in job.program_path:
        return hang(job, limits)
    if "killworker" in job.program_path:
        return kill_worker(job, limits)
    return execute_job(job, limits)


def _note_pid(job: JobInput) -> None:
    pid_file = os.environ.get("BULK_TEST_PID_FILE")
    if pid_file:
        Path(pid_file).write_text(str(os.getpid()))


def write_tree(root: Path, programs: dict[str, str]) -> Path:
    """`programs` maps `model/TASK-ID/trial.st` to source text."""
    for rel, text in programs.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def result_tree(out: Path) -> dict[str, dict]:
    """Every result file under `out` by relative path, without the run-dependent fields."""
    tree = {}
    for path in sorted(out.rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        data.pop("created_at")
        data["compile"].pop("seconds")
        if data["error"] is not None:
            data["error"].pop("seconds")
        tree[path.relative_to(out).as_posix()] = data
    return tree


def leftovers(out: Path) -> list[str]:
    """Files that are neither results nor the run lock (e.g. temp files)."""
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*")
                  if p.is_file() and p.suffix != ".json" and p.name != ".plantloop-run.lock")
