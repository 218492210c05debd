"""stc — the plantloop Structured Text compiler.

Stages, one module each: `preprocess` (comments, pragmas) -> `parser` (textX grammar
`grammar/st.tx` -> `ast` nodes) -> `sema` (symbols, types, constant folding, checks,
I/O list) -> code generation. The public entry point for checking is `check_source`.
"""

from stc.diagnostics import Diagnostic, Diagnostics, Severity

__all__ = ["Diagnostic", "Diagnostics", "Severity", "check_source", "check_file"]
__version__ = "0.1.0"


def check_source(text: str, filename: str = "<input>"):
    """Parse and check one ST source text; never raises for any input text."""
    from stc.frontend import check_source as _check

    return _check(text, filename)


def check_file(path: str):
    from stc.frontend import check_file as _check

    return _check(path)
