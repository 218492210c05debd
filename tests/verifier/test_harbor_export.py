"""`plantloop harbor-export`: task directories, registry, the verifier script and `harbor lint`.

The lint test builds a Python 3.12 venv with the pinned harbor in a cache directory (reused
when present); it is skipped, loudly, only on a machine without any pyenv Python 3.12.
"""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import tarfile
import tomllib
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from plants.tasks.registry import all_tasks, get_task
from plants.tasks.render import render_markdown
from verifier.cli import app
from verifier.cmd_tasks import reference_path
from verifier.harbor_export import (
    HARBOR_VERSION,
    build_package,
    export,
    export_task,
    pinned_requirements,
    project_root,
    source_archive,
)

HARBOR_VENV = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "plantloop" / f"harbor-{HARBOR_VERSION}"


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("harbor")
    export(out, all_tasks().values())
    return out


def _task_dirs(out: Path) -> list[Path]:
    return sorted(p.parent for p in out.glob("plantloop-*/*/task.toml"))


def test_every_task_is_exported_once_with_a_consistent_task_toml(exported) -> None:
    dirs = _task_dirs(exported)
    assert sorted(d.name for d in dirs) == sorted(all_tasks())
    names = set()
    for d in dirs:
        task = get_task(d.name)
        config = tomllib.loads((d / "task.toml").read_text())
        assert config["task"]["name"] == f"plantloop/{d.name}"  # short name == directory name
        names.add(config["task"]["name"])
        assert d.parent.name == f"plantloop-{task.level}"
        meta = config["metadata"]
        assert (meta["suite"], meta["level"], meta["conditions"]) == (task.suite, task.level,
                                                                      len(task.conditions))
        assert config["artifacts"] == ["/app/program.st"]
        assert config["verifier"]["environment_mode"] == "separate"
        assert config["verifier"]["timeout_sec"] > 60 and config["agent"]["timeout_sec"] >= 1800
        text = (d / "instruction.md").read_text()
        assert text.startswith(render_markdown(task)) and "/app/program.st" in text
        assert "no PLC compiler" in text
        reference = reference_path(task).read_bytes()
        assert (d / "solution" / "program.st").read_bytes() == reference
        assert (d / "tests" / "reference.st").read_bytes() == reference
        for script in ("solution/solve.sh", "tests/test.sh"):
            assert (d / script).stat().st_mode & stat.S_IXUSR
        assert f"--task {task.id}" in (d / "tests" / "test.sh").read_text()
        agent_image = (d / "environment" / "Dockerfile").read_text()
        assert "COPY" not in agent_image and "plantloop" not in agent_image.split("\n", 2)[-1]
    assert len(names) == len(dirs)


def test_registry_lists_one_dataset_per_level_with_existing_task_paths(exported) -> None:
    registry = json.loads((exported / "registry.json").read_text())
    assert [d["name"] for d in registry] == ["plantloop-easy", "plantloop-medium", "plantloop-hard"]
    listed = []
    for dataset in registry:
        for entry in dataset["tasks"]:
            assert (exported / entry["path"] / "task.toml").is_file()
            assert entry["name"] == "plantloop/" + Path(entry["path"]).name
            listed.append(Path(entry["path"]).name)
    assert sorted(listed) == sorted(all_tasks())


def test_exporting_one_level_keeps_the_other_datasets_in_the_registry(tmp_path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["harbor-export", str(tmp_path)]).exit_code == 0
    result = runner.invoke(app, ["harbor-export", str(tmp_path), "--level", "hard"])
    assert result.exit_code == 0, result.output
    registry = json.loads((tmp_path / "registry.json").read_text())
    assert [d["name"] for d in registry] == ["plantloop-easy", "plantloop-medium", "plantloop-hard"]
    assert runner.invoke(app, ["harbor-export", str(tmp_path), "--level", "extreme"]).exit_code == 2


def test_source_archive_is_reproducible_and_holds_the_package_sources() -> None:
    root = project_root()
    name, first = source_archive(root, "9.9")
    assert name == "plantloop-9.9.tar.gz" and source_archive(root, "9.9")[1] == first
    with tarfile.open(fileobj=io.BytesIO(first)) as tar:
        members = set(tar.getnames())
    assert {"plantloop-9.9/pyproject.toml", "plantloop-9.9/README.md",
            "plantloop-9.9/plants/tasks/mot_e01/reference.st",
            "plantloop-9.9/verifier/cli.py"} <= members
    assert any(m.endswith(".tx") for m in members)
    assert not any("__pycache__" in m or m.endswith(".pyc") for m in members)


def test_requirements_pin_the_installed_dependency_closure() -> None:
    from importlib import metadata

    lines = pinned_requirements(project_root()).splitlines()
    pins = dict(line.split("==") for line in lines)
    assert {"numba", "numpy", "llvmlite", "textX", "Arpeggio", "typer", "rich", "jsonschema"} <= set(pins)
    assert all(metadata.version(name) == version for name, version in pins.items())


# -------------------------------------------------------------- the verifier script


@pytest.fixture(scope="module")
def mot_e01(tmp_path_factory) -> Path:
    task_dir = tmp_path_factory.mktemp("task") / "MOT-E01"
    export_task(get_task("MOT-E01"), task_dir, build_package())
    return task_dir


def _plantloop_command(directory: Path) -> Path:
    """An executable running this checkout's plantloop with this interpreter."""
    path = directory / "plantloop"
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" -c "import sys; from verifier.cli import main; '
                    f'sys.argv[0] = \'plantloop\'; main()" "$@"\n')
    path.chmod(0o755)
    return path


