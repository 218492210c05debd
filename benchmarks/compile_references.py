"""Compile latency of the task reference programs (plants/tasks/*/reference.st), the realistic workload.

Usage: python benchmarks/compile_references.py [--json] [--no-precompile] [--glob PATTERN]
Each program is compiled cold (a fresh temporary cache, and a salt comment so no earlier
cache entry can be reused), in one process after the per-process warm-up that workers do
(`stc.runtime.precompile` + `stc.codegen.rt.precompile`, timed separately). Wall and CPU
time (`time.process_time`) are both reported: the machine is shared, wall time is noisy.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from stc.codegen.rt import precompile as precompile_codegen
from stc.compiler import compile_source
from stc.runtime.precompile import precompile

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-precompile", action="store_true", help="measure the first program's fixed cost too")
    ap.add_argument("--glob", default="plants/tasks/*/reference.st")
    args = ap.parse_args()
    report: dict[str, object] = {}
    w0, c0 = time.perf_counter(), time.process_time()
    if not args.no_precompile:
        precompile()
        precompile_codegen()
    report["precompile_wall_s"] = round(time.perf_counter() - w0, 3)
    report["precompile_cpu_s"] = round(time.process_time() - c0, 3)
    salt = int(time.time() * 1000)
    programs: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(ROOT.glob(args.glob)):
            text = f"// salt {salt}\n" + path.read_text(encoding="utf-8")
            w, c = time.perf_counter(), time.process_time()
            res = compile_source(text, str(path), cache_dir=Path(tmp))
            wall, cpu = time.perf_counter() - w, time.process_time() - c
            if res.program is None:
                raise SystemExit(res.diagnostics.render())
            programs[path.parent.name] = {"lines": text.count("\n"), "wall_s": round(wall, 3), "cpu_s": round(cpu, 3)}
    walls = [p["wall_s"] for p in programs.values()]
    cpus = [p["cpu_s"] for p in programs.values()]
    report["programs"] = programs
    report["median_wall_s"] = round(statistics.median(walls), 3)
    report["median_cpu_s"] = round(statistics.median(cpus), 3)
    report["total_cpu_s"] = round(sum(cpus), 3)
    if args.json:
        print(json.dumps(report))
    else:
        for name, p in programs.items():
            print(f"{name:10s} {p['lines']:4d} lines  wall {p['wall_s']:6.2f} s  cpu {p['cpu_s']:6.2f} s")
        for key in ("precompile_wall_s", "precompile_cpu_s", "median_wall_s", "median_cpu_s", "total_cpu_s"):
            print(f"{key}: {report[key]}")


if __name__ == "__main__":
    main()
