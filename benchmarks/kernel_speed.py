"""Closed-loop kernel speed: condition-ticks per second for a task's reference program.

Usage: python benchmarks/kernel_speed.py [--json] [--task MOT-E01] [--runs K] [--batch B]
                                         [--interp-ticks N]
Measures the kernel call only, warm (kernel and scan already compiled or loaded from the
cache): sense + input copy + scan + output copy + plant advance + judge, every condition.
`--batch B` runs the task's conditions B times in one call (a bigger batch, the same work
per tick) so that the per-call overhead does not hide the per-tick cost.
`--interp-ticks N` (default 1000, 0 = skip) also runs the first N ticks of condition 1 with
the tree-walking interpreter and the same plant functions called from Python, the baseline
of the DESIGN section 6 ratio (>= 300x).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

from plants.tasks.registry import get_task
from stc.compiler import compile_source
from verifier.bind import bind
from verifier.cmd_tasks import reference_path
from verifier.kernel import run_kernel, task_kernel
from verifier.kernel_source import V_TICKS


def interpreter_ticks_per_s(task, text: str, binding, ticks: int) -> float:
    """Condition-ticks per second of condition 1 driven by the interpreter (same plant)."""
    import numpy as np

    from stc.frontend import check_source
    from stc.interp.machine import Interpreter
    from verifier.kernel import build_plant, plant_module

    module = plant_module(task)
    plant = build_plant(task)
    interp = Interpreter(check_source(text).model)
    interp.track_snapshots = False
    instance = interp.instances[interp.model.entry[0].name]
    outputs = [(j, binding.bound.get(s.name)) for j, s in enumerate(task.outputs)]
    inp, out = np.zeros(len(task.inputs)), np.zeros(len(task.outputs))
    start = time.perf_counter()
    for k in range(ticks):
        module.sense(plant, 0, k, inp)
        for j, s in enumerate(task.inputs):
            interp.set_input(s.address, bool(inp[j]) if s.type == "BOOL" else inp[j])
        if interp.scan() is not None:
            sys.exit("the program raised a runtime error on the interpreter")
        for j, name in outputs:
            out[j] = float(instance[name]) if name else 0.0
        module.advance(plant, 0, k, out)
        module.judge(plant, 0, k, inp, out)
    return ticks / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="MOT-E01")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--interp-ticks", type=int, default=1000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    task = get_task(args.task)
    start = time.perf_counter()
    task_kernel(task)
    kernel_load = time.perf_counter() - start
    text = reference_path(task).read_text()
    compiled = compile_source(text, str(reference_path(task)))
    assert compiled.program is not None, compiled.diagnostics.render()
    binding = bind(compiled.program, task)
    batch = dataclasses.replace(task, conditions=task.conditions * args.batch)
    run_kernel(compiled.program, binding, batch)  # warm-up
    seconds, ticks = [], 0
    for _ in range(args.runs):
        run = run_kernel(compiled.program, binding, batch)
        seconds.append(run.seconds)
        ticks = int(run.verdict[:, V_TICKS].sum())
    median = statistics.median(seconds)
    result = {
        "task": task.id,
        "program": str(Path(reference_path(task)).name),
        "conditions_per_call": len(batch.conditions),
        "condition_ticks_per_call": ticks,
        "kernel_call_s_median": median,
        "condition_ticks_per_s": ticks / median,
        "kernel_load_s": kernel_load,
        "scan_compile_s": compiled.seconds,
        "scan_cached": compiled.cached,
        "runs": args.runs,
    }
    if args.interp_ticks > 0:
        interp = interpreter_ticks_per_s(task, text, binding, args.interp_ticks)
        result["interpreter_condition_ticks_per_s"] = interp
        result["speedup_vs_interpreter"] = result["condition_ticks_per_s"] / interp
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{task.id}: {result['condition_ticks_per_s']:,.0f} condition-ticks/s "
              f"({ticks} ticks in {median * 1000:.2f} ms, kernel load {kernel_load:.2f} s)")
        if "speedup_vs_interpreter" in result:
            print(f"interpreter: {result['interpreter_condition_ticks_per_s']:,.0f} condition-ticks/s, "
                  f"kernel speed-up {result['speedup_vs_interpreter']:,.0f}x")


if __name__ == "__main__":
    main()
