"""The dask.distributed back-end on a LocalCluster (API and `plantloop run --scheduler`) gives
the same result tree as the local pool."""

from __future__ import annotations

from pathlib import Path

import distributed  # the `distributed` extra: CI installs it, this test must not be skipped
import pytest
from typer.testing import CliRunner

from tests.verifier import bulk_hooks as hooks
from verifier.bulk.isolate import Limits
from verifier.bulk.jobs import discover
from verifier.bulk.pool import LocalPool
from verifier.bulk.run import execute
from verifier.cli import app

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> Path:
    path = tmp_path_factory.getbasetemp() / "plantloop-cache"
    path.mkdir(exist_ok=True)
    return path


def test_dask_local_cluster_matches_the_local_pool(tmp_path: Path, cache_dir: Path,
                                                   monkeypatch) -> None:
    from verifier.bulk.distributed import DaskCluster

    sub = hooks.write_tree(tmp_path / "sub", {
        "m/MOT-E01/ref.st": hooks.REFERENCE,
        "m/MOT-E01/idle.st": hooks.IDLE,
        "m/MOT-E01/broken.st": hooks.BROKEN,
        "m/MOT-E01/hang.st": hooks.IDLE,
    })
    limits = Limits(timeout_s=5, cache_dir=cache_dir)
    local_out, dask_out, cli_out = tmp_path / "local", tmp_path / "dask", tmp_path / "cli"
    execute(discover(sub, local_out, {"MOT-E01"}), LocalPool(2), limits, body=hooks.misbehave_some)

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with DaskCluster(cluster.scheduler_address) as dask_cluster:
            assert dask_cluster.workers == 2
            tally = execute(discover(sub, dask_out, {"MOT-E01"}), dask_cluster, limits,
                            body=hooks.misbehave_some)
        monkeypatch.setenv("PLANTLOOP_CACHE_DIR", str(cache_dir))
        cli = CliRunner().invoke(app, ["run", str(sub), "--out", str(cli_out),
                                       "--scheduler", cluster.scheduler_address])
    assert cli.exit_code == 0, cli.output
    via_cli = hooks.result_tree(cli_out)
    assert via_cli.pop("m/MOT-E01/hang.json")["error"] is None  # the real job: an idle program
    assert via_cli == {k: v for k, v in hooks.result_tree(local_out).items() if "hang" not in k}
    assert tally.done == 4 and tally.reward_1 == 1 and tally.errors == {"timeout": 1}
    assert hooks.result_tree(dask_out) == hooks.result_tree(local_out)
    assert sorted(hooks.result_tree(dask_out)) == [f"m/MOT-E01/{t}.json"
                                                    for t in ("broken", "hang", "idle", "ref")]
