"""Comment and pragma stripping that keeps every other character where it was.

textX comment rules cannot express nested comments, so the parser sees a text in which
comments and pragmas are blanked out: each removed character becomes a space, newlines stay.
Line and column of everything that remains are therefore unchanged, and diagnostics from
later stages point into the original source. The scan jumps between markers with regular
expressions, so it runs in linear time even on multi-megabyte inputs.
"""

from __future__ import annotations

import re

from stc.diagnostics import Diagnostics

# Anything that opens a comment, a pragma or a string literal.
_OPENER = re.compile(r"\(\*|/\*|//|[{'\"]")
# Inside one block-comment kind only its own delimiters count (they nest).
_PAREN_STAR = re.compile(r"\(\*|\*\)")
_SLASH_STAR = re.compile(r"/\*|\*/")
# A string ends at its closing quote; `$x` escapes one character; it may not span lines.
_STRING_BODY = {
    "'": re.compile(r"(?:\$[^\n]|[^'$\n])*('?)"),
    '"': re.compile(r'(?:\$[^\n]|[^"$\n])*("?)'),
}
_NOT_NEWLINE = re.compile(r"[^\n]")


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of `offset` (lines count LF)."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def _blank(segment: str) -> str:
    return _NOT_NEWLINE.sub(" ", segment)


def _block_end(text: str, start: int, marker: re.Pattern[str]) -> int | None:
    """Offset just past the comment opened at `start`, honouring nesting; None if open."""
    depth = 1
    pos = start + 2
    while True:
        m = marker.search(text, pos)
        if m is None:
            return None
        pos = m.end()
        depth += 1 if m.group() in ("(*", "/*") else -1
        if depth == 0:
            return pos


def preprocess(text: str, diags: Diagnostics) -> str:
    """Return `text` with comments and pragmas blanked; report unterminated ones."""
    out: list[str] = []
    pos = 0
    n = len(text)
    string_reported = False
    while pos < n:
        m = _OPENER.search(text, pos)
        if m is None:
            break
        start = m.start()
        out.append(text[pos:start])
        opener = m.group()
        if opener in ("'", '"'):
            body = _STRING_BODY[opener].match(text, start + 1)
            end = body.end()
            if not body.group(1) and not string_reported:
                string_reported = True  # later quotes on the same lines are only echoes
                line, col = line_col(text, start)
                diags.error("unterminated string literal (a string may not span lines)", line, col)
            out.append(text[start:end])
            pos = end
            continue
        if opener == "//":
            eol = text.find("\n", start)
            end = n if eol < 0 else eol
        elif opener == "{":
            close = text.find("}", start + 1)
            if close < 0:
                line, col = line_col(text, start)
                diags.error("unterminated pragma '{' (missing '}')", line, col)
                end = n
            else:
                end = close + 1
        else:
            found = _block_end(text, start, _PAREN_STAR if opener == "(*" else _SLASH_STAR)
            if found is None:
                line, col = line_col(text, start)
                closer = "*)" if opener == "(*" else "*/"
                diags.error(f"unterminated comment '{opener}' (missing '{closer}')", line, col)
                end = n
            else:
                end = found
        out.append(_blank(text[start:end]))
        pos = end
    out.append(text[pos:])
    return "".join(out)
