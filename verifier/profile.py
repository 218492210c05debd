"""Where the time of one verification goes: compile stages, kernel parts, interpreter baseline.

- Compile stages are timed by calling the compiler's own stages in turn (parse, semantic
  analysis, lowering, module emission, numba compile into a fresh cache directory, then the
  cached load of the same module), after one untimed warm-up pass so that grammar loading
  and first imports are not charged to the program.
- The kernel is timed as `plantloop verify` runs it (warm, median of several calls). Its
  split into program scan, plant and judge is measured by record and replay: the input and
  output images of every condition are recorded from the real kernel, then three small njit
  loops with the kernel's own call signatures replay them: scan alone (image -> memory copy,
  scan, memory -> image copy, on the recorded inputs), plant alone (`sense` + `advance` on
  the recorded outputs) and plant + judge. Judge = (plant + judge) - plant. Each part runs the
  same ticks as the kernel, so the parts should add up to about the kernel time; the rest
  ("loop and other") is the kernel's own bookkeeping and measurement noise.
- The interpreter baseline runs one condition tick by tick in Python with the same plant
  functions (as benchmarks/kernel_speed.py does) and is compared with the kernel on that
  same condition alone; its verdict is checked against the kernel's.
"""

from __future__ import annotations

import dataclasses
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from plants.tasks.spec import TaskSpec
from stc.codegen.compile import default_cache_dir
from stc.codegen.program import CompiledProgram
from verifier.bind import Binding, bind
from verifier.kernel import (
    MODULE_PATH,
    build_plant,
    limit_ticks,
    plant_module,
    run_kernel,
    task_kernel,
)
from verifier.kernel_source import V_ERROR_SCAN, V_FAIL, V_SUCCESS, V_TICKS, V_VIOLATION


class ProfileError(Exception):
    """The program cannot be profiled (it does not compile or bind); `text` says why."""


@dataclass
class CompileStages:
    """Seconds per compiler stage for one program."""

    parse: float
    semantic: float
    lowering: float
    emit: float
    numba_compile: float  # cold, into an empty cache directory
    numba_cached_load: float  # the same module loaded back from that cache
    source_lines: int
    generated_lines: int

    @property
    def cold_total(self) -> float:
        return self.parse + self.semantic + self.lowering + self.emit + self.numba_compile


@dataclass
class KernelSplit:
    """Seconds of the whole kernel call and of its replayed parts (same ticks)."""

    kernel: float
    scan: float
    plant: float
    judge: float

    @property
    def other(self) -> float:
        return self.kernel - self.scan - self.plant - self.judge


@dataclass
class InterpreterComparison:
    condition: str
    ticks: int  # ticks the interpreter ran (the whole condition unless capped)
    interpreter_ticks_per_s: float
    kernel_ticks_per_s: float  # the kernel on this condition alone
    agrees: bool | None  # the interpreter's verdict equals the kernel's (None when capped)

    @property
    def speedup(self) -> float:
        return self.kernel_ticks_per_s / self.interpreter_ticks_per_s


@dataclass
class Profile:
    task_id: str
    program: str
    stages: CompileStages
    kernel_load_s: float
    conditions: int
    condition_ticks: int
    split: KernelSplit
    runs: int
    interpreter: InterpreterComparison | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def condition_ticks_per_s(self) -> float:
        return self.condition_ticks / self.split.kernel

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["stages"]["cold_total"] = self.stages.cold_total
        data["split"]["other"] = self.split.other
        data["condition_ticks_per_s"] = self.condition_ticks_per_s
        if self.interpreter is not None:
            data["interpreter"]["speedup"] = self.interpreter.speedup
        return data


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def _cpu_median(fn: Callable[..., Any], setup: Callable[[], tuple], runs: int) -> float:
    """Median CPU seconds of this thread for `fn(*setup())` over `runs` calls (setup not
    timed). CPU time, not wall time: on a shared machine a millisecond-long call is often
    preempted, which wall time would charge to whatever part happened to be running."""
    seconds = []
    for _ in range(runs):
        args = setup()
        start = time.thread_time()
        fn(*args)
        seconds.append(time.thread_time() - start)
    return statistics.median(seconds)


def _kernel_call(program: CompiledProgram, binding: Binding, task: TaskSpec) -> tuple[Any, Callable[[], tuple]]:
    """The task's kernel and a maker of fresh arguments, as `run_kernel` calls it (untraced)."""
    from stc.runtime.errors import ERR_SLOTS
    from verifier.kernel_source import VERDICT_COLUMNS

    kernel = task_kernel(task)
    n, limits = len(task.conditions), limit_ticks(task)

    def args() -> tuple:
        return (program.scan, *program.new_memory(n), np.zeros((n, ERR_SLOTS), np.int64),
                binding.inputs, binding.outputs, build_plant(task), limits,
                np.zeros((n, VERDICT_COLUMNS), np.int64), np.zeros(n), np.int64(-1),
                np.zeros((0, len(task.inputs))), np.zeros((0, len(task.outputs))))

    return kernel, args


