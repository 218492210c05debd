"""njit helpers owned by the code generator (block copies), cached on disk like stc.runtime.

Slice assignment (`mi[a:b] = mi[c:d]`) would pull numba's generic array-setitem machinery
into every program; it is compiled once per process and not disk-cached, which measured
~5 s on the first program of a process. A plain loop compiles in milliseconds and caches.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def copy_cells(dst, d, src, s, n):
    """dst[d:d+n] = src[s:s+n], element by element, front to back."""
    for k in range(n):
        dst[d + k] = src[s + k]


def precompile() -> None:
    """Compile/load the five store specialisations (one per dtype) before the first program."""
    for dtype in (np.int64, np.float32, np.float64, np.uint8, np.uint16):
        a = np.zeros(2, dtype=dtype)
        copy_cells(a, np.int64(0), a, np.int64(1), np.int64(1))
