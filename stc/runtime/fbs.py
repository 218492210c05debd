"""Standard function blocks of §10 as njit step functions over instance slots.

An instance of a standard FB is a block of consecutive int64 cells `mem[base + offset]`
holding its inputs, outputs and internal memory, in the order of its `FbLayout` below
(BOOL as 0/1, TIME as ms, LTIME as ns, ULINT as its int64 bit pattern). A call
`inst(IN := x, PT := t)` lowers to: store the given inputs into their cells (inputs not
given keep their last value, as in IEC), then `<fb>_step(mem, base, ...)`; outputs are
read from their cells. Cells start at 0, which is every FB's initial state (edge memories
FALSE, timers idle, CV = 0).

The bodies are the pseudo-code of §10 line by line, including its decisions: F_TRIG does
not pulse on a first call with CLK FALSE [D4], counters saturate at the limits of their
type [D5] and detect edges on every call, timers compare `elapsed >= PT` with no expiry
test on the starting call [D7]. LTON/LTOF/LTP are the same steps fed `now` in ns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

_jit = njit(cache=True, error_model="numpy")
# Typed constants for helper arguments: a bare literal would specialise per value.
_TRUE = np.int64(1)
_FALSE = np.int64(0)


@dataclass(frozen=True, slots=True)
class FbField:
    name: str
    st_type: str  # ST type name; "CV_TYPE" = the counter's own integer type
    kind: str  # "input", "output" or "internal"


@dataclass(frozen=True, slots=True)
class FbLayout:
    """Cell order of one standard FB type, plus accepted input aliases (CODESYS names)."""

    name: str
    fields: tuple[FbField, ...]
    aliases: tuple[tuple[str, str], ...] = ()

    @property
    def size(self) -> int:
        return len(self.fields)

    def offset(self, field_name: str) -> int:
        """Cell offset of a field or alias (case-insensitive); KeyError if unknown."""
        key = field_name.upper()
        key = dict(self.aliases).get(key, key)
        for i, f in enumerate(self.fields):
            if f.name == key:
                return i
        raise KeyError(f"{self.name} has no field {field_name}")


def _fields(*spec: str) -> tuple[FbField, ...]:
    out = []
    for item in spec:
        kind, name, ty = item.split()
        out.append(FbField(name, ty, kind))
    return tuple(out)


_EDGE = _fields("input CLK BOOL", "output Q BOOL", "internal M BOOL")
_TIMER = _fields(
    "input IN BOOL", "input PT TIME", "output Q BOOL", "output ET TIME",
    "internal RUNNING BOOL", "internal START TIME", "internal PREV_IN BOOL",
)  # fmt: skip
_CTU = _fields(
    "input CU BOOL", "input R BOOL", "input PV CV_TYPE",
    "output Q BOOL", "output CV CV_TYPE", "internal CU_M BOOL",
)  # fmt: skip
_CTD = _fields(
    "input CD BOOL", "input LD BOOL", "input PV CV_TYPE",
    "output Q BOOL", "output CV CV_TYPE", "internal CD_M BOOL",
)  # fmt: skip
_CTUD = _fields(
    "input CU BOOL", "input CD BOOL", "input R BOOL", "input LD BOOL", "input PV CV_TYPE",
    "output QU BOOL", "output QD BOOL", "output CV CV_TYPE",
    "internal CU_M BOOL", "internal CD_M BOOL",
)  # fmt: skip

# Counter variants: CV/PV type and its limits (CTU = INT). ULINT has its own steps.
COUNTER_TYPES: dict[str, tuple[str, int, int]] = {
    "": ("INT", -(2**15), 2**15 - 1),
    "_DINT": ("DINT", -(2**31), 2**31 - 1),
    "_UDINT": ("UDINT", 0, 2**32 - 1),
    "_LINT": ("LINT", -(2**63), 2**63 - 1),
    "_ULINT": ("ULINT", 0, 2**64 - 1),
}


def _build_layouts() -> dict[str, FbLayout]:
    layouts = {
        "R_TRIG": FbLayout("R_TRIG", _EDGE),
        "F_TRIG": FbLayout("F_TRIG", _EDGE),
        "SR": FbLayout("SR", _fields("input S1 BOOL", "input R BOOL", "output Q1 BOOL"),
                       (("SET1", "S1"), ("RESET", "R"))),
        "RS": FbLayout("RS", _fields("input S BOOL", "input R1 BOOL", "output Q1 BOOL"),
                       (("SET", "S"), ("RESET1", "R1"))),
    }  # fmt: skip
    for timer in ("TON", "TOF", "TP"):
        layouts[timer] = FbLayout(timer, _TIMER)
        ltime = tuple(
            FbField(f.name, "LTIME", f.kind) if f.st_type == "TIME" else f for f in _TIMER
        )
        layouts["L" + timer] = FbLayout("L" + timer, ltime)
    for suffix, (ty, _, _) in COUNTER_TYPES.items():
        for kind, fields, aliases in (
            ("CTU", _CTU, (("RESET", "R"),)),
            ("CTD", _CTD, (("LOAD", "LD"),)),
            ("CTUD", _CTUD, (("RESET", "R"), ("LOAD", "LD"))),
        ):
            typed = tuple(
                FbField(f.name, ty, f.kind) if f.st_type == "CV_TYPE" else f for f in fields
            )
            layouts[kind + suffix] = FbLayout(kind + suffix, typed, aliases)
    return layouts


LAYOUTS: dict[str, FbLayout] = _build_layouts()


def _offsets(fb_type: str, *names: str) -> tuple[int, ...]:
    return tuple(LAYOUTS[fb_type].offset(n) for n in names)


# Cell offsets the step functions use, read from the layouts (one source of truth);
# numba freezes these module ints as constants.
CLK, EDGE_Q, EDGE_M = _offsets("R_TRIG", "CLK", "Q", "M")
SR_S1, SR_R, SR_Q1 = _offsets("SR", "S1", "R", "Q1")
RS_S, RS_R1, RS_Q1 = _offsets("RS", "S", "R1", "Q1")
T_IN, T_PT, T_Q, T_ET, T_RUNNING, T_START, T_PREV_IN = _offsets(
    "TON", "IN", "PT", "Q", "ET", "RUNNING", "START", "PREV_IN"
)
CTU_CU, CTU_R, CTU_PV, CTU_Q, CTU_CV, CTU_CU_M = _offsets("CTU", "CU", "R", "PV", "Q", "CV", "CU_M")
CTD_CD, CTD_LD, CTD_PV, CTD_Q, CTD_CV, CTD_CD_M = _offsets(
    "CTD", "CD", "LD", "PV", "Q", "CV", "CD_M"
)
(CTUD_CU, CTUD_CD, CTUD_R, CTUD_LD, CTUD_PV,
 CTUD_QU, CTUD_QD, CTUD_CV, CTUD_CU_M, CTUD_CD_M) = _offsets(
    "CTUD", "CU", "CD", "R", "LD", "PV", "QU", "QD", "CV", "CU_M", "CD_M"
)  # fmt: skip


# --- edge detection and bistables -----------------------------------------------------


@_jit
def r_trig_step(mem, base):
    clk = np.int64(mem[base + CLK] != 0)
    mem[base + EDGE_Q] = clk & (1 - mem[base + EDGE_M])
    mem[base + EDGE_M] = clk


@_jit
def f_trig_step(mem, base):
    clk = np.int64(mem[base + CLK] != 0)
    mem[base + EDGE_Q] = (1 - clk) & mem[base + EDGE_M]
    mem[base + EDGE_M] = clk


@_jit
def sr_step(mem, base):
    s1 = np.int64(mem[base + SR_S1] != 0)
    r = np.int64(mem[base + SR_R] != 0)
    mem[base + SR_Q1] = s1 | ((1 - r) & mem[base + SR_Q1])


@_jit
def rs_step(mem, base):
    s = np.int64(mem[base + RS_S] != 0)
    r1 = np.int64(mem[base + RS_R1] != 0)
    mem[base + RS_Q1] = (1 - r1) & (s | mem[base + RS_Q1])


# --- counters: signed limits cover INT, DINT, UDINT and LINT ---------------------------


@_jit
def ctu_step(mem, base, cv_min, cv_max):
    cu = np.int64(mem[base + CTU_CU] != 0)
    edge = cu & (1 - mem[base + CTU_CU_M])
    mem[base + CTU_CU_M] = cu
    cv = mem[base + CTU_CV]
    if mem[base + CTU_R] != 0:
        cv = 0
    elif (edge != 0) & (cv < cv_max):
        cv = cv + 1
    mem[base + CTU_CV] = cv
    mem[base + CTU_Q] = np.int64(cv >= mem[base + CTU_PV])


@_jit
def ctd_step(mem, base, cv_min, cv_max):
    cd = np.int64(mem[base + CTD_CD] != 0)
    edge = cd & (1 - mem[base + CTD_CD_M])
    mem[base + CTD_CD_M] = cd
    cv = mem[base + CTD_CV]
    if mem[base + CTD_LD] != 0:
        cv = mem[base + CTD_PV]
    elif (edge != 0) & (cv > cv_min):
        cv = cv - 1
    mem[base + CTD_CV] = cv
    mem[base + CTD_Q] = np.int64(cv <= 0)


@_jit
def ctud_step(mem, base, cv_min, cv_max):
    cu = np.int64(mem[base + CTUD_CU] != 0)
    cd = np.int64(mem[base + CTUD_CD] != 0)
    up = cu & (1 - mem[base + CTUD_CU_M])
    down = cd & (1 - mem[base + CTUD_CD_M])
    mem[base + CTUD_CU_M] = cu
    mem[base + CTUD_CD_M] = cd
    cv = mem[base + CTUD_CV]
    if mem[base + CTUD_R] != 0:
        cv = 0
    elif mem[base + CTUD_LD] != 0:
        cv = mem[base + CTUD_PV]
    elif (up & down) != 0:
        pass  # simultaneous edges cancel
    elif (up != 0) & (cv < cv_max):
        cv = cv + 1
    elif (down != 0) & (cv > cv_min):
        cv = cv - 1
    mem[base + CTUD_CV] = cv
    mem[base + CTUD_QU] = np.int64(cv >= mem[base + CTUD_PV])
    mem[base + CTUD_QD] = np.int64(cv <= 0)


# --- ULINT counters: cells hold uint64 bit patterns, compared unsigned -----------------

_U_ONE = np.uint64(1)
_U_MAX = np.uint64(0xFFFF_FFFF_FFFF_FFFF)


@_jit
def ctu_ulint_step(mem, base):
    cu = np.int64(mem[base + CTU_CU] != 0)
    edge = cu & (1 - mem[base + CTU_CU_M])
    mem[base + CTU_CU_M] = cu
    cv = np.uint64(mem[base + CTU_CV])
    if mem[base + CTU_R] != 0:
        cv = np.uint64(0)
    elif (edge != 0) & (cv < _U_MAX):
        cv = cv + _U_ONE
    mem[base + CTU_CV] = np.int64(cv)
    mem[base + CTU_Q] = np.int64(cv >= np.uint64(mem[base + CTU_PV]))


@_jit
def ctd_ulint_step(mem, base):
    cd = np.int64(mem[base + CTD_CD] != 0)
    edge = cd & (1 - mem[base + CTD_CD_M])
    mem[base + CTD_CD_M] = cd
    cv = np.uint64(mem[base + CTD_CV])
    if mem[base + CTD_LD] != 0:
        cv = np.uint64(mem[base + CTD_PV])
    elif (edge != 0) & (cv > np.uint64(0)):
        cv = cv - _U_ONE
    mem[base + CTD_CV] = np.int64(cv)
    mem[base + CTD_Q] = np.int64(cv == np.uint64(0))


@_jit
def ctud_ulint_step(mem, base):
    cu = np.int64(mem[base + CTUD_CU] != 0)
    cd = np.int64(mem[base + CTUD_CD] != 0)
    up = cu & (1 - mem[base + CTUD_CU_M])
    down = cd & (1 - mem[base + CTUD_CD_M])
    mem[base + CTUD_CU_M] = cu
    mem[base + CTUD_CD_M] = cd
    cv = np.uint64(mem[base + CTUD_CV])
    if mem[base + CTUD_R] != 0:
        cv = np.uint64(0)
    elif mem[base + CTUD_LD] != 0:
        cv = np.uint64(mem[base + CTUD_PV])
    elif (up & down) != 0:
        pass
    elif (up != 0) & (cv < _U_MAX):
        cv = cv + _U_ONE
    elif (down != 0) & (cv > np.uint64(0)):
        cv = cv - _U_ONE
    mem[base + CTUD_CV] = np.int64(cv)
    mem[base + CTUD_QU] = np.int64(cv >= np.uint64(mem[base + CTUD_PV]))
    mem[base + CTUD_QD] = np.int64(cv == np.uint64(0))


# --- timers (TIME in ms; the L variants use the same steps with ns) --------------------


@_jit
def _expire_or_track(mem, base, now, q_when_expired):
    """The `ELSIF running` branch shared by TON, TOF and TP."""
    elapsed = now - mem[base + T_START]
    pt = mem[base + T_PT]
    if elapsed >= pt:
        mem[base + T_Q] = q_when_expired
        mem[base + T_ET] = pt
        mem[base + T_RUNNING] = 0
    else:
        mem[base + T_ET] = elapsed


@_jit
def ton_step(mem, base, now):
    if mem[base + T_IN] == 0:
        mem[base + T_Q] = 0
        mem[base + T_ET] = 0
        mem[base + T_RUNNING] = 0
    elif (mem[base + T_RUNNING] == 0) & (mem[base + T_Q] == 0):
        mem[base + T_RUNNING] = 1
        mem[base + T_START] = now
        mem[base + T_ET] = 0
        mem[base + T_Q] = 0
    elif mem[base + T_RUNNING] != 0:
        _expire_or_track(mem, base, now, _TRUE)


@_jit
def tof_step(mem, base, now):
    in_ = np.int64(mem[base + T_IN] != 0)
    if in_ != 0:
        mem[base + T_Q] = 1
        mem[base + T_ET] = 0
        mem[base + T_RUNNING] = 0
    elif mem[base + T_PREV_IN] != 0:
        mem[base + T_RUNNING] = 1
        mem[base + T_START] = now
        mem[base + T_ET] = 0
        mem[base + T_Q] = 1
    elif mem[base + T_RUNNING] != 0:
        _expire_or_track(mem, base, now, _FALSE)
    mem[base + T_PREV_IN] = in_


@_jit
def tp_step(mem, base, now):
    in_ = np.int64(mem[base + T_IN] != 0)
    if (mem[base + T_RUNNING] == 0) & (mem[base + T_PREV_IN] == 0) & (in_ != 0):
        mem[base + T_RUNNING] = 1
        mem[base + T_START] = now
        mem[base + T_Q] = 1
        mem[base + T_ET] = 0
    elif mem[base + T_RUNNING] != 0:
        _expire_or_track(mem, base, now, _FALSE)
    if (mem[base + T_RUNNING] == 0) & (in_ == 0):
        mem[base + T_ET] = 0
    mem[base + T_PREV_IN] = in_


# LTIME timers: identical steps, `now` and PT/ET in nanoseconds.
lton_step = ton_step
ltof_step = tof_step
ltp_step = tp_step


def step_call(fb_type: str) -> tuple[str, tuple[int, ...]]:
    """Name of the step function in this module for an FB type and the constant arguments
    that follow `(mem, base)` (counter limits; timers take `now` instead). Emit them typed,
    as `np.int64(...)`, like every constant argument (see the package docstring)."""
    name = fb_type.upper()
    layout = LAYOUTS[name]  # KeyError: not a standard FB
    for kind in ("CTUD", "CTU", "CTD"):
        if name.startswith(kind) and name[len(kind) :] in COUNTER_TYPES:
            suffix = name[len(kind) :]
            if suffix == "_ULINT":
                return f"{kind.lower()}_ulint_step", ()
            _, lo, hi = COUNTER_TYPES[suffix]
            return f"{kind.lower()}_step", (lo, hi)
    return f"{layout.name.lower()}_step", ()
