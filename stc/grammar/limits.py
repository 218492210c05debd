"""Documented input limits, checked before textX sees the text.

Arpeggio parses recursively (about 20 Python frames per nesting level), so a hostile
input such as 10,000 nested parentheses would exhaust the stack. The check below walks
the text once with a regular expression and stops at the first construct that crosses a
limit, so the user gets a precise position instead of a RecursionError.
"""

from __future__ import annotations

import re

from stc.diagnostics import CompileLimitError
from stc.preprocess import line_col

MAX_SOURCE_BYTES = 1_000_000
"""Largest accepted source file (UTF-8 bytes); generated PLC programs are far smaller."""

MAX_TOKENS = 60_000
"""Most tokens accepted (about 8,000 lines of typical code); keeps a parse under ~2 s."""

MAX_NESTING = 64
"""Deepest accepted nesting of parentheses, brackets and statement/type blocks combined."""

_TOKEN = re.compile(r"""'(?:\$[^\n]|[^'$\n])*'?|"(?:\$[^\n]|[^"$\n])*"?|\w+|[^\s\w]""")
_OPENERS = {"(", "[", "IF", "CASE", "FOR", "WHILE", "REPEAT", "STRUCT", "UNION"}
_NESTING_TOKEN = re.compile(
    r"""'(?:\$[^\n]|[^'$\n])*'?|"(?:\$[^\n]|[^"$\n])*"?|[()\[\]]"""
    r"|\b(?:END_IF|END_CASE|END_FOR|END_WHILE|END_REPEAT|END_STRUCT|END_UNION"
    r"|IF|CASE|FOR|WHILE|REPEAT|STRUCT|UNION)\b",
    re.IGNORECASE,
)


def check_size(text: str) -> None:
    """Raise CompileLimitError at 1:1 when the source exceeds MAX_SOURCE_BYTES."""
    size = len(text.encode("utf-8", errors="replace")) if len(text) * 4 > MAX_SOURCE_BYTES else 0
    if size > MAX_SOURCE_BYTES:
        raise CompileLimitError(f"source too large ({size} bytes > limit {MAX_SOURCE_BYTES})")


def check_tokens(text: str) -> None:
    """Raise CompileLimitError at the first token beyond MAX_TOKENS (comments removed)."""
    for count, m in enumerate(_TOKEN.finditer(text), start=1):
        if count > MAX_TOKENS:
            line, col = line_col(text, m.start())
            raise CompileLimitError(f"too many tokens (more than {MAX_TOKENS})", line, col)


def check_nesting(text: str) -> None:
    """Raise CompileLimitError where nesting first exceeds MAX_NESTING (comments removed)."""
    depth = 0
    for m in _NESTING_TOKEN.finditer(text):
        token = m.group().upper()
        if token[0] in "'\"":
            continue
        if token in _OPENERS:
            depth += 1
            if depth > MAX_NESTING:
                line, col = line_col(text, m.start())
                raise CompileLimitError(
                    f"nesting too deep (more than {MAX_NESTING} levels of parentheses,"
                    " brackets and blocks)",
                    line,
                    col,
                )
        elif depth > 0:
            depth -= 1
