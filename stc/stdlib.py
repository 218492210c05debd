"""Standard functions, conversion functions and standard function blocks, as data.

Each standard function is one `FunctionSpec` row: its pins, the generic type class each pin
accepts, and a result rule; the resolver interprets the rows, so adding a function means
adding a row (RuSTy keeps its builtins as declarations for the same reason). Pins marked
generic (`T`) share one promoted type. Conversion functions are generated from the
elementary type list. Standard FBs are their pin lists with the CODESYS aliases.
"""

from __future__ import annotations

from dataclasses import dataclass

from stc import types as T

# Generic type classes a pin may accept.
ANY = "ANY"
ANY_ELEMENTARY = "ANY_ELEMENTARY"
ANY_NUM = "ANY_NUM"
ANY_REAL = "ANY_REAL"
ANY_INT = "ANY_INT"  # integers and bit strings
ANY_BIT = "ANY_BIT"  # bit strings, BOOL; integers accepted with a warning (SA0052)
ANY_STRING = "ANY_STRING"
ANY_MAGNITUDE = "ANY_MAGNITUDE"  # numbers and durations
ARRAY = "ARRAY"


@dataclass(frozen=True)
class Pin:
    name: str
    accepts: str  # a generic class above or an elementary type name
    generic: bool = False  # participates in the common type `T`


@dataclass(frozen=True)
class FunctionSpec:
    """`result`: an elementary type name, 'T' (the common generic type), 'FLOAT' (T, but
    integers give LREAL), 'EXPT' (§6.3), 'STRING' (type of the first string pin), or
    'IN' (type of pin IN, e.g. shifts)."""

    name: str
    pins: tuple[Pin, ...]
    result: str
    variadic: bool = False  # the last pin repeats (IN1, IN2, ... / IN0, IN1, ...)
    min_args: int | None = None


def _f(name: str, pins: str, result: str, variadic: bool = False, min_args: int | None = None) -> FunctionSpec:
    """Compact row syntax: 'IN:ANY_NUM*' = pin IN of class ANY_NUM, generic (*)."""
    out = []
    for p in pins.split():
        n, acc = p.split(":")
        out.append(Pin(n, acc.rstrip("*"), acc.endswith("*")))
    return FunctionSpec(name, tuple(out), result, variadic, min_args)


_ROWS = [
    _f("ABS", "IN:ANY_NUM*", "T"),
    *(_f(n, "IN:ANY_NUM*", "FLOAT") for n in ("SQRT", "LN", "LOG", "EXP", "SIN", "COS", "TAN", "ASIN", "ACOS", "ATAN")),
    _f("ATAN2", "Y:ANY_NUM* X:ANY_NUM*", "FLOAT"),
    _f("EXPT", "IN1:ANY_NUM* IN2:ANY_NUM*", "EXPT"),
    _f("ADD", "IN1:ANY_MAGNITUDE* IN2:ANY_MAGNITUDE*", "T", variadic=True, min_args=2),
    _f("MUL", "IN1:ANY_MAGNITUDE* IN2:ANY_MAGNITUDE*", "T", variadic=True, min_args=2),
    _f("SUB", "IN1:ANY_MAGNITUDE* IN2:ANY_MAGNITUDE*", "T"),
    _f("DIV", "IN1:ANY_MAGNITUDE* IN2:ANY_MAGNITUDE*", "T"),
    _f("MOD", "IN1:ANY_INT* IN2:ANY_INT*", "T"),
    _f("MIN", "IN1:ANY_ELEMENTARY* IN2:ANY_ELEMENTARY*", "T", variadic=True, min_args=2),
    _f("MAX", "IN1:ANY_ELEMENTARY* IN2:ANY_ELEMENTARY*", "T", variadic=True, min_args=2),
    _f("LIMIT", "MN:ANY_ELEMENTARY* IN:ANY_ELEMENTARY* MX:ANY_ELEMENTARY*", "T"),
    _f("SEL", "G:BOOL IN0:ANY* IN1:ANY*", "T"),
    _f("MUX", "K:ANY_INT IN0:ANY* IN1:ANY*", "T", variadic=True, min_args=2),
    _f("MOVE", "IN:ANY*", "T"),
    *(_f(n, "IN:ANY_BIT N:ANY_INT", "IN") for n in ("SHL", "SHR", "ROL", "ROR")),
    _f("LOWER_BOUND", "ARR:ARRAY DIM:ANY_INT", "DINT"),
    _f("UPPER_BOUND", "ARR:ARRAY DIM:ANY_INT", "DINT"),
    _f("SIZEOF", "IN:ANY", "DINT"),
    _f("TIME", "", "TIME"),
    _f("LEN", "IN:ANY_STRING", "INT"),
    _f("LEFT", "IN:ANY_STRING L:ANY_INT", "STRING"),
    _f("RIGHT", "IN:ANY_STRING L:ANY_INT", "STRING"),
    _f("MID", "IN:ANY_STRING L:ANY_INT P:ANY_INT", "STRING"),
    _f("CONCAT", "IN1:ANY_STRING IN2:ANY_STRING", "STRING", variadic=True, min_args=2),
    _f("INSERT", "IN1:ANY_STRING IN2:ANY_STRING P:ANY_INT", "STRING"),
    _f("DELETE", "IN:ANY_STRING L:ANY_INT P:ANY_INT", "STRING"),
    _f("REPLACE", "IN1:ANY_STRING IN2:ANY_STRING L:ANY_INT P:ANY_INT", "STRING"),
    _f("FIND", "IN1:ANY_STRING IN2:ANY_STRING", "INT"),
    _f("TRUNC", "IN:ANY_REAL", "DINT"),
]

