"""`plantloop report` on synthetic plantloop result trees: formats, counts, CLI exit codes."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from verifier.cli import app
from verifier.results import SCHEMA_PATH, ConditionResult, JobError, build_result
from verifier.results import write_result_atomic as write

VALIDATOR = Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))

# model -> task -> trial rewards; None = the job errored (worker crash)
TREE: dict[str, dict[str, list[int | None]]] = {
    "alpha": {"MOT-E01": [1, 1, 0], "MOT-H01": [0, 0, 1], "MAT-M01": [1, 1, 1]},
    "beta": {"MOT-E01": [0, 0, 0], "MOT-H01": [0, None]},  # one trial and MAT-M01 missing
}


def trial_result(task: str, reward: int | None) -> dict:
    if reward is None:
        err = JobError("crash", "worker died (SIGSEGV)")
        return build_result(task_id=task, program_path="p.st", program_bytes=b"x",
                            compile_seconds=0.0, error=err)  # fmt: skip
    cond = ConditionResult(name="C1", success=bool(reward), ticks=100, success_time_s=None)
    return build_result(task_id=task, program_path="p.st", program_bytes=b"x",
                        compile_seconds=0.5, conditions=[cond])  # fmt: skip


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "out"
    for model, tasks in TREE.items():
        for task, rewards in tasks.items():
            for i, r in enumerate(rewards):
                write(root / model / task / f"{i}.json", trial_result(task, r))
    for path in root.rglob("*.json"):  # every written result follows the published schema
        VALIDATOR.validate(json.loads(path.read_text()))
    return root


def run(*args: str):
    return CliRunner().invoke(app, ["report", *map(str, args)])


def test_json_numbers(tree: Path) -> None:
    res = run(tree, "--format", "json", "--k", "1,2,3")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    a, b = data["alpha"], data["beta"]
    assert a["pass@1"] == pytest.approx((2 / 3 + 1 / 3 + 1) / 3)
    assert a["pass@2"] == pytest.approx((1 + 2 / 3 + 1) / 3)
    assert a["pass@3"] == 1.0
    assert a["hard_pass@3"] == 1.0 and a["n_hard_tasks"] == 1
    assert a["by_level"]["M"]["pass@1"] == 1.0 and a["by_suite"]["MAT"]["n_tasks"] == 1
    lo, hi = a["ci95"]["pass@1"]
    assert lo <= a["pass@1"] <= hi
    assert b["pass@1"] == 0.0 and b["pass@2"] == 0.0
    assert b["pass@3"] is None  # MOT-H01 has only 2 trials
    assert (b["n_trials"], b["n_errored"]) == (5, 1)
    assert (b["n_missing_trials"], b["n_missing_tasks"]) == (1 + 3, 1)
    assert b["missing_tasks"] == ["MAT-M01"]
    assert b["errored_trials"] == "counted as failures"


def test_exclude_errors(tree: Path) -> None:
    res = run(tree, "--format", "json", "--k", "1,2", "--exclude-errors")
    b = json.loads(res.stdout)["beta"]
    assert b["tasks"]["MOT-H01"]["n"] == 1 and b["n_errored"] == 1
    assert b["pass@2"] is None and b["errored_trials"] == "excluded"


def test_markdown_leaderboard(tree: Path) -> None:
    res = run(tree, "-f", "md", "--k", "1,3")
    assert res.exit_code == 0
    md = res.stdout
    assert md.startswith("## Leaderboard")
    assert md.index("| alpha |") < md.index("| beta |")  # ranked by pass@1
    assert "### pass@1 by level" in md and "### pass@1 by suite" in md
    assert "Errored trials: 1, counted as failures." in md
    assert "Missing trials: 4" in md
    beta_row = next(line for line in md.splitlines() if line.startswith("| beta |"))
    assert "n/a" in beta_row and "4 (1 tasks)" in beta_row


def test_csv_rows_per_group(tree: Path) -> None:
    res = run(tree, "-f", "csv", "--k", "1,3")
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    groups = [(r["model"], r["group"]) for r in rows if r["model"] == "alpha"]
    assert groups == [("alpha", g) for g in
                      ["all", "suite=MAT", "suite=MOT", "level=E", "level=M", "level=H"]]  # fmt: skip
    alpha_all = rows[0]
    assert float(alpha_all["pass@1"]) == pytest.approx(2 / 3)
    assert float(alpha_all["pass@3_ci_lo"]) == 1.0
    beta_all = next(r for r in rows if r["model"] == "beta" and r["group"] == "all")
    assert beta_all["pass@3"] == "" and beta_all["n_missing_trials"] == "4"


def test_table_output(tree: Path) -> None:
    res = run(tree)
    assert res.exit_code == 0
    assert "Leaderboard" in res.stdout and "alpha" in res.stdout and "beta" in res.stdout


def test_compare(tree: Path) -> None:
    res = run(tree, "--compare", "alpha", "beta", "-f", "json")
    assert res.exit_code == 0, res.output
    diffs = json.loads(res.stdout)["differences"]
    assert [d["task"] for d in diffs] == ["MAT-M01", "MOT-E01", "MOT-H01"]
    assert diffs[0]["b"] is None and diffs[1]["a"]["c"] == 2 and diffs[1]["b"]["c"] == 0
    md = run(tree, "--compare", "alpha", "beta", "-f", "md").stdout
    assert "3 task(s) differ" in md and "| MAT-M01 | 3/3 | 100.0 | missing | - |" in md
    same = json.loads(run(tree, "--compare", "alpha", "alpha", "-f", "json").stdout)
    assert same["differences"] == []
    assert run(tree, "--compare", "alpha", "gamma").exit_code == 2


def test_invalid_result_in_a_task_dir_is_an_errored_trial(tree: Path) -> None:
    (tree / "beta" / "MOT-E01" / "3.json").write_text("{truncated")
    res = run(tree, "-f", "json", "--k", "1")
    assert res.exit_code == 0
    assert "counted as an errored trial" in res.stderr
    b = json.loads(res.stdout)["beta"]
    assert b["tasks"]["MOT-E01"] == {"n": 4, "c": 0, "pass@1": 0.0, "n_errored": 1, "n_missing": 0}


def test_exit_codes(tmp_path: Path, tree: Path) -> None:
    missing = run(tmp_path / "nope")
    assert missing.exit_code == 2 and "no such directory" in missing.stderr
    (tmp_path / "empty").mkdir()
    empty = run(tmp_path / "empty")
    assert empty.exit_code == 2 and "no results found" in empty.stderr
    assert run(tree, "--k", "0").exit_code == 2
    assert run(tree, "--k", "x").exit_code == 2
    assert run(tree, "--format", "xml").exit_code == 2


def test_plot_writes_png(tree: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="matplotlib is the optional 'plot' extra")
    png = tmp_path / "chart.png"
    res = run(tree, "-f", "md", "--plot", png)
    assert res.exit_code == 0, res.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_says_how_to_install(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    res = run(tree, "--plot", tmp_path / "c.png")
    assert res.exit_code == 2
    assert "pip install 'plantloop[plot]'" in res.stderr
