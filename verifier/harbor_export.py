"""Export the benchmark as Harbor datasets: one per level, plus a `registry.json`.

Layout (validated against harbor 0.26.0, see docs/harbor.md):

    OUT/registry.json                      datasets plantloop-easy|medium|hard
    OUT/plantloop-<level>/<TASK-ID>/
        task.toml                          [task] name plantloop/<TASK-ID>, metadata, timeouts,
                                           artifacts = ["/app/program.st"], separate verifier
        instruction.md                     the rendered task text + the submission contract
        environment/Dockerfile             the agent's environment (no compiler, no simulator)
        tests/Dockerfile, test.sh          the verifier image: plantloop from a source archive
        tests/requirements.txt, *.tar.gz   made at export time, pinned dependencies
        tests/reference.st                 warms the kernel cache at image build time
        solution/solve.sh, program.st      the oracle: copies the reference to /app/program.st

Task directories are named by the plantloop task id, so a Harbor trial's `task_name`
(`plantloop/MOT-E01`) maps back to the task without a lookup table.
"""

from __future__ import annotations

import gzip
import io
import json
import shutil
import sys
import tarfile
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from plants.tasks.render import render_markdown
from plants.tasks.spec import LEVELS, TASK_ID, TaskSpec
from verifier import harbor_templates as tpl
from verifier.cmd_tasks import reference_path

HARBOR_VERSION = "0.26.0"  # the harbor release the export is linted against
ORG = "plantloop"
PROGRAM_PATH = "/app/program.st"
LEVEL_NAMES = tuple(LEVELS.values())  # easy, medium, hard
AGENT_TIMEOUT_S = {"easy": 1800.0, "medium": 3600.0, "hard": 5400.0}
VERIFIER_TIMEOUT_S = 600.0  # harbor's limit on test.sh; test.sh stops plantloop 60 s earlier
VERIFY_TIMEOUT_S = 540
PACKAGES = ("stc", "plants", "verifier")
PROJECT_FILES = ("pyproject.toml", "README.md")
SKIPPED_PARTS = {"__pycache__", ".pytest_cache", ".ruff_cache"}


class ExportError(Exception):
    """The export cannot be made (no source tree to package, unknown level ...)."""


@dataclass(frozen=True)
class Package:
    """What every task's verifier image installs: the source archive and pinned dependencies."""

    version: str
    archive_name: str
    archive: bytes
    requirements: str


def dataset_name(level: str) -> str:
    return f"{ORG}-{level}"


def task_name(task: TaskSpec) -> str:
    return f"{ORG}/{task.id}"


def project_root() -> Path:
    """The source checkout this plantloop runs from (needed to package it)."""
    root = Path(__file__).resolve().parents[1]
    if not all((root / name).exists() for name in (*PROJECT_FILES, *PACKAGES)):
        raise ExportError(f"no plantloop source tree at {root}: harbor-export packages the "
                          "checkout it runs from (install it editable)")
    return root


def _source_files(root: Path) -> list[Path]:
    files = [root / name for name in PROJECT_FILES]
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*")):
            rel = path.relative_to(root)
            if path.is_file() and not SKIPPED_PARTS.intersection(rel.parts) and path.suffix != ".pyc":
                files.append(path)
    return files


def source_archive(root: Path, version: str) -> tuple[str, bytes]:
    """A byte-for-byte reproducible sdist-like `.tar.gz` of the package sources, which pip
    builds in the verifier image (no wheel tooling needed at export time)."""
    top = f"plantloop-{version}"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in _source_files(root):
            data = path.read_bytes()
            info = tarfile.TarInfo(f"{top}/{path.relative_to(root).as_posix()}")
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    packed = io.BytesIO()
    with gzip.GzipFile(fileobj=packed, mode="wb", mtime=0) as gz:
        gz.write(raw.getvalue())
    return f"{top}.tar.gz", packed.getvalue()


def pinned_requirements(root: Path) -> str:
    """`name==version` for every installed distribution plantloop needs, transitively.

    The roots are pyproject.toml's dependencies (the installed metadata of an editable
    install can be stale); markers are evaluated for this interpreter, which is why the
    verifier image uses this machine's Python minor version (on Linux, like this machine)."""
    from packaging.requirements import Requirement

    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    seen: dict[str, str] = {}
    todo = [Requirement(r) for r in project.get("dependencies", [])]
    while todo:
        req = todo.pop()
        key = req.name.lower().replace("_", "-")
        if key in seen or (req.marker is not None and not req.marker.evaluate({"extra": ""})):
            continue
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError as exc:
            raise ExportError(f"dependency {req.name} is not installed: cannot pin it") from exc
        seen[key] = f"{dist.metadata['Name']}=={dist.version}"
        todo.extend(Requirement(r) for r in dist.requires or [])
    return "".join(f"{line}\n" for _, line in sorted(seen.items()))


def build_package() -> Package:
    root = project_root()
    version = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    name, archive = source_archive(root, version)
    return Package(version, name, archive, pinned_requirements(root))


def _toml_str(value: str) -> str:
    """A TOML basic string (JSON string escapes are valid TOML escapes)."""
    return json.dumps(value)


