"""Binding a program's I/O list to a task's I/O map: slot tables and diagnostics."""

from __future__ import annotations

import pytest

from stc.compiler import compile_source
from tests.verifier.echo_plant import TASK
from verifier.bind import bind


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / "plantloop-cache"
    path.mkdir(exist_ok=True)
    return path


def _bind(decls: str, body: str, cache_dir):
    src = f"PROGRAM P\nVAR\n{decls}\nEND_VAR\n{body}\nEND_PROGRAM\n"
    res = compile_source(src, "p.st", cache_dir=cache_dir)
    assert res.program is not None, res.diagnostics.render(src)
    return res.program, bind(res.program, TASK, "p.st")


def _messages(binding, severity: str) -> list[str]:
    return [d.message for d in binding.diagnostics.sorted() if d.severity.value == severity]


def test_exact_addresses_bind_with_slots_and_no_diagnostics(cache_dir) -> None:
    program, b = _bind("a AT %IW140 : INT; s AT %IX0.0 : BOOL; y AT %QW140 : INT; q AT %QX0.0 : BOOL;",
                       "y := a; q := s;", cache_dir)
    assert b.ok and b.diagnostics.items == []
    assert b.bound == {"A": "a", "S": "s", "Y": "y", "Q": "q"}
    # image index, store (mi), offset, bits, signed
    assert b.inputs.tolist() == [[0, 0, program.io_slot("%IW140").offset, 16, 1],
                                 [1, 0, program.io_slot("%IX0.0").offset, 1, 0]]
    assert sorted(r[0] for r in b.outputs.tolist()) == [0, 1]


def test_wildcard_variables_bind_by_name_case_insensitively(cache_dir) -> None:
    _, b = _bind("a AT %I* : INT; Y AT %Q* : INT; q AT %Q* : BOOL;", "y := a;", cache_dir)
    assert b.ok and b.diagnostics.items == []
    assert b.bound == {"A": "a", "Y": "Y", "Q": "q"}
    assert b.inputs.shape == (1, 5) and b.outputs.shape == (2, 5)


def test_wildcard_of_the_wrong_direction_is_an_error(cache_dir) -> None:
    _, b = _bind("y AT %I* : INT; s AT %Q* : BOOL;", "", cache_dir)
    errors = _messages(b, "error")
    assert not b.ok and len(errors) == 2
    assert "names the task's output Y (%QW140 INT); declare it AT %Q*" in errors[0]
    assert "names the task's input S (%IX0.0 BOOL); declare it AT %I*" in errors[1]


def test_type_that_does_not_fit_the_signal_is_an_error(cache_dir) -> None:
    _, b = _bind("a AT %I* : BOOL; s AT %I* : INT; y AT %Q* : DINT;", "", cache_dir)
    errors = _messages(b, "error")
    assert len(errors) == 3 and all("does not fit the task's signal" in e for e in errors)
    assert b.inputs.shape == (0, 5) and b.outputs.shape == (0, 5)


def test_same_size_integer_of_another_type_is_a_warning_and_wraps(cache_dir) -> None:
    _, b = _bind("a AT %IW140 : WORD; y AT %QW140 : UINT;", "y := a;", cache_dir)
    assert b.ok
    warnings = _messages(b, "warning")
    assert len(warnings) == 2 and all("bit pattern is reinterpreted" in w for w in warnings)
    assert b.inputs[0, 3:].tolist() == [16, 0]  # wrapped to the program's WORD on the way in
    assert b.outputs[0, 3:].tolist() == [16, 1]  # and to the signal's INT on the way out


def test_unlisted_addresses_are_warnings_and_not_bound(cache_dir) -> None:
    _, b = _bind("i AT %IX7.0 : BOOL; o AT %QX7.0 : BOOL; z AT %I* : BOOL; m AT %MX0.0 : BOOL;",
                 "o := i OR z; m := TRUE;", cache_dir)
    assert b.ok and b.bound == {}
    warnings = _messages(b, "warning")
    assert any("'i' (%IX7.0)" in w and "reads FALSE/0" in w for w in warnings)
    assert any("'o' (%QX7.0)" in w and "ignored and never judged" in w for w in warnings)
    assert any("'z' (%I*)" in w and "name 'Z'" in w for w in warnings)
    assert not any("%MX0.0" in w for w in warnings)


def test_two_variables_driving_one_output_is_an_error(cache_dir) -> None:
    _, b = _bind("q1 AT %QX0.0 : BOOL; Q AT %Q* : BOOL;", "q1 := TRUE; Q := FALSE;", cache_dir)
    errors = _messages(b, "error")
    assert len(errors) == 1 and "both drive the task's output Q" in errors[0]
    assert b.outputs.shape == (1, 5)


def test_diagnostics_carry_file_and_declaration_position(cache_dir) -> None:
    _, b = _bind("ok AT %IX0.0 : BOOL;\n  a AT %I* : LREAL;", "", cache_dir)
    (d,) = b.diagnostics.errors
    assert (d.file, d.line) == ("p.st", 4)
