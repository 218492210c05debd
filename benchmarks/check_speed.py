"""Time parse + semantic check of a generated 1,000-line ST program (median of several runs).

Usage: python benchmarks/check_speed.py [--json] [--lines N] [--runs K]
The budget (DESIGN/brief): parse + check < 0.5 s, semantic pass ~0.1 s for 1,000 lines.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from stc.diagnostics import Diagnostics
from stc.frontend import check_source
from stc.parser import parse
from stc.sema import analyze

HEADER = """TYPE E_Mode : (IDLE, RUN, FAULT); END_TYPE
TYPE ST_Axis : STRUCT pos : REAL; vel : REAL := 1.0; END_STRUCT; END_TYPE
FUNCTION F_Scale : REAL
VAR_INPUT x : INT; k : REAL; END_VAR
F_Scale := INT_TO_REAL(x) * k;
END_FUNCTION
FUNCTION_BLOCK FB_Step
VAR_INPUT go : BOOL; END_VAR
VAR_OUTPUT done : BOOL; n : INT; END_VAR
VAR t : TON; END_VAR
t(IN := go, PT := T#50ms);
IF t.Q THEN n := n + 1; END_IF;
done := n > 10;
END_FUNCTION_BLOCK
"""

BLOCK = """IF start AND NOT stop THEN
    cnt{i} := cnt{i} + 1;
    arr[({i} MOD 10) + 1] := cnt{i} * 2;
    ax.pos := ax.pos + F_Scale(cnt{i}, 0.5);
ELSIF mode = FAULT THEN
    cnt{i} := 0;
END_IF;
CASE cnt{i} OF
    0: mode := IDLE;
    1..5: mode := RUN;
ELSE
    mode := FAULT;
END_CASE;
FOR k := 1 TO 10 DO arr[k] := arr[k] + k; END_FOR;
fb{i}(go := start, done => motor);
"""


def generate(lines: int) -> str:
    """A valid program of about `lines` lines: one PROGRAM with repeated statement blocks."""
    per_block = BLOCK.count("\n")
    n = max(1, (lines - HEADER.count("\n") - 20) // (per_block + 2))
    decls = "".join(f"    cnt{i} : INT;\n    fb{i} : FB_Step;\n" for i in range(n))
    body = "".join(BLOCK.format(i=i) for i in range(n))
    return (HEADER + "PROGRAM Main\nVAR\n    start AT %IX0.0 : BOOL;\n    stop AT %IX0.1 : BOOL;\n"
            "    motor AT %QX0.0 : BOOL;\n    mode : E_Mode;\n    ax : ST_Axis;\n    k : INT;\n"
            "    arr : ARRAY[1..10] OF DINT;\n" + decls + "END_VAR\n" + body + "END_PROGRAM\n")


def _median(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    text = generate(args.lines)
    result = check_source(text, "bench.st")  # warm-up (grammar load) and validity check
    if result.diagnostics.has_errors:
        raise SystemExit("generated program does not check clean:\n" + result.diagnostics.render())
    total = _median(lambda: check_source(text, "bench.st"), args.runs)

    def sema_only() -> None:
        d = Diagnostics("bench.st")
        tree = parse(text, "bench.st", d)
        t0 = time.perf_counter()
        analyze(tree, d)
        sema_times.append(time.perf_counter() - t0)

    sema_times: list[float] = []
    for _ in range(args.runs):
        sema_only()
    report = {"lines": text.count("\n"), "runs": args.runs, "parse_check_median_s": round(total, 4),
              "sema_median_s": round(statistics.median(sema_times), 4)}
    if args.json:
        print(json.dumps(report))
    else:
        print(f"{report['lines']} lines: parse+check median {total * 1000:.1f} ms, "
              f"semantic pass median {report['sema_median_s'] * 1000:.1f} ms ({args.runs} runs)")


if __name__ == "__main__":
    main()
