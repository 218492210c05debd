"""Hypothesis strategy for random, well-typed ST programs and input sequences (differential tests).

A program has a fixed set of declarations (every elementary type family, enum, struct,
arrays incl. 2-D and arrays of structs, STRING, standard and user FB instances, a user
FUNCTION with VAR_STAT, a FUNCTION with VAR_IN_OUT, a METHOD, located inputs) with random
initial values, and random bodies for Main, the user FB and the user FUNCTION: assignments
over every type, IF/CASE/FOR/WHILE/REPEAT with EXIT/CONTINUE, FB and function calls.
Divisors, array indices and REAL->integer conversions are mostly guarded so runs last,
but a few unguarded ones are drawn on purpose so runtime errors are compared too.
Every choice is a hypothesis draw, so failures shrink.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

INT_KINDS = ("SINT", "INT", "DINT", "LINT", "USINT", "UINT", "UDINT", "ULINT", "BYTE", "WORD", "DWORD", "LWORD")
RANGES = {
    "SINT": (-128, 127), "INT": (-32768, 32767), "DINT": (-(2**31), 2**31 - 1), "LINT": (-(2**63), 2**63 - 1),
    "USINT": (0, 255), "UINT": (0, 65535), "UDINT": (0, 2**32 - 1), "ULINT": (0, 2**64 - 1),
    "BYTE": (0, 255), "WORD": (0, 65535), "DWORD": (0, 2**32 - 1), "LWORD": (0, 2**64 - 1),
}  # fmt: skip
BIT_KINDS = ("BYTE", "WORD", "DWORD", "LWORD")
WIDTH = {"SINT": 8, "USINT": 8, "BYTE": 8, "INT": 16, "UINT": 16, "WORD": 16, "DINT": 32, "UDINT": 32,
         "DWORD": 32, "LINT": 64, "ULINT": 64, "LWORD": 64}
ENUM_VALUES = ("M_IDLE", "M_RUN", "M_STOP", "M_DONE")
WORDS = ("", "a", "AB", "xyz", "Hello", "b_c", "123", "ZZ top")
REALS = ("0.0", "1.0", "-2.5", "0.1", "3.75", "100.0", "-0.001", "1.0E6", "2.5E-3", "7.0", "3.0E38", "-1.0E-40",
         "16777217.0", "-0.0")
TIMES = ("T#0ms", "T#10ms", "T#30ms", "T#50ms", "T#100ms", "T#1s", "T#250ms")
INPUTS = {"%IX0.0": "BOOL", "%IX0.1": "BOOL", "%IW2": "INT", "%ID4": "DINT", "%ID8": "REAL"}

TYPES = """TYPE
    E_Mode : (M_IDLE, M_RUN, M_STOP := 10, M_DONE);
    ST_Rec : STRUCT
        a : INT := 1;
        x : REAL := 0.5;
        f : BOOL;
        arr : ARRAY[0..3] OF DINT;
        tag : STRING(8) := 'rec';
    END_STRUCT;
