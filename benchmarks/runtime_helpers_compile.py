"""How long numba takes to make the runtime helper set ready: cold (empty cache, every
helper compiled) and warm (`cache=True` files loaded), each in a fresh process.

Also times a small njit caller that uses a dozen helpers, compiled after the helpers are
warm: that is the per-program cost generated code pays for calling them.

    python benchmarks/runtime_helpers_compile.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

_CHILD = r"""
import json, time
t0 = time.perf_counter()
import numpy as np
from numba import njit
import stc.runtime
from stc.runtime import errors, fbs, ints, reals, strings
from stc.runtime.precompile import precompile
t1 = time.perf_counter()
names = precompile()
t2 = time.perf_counter()

I = np.int64  # constants typed as generated code passes them (no literal specialisations)

@njit
def caller(err, mem, a, b, r, s, d):
    x = ints.wrap_int(ints.div_int(err, I(1), a, b) + ints.mod_int(err, I(2), a, b))
    y = ints.wrap_word(ints.shl(err, I(3), a, b, I(16)))
    y = y + ints.wrap_byte(ints.rol(err, I(4), a, b, I(8)))
    z = reals.real_to_signed(err, I(5), reals.div_real(err, I(6), r, r), I(16))
    w = reals.expt_real(r, r)
    fbs.ton_step(mem, I(0), a)
    fbs.ctu_step(mem, I(8), I(-32768), I(32767))
    fbs.r_trig_step(mem, I(16))
    n = strings.s_concat(d, s, I(3), s, I(3))
    k = strings.s_find(d, n, s, I(2))
    return x + y + z + k + ints.wrap_dint(ints.abs_int(a)) + np.int64(w)

err = errors.new_error_state()
mem = np.zeros(32, dtype=np.int64)
s = np.zeros(8, dtype=np.uint8)
d = np.zeros(16, dtype=np.uint8)
caller(err, mem, np.int64(7), np.int64(2), np.float32(1.5), s, d)
t3 = time.perf_counter()
modules = {}
for name, seconds in names.items():
    modules[name.split(".")[0]] = modules.get(name.split(".")[0], 0.0) + seconds
print(json.dumps({"import_s": t1 - t0, "helpers_s": t2 - t1, "caller_s": t3 - t2,
                  "helpers": len(names), "modules": modules}))
"""


def _run_child(cache_dir: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run(
        [sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="cold/warm pairs to run")
    args = parser.parse_args()
    cold, warm = [], []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="plantloop-numba-") as cache_dir:
            cold.append(_run_child(cache_dir))
            warm.append(_run_child(cache_dir))
    import numba

    print(
        f"numba {numba.__version__}, {cold[0]['helpers']} helpers exercised"
        f" (median of {args.repeat} fresh processes)"
    )
    for label, runs in (("cold (empty cache)", cold), ("warm (cache=True)", warm)):
        med = {
            k: statistics.median(r[k] for r in runs) for k in ("import_s", "helpers_s", "caller_s")
        }
        print(
            f"{label:20s} import {med['import_s']:6.2f} s   helpers {med['helpers_s']:6.2f} s"
            f"   12-helper caller {med['caller_s']:5.2f} s"
        )
        per_module = {
            m: statistics.median(r["modules"][m] for r in runs) for m in runs[0]["modules"]
        }
        ranked = sorted(per_module.items(), key=lambda kv: -kv[1])
        print(" " * 21 + "  ".join(f"{m} {sec:.2f}" for m, sec in ranked))


if __name__ == "__main__":
    main()
