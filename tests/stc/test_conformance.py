"""ST conformance corpus: each tests/corpus/{valid,invalid}/*.st file against its EXPECT header.

The header states what ST_LANGUAGE.md demands of the front end for that program; the format
and the matching rules are documented in docs/conformance.md. The front end is imported
inside the tests so that collection works while stc.frontend is being written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
KINDS = ("valid", "invalid")
FILE_NAME = re.compile(r"^(0[1-9]|1[0-3]|99)_[a-z0-9_]+\.st$")
EXPECT = re.compile(r"^//\s*EXPECT\b(.*)$")
EXPECT_DIAGNOSTIC = re.compile(r"^\s+(error|warning)\s+(\d+):(\d+)\s+(\S.*?)\s*$")
FLAGS = {"no-warnings", "only-listed-errors"}


@dataclass(frozen=True)
class Expected:
    """One diagnostic the front end must produce: severity, exact position, message substring."""

    severity: str
    line: int
    column: int
    text: str

    def matches(self, diag: Any) -> bool:
        return (
            _severity(diag) == self.severity
            and diag.line == self.line
            and diag.column == self.column
            and self.text in diag.message
        )

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.severity}: ...{self.text}..."


@dataclass
class Expectations:
    """The parsed EXPECT header of one corpus file."""

    diagnostics: list[Expected] = field(default_factory=list)
    no_warnings: bool = False
    only_listed_errors: bool = False


def parse_expectations(source: str) -> Expectations:
    """Read every `// EXPECT ...` line; a malformed one is a corpus bug and raises ValueError."""
    result = Expectations()
    for number, line in enumerate(source.split("\n"), start=1):
        m = EXPECT.match(line.strip())
        if not m:
            continue
        rest = m.group(1)
        flag = rest.strip()
        if flag in FLAGS:
            result.no_warnings |= flag == "no-warnings"
            result.only_listed_errors |= flag == "only-listed-errors"
            continue
        d = EXPECT_DIAGNOSTIC.match(rest)
        if not d:
            raise ValueError(f"line {number}: malformed EXPECT line: {line!r}")
        result.diagnostics.append(
            Expected(d.group(1), int(d.group(2)), int(d.group(3)), d.group(4))
        )
    return result


def _severity(diag: Any) -> str:
    return getattr(diag.severity, "value", diag.severity)


def mismatches(kind: str, expected: Expectations, diagnostics: list[Any]) -> list[str]:
    """Every way the actual diagnostics violate the expectations (empty list = conforming)."""
    problems = [
        f"missing   {e}" for e in expected.diagnostics if not any(e.matches(d) for d in diagnostics)
    ]
    errors = [d for d in diagnostics if _severity(d) == "error"]
    warnings = [d for d in diagnostics if _severity(d) == "warning"]
    listed_errors = [e for e in expected.diagnostics if e.severity == "error"]
    if kind == "valid":
        unexpected = errors
    elif expected.only_listed_errors:
        unexpected = [d for d in errors if not any(e.matches(d) for e in listed_errors)]
    else:
        positions = {(e.line, e.column) for e in listed_errors}
        unexpected = [d for d in errors if (d.line, d.column) not in positions]
    if expected.no_warnings:
        listed_warnings = [e for e in expected.diagnostics if e.severity == "warning"]
        unexpected += [d for d in warnings if not any(e.matches(d) for e in listed_warnings)]
    problems += [f"unexpected {d.line}:{d.column}: {_severity(d)}: {d.message}" for d in unexpected]
    return problems


def corpus_files() -> list[Path]:
    return sorted(p for kind in KINDS for p in (CORPUS / kind).glob("*.st"))


def _rel(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


def _front_end() -> Callable[[str, str], Any]:
    try:
        from stc.frontend import check_source
    except ImportError as exc:  # the front end is written in parallel with this corpus
        pytest.fail(f"stc.frontend.check_source is not available: {exc}")
    return check_source


def _diagnostics(check_source: Callable[[str, str], Any], text: str, name: str) -> list[Any]:
    try:
        result = check_source(text, name)
    except Exception as exc:  # any Python exception on any input is a front-end bug
        pytest.fail(f"check_source raised {type(exc).__name__}: {exc} on {name}")
    return list(result.diagnostics.errors) + list(result.diagnostics.warnings)


FILES = corpus_files()


# --- the corpus itself (no front end needed) ---------------------------------------------------


def test_corpus_is_large_enough_and_covers_every_section() -> None:
    sections = {p.name[:2] for p in FILES}
    assert len(FILES) >= 150
    assert {f"{n:02d}" for n in range(1, 14)} <= sections


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_corpus_file_is_well_formed(path: Path) -> None:
    text = path.read_text(encoding="ascii")
    assert FILE_NAME.match(path.name), "name must be <section>_<topic>.st"
    expected = parse_expectations(text)
    lines = text.split("\n")
    for e in expected.diagnostics:
        assert 1 <= e.line <= len(lines) and 1 <= e.column <= max(len(lines[e.line - 1]), 1), str(e)
    errors = [e for e in expected.diagnostics if e.severity == "error"]
    if path.parent.name == "valid":
        assert not errors and not expected.only_listed_errors
    else:
        assert errors, "an invalid program must list at least one error"


# The messages ST_LANGUAGE.md spells out; each must be demanded by at least one corpus file.
SPEC_MESSAGES = [
    "multiple PROGRAMs; keep one or add a CONFIGURATION",
    "UNION is not supported",
    "ambiguous enumerator",
    "use REAL_TO_INT (rounds) or TRUNC (truncates)",
    "comparison used as statement; did you mean ':='?",
    "use ELSIF",
    "JMP/labels are not supported",
    "EN/ENO are not supported",
    "unknown function block type 'RTC'",
    "PROPERTY is not supported; use a METHOD or a VAR_OUTPUT",
    "object-oriented inheritance/interfaces are not supported",
    "pointers/references/dynamic memory are not supported",
    "ACTIONs are not supported",
    "ExST assignment forms are not supported",
    "not supported by plantloop",
    "unknown function",
    "unknown function ROUND; use REAL_TO_INT (ties to even) or TRUNC",
    "implicit conversion DINT -> INT",
]


@pytest.mark.parametrize("message", SPEC_MESSAGES)
def test_every_spec_message_is_exercised(message: str) -> None:
    texts = {e.text for p in FILES for e in parse_expectations(p.read_text()).diagnostics}
    assert any(message in t for t in texts)


def test_expectation_parser_and_matcher() -> None:
    src = "// EXPECT error 3:5 use ELSIF\n// EXPECT only-listed-errors\nPROGRAM P\nEND_PROGRAM\n"
    exp = parse_expectations(src)
    assert exp.diagnostics == [Expected("error", 3, 5, "use ELSIF")] and exp.only_listed_errors

    @dataclass
    class D:
        severity: str
        message: str
        line: int
        column: int

    good = D("error", "ELSEIF is not ST; use ELSIF", 3, 5)
    assert mismatches("invalid", exp, [good]) == []
    assert len(mismatches("invalid", exp, [])) == 1
    assert len(mismatches("invalid", exp, [good, D("error", "other", 3, 5)])) == 1
    assert len(mismatches("valid", Expectations(no_warnings=True), [D("warning", "w", 1, 1)])) == 1
    with pytest.raises(ValueError):
        parse_expectations("// EXPECT eror 1:1 x\n")


# --- the front end against the corpus ------------------------------------------------------------


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_conformance(path: Path) -> None:
    check_source = _front_end()
    text = path.read_text(encoding="ascii")
    expected = parse_expectations(text)
    actual = _diagnostics(check_source, text, _rel(path))
    problems = mismatches(path.parent.name, expected, actual)
    if problems:
        want = "\n".join(f"  {e}" for e in expected.diagnostics) or "  (none)"
        got = (
            "\n".join(f"  {d.line}:{d.column}: {_severity(d)}: {d.message}" for d in actual)
            or "  (none)"
        )
        pytest.fail(
            f"{_rel(path)}\nexpected:\n{want}\nactual:\n{got}\nproblems:\n  "
            + "\n  ".join(problems)
        )


@pytest.mark.parametrize("path", FILES[::3], ids=_rel)
def test_truncated_input_never_raises(path: Path) -> None:
    """Cutting a program mid-token must give diagnostics, never a traceback."""
    check_source = _front_end()
    text = path.read_text(encoding="ascii")
    for cut in (len(text) // 3, (2 * len(text)) // 3):
        result = _diagnostics(check_source, text[:cut], _rel(path))
        assert any(_severity(d) == "error" for d in result) or cut == 0


# Hostile or degenerate inputs: (source, True = must be rejected / False = must check clean).
_DECL = "PROGRAM P\nVAR\n  x : INT;\n  s : STRING(80);\nEND_VAR\n"
ADVERSARIAL: dict[str, tuple[str, bool]] = {
    "empty": ("", True),
    "open_comment": ("(*", True),
    "lone_quote": ("'", True),
    "keyword_only": ("PROGRAM", True),
    "nul_and_high_bytes": ("PROGRAM P\x00\xff END_PROGRAM", True),
    "open_pragma": ("PROGRAM P { attribute\nEND_PROGRAM", True),
    "non_latin1_name": (_DECL + "x := \u4e2d;\nEND_PROGRAM", True),
    "huge_literal": (_DECL + "x := " + "9" * 400 + ";\nEND_PROGRAM", True),
    "deep_parentheses": (_DECL + "x := " + "(" * 3000 + "1" + ")" * 3000 + ";\nEND_PROGRAM", True),
    "deep_ifs": (
        _DECL + "IF TRUE THEN\n" * 600 + "x := 1;\n" + "END_IF;\n" * 600 + "END_PROGRAM",
        True,
    ),
    "huge_array": (
        "PROGRAM P\nVAR\n  a : ARRAY[0..2000000000] OF LREAL;\nEND_VAR\nEND_PROGRAM",
        True,
    ),
    "long_sum": (_DECL + "x := " + " + ".join(["1"] * 500) + ";\nEND_PROGRAM", False),
    "python_names": (
        "PROGRAM P\nVAR\n  __import__, eval_ : INT;\nEND_VAR\n__import__ := eval_;\nEND_PROGRAM",
        False,
    ),
    "python_in_string": (_DECL + 's := \'__import__("os").system("exit 1")\';\nEND_PROGRAM', False),
    "crlf_line_ends": (_DECL.replace("\n", "\r\n") + "x := 1;\r\nEND_PROGRAM\r\n", False),
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_input(name: str) -> None:
    """Degenerate input gives diagnostics (or none, if it is valid ST), never a traceback."""
    source, rejected = ADVERSARIAL[name]
    diagnostics = _diagnostics(_front_end(), source, f"{name}.st")
    errors = [f"{d.line}:{d.column}: {d.message}" for d in diagnostics if _severity(d) == "error"]
    assert bool(errors) == rejected, errors
