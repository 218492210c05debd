"""Condition files: conditions outside a task's fixed set, as JSON (docs/cli.md).

`plantloop fuzz` writes its counterexample as one; `plantloop verify --condition-file FILE`
replays it. The file is data only (validated by a JSON schema, never executed):

    {"format": "plantloop.condition/1", "task": "MOT-E02",
     "conditions": [{"name": "counterexample", "params": {...}, "time_limit_s": 30.0,
                     "note": "...", "script": [{"t": 1.0, "kind": "press", "target": "FWD",
                                                "duration": 0.3, "args": {}}]}]}
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from plants.tasks.spec import Condition, Event, TaskSpec
from verifier.kernel import plant_module

FORMAT = "plantloop.condition/1"

_EVENT = {
    "type": "object",
    "required": ["t", "kind"],
    "additionalProperties": False,
    "properties": {
        "t": {"type": "number", "minimum": 0},
        "kind": {"type": "string", "minLength": 1},
        "target": {"type": "string"},
        "duration": {"type": "number", "minimum": 0},
        "args": {"type": "object"},
    },
}
SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["format", "task", "conditions"],
    "additionalProperties": False,
    "properties": {
        "format": {"const": FORMAT},
        "task": {"type": "string", "pattern": "^(MOT|MAT)-[EMH][0-9]{2}$"},
        "conditions": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "params", "script"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "params": {"type": "object"},
                    "script": {"type": "array", "items": _EVENT},
                    "note": {"type": "string"},
                    "time_limit_s": {"type": ["number", "null"], "exclusiveMinimum": 0},
                },
            },
        },
    },
}


class ConditionFileError(ValueError):
    """A condition file that cannot be read or does not follow the format."""


@cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(SCHEMA)


def condition_to_json(condition: Condition) -> dict[str, Any]:
    return {
        "name": condition.name,
        "params": dict(condition.params),
        "time_limit_s": condition.time_limit_s,
        "note": condition.note,
        "script": [{"t": ev.t, "kind": ev.kind, "target": ev.target, "duration": ev.duration,
                    "args": dict(ev.args)} for ev in condition.script],
    }


def _condition(obj: dict[str, Any]) -> Condition:
    script = tuple(Event(float(e["t"]), e["kind"], e.get("target", ""), float(e.get("duration", 0.0)),
                         tuple(e.get("args", {}).items())) for e in obj["script"])
    return Condition(obj["name"], dict(obj["params"]), script, obj.get("note", ""), obj.get("time_limit_s"))


def dump_conditions(task_id: str, conditions: tuple[Condition, ...] | list[Condition]) -> dict[str, Any]:
    """The JSON object of a condition file."""
    obj = {"format": FORMAT, "task": task_id, "conditions": [condition_to_json(c) for c in conditions]}
    _validator().validate(obj)
    return obj


def write_condition_file(path: Path, task_id: str, conditions: tuple[Condition, ...] | list[Condition]) -> None:
    """Write atomically (temp file + rename)."""
    text = json.dumps(dump_conditions(task_id, conditions), indent=2) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def load_condition_file(path: Path) -> tuple[str, tuple[Condition, ...]]:
    """(task id, conditions) of a condition file; ConditionFileError when unreadable or invalid."""
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConditionFileError(f"{path}: cannot read a condition file: {exc}") from None
    errors = sorted(_validator().iter_errors(obj), key=lambda e: list(e.absolute_path))
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "(top)"
        raise ConditionFileError(f"{path}: not a condition file: {where}: {errors[0].message}")
    names = [c["name"] for c in obj["conditions"]]
    if len(set(names)) != len(names):
        raise ConditionFileError(f"{path}: condition names are not unique")
    return obj["task"], tuple(_condition(c) for c in obj["conditions"])


def task_with_file_conditions(task: TaskSpec, path: Path) -> TaskSpec:
    """`task` with its conditions replaced by those of the file at `path`. ConditionFileError
    when the file is for another task or its conditions do not fit the task's plant (missing
    parameters, unknown event kinds)."""
    task_id, conditions = load_condition_file(path)
    if task_id != task.id:
        raise ConditionFileError(f"{path}: the conditions are for {task_id}, not {task.id}")
    variant = dataclasses.replace(task, conditions=conditions)
    problems = variant.validate()
    if problems:
        raise ConditionFileError(f"{path}: {'; '.join(problems)}")
    try:
        plant_module(variant).build(variant)
    except (KeyError, ValueError, TypeError, IndexError) as exc:
        raise ConditionFileError(f"{path}: the conditions do not fit the plant of {task.id}: "
                                 f"{type(exc).__name__}: {exc}") from None
    return variant
