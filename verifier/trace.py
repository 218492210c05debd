"""The trace of one condition: per tick the input image, the output image, selected plant
variables and markers for success, violations, failure and a runtime error.

The verdict comes from the same kernel call `plantloop verify` makes. The kernel traces only
the I/O images, so the plant variables come from a replay of the same condition tick by tick
in Python (the task's own njit `sense`/`advance`/`judge`, the program's own scan). The replay
must reproduce the kernel's I/O images and verdict row exactly, or `TraceMismatchError` is
raised: the trace always shows the run that was judged (docs/kernel.md, "Tracing").

Plant variables are declared by the task's plant module (optional):

    PROBES = {"motor_speed": ((1, 0), "n", "p.u."), "spec_k1": (4, "k1", "bool")}

name -> (array, column, unit): `array` is an index into the plant tuple (`(index, unit)` for
arrays with one row per condition and device unit, unit 0 if omitted), `column` a field of its
records, `unit` free text ("bool" makes a numeric column a 1-bit signal). A probe is sampled
after the tick (after advance and judge): row k holds S_{k+1}, what scan k + 2 will see, and
the judge's memory after judging scan k + 1.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from plants.tasks.spec import Signal, TaskSpec
from stc.codegen.program import CompiledProgram
from stc.runtime.errors import ERR_SLOTS
from verifier.bind import INTEGER_WIDTHS, Binding
from verifier.kernel import KernelRun, build_plant, limit_ticks, plant_module, run_kernel
from verifier.kernel_source import (
    V_ERROR_SCAN,
    V_FAIL,
    V_FAIL_TICK,
    V_SUCCESS,
    V_TICKS,
    V_VIOLATION,
    V_VIOLATION_TICK,
    VERDICT_COLUMNS,
)
from verifier.results import ConditionResult
from verifier.verify import condition_reports

DT_MS = 10
GROUPS = ("input", "output", "plant")
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class TraceMismatchError(RuntimeError):
    """The Python replay did not reproduce the kernel's run: the trace would not be honest."""


@dataclass(frozen=True)
class Probe:
    """One plant variable a task exposes for tracing (see the module docstring)."""

    name: str
    array: int
    unit_row: int | None  # device unit for arrays shaped (conditions, units), else None
    column: str
    unit: str


@dataclass(frozen=True)
class TraceSignal:
    """One traced signal: `values[k]` at tick k, NaN where there is no value (the outputs and
    plant of a scan that stopped with a runtime error)."""

    name: str
    group: str  # one of GROUPS
    kind: str  # "bool" | "int" | "real"
    bits: int  # 1 for bool, the width for an integer, 64 for real
    signed: bool
    unit: str
    values: np.ndarray


@dataclass(frozen=True)
class TraceEvent:
    """A marker at a tick: success, violation (each onset), failure, runtime_error, time_limit."""

    tick: int
    kind: str
    text: str


@dataclass
class Trace:
    """Everything the writers need about one condition's run."""

    task_id: str
    condition: str
    program: str
    verdict: ConditionResult
    ticks: int
    signals: list[TraceSignal] = field(default_factory=list)
    events: list[TraceEvent] = field(default_factory=list)
    violations: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    violation_codes: tuple[str, ...] = ()  # violation id i + 1 -> S-code

    @property
    def time_ms(self) -> np.ndarray:
        return np.arange(self.ticks, dtype=np.int64) * DT_MS

    def violation_code(self, tick: int) -> str:
        """The S-code the judge reported at a tick ('' if none)."""
        vid = int(self.violations[tick])
        return self.violation_codes[vid - 1] if vid else ""

    def signal(self, name: str) -> TraceSignal:
        for s in self.signals:
            if s.name == name:
                return s
        raise KeyError(name)


