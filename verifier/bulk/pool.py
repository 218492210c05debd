"""The local back-end: long-lived worker processes that supervise one forked child per job.

Each worker (a `ProcessPoolExecutor` process, started with `spawn`) imports the verifier once,
warms the kernel of every task it meets and then forks a fresh child per job
(`isolate.run_isolated`). Programs are only ever compiled and run in those children, so a hang,
crash or memory blow-up costs one job and never a worker. Workers are still recycled after
`recycle` jobs because the kernels they warm stay loaded (one per task). If a worker dies
anyway, the pool is rebuilt and the jobs it lost are rerun one at a time; a job that kills its
worker twice on its own is given up as an `internal` error.
"""

from __future__ import annotations

import multiprocessing
from collections import Counter, deque
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from verifier.bulk.isolate import (
    FORK_LOCK,
    JobBody,
    JobInput,
    Limits,
    Outcome,
    die_with_parent,
    error_outcome,
    execute_job,
    run_isolated,
)
from verifier.bulk.jobs import Job

DEFAULT_RECYCLE = 200
IN_FLIGHT_PER_WORKER = 2
MAX_ATTEMPTS = 2

_warm_tasks: set[str] = set()


def warm(task_id: str, limits: Limits) -> None:
    """Load the task's kernel (and, once per process, numba's compile path) before forking."""
    if task_id in _warm_tasks:
        return
    from plants.tasks.registry import get_task
    from verifier.baselines import idle_program
    from verifier.kernel import task_kernel
    from verifier.verify import verify_source

    with FORK_LOCK:
        task = get_task(task_id)
        task_kernel(task, limits.cache_dir)
        if not _warm_tasks:  # trusted generated text, compiled in the worker itself
            verify_source(idle_program(task), task, "<warm-up>", cache_dir=limits.cache_dir)
        _warm_tasks.add(task_id)


def supervise(job: JobInput, limits: Limits, body: JobBody = execute_job) -> Outcome:
    """The function every back-end runs on a worker: warm up, then run the job isolated."""
    try:
        warm(job.task_id, limits)
    except Exception:  # noqa: BLE001, S110 - the isolated child meets and reports the same problem
        pass
    return run_isolated(job, limits, body)


def read_input(job: Job) -> JobInput | Outcome:
    """The job's program bytes; a program that vanished since discovery is an `internal` error."""
    try:
        return JobInput(job.task_id, job.program_path, job.program.read_bytes())
    except OSError as exc:
        empty = JobInput(job.task_id, job.program_path, b"")
        return error_outcome(empty, "internal", f"cannot read the program: {exc.strerror}", 0.0)


class LocalPool:
    """`workers` supervising processes on this machine."""

    def __init__(self, workers: int, recycle: int = DEFAULT_RECYCLE) -> None:
        self.workers = workers
        self.recycle = recycle

    def run(
        self, jobs: Iterable[Job], limits: Limits, body: JobBody = execute_job
    ) -> Iterator[tuple[Job, Outcome]]:
        """Yield every job with its outcome, in completion order.

        The jobs in flight when a worker died are suspects: they are rerun one at a time, so
        the next death names its job, which is retried once more and then given up.
        """
        pending = deque(jobs)
        suspects: deque[Job] = deque()
        deaths: Counter[str] = Counter()
        while pending or suspects:
            if not suspects:
                suspects.extend((yield from self._run_pool(pending, limits, body, self.workers)))
                continue
            for job in (yield from self._run_pool(suspects, limits, body, 1)):
                deaths[job.key] += 1
                if deaths[job.key] < MAX_ATTEMPTS:
                    suspects.appendleft(job)
                    continue
                inp = read_input(job)
                if isinstance(inp, JobInput):
                    inp = error_outcome(inp, "internal",
                                        f"the worker process died {MAX_ATTEMPTS} times running this job", 0.0)
                yield job, inp

    def _run_pool(
        self, pending: deque[Job], limits: Limits, body: JobBody, workers: int
    ) -> Generator[tuple[Job, Outcome], None, list[Job]]:
        """Run until `pending` is empty or the pool breaks; returns the jobs a break lost.

        One worker runs one job at a time, so a break then loses exactly the job that caused it.
        """
        in_flight = IN_FLIGHT_PER_WORKER * workers if workers > 1 else 1
        executor = ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=die_with_parent,
            max_tasks_per_child=self.recycle,
        )
        running: dict[Future[Outcome], Job] = {}
        lost: list[Job] = []
        finished = False
        try:
            while (pending or running) and not lost:
                while pending and len(running) < in_flight:
                    job = pending.popleft()
                    inp = read_input(job)
                    if isinstance(inp, Outcome):
                        yield job, inp
                        continue
                    running[executor.submit(supervise, inp, limits, body)] = job
                if not running:
                    continue
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    job = running.pop(future)
                    try:
                        outcome = future.result()
                    except BrokenProcessPool:
                        lost.append(job)
                        continue
                    except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable outcome
                        inp = read_input(job)
                        outcome = inp if isinstance(inp, Outcome) else error_outcome(
                            inp, "internal", f"{type(exc).__name__}: {exc}", 0.0)
                    yield job, outcome
            lost.extend(running.values())
            finished = not lost
            return lost
        finally:
            if finished:
                executor.shutdown(wait=True)
            else:  # interrupted or broken: do not wait for the jobs still running
                for process in list(getattr(executor, "_processes", {}).values()):
                    process.kill()
                executor.shutdown(wait=False, cancel_futures=True)