END_TYPE
"""


@dataclass
class Scope:
    """What a body may read and write: variable paths by kind."""

    reads: dict[str, list[str]] = field(default_factory=dict)
    writes: dict[str, list[str]] = field(default_factory=dict)
    int_arrays: list[tuple[str, int, int]] = field(default_factory=list)  # (name, lo, hi), INT elements
    loop_vars: list[str] = field(default_factory=list)
    counters: list[str] = field(default_factory=list)
    fbs: list[tuple[str, str]] = field(default_factory=list)  # (instance, type)
    calls_function: bool = True
    calls_acc: bool = False
    result: str | None = None

    def add(self, kind: str, path: str, writable: bool = True) -> None:
        self.reads.setdefault(kind, []).append(path)
        if writable:
            self.writes.setdefault(kind, []).append(path)


@dataclass
class GeneratedProgram:
    text: str
    inputs: list[dict[str, Any]]


class Writer:
    """Draws one program; `draw` is hypothesis's draw function."""

    def __init__(self, draw: Any, max_depth: int = 3) -> None:
        self.draw = draw
        self.max_depth = max_depth
        self.loop_depth = 0

    # ------------------------------------------------------------------ choices

    def pick(self, options: Any) -> Any:
        return self.draw(st.sampled_from(list(options)))

    def chance(self, p: float) -> bool:
        return self.draw(st.integers(0, 999)) < p * 1000

    def int_literal(self, kind: str) -> str:
        lo, hi = RANGES[kind]
        v = self.draw(st.one_of(st.integers(max(lo, -20), min(hi, 20)), st.integers(lo, hi)))
        return f"{kind}#{v}" if v < 0 else str(v)

    # ------------------------------------------------------------------ expressions

    def expr(self, kind: str, sc: Scope, depth: int = 0) -> str:
        if kind == "BOOL":
            return self.bool_expr(sc, depth)
        if kind in RANGES:
            return self.int_expr(sc, depth, kind)
        if kind in ("REAL", "LREAL"):
            return self.real_expr(sc, depth)
        if kind == "TIME":
            return self.time_expr(sc, depth)
        if kind == "STRING":
            return self.string_expr(sc, depth)
        if kind == "ENUM":
            return self.enum_expr(sc)
        raise ValueError(kind)

    def leaf(self, sc: Scope, kinds: tuple[str, ...]) -> str | None:
        names = [p for k in kinds for p in sc.reads.get(k, [])]
        return self.pick(names) if names else None

    def int_expr(self, sc: Scope, depth: int, ctx: str = "DINT") -> str:
        shallow = depth >= self.max_depth
        choice = self.draw(st.integers(0, 3 if shallow else 17))
        if choice <= 1:
            v = self.leaf(sc, INT_KINDS)
            return v if v is not None else self.int_literal(ctx)
        if choice == 2:
            return self.int_literal(ctx if ctx in RANGES else "DINT")
        if choice == 3:
            return self.array_read(sc, depth) or self.int_literal("INT")
        d = depth + 1
        if choice <= 6:
            op = self.pick(("+", "-", "*", "AND", "OR", "XOR"))
            return f"({self.int_expr(sc, d, ctx)} {op} {self.int_expr(sc, d, ctx)})"
        if choice == 7:
            op = self.pick(("/", "MOD"))
            if self.chance(0.03):
                return f"({self.int_expr(sc, d)} {op} {self.int_expr(sc, d)})"  # may divide by zero
            return f"({self.int_expr(sc, d)} {op} ({self.int_expr(sc, d)} MOD 7 + 8))"
        if choice == 8:
            return self.pick(("-", "NOT ")) + f"({self.int_expr(sc, d, ctx)})"
        if choice == 9:
            fn = self.pick(("ABS", "MIN", "MAX", "LIMIT"))
            n = {"ABS": 1, "MIN": 2, "MAX": 3, "LIMIT": 3}[fn]
            return f"{fn}({', '.join(self.int_expr(sc, d) for _ in range(n))})"
        if choice == 10:
            return f"SEL({self.bool_expr(sc, d)}, {self.int_expr(sc, d)}, {self.int_expr(sc, d)})"
        if choice == 11:
            sel = f"(({self.int_expr(sc, d)} MOD 3 + 3) MOD 3)"
            return f"MUX({sel}, {self.int_expr(sc, d)}, {self.int_expr(sc, d)}, {self.int_expr(sc, d)})"
        if choice == 12:
            v = self.leaf(sc, BIT_KINDS) or "WORD#16#8421"
            n = self.pick(("0", "1", "3", "7", "15", "31", "40")) if self.chance(0.8) else \
                f"({self.int_expr(sc, d)} MOD 9 + 9)"
            return f"{self.pick(('SHL', 'SHR', 'ROL', 'ROR'))}({v}, {n})"
        if choice == 13:
            src = self.pick(INT_KINDS)
            dst = self.pick([k for k in INT_KINDS if k != src])
            return f"{src}_TO_{dst}({self.int_expr(sc, d, src)})"
        if choice == 14:
            real = self.real_expr(sc, d)
            fn = self.pick(("REAL_TO_DINT", "LREAL_TO_INT", "TRUNC", "REAL_TO_INT", "LREAL_TO_LINT"))
            if self.chance(0.05):
                return f"{fn}({real})"
            return f"{fn}(LIMIT(-1000.0, {real}, 1000.0))"
        if choice == 15:
            return self.pick((f"TIME_TO_DINT({self.time_expr(sc, d)})", f"BOOL_TO_INT({self.bool_expr(sc, d)})",
                              f"LEN({self.string_expr(sc, d)})",
                              f"FIND({self.string_expr(sc, d)}, {self.string_expr(sc, d)})"))
        if choice == 16 and sc.calls_function:
            if self.chance(0.5):
                return f"F_Mix({self.int_expr(sc, d)}, {self.int_expr(sc, d, 'INT')})"
            return f"F_Mix(x := {self.int_expr(sc, d)})"
        if sc.calls_acc and self.chance(0.5):
            return f"acc.Bump({self.int_expr(sc, d)})"
        return self.leaf(sc, ("CV",)) or self.int_literal("INT")

    def array_read(self, sc: Scope, depth: int) -> str | None:
        if not sc.int_arrays:
            return None
        name, lo, hi = self.pick(sc.int_arrays)
        return f"{name}[{self.index(sc, depth, lo, hi)}]"

    def index(self, sc: Scope, depth: int, lo: int, hi: int) -> str:
        if depth >= self.max_depth or self.chance(0.4):
            return str(self.draw(st.integers(lo, hi)))
        e = self.int_expr(sc, depth + 1)
        if self.chance(0.03):
            return e  # may be out of bounds
        n = hi - lo + 1
        return f"(({e}) MOD {n} + {n}) MOD {n} + {lo}" if lo else f"(({e}) MOD {n} + {n}) MOD {n}"

    def real_expr(self, sc: Scope, depth: int) -> str:
        shallow = depth >= self.max_depth
        choice = self.draw(st.integers(0, 2 if shallow else 9))
        d = depth + 1
        if choice == 0:
            return self.leaf(sc, ("REAL", "LREAL")) or self.pick(REALS)
        if choice == 1:
            return self.pick(REALS)
        if choice == 2:
            return self.leaf(sc, ("REAL",)) or "1.5"
        if choice <= 4:
            op = self.pick(("+", "-", "*"))
            return f"({self.real_expr(sc, d)} {op} {self.real_expr(sc, d)})"
        if choice == 5:
            if self.chance(0.05):
                return f"({self.real_expr(sc, d)} / {self.real_expr(sc, d)})"
            return f"({self.real_expr(sc, d)} / (ABS({self.real_expr(sc, d)}) + 1.0))"
        if choice == 6:
            return f"({self.real_expr(sc, d)} {self.pick(('+', '*', '-'))} {self.int_expr(sc, d, 'INT')})"
        if choice == 7:
            fn = self.pick(("INT_TO_REAL", "DINT_TO_REAL", "DINT_TO_LREAL", "TIME_TO_REAL", "LINT_TO_LREAL"))
            arg = self.time_expr(sc, d) if fn.startswith("TIME") else self.int_expr(sc, d)
            return f"{fn}({arg})"
        if choice == 8:
            fn = self.pick(("ABS", "SQRT", "MIN", "MAX", "LIMIT", "EXPT", "SIN", "COS", "TAN", "ATAN",
                            "ASIN", "ACOS", "LN", "LOG", "EXP", "ATAN2"))
            x = self.real_expr(sc, d)
            if fn == "SQRT":
                return f"SQRT(ABS({x}))"
            if fn in ("SIN", "COS", "TAN", "ATAN"):
                return f"{fn}({x})"
            if fn in ("ASIN", "ACOS", "EXP"):  # arguments kept inside (-1, 1)
                return f"{fn}({x} / (ABS({x}) + 1.0))"
            if fn in ("LN", "LOG"):
                return f"{fn}(ABS({x}) + 1.0)"
            if fn == "ATAN2":
                return f"ATAN2({x}, {self.real_expr(sc, d)})"
            if fn == "EXPT":
                return f"EXPT({self.real_expr(sc, d)}, {self.pick(('2', '3', '0.5', '2.0'))})"
            n = {"ABS": 1, "MIN": 2, "MAX": 2, "LIMIT": 3}[fn]
            return f"{fn}({', '.join(self.real_expr(sc, d) for _ in range(n))})"
        return f"-{self.real_expr(sc, d)}"

    def bool_expr(self, sc: Scope, depth: int) -> str:
        shallow = depth >= self.max_depth
        choice = self.draw(st.integers(0, 2 if shallow else 11))
        d = depth + 1
        if choice <= 1:
            return self.leaf(sc, ("BOOL",)) or self.pick(("TRUE", "FALSE"))
        if choice == 2:
            v = self.leaf(sc, BIT_KINDS + ("INT",))
            return f"{v}.{self.draw(st.integers(0, 7))}" if v else "TRUE"
        if choice <= 4:
            op = self.pick(("=", "<>", "<", ">", "<=", ">="))
            if self.chance(0.3):
                return f"({self.real_expr(sc, d)} {op} {self.int_expr(sc, d)})"
            return f"({self.int_expr(sc, d)} {op} {self.int_expr(sc, d)})"
        if choice == 5:
            op = self.pick(("=", "<>", "<", ">="))
            return f"({self.time_expr(sc, d)} {op} {self.time_expr(sc, d)})"
        if choice == 6:
            return f"({self.string_expr(sc, d)} {self.pick(('=', '<>', '<', '>'))} {self.string_expr(sc, d)})"
        if choice == 7:
            return f"({self.enum_expr(sc)} {self.pick(('=', '<>'))} {self.enum_expr(sc)})"
        if choice <= 9:
            op = self.pick(("AND", "OR", "XOR", "AND_THEN", "OR_ELSE", "&"))
            return f"({self.bool_expr(sc, d)} {op} {self.bool_expr(sc, d)})"
        if choice == 10:
            return f"NOT {self.bool_expr(sc, d)}"
        return self.leaf(sc, ("FBQ",)) or "FALSE"

    def time_expr(self, sc: Scope, depth: int) -> str:
        choice = self.draw(st.integers(0, 1 if depth >= self.max_depth else 5))
        d = depth + 1
        if choice == 0:
            return self.leaf(sc, ("TIME",)) or self.pick(TIMES)
        if choice == 1:
            return self.pick(TIMES)
        if choice == 2:
            return f"({self.time_expr(sc, d)} {self.pick(('+', '-'))} {self.time_expr(sc, d)})"
        if choice == 3:
            return f"({self.time_expr(sc, d)} * {self.pick(('2', '3', '-1'))})"
        if choice == 4:
            return f"({self.time_expr(sc, d)} / {self.pick(('2', '3', '7'))})"
        return f"DINT_TO_TIME({self.int_expr(sc, d, 'INT')})"

    def string_expr(self, sc: Scope, depth: int) -> str:
        choice = self.draw(st.integers(0, 1 if depth >= self.max_depth else 7))
        d = depth + 1
        small = self.pick(("0", "1", "2", "3", "5"))
        if choice == 0:
            return self.leaf(sc, ("STRING",)) or f"'{self.pick(WORDS)}'"
        if choice == 1:
            return f"'{self.pick(WORDS)}'"
        if choice == 2:
            return f"CONCAT({self.string_expr(sc, d)}, {self.string_expr(sc, d)})"
        if choice == 3:
            return f"{self.pick(('LEFT', 'RIGHT'))}({self.string_expr(sc, d)}, {small})"
        if choice == 4:
            return f"MID({self.string_expr(sc, d)}, {small}, {self.pick(('0', '1', '2', '4'))})"
        if choice == 5:
            p = self.pick(("0", "1", "2", "3", "9"))
            fn = self.pick(("INSERT", "DELETE", "REPLACE"))
            if fn == "INSERT":
                return f"INSERT({self.string_expr(sc, d)}, {self.string_expr(sc, d)}, {p})"
            if fn == "DELETE":
                return f"DELETE({self.string_expr(sc, d)}, {small}, {p})"
            return f"REPLACE({self.string_expr(sc, d)}, {self.string_expr(sc, d)}, {small}, {p})"
        if choice == 6:
            return f"{self.pick(('INT_TO_STRING', 'DINT_TO_STRING'))}({self.int_expr(sc, d, 'INT')})"
        return f"BOOL_TO_STRING({self.bool_expr(sc, d)})"

    def enum_expr(self, sc: Scope) -> str:
        if self.chance(0.5):
            v = self.leaf(sc, ("ENUM",))
            if v is not None:
                return v
        return self.pick((*ENUM_VALUES, "E_Mode.M_RUN", "E_Mode#M_DONE"))

    # ------------------------------------------------------------------ statements

    def block(self, sc: Scope, depth: int, n_min: int, n_max: int) -> list[str]:
        n = self.draw(st.integers(n_min, n_max))
        return [self.stmt(sc, depth) for _ in range(n)]

    def stmt(self, sc: Scope, depth: int) -> str:
        shallow = depth >= 2
        choice = self.draw(st.integers(0, 5 if shallow else 13))
        if choice <= 5:
            return self.assign(sc, depth)
        if choice == 6:
            return self.if_stmt(sc, depth)
        if choice == 7:
            return self.case_stmt(sc, depth)
        if choice == 8 and sc.loop_vars:
            return self.for_stmt(sc, depth)
        if choice == 9 and sc.counters:
            return self.while_stmt(sc, depth)
        if choice == 10 and sc.fbs:
            return self.fb_call(sc, depth)
        if choice == 11 and self.loop_depth:
            return f"IF {self.bool_expr(sc, 1)} THEN {self.pick(('EXIT', 'CONTINUE'))}; END_IF;"
        if choice == 12 and sc.calls_function and "INT" in sc.writes:
            a, b = self.pick(sc.writes["INT"]), self.pick(sc.writes["INT"])
            return f"F_Swap({a}, {b});"
        if choice == 13 and "PCT" in sc.writes:
            if self.chance(0.1):
                return f"pct := {self.int_expr(sc, 1, 'SINT')};"  # may leave the subrange
            return f"pct := LIMIT(0, {self.int_expr(sc, 1)}, 100);"
        if choice == 13 and self.chance(0.2):
            return f"IF {self.bool_expr(sc, 1)} THEN RETURN; END_IF;"
        return self.assign(sc, depth)

    def assign(self, sc: Scope, depth: int) -> str:
        kinds = [k for k in sc.writes if sc.writes[k] and k != "PCT"]
        kind = self.pick(kinds)
        target = self.pick(sc.writes[kind])
        if kind in BIT_KINDS and self.chance(0.2):
            return f"{target}.{self.draw(st.integers(0, WIDTH[kind] - 1))} := {self.bool_expr(sc, 1)};"
        if kind in RANGES and sc.int_arrays and self.chance(0.15):
            name, lo, hi = self.pick(sc.int_arrays)
            target = f"{name}[{self.index(sc, 1, lo, hi)}]"
            kind = "INT"
        if kind == "REAL" and self.chance(0.3):
            return f"{target} := {self.int_expr(sc, 0, 'INT')};"
        return f"{target} := {self.expr(kind, sc)};"

    def if_stmt(self, sc: Scope, depth: int) -> str:
        parts = [f"IF {self.bool_expr(sc, 0)} THEN", *self.block(sc, depth + 1, 1, 3)]
        for _ in range(self.draw(st.integers(0, 2))):
            parts += [f"ELSIF {self.bool_expr(sc, 0)} THEN", *self.block(sc, depth + 1, 0, 2)]
        if self.chance(0.5):
            parts += ["ELSE", *self.block(sc, depth + 1, 0, 2)]
        return "\n".join(parts + ["END_IF;"])

    def case_stmt(self, sc: Scope, depth: int) -> str:
        if self.chance(0.3) and "ENUM" in sc.reads:
            parts = [f"CASE {self.enum_expr(sc)} OF"]
            labels = [["M_IDLE"], ["M_RUN", "E_Mode.M_STOP"], ["E_Mode#M_DONE"]]
        else:
            parts = [f"CASE {self.int_expr(sc, 1, 'INT')} OF"]
            labels = [["0"], ["1", "3"], ["5..9"], ["-3..-1", "100"]]
        for lab in labels:
            if self.chance(0.7):
                parts += [", ".join(lab) + ":", *self.block(sc, depth + 1, 0, 2)]
        if self.chance(0.6):
            parts += ["ELSE", *self.block(sc, depth + 1, 0, 2)]
        return "\n".join(parts + ["END_CASE;"])

    def for_stmt(self, sc: Scope, depth: int) -> str:
        v = sc.loop_vars[0]
        inner = Scope(sc.reads, {k: [p for p in ps if p != v] for k, ps in sc.writes.items()}, sc.int_arrays,
                      sc.loop_vars[1:], sc.counters, sc.fbs, sc.calls_function, sc.calls_acc, sc.result)
        start = self.pick(("0", "1", "-2", "5", "10"))
        end = self.pick(("0", "3", "5", "7", "-4", f"TO_INT({self.int_expr(sc, 2)} MOD 6)"))
        step = self.pick(("", "", " BY 2", " BY -1", " BY -3"))
        self.loop_depth += 1
        body = self.block(inner, depth + 1, 1, 3)
        self.loop_depth -= 1
        return "\n".join([f"FOR {v} := {start} TO {end}{step} DO", *body, "END_FOR;"])

    def while_stmt(self, sc: Scope, depth: int) -> str:
        c = sc.counters[0]
        inner = Scope(sc.reads, {k: [p for p in ps if p != c] for k, ps in sc.writes.items()}, sc.int_arrays,
                      sc.loop_vars, sc.counters[1:], sc.fbs, sc.calls_function, sc.calls_acc, sc.result)
        n = self.pick(("3", "5", "8"))
        self.loop_depth += 1
        body = self.block(inner, depth + 1, 1, 3)
        self.loop_depth -= 1
        if self.chance(0.5):
            return "\n".join([f"{c} := 0;", f"WHILE ({c} < {n}) AND {self.bool_expr(sc, 2)} DO", f"{c} := {c} + 1;",
                              *body, "END_WHILE;"])
        return "\n".join([f"{c} := 0;", "REPEAT", f"{c} := {c} + 1;", *body,
                          f"UNTIL ({c} >= {n}) OR {self.bool_expr(sc, 2)}", "END_REPEAT;"])

    def fb_call(self, sc: Scope, depth: int) -> str:
        inst, kind = self.pick(sc.fbs)
        b = lambda: self.bool_expr(sc, 1)  # noqa: E731
        if kind in ("TON", "TOF", "TP"):
            pt = self.pick(TIMES) if self.chance(0.7) else self.time_expr(sc, 1)
            return f"{inst}(IN := {b()}, PT := {pt});" if self.chance(0.8) else f"{inst}(IN := {b()});"
        if kind == "CTU":
            return f"{inst}(CU := {b()}, R := {b()}, PV := {self.int_expr(sc, 2, 'INT')});"
        if kind == "CTUD":
            return f"{inst}(CU := {b()}, CD := {b()}, RESET := {b()}, LOAD := {b()}, PV := {self.pick(('3', '5'))});"
        if kind in ("R_TRIG", "F_TRIG"):
            return f"{inst}(CLK := {b()});"
        if kind == "SR":
            return f"{inst}(S1 := {b()}, R := {b()});"
        if kind == "RS":
            return f"{inst}(S := {b()}, R1 := {b()});"
        if kind == "FB_Acc":
            return f"{inst}(enable := {b()}, inc := {self.int_expr(sc, 2, 'INT')}, total => {self.pick(sc.writes['DINT'])});"
        raise ValueError(kind)

    # ------------------------------------------------------------------ declarations

    def init(self, kind: str) -> str:
        if not self.chance(0.6):
            return ""
        if kind in RANGES:
            return " := " + self.int_literal(kind)
        return " := " + {"BOOL": lambda: self.pick(("TRUE", "FALSE")), "REAL": lambda: self.pick(REALS),
                         "LREAL": lambda: self.pick(REALS), "TIME": lambda: self.pick(TIMES),
                         "STRING": lambda: f"'{self.pick(WORDS)}'", "ENUM": lambda: self.pick(ENUM_VALUES)}[kind]()