def task_probes(task: TaskSpec) -> list[Probe]:
    """The plant variables the task's plant module declares (none if it declares no PROBES)."""
    declared = getattr(plant_module(task), "PROBES", {})
    io_names = {s.name.upper() for s in task.io}
    probes = []
    for name, spec in declared.items():
        try:
            array, column, unit = spec
        except (TypeError, ValueError):
            raise ValueError(f"{task.id}: probe {name!r} must be (array, column, unit)") from None
        if not IDENTIFIER.match(name) or name.upper() in io_names:
            raise ValueError(f"{task.id}: probe name {name!r} must be an identifier unlike any I/O name")
        index, unit_row = (array, None) if isinstance(array, int) else (array[0], array[1])
        probes.append(Probe(name, int(index), None if unit_row is None else int(unit_row), column, unit))
    return probes


def signal_names(task: TaskSpec) -> list[str]:
    """Every traceable name of a task: its I/O in map order, then its probes."""
    return [s.name for s in task.io] + [p.name for p in task_probes(task)]


def select_signals(task: TaskSpec, wanted: Sequence[str] | None) -> list[str]:
    """The requested names in task spelling (case-insensitive); all of them when none given.
    Raises KeyError naming the first unknown one."""
    names = signal_names(task)
    if not wanted:
        return names
    by_upper = {n.upper(): n for n in names}
    chosen = []
    for w in wanted:
        if w.upper() not in by_upper:
            raise KeyError(w)
        if by_upper[w.upper()] not in chosen:
            chosen.append(by_upper[w.upper()])
    return chosen


@dataclass
class _Replay:
    """What the Python replay saw, tick by tick."""

    inputs: np.ndarray  # [ticks, n_in]
    outputs: np.ndarray  # [ticks, n_out], NaN on a runtime-error tick
    probes: np.ndarray  # [ticks, n_probes], NaN on a runtime-error tick
    violations: np.ndarray  # int64 [ticks], the judge's violation id of each tick
    verdict: np.ndarray  # int64 [VERDICT_COLUMNS], as the kernel writes it
    fail_arg: float
    probe_dtypes: list[np.dtype]


def _to_integer(x: float, bits: int, signed: int) -> int:
    """The kernel's `to_integer`: an image value as a BOOL or the bit pattern of an integer."""
    if bits == 1:
        return 1 if x != 0.0 else 0
    v = int(np.int64(x))
    if bits < 64:
        v &= (1 << bits) - 1
        if signed and v >= 1 << (bits - 1):
            v -= 1 << bits
    return v


def _write_inputs(slots: list[tuple[int, ...]], inp: np.ndarray, mi: np.ndarray, mr: np.ndarray,
                  ml: np.ndarray) -> None:
    """The kernel's input table walk: image -> program cells (bind.SLOT_COLUMNS)."""
    for image, store, offset, bits, signed in slots:
        x = float(inp[image])
        if store == 0:
            mi[offset] = _to_integer(x, bits, signed)
        elif store == 1:
            mr[offset] = np.float32(x)
        else:
            ml[offset] = x


def _read_outputs(slots: list[tuple[int, ...]], out: np.ndarray, mi: np.ndarray, mr: np.ndarray,
                  ml: np.ndarray) -> None:
    """The kernel's output table walk: program cells -> image, wrapped to the signal's type."""
    for image, store, offset, bits, signed in slots:
        if store == 0:
            out[image] = float(_to_integer(float(mi[offset]), bits, signed))
        elif store == 1:
            out[image] = float(mr[offset])
        else:
            out[image] = ml[offset]


def _probe_columns(state: tuple[np.ndarray, ...], probes: list[Probe]) -> list[np.ndarray]:
    """Per probe a view of its column with one row per condition (no copy: it follows the run)."""
    columns = []
    for p in probes:
        if not 0 <= p.array < len(state) or state[p.array].dtype.names is None:
            raise ValueError(f"probe {p.name!r}: plant array {p.array} is not a record array")
        arr = state[p.array]
        if p.column not in arr.dtype.names:
            raise ValueError(f"probe {p.name!r}: no column {p.column!r} (columns: {arr.dtype.names})")
        col = arr[p.column]
        if col.ndim == 2:
            col = col[:, p.unit_row or 0]
        elif p.unit_row not in (None, 0):
            raise ValueError(f"probe {p.name!r}: plant array {p.array} has no device units")
        columns.append(col)
    return columns