# Conversion targets/sources: every elementary type plus the strings.
CONVERTIBLE = [*T.ELEMENTARY, "STRING", "WSTRING"]
_INT_NAMES = [n for n, t in T.ELEMENTARY.items() if t.cls in (T.SIGNED, T.UNSIGNED)]
_BCD = {"BYTE": "USINT", "WORD": "UINT", "DWORD": "UDINT"}


def _conversions() -> list[FunctionSpec]:
    rows = []
    spell = {"TOD": ("TOD", "TIME_OF_DAY"), "DT": ("DT", "DATE_AND_TIME")}
    for src in CONVERTIBLE:
        for dst in CONVERTIBLE:
            if src == dst:
                continue
            for s in spell.get(src, (src,)):
                for d in spell.get(dst, (dst,)):
                    rows.append(_f(f"{s}_TO_{d}", f"IN:{src}", dst))
    for dst in CONVERTIBLE:
        for d in spell.get(dst, (dst,)):
            rows.append(_f(f"TO_{d}", "IN:ANY_ELEMENTARY", dst))
    for dst in _INT_NAMES:
        rows.append(_f(f"TRUNC_{dst}", "IN:ANY_REAL", dst))
    for bit, num in _BCD.items():
        rows.append(_f(f"{bit}_BCD_TO_{num}", f"IN:{bit}", num))
        rows.append(_f(f"{num}_TO_BCD_{bit}", f"IN:{num}", bit))
        rows.append(_f(f"BCD_TO_{num}", f"IN:{bit}", num))
        rows.append(_f(f"TO_BCD_{bit}", f"IN:{num}", bit))
    return rows


FUNCTIONS: dict[str, FunctionSpec] = {r.name: r for r in [*_ROWS, *_conversions()]}

# Function blocks of other standards and vendor libraries (§10): reported as unknown FB types.
OTHER_FBS = frozenset({"RTC", "SEMA", "PID", "PID_FIXCYCLE", "BLINK", "HYSTERESIS", "LIMITALARM", "RAMP_INT",
                       "RAMP_REAL", "DERIVATIVE", "INTEGRAL", "GEN", "CHARCURVE", "LIN_TRAFO", "FREQ_MEASURE"})
