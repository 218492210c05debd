"""The common device protocol: how every device of the library is laid out and advanced.

A device type is a module with
  * ``PARAM_DTYPE`` / ``STATE_DTYPE``: numpy structured dtypes, one row per unit and condition
    (arrays are shaped ``(n_conditions, n_units)``; a task runs all its conditions as one batch);
  * ``make_params(n_conditions, n_units, **values)`` and ``make_state(params)``: Python
    constructors that fill defaults and the initial state derived from the parameters;
  * ``tick(st, pa, <latched outputs>, k)``: an ``@njit(cache=True)`` function that advances ONE
    unit of ONE condition (``st = state[c, u]``, ``pa = params[c, u]``, numpy records passed by
    reference) by one 10 ms plant step from tick ``k`` (time ``k*DT``) to ``k+1``;
  * ``sense_*(st, pa, k)``: njit functions computing the program's input signals from state.

Time is counted in integer ticks so that scripted instants compare exactly; parameters given
in seconds are converted once with ``ticks()``. Nothing random happens during a run: faults
and operator actions are parameters or script rows (``scripts.py``) fixed before the run.
Violations a device detects itself (a pusher striking an item, ...) are counted in its state
(``n_<code>`` plus ``first_<code>_tick``) so that the S-code predicates in ``safety.py`` can
report code and time without the device knowing the task.
"""

from __future__ import annotations

import numpy as np

DT = 0.01
"""Plant step and scan period (G1), seconds."""

EPS = 1e-9
"""Tolerance for comparisons of floating positions and strokes (never exact equality)."""

NEVER = np.int64(2**62)
"""Tick value of a scripted instant that never comes (disabled fault windows)."""


def ticks(seconds: float) -> int:
    """Whole ticks of a duration or instant given in seconds (rounded to the nearest tick)."""
    return int(round(seconds / DT))


def make_rows(dtype: np.dtype, n_conditions: int, n_units: int, values: dict) -> np.ndarray:
    """A zeroed ``(n_conditions, n_units)`` record array with the given columns filled.

    A value may be a scalar (all rows), a 1-D sequence of length n_conditions (one value per
    condition, even when n_units has the same length), a ``(1, n_units)`` array (one value per
    unit), or an array of the full shape.
    """
    rows = np.zeros((n_conditions, n_units), dtype)
    for name, value in values.items():
        if name not in dtype.names:
            raise KeyError(f"{name!r} is not a column of this device (columns: {dtype.names})")
        arr = np.asarray(value)
        if arr.ndim == 1 and arr.shape[0] == n_conditions:
            arr = arr[:, None]
        rows[name] = arr
    return rows
