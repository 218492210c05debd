"""`plantloop audit`: the migrated tasks pass every check, a task with text-only ranges fails
with the one clear finding, and each broken bar is named."""

from __future__ import annotations

import dataclasses
import json

import pytest
from typer.testing import CliRunner

from plants.tasks.mot_e01 import TASK as MOT_E01
from plants.tasks.mot_e02 import TASK as MOT_E02
from plants.tasks.spec import TEXT_ONLY
from verifier.audit import CHECKS, audit_task, tightened
from verifier.cli import app


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "plantloop-cache"
    path.mkdir(exist_ok=True)
    return path


def _failed(audit) -> dict[str, str]:
    return {f.check: f.detail for f in audit.findings if not f.ok}


def test_the_migrated_tasks_pass_every_check() -> None:
    result = CliRunner().invoke(app, ["audit", "MOT-E01", "MOT-E02", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["passed"] is True
    assert [t["id"] for t in report["tasks"]] == ["MOT-E01", "MOT-E02"]
    for task in report["tasks"]:
        assert [f["check"] for f in task["findings"]] == list(CHECKS)
        assert all(f["ok"] for f in task["findings"])


def test_text_only_ranges_fail_with_a_clear_finding(cache_dir) -> None:
    text_only = dataclasses.replace(MOT_E01, ranges=(), published=("Scripted event times 0.5-38 s.",))
    audit = audit_task(text_only, cache_dir=cache_dir)
    assert not audit.passed
    assert _failed(audit) == {"ranges": TEXT_ONLY}


def test_each_broken_bar_is_named(cache_dir) -> None:
    c1 = dataclasses.replace(MOT_E02.conditions[0], params={**MOT_E02.conditions[0].params, "pickup_ms": 80.0,
                                                            "mystery": 1.0})
    broken = dataclasses.replace(MOT_E02, conditions=(c1, *MOT_E02.conditions[1:]),
                                 safety=MOT_E02.safety[1:], deadlines=("no_such_window",))
    failed = _failed(audit_task(broken, cache_dir=cache_dir))
    assert set(failed) == {"declaration", "safety text", "ranges"}
    assert "no_such_window" in failed["declaration"]
    assert failed["safety text"] == "judged but not in the text: S-BOTHDIR"
    assert "C1: pickup_ms = 80 is outside the published 20-60 ms" in failed["ranges"]
    assert "C1: parameter mystery = 1.0 has no published range" in failed["ranges"]


def test_a_reference_without_margin_fails_the_margin_check(cache_dir) -> None:
    # The reference shows motion 0.6-0.65 s after a reversal request (0.5 s dead time): a 0.65 s
    # window passes, 0.65 / 1.15 does not.
    task = dataclasses.replace(MOT_E02, judge={**MOT_E02.judge, "request_window_s": 0.65})
    failed = _failed(audit_task(task, cache_dir=cache_dir))
    assert "margin" in failed and "reference" not in failed


def test_tightening_shrinks_deadlines_and_t_unless_the_task_runs_to_t() -> None:
    e01, e02 = tightened(MOT_E01), tightened(MOT_E02)
    assert e01.judge["checkpoint_delay_s"] == pytest.approx(0.30 / 1.15)
    assert [e01.time_limit(c) for c in e01.conditions] == [40.0] * 4
    assert e02.judge["request_window_s"] == pytest.approx(1.2 / 1.15)
    assert [e02.time_limit(c) for c in e02.conditions] == [34.78, 26.09, 43.48, 34.78]


def test_selection_and_usage_errors() -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["audit", "MOT-X99"]).exit_code == 2
    result = runner.invoke(app, ["audit", "MOT-E01", "--level", "hard"])
    assert result.exit_code == 1 and "0 of 0 tasks" in result.output


def test_range_findings_name_unbounded_event_quantities() -> None:
    from plants.tasks.spec import Condition, Event

    cond = Condition("X", {"pickup_ms": 40.0}, (Event(1.0, "press", "START"), Event(2.0, "jam", "belt", 3.0),
                                                Event(50.0, "press", "STOP", 0.1)))
    assert MOT_E01.range_findings((cond,)) == [
        "X: event_t_s = 50 is outside the published 0.5-38 s",
        "X: press_s = 0.1 is outside the published 0.2-1 s",
        "X: no published range bounds the duration of jam events (t = 2 s)",
    ]
