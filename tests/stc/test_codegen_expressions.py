"""Compiled expressions against values computed by hand from ST_LANGUAGE.md (§4-§6, §9).

One program per topic with many variables keeps numba compiles few; the expected values
are the spec's own examples or derived from its rules, never from running the code.
"""

from __future__ import annotations

import numpy as np
import pytest

from stc.compiler import compile_source
from stc.runner import CompiledRunner

ARITH = """
PROGRAM Main
VAR
  i : INT := 32767;
  u : UINT := 0;
  q, q2, w1, w2 : INT;
  d, d2, d3, d4, d5 : DINT;
  cmp : BOOL;
  u2 : UINT;
  c1, c2, c3, c4, c5 : INT;
  s1 : WORD; s2 : DWORD; s3 : WORD; s4 : BYTE; s5 : INT; s6 : BYTE;
  r, r2, r3 : REAL;
  lr : LREAL;
  e1, e2 : LREAL;
  x : REAL := 3.0;
  neg : REAL;
  bits : WORD;
  bt : BOOL;
  mn, mx, lim, sl, mx3 : INT;
  ab : INT;
  ab2 : SINT := -128;
  tm : TIME;
  tdiv : TIME;
  lt : LINT;
  ul : ULINT;
  cmpu : BOOL;
END_VAR
q := (i + 1) / 2;
d := i + 1;
cmp := i + 1 > i;
i := i + 1;
u := u - 1;
d2 := -7 / 2;
d3 := 7 / -2;
d4 := -7 MOD 3;
d5 := 7 MOD -3;
c1 := DINT_TO_INT(70000);
c2 := WORD_TO_INT(16#FFFF);
u2 := INT_TO_UINT(-1);
c3 := REAL_TO_INT(2.5);
c4 := REAL_TO_INT(3.5);
c5 := REAL_TO_INT(-2.5);
s1 := SHL(WORD#16#8001, 1);
s2 := SHL(DWORD#16#8001, 1);
s3 := ROL(WORD#16#8001, 1);
s4 := ROR(BYTE#16#01, 1);
s5 := SHL(INT#16#4000, 1);
s6 := NOT BYTE#16#0F;
r := 0.1;
r2 := r + 0.2;
lr := 0.1;
lr := lr + 0.2;
e1 := 2.0 ** 3.0 ** 2.0;
neg := -x ** 2.0;
r3 := 1.0 / 3.0;
bits.15 := TRUE;
bits.0 := TRUE;
bt := bits.15;
mn := MIN(5, 3, 9);
mx := MAX(5, 3, 9);
lim := LIMIT(0, 150, 100);
sl := SEL(TRUE, 1, 2);
mx3 := MUX(2, 10, 20, 30);
ab := ABS(ab2);
tm := T#10s / 3;
tdiv := T#1s500ms + T#250ms;
w1 := 7 / 2 * 2;
w2 := -32768;
w2 := -w2;
lt := 9223372036854775807;
lt := lt + 1;
ul := 0;
ul := ul - 1;
cmpu := UINT#65535 > INT#-1;
END_PROGRAM
"""


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory):
    return tmp_path_factory.mktemp("plantloop-cache")


def run(source: str, cache, scans: int = 1) -> dict:
    result = compile_source(source, "t.st", cache_dir=cache)
    assert result.program is not None, result.diagnostics.render()
    runner = CompiledRunner(result.program)
    for _ in range(scans):
        assert runner.scan() is None
    return runner.snapshot()


def test_integer_and_real_arithmetic(cache) -> None:
    s = run(ARITH, cache)
    assert s["q"] == 16384 and s["d"] == 32768 and s["cmp"] is True  # §6.3 examples
    assert s["i"] == -32768 and s["u"] == 65535  # §5.3 store wrap
    assert (s["d2"], s["d3"], s["d4"], s["d5"]) == (-3, -3, -1, 1)  # truncating / and MOD
    assert (s["c1"], s["c2"], s["u2"]) == (4464, -1, 65535)  # §5.2
    assert (s["c3"], s["c4"], s["c5"]) == (2, 4, -2)  # ties to even
    assert (s["s1"], s["s2"], s["s3"], s["s4"], s["s5"]) == (0x0002, 0x0001_0002, 0x0003, 0x80, -32768)
    assert s["s6"] == 0xF0
    assert s["r2"] == float(np.float32(np.float32(0.1) + np.float32(0.2)))  # binary32 per operation
    assert s["lr"] == 0.1 + 0.2
    assert s["e1"] == 64.0 and s["neg"] == 9.0  # `**` left-assoc, unary minus binds tighter
    assert s["r3"] == float(np.float32(1.0) / np.float32(3.0))
    assert s["bits"] == 0x8001 and s["bt"] is True
    assert (s["mn"], s["mx"], s["lim"], s["sl"], s["mx3"]) == (3, 9, 100, 2, 30)
    assert s["ab"] == 128  # ABS of SINT -128 is exact in the expression, stored in INT
    assert s["tm"] == 3333 and s["tdiv"] == 1750
    assert s["w1"] == 6 and s["w2"] == -32768
    assert s["lt"] == -(2**63) and s["ul"] == 2**64 - 1
    assert s["cmpu"] is True


STRINGS = """
PROGRAM Main
VAR
  a : STRING := 'ASTRING';
  m, ins, del, rep, cat, l3, r2, short : STRING;
  f, n : INT;
  tiny : STRING(3);
  num : STRING;
  back : DINT;
  eq, lt : BOOL;
  q : STRING := 'It$'s';
  w : WSTRING := "h$00E9";
END_VAR
m := MID(a, 3, 2);
ins := INSERT('ABC', 'XY', 2);
del := DELETE('ABXYC', 2, 3);
rep := REPLACE('ABCDE', 'X', 2, 3);
f := FIND('ABCBC', 'BC');
cat := CONCAT('ab', 'cd', 'ef');
l3 := LEFT(a, 3);
r2 := RIGHT(a, 2);
n := LEN(a);
tiny := a;
num := DINT_TO_STRING(-42);
back := STRING_TO_DINT(' 16#FF ');
eq := l3 = 'AST';
lt := 'ABC' < 'ABD';
END_PROGRAM
"""


def test_string_functions(cache) -> None:
    s = run(STRINGS, cache)
    assert (s["m"], s["ins"], s["del"], s["rep"], s["f"]) == ("STR", "ABXYC", "ABC", "ABXE", 2)  # §9 examples
    assert (s["cat"], s["l3"], s["r2"], s["n"]) == ("abcdef", "AST", "NG", 7)
    assert s["tiny"] == "AST"  # truncated to the destination length on store
    assert s["num"] == "-42" and s["back"] == 255
    assert s["eq"] is True and s["lt"] is True
    assert s["q"] == "It's" and s["w"] == "hé"
