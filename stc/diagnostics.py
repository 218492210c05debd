"""Compile-time diagnostics: collected, sorted, rendered for people and machines.

Every stage of the compiler reports into one `Diagnostics` bag instead of raising, so a
user sees all problems of a file at once and no input can surface a Python traceback.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding about the source, positioned at 1-based line and column."""

    severity: Severity
    message: str
    line: int
    column: int
    file: str = "<input>"

    def sort_key(self) -> tuple[int, int, int, str]:
        return (self.line, self.column, 0 if self.severity is Severity.ERROR else 1, self.message)

    def header(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity.value}: {self.message}"

    def render(self, source: str | None = None) -> str:
        """`file:line:col: severity: message`, then the source line and a caret."""
        text = self.header()
        if source is None:
            return text
        lines = source.split("\n")
        if 1 <= self.line <= len(lines):
            src = lines[self.line - 1].rstrip("\r")
            if len(src) > 200:  # keep giant one-line inputs readable
                start = max(0, self.column - 100)
                src = src[start : start + 200]
                col = self.column - start
            else:
                col = self.column
            caret_pad = "".join("\t" if ch == "\t" else " " for ch in src[: max(col - 1, 0)])
            text += f"\n    {src}\n    {caret_pad}^"
        return text

    def to_json(self) -> dict:
        d = asdict(self)
        d["severity"] = self.severity.value
        return d


class CompileLimitError(Exception):
    """Input exceeds a documented compiler limit (size, nesting, array bounds)."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass
class Diagnostics:
    """An ordered, de-duplicated collection of diagnostics for one file."""

    file: str = "<input>"
    items: list[Diagnostic] = field(default_factory=list)
    _seen: set[Diagnostic] = field(default_factory=set, init=False, repr=False)

    def error(self, message: str, line: int, column: int) -> None:
        self._add(Severity.ERROR, message, line, column)

    def warning(self, message: str, line: int, column: int) -> None:
        self._add(Severity.WARNING, message, line, column)

    def _add(self, severity: Severity, message: str, line: int, column: int) -> None:
        d = Diagnostic(severity, message, max(int(line), 1), max(int(column), 1), self.file)
        if d not in self._seen:  # a set: thousands of findings must not cost quadratic time
            self._seen.add(d)
            self.items.append(d)

    def extend(self, other: Diagnostics) -> None:
        for d in other.items:
            self._add(d.severity, d.message, d.line, d.column)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.sorted() if d.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.sorted() if d.severity is Severity.WARNING]

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.items, key=Diagnostic.sort_key)

    def render(self, source: str | None = None) -> str:
        return "\n".join(d.render(source) for d in self.sorted())

    def to_json(self) -> list[dict]:
        return [d.to_json() for d in self.sorted()]

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2)
