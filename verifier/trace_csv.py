"""Write a `Trace` as CSV: one row per simulated tick, for spreadsheets and pandas.

Columns: `tick`, `time_ms` (10 ms per tick), the traced signals in trace order (BOOL as 0/1,
integers as whole numbers, REAL with full precision, empty where there is no value), then
`violation` (the S-code the judge reported at that tick) and `event` (success, failure,
runtime error or time limit, with its text; several are joined by " | ").
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from verifier.trace import DT_MS, Trace, TraceSignal


def _cell(signal: TraceSignal, x: float) -> str:
    if math.isnan(x):
        return ""
    if signal.kind == "real":
        return repr(float(x))
    return str(int(x))


def write_csv(trace: Trace, path: Path) -> None:
    """Write the trace's CSV file (header + `trace.ticks` rows)."""
    events: dict[int, list[str]] = {}
    for e in trace.events:
        if e.kind != "violation":  # the violation column already shows every violating tick
            events.setdefault(e.tick, []).append(f"{e.kind}: {e.text}")
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["tick", "time_ms", *(s.name for s in trace.signals), "violation", "event"])
        for k in range(trace.ticks):
            writer.writerow([k, k * DT_MS, *(_cell(s, float(s.values[k])) for s in trace.signals),
                             trace.violation_code(k), " | ".join(events.get(k, []))])
