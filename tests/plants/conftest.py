"""Fixtures shared by the task tests (tests/plants/test_<task>.py).

A task test module declares `TASK`, `REFERENCE` and `_verify` (see `taskkit.task_verifier`);
`reference_run`, `idle_run` and `replay_run` verify that module's reference, idle baseline
and blind replay of condition 1 once per module.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from verifier.baselines import idle_program, record_outputs, replay_program
from verifier.verify import Verification


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One compile cache for the whole session, so a program compiles once."""
    path = tmp_path_factory.getbasetemp() / "plantloop-cache"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture(scope="module")
def reference_run(request: pytest.FixtureRequest, cache_dir: Path) -> Verification:
    """The verification of the test module's reference program."""
    return request.module._verify(request.module.REFERENCE, cache_dir)


@pytest.fixture(scope="module")
def idle_run(request: pytest.FixtureRequest, cache_dir: Path) -> Verification:
    """The verification of the idle baseline of the test module's task."""
    return request.module._verify(idle_program(request.module.TASK), cache_dir)


@pytest.fixture(scope="module")
def recorded_outputs(request: pytest.FixtureRequest, cache_dir: Path) -> np.ndarray:
    """The output image, scan by scan, of the module's reference in condition 1."""
    return record_outputs(request.module.TASK, request.module.REFERENCE, 0, cache_dir=cache_dir)


@pytest.fixture(scope="module")
def replay_run(request: pytest.FixtureRequest, recorded_outputs: np.ndarray,
               cache_dir: Path) -> Verification:
    """The verification of the blind replay of `recorded_outputs` in every condition."""
    return request.module._verify(replay_program(request.module.TASK, recorded_outputs), cache_dir)
