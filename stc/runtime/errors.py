"""Runtime error codes of ST_LANGUAGE.md §12, and the error-state array helpers write into.

Runtime errors are values, not exceptions: numba-compiled scan code cannot afford
exception machinery, and a verifier must report code, place and time rather than a
traceback. A helper that detects an error calls `raise_error`, returns a harmless value,
and the generated code checks `err[ERR_CODE]` after the statement and stops the scan.
Only the first error is kept: operands are evaluated left to right (§6.2), so the first
recorded error is the one a PLC would have stopped at.

Warning-level runtime diagnostics (STRING -> number with invalid text, §5.2) never stop a
scan; the first one is kept with its location and all are counted.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Layout of the int64 error-state array (one per condition).
ERR_CODE = 0  # first runtime error code, OK while none
ERR_LOC = 1  # location id of that error (passed in by the generated code)
WARN_CODE = 2  # first warning-level diagnostic
WARN_LOC = 3
WARN_COUNT = 4  # number of warning-level diagnostics so far
ERR_SLOTS = 5

# Codes are np.int64, not int: numba types a bare int constant passed to a helper as a
# literal and compiles one specialisation per value.
OK = np.int64(0)
# Stopping runtime errors (§12).
DIV_ZERO = np.int64(1)
INDEX_RANGE = np.int64(2)
SUBRANGE = np.int64(3)
CONVERSION = np.int64(4)
MUX_RANGE = np.int64(5)
SHIFT_NEG = np.int64(6)
FOR_STEP_ZERO = np.int64(7)
WATCHDOG = np.int64(8)
TIMEOUT = np.int64(9)  # host wall-clock limit, raised by the kernel, never by a helper
# Warning-level runtime diagnostics (do not stop the scan).
BAD_NUMBER_TEXT = np.int64(101)
BAD_BCD = np.int64(102)

NAMES: dict[int, str] = {  # np.int64 keys hash and compare like int
    DIV_ZERO: "DIV_ZERO",
    INDEX_RANGE: "INDEX_RANGE",
    SUBRANGE: "SUBRANGE",
    CONVERSION: "CONVERSION",
    MUX_RANGE: "MUX_RANGE",
    SHIFT_NEG: "SHIFT_NEG",
    FOR_STEP_ZERO: "FOR_STEP_ZERO",
    WATCHDOG: "WATCHDOG",
    TIMEOUT: "TIMEOUT",
    BAD_NUMBER_TEXT: "BAD_NUMBER_TEXT",
    BAD_BCD: "BAD_BCD",
}

MESSAGES: dict[int, str] = {
    DIV_ZERO: "division by zero",
    INDEX_RANGE: "array index out of bounds",
    SUBRANGE: "value outside the subrange type",
    CONVERSION: "conversion out of range or of NaN/INF",
    MUX_RANGE: "MUX selector out of range",
    SHIFT_NEG: "negative shift or rotate count",
    FOR_STEP_ZERO: "FOR loop with BY 0",
    WATCHDOG: "watchdog: more than the allowed loop iterations in one scan",
    TIMEOUT: "host time limit exceeded",
    BAD_NUMBER_TEXT: "invalid number text, converted to 0",
    BAD_BCD: "invalid BCD value, converted to 0",
}


def is_warning(code: int) -> bool:
    """Warning-level codes are reported but never stop execution."""
    return code >= 100


def code_name(code: int) -> str:
    """The §12 code name (`DIV_ZERO` ...) used in result JSON."""
    return NAMES.get(code, f"UNKNOWN_{code}")


def code_message(code: int) -> str:
    return MESSAGES.get(code, "unknown runtime error")


def new_error_state() -> np.ndarray:
    """A cleared error-state array for one condition."""
    return np.zeros(ERR_SLOTS, dtype=np.int64)


@njit(cache=True, error_model="numpy")
def raise_error(err, code, loc):
    """Record a stopping runtime error unless an earlier one is already recorded."""
    if err[ERR_CODE] == OK:
        err[ERR_CODE] = code
        err[ERR_LOC] = loc


@njit(cache=True, error_model="numpy")
def raise_warning(err, code, loc):
    """Record a warning-level diagnostic; the first one keeps its location."""
    if err[WARN_COUNT] == 0:
        err[WARN_CODE] = code
        err[WARN_LOC] = loc
    err[WARN_COUNT] += 1
