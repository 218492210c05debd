"""Parse speed of a realistic 1,000-line ST program (median of several runs).

Usage: python benchmarks/parse_speed.py [--json] [--lines N] [--runs K]

The program mixes what generated controllers contain: FB definitions with VAR blocks,
IF/ELSIF chains, CASE state machines, FOR loops, arithmetic and comparisons, timer and
FB calls with formal arguments, and typed literals. Target (ST_LANGUAGE/DESIGN): parse
well under 0.25 s for 1,000 lines so parse + semantic check stays below 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from stc.diagnostics import Diagnostics
from stc.parser import _metamodel, parse

_FB_TEMPLATE = """\
FUNCTION_BLOCK FB_Axis{n}
VAR_INPUT
    enable : BOOL;
    target : REAL := 0.0;
    limits : ARRAY[1..4] OF INT := [1, 2, 2(0)];
END_VAR
VAR_OUTPUT
    done : BOOL;
    position : REAL;
END_VAR
VAR
    state : INT := 0;
    tmr : TON;
    i : INT;
    acc : DINT;
END_VAR
(* state machine of axis {n} *)
CASE state OF
    0:
        IF enable AND NOT done THEN
            state := 10;
        END_IF;
    10, 11:
        tmr(IN := TRUE, PT := T#1s500ms);
        position := position + (target - position) * 0.1;
        IF ABS(target - position) < 0.01 OR tmr.Q THEN
            state := 20;
        ELSIF position > 1000.0 THEN
            state := 99;
        ELSE
            acc := acc + 1;
        END_IF;
    20..29:
        done := TRUE;
        tmr(IN := FALSE);
        state := 0;
ELSE
    state := 0;
END_CASE;
FOR i := 1 TO 4 BY 1 DO
    acc := acc + limits[i] * 2 - (acc MOD 7) / 3;
    IF acc > 16#7FFF THEN acc := 0; END_IF;
END_FOR;
END_FUNCTION_BLOCK

"""

_MAIN_HEAD = """\
PROGRAM Main
VAR
    start AT %IX0.0 : BOOL;
    stop AT %IX0.1 : BOOL;
    motor AT %QX0.0 : BOOL;
    speed AT %QW2 : INT;
    k : INT;
    total : LREAL;
"""


def generate_program(lines: int = 1000) -> str:
    """A syntactically valid program of about `lines` lines."""
    fb_lines = _FB_TEMPLATE.count("\n")
    n_fb = max(1, (lines - 40) // (fb_lines + 8))
    parts = [_FB_TEMPLATE.replace("{n}", str(n)) for n in range(n_fb)]
    decls = [f"    axis{n} : FB_Axis{n};\n" for n in range(n_fb)]
    calls = [
        f"axis{n}(enable := start AND NOT stop, target := INT_TO_REAL(speed) * {n}.5);\n"
        f"total := total + axis{n}.position;\n"
        f"IF axis{n}.done THEN k := k + 1; END_IF;\n"
        for n in range(n_fb)
    ]
    body = "motor := start OR (motor AND NOT stop);\nspeed := k * 10 + 5;\n"
    text = "".join(parts) + _MAIN_HEAD + "".join(decls) + "END_VAR\n" + body + "".join(calls)
    text += "END_PROGRAM\n"
    missing = lines - text.count("\n")
    if missing > 0:  # pad the body with simple statements up to the requested size
        filler = "".join(f"total := total * 0.5 + {i}.0;\n" for i in range(missing))
        text = text.replace("END_PROGRAM\n", filler + "END_PROGRAM\n")
    return text


def measure(text: str, runs: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds per parse (CPU time is steadier on a shared machine)."""
    wall, cpu = [], []
    for _ in range(runs):
        diags = Diagnostics("bench.st")
        w0, c0 = time.perf_counter(), time.process_time()
        tree = parse(text, "bench.st", diags)
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
        if tree is None or diags.has_errors:
            raise SystemExit("benchmark program did not parse:\n" + diags.render(text))
    return wall, cpu


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--json", action="store_true", help="print one JSON object")
    cli.add_argument("--lines", type=int, default=1000)
    cli.add_argument("--runs", type=int, default=7)
    args = cli.parse_args()
    t0 = time.perf_counter()
    _metamodel()
    metamodel_s = time.perf_counter() - t0
    text = generate_program(args.lines)
    times, cpu = measure(text, args.runs)
    result = {
        "lines": text.count("\n"),
        "runs": args.runs,
        "median_s": statistics.median(times),
        "min_s": min(times),
        "cpu_median_s": statistics.median(cpu),
        "metamodel_s": metamodel_s,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"parse of {result['lines']} lines: median {result['median_s'] * 1000:.1f} ms "
              f"(min {result['min_s'] * 1000:.1f} ms, CPU median {result['cpu_median_s'] * 1000:.1f} ms,"
              f" {args.runs} runs; "
              f"metamodel build {metamodel_s * 1000:.0f} ms once per process)")


if __name__ == "__main__":
    main()
