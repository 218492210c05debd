"""The dask.distributed back-end: the same `pool.supervise` job function, run by dask workers.

dask is an optional extra (`pip install 'plantloop[distributed]'`) and is imported only here,
only when a scheduler address is given. Workers need plantloop installed and should run one
thread each (`dask worker ADDR --nthreads 1 --nworkers N`): every job forks a child, and one
thread per process keeps that fork clean. Program bytes travel with the job and results come
back to the client, which writes them, so workers need no shared file system; each worker uses
its own compile cache (`PLANTLOOP_CACHE_DIR` on that machine).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from verifier.bulk.isolate import JobBody, JobInput, Limits, Outcome, error_outcome, execute_job
from verifier.bulk.jobs import Job
from verifier.bulk.pool import read_input, supervise

INSTALL_HINT = "pip install 'plantloop[distributed]'"
CONNECT_TIMEOUT_S = 20


class DistributedUnavailable(RuntimeError):
    """dask.distributed is missing or the scheduler cannot be reached."""


def _client_class() -> Any:
    try:
        from distributed import Client
    except ImportError:
        raise DistributedUnavailable(
            f"--scheduler needs dask.distributed, which is not installed ({INSTALL_HINT})"
        ) from None
    return Client


class DaskCluster:
    """A connection to a running dask scheduler (`tcp://HOST:PORT`, or a LocalCluster's)."""

    def __init__(self, address: str) -> None:
        client_class = _client_class()
        try:
            self.client = client_class(address, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError) as exc:
            raise DistributedUnavailable(f"cannot connect to the dask scheduler {address}: {exc}") from None
        self.address = address

    @property
    def workers(self) -> int:
        return len(self.client.scheduler_info().get("workers", {}))

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> DaskCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(
        self, jobs: Iterable[Job], limits: Limits, body: JobBody = execute_job
    ) -> Iterator[tuple[Job, Outcome]]:
        """Submit every job, yield each with its outcome as it completes."""
        from distributed import as_completed

        futures = {}
        try:
            for job in jobs:
                inp = read_input(job)
                if isinstance(inp, Outcome):
                    yield job, inp
                    continue
                futures[self.client.submit(supervise, inp, limits, body, pure=False)] = job
            for future in as_completed(list(futures)):
                job = futures.pop(future)
                yield job, _outcome(future, job)
        finally:
            if futures:
                self.client.cancel(list(futures))


def _outcome(future: Any, job: Job) -> Outcome:
    """The future's outcome; a task dask gave up on (e.g. KilledWorker) is an `internal` error."""
    try:
        return future.result()
    except Exception as exc:  # noqa: BLE001
        inp = read_input(job)
        if isinstance(inp, Outcome):
            return inp
        assert isinstance(inp, JobInput)
        return error_outcome(inp, "internal", f"dask: {type(exc).__name__}: {exc}", 0.0)
