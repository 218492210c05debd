"""Parse + semantic check of one ST text: the public entry point of the front end.

`check_source` never raises for any input text: an internal failure is reported as a
diagnostic (with the exception type) rather than a traceback, so bulk evaluation of
untrusted programs always gets a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from stc.ast import SourceFile
from stc.diagnostics import CompileLimitError, Diagnostics
from stc.sema import analyze
from stc.sema.iolist import IOPoint
from stc.sema.model import SemanticModel

__all__ = ["CheckResult", "IOPoint", "check_source", "check_file"]


@dataclass
class CheckResult:
    diagnostics: Diagnostics
    ast: SourceFile | None
    model: SemanticModel | None  # None when errors make it unusable
    io: list[IOPoint] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.diagnostics.has_errors

    def to_json(self) -> dict:
        return {
            "file": self.diagnostics.file,
            "ok": self.ok,
            "diagnostics": self.diagnostics.to_json(),
            "io": [p.to_json() for p in self.io],
        }


def check_source(text: str, filename: str = "<input>") -> CheckResult:
    from stc.parser import parse

    diags = Diagnostics(filename)
    tree: SourceFile | None = None
    try:
        tree = parse(text, filename, diags)
        if tree is None:
            return CheckResult(diags, None, None, [])
        model, io = analyze(tree, diags)
    except CompileLimitError as exc:
        diags.error(exc.message, exc.line, exc.column)
        return CheckResult(diags, tree, None, [])
    except RecursionError:
        diags.error("program is nested too deeply", 1, 1)
        return CheckResult(diags, tree, None, [])
    except Exception as exc:  # noqa: BLE001 - the contract is "never raises"; report instead
        diags.error(f"internal compiler error ({type(exc).__name__}: {exc}); please report", 1, 1)
        return CheckResult(diags, tree, None, [])
    return CheckResult(diags, tree, None if diags.has_errors else model, io)


def check_file(path: str) -> CheckResult:
    """Check a file (Latin-1 or UTF-8, BOM tolerated); an unreadable file is one diagnostic."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        diags = Diagnostics(str(path))
        diags.error(f"cannot read {path}: {exc.strerror or exc}", 1, 1)
        return CheckResult(diags, None, None, [])
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return check_source(text, str(path))
