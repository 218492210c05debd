"""Table A (00_conventions §3.2): the standard servo-axis I/O block as I/O-map rows.

A task line `AXIS n=k NAME` means these signals exist at the addresses of column k; the
solver's text lists every row of that column. Shared by every task with a Table A servo axis.
"""

from __future__ import annotations

from plants.tasks.spec import Signal

# name, direction/type, bit or word base per axis column, meaning, unit
_ROWS = (
    ("ENABLE", "QX", (8, 0), "power stage on (level)", ""),
    ("HOME", "QX", (8, 1), "edge: start drive-internal homing", ""),
    ("MOVE_ABS", "QX", (8, 2), "edge: absolute move to TARGET", ""),
    ("MOVE_REL", "QX", (8, 3), "edge: relative move by TARGET", ""),
    ("MOVE_VEL", "QX", (8, 4), "edge: velocity mode; while TRUE, VELOCITY is tracked", ""),
    ("HALT", "QX", (8, 5), "edge: decelerate with ACCEL to standstill", ""),
    ("STOP", "QX", (8, 6), "level: stop at a_max, block commands", ""),
    ("RESET", "QX", (8, 7), "edge: clear error", ""),
    ("GEAR_IN", "QX", (9, 0), "edge: couple to task-defined master (none in this task)", ""),
    ("CSP_ON", "QX", (9, 1), "level: cyclic position setpoint = TARGET", ""),
    ("TARGET", "QD", 200, "abs target, rel distance or CSP setpoint", "0.01 mm"),
    ("VELOCITY", "QW", 100, "speed (signed in MOVE_VEL)", "0.1 mm/s"),
    ("ACCEL", "QW", 102, "acceleration = deceleration", "mm/s²"),
    ("GEAR_NUM", "QW", 104, "gear ratio numerator", ""),
    ("GEAR_DEN", "QW", 106, "gear ratio denominator (> 0)", ""),
    ("POWERED", "IX", (8, 0), "power stage on", ""),
    ("HOMED", "IX", (8, 1), "reference valid", ""),
    ("BUSY", "IX", (8, 2), "command active", ""),
    ("DONE", "IX", (8, 3), "last discrete command completed", ""),
    ("ERROR", "IX", (8, 4), "drive in ErrorStop", ""),
    ("STANDSTILL", "IX", (8, 5), "speed below 0.5 mm/s", ""),
    ("IN_VEL", "IX", (8, 6), "velocity reached / gear in sync", ""),
    ("ABORTED", "IX", (8, 7), "last command aborted", ""),
    ("LIM_NEG", "IX", (9, 0), "negative HW limit actuated", ""),
    ("LIM_POS", "IX", (9, 1), "positive HW limit actuated", ""),
    ("REF_SW", "IX", (9, 2), "reference cam", ""),
    ("CSP_ACTIVE", "IX", (9, 3), "CSP following TARGET", ""),
    ("GEARED", "IX", (9, 4), "coupled to master", ""),
    ("ACT_POS", "ID", 200, "actual position", "0.01 mm"),
    ("ACT_VEL", "IW", 100, "actual velocity", "0.1 mm/s"),
    ("ERROR_ID", "IW", 102, "0 none, 1 soft limit, 2 not homed, 3 following/obstruction, "
     "4 HW limit, 5 not powered, 6 bad parameter, 7 CSP jump, 8 drive fault", ""),
    ("ACT_FORCE", "IW", 104, "load model, else 0", "N"),
)
_TYPES = {"X": "BOOL", "W": "INT", "D": "DINT"}
_STRIDE = {"X": 2, "W": 8, "D": 4}  # column k adds k times this to the byte / word offset


def axis_block(n: int = 0, prefix: str = "") -> tuple[Signal, ...]:
    """The Table A rows of axis column ``n`` (outputs first, then inputs, as in the table)."""
    if not 0 <= n <= 3:
        raise ValueError(f"Table A has axis columns 0-3, not {n}")
    rows = []
    for name, kind, base, meaning, unit in _ROWS:
        area, size = kind[0], kind[1]
        if size == "X":
            byte, bit = base
            address = f"%{area}X{byte + _STRIDE['X'] * n}.{bit}"
        else:
            address = f"%{area}{size}{base + _STRIDE[size] * n}"
        rows.append(Signal(address, prefix + name, _TYPES[size], meaning, unit))
    return tuple(rows)


AXIS_INPUTS = tuple(row[0] for row in _ROWS if row[1][0] == "I")
"""Table A input rows in table order: the order of the block in a task's input image."""
AXIS_OUTPUTS = tuple(row[0] for row in _ROWS if row[1][0] == "Q")
"""Table A output rows in table order: the order of the block in a task's output image."""


def axis_indices(image: tuple[Signal, ...], prefix: str = "") -> dict[str, int]:
    """Image index of every Table A row of one axis, by its unprefixed name.

    ``image`` is a task's input or output image (``TASK.inputs`` / ``TASK.outputs``). The block
    must stand contiguous and in table order, as ``axis_block`` lays it out: the shared
    sense/latch helpers (``plants.tasks.axis_glue``) address it by its first index alone.
    """
    names = [s.name for s in image]
    rows = AXIS_INPUTS if image and image[0].address.startswith("%I") else AXIS_OUTPUTS
    if prefix + rows[0] not in names:
        raise ValueError(f"no Table A {prefix}{rows[0]} row in this image")
    first = names.index(prefix + rows[0])
    if names[first:first + len(rows)] != [prefix + r for r in rows]:
        raise ValueError(f"the Table A block from {prefix}{rows[0]} is not contiguous in table order")
    return {r: first + i for i, r in enumerate(rows)}