def task_toml(task: TaskSpec, version: str) -> str:
    keywords = ["plc", "iec-61131-3", "structured-text", task.suite.lower(), task.level]
    lines = [
        'schema_version = "1.4"',
        f"artifacts = [{_toml_str(PROGRAM_PATH)}]",
        "",
        "[task]",
        f"name = {_toml_str(task_name(task))}",
        f"description = {_toml_str(f'{task.id}: {task.title}')}",
        f"keywords = [{', '.join(_toml_str(k) for k in keywords)}]",
        "",
        "[metadata]",
        f"task_id = {_toml_str(task.id)}",
        f"suite = {_toml_str(task.suite)}",
        f"level = {_toml_str(task.level)}",
        f"conditions = {len(task.conditions)}",
        f"title = {_toml_str(task.title)}",
        f"plantloop_version = {_toml_str(version)}",
        "",
        "[verifier]",
        f"timeout_sec = {VERIFIER_TIMEOUT_S}",
        'environment_mode = "separate"',
        "",
        "[verifier.environment]",
        "build_timeout_sec = 1800.0",
        "cpus = 1",
        "memory_mb = 2048",
        "",
        "[agent]",
        f"timeout_sec = {AGENT_TIMEOUT_S[task.level]}",
        "",
        "[environment]",
        "build_timeout_sec = 600.0",
        "cpus = 1",
        "memory_mb = 2048",
    ]
    return "\n".join(lines) + "\n"


def _fill(template: str, **values: str) -> str:
    for key, value in values.items():
        template = template.replace(f"@{key}@", value)
    return template


def instruction(task: TaskSpec) -> str:
    return render_markdown(task) + "\n" + _fill(tpl.SUBMISSION, TASK_ID=task.id)


def _write(path: Path, text: str | bytes, executable: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    path.chmod(0o755 if executable else 0o644)


def export_task(task: TaskSpec, task_dir: Path, package: Package) -> None:
    """Write one Harbor task directory."""
    if not TASK_ID.match(task.id):  # the id is substituted into scripts: only ever a plain id
        raise ExportError(f"task id {task.id!r} is not of the form MOT-E01")
    values = dict(TASK_ID=task.id, VERSION=package.version, ARCHIVE=package.archive_name,
                  PYTHON=f"{sys.version_info.major}.{sys.version_info.minor}",
                  VERIFY_TIMEOUT=str(VERIFY_TIMEOUT_S))
    reference = reference_path(task).read_bytes()
    _write(task_dir / "task.toml", task_toml(task, package.version))
    _write(task_dir / "instruction.md", instruction(task))
    _write(task_dir / "environment" / "Dockerfile", _fill(tpl.AGENT_DOCKERFILE, **values))
    tests = task_dir / "tests"
    _write(tests / "Dockerfile", _fill(tpl.VERIFIER_DOCKERFILE, **values))
    _write(tests / "test.sh", _fill(tpl.TEST_SH, **values), executable=True)
    _write(tests / "requirements.txt", package.requirements)
    _write(tests / package.archive_name, package.archive)
    _write(tests / "reference.st", reference)
    _write(task_dir / "solution" / "solve.sh", _fill(tpl.SOLVE_SH, **values), executable=True)
    _write(task_dir / "solution" / "program.st", reference)


def registry_entry(level: str, tasks: Iterable[TaskSpec], version: str) -> dict:
    """One dataset of `registry.json` (harbor.models.registry.DatasetSpec); task paths are
    relative to the registry's directory."""
    return {
        "name": dataset_name(level),
        "version": version,
        "description": f"plantloop {level} tasks: IEC 61131-3 Structured Text programs verified "
                       "in closed loop against simulated plants",
        "tasks": [{"name": task_name(t), "path": f"{dataset_name(level)}/{t.id}"} for t in tasks],
        "metrics": [],
    }


def _merged_registry(path: Path, fresh: list[dict]) -> list[dict]:
    """Keep the datasets of an earlier export (e.g. another --level) that were not redone."""
    names = {d["name"] for d in fresh}
    kept: list[dict] = []
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            old = []
        if isinstance(old, list):
            kept = [d for d in old if isinstance(d, dict) and d.get("name") not in names]
    order = {dataset_name(level): i for i, level in enumerate(LEVEL_NAMES)}
    return sorted(kept + fresh, key=lambda d: (order.get(d.get("name"), 99), str(d.get("name"))))


def export(out: Path, tasks: Iterable[TaskSpec], levels: Iterable[str] | None = None) -> dict[str, list[Path]]:
    """Export `tasks` grouped by level (only `levels`, default all); returns the task
    directories written per dataset name. An exported dataset directory is replaced whole."""
    wanted = list(levels) if levels is not None else list(LEVEL_NAMES)
    unknown = [level for level in wanted if level not in LEVEL_NAMES]
    if unknown:
        raise ExportError(f"unknown level(s) {unknown}; choose from {', '.join(LEVEL_NAMES)}")
    package = build_package()
    every = list(tasks)
    by_level = {level: [t for t in every if t.level == level] for level in wanted}
    written: dict[str, list[Path]] = {}
    entries = []
    for level, level_tasks in by_level.items():
        dataset_dir = out / dataset_name(level)
        if dataset_dir.exists():
            shutil.rmtree(dataset_dir)
        dataset_dir.mkdir(parents=True)
        written[dataset_name(level)] = []
        for task in level_tasks:
            export_task(task, dataset_dir / task.id, package)
            written[dataset_name(level)].append(dataset_dir / task.id)
        entries.append(registry_entry(level, level_tasks, package.version))
    registry = out / "registry.json"
    _write(registry, json.dumps(_merged_registry(registry, entries), indent=2) + "\n")
    return written
