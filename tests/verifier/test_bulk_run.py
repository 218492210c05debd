"""`plantloop run` end to end on the local pool: results, summary, resume, a hang that does not
stop the run, a SIGKILLed run resumed to the same tree as an uninterrupted one, and `report`."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.verifier import bulk_hooks as hooks
from verifier.bulk.isolate import Limits
from verifier.bulk.jobs import discover
from verifier.bulk.pool import LocalPool
from verifier.bulk.run import execute, run_lock
from verifier.cli import app

pytestmark = pytest.mark.slow
TASKS = {"MOT-E01"}


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> Path:
    path = tmp_path_factory.getbasetemp() / "plantloop-cache"
    path.mkdir(exist_ok=True)
    return path


def _cli(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "from verifier.cli import main; main()", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _all_gone(pids: list[int], within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while any(_alive(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _row(output: str, label: str) -> str:
    """The value of one row of the summary table."""
    match = re.search(re.escape(label) + r"\s*│\s*(\S+)", output)
    assert match, output
    return match[1]


def test_run_writes_every_result_resumes_and_feeds_report(tmp_path: Path, cache_dir: Path,
                                                          monkeypatch) -> None:
    monkeypatch.setenv("PLANTLOOP_CACHE_DIR", str(cache_dir))
    sub = hooks.write_tree(tmp_path / "sub", {
        f"{model}/MOT-E01/{trial}.st": text
        for model in ("alpha", "beta")
        for trial, text in (("ref", hooks.REFERENCE), ("idle", hooks.IDLE), ("broken", hooks.BROKEN))
    } | {"alpha/MOT-E99/t1.st": hooks.IDLE})
    out = tmp_path / "out"
    runner = CliRunner()
    first = runner.invoke(app, ["run", str(sub), "--out", str(out), "--workers", "2"])
    assert first.exit_code == 0, first.output
    tree = hooks.result_tree(out)
    assert sorted(tree) == [f"{m}/MOT-E01/{t}.json" for m in ("alpha", "beta")
                            for t in ("broken", "idle", "ref")]
    assert {k: v["reward"] for k, v in tree.items() if k.startswith("alpha")} == {
        "alpha/MOT-E01/broken.json": 0, "alpha/MOT-E01/idle.json": 0, "alpha/MOT-E01/ref.json": 1}
    assert tree["beta/MOT-E01/ref.json"]["program"]["path"] == "beta/MOT-E01/ref.st"
    assert "unknown task id 'MOT-E99'" in first.output
    assert _row(first.output, "reward 1 (this run)") == "2"
    assert _row(first.output, "done in this run") == "6"

    again = runner.invoke(app, ["run", str(sub), "--out", str(out)])
    assert again.exit_code == 0 and _row(again.output, "skipped (valid result)") == "6"
    assert hooks.result_tree(out) == tree

    report = runner.invoke(app, ["report", str(out), "--format", "json", "--bootstrap", "100"])
    assert report.exit_code == 0, report.output
    board = json.loads(report.stdout)
    assert {m: board[m]["pass@1"] for m in ("alpha", "beta")} == pytest.approx({"alpha": 1 / 3, "beta": 1 / 3})
    assert board["alpha"]["n_trials"] == 3 and board["alpha"]["n_errored"] == 0


def test_usage_errors_exit_2(tmp_path: Path, monkeypatch) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["run", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]).exit_code == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    assert runner.invoke(app, ["run", str(empty), "--out", str(tmp_path / "o")]).exit_code == 2
    sub = hooks.write_tree(tmp_path / "sub", {"m/MOT-E01/t.st": hooks.IDLE})
    assert runner.invoke(app, ["run", str(sub), "--out", str(tmp_path / "o"), "--workers", "0"]).exit_code == 2
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if dask were not installed
    missing = runner.invoke(app, ["run", str(sub), "--out", str(tmp_path / "o"),
                                  "--scheduler", "tcp://127.0.0.1:8786"])
    assert missing.exit_code == 2 and "plantloop[distributed]" in missing.output
    with run_lock(tmp_path / "o"):
        locked = runner.invoke(app, ["run", str(sub), "--out", str(tmp_path / "o")])
    assert locked.exit_code == 2 and "another plantloop run" in locked.output


def test_a_hang_or_a_dead_worker_costs_one_job_and_the_run_goes_on(tmp_path: Path,
                                                                    cache_dir: Path) -> None:
    sub = hooks.write_tree(tmp_path / "sub", {"m/MOT-E01/a_hang.st": hooks.IDLE,
                                              "m/MOT-E01/b_killworker.st": hooks.IDLE,
                                              "m/MOT-E01/c_ref.st": hooks.REFERENCE,
                                              "m/MOT-E01/d_idle.st": hooks.IDLE})
    plan = discover(sub, tmp_path / "out", TASKS)
    tally = execute(plan, LocalPool(2), Limits(timeout_s=3, cache_dir=cache_dir),
                    body=hooks.misbehave_some)
    assert tally.done == 4 and tally.errors == {"timeout": 1, "internal": 1} and tally.reward_1 == 1
    tree = hooks.result_tree(tmp_path / "out")
    assert tree["m/MOT-E01/a_hang.json"]["error"]["kind"] == "timeout"
    assert "died 2 times" in tree["m/MOT-E01/b_killworker.json"]["error"]["message"]
    assert tree["m/MOT-E01/c_ref.json"]["reward"] == 1
    assert tree["m/MOT-E01/d_idle.json"]["error"] is None


def test_a_killed_run_resumes_to_the_same_results(tmp_path: Path, cache_dir: Path,
                                                   monkeypatch) -> None:
    monkeypatch.setenv("PLANTLOOP_CACHE_DIR", str(cache_dir))
    programs = {}  # texts new to the cache: each compiles for real, so the kill lands midway
    for model in ("m1", "m2"):
        for i in range(3):
            text = hooks.REFERENCE if i % 2 else hooks.IDLE
            programs[f"{model}/MOT-E01/t{i}.st"] = f"{text}\n(* {model} trial {i} *)\n"
    sub = hooks.write_tree(tmp_path / "sub", programs)
    killed_out, clean_out = tmp_path / "killed", tmp_path / "clean"

    proc = _cli("run", str(sub), "--out", str(killed_out), "--workers", "1")
    deadline = time.monotonic() + 240
    while not list(killed_out.rglob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.02)
    workers = _children(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    assert workers and _all_gone(workers)  # the pool's workers die with the driver
    partial = list(killed_out.rglob("*.json"))
    assert 0 < len(partial) < len(programs)
    stale = partial[0].with_name(f".{partial[0].name}.x1y2z3.tmp")  # a write cut by the kill
    stale.write_text('{"schema": "plantloop.res')
    truncated = partial[0]
    truncated.write_text(truncated.read_text()[:100])

    resumed = _cli("run", str(sub), "--out", str(killed_out), "--workers", "1")
    stdout, stderr = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, stderr
    assert _row(stdout, "skipped (valid result)") == str(len(partial) - 1)  # all but the truncated
    clean = _cli("run", str(sub), "--out", str(clean_out), "--workers", "1")
    assert clean.communicate(timeout=300) and clean.returncode == 0

    got, want = hooks.result_tree(killed_out), hooks.result_tree(clean_out)
    assert sorted(got) == sorted(f"{k[:-3]}.json" for k in programs)
    assert got == want
    assert [v["reward"] for v in got.values()].count(1) == 2
    assert hooks.leftovers(killed_out) == [] and hooks.leftovers(clean_out) == []
