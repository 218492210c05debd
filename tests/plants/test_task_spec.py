"""The task declaration and its rendering: one source of truth for text and verifier."""

from __future__ import annotations

from plants.tasks.render import render_markdown
from plants.tasks.spec import Condition, Event, SafetyRule, Signal, TaskSpec


def _task(**overrides) -> TaskSpec:
    values = dict(
        id="MOT-E99",
        title="Test drive",
        devices=("D01 operator panel", "D03 DOL starter + motor"),
        io=(
            Signal("%IX0.0", "START", "BOOL", "NO push-button, TRUE while pressed"),
            Signal("%IX0.1", "STOP_NC", "BOOL", "stop button, NC"),
            Signal("%QX0.0", "K1", "BOOL", "contactor coil"),
            Signal("%IW140", "SPEED", "INT", "motor speed", "0.1 %"),
        ),
        spec=("A START edge energises K1.", "STOP_NC = FALSE drops K1 in the same scan."),
        completion="K1 follows the state machine at every checkpoint.",
        time_limit_s=40.0,
        safety=(SafetyRule("S-STOPPB", "K1 is TRUE in a tick whose input has STOP_NC = FALSE."),),
        published=("event times 0.5-38 s", "pick-up 20-60 ms (secret_value_xyz never shown)"),
        conditions=(
            Condition("C1", {"pickup_s": 0.020, "secret": 123.456}, (Event(1.0, "press", "START"),)),
            Condition("C2", {"pickup_s": 0.040}, ()),
        ),
        plant="plants.tasks.mot_e99.plant",
        reference="reference.st",
    )
    values.update(overrides)
    return TaskSpec(**values)


def test_suite_and_level_come_from_the_id() -> None:
    task = _task()
    assert (task.suite, task.level) == ("MOT", "easy")
    assert _task(id="MAT-H03").level == "hard"


def test_a_sound_declaration_has_no_findings() -> None:
    assert _task().validate() == []


def test_declaration_findings() -> None:
    bad = _task(
        id="MOT-X1",
        io=(
            Signal("%IX0.0", "A", "BOOL", ""),
            Signal("%IX0.0", "B", "BOOL", ""),
            Signal("%QW3", "a", "BOOL", ""),
            Signal("%QZ1", "C", "BOOL", ""),
        ),
        conditions=(),
    )
    problems = "\n".join(bad.validate())
    assert "MOT-X1" in problems
    assert "%IX0.0 is used twice" in problems
    assert "signal name a is used twice" in problems
    assert "type BOOL does not fit address %QW3" in problems
    assert "'%QZ1'" in problems
    assert "no conditions" in problems


def test_rendered_text_holds_every_rule_and_no_condition_value() -> None:
    task = _task()
    text = render_markdown(task)
    for s in task.io:
        assert f"`{s.address}`" in text and f"`{s.name}`" in text
    for rule in task.safety:
        assert rule.code in text and rule.text in text
    for item in task.spec + task.published:
        assert item in text
    assert "40 s" in text and "10 ms" in text
    assert "123.456" not in text and "0.02" not in text
    assert "2 test conditions" in text


def test_per_condition_time_limits_render_as_a_range() -> None:
    base = _task()
    conditions = (
        Condition("C1", {}, (), time_limit_s=35.0),
        Condition("C2", {}, (), time_limit_s=80.0),
    )
    text = render_markdown(_task(conditions=conditions, time_limit_s=80.0))
    assert "between **35 s** and **80 s**" in text
    assert "**40 s** of plant time per condition" in render_markdown(base)
