"""Render the solver-facing task text (markdown) from a task declaration.

Only the declaration is read, so the text and the verifier cannot disagree. Per-condition
values never appear: the solver sees the published ranges.
"""

from __future__ import annotations

from plants.tasks.spec import TaskSpec

EXECUTION_NOTES = """\
- The program runs cyclically with a fixed **10 ms** cycle on plant time. Each cycle: the
  plant's signals are copied into the `%I` inputs, your program runs once, the `%Q` outputs
  are latched and drive the plant, then the plant advances by 10 ms. An actuator therefore
  reacts at the earliest one cycle after the input that caused it.
- Scan 1 runs at t = 0 with every variable at its initial value (cold start). `TIME()` and
  the standard timers run on plant time.
- Unlisted inputs read FALSE/0; writes to unlisted outputs are ignored and never judged.
- Nothing is random during a run, but every condition uses different values inside the
  published ranges: a program must react to its inputs, not replay a schedule."""

LANGUAGE_NOTES = """\
- Submit one IEC 61131-3 Structured Text file with exactly one `PROGRAM`. Declare the I/O
  as located variables (`start AT %IX0.0 : BOOL;`) with the addresses and types of the map.
- Available: the standard function blocks TON, TOF, TP, R_TRIG, F_TRIG, CTU, CTD, CTUD, SR,
  RS; the standard functions (arithmetic, ABS, SQRT, trigonometry, MIN, MAX, LIMIT, SEL,
  MUX, shifts, the `*_TO_*` conversions, string functions); user FUNCTIONs,
  FUNCTION_BLOCKs (with non-virtual METHODs), TYPEs (structs, enums, arrays, subranges).
- Semantics to rely on: integers wrap on store; `/` on integers truncates toward zero;
  REAL is 32-bit; `AND`/`OR` evaluate both operands (`AND_THEN`/`OR_ELSE` short-circuit);
  REAL -> integer needs an explicit conversion (`REAL_TO_INT` rounds to even, `TRUNC`
  truncates); a FOR loop re-evaluates its bounds; more than 1,000,000 loop iterations in
  one scan stop the program (watchdog), as do division by zero and array index errors.
- Rejected: pointers and references, interfaces and inheritance, PROPERTY, ACTION, JMP,
  SFC/IL/LD, EN/ENO, vendor libraries (MC_*, Tc2_*, OSCAT, SysTime ...), `ROUND`."""


def _io_table(task: TaskSpec) -> str:
    rows = ["| Dir | Address | Name | Type | Meaning | Unit |", "|---|---|---|---|---|---|"]
    for s in task.io:
        d = "IN" if s.direction == "input" else "OUT"
        rows.append(f"| {d} | `{s.address}` | `{s.name}` | {s.type} | {s.meaning} | {s.unit} |")
    return "\n".join(rows)


def _bullets(items: tuple[str, ...] | list[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


def _time_limit(task: TaskSpec) -> str:
    """One limit, or the range when conditions carry their own (each condition's exact limit
    is a per-condition value and stays hidden)."""
    limits = sorted({task.time_limit(c) for c in task.conditions} or {task.time_limit_s})
    if len(limits) == 1:
        return f"Time limit: **{limits[0]:g} s** of plant time per condition."
    return (
        f"Time limit: between **{limits[0]:g} s** and **{limits[-1]:g} s** of plant time, "
        "depending on the condition (longer runs get longer limits)."
    )


def render_markdown(task: TaskSpec) -> str:
    """The complete solver-facing text of one task."""
    parts = [
        f"# {task.id} · {task.title}",
        f"Suite **{task.suite}**, level **{task.level}**. "
        f"Every one of the {len(task.conditions)} test conditions must be completed with no "
        "safety violation.",
        "## Plant and devices",
        _bullets(task.devices),
        "## I/O map",
        _io_table(task),
        "## Operating specification",
        _bullets(task.spec),
        "## Completion",
        f"{task.completion} {_time_limit(task)}",
        "## Safety rules (any violation fails the condition)",
        _bullets([f"**{r.code}**: {r.text}" for r in task.safety]),
        "## Published ranges (every test condition lies inside them)",
        _bullets([r.render() for r in task.ranges] + list(task.published)),
    ]
    if task.notes:
        parts += ["## Notes", _bullets(task.notes)]
    parts += ["## Execution", EXECUTION_NOTES, "## Language", LANGUAGE_NOTES]
    return "\n\n".join(parts) + "\n"