def _replay(program: CompiledProgram, binding: Binding, task: TaskSpec, c: int,
            probes: list[Probe], watchdog: int | None) -> _Replay:
    """The kernel's loop for condition c, in Python, sampling the probes after every tick."""
    plant = plant_module(task)
    sense, advance, judge = plant.sense, plant.advance, plant.judge
    state = build_plant(task)
    columns = _probe_columns(state, probes)
    mi, mr, ml, ms, mw = CompiledProgram.row(program.new_memory(1, watchdog), 0)
    err = np.zeros(ERR_SLOTS, np.int64)
    limit = int(limit_ticks(task)[c])
    n_in, n_out = len(task.inputs), len(task.outputs)
    inp, out = np.zeros(max(n_in, 1)), np.zeros(max(n_out, 1))
    ins, outs = np.zeros((limit, n_in)), np.full((limit, n_out), np.nan)
    samples = np.full((limit, len(probes)), np.nan)
    violations = np.zeros(limit, np.int64)
    in_slots = [tuple(int(x) for x in row) for row in binding.inputs]
    out_slots = [tuple(int(x) for x in row) for row in binding.outputs]
    verdict = np.zeros(VERDICT_COLUMNS, np.int64)
    verdict[V_SUCCESS] = -1
    fail_arg = 0.0
    ticks = 0
    cond = np.int64(c)
    for k in range(limit):
        ticks = k + 1
        sense(state, cond, np.int64(k), inp)
        ins[k] = inp[:n_in]
        _write_inputs(in_slots, inp, mi, mr, ml)
        if program.scan(mi, mr, ml, ms, mw, np.int64(k * DT_MS), np.int64(k + 1), err) != 0:
            verdict[V_ERROR_SCAN] = k + 1
            break
        _read_outputs(out_slots, out, mi, mr, ml)
        outs[k] = out[:n_out]
        advance(state, cond, np.int64(k), out)
        violation, outcome, reason, arg = judge(state, cond, np.int64(k), inp, out)
        samples[k] = [col[c] for col in columns]
        violations[k] = violation
        if violation != 0 and verdict[V_VIOLATION] == 0:
            verdict[V_VIOLATION], verdict[V_VIOLATION_TICK] = violation, k
        if outcome > 0:
            verdict[V_SUCCESS] = k
            break
        if outcome < 0:
            verdict[V_FAIL], verdict[V_FAIL_TICK], fail_arg = reason, k, float(arg)
            break
    verdict[V_TICKS] = ticks
    return _Replay(ins[:ticks], outs[:ticks], samples[:ticks], violations[:ticks], verdict, fail_arg,
                   [col.dtype for col in columns])


def _check_same_run(run: KernelRun, replay: _Replay, c: int) -> None:
    """The replay must be the kernel's run: same verdict row, same I/O images every tick."""
    if not np.array_equal(run.verdict[c], replay.verdict) or run.fail_arg[c] != replay.fail_arg:
        raise TraceMismatchError(f"verdict {run.verdict[c].tolist()} (kernel) != "
                                 f"{replay.verdict.tolist()} (replay)")
    published = replay.verdict[V_TICKS] - (1 if replay.verdict[V_ERROR_SCAN] else 0)
    for what, kernel_image, replay_image in (("input", run.trace_in, replay.inputs),
                                             ("output", run.trace_out, replay.outputs)):
        a, b = kernel_image[:published], replay_image[:published]
        if not np.array_equal(a, b):
            k = int(np.flatnonzero((a != b).any(axis=1))[0])
            raise TraceMismatchError(f"{what} image of tick {k}: {a[k].tolist()} (kernel) != "
                                     f"{b[k].tolist()} (replay)")


def _io_signal(sig: Signal, group: str, values: np.ndarray) -> TraceSignal:
    if sig.type == "BOOL":
        return TraceSignal(sig.name, group, "bool", 1, False, sig.unit, values)
    if sig.type in INTEGER_WIDTHS:
        bits, signed = INTEGER_WIDTHS[sig.type]
        return TraceSignal(sig.name, group, "int", bits, bool(signed), sig.unit, values)
    return TraceSignal(sig.name, group, "real", 64, True, sig.unit, values)


