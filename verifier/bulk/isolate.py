"""Run one job in a forked child with a wall-clock timeout and an address-space limit.

Why a fork per job: the forked child starts from a warm parent (imports, numba, the task's
kernel already loaded), so isolation costs ~10 ms per job (measured, docs/performance.md),
while a hang can be killed, a segfault or a memory blow-up only takes the child down, and the
memory numba keeps per compiled program is returned to the OS when the child exits.

The parent never runs program code and reads the child's answer as JSON (never unpickled). It
turns every way the child can end into a result; the child's last line of output is quoted:

- a result sent back                     -> that result (reward as judged)
- no answer within `timeout_s`           -> SIGKILL, error `timeout`
- MemoryError under RLIMIT_AS            -> error `memory`
- killed by SIGKILL not sent by us       -> error `memory` (the kernel's OOM killer)
- another signal or exit status          -> error `crash` (SIGSEGV, abort, os._exit ...)
- a Python exception in the verifier     -> error `internal`

`os.fork` is used directly (not multiprocessing) because dask runs its workers as daemonic
processes, which multiprocessing forbids to have children.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import select
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from verifier.results import JobError, JobErrorKind, build_result

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MEMORY_MB = 2048  # address space; numba + LLVM + a task kernel need ~400 MB
EXIT_MEMORY = 86  # the child's exit status when even reporting a MemoryError failed
EXIT_INTERNAL = 87
MESSAGE_CHARS = 500
PR_SET_PDEATHSIG = 1

FORK_LOCK = threading.Lock()
"""Held while forking and while warming numba state, so that in a threaded host (a dask
worker) no other thread of ours holds numba's compiler lock when a child is forked."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What every job gets; `cache_dir` None means the worker's default compile cache."""

    timeout_s: float = DEFAULT_TIMEOUT_S
    memory_mb: int = DEFAULT_MEMORY_MB
    cache_dir: Path | None = None


@dataclass(frozen=True, slots=True)
class JobInput:
    """What crosses to a worker: the program bytes travel, so workers need no shared input."""

    task_id: str
    program_path: str
    source: bytes


@dataclass(frozen=True, slots=True)
class Outcome:
    """A job's result JSON plus timings that are not part of the result."""

    result: dict[str, Any]
    kernel_seconds: float = 0.0
    wall_seconds: float = 0.0

    @property
    def error_kind(self) -> str | None:
        error = self.result.get("error")
        return error["kind"] if error else None


JobBody = Callable[[JobInput, Limits], Outcome]


def execute_job(job: JobInput, limits: Limits) -> Outcome:
    """The real job: compile, bind and run the program on its task (in the child)."""
    from plants.tasks.registry import get_task
    from verifier.console import decode_program
    from verifier.verify import verify_source

    task = get_task(job.task_id)
    v = verify_source(decode_program(job.source), task, job.program_path,
                      cache_dir=limits.cache_dir, program_bytes=job.source)
    return Outcome(v.result, v.kernel_seconds)


def error_outcome(job: JobInput, kind: JobErrorKind, message: str, seconds: float) -> Outcome:
    """A result with a job error record: reward 0, no conditions."""
    error = JobError(kind, message[:MESSAGE_CHARS], round(seconds, 3))
    result = build_result(task_id=job.task_id, program_path=job.program_path,
                          program_bytes=job.source, compile_seconds=0.0, error=error)
    return Outcome(result, 0.0, seconds)


def run_isolated(job: JobInput, limits: Limits, body: JobBody = execute_job) -> Outcome:
    """Run `body(job, limits)` in a forked child; always returns, whatever the child does."""
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryFile() as log:  # the child's stdout/stderr, quoted on a crash
        start = time.perf_counter()
        with FORK_LOCK:
            pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(read_fd)
            _child(write_fd, log.fileno(), job, limits, body)
        os.close(write_fd)
        try:
            data, timed_out = _read_until(read_fd, start + limits.timeout_s)
        except BaseException:  # e.g. KeyboardInterrupt: leave no child behind
            _kill(pid)
            _reap(pid)
            raise
        finally:
            os.close(read_fd)
        if timed_out:
            _kill(pid)
        status = _reap(pid)
        seconds = time.perf_counter() - start
        if timed_out:
            return error_outcome(job, "timeout", f"no result within {limits.timeout_s:g} s, killed",
                                 limits.timeout_s)
        message = _decode(data)
        if "result" in message:
            return Outcome(message["result"], float(message.get("kernel_seconds", 0.0)), seconds)
        if "error" in message:
            return error_outcome(job, message["error"], str(message.get("message", "")), seconds)
        kind, text = _classify(status, limits)
        return error_outcome(job, kind, text + _tail(log), seconds)