MAIN_VARS = [
    ("b0", "BOOL"), ("b1", "BOOL"), ("b2", "BOOL"), ("si", "SINT"), ("i0", "INT"), ("i1", "INT"), ("d0", "DINT"),
    ("d1", "DINT"), ("li", "LINT"), ("us", "USINT"), ("ui", "UINT"), ("ud", "UDINT"), ("ul", "ULINT"),
    ("bt", "BYTE"), ("w", "WORD"), ("dw", "DWORD"), ("lw", "LWORD"), ("r0", "REAL"), ("r1", "REAL"),
    ("lr", "LREAL"), ("t0", "TIME"), ("s0", "STRING"), ("s1", "STRING"), ("mode", "ENUM"),
]
DECL_TYPE = {"STRING": "STRING(12)", "ENUM": "E_Mode"}
MAIN_FBS = [("tn", "TON"), ("tf", "TOF"), ("tp1", "TP"), ("cu", "CTU"), ("cud", "CTUD"), ("rt", "R_TRIG"),
            ("ft", "F_TRIG"), ("sr1", "SR"), ("rs1", "RS"), ("acc", "FB_Acc")]


def _main_scope() -> Scope:
    sc = Scope()
    for name, kind in MAIN_VARS:
        sc.add(kind, name)
    for name, kind in (("in0", "BOOL"), ("in1", "BOOL"), ("inw", "INT"), ("ind", "DINT"),
                                           ("inr", "REAL")):
        sc.add(kind, name, writable=False)
    sc.add("INT", "rec.a")
    sc.add("REAL", "rec.x")
    sc.add("BOOL", "rec.f")
    sc.add("DINT", "rec.arr[2]")
    sc.add("STRING", "rec.tag")
    sc.add("DINT", "m2[2, 3]")
    sc.add("INT", "arec[2].a")
    sc.add("REAL", "ar[1]")
    sc.add("DINT", "acc.total", writable=False)
    sc.add("INT", "i", writable=False)
    sc.add("INT", "j", writable=False)
    sc.add("TIME", "tn.ET", writable=False)
    sc.add("TIME", "tp1.ET", writable=False)
    sc.add("CV", "cu.CV", writable=False)
    sc.add("CV", "cud.CV", writable=False)
    for q in ("tn.Q", "tf.Q", "tp1.Q", "cu.Q", "cud.QU", "cud.QD", "rt.Q", "ft.Q", "sr1.Q1", "rs1.Q1", "acc.q"):
        sc.add("FBQ", q, writable=False)
    sc.add("DINT", "g_cnt")
    sc.add("INT", "tmpv")
    sc.add("BOOL", "%QX0.2")
    sc.add("PCT", "pct")
    sc.add("INT", "pct", writable=False)
    sc.int_arrays = [("ai", 1, 5), ("arec[1].arr", 0, 3)]
    sc.loop_vars = ["i", "j"]
    sc.counters = ["k", "n"]
    sc.fbs = list(MAIN_FBS)
    sc.calls_acc = True
    return sc


