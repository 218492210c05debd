"""Harbor job directories: the aggregator reproduces Harbor 0.26.0's own numbers.

Harbor writes its pass@k and its mean reward into the job-level result.json
(stats.evals.<agent>__<dataset>); those are the reference values here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app
from verifier.passk import aggregate
from verifier.sources import harbor_trial, load_trials

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "harbor_jobs"
JOBS = ["demo2", "demo_multi", "demo_skip", "demo_timeout"]


def harbor_evals(job: str) -> dict:
    stats = json.loads((FIXTURES / job / "result.json").read_text())["stats"]
    (only,) = stats["evals"].values()  # each fixture job ran one agent on one dataset
    return only


def test_fixtures_are_present() -> None:
    assert all((FIXTURES / job / "result.json").is_file() for job in JOBS)


@pytest.mark.parametrize("job", JOBS)
def test_pass_at_k_equals_harbors_with_errors_excluded(job: str) -> None:
    trials = load_trials([FIXTURES / job]).trials
    harbor = {int(k): v for k, v in harbor_evals(job)["pass_at_k"].items()}
    report = aggregate(trials, ks=range(1, 9), exclude_errors=True)
    (model,) = report.models.values()
    for k, value in harbor.items():
        assert model.overall.pass_at[k] == pytest.approx(value, rel=1e-12, abs=1e-15)
    # Harbor omits every k above the smallest trial count per task; so do we (None)
    usable = [o.n for o in model.tasks.values() if o.n]
    assert all(model.overall.pass_at[k] is None for k in range(min(usable) + 1, 9))


def test_demo2_values() -> None:
    trials = load_trials([FIXTURES / "demo2"]).trials
    excluded = aggregate(trials, ks=(1, 2, 4), exclude_errors=True).models["oracle"].overall
    assert excluded.pass_at[2] == pytest.approx(17 / 18) and excluded.pass_at[4] == 1.0
    # Harbor's "mean" metric is the mean reward over non-errored trials: 10/12
    assert excluded.pass_at[1] == pytest.approx(harbor_evals("demo2")["metrics"][0]["mean"])
    assert excluded.n_errored == harbor_evals("demo2")["n_errors"] == 4
    counted = aggregate(trials, ks=(1, 2, 4)).models["oracle"].overall
    # broken-004 (4 errored trials) now counts as 0: (1 + 1/2 + 1 + 0) / 4
    assert counted.pass_at[1] == pytest.approx(0.625)
    assert counted.pass_at[2] == pytest.approx((1 + 5 / 6 + 1 + 0) / 4)
    assert (counted.n_tasks, counted.n_trials, counted.n_errored) == (4, 16, 4)


def test_multi_key_rewards_use_the_reward_key() -> None:
    # Harbor reports no pass@k when a reward file has keys besides `reward`; we use `reward`
    assert harbor_evals("demo_multi")["pass_at_k"] == {}
    trials = load_trials([FIXTURES / "demo_multi"]).trials
    assert [t.reward for t in trials] == [1.0, 1.0]
    assert aggregate(trials, ks=(1, 2)).models["oracle"].overall.pass_at[2] == 1.0


def test_agent_timeout_with_valid_reward_keeps_its_reward() -> None:
    (trial,) = load_trials([FIXTURES / "demo_timeout"]).trials
    assert trial.reward == 1.0 and trial.error == "AgentTimeoutError" and not trial.errored
    assert harbor_evals("demo_timeout")["metrics"][0]["mean"] == 1.0


def test_skipped_dataset_task_names_and_unknown_suite() -> None:
    (trial,) = load_trials([FIXTURES / "demo_skip"]).trials
    assert (trial.task, trial.trial) == ("traffic-light-001", "good__CWyKnBS")
    assert (trial.suite, trial.level) == ("unknown", "unknown")


def test_errored_trial_has_no_reward() -> None:
    trials = load_trials([FIXTURES / "demo2"]).trials
    broken = [t for t in trials if t.task == "broken-004"]
    assert len(broken) == 4
    assert all(t.errored and t.error == "RewardFileNotFoundError" for t in broken)


def test_model_name_from_model_info_else_agent(tmp_path: Path) -> None:
    src = FIXTURES / "demo2" / "pump-002__2XimiEV" / "result.json"
    data = json.loads(src.read_text())
    assert harbor_trial(data).model == "oracle"
    data["agent_info"]["model_info"] = {"name": "gpt-9", "provider": "x"}
    data["task_name"] = "plcbench/MOT-H03"
    t = harbor_trial(data)
    assert (t.model, t.task, t.suite, t.level) == ("gpt-9", "MOT-H03", "MOT", "H")


def test_jobs_root_with_several_jobs_and_cli(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs"
    for job in ("demo2", "demo_timeout"):
        shutil.copytree(FIXTURES / job, jobs / job)
    res = CliRunner().invoke(app, ["report", str(jobs), "--format", "json", "--k", "1,2"])
    assert res.exit_code == 0, res.output
    oracle = json.loads(res.stdout)["oracle"]
    assert oracle["n_trials"] == 17 and oracle["n_errored"] == 4
    assert oracle["pass@2"] is None  # slow-006 has a single trial
    assert oracle["pass@1"] == pytest.approx((1 + 0.5 + 1 + 0 + 1) / 5)


def test_unfinished_trials_are_reported_not_counted(tmp_path: Path) -> None:
    job = tmp_path / "demo2"
    shutil.copytree(FIXTURES / "demo2", job)
    (job / "pump-002__2XimiEV" / "result.json").unlink()
    running = job / "pump-002__RsGkiyE" / "result.json"
    running.write_text(json.dumps(json.loads(running.read_text()) | {"finished_at": None}))
    loaded = load_trials([job])
    assert len(loaded.trials) == 14
    assert len(loaded.problems) == 2
    assert any("without a readable result.json" in p for p in loaded.problems)
    assert any("not finished" in p for p in loaded.problems)
