"""Bulk evaluation: wall time of `plantloop run`, compile/run split per job, compile-cache speed-up.

Usage: python benchmarks/bulk_run.py [--json] [--workers N] [--models 3] [--tasks ID,ID]

Builds a submissions tree of MODELS x every registered task x 3 trials (the task's reference
program, a one-change mutant of it and the idle baseline; each model's copy carries its own
comment, so no two jobs share a compile-cache entry), then evaluates it with the local pool
twice: cold (empty compile cache, so every program and every task kernel is compiled) and warm
(same cache, fresh output directory: what a re-run or a second model with the same programs
costs). Per job it reports the result JSON's compile seconds and the kernel seconds. It also
measures what the per-job fork costs against running the same warm jobs in-process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from plants.tasks.registry import all_tasks, get_task
from verifier.baselines import idle_program
from verifier.bulk.isolate import JobInput, Limits, execute_job, run_isolated
from verifier.bulk.jobs import discover
from verifier.bulk.pool import LocalPool, warm
from verifier.bulk.run import Tally, execute
from verifier.cmd_tasks import reference_path

TRIALS = ("reference", "mutant", "idle")


def mutant(reference: str) -> str:
    """A one-change mutant: the first `:= TRUE` becomes `:= FALSE` (most tasks then fail)."""
    return reference.replace(":= TRUE", ":= FALSE", 1)


def build_tree(root: Path, task_ids: list[str], models: int) -> int:
    count = 0
    for task_id in task_ids:
        task = get_task(task_id)
        reference = reference_path(task).read_text(encoding="utf-8")
        texts = {"reference": reference, "mutant": mutant(reference), "idle": idle_program(task)}
        for m in range(models):
            model = f"model-{chr(ord('a') + m)}"
            d = root / model / task_id
            d.mkdir(parents=True, exist_ok=True)
            for trial in TRIALS:
                (d / f"{trial}.st").write_text(f"{texts[trial]}\n(* {model} *)\n", encoding="utf-8")
                count += 1
    return count


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"mean": round(statistics.fmean(values), 3), "median": round(statistics.median(values), 3),
            "p95": round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 3)}


def evaluate(sub: Path, out: Path, cache: Path, workers: int) -> Tally:
    plan = discover(sub, out, set(all_tasks()))
    return execute(plan, LocalPool(workers), Limits(cache_dir=cache))


def _summary(tally: Tally) -> dict[str, object]:
    return {
        "wall_s": round(tally.wall_seconds, 2),
        "jobs": tally.done,
        "reward_1": tally.reward_1,
        "job_errors": dict(tally.errors),
        "compile_s_per_job": _stats([t.compile_seconds for t in tally.timings]),
        "kernel_s_per_job": _stats([t.kernel_seconds for t in tally.timings]),
        "job_wall_s": _stats([t.wall_seconds for t in tally.timings]),
    }


def rewards(out: Path) -> dict[str, int]:
    return {p.relative_to(out).as_posix(): json.loads(p.read_text(encoding="utf-8"))["reward"]
            for p in out.rglob("*.json")}


def isolation_overhead(sub: Path, cache: Path, runs: int = 10) -> dict[str, float]:
    """Warm jobs run in-process vs each in a forked child from the same warm process."""
    programs = sorted(sub.rglob("*.st"))[:runs]
    inputs = [JobInput(p.parent.name, p.name, p.read_bytes()) for p in programs]
    limits = Limits(cache_dir=cache)
    for inp in inputs:
        warm(inp.task_id, limits)
        execute_job(inp, limits)  # compiled once: both variants below load from the cache
    start = time.perf_counter()
    for inp in inputs:
        execute_job(inp, limits)
    in_process = (time.perf_counter() - start) / len(inputs)
    start = time.perf_counter()
    for inp in inputs:
        run_isolated(inp, limits)
    forked = (time.perf_counter() - start) / len(inputs)
    return {"in_process_s_per_job": round(in_process, 4), "forked_s_per_job": round(forked, 4),
            "fork_overhead_s": round(forked - in_process, 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--models", type=int, default=3)
    ap.add_argument("--tasks", default="", help="comma-separated task ids (default: all)")
    args = ap.parse_args()
    task_ids = [t.strip().upper() for t in args.tasks.split(",") if t.strip()] or list(all_tasks())
    with tempfile.TemporaryDirectory(prefix="plantloop-bulk-") as tmp:
        root = Path(tmp)
        cache = root / "cache"
        os.environ["PLANTLOOP_CACHE_DIR"] = str(cache)  # the spawned workers' cache too
        jobs = build_tree(root / "sub", task_ids, args.models)
        cold = evaluate(root / "sub", root / "out-cold", cache, args.workers)
        warm_run = evaluate(root / "sub", root / "out-warm", cache, args.workers)
        same = rewards(root / "out-cold") == rewards(root / "out-warm")
        overhead = isolation_overhead(root / "sub", cache)
    report = {
        "tasks": task_ids, "models": args.models, "trials": len(TRIALS), "jobs": jobs,
        "workers": args.workers, "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cold": _summary(cold), "warm": _summary(warm_run),
        "warm_speed_up": round(cold.wall_seconds / warm_run.wall_seconds, 2),
        "identical_rewards_cold_warm": same,
        "isolation": overhead,
    }
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    print(f"{jobs} jobs = {args.models} models x {len(task_ids)} tasks x {len(TRIALS)} trials, "
          f"{args.workers} workers, {os.cpu_count()} CPUs, load {report['load_average_1m']}")
    for name in ("cold", "warm"):
        s = report[name]
        print(f"{name:5s}: wall {s['wall_s']:7.2f} s  compile/job {s['compile_s_per_job']}  "
              f"kernel/job {s['kernel_s_per_job']}  job wall {s['job_wall_s']}  "
              f"reward 1: {s['reward_1']}  errors: {s['job_errors']}")
    print(f"warm re-run speed-up: {report['warm_speed_up']}x, identical rewards: {same}")
    print(f"isolation: {overhead}")


if __name__ == "__main__":
    main()