def _function_scope() -> Scope:
    sc = Scope(calls_function=False, result="F_Mix")
    for name, kind, writable in (("x", "DINT", True), ("y", "INT", True), ("t", "DINT", True), ("calls", "DINT", True),
                                 ("F_Mix", "DINT", True), ("fl", "BOOL", True), ("fr", "REAL", True)):
        sc.add(kind, name, writable)
    sc.add("INT", "lv", writable=False)
    sc.loop_vars = ["lv"]
    sc.counters = ["lc"]
    return sc


def _fb_scope() -> Scope:
    sc = Scope()
    for name, kind in (("enable", "BOOL"), ("inc", "INT"), ("total", "DINT"), ("q", "BOOL"), ("idx", "INT"),
                       ("acc_r", "REAL"), ("name", "STRING")):
        sc.add(kind, name)
    sc.add("TIME", "tm.ET", writable=False)
    sc.add("FBQ", "tm.Q", writable=False)
    sc.int_arrays = [("hist", 0, 3)]
    sc.fbs = [("tm", "TON")]
    return sc


@st.composite
def programs(draw: Any, scans: int = 20, statements: int = 8, depth: int = 2) -> GeneratedProgram:
    """One random well-typed program plus `scans` input vectors.

    Numba's compile time grows super-linearly with expression size (~1 s for ~8 top-level
    statements of depth 2, ~15 s at 25 statements of depth 3), so keep programs modest."""
    w = Writer(draw, max_depth=depth)
    fn_body = w.block(_function_scope(), 0, 1, max(1, statements // 4))
    fb_body = w.block(_fb_scope(), 0, 1, max(1, statements // 3))
    main_body = w.block(_main_scope(), 0, max(1, statements // 2), statements)
    main_decls = [f"    {n} : {DECL_TYPE.get(k, k)}{w.init(k)};" for n, k in MAIN_VARS]
    text = "\n".join([
        TYPES,
        "FUNCTION F_Mix : DINT",
        "VAR_INPUT x : DINT; y : INT := 3; END_VAR",
        "VAR t : DINT := 1; fl : BOOL; fr : REAL := 0.5; lv : INT; lc : DINT; END_VAR",
        "VAR_STAT calls : DINT; END_VAR",
        "calls := calls + 1;",
        *fn_body,
        "F_Mix := F_Mix + t + calls;",
        "END_FUNCTION",
        "",
        "FUNCTION F_Swap : BOOL",
        "VAR_IN_OUT a, b : INT; END_VAR",
        "VAR tmp : INT; END_VAR",
        "tmp := a; a := b; b := tmp + 1;",
        "F_Swap := a > b;",
        "END_FUNCTION",
        "",
        "FUNCTION_BLOCK FB_Acc",
        "VAR_INPUT enable : BOOL; inc : INT := 1; END_VAR",
        "VAR_OUTPUT total : DINT; q : BOOL; END_VAR",
        "VAR hist : ARRAY[0..3] OF INT := [1, 2(5)]; idx : INT; tm : TON; acc_r : REAL; name : STRING(6) := 'acc'; END_VAR",
        *fb_body,
        "IF enable THEN total := total + inc; END_IF;",
        "tm(IN := enable, PT := T#30ms);",
        "q := tm.Q;",
        "METHOD Bump : DINT",
        "VAR_INPUT amount : DINT; END_VAR",
        "VAR_INST bumps : DINT; END_VAR",
        "bumps := bumps + 1;",
        "total := total + amount;",
        "Bump := total + bumps;",
        "END_METHOD",
        "END_FUNCTION_BLOCK",
        "",
        "VAR_GLOBAL g_cnt : DINT := 7; END_VAR",
        "",
        "PROGRAM Main",
        "VAR_TEMP tmpv : INT := 4; END_VAR",
        "VAR",
        "    pct : INT (0..100) := 50;",
        *main_decls,
        "    in0 AT %IX0.0 : BOOL; in1 AT %IX0.1 : BOOL; inw AT %IW2 : INT; ind AT %ID4 : DINT; inr AT %ID8 : REAL;",
        "    rec : ST_Rec; ai : ARRAY[1..5] OF INT := [3, -1, 4]; ar : ARRAY[0..3] OF REAL;",
        "    m2 : ARRAY[1..2, 1..3] OF DINT := [1, 2, 3, 4, 5, 6]; arec : ARRAY[1..2] OF ST_Rec;",
        "    i, j : INT; k, n : DINT;",
        *(f"    {n} : {k};" for n, k in MAIN_FBS),
        "END_VAR",
        *main_body,
        "END_PROGRAM",
        "",
    ])
    return GeneratedProgram(text, draw(input_sequences(scans)))


def input_sequences(scans: int) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Per scan, a random subset of the %I inputs with new values (unset inputs keep theirs)."""
    values = {
        "BOOL": st.booleans(),
        "INT": st.integers(-32768, 32767),
        "DINT": st.integers(-(2**31), 2**31 - 1),
        "REAL": st.sampled_from([0.0, 1.5, -3.25, 0.1, 1e6, 12.0]),
    }
    one = st.fixed_dictionaries({}, optional={a: values[k] for a, k in INPUTS.items()})
    return st.lists(one, min_size=scans, max_size=scans)
