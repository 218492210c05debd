"""Baseline programs every task is checked against (TASKS/README.md, "a task is done when").

* The idle program declares the task's whole I/O map and does nothing: it must fail every
  condition, or the task can be passed without control.
* The blind replay plays back, by scan number, the output image a program produced in one
  condition: it must fail at least one other condition, or the conditions do not force a
  program to react to its inputs.
Both are generated as ST text and go through the normal compile -> bind -> kernel path.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from plants.tasks.spec import Signal, TaskSpec
from stc.compiler import compile_source
from verifier.bind import bind
from verifier.kernel import run_kernel
from verifier.kernel_source import V_TICKS

VALUES_PER_LINE = 16


def _variable(signal: Signal) -> str:
    """The baseline's variable of a signal: prefixed, so no signal name can clash with a
    keyword, a standard function or the baseline's own variables."""
    return f"io_{signal.name}"


def _declarations(signals: tuple[Signal, ...]) -> list[str]:
    return [f"    {_variable(s)} AT {s.address} : {s.type};" for s in signals]


def idle_program(task: TaskSpec) -> str:
    """A PROGRAM that declares every signal of the task's I/O map and never writes one."""
    lines = [f"(* idle baseline for {task.id}: declares the I/O, does nothing *)", "PROGRAM Idle", "VAR"]
    lines += _declarations(task.io)
    lines += ["END_VAR", "END_PROGRAM", ""]
    return "\n".join(lines)


def _literal(signal: Signal, value: float) -> str:
    if signal.type == "BOOL":
        return "TRUE" if value != 0.0 else "FALSE"
    if signal.type == "REAL":
        return f"{float(np.float32(value)):.9e}"
    return str(int(value))


def _array_init(items: list[str]) -> str:
    rows = [", ".join(items[i:i + VALUES_PER_LINE]) for i in range(0, len(items), VALUES_PER_LINE)]
    return "[" + ",\n        ".join(rows) + "]"


def replay_program(task: TaskSpec, outputs: np.ndarray) -> str:
    """A PROGRAM that writes `outputs[k]` (the output image of scan k + 1, task map order)
    by scan number, blind to every input. Only changes are stored, so it stays small."""
    signals = task.outputs
    if outputs.ndim != 2 or outputs.shape[1] != len(signals):
        raise ValueError(f"outputs must be [ticks, {len(signals)}], got {outputs.shape}")
    decls = [f"(* blind replay baseline for {task.id} *)", "PROGRAM Replay", "VAR"]
    decls += _declarations(signals)
    decls += ["END_VAR", "VAR", "    scanNo : DINT;"]
    body = ["scanNo := scanNo + 1;"]
    previous = np.zeros(len(signals))
    for j, sig in enumerate(signals):
        column = outputs[:, j]
        changed = np.flatnonzero(column != np.concatenate(([previous[j]], column[:-1])))
        if changed.size == 0:
            continue
        n = changed.size
        scans = [str(int(k) + 1) for k in changed]
        values = [_literal(sig, column[k]) for k in changed]
        decls += [
            f"    next{j} : DINT := 1;",
            f"    at{j} : ARRAY[1..{n}] OF DINT := {_array_init(scans)};",
            f"    val{j} : ARRAY[1..{n}] OF {sig.type} := {_array_init(values)};",
        ]
        body += [
            f"IF next{j} <= {n} THEN",
            f"    IF at{j}[next{j}] = scanNo THEN",
            f"        {_variable(sig)} := val{j}[next{j}];",
            f"        next{j} := next{j} + 1;",
            "    END_IF;",
            "END_IF;",
        ]
    return "\n".join([*decls, "END_VAR", *body, "END_PROGRAM", ""])


def record_outputs(task: TaskSpec, text: str, condition: int = 0, *, cache_dir: Path | None = None) -> np.ndarray:
    """The output image of every scan a program produced in one condition ([ticks, outputs])."""
    compiled = compile_source(text, f"<{task.id} recording>", cache_dir=cache_dir)
    if compiled.program is None:
        raise ValueError("the program does not compile:\n" + compiled.diagnostics.render(text))
    binding = bind(compiled.program, task)
    if not binding.ok:
        raise ValueError("the program does not bind:\n" + binding.diagnostics.render(text))
    run = run_kernel(compiled.program, binding, task, cache_dir=cache_dir, trace_condition=condition)
    ticks = int(run.verdict[condition, V_TICKS])
    return run.trace_out[:ticks].copy()
