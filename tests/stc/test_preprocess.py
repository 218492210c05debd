"""Comment/pragma stripping keeps every remaining character at its line and column."""

from __future__ import annotations

import time

import pytest

from stc.diagnostics import Diagnostics
from stc.preprocess import line_col, preprocess


def strip(text: str) -> tuple[str, Diagnostics]:
    diags = Diagnostics("t.st")
    return preprocess(text, diags), diags


def errors(diags: Diagnostics) -> list[tuple[int, int, str]]:
    return [(d.line, d.column, d.message) for d in diags.errors]


def blanked(source: str, comment: str) -> str:
    """`source` with `comment` replaced by as many spaces (newlines kept)."""
    return source.replace(comment, "".join("\n" if ch == "\n" else " " for ch in comment))


@pytest.mark.parametrize(
    ("source", "comment"),
    [
        ("a (* c *) b", "(* c *)"),
        ("a (* x (* nested *) y *) b", "(* x (* nested *) y *)"),
        ("a /* x /* nested */ y */ b", "/* x /* nested */ y */"),
        ("a // rest\nb", "// rest"),
        ("a {attribute 'x'} b", "{attribute 'x'}"),
        ("a (* // not a line comment *) b", "(* // not a line comment *)"),
        ("a // (* not opened\nb", "// (* not opened"),
        ("a (* /* *) b", "(* /* *)"),
        ("a /* (* */ b", "/* (* */"),
        ("a (* 'quote *) b", "(* 'quote *)"),
    ],
)
def test_comments_and_pragmas_become_spaces(source: str, comment: str) -> None:
    out, diags = strip(source)
    assert out == blanked(source, comment)
    assert len(out) == len(source)
    assert not diags.items


def test_newlines_are_kept_so_positions_do_not_move() -> None:
    source = "x (* line1\nline2 (* in\n*) *) := 1; // c\n{p\n} y := 2;"
    out, diags = strip(source)
    assert out.count("\n") == source.count("\n")
    assert line_col(out, out.index("y")) == line_col(source, source.index("y")) == (5, 3)
    assert not diags.items


@pytest.mark.parametrize(
    "source",
    ["s := '(* not a comment *)';", 's := "// no {pragma}";', "s := 'it$'s (* x';"],
)
def test_markers_inside_strings_are_text(source: str) -> None:
    out, diags = strip(source)
    assert out == source
    assert not diags.items


def test_string_with_dollar_quote_then_comment() -> None:
    out, _ = strip("s := 'a$'b'; (* c *)")
    assert out == "s := 'a$'b';        "


@pytest.mark.parametrize(
    ("source", "line", "col", "opener"),
    [
        ("x := 1;\n  (* never closed", 2, 3, "(*"),
        ("x := 1; /* a /* b */", 1, 9, "/*"),
        ("(* a (* b *)\n", 1, 1, "(*"),
    ],
)
def test_unterminated_block_comment_reported_at_opening(source: str, line: int, col: int, opener: str) -> None:
    _, diags = strip(source)
    [(err_line, err_col, message)] = errors(diags)
    assert (err_line, err_col) == (line, col)
    assert opener in message and "unterminated comment" in message


def test_unterminated_pragma_reported_at_opening() -> None:
    _, diags = strip("x := 1;\n   {attribute 'x'\n")
    assert errors(diags) == [(2, 4, "unterminated pragma '{' (missing '}')")]


def test_string_spanning_lines_is_an_error_once() -> None:
    _, diags = strip("s := 'abc\n';\n")
    assert errors(diags) == [(1, 6, "unterminated string literal (a string may not span lines)")]


def test_five_megabytes_is_linear_and_fast() -> None:
    chunk = "x := 'a(*b'; (* c (* d *) e *) // f\n{pragma} y := \"$\"\"; /* g */\n"
    text = chunk * (5_000_000 // len(chunk))
    start = time.perf_counter()
    out, diags = strip(text)
    elapsed = time.perf_counter() - start
    assert len(out) == len(text) and not diags.items
    assert elapsed < 10.0  # ~0.7 s on an idle core; a quadratic scan would take minutes
