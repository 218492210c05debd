"""Write a `Trace` as an IEEE 1364 value change dump (VCD), the format GTKWave reads.

BOOL signals are 1-bit wires, integers `reg` vectors of their width (two's complement), REAL
and plant reals `real` variables; the timescale is 1 ms, so tick k is at #(10 k). Scopes:
`inputs`, `outputs`, `plant` and `verdict` (the judge's violation id per tick, and 1-bit
pulses marking success, failure, a runtime error or the time limit). Only changes are
written; a value that does not exist (outputs of a scan stopped by a runtime error) is `x`.
Event texts go into `$comment` blocks at their time. The text format is simple enough that
a hand-written writer beats a dependency.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from verifier import __version__
from verifier.trace import DT_MS, Trace

SCOPES = {"input": "inputs", "output": "outputs", "plant": "plant"}
MARKERS = ("success", "failure", "runtime_error", "time_limit")
VIOLATION_BITS = 8


@dataclass(frozen=True)
class _Var:
    """One VCD variable: its declaration and its value per tick (NaN = unknown)."""

    scope: str
    name: str
    kind: str  # "bool" | "int" | "real"
    bits: int
    code: str
    values: np.ndarray


def _code(index: int) -> str:
    """Short identifier code from the printable ASCII range '!'..'~' (base 94)."""
    chars = []
    index += 1
    while index:
        index, rest = divmod(index - 1, 94)
        chars.append(chr(33 + rest))
    return "".join(chars)


def _value(var: _Var, x: float) -> str:
    """One value change as VCD text (`1!`, `b101 "`, `r0.5 #`)."""
    if var.kind == "bool":
        return f"{'x' if math.isnan(x) else ('1' if x != 0.0 else '0')}{var.code}"
    if var.kind == "int":
        if math.isnan(x):
            return f"bx {var.code}"
        return f"b{int(x) & ((1 << var.bits) - 1):b} {var.code}"
    return f"r{'nan' if math.isnan(x) else repr(float(x))} {var.code}"


def _variables(trace: Trace) -> list[_Var]:
    variables = []
    for s in trace.signals:
        variables.append(_Var(SCOPES[s.group], s.name, s.kind, s.bits, "", s.values))
    variables.append(_Var("verdict", "violation", "int", VIOLATION_BITS, "",
                          trace.violations.astype(np.float64)))
    for kind in MARKERS:
        pulse = np.zeros(trace.ticks)
        for e in trace.events:
            if e.kind == kind:
                pulse[e.tick] = 1.0
        variables.append(_Var("verdict", kind, "bool", 1, "", pulse))
    return [_Var(v.scope, v.name, v.kind, v.bits, _code(i), v.values) for i, v in enumerate(variables)]


def _scope_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", text)


def _declarations(trace: Trace, variables: list[_Var]) -> Iterator[str]:
    yield f"$scope module {_scope_name(trace.task_id)} $end"
    for scope in (*SCOPES.values(), "verdict"):
        members = [v for v in variables if v.scope == scope]
        if not members:
            continue
        yield f"$scope module {scope} $end"
        for v in members:
            if v.kind == "bool":
                yield f"$var wire 1 {v.code} {v.name} $end"
            elif v.kind == "int":
                yield f"$var reg {v.bits} {v.code} {v.name} [{v.bits - 1}:0] $end"
            else:
                yield f"$var real 64 {v.code} {v.name} $end"
        yield "$upscope $end"
    yield "$upscope $end"
    yield "$enddefinitions $end"


def render_vcd(trace: Trace, date: datetime | None = None) -> str:
    """The whole VCD text of a trace."""
    variables = _variables(trace)
    when = (date or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M:%S UTC")
    v = trace.verdict
    summary = "success" if v.success else f"failed: {v.reason}"
    lines = [
        f"$date {when} $end",
        f"$version plantloop {__version__} $end",
        f"$comment task {trace.task_id} condition {trace.condition} program {trace.program}; "
        f"{trace.ticks} ticks of {DT_MS} ms; {summary} $end",
        "$timescale 1 ms $end",
        *_declarations(trace, variables),
    ]
    events_at: dict[int, list[str]] = {}
    for e in trace.events:
        events_at.setdefault(e.tick, []).append(f"{e.kind}: {e.text}")
    last: list[float | None] = [None] * len(variables)
    for k in range(trace.ticks):
        changes = []
        for i, var in enumerate(variables):
            x = float(var.values[k])
            before = last[i]
            if before is None or not (x == before or (math.isnan(x) and math.isnan(before))):
                changes.append(_value(var, x))
                last[i] = x
        notes = events_at.get(k, [])
        if k == 0:
            lines += ["#0", "$dumpvars", *changes, "$end"]
        elif changes or notes:
            lines.append(f"#{k * DT_MS}")
            lines += changes
        lines += [f"$comment {note.replace('$end', '$ end')} $end" for note in notes]
    lines.append(f"#{trace.ticks * DT_MS}")
    return "\n".join(lines) + "\n"


def write_vcd(trace: Trace, path: Path) -> None:
    """Write the trace's VCD file."""
    path.write_text(render_vcd(trace), encoding="utf-8")