def _decode(data: bytes) -> dict[str, Any]:
    """The child's message. JSON, not pickle: the parent never unpickles what a child sent."""
    try:
        message = json.loads(data) if data else {}
    except ValueError:  # a child killed mid-write leaves a partial message
        return {}
    if not isinstance(message, dict):
        return {}
    if "error" in message and message["error"] not in get_args(JobErrorKind):
        return {}
    if "result" in message and not isinstance(message["result"], dict):
        return {}
    return message


def _tail(log: Any) -> str:
    """The last line the child printed (e.g. `LLVM ERROR: out of memory`), if any."""
    log.seek(0, os.SEEK_END)
    log.seek(max(0, log.tell() - 2000))
    lines = [line for line in log.read().decode("utf-8", "replace").splitlines() if line.strip()]
    return f"; last output: {lines[-1].strip()[:200]}" if lines else ""


def _classify(status: int, limits: Limits) -> tuple[JobErrorKind, str]:
    """Why a child ended without sending anything, from its wait status."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        if sig == signal.SIGKILL:
            return "memory", f"killed by SIGKILL (out of memory?; limit {limits.memory_mb} MB)"
        return "crash", f"job process killed by {name}"
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    if code == EXIT_MEMORY:
        return "memory", f"out of memory (limit {limits.memory_mb} MB)"
    if code == EXIT_INTERNAL:
        return "internal", "the job process failed before it could report"
    return "crash", f"job process exited with status {code} without a result"


def _child(write_fd: int, log_fd: int, job: JobInput, limits: Limits, body: JobBody) -> None:
    """Set the limits, run the job, send one JSON message, exit without cleanup."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's business
        _die_with_parent()
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        sys.stdout = sys.stderr = open(1, "w", buffering=1, errors="replace", closefd=False)  # noqa: SIM115
        # Other jobs' pipes (threaded hosts fork concurrently) and the host's sockets
        os.closerange(3, write_fd)
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        os.closerange(write_fd + 1, soft if soft != resource.RLIM_INFINITY else 1 << 20)
        limit = limits.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        try:
            outcome = body(job, limits)
            message: dict[str, Any] = {"result": outcome.result,
                                       "kernel_seconds": outcome.kernel_seconds}
        except MemoryError:
            message = {"error": "memory", "message": f"out of memory (limit {limits.memory_mb} MB)"}
        except RecursionError as exc:
            message = {"error": "crash", "message": f"RecursionError: {exc}"}
        except Exception as exc:  # noqa: BLE001 - becomes an `internal` job error
            message = {"error": "internal", "message": f"{type(exc).__name__}: {exc}"}
        try:
            text = json.dumps(message, allow_nan=False)
        except (TypeError, ValueError) as exc:  # e.g. a NaN: the result could not be written
            text = json.dumps({"error": "internal", "message": f"unserialisable result: {exc}"})
        view = memoryview(text.encode("utf-8"))
        while view:
            view = view[os.write(write_fd, view):]
    except MemoryError:
        code = EXIT_MEMORY
    except BaseException:  # noqa: BLE001 - whatever happens, the child must not return
        code = EXIT_INTERNAL
    finally:
        os._exit(code)


def _die_with_parent() -> None:
    """Linux: SIGKILL this child if the process that forked it dies (no orphans run on)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def _read_until(fd: int, deadline: float) -> tuple[bytes, bool]:
    """Everything the child writes until it closes the pipe; (data, True) at the deadline."""
    chunks: list[bytes] = []
    while True:
        left = deadline - time.perf_counter()
        if left <= 0:
            return b"".join(chunks), True
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks), False
        chunks.append(chunk)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(pid: int) -> int:
    """Wait for the child; a child that answered but lingers is killed after a grace period."""
    deadline = time.perf_counter() + 5.0
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.perf_counter() > deadline:
            _kill(pid)
            return os.waitpid(pid, 0)[1]
        time.sleep(0.005)


def die_with_parent() -> None:
    """Pool worker initializer: the worker dies with the driver and ignores Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
