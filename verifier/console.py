"""Shared pieces of the command line: consoles, exit codes, reading a program file."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2

# soft_wrap: long paths and diagnostics are never broken across lines (tables still fit the width)
err = Console(stderr=True, highlight=False, soft_wrap=True)
out = Console(highlight=False, soft_wrap=True)


def decode_program(data: bytes) -> str:
    """Program text from file bytes: a UTF-8 byte-order mark is dropped; UTF-8, else Latin-1
    (ST source is Latin-1 by definition: 1 byte per character)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_program(path: Path) -> str:
    """Read an ST file as text; a missing or unreadable file is a usage error (exit 2)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        err.print(f"plantloop: error: no such file: {path}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    except OSError as exc:
        err.print(f"plantloop: error: cannot read {path}: {exc.strerror}", markup=False)
        raise typer.Exit(EXIT_USAGE) from None
    return decode_program(data)