def _run_test_sh(task_dir: Path, logs: Path, program: Path, command: Path, **env: str):
    env = {**os.environ, "PLANTLOOP_PROGRAM": str(program), "PLANTLOOP_VERIFIER_DIR": str(logs),
           "PLANTLOOP_BIN": str(command), **env}
    return subprocess.run(["bash", str(task_dir / "tests" / "test.sh")], env=env, capture_output=True,
                          text=True, timeout=300)


def _reward(logs: Path) -> dict:
    return json.loads((logs / "reward.json").read_text())


@pytest.mark.slow
def test_test_sh_writes_reward_1_for_the_reference_and_0_for_a_wrong_program(mot_e01, tmp_path) -> None:
    command = _plantloop_command(tmp_path)
    good = _run_test_sh(mot_e01, tmp_path / "good", mot_e01 / "solution" / "program.st", command)
    assert good.returncode == 0, good.stdout + good.stderr
    assert _reward(tmp_path / "good") == {"reward": 1}
    assert json.loads((tmp_path / "good" / "result.json").read_text())["reward"] == 1

    idle = tmp_path / "idle.st"
    idle.write_text("PROGRAM P\nVAR\n  run AT %QX0.0 : BOOL;\nEND_VAR\nrun := FALSE;\nEND_PROGRAM\n")
    bad = _run_test_sh(mot_e01, tmp_path / "bad", idle, command)
    assert bad.returncode == 0, bad.stdout + bad.stderr
    assert _reward(tmp_path / "bad") == {"reward": 0}
    assert json.loads((tmp_path / "bad" / "result.json").read_text())["reward"] == 0


def test_test_sh_scores_a_missing_program_0_and_a_slow_verification_0(mot_e01, tmp_path) -> None:
    missing = _run_test_sh(mot_e01, tmp_path / "missing", tmp_path / "nothing.st", Path("/bin/false"))
    assert missing.returncode == 0 and _reward(tmp_path / "missing") == {"reward": 0}
    assert not (tmp_path / "missing" / "result.json").exists()

    program = tmp_path / "p.st"
    program.write_text("PROGRAM P\nEND_PROGRAM\n")
    sleeper = tmp_path / "sleeper"
    sleeper.write_text("#!/bin/sh\nsleep 5\n")
    sleeper.chmod(0o755)
    slow = _run_test_sh(mot_e01, tmp_path / "slow", program, sleeper, PLANTLOOP_VERIFY_TIMEOUT="0.2")
    assert slow.returncode == 0 and _reward(tmp_path / "slow") == {"reward": 0}


def test_test_sh_writes_no_reward_when_the_verifier_itself_fails(mot_e01, tmp_path) -> None:
    program = tmp_path / "p.st"
    program.write_text("PROGRAM P\nEND_PROGRAM\n")
    crashed = _run_test_sh(mot_e01, tmp_path / "logs", program, Path("/bin/false"))
    assert crashed.returncode != 0 and "verifier error" in crashed.stdout
    assert not (tmp_path / "logs" / "reward.json").exists()


# -------------------------------------------------------------- harbor lint


def _python_312() -> Path | None:
    found = sorted(Path.home().glob(".pyenv/versions/3.12.*/bin/python"))
    return found[-1] if found else None


def _harbor_venv() -> Path | None:
    """The cached venv with the pinned harbor, built on first use."""
    harbor = HARBOR_VENV / "bin" / "harbor"
    if harbor.exists():
        return HARBOR_VENV
    python = _python_312()
    if python is None:
        return None
    subprocess.run([str(python), "-m", "venv", "--clear", str(HARBOR_VENV)], check=True, timeout=300)
    subprocess.run([str(HARBOR_VENV / "bin" / "pip"), "install", "-q", f"harbor=={HARBOR_VERSION}"],
                   check=True, timeout=900)
    return HARBOR_VENV


CHECK_WITH_HARBOR = """\
import sys
from pathlib import Path
from harbor.models.registry import Registry
from harbor.models.task.task import Task
from harbor.models.task.verifier_mode import resolve_verifier_environment_definition

for d in map(Path, sys.argv[2:]):
    task = Task(d)
    verifier = resolve_verifier_environment_definition(task.config, task.paths)
    assert verifier is not None and verifier.bundled_tests and verifier.directory.name == "tests", d
    assert task.short_name == d.name and task.config.artifacts == ["/app/program.st"], d
registry = Registry.from_path(Path(sys.argv[1]))
print(sum(len(d.tasks) for d in registry.datasets))
"""


@pytest.mark.slow
def test_harbor_lint_passes_on_every_exported_task(exported) -> None:
    venv = _harbor_venv()
    if venv is None:
        message = ("NO PYTHON 3.12 (~/.pyenv/versions/3.12.*): `harbor lint` was NOT run on the "
                   "exported tasks")
        warnings.warn(message, stacklevel=1)
        pytest.skip(message)
    dirs = [str(d) for d in _task_dirs(exported)]
    lint = subprocess.run([str(venv / "bin" / "harbor"), "lint", *dirs], capture_output=True,
                          text=True, timeout=600)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    loaded = subprocess.run([str(venv / "bin" / "python"), "-c", CHECK_WITH_HARBOR,
                             str(exported / "registry.json"), *dirs], capture_output=True, text=True,
                            timeout=600, cwd=exported)
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    assert int(loaded.stdout.strip()) == len(dirs)
