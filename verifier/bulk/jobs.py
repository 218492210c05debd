"""What a bulk run has to do: the jobs of a submissions tree that have no valid result yet.

Layout: `SUBMISSIONS/<model>/<TASK-ID>/<trial>.st` -> `OUT/<model>/<TASK-ID>/<trial>.json`.

A result is skipped (the job is done) only if `load_result` accepts it, it is for the same task
and its program sha256 equals the current file's: a truncated file, an invalid one or a result
of an edited program is redone. Results carrying a job error caused by the program (crash,
timeout, memory) count as done unless `retry_errors` is set; an `internal` error (the verifier
or the cluster failed, not the program) is always redone.

Anything that is not a job is listed in `Plan.problems`, never turned into a result: a directory
whose name is not a known task id (a result file there would be skipped by every later run, and
would freeze a verdict for a task that may be added later), a file that is not `.st`, a file or
directory at the wrong depth, an unreadable program. Dot-files are ignored.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from verifier.results import ResultError, load_result

PROGRAM_SUFFIX = ".st"
STALE_TEMP = re.compile(r"^\..+\.json\..+\.tmp$")  # write_result_atomic's temp files


@dataclass(frozen=True, slots=True)
class Job:
    """One program on one task, and where its result goes."""

    model: str
    task_id: str
    trial: str
    program: Path  # the .st file
    result: Path  # OUT/<model>/<TASK-ID>/<trial>.json
    program_path: str  # recorded in the result: the path relative to SUBMISSIONS

    @property
    def key(self) -> str:
        return f"{self.model}/{self.task_id}/{self.trial}"


@dataclass
class Plan:
    jobs: list[Job] = field(default_factory=list)  # still to run, task-major order
    skipped: list[Job] = field(default_factory=list)  # a valid result exists
    problems: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.jobs) + len(self.skipped)


def _visible(path: Path) -> list[Path]:
    return sorted(p for p in path.iterdir() if not p.name.startswith("."))


def discover(
    submissions: Path,
    out: Path,
    known_tasks: Collection[str],
    *,
    retry_errors: bool = False,
) -> Plan:
    """Walk the submissions tree; `known_tasks` are the registered task ids."""
    plan = Plan()
    claimed: dict[Path, Path] = {}
    for model_dir in _visible(submissions):
        if not model_dir.is_dir():
            plan.problems.append(f"{model_dir}: not a model directory, ignored")
            continue
        for task_dir in _visible(model_dir):
            if not task_dir.is_dir():
                plan.problems.append(f"{task_dir}: not a task directory, ignored")
                continue
            if task_dir.name not in known_tasks:
                plan.problems.append(
                    f"{task_dir}: unknown task id {task_dir.name!r} (see `plantloop tasks`), not run"
                )
                continue
            for program in _visible(task_dir):
                if not (program.is_file() and program.suffix.lower() == PROGRAM_SUFFIX):
                    plan.problems.append(f"{program}: not a {PROGRAM_SUFFIX} program, ignored")
                    continue
                result = out / model_dir.name / task_dir.name / f"{program.stem}.json"
                if result in claimed:
                    plan.problems.append(
                        f"{program}: same trial name as {claimed[result]}, ignored"
                    )
                    continue
                claimed[result] = program
                job = Job(model_dir.name, task_dir.name, program.stem, program, result,
                          program.relative_to(submissions).as_posix())
                try:
                    done = _is_done(job, retry_errors)
                except OSError as exc:
                    plan.problems.append(f"{program}: cannot read ({exc.strerror}), not run")
                    continue
                (plan.skipped if done else plan.jobs).append(job)
    plan.jobs.sort(key=lambda j: (j.task_id, j.model, j.trial))  # warm workers stay on one task
    return plan


def _is_done(job: Job, retry_errors: bool) -> bool:
    """True iff the job's result file is valid and belongs to the current program."""
    if not job.result.exists():
        job.program.stat()  # an unreadable program is a problem, reported by the caller
        return False
    sha = hashlib.sha256(job.program.read_bytes()).hexdigest()
    try:
        result = load_result(job.result)
    except ResultError:
        return False
    if result["task"]["id"] != job.task_id or result["program"]["sha256"] != sha:
        return False
    error = result["error"]
    return error is None or not (retry_errors or error["kind"] == "internal")


def remove_stale_temp_files(out: Path) -> int:
    """Delete temp files a killed run left behind (call only while holding the run lock)."""
    removed = 0
    if not out.is_dir():
        return 0
    for path in out.rglob(".*.tmp"):
        if path.is_file() and STALE_TEMP.match(path.name):
            path.unlink(missing_ok=True)
            removed += 1
    return removed
