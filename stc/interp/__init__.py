"""The independent interpreter back end: a plain-Python tree walker over the semantic model.

It shares only the front end (AST, types, folded constants, initial values) with the Numba
code generator, so comparing the two scan by scan (tests/stc/test_differential.py) checks
the generator against an independent reading of ST_LANGUAGE.md.
"""

from stc.interp.machine import Interpreter

__all__ = ["Interpreter"]
