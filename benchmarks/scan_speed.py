"""Scan speed: ns per scan of the compiled program (called from an njit kernel through the
first-class scan signature, as the verifier kernel does) and, when the interpreter back
end exists, of the interpreter on the same program; `speedup` is their ratio.

Usage: python benchmarks/scan_speed.py [--json] [--lines 200] [--scans 20000]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit, types

from stc.compiler import SCAN_SIGNATURE, compile_source
from stc.frontend import check_source

A = types.Array


@njit(types.int64(SCAN_SIGNATURE, A(types.int64, 1, "C"), A(types.float32, 1, "C"), A(types.float64, 1, "C"),
                  A(types.uint8, 1, "C"), A(types.uint16, 1, "C"), A(types.int64, 1, "C"), types.int64),
      cache=True)
def _loop(scan, mi, mr, ml, ms, mw, err, n):
    for k in range(n):
        mi[2] = k & 1  # toggle %IX0.0 (the first cell after the header) like a plant would
        if scan(mi, mr, ml, ms, mw, np.int64(k * 10), np.int64(k + 1), err) != 0:
            return k
    return n


def main() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from compile_latency import generate

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--lines", type=int, default=200)
    ap.add_argument("--scans", type=int, default=20000)
    args = ap.parse_args()
    text = generate(args.lines, 0)
    with tempfile.TemporaryDirectory() as tmp:
        res = compile_source(text, "bench.st", cache_dir=Path(tmp))
        assert res.program is not None, res.diagnostics.render()
        prog = res.program
        mem = prog.row(prog.new_memory(1), 0)
        err = np.zeros(5, dtype=np.int64)
        _loop(prog.scan, *mem, err, 10)
        t0 = time.perf_counter()
        done = _loop(prog.scan, *mem, err, args.scans)
        compiled_ns = (time.perf_counter() - t0) / max(done, 1) * 1e9
    report: dict[str, object] = {"lines": text.count("\n"), "scans": args.scans,
                                 "compiled_ns_per_scan": round(compiled_ns, 1)}
    if importlib.util.find_spec("stc.interp") is not None:
        from stc.interp import Interpreter

        interp = Interpreter(check_source(text, "bench.st").model)
        n = max(args.scans // 100, 50)
        t0 = time.perf_counter()
        for k in range(n):
            interp.set_input("%IX0.0", bool(k & 1))
            interp.scan()
        interp_ns = (time.perf_counter() - t0) / n * 1e9
        report["interpreted_ns_per_scan"] = round(interp_ns, 1)
        report["speedup"] = round(interp_ns / compiled_ns, 1)
    print(json.dumps(report) if args.json else "\n".join(f"{k}: {v}" for k, v in report.items()))


if __name__ == "__main__":
    main()
