"""`plantloop fuzz`: the search space stays inside the published ranges, a subtly wrong program
that passes every catalog condition is caught with a small deterministic budget, the reference
is not flagged with the same budget, and the counterexample file replays the failure."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from typer.testing import CliRunner

from plants.tasks.mot_e01 import TASK as MOT_E01
from plants.tasks.mot_e02 import TASK
from verifier.cli import app
from verifier.condition_file import load_condition_file
from verifier.fuzz import FuzzError, fuzz_source, search_space
from verifier.verify import verify_source

REFERENCE = Path("plants/tasks/mot_e02/reference.st").read_text()
# MOT-E02's author: "a program that starts on the button being held rather than on a press
# passes all four catalog conditions".
HELD = REFERENCE.replace("reqRight := fwdEdge.Q AND NOT REV_PB;", "reqRight := FWD_PB AND NOT REV_PB;") \
                .replace("reqLeft := revEdge.Q AND NOT FWD_PB;", "reqLeft := REV_PB AND NOT FWD_PB;")
BUDGET = dict(examples=30, seed=1)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "plantloop-cache"
    path.mkdir(exist_ok=True)
    return path


@settings(max_examples=60, deadline=None)
@given(search_space(TASK))
def test_generated_conditions_lie_inside_the_published_ranges(condition) -> None:
    assert TASK.range_findings((condition,)) == []
    assert 30.0 <= TASK.time_limit(condition) <= 50.0
    last = condition.script[-1]
    assert last.t >= max(ev.t + ev.duration for ev in condition.script[:-1]) + 0.5 - 1e-9
    assert condition.params["final"] == {"FWD": "END_R", "REV": "END_L"}[last.target]


def test_the_held_button_program_passes_every_catalog_condition(cache_dir) -> None:
    assert HELD != REFERENCE
    assert verify_source(HELD, TASK, "held.st", cache_dir=cache_dir).reward == 1


def test_fuzz_catches_the_held_button_program_and_the_file_replays_it(cache_dir, tmp_path) -> None:
    program = tmp_path / "held.st"
    program.write_text(HELD)
    out = tmp_path / "cx.json"
    runner = CliRunner()
    result = runner.invoke(app, ["fuzz", str(program), "--task", "MOT-E02", "--examples", "30",
                                 "--seed", "1", "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert "counterexample" in result.output
    task_id, (condition,) = load_condition_file(out)
    assert task_id == "MOT-E02" and TASK.range_findings((condition,)) == []
    assert len(condition.script) <= 4  # shrunk
    replay = ["--task", "MOT-E02", "--condition-file", str(out)]
    assert runner.invoke(app, ["verify", str(program), *replay]).exit_code == 1
    assert runner.invoke(app, ["verify", "plants/tasks/mot_e02/reference.st", *replay]).exit_code == 0


def test_the_search_is_deterministic_for_a_seed(cache_dir) -> None:
    first = fuzz_source(HELD, TASK, cache_dir=cache_dir, **BUDGET)
    second = fuzz_source(HELD, TASK, cache_dir=cache_dir, **BUDGET)
    assert first.counterexample is not None and first.counterexample == second.counterexample
    assert not first.verdict.passed


def test_the_reference_is_not_flagged_with_the_same_budget(cache_dir) -> None:
    outcome = fuzz_source(REFERENCE, TASK, cache_dir=cache_dir, **BUDGET)
    assert outcome.counterexample is None
    assert outcome.kernel_calls == BUDGET["examples"] and outcome.conditions_run > outcome.kernel_calls


def test_fuzz_needs_a_search_space_and_a_program_that_binds(cache_dir) -> None:
    with pytest.raises(FuzzError, match="no search space"):
        fuzz_source(REFERENCE, dataclasses.replace(TASK, search=""), cache_dir=cache_dir)
    with pytest.raises(FuzzError, match="does not compile"):
        fuzz_source("PROGRAM P VAR x : INT; END_VAR x := ; END_PROGRAM", TASK, cache_dir=cache_dir)
    assert CliRunner().invoke(app, ["fuzz", "plants/tasks/mot_e01/reference.st", "--task",
                                    "MOT-X99"]).exit_code == 2


E01_REFERENCE = Path("plants/tasks/mot_e01/reference.st").read_text()
E01_RESET_LEVEL = E01_REFERENCE.replace("IF resetEdge.Q AND OL_OK", "IF RESET AND OL_OK")


@settings(max_examples=60, deadline=None)
@given(search_space(MOT_E01))
def test_mot_e01_conditions_lie_inside_the_published_ranges(condition) -> None:
    assert MOT_E01.range_findings((condition,)) == []
    assert sum(ev.kind == "trip" for ev in condition.script) <= 1


def test_fuzz_catches_a_reset_on_the_level_in_mot_e01(cache_dir) -> None:
    """Clearing the fault while RESET is held (not on its edge) passes the four catalog
    conditions; a held RESET during a fault shows it, and the reference passes that condition."""
    assert E01_RESET_LEVEL != E01_REFERENCE
    assert verify_source(E01_RESET_LEVEL, MOT_E01, "m.st", cache_dir=cache_dir).reward == 1
    budget = dict(examples=30, seed=3)
    found = fuzz_source(E01_RESET_LEVEL, MOT_E01, cache_dir=cache_dir, **budget)
    assert found.counterexample is not None and not found.verdict.passed
    replay = dataclasses.replace(MOT_E01, conditions=(found.counterexample,))
    assert verify_source(E01_REFERENCE, replay, "r.st", cache_dir=cache_dir).reward == 1
    assert fuzz_source(E01_REFERENCE, MOT_E01, cache_dir=cache_dir, **budget).counterexample is None