def _kernel_seconds(program: CompiledProgram, binding: Binding, task: TaskSpec, runs: int) -> float:
    """Median CPU seconds of the kernel call itself (no array setup), warm."""
    kernel, args = _kernel_call(program, binding, task)
    kernel(*args())
    return _cpu_median(kernel, args, runs)


# ------------------------------------------------------------------ compile stages


def compile_stages(text: str, filename: str, cache_dir: Path) -> tuple[CompileStages, CompiledProgram]:
    """Time each compiler stage; `cache_dir` must be empty for a cold numba compile."""
    from stc.codegen import emit
    from stc.codegen.compile import CODEGEN_HASH, COMPILER_VERSION, cache_key, load_module
    from stc.codegen.lower_pou import lower_program
    from stc.compiler import compile_source, generate_source
    from stc.diagnostics import Diagnostics
    from stc.frontend import check_source
    from stc.parser import parse
    from stc.sema import analyze

    checked = check_source(text, filename)  # warm-up, and the guarantee the stages succeed
    if checked.model is None or checked.diagnostics.has_errors:
        raise ProfileError(checked.diagnostics.render(text) or f"{filename}: does not compile")
    generate_source(checked.model)
    diags = Diagnostics(filename)
    t_parse, tree = _timed(lambda: parse(text, filename, diags))
    t_sema, (model, _io) = _timed(lambda: analyze(tree, diags))
    t_lower, (_g, functions) = _timed(lambda: lower_program(model))
    t_emit, source = _timed(lambda: emit.module(COMPILER_VERSION, CODEGEN_HASH, functions))
    key = cache_key(text)
    module_name = f"plantloop_gen_{key}"
    sys.modules.pop(module_name, None)
    t_numba, _ = _timed(lambda: load_module(key, source, cache_dir))
    sys.modules.pop(module_name, None)
    t_load, _ = _timed(lambda: load_module(key, source, cache_dir))
    compiled = compile_source(text, filename, cache_dir=cache_dir)  # the module is loaded: fast
    if compiled.program is None:
        raise ProfileError(compiled.diagnostics.render(text))
    stages = CompileStages(t_parse, t_sema, t_lower, t_emit, t_numba, t_load,
                           text.count("\n") + 1, source.count("\n") + 1)
    return stages, compiled.program


# ------------------------------------------------------------------ kernel split

REPLAY_TEMPLATE = '''\
"""Replay loops profiling the kernel of {plant} part by part (generated by verifier.profile)."""

import numpy as np
from numba import njit

from {plant} import advance, judge, sense


@njit(cache=True)
def to_integer(x, bits, signed):
    if bits == 1:
        return np.int64(1) if x != 0.0 else np.int64(0)
    v = np.int64(x)
    if bits < 64:
        v = v & ((np.int64(1) << bits) - 1)
        if signed != 0 and v >= (np.int64(1) << (bits - 1)):
            v -= np.int64(1) << bits
    return v


def scan_replay(scan, mi, mr, ml, ms, mw, err, in_slots, out_slots, ticks, trace_in, n_out):
    """The kernel's input copy, scan and output copy on recorded input images."""
    out = np.zeros(max(n_out, 1))
    acc = 0.0
    for c in range(ticks.shape[0]):
        mic = mi[c]
        mrc = mr[c]
        mlc = ml[c]
        msc = ms[c]
        mwc = mw[c]
        errc = err[c]
        for k in range(ticks[c]):
            inp = trace_in[c, k]
            for j in range(in_slots.shape[0]):
                x = inp[in_slots[j, 0]]
                store = in_slots[j, 1]
                if store == 0:
                    mic[in_slots[j, 2]] = to_integer(x, in_slots[j, 3], in_slots[j, 4])
                elif store == 1:
                    mrc[in_slots[j, 2]] = np.float32(x)
                else:
                    mlc[in_slots[j, 2]] = x
            code = scan(mic, mrc, mlc, msc, mwc, np.int64(k * 10), np.int64(k + 1), errc)
            if code != 0:
                break
            for j in range(out_slots.shape[0]):
                store = out_slots[j, 1]
                if store == 0:
                    y = np.float64(to_integer(np.float64(mic[out_slots[j, 2]]), out_slots[j, 3],
                                              out_slots[j, 4]))
                elif store == 1:
                    y = np.float64(mrc[out_slots[j, 2]])
                else:
                    y = mlc[out_slots[j, 2]]
                out[out_slots[j, 0]] = y
            acc += out[0]
    return acc


def plant_replay(plant, ticks, n_in, trace_out, with_judge):
    """`sense` + `advance` (and `judge` when with_judge != 0) on recorded output images."""
    inp = np.zeros(max(n_in, 1))
    acc = 0.0
    for c in range(ticks.shape[0]):
        for k in range(ticks[c]):
            out = trace_out[c, k]
            sense(plant, c, k, inp)
            advance(plant, c, k, out)
            if with_judge != 0:
                violation, outcome, reason, arg = judge(plant, c, k, inp, out)
                acc += violation + outcome + reason + arg
        acc += inp[0]
    return acc
'''


