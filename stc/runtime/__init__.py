"""Runtime helpers that generated scan code calls (all `numba.njit(cache=True)`).

Calling conventions (the contract with the code generator):

* Value types. Every integer, bit string, TIME/LTIME, DATE/TOD/DT and enumeration value is
  int64, except ULINT/LWORD which are uint64 (never mix the two in one numba operation:
  numba turns int64 op uint64 into float64). BOOL is a 0/1 int64. REAL is float32 after
  every operation, LREAL float64. Helpers are compiled lazily per argument types, so pass
  these exact types (cast narrow array reads with `np.int64(...)`) to share one
  specialisation across all programs.
* Constants. Pass constant arguments typed: `np.int64(16)`, `np.float32(0.5)`, or module
  globals holding numpy scalars. numba types a bare literal (`16`) as `Literal[int](16)`
  and compiles a new specialisation of the helper for every distinct value (measured:
  ~0.3 s each when cold), which would make every location id a compile.
* Stores. Integer expressions are exact in 64 bits; a store narrows with
  `ints.wrap_<type>` (§5.3). Bit-pattern helpers (`shl`, `shr`, `rol`, `ror`, `set_bit`)
  return uint64 patterns that the caller narrows the same way, which also applies their
  result type in expressions.
* Runtime errors. Helpers that can fail take `(err, loc, ...)` first: `err` is the
  condition's int64 error-state array (`errors.new_error_state()`, layout in `errors`),
  `loc` the caller's location id (an index into the program's table of POU/line/column).
  On failure they record the first error (`err[ERR_CODE]`, `err[ERR_LOC]`) and return a
  harmless value (0, 0.0, the lower bound); the generated code tests `err[0] != 0` after
  the statement and ends the scan. Warning-level diagnostics (invalid number text, bad
  BCD) are recorded in separate slots and never stop the scan.
* No Python exceptions and no `//`/`%` on integers in generated code: use `div_int`,
  `mod_int`, `div_ulint`, `mod_ulint`, `time_*`, `tod_add` ...
* Strings are (buffer, length) pairs; see `strings`. Standard FBs are int64 cell blocks
  with step functions; see `fbs`.

Modules: `errors` (codes, error state), `ints`, `reals`, `timefns`, `checks` (index,
subrange, MUX, FOR step), `strings`, `convert` (with `textparse`, native parsers, and
`textforms`, the same rules in plain Python), `fbs`, `precompile` (warm every helper in a
worker before its first program; also what `benchmarks/runtime_helpers_compile.py` times).

`RUNTIME_HASH` stamps generated code: numba does not invalidate a cached caller when a
helper in another file changes, so the code cache key must include it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def _runtime_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


RUNTIME_HASH: str = _runtime_hash()
