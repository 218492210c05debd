"""Compile latency of generated 50-, 200- and 800-line programs, and the cached start.

Usage: python benchmarks/compile_latency.py [--json] [--runs K] [--sizes 50,200,800]
Each run compiles a program with a unique source (so numba's cache cannot help) into a
temporary cache directory; the cached start then loads one of them again the way a new
process with warm imports would (the generated module re-imported, numba's disk cache
hit). DESIGN targets: median < 1 s for 200 lines, cached start < 0.2 s. CPU time
(`time.process_time`) is reported next to wall time: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from stc.codegen.rt import precompile as precompile_codegen
from stc.compiler import compile_source
from stc.runtime.precompile import precompile

HEADER = """TYPE E_Mode : (IDLE, RUN, FAULT); END_TYPE
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
    arr[(cnt{i} MOD 10) + 1] := cnt{i} * 2;
    pos := pos + F_Scale(cnt{i}, 0.5);
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


def generate(lines: int, salt: int) -> str:
    """A valid program of about `lines` lines; `salt` makes the source (cache key) unique."""
    per_block = BLOCK.count("\n")
    n = max(1, (lines - HEADER.count("\n") - 12) // (per_block + 2))
    decls = "".join(f"    cnt{i} : INT;\n    fb{i} : FB_Step;\n" for i in range(n))
    body = "".join(BLOCK.format(i=i) for i in range(n))
    return (f"// salt {salt}\n" + HEADER + "PROGRAM Main\nVAR\n    start AT %IX0.0 : BOOL;\n"
            "    stop AT %IX0.1 : BOOL;\n    motor AT %QX0.0 : BOOL;\n    mode : E_Mode;\n    pos : REAL;\n"
            "    k : INT;\n    arr : ARRAY[1..10] OF DINT;\n" + decls + "END_VAR\n" + body + "END_PROGRAM\n")


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="50,200,800")
    args = ap.parse_args()
    precompile()  # helpers compiled/loaded once per worker, as the verifier does
    precompile_codegen()
    salt = int(time.time() * 1000)
    report: dict[str, object] = {"runs": args.runs}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        last = ""
        for size in (int(s) for s in args.sizes.split(",")):
            times, cpus = [], []
            for r in range(args.runs):
                text = generate(size, salt + 1000 * size + r)
                c = time.process_time()
                res = compile_source(text, "bench.st", cache_dir=cache)
                cpus.append(time.process_time() - c)
                if res.program is None:
                    raise SystemExit(res.diagnostics.render())
                times.append(res.seconds)
                last = text
            report[f"lines_{size}"] = {"lines": last.count("\n"), "median_s": round(statistics.median(times), 3),
                                       "p95_s": round(_p95(times), 3),
                                       "cpu_median_s": round(statistics.median(cpus), 3),
                                       "cpu_p95_s": round(_p95(cpus), 3)}
        cached, cached_cpu = [], []
        for _ in range(max(args.runs, 3)):
            for name in [m for m in sys.modules if m.startswith("plantloop_gen_")]:
                del sys.modules[name]  # a new process would not have the module imported
            c = time.process_time()
            res = compile_source(last, "bench.st", cache_dir=cache)
            cached_cpu.append(time.process_time() - c)
            assert res.cached and res.program is not None
            cached.append(res.seconds)
        report["cached_start_median_s"] = round(statistics.median(cached), 3)
        report["cached_start_cpu_median_s"] = round(statistics.median(cached_cpu), 3)
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
