"""Standard function blocks, transcribed from the per-call pseudo-code of §10.

An instance is a dict of its pins (the snapshot shows only those) plus hidden state under
`$` keys (edge memories, timer `running`/`start`/`prev_in`), all FALSE/0 at cold start.
Timers see the frozen scan time `now` (ms for TON/TOF/TP, ns for LTON/LTOF/LTP).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stc import types as T

Instance = dict[str, Any]


def _r_trig(fb: Instance, now: int) -> None:
    clk = fb["CLK"]
    fb["Q"] = clk and not fb.get("$m", False)
    fb["$m"] = clk


def _f_trig(fb: Instance, now: int) -> None:
    clk = fb["CLK"]
    fb["Q"] = (not clk) and fb.get("$m", False)
    fb["$m"] = clk


def _sr(fb: Instance, now: int) -> None:
    fb["Q1"] = fb["S1"] or (not fb["R"] and fb["Q1"])


def _rs(fb: Instance, now: int) -> None:
    fb["Q1"] = (not fb["R1"]) and (fb["S"] or fb["Q1"])


def _edge(fb: Instance, pin: str) -> bool:
    level = fb[pin]
    edge = level and not fb.get("$" + pin, False)
    fb["$" + pin] = level
    return edge


def _counters(ty: T.ElementaryType) -> dict[str, Callable[[Instance, int], None]]:
    lo, hi = T.int_range(ty)

    def ctu(fb: Instance, now: int) -> None:
        up = _edge(fb, "CU")
        if fb["R"]:
            fb["CV"] = 0
        elif up and fb["CV"] < hi:
            fb["CV"] += 1
        fb["Q"] = fb["CV"] >= fb["PV"]

    def ctd(fb: Instance, now: int) -> None:
        down = _edge(fb, "CD")
        if fb["LD"]:
            fb["CV"] = fb["PV"]
        elif down and fb["CV"] > lo:
            fb["CV"] -= 1
        fb["Q"] = fb["CV"] <= 0

    def ctud(fb: Instance, now: int) -> None:
        up = _edge(fb, "CU")
        down = _edge(fb, "CD")
        if fb["R"]:
            fb["CV"] = 0
        elif fb["LD"]:
            fb["CV"] = fb["PV"]
        elif up and down:
            pass  # simultaneous edges cancel
        elif up and fb["CV"] < hi:
            fb["CV"] += 1
        elif down and fb["CV"] > lo:
            fb["CV"] -= 1
        fb["QU"] = fb["CV"] >= fb["PV"]
        fb["QD"] = fb["CV"] <= 0

    return {"CTU": ctu, "CTD": ctd, "CTUD": ctud}


def _ton(fb: Instance, now: int) -> None:
    if not fb["IN"]:
        fb["Q"], fb["ET"], fb["$running"] = False, 0, False
    elif not fb.get("$running", False) and not fb["Q"]:
        fb["$running"], fb["$start"], fb["ET"], fb["Q"] = True, now, 0, False
    elif fb.get("$running", False):
        _elapse(fb, now, q_at_end=True)


def _tof(fb: Instance, now: int) -> None:
    if fb["IN"]:
        fb["Q"], fb["ET"], fb["$running"] = True, 0, False
    elif fb.get("$prev", False):
        fb["$running"], fb["$start"], fb["ET"], fb["Q"] = True, now, 0, True
    elif fb.get("$running", False):
        _elapse(fb, now, q_at_end=False)
    fb["$prev"] = fb["IN"]


def _tp(fb: Instance, now: int) -> None:
    running = fb.get("$running", False)
    if not running and not fb.get("$prev", False) and fb["IN"]:
        fb["$running"], fb["$start"], fb["Q"], fb["ET"] = True, now, True, 0
    elif running:
        _elapse(fb, now, q_at_end=False)
    if not fb.get("$running", False) and not fb["IN"]:
        fb["ET"] = 0
    fb["$prev"] = fb["IN"]


def _elapse(fb: Instance, now: int, q_at_end: bool) -> None:
    """The shared `ELSIF running` branch: expiry uses `>=` (decision D7)."""
    elapsed = now - fb["$start"]
    if elapsed >= fb["PT"]:
        fb["Q"], fb["ET"], fb["$running"] = q_at_end, fb["PT"], False
    else:
        fb["ET"] = elapsed


BEHAVIOUR: dict[str, Callable[[Instance, int], None]] = {
    "R_TRIG": _r_trig, "F_TRIG": _f_trig, "SR": _sr, "RS": _rs,
    "TON": _ton, "TOF": _tof, "TP": _tp, "LTON": _ton, "LTOF": _tof, "LTP": _tp,
}
for _suffix, _ty in (("", T.INT), ("_DINT", T.DINT), ("_UDINT", T.UDINT), ("_LINT", T.LINT), ("_ULINT", T.ULINT)):
    for _name, _fn in _counters(_ty).items():
        BEHAVIOUR[_name + _suffix] = _fn


def run_standard_fb(type_name: str, fb: Instance, now_ms: int) -> None:
    """Execute one call of a standard FB whose inputs are already assigned."""
    now = now_ms * 1_000_000 if type_name.startswith("LT") else now_ms
    BEHAVIOUR[type_name](fb, now)
