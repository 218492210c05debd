"""Interpreter: standard function blocks, per the pseudo-code and consequences of §10."""

from __future__ import annotations

from stc.interp.run import interpret


def trace(decls: str, body: str, scans: int, inputs: list[dict] | None = None) -> list[dict]:
    src = f"PROGRAM Main\nVAR\n{decls}\nEND_VAR\n{body}\nEND_PROGRAM\n"
    t = interpret(src, scans, inputs)
    assert t.error is None, t.error
    return t.snapshots


def test_ton_q_on_scan_6_and_et_is_min_of_elapsed_and_pt() -> None:
    snaps = trace("t : TON;", "t(IN := TRUE, PT := T#50ms);", 8)
    assert [s["t.Q"] for s in snaps] == [False] * 5 + [True] * 3
    assert [s["t.ET"] for s in snaps] == [min((k - 1) * 10, 50) for k in range(1, 9)]


def test_ton_resets_when_in_falls_and_pt_zero_rises_one_scan_late() -> None:
    ins = [{"%IX0.0": v} for v in (True, True, False, True)]
    snaps = trace("go AT %IX0.0 : BOOL; t : TON; z : TON;", "t(IN := go, PT := T#10ms); z(IN := TRUE, PT := T#0ms);",
                  4, ins)
    assert [(s["t.Q"], s["t.ET"]) for s in snaps] == [(False, 0), (True, 10), (False, 0), (False, 0)]
    assert [s["z.Q"] for s in snaps] == [False, True, True, True]


def test_tof_holds_q_for_pt_after_the_falling_edge() -> None:
    ins = [{"%IX0.0": v} for v in (False, True, False, False, False, False)]
    snaps = trace("go AT %IX0.0 : BOOL; t : TOF;", "t(IN := go, PT := T#20ms);", 6, ins)
    assert [s["t.Q"] for s in snaps] == [False, True, True, True, False, False]
    assert [s["t.ET"] for s in snaps] == [0, 0, 0, 10, 20, 20]


def test_tp_pulse_lasts_ceil_pt_over_cycle_scans_and_ignores_edges() -> None:
    ins = [{"%IX0.0": v} for v in (True, False, True, False, False, False)]
    snaps = trace("go AT %IX0.0 : BOOL; p : TP;", "p(IN := go, PT := T#25ms);", 6, ins)
    assert [s["p.Q"] for s in snaps] == [True, True, True, False, False, False]
    assert [s["p.ET"] for s in snaps] == [0, 10, 20, 0, 0, 0]


def test_triggers_first_call() -> None:
    snaps = trace("r : R_TRIG; f : F_TRIG; f2 : F_TRIG; c : BOOL := TRUE;",
                  "r(CLK := TRUE); f(CLK := FALSE); f2(CLK := c); c := FALSE;", 3)
    assert [s["r.Q"] for s in snaps] == [True, False, False]
    assert [s["f.Q"] for s in snaps] == [False, False, False]
    assert [s["f2.Q"] for s in snaps] == [False, True, False]


def test_bistables() -> None:
    snaps = trace("s1 : SR; r1 : RS;", "s1(S1 := TRUE, R := TRUE); r1(SET := TRUE, RESET1 := TRUE);", 1)
    assert (snaps[0]["s1.Q1"], snaps[0]["r1.Q1"]) == (True, False)


def test_ctu_counts_edges_and_saturates_at_the_type_limit() -> None:
    ins = [{"%IX0.0": v} for v in (True, True, False, True, False, True)]
    snaps = trace("cu AT %IX0.0 : BOOL; c : CTU; m : CTU := (PV := 3);",
                  "c(CU := cu, PV := 2); m(CU := cu, RESET := m.CV >= 2);", 6, ins)
    assert [s["c.CV"] for s in snaps] == [1, 1, 1, 2, 2, 3]
    assert [s["c.Q"] for s in snaps] == [False, False, False, True, True, True]
    top = trace("d : CTD_DINT; k : INT;",
                "d(CD := k MOD 2 = 0, LD := k = 0, PV := -2147483647); k := k + 1;", 6)
    assert [s["d.CV"] for s in top][-1] == -2147483648


def test_ctud_simultaneous_edges_cancel_and_reset_dominates_load() -> None:
    snaps = trace("c : CTUD; k : INT;",
                  "c(CU := k = 0 OR k = 2, CD := k = 2, R := k = 4, LD := k >= 3, PV := 7); k := k + 1;", 5)
    assert [s["c.CV"] for s in snaps] == [1, 1, 1, 7, 0]
    assert [(s["c.QU"], s["c.QD"]) for s in snaps][-2:] == [(True, False), (False, True)]


def test_fb_instance_initializer_and_pins_in_snapshot() -> None:
    snaps = trace("t : TON := (PT := T#5s);", "t(IN := FALSE);", 1)
    assert snaps[0] == {"t.IN": False, "t.PT": 5000, "t.Q": False, "t.ET": 0}