def _probe_signal(probe: Probe, dtype: np.dtype, values: np.ndarray) -> TraceSignal:
    if dtype.kind == "b" or probe.unit.lower() == "bool":
        return TraceSignal(probe.name, "plant", "bool", 1, False, "", values)
    if dtype.kind in "iu":
        return TraceSignal(probe.name, "plant", "int", dtype.itemsize * 8, dtype.kind == "i",
                           probe.unit, values)
    return TraceSignal(probe.name, "plant", "real", 64, True, probe.unit, values)


def _events(task: TaskSpec, verdict: ConditionResult, replay: _Replay) -> list[TraceEvent]:
    """Markers: each onset of a violation (the judge's id per tick), then how the run ended."""
    codes = plant_module(task).VIOLATIONS
    rules = {r.code: r.text for r in task.safety}
    events = []
    previous = 0
    for k, vid in enumerate(replay.violations.tolist()):
        if vid != 0 and vid != previous:
            code = codes[vid - 1]
            events.append(TraceEvent(k, "violation", f"{code}: {rules.get(code, code)}"))
        previous = vid
    v = replay.verdict
    if v[V_ERROR_SCAN]:
        rec = verdict.runtime_error
        text = f"runtime error {rec.code} ({rec.message}) at line {rec.line}" if rec else "runtime error"
        events.append(TraceEvent(int(v[V_ERROR_SCAN]) - 1, "runtime_error", text))
    elif v[V_SUCCESS] >= 0:
        events.append(TraceEvent(int(v[V_SUCCESS]), "success", "success"))
    elif v[V_FAIL]:
        text = plant_module(task).REASONS[v[V_FAIL] - 1].format(arg=replay.fail_arg)
        events.append(TraceEvent(int(v[V_FAIL_TICK]), "failure", text))
    else:
        events.append(TraceEvent(int(v[V_TICKS]) - 1, "time_limit", "time limit reached"))
    return sorted(events, key=lambda e: e.tick)


def condition_index(task: TaskSpec, name: str) -> int:
    """Index of a condition by name (case-insensitive); KeyError if there is none."""
    for c, cond in enumerate(task.conditions):
        if cond.name.upper() == name.upper():
            return c
    raise KeyError(name)


def trace_condition(
    program: CompiledProgram,
    binding: Binding,
    task: TaskSpec,
    condition: str,
    *,
    signals: Sequence[str] | None = None,
    program_path: str | Path = "<input>",
    cache_dir: Path | None = None,
    watchdog: int | None = None,
) -> Trace:
    """Run the task as `verify` does, tracing one condition; `signals` selects I/O and probe
    names (default: all). Raises KeyError for an unknown condition or signal name."""
    c = condition_index(task, condition)
    chosen = set(select_signals(task, signals))
    probes = task_probes(task)
    run = run_kernel(program, binding, task, cache_dir=cache_dir, trace_condition=c, watchdog=watchdog)
    replay = _replay(program, binding, task, c, probes, watchdog)
    _check_same_run(run, replay, c)
    verdict = condition_reports(task, run, program)[c]
    trace = Trace(task.id, task.conditions[c].name, str(program_path), verdict, int(replay.verdict[V_TICKS]))
    for group, sigs, image in (("input", task.inputs, replay.inputs), ("output", task.outputs, replay.outputs)):
        for j, sig in enumerate(sigs):
            if sig.name in chosen:
                trace.signals.append(_io_signal(sig, group, image[:, j].copy()))
    for j, (probe, dtype) in enumerate(zip(probes, replay.probe_dtypes, strict=True)):
        if probe.name in chosen:
            trace.signals.append(_probe_signal(probe, dtype, replay.probes[:, j].copy()))
    trace.events = _events(task, verdict, replay)
    trace.violations = replay.violations
    trace.violation_codes = tuple(plant_module(task).VIOLATIONS)
    return trace
