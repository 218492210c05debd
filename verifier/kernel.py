"""The closed loop (DESIGN.md sections 1, 3, 4): every condition of a task in one njit call.

Per task one kernel is generated from `kernel_source.KERNEL_TEMPLATE` into the compile cache
directory and compiled once with an explicit signature whose first argument is the scan
function typed `SCAN_SIGNATURE` (a first-class function): any program's scan runs in the
same compiled kernel, so per program only the scan compiles. docs/kernel.md has the
measurements behind this choice.

A task's plant module (`TaskSpec.plant`) provides, see docs/tasks.md:
  build(task) -> tuple of numpy arrays   the batch state of every condition (fresh per run)
  sense(plant, c, k, inp)                 plant -> input image (float64, map order)
  advance(plant, c, k, out)               output image -> plant, one 10 ms step
  judge(plant, c, k, inp, out) -> (violation id, outcome, reason id, arg)
  VIOLATIONS, REASONS                     the texts behind the ids (id 0 = none)
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib
import importlib.util
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

import plants
from plants.tasks.spec import TaskSpec
from stc.codegen.compile import default_cache_dir
from stc.codegen.program import CompiledProgram
from stc.runtime.errors import ERR_SLOTS
from verifier.bind import Binding
from verifier.kernel_source import KERNEL_TEMPLATE, VERDICT_COLUMNS

DT_MS = 10
MODULE_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


@dataclass
class KernelRun:
    """Raw outcome of one kernel call: one verdict row per condition (kernel_source.V_*)."""

    verdict: np.ndarray  # int64 [n_conditions, VERDICT_COLUMNS]
    fail_arg: np.ndarray  # float64 [n_conditions], the argument of the failure reason
    err: np.ndarray  # int64 [n_conditions, ERR_SLOTS], the program's runtime error state
    trace_in: np.ndarray  # float64 [ticks, n_inputs] of the traced condition (0 rows if none)
    trace_out: np.ndarray  # float64 [ticks, n_outputs]
    seconds: float


def plant_module(task: TaskSpec) -> ModuleType:
    """The task's plant binding, imported by its declared module path."""
    return importlib.import_module(task.plant)


def plant_stamp(plant: str) -> str:
    """Hash of the template, the plant's own package and the device library: numba does not
    notice when a function called from another file changes, a new file name does."""
    import numba

    digest = hashlib.sha256(f"{KERNEL_TEMPLATE}|{plant}|{numba.__version__}".encode())
    root = Path(plants.__file__).parent
    package = Path(importlib.import_module(plant).__file__ or "").parent
    sources = {*package.glob("*.py"), *(root / "devices").glob("*.py"), *(root / "tasks").glob("*.py")}
    for path in sorted(sources):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def load_generated(name: str, path: Path, text: str) -> ModuleType:
    """Write `text` to `path` once (atomically, under a lock) and import it as `name`."""
    if name in sys.modules:
        return sys.modules[name]
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace(tmp, path)
            spec = importlib.util.spec_from_file_location(name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return module


_KERNELS: dict[tuple[str, Path, Any], Any] = {}


def _compiled_kernel(plant: str, cache_dir: Path, plant_type: Any) -> Any:
    """One dispatcher per plant (and plant array types), compiled or loaded from numba's cache."""
    key = (plant, cache_dir, plant_type)
    if key in _KERNELS:
        return _KERNELS[key]
    from numba import njit, types

    from stc.codegen.signature import SCAN_SIGNATURE

    if not MODULE_PATH.match(plant):
        raise ValueError(f"plant module path {plant!r} is not a dotted Python name")
    stamp = plant_stamp(plant)
    slug = plant.replace(".", "_")
    text = KERNEL_TEMPLATE.format(plant=plant, stamp=stamp, **_verdict_names())
    module = load_generated(f"plantloop_kernel_{slug}_{stamp}",
                             cache_dir / "kernels" / f"k_{slug}_{stamp}.py", text)
    a = types.Array
    i64 = types.int64
    stores = [a(t, 2, "C") for t in (i64, types.float32, types.float64, types.uint8, types.uint16)]
    sig = i64(SCAN_SIGNATURE, *stores, a(i64, 2, "C"), a(i64, 2, "C"), a(i64, 2, "C"), plant_type,
              a(i64, 1, "C"), a(i64, 2, "C"), a(types.float64, 1, "C"), i64,
              a(types.float64, 2, "C"), a(types.float64, 2, "C"))
    _KERNELS[key] = njit(sig, cache=True)(module.kernel)
    return _KERNELS[key]


def _verdict_names() -> dict[str, int]:
    from verifier import kernel_source

    return {n: getattr(kernel_source, n) for n in dir(kernel_source) if n.startswith("V_")}


def build_plant(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition (C-contiguous arrays, as the kernel is typed)."""
    return tuple(np.ascontiguousarray(a) for a in plant_module(task).build(task))


def task_kernel(task: TaskSpec, cache_dir: Path | None = None) -> Any:
    """The compiled (or cache-loaded) kernel dispatcher of a task's plant."""
    from numba import typeof

    return _compiled_kernel(task.plant, cache_dir or default_cache_dir(), typeof(build_plant(task)))


def limit_ticks(task: TaskSpec) -> np.ndarray:
    """Ticks per condition: the time limit in 10 ms steps."""
    return np.array([int(round(task.time_limit(c) * 1000)) // DT_MS for c in task.conditions], np.int64)


def run_kernel(
    program: CompiledProgram,
    binding: Binding,
    task: TaskSpec,
    *,
    cache_dir: Path | None = None,
    trace_condition: int = -1,
    watchdog: int | None = None,
) -> KernelRun:
    """Run every condition of `task` with `program` in one kernel call."""
    from numba import typeof

    state = build_plant(task)
    kernel = _compiled_kernel(task.plant, cache_dir or default_cache_dir(), typeof(state))
    n = len(task.conditions)
    limits = limit_ticks(task)
    memory = program.new_memory(n, watchdog)
    err = np.zeros((n, ERR_SLOTS), np.int64)
    verdict = np.zeros((n, VERDICT_COLUMNS), np.int64)
    farg = np.zeros(n)
    rows = int(limits[trace_condition]) if 0 <= trace_condition < n else 0
    trace_in = np.zeros((rows, len(task.inputs)))
    trace_out = np.zeros((rows, len(task.outputs)))
    start = time.perf_counter()
    kernel(program.scan, *memory, err, binding.inputs, binding.outputs, state, limits, verdict, farg,
           np.int64(trace_condition), trace_in, trace_out)
    return KernelRun(verdict, farg, err, trace_in, trace_out, time.perf_counter() - start)