def _replay_functions(task: TaskSpec, cache_dir: Path, plant_type: Any) -> tuple[Any, Any]:
    """The two replay loops for the task's plant, compiled with explicit signatures (the
    scan as the same first-class function type the kernel uses) and cached like the kernel."""
    from numba import njit, types

    from stc.codegen.signature import SCAN_SIGNATURE
    from verifier.kernel import load_generated, plant_stamp

    if not MODULE_PATH.match(task.plant):
        raise ValueError(f"plant module path {task.plant!r} is not a dotted Python name")
    stamp = plant_stamp(task.plant)
    slug = task.plant.replace(".", "_")
    module = load_generated(f"plantloop_profile_{slug}_{stamp}",
                             cache_dir / "profile" / f"r_{slug}_{stamp}.py",
                             REPLAY_TEMPLATE.format(plant=task.plant))
    a, i64, f64 = types.Array, types.int64, types.float64
    stores = [a(t, 2, "C") for t in (i64, types.float32, f64, types.uint8, types.uint16)]
    scan_sig = f64(SCAN_SIGNATURE, *stores, a(i64, 2, "C"), a(i64, 2, "C"), a(i64, 2, "C"),
                   a(i64, 1, "C"), a(f64, 3, "C"), i64)
    plant_sig = f64(plant_type, a(i64, 1, "C"), i64, a(f64, 3, "C"), i64)
    return (njit(scan_sig, cache=True)(module.scan_replay),
            njit(plant_sig, cache=True)(module.plant_replay))


