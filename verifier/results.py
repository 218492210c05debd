"""The result JSON of one program on one task (DESIGN.md section 4, docs/results.md).

Builders are small dataclasses so the kernel and the bulk runner cannot forget a field;
`build_result` derives `reward` so it can never disagree with the condition verdicts.
Every file is validated against verifier/schemas/result.schema.json on write and on load, and written
atomically so a killed bulk run never leaves a half-written result that looks finished.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any, Literal

from verifier import __version__
from verifier.trials import suite_and_level

SCHEMA_ID = "plantloop.result/1"
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "result.schema.json"

JobErrorKind = Literal["crash", "timeout", "memory", "internal"]


class ResultError(ValueError):
    """A result file that cannot be read or does not follow the schema."""


@dataclass(frozen=True, slots=True)
class Violation:
    """The first safety violation of a condition (an S-code of TASKS/00_conventions.md)."""

    code: str
    message: str
    time_s: float

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "time_s": self.time_s}


@dataclass(frozen=True, slots=True)
class RuntimeErrorRecord:
    """The runtime error record of ST_LANGUAGE.md section 12."""

    code: str
    message: str
    pou: str
    line: int
    column: int
    scan: int
    time_ms: int
    snapshot: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "kind": "runtime_error",
            "code": self.code,
            "message": self.message,
            "pou": self.pou,
            "line": self.line,
            "column": self.column,
            "scan": self.scan,
            "time_ms": self.time_ms,
        }
        if self.snapshot is not None:
            d["snapshot"] = self.snapshot
        return d


@dataclass(frozen=True, slots=True)
class ConditionResult:
    """Verdicts of one condition run."""

    name: str
    success: bool
    ticks: int
    success_time_s: float | None = None
    parameters: dict[str, Any] = field(default_factory=dict)
    violation: Violation | None = None
    runtime_error: RuntimeErrorRecord | None = None
    reason: str | None = None  # why it failed, in words; None when it passed

    @property
    def passed(self) -> bool:
        return self.success and self.violation is None and self.runtime_error is None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "parameters": self.parameters,
            "success": self.success,
            "success_time_s": self.success_time_s,
            "safety": {
                "ok": self.violation is None,
                "first_violation": self.violation.to_json() if self.violation else None,
            },
            "runtime_error": self.runtime_error.to_json() if self.runtime_error else None,
            "ticks": self.ticks,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class JobError:
    """Why a job produced no verdict: the worker crashed or hit its time or memory limit."""

    kind: JobErrorKind
    message: str
    seconds: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "seconds": self.seconds}


def reward_of(compile_ok: bool, conditions: list[dict[str, Any]], error: object) -> int:
    """1 iff the job ran, the program compiled and every condition passed."""
    ok = error is None and compile_ok and len(conditions) > 0
    return int(
        ok
        and all(
            c["success"] and c["safety"]["ok"] and c["runtime_error"] is None for c in conditions
        )
    )


def build_result(
    *,
    task_id: str,
    program_path: str,
    program_bytes: bytes,
    compile_seconds: float,
    diagnostics: list[dict[str, Any]] | None = None,
    conditions: list[ConditionResult] | None = None,
    error: JobError | None = None,
    evaluator_version: str = __version__,
) -> dict[str, Any]:
    """The result object; `diagnostics` are `stc.Diagnostic.to_json()` dicts."""
    suite, level = suite_and_level(task_id)
    diags = list(diagnostics or [])
    conds = [c.to_json() for c in conditions or []]
    compile_ok = not any(d["severity"] == "error" for d in diags)
    return {
        "schema": SCHEMA_ID,
        "evaluator": {"name": "plantloop", "version": evaluator_version},
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "task": {"id": task_id, "suite": suite, "level": level},
        "program": {"path": program_path, "sha256": hashlib.sha256(program_bytes).hexdigest()},
        "compile": {"ok": compile_ok, "seconds": compile_seconds, "diagnostics": diags},
        "conditions": conds,
        "reward": reward_of(compile_ok, conds, error),
        "error": error.to_json() if error else None,
    }


@cache
def _validator():
    from jsonschema import Draft202012Validator

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def validate_result(obj: object) -> None:
    """Raise ResultError unless `obj` follows the schema and its reward matches its verdicts."""
    errors = sorted(_validator().iter_errors(obj), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        raise ResultError(f"{where}: {e.message}")
    assert isinstance(obj, dict)
    expected = reward_of(obj["compile"]["ok"], obj["conditions"], obj["error"])
    if obj["reward"] != expected:
        raise ResultError(f"reward is {obj['reward']} but the verdicts give {expected}")
    task = obj["task"]
    if (task["suite"], task["level"]) != suite_and_level(task["id"]):
        raise ResultError(f"task suite/level do not match the id {task['id']}")


def write_result_atomic(path: str | os.PathLike[str], obj: dict[str, Any]) -> None:
    """Validate, then write via a temp file in the same directory and `os.replace`.

    Readers (and a resumed bulk run) therefore see either no file or a complete one.
    """
    validate_result(obj)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=2, allow_nan=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_result(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and validate one result file; ResultError says what is wrong."""
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ResultError(f"cannot read: {exc.strerror}") from None
    except ValueError as exc:
        raise ResultError(f"not JSON: {exc}") from None
    validate_result(obj)
    return obj