LIBRARY_FB_PREFIXES = ("MC_", "FB_", "TC_", "TC2_", "SYS", "OSCAT_", "CTRL_")
# Parsed and already rejected by the parser; their arguments are not checked again.
POINTER_FUNCTIONS = frozenset({"ADR", "ADRINST", "BITADR", "__NEW", "__DELETE", "__ISVALIDREF",
                               "__QUERYINTERFACE", "__QUERYPOINTER", "REF"})

# Names that look like functions users expect but plantloop rejects with a hint.
FUNCTION_HINTS = {
    "ROUND": "unknown function ROUND; use REAL_TO_INT (ties to even) or TRUNC",
}


# --------------------------------------------------------------------------- standard FBs


@dataclass(frozen=True)
class FBPin:
    name: str
    type: str
    section: str  # VAR_INPUT | VAR_OUTPUT
    aliases: tuple[str, ...] = ()


def _pins(spec: str, type_subst: dict[str, str] | None = None) -> tuple[FBPin, ...]:
    """'in CLK:BOOL | out Q:BOOL' with optional aliases `R/RESET`."""
    out = []
    for part in spec.split("|"):
        sec, decl = part.split()
        names, ty = decl.split(":")
        first, *aliases = names.split("/")
        ty = (type_subst or {}).get(ty, ty)
        out.append(FBPin(first, ty, "VAR_INPUT" if sec == "in" else "VAR_OUTPUT", tuple(aliases)))
    return tuple(out)


STANDARD_FBS: dict[str, tuple[FBPin, ...]] = {
    "R_TRIG": _pins("in CLK:BOOL | out Q:BOOL"),
    "F_TRIG": _pins("in CLK:BOOL | out Q:BOOL"),
    "SR": _pins("in S1/SET1:BOOL | in R/RESET:BOOL | out Q1:BOOL"),
    "RS": _pins("in S/SET:BOOL | in R1/RESET1:BOOL | out Q1:BOOL"),
}
for _suffix, _ty in (("", "INT"), ("_DINT", "DINT"), ("_UDINT", "UDINT"), ("_LINT", "LINT"), ("_ULINT", "ULINT")):
    _s = {"N": _ty}
    STANDARD_FBS["CTU" + _suffix] = _pins("in CU:BOOL | in R/RESET:BOOL | in PV:N | out Q:BOOL | out CV:N", _s)
    STANDARD_FBS["CTD" + _suffix] = _pins("in CD:BOOL | in LD/LOAD:BOOL | in PV:N | out Q:BOOL | out CV:N", _s)
    STANDARD_FBS["CTUD" + _suffix] = _pins(
        "in CU:BOOL | in CD:BOOL | in R/RESET:BOOL | in LD/LOAD:BOOL | in PV:N"
        " | out QU:BOOL | out QD:BOOL | out CV:N",
        _s,
    )
for _name in ("TON", "TOF", "TP"):
    STANDARD_FBS[_name] = _pins("in IN:BOOL | in PT:TIME | out Q:BOOL | out ET:TIME")
    STANDARD_FBS["L" + _name] = _pins("in IN:BOOL | in PT:LTIME | out Q:BOOL | out ET:LTIME")

# Names a program may not redeclare (§1): elementary types, standard functions and FBs.
# The arithmetic/selection function forms below are common words in programs (`add`, `limit`,
# a user FUNCTION `Log`) and are accepted as user names; a user declaration then hides them.
REDECLARABLE_FUNCTIONS = frozenset({"ADD", "SUB", "MUL", "DIV", "MOD", "LIMIT", "LOG", "EXP", "MOVE", "SEL"})
RESERVED_NAMES = (frozenset(T.ELEMENTARY_NAMES) | (frozenset(FUNCTIONS) - REDECLARABLE_FUNCTIONS)
                  | frozenset(STANDARD_FBS))


def standard_fb_type(name: str) -> T.FBType | None:
    """The FBType of a standard FB (built fresh; callers cache per model)."""
    pins = STANDARD_FBS.get(name.upper())
    if pins is None:
        return None
    params = [
        T.Param(p.name, T.elementary(p.type) or T.ERROR, p.section, tuple(a.upper() for a in p.aliases))
        for p in pins
    ]
    return T.FBType(name.upper(), params, standard=True)