def record_images(program: CompiledProgram, binding: Binding, task: TaskSpec,
                  ticks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Input and output images of every condition, as the kernel saw them; returns them with
    the number of recorded ticks per condition (a runtime error's tick publishes nothing)."""
    n = len(task.conditions)
    recorded = ticks.copy()
    width = max(int(ticks.max(initial=0)), 1)
    images_in = np.zeros((n, width, max(len(task.inputs), 1)))
    images_out = np.zeros((n, width, max(len(task.outputs), 1)))
    for c in range(n):
        run = run_kernel(program, binding, task, trace_condition=c)
        if run.verdict[c, V_ERROR_SCAN]:
            recorded[c] -= 1
        rows = int(recorded[c])
        images_in[c, :rows, :len(task.inputs)] = run.trace_in[:rows]
        images_out[c, :rows, :len(task.outputs)] = run.trace_out[:rows]
    return images_in, images_out, recorded


def kernel_split(program: CompiledProgram, binding: Binding, task: TaskSpec, runs: int,
                 cache_dir: Path) -> tuple[KernelSplit, int]:
    """Median seconds of the kernel and of its replayed parts; and the condition-ticks."""
    from numba import typeof

    from stc.runtime.errors import ERR_SLOTS

    kernel_s = _kernel_seconds(program, binding, task, runs)
    verdict = run_kernel(program, binding, task).verdict
    ticks = np.ascontiguousarray(verdict[:, V_TICKS].astype(np.int64))
    images_in, images_out, recorded = record_images(program, binding, task, ticks)
    scan_replay, plant_replay = _replay_functions(task, cache_dir, typeof(build_plant(task)))
    n = len(task.conditions)
    n_in, n_out = len(task.inputs), len(task.outputs)

    def scan_args():
        return (program.scan, *program.new_memory(n), np.zeros((n, ERR_SLOTS), np.int64),
                binding.inputs, binding.outputs, recorded, images_in, n_out)

    def plant_args(with_judge: int):
        return lambda: (build_plant(task), recorded, n_in, images_out, with_judge)

    for fn, setup in ((scan_replay, scan_args), (plant_replay, plant_args(1))):
        fn(*setup())  # compile or load, untimed
    scan_s = _cpu_median(scan_replay, scan_args, runs)
    plant_s = _cpu_median(plant_replay, plant_args(0), runs)
    plant_judge_s = _cpu_median(plant_replay, plant_args(1), runs)
    return KernelSplit(kernel_s, scan_s, plant_s, plant_judge_s - plant_s), int(ticks.sum())


# ------------------------------------------------------------------ interpreter


def _output_reader(interp: Any, label: str | None) -> Callable[[], float]:
    """Read one bound output variable from the interpreter's live state."""
    from stc.interp.machine import canonical_target

    if not label:
        return lambda: 0.0
    if label.startswith("%"):
        address = canonical_target(label)
        return lambda: float(interp.addresses[address])
    instance = interp.instances[interp.model.entry[0].name] if interp.model.entry else {}
    if label in instance:
        return lambda: float(instance[label])
    if label in interp.globals:
        return lambda: float(interp.globals[label])
    return lambda: float(interp.snapshot()[label])


def interpreter_run(text: str, task: TaskSpec, binding: Binding, condition: int,
                    max_ticks: int) -> tuple[int, float, tuple[int, int, int, int]]:
    """Run one condition on the interpreter with the task's plant functions called from
    Python. Returns (ticks, seconds, verdict) with verdict = (ticks, success tick or -1,
    first violation id, failure reason id), the kernel's verdict columns."""
    from stc.frontend import check_source
    from stc.interp import Interpreter

    plant_fns = plant_module(task)
    one = dataclasses.replace(task, conditions=(task.conditions[condition],))
    plant = build_plant(one)
    interp = Interpreter(check_source(text).model, track_snapshots=False)
    inputs = []
    for s in task.inputs:
        label = binding.bound.get(s.name, "")
        target = label if label and not label.startswith("%") and label in interp.by_name else s.address
        inputs.append((target, s.type == "BOOL"))
    outputs = [_output_reader(interp, binding.bound.get(s.name)) for s in task.outputs]
    inp, out = np.zeros(max(len(task.inputs), 1)), np.zeros(max(len(task.outputs), 1))
    limit = min(int(limit_ticks(one)[0]), max_ticks)
    success, violation, fail, ticks = -1, 0, 0, 0
    start = time.thread_time()
    for k in range(limit):
        ticks = k + 1
        plant_fns.sense(plant, 0, k, inp)
        for j, (target, is_bool) in enumerate(inputs):
            interp.set_input(target, bool(inp[j]) if is_bool else float(inp[j]))
        if interp.scan() is not None:
            break
        for j, read in enumerate(outputs):
            out[j] = read()
        plant_fns.advance(plant, 0, k, out)
        v, outcome, reason, _arg = plant_fns.judge(plant, 0, k, inp, out)
        violation = violation or int(v)
        if outcome > 0:
            success = k
            break
        if outcome < 0:
            fail = int(reason)
            break
    return ticks, time.thread_time() - start, (ticks, success, violation, fail)


def compare_interpreter(text: str, program: CompiledProgram, binding: Binding, task: TaskSpec,
                        condition: int, runs: int, max_ticks: int) -> InterpreterComparison:
    one = dataclasses.replace(task, conditions=(task.conditions[condition],))
    kernel_s = _kernel_seconds(program, binding, one, runs)
    v = run_kernel(program, binding, one).verdict[0]
    kernel_ticks = int(v[V_TICKS])
    ticks, seconds, verdict = interpreter_run(text, task, binding, condition, max_ticks)
    capped = ticks < kernel_ticks and ticks == max_ticks
    agrees = None if capped else verdict == (kernel_ticks, int(v[V_SUCCESS]), int(v[V_VIOLATION]),
                                             int(v[V_FAIL]))
    return InterpreterComparison(task.conditions[condition].name, ticks, ticks / seconds,
                                 kernel_ticks / kernel_s, agrees)


# ------------------------------------------------------------------ everything


def profile_program(text: str, filename: str, task: TaskSpec, *, runs: int = 5,
                    condition: int | None = 0, interp_max_ticks: int = 20000) -> Profile:
    """Profile one program on one task (see the module docstring for the method)."""
    scratch = Path(tempfile.mkdtemp(prefix="plantloop-profile-"))
    try:
        stages, program = compile_stages(text, filename, scratch)
        binding = bind(program, task, filename)
        if not binding.ok:
            raise ProfileError(binding.diagnostics.render(text))
        kernel_load_s, _ = _timed(lambda: task_kernel(task))
        split, ticks = kernel_split(program, binding, task, runs, default_cache_dir())
        result = Profile(task.id, filename, stages, kernel_load_s, len(task.conditions), ticks,
                         split, runs)
        if condition is not None:
            result.interpreter = compare_interpreter(text, program, binding, task, condition, runs,
                                                     interp_max_ticks)
            if result.interpreter.agrees is False:
                result.notes.append("the interpreter's verdict differs from the kernel's on "
                                    f"{result.interpreter.condition}: worth a differential test")
        return result
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
