"""The one numba type of every program's scan function (a first-class function type).

A per-task kernel compiled once with `cache=True` declares an argument of this type and
can then call the scan of any program: only the scan itself compiles per program.
"""

from __future__ import annotations

from numba import types

from stc.codegen.lower_pou import SCAN_SIGNATURE_TEXT

_a = types.Array
SCAN_SIGNATURE = types.FunctionType(
    types.int64(_a(types.int64, 1, "C"), _a(types.float32, 1, "C"), _a(types.float64, 1, "C"),
                _a(types.uint8, 1, "C"), _a(types.uint16, 1, "C"), types.int64, types.int64,
                _a(types.int64, 1, "C"))
)
assert "int64[::1]" in SCAN_SIGNATURE_TEXT
