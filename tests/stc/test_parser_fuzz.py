"""Fuzzing: any text gives a tree or diagnostics, never an exception (hypothesis)."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stc import ast
from stc.diagnostics import Diagnostics
from stc.parser import parse

VOCABULARY = [
    # structure
    "PROGRAM", "END_PROGRAM", "FUNCTION", "END_FUNCTION", "FUNCTION_BLOCK", "END_FUNCTION_BLOCK",
    "METHOD", "END_METHOD", "VAR", "VAR_INPUT", "VAR_OUTPUT", "VAR_IN_OUT", "END_VAR", "CONSTANT",
    "TYPE", "END_TYPE", "STRUCT", "END_STRUCT", "ARRAY", "OF", "AT", "STRING", "CONFIGURATION",
    "RESOURCE", "TASK", "WITH", "ON",
    # statements
    "IF", "THEN", "ELSIF", "ELSEIF", "ELSE", "END_IF", "CASE", "END_CASE", "FOR", "TO", "BY", "DO",
    "END_FOR", "WHILE", "END_WHILE", "REPEAT", "UNTIL", "END_REPEAT", "EXIT", "CONTINUE", "RETURN",
    "JMP",
    # rejected constructs
    "POINTER", "REFERENCE", "UNION", "PROPERTY", "ACTION", "INTERFACE", "EXTENDS", "SUPER", "THIS",
    "__TRY", "__ENDTRY", "STEP", "TRANSITION", "^", "REF=", "S=", "R=",
    # operators and punctuation
    ":=", "=>", "=", "<>", "<", ">", "<=", ">=", "+", "-", "*", "/", "**", "MOD", "AND", "OR",
    "XOR", "NOT", "&", "AND_THEN", "OR_ELSE", "(", ")", "[", "]", ",", ";", ":", ".", "..", "#",
    "(*", "*)", "/*", "*/", "//", "{", "}", "\n",
    # names and literals
    "x", "y", "tmr", "INT", "BOOL", "REAL", "TON", "E_State", "16#FF", "2#1", "1_000", "1.5", "3E2",
    "INT#-5", "T#1s500ms", "LT#5us", "TOD#12:00:00", "D#2024-01-31", "DT#2024-01-31-00:00:00",
    "'str'", "'$L$'$$'", '"w"', "'bad$", "TRUE", "FALSE", "E_State#RUN", "%IX0.0", "%QW4", "%I*",
]

SEEDS = [
    """PROGRAM Main
VAR
    start AT %IX0.0 : BOOL; motor AT %QX0.0 : BOOL;
    t : TON := (PT := T#2s); n : INT; arr : ARRAY[1..4] OF REAL := [1.0, 3(0.0)];
END_VAR
t(IN := start AND NOT motor, Q => motor);
IF n > 3 THEN n := 0; ELSIF n < -1 THEN n := 1; ELSE n := n + 1; END_IF;
CASE n OF 1, 2: arr[n] := -arr[n] ** 2.0; 3..4: ; ELSE n := 0; END_CASE
FOR n := 1 TO 4 BY 1 DO arr[n] := arr[n] * 0.5; IF arr[n] < 0.1 THEN EXIT; END_IF END_FOR
END_PROGRAM
""",
    """TYPE E_State : (IDLE, RUN := 5, DONE); ST_P : STRUCT x : REAL; y : REAL := 1.0; END_STRUCT; END_TYPE
FUNCTION_BLOCK FB_Pump
VAR_INPUT go : BOOL; END_VAR VAR_OUTPUT busy : BOOL; END_VAR
VAR s : E_State := E_State#IDLE; p : ST_P; w : WORD; END_VAR
METHOD PUBLIC Reset : BOOL s := IDLE; Reset := TRUE; END_METHOD
WHILE s <> DONE DO s := DONE; END_WHILE
REPEAT busy := w.3 OR_ELSE go; UNTIL TRUE END_REPEAT
busy := THIS^.Reset() AND p.x > 1.0;
END_FUNCTION_BLOCK
FUNCTION Twice : INT VAR_INPUT v : INT; END_VAR Twice := v * 2; END_FUNCTION
""",
]

_TOKEN = re.compile(r"'(?:\$.|[^'$\n])*'|\"(?:\$.|[^\"$\n])*\"|\w+#[-\w.:#]+|%\w+(?:\.\d+)?|\w+|:=|=>|<=|>=|<>|\*\*|\S")
_FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # 100 examples each


def check_never_raises(text: str) -> None:
    diags = Diagnostics("fuzz.st")
    tree = parse(text, "fuzz.st", diags)
    assert tree is None or isinstance(tree, ast.SourceFile)
    if tree is None:
        assert diags.has_errors
    lines = text.count("\n") + 1
    for d in diags.items:
        assert 1 <= d.line <= lines + 1 and d.column >= 1
        assert "Traceback" not in d.message


@_FUZZ
@given(st.lists(st.sampled_from(VOCABULARY), max_size=80), st.sampled_from([" ", "\n", "", "\t"]))
def test_random_token_streams(tokens: list[str], separator: str) -> None:
    check_never_raises(separator.join(tokens))


@_FUZZ
@given(st.lists(st.sampled_from(VOCABULARY), max_size=40))
def test_token_streams_inside_a_program_body(tokens: list[str]) -> None:
    check_never_raises("PROGRAM P\nVAR x, y : INT; END_VAR\n" + " ".join(tokens) + "\nEND_PROGRAM\n")


@st.composite
def mutated_program(draw: st.DrawFn) -> str:
    tokens = _TOKEN.findall(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "swap", "duplicate"]))
        i = draw(st.integers(0, len(tokens) - 1))
        if kind == "delete" and len(tokens) > 1:
            del tokens[i]
        elif kind == "insert":
            tokens.insert(i, draw(st.sampled_from(VOCABULARY)))
        elif kind == "swap":
            j = draw(st.integers(0, len(tokens) - 1))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        else:
            tokens.insert(i, tokens[i])
    return " ".join(tokens)


@_FUZZ
@given(mutated_program())
def test_token_mutations_of_valid_programs(text: str) -> None:
    check_never_raises(text)


@_FUZZ
@given(st.sampled_from(SEEDS), st.lists(st.tuples(st.integers(0, 2000), st.sampled_from(
    ["", "(", ")", "*", "'", '"', "$", "{", "}", "/", "#", ";", ":", "=", "^", "\n", "\x00", "é"]
)), min_size=1, max_size=5))
def test_character_mutations_of_valid_programs(seed: str, edits: list[tuple[int, str]]) -> None:
    text = seed
    for where, char in edits:
        i = where % len(text)
        text = text[:i] + char + text[i + 1:] if char == "" or where % 2 else text[:i] + char + text[i:]
    check_never_raises(text)


def test_seeds_are_valid_programs() -> None:
    """The mutation tests start from programs that parse cleanly (otherwise they test less)."""
    for seed in SEEDS:
        diags = Diagnostics("seed.st")
        assert parse(seed, "seed.st", diags) is not None and not diags.items, diags.render(seed)
