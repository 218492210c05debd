"""Hostile ST programs (untrusted input): each gets diagnostics or runtime errors, nothing else.

Generated code never contains program text: identifiers are replaced by our own names and
string literals live in the data arrays, so nothing written in a program can execute.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stc.compiler import compile_source
from stc.runner import CompiledRunner

BREAKOUT = """
PROGRAM __import__
VAR
  os : INT;
  eval__ : STRING := '"); __import__($'os$').system($'touch PWNED$') #';
  exec_ : STRING := '$N$Rimport os$Nos.system($'touch PWNED$')$N';
  quotes : STRING := '$'$'$'""\\\\';
  __class__ : INT := 7;
END_VAR
os := __class__ * 6;
eval__ := CONCAT(eval__, '$N)');
END_PROGRAM
"""


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


def _compile(src: str, cache: Path):
    result = compile_source(src, "hostile.st", cache_dir=cache)
    return result


def test_identifiers_and_strings_never_reach_generated_code(cache: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = _compile(BREAKOUT, cache)
    assert result.program is not None, result.diagnostics.render()
    runner = CompiledRunner(result.program)
    assert runner.scan() is None
    s = runner.snapshot()
    assert s["os"] == 42
    assert s["eval__"].startswith('"); __import__(\'os\')') and s["eval__"].endswith("\n)")
    assert s["exec_"] == "\n\rimport os\nos.system('touch PWNED')\n"
    text = Path(result.program.module_path).read_text()
    for needle in ("__import__", "system", "PWNED", "__class__", "eval__", "exec_"):
        assert needle not in text
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("src", [
    "PROGRAM P VAR x : LINT := 999999999999999999999999999999; END_VAR END_PROGRAM",
    "PROGRAM P VAR a : ARRAY[1..2000000000] OF LREAL; END_VAR END_PROGRAM",
    "PROGRAM P VAR \u00e9t\u00e9 : INT; END_VAR END_PROGRAM",
    "PROGRAM P VAR x : INT; END_VAR x := " + "(" * 500 + "1" + ")" * 500 + "; END_PROGRAM",
    "PROGRAM P VAR x : INT; END_VAR {attribute 'x'} x := 1; \x00 END_PROGRAM",
])
def test_rejected_with_diagnostics(cache: Path, src: str) -> None:
    result = _compile(src, cache)
    assert result.program is None and result.diagnostics.has_errors


def test_memory_limit_is_a_clear_error(cache: Path) -> None:
    decls = " ".join(f"a{k} : ARRAY[1..500] OF STRING(65535);" for k in range(3))  # 3 x 32 MB
    result = _compile(f"PROGRAM P VAR {decls} END_VAR END_PROGRAM", cache)
    assert result.program is None
    assert any("memory too large" in d.message for d in result.diagnostics.errors)


def test_deep_loop_nesting_is_a_diagnostic(cache: Path) -> None:
    depth = 25
    head = "".join(f"FOR i{k} := 1 TO 1 DO " for k in range(depth))
    decl = " ".join(f"i{k} : INT;" for k in range(depth))
    src = f"PROGRAM P VAR {decl} END_VAR {head} ; {'END_FOR; ' * depth} END_PROGRAM"
    result = _compile(src, cache)
    assert result.diagnostics.has_errors and result.program is None


def test_deep_expression_compiles_or_is_rejected_cleanly(cache: Path) -> None:
    expr = "x" + " + (x" * 40 + ")" * 40
    result = _compile(f"PROGRAM P VAR x : DINT := 1; y : DINT; END_VAR y := {expr}; END_PROGRAM", cache)
    if result.program is not None:
        runner = CompiledRunner(result.program)
        assert runner.scan() is None and runner.snapshot()["y"] == 41
    else:
        assert result.diagnostics.has_errors


def test_runaway_loop_is_stopped_by_the_watchdog(cache: Path) -> None:
    src = "PROGRAM P VAR n : DINT; END_VAR WHILE TRUE DO n := n + 1; END_WHILE; END_PROGRAM"
    result = _compile(src, cache)
    assert result.program is not None
    record = CompiledRunner(result.program).scan()
    assert record is not None and record.code == "WATCHDOG"
