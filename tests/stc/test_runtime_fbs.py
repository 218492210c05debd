"""Standard FBs: scan traces of §10 with a 10 ms cycle (scan k runs at now = (k-1)*10)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stc.runtime import fbs

CYCLE = 10


class Instance:
    """One standard FB instance in its own cell block, driven scan by scan."""

    def __init__(self, fb_type: str, base: int = 3):
        self.layout = fbs.LAYOUTS[fb_type]
        self.base = base  # non-zero base: step functions must honour it
        self.mem = np.zeros(base + self.layout.size + 2, dtype=np.int64)
        name, self.extra = fbs.step_call(fb_type)
        self.step = getattr(fbs, name)
        self.is_timer = fb_type.upper().lstrip("L") in ("TON", "TOF", "TP")

    def __getitem__(self, field: str) -> int:
        return int(self.mem[self.base + self.layout.offset(field)])

    def __setitem__(self, field: str, value: int) -> None:
        self.mem[self.base + self.layout.offset(field)] = value

    def call(self, now: int = 0, **inputs: int) -> "Instance":
        for field, value in inputs.items():
            self[field] = value
        args = (now,) if self.is_timer else self.extra
        self.step(self.mem, self.base, *args)
        return self


def run_timer(fb_type, pt, in_trace):
    """Q and ET after each scan for IN values per scan."""
    t = Instance(fb_type)
    out = []
    for k, in_ in enumerate(in_trace, start=1):
        t.call((k - 1) * CYCLE, IN=in_, PT=pt)
        out.append((t["Q"], t["ET"]))
    return out


def test_ton_q_on_scan_6_and_et_trace():
    trace = run_timer("TON", 50, [1] * 9)
    assert [q for q, _ in trace].index(1) + 1 == 6
    assert [et for _, et in trace] == [min((k - 1) * 10, 50) for k in range(1, 10)]


def test_ton_pt_zero_rises_one_scan_after_in():
    assert [q for q, _ in run_timer("TON", 0, [0, 1, 1, 1])] == [0, 0, 1, 1]


def test_ton_in_false_resets():
    trace = run_timer("TON", 20, [1, 1, 1, 1, 0, 1])
    assert trace[3] == (1, 20)
    assert trace[4] == (0, 0)
    assert trace[5] == (0, 0)  # new start, no expiry test on the starting call


def test_ton_lowering_pt_below_elapsed_expires_at_once():
    t = Instance("TON")
    for k in range(1, 7):
        t.call((k - 1) * CYCLE, IN=1, PT=100)
    assert (t["Q"], t["ET"]) == (0, 50)
    t.call(60, PT=30)
    assert (t["Q"], t["ET"]) == (1, 30)
    t.call(70, PT=1000)  # latched: a new PT has no effect until IN falls
    assert (t["Q"], t["ET"]) == (1, 30)


def test_ton_raising_pt_while_timing_takes_effect_next_call():
    t = Instance("TON")
    for k in range(1, 4):
        t.call((k - 1) * CYCLE, IN=1, PT=30)
    t.call(30, PT=60)
    assert (t["Q"], t["ET"]) == (0, 30)


def test_tof_trace():
    trace = run_timer("TOF", 50, [1, 1, 1] + [0] * 8)
    qs = [q for q, _ in trace]
    # falling edge at scan 4 (t=30); Q falls on the scan with t - 30 >= 50: scan 9
    assert qs == [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0]
    assert [et for _, et in trace] == [0, 0, 0, 0, 10, 20, 30, 40, 50, 50, 50]


def test_tof_in_false_from_first_call_stays_false():
    assert run_timer("TOF", 50, [0, 0, 0]) == [(0, 0)] * 3


def test_tof_in_back_true_restarts():
    trace = run_timer("TOF", 50, [1, 0, 0, 1, 0])
    assert trace[3] == (1, 0)
    assert trace[4] == (1, 0)


@pytest.mark.parametrize("pt", [10, 35, 50, 51])
def test_tp_pulse_lasts_ceil_pt_over_cycle_scans(pt):
    qs = [q for q, _ in run_timer("TP", pt, [1] * 12)]
    assert sum(qs) == -(-pt // CYCLE)
    assert qs[0] == 1 and qs == sorted(qs, reverse=True)


def test_tp_ignores_in_edges_while_running_and_holds_et():
    trace = run_timer("TP", 50, [1, 0, 1, 0, 1, 1, 1, 1, 0, 0])
    assert [q for q, _ in trace] == [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    assert [et for _, et in trace] == [0, 10, 20, 30, 40, 50, 50, 50, 0, 0]


def test_tp_retriggers_only_after_in_was_false():
    trace = run_timer("TP", 20, [1, 1, 1, 1, 0, 1, 1])
    assert [q for q, _ in trace] == [1, 1, 0, 0, 0, 1, 1]


def test_ltimers_use_the_same_steps_in_ns():
    t = Instance("LTON")
    assert fbs.LAYOUTS["LTON"].fields[1].st_type == "LTIME"
    for k in range(1, 7):
        t.call((k - 1) * 10_000_000, IN=1, PT=50_000_000)
    assert (t["Q"], t["ET"]) == (1, 50_000_000)


def test_r_trig_pulses_on_first_call_with_clk_true():
    r = Instance("R_TRIG")
    assert [r.call(CLK=c)["Q"] for c in [1, 1, 0, 1, 0]] == [1, 0, 0, 1, 0]


def test_f_trig_no_pulse_on_first_call_with_clk_false():
    f = Instance("F_TRIG")
    assert [f.call(CLK=c)["Q"] for c in [0, 1, 1, 0, 0, 1, 0]] == [0, 0, 0, 1, 0, 0, 1]


@pytest.mark.parametrize(
    ("fb", "set_", "reset", "dominant"), [("SR", "SET1", "RESET", 1), ("RS", "SET", "RESET1", 0)]
)
def test_bistables(fb, set_, reset, dominant):
    b = Instance(fb)
    assert b.call(**{set_: 1, reset: 0})["Q1"] == 1
    assert b.call(**{set_: 0, reset: 0})["Q1"] == 1  # holds
    assert b.call(**{set_: 1, reset: 1})["Q1"] == dominant
    assert b.call(**{set_: 0, reset: 1})["Q1"] == 0


def test_ctu_counts_edges_and_held_cu_counts_once():
    c = Instance("CTU")
    cvs = [c.call(CU=cu, PV=2)["CV"] for cu in [1, 1, 0, 1, 0, 1]]
    assert cvs == [1, 1, 1, 2, 2, 3]
    assert c["Q"] == 1


def test_ctu_edge_during_reset_is_consumed():
    c = Instance("CTU")
    c.call(CU=1, R=1, PV=5)
    assert c["CV"] == 0
    c.call(CU=1, R=0)
    assert c["CV"] == 0  # the rising edge happened during reset
    c.call(CU=0)
    c.call(CU=1)
    assert c["CV"] == 1


@pytest.mark.parametrize(
    ("fb", "top"),
    [
        ("CTU", 2**15 - 1),
        ("CTU_DINT", 2**31 - 1),
        ("CTU_UDINT", 2**32 - 1),
        ("CTU_LINT", 2**63 - 1),
    ],
)
def test_ctu_saturates_at_type_limit(fb, top):
    c = Instance(fb)
    c["CV"] = top - 1
    for _ in range(3):
        c.call(CU=1, PV=0).call(CU=0)
    assert c["CV"] == top


@pytest.mark.parametrize(
    ("fb", "bottom"), [("CTD", -(2**15)), ("CTD_DINT", -(2**31)), ("CTD_UDINT", 0)]
)
def test_ctd_loads_counts_down_and_saturates(fb, bottom):
    c = Instance(fb)
    c.call(LOAD=1, PV=2)
    assert (c["CV"], c["Q"]) == (2, 0)
    for _ in range(3):
        c.call(CD=1, LD=0).call(CD=0)
    assert (c["CV"], c["Q"]) == (max(-1, bottom), 1)
    c["CV"] = bottom + 1
    for _ in range(3):
        c.call(CD=1).call(CD=0)
    assert c["CV"] == bottom


def test_ctud_rules():
    c = Instance("CTUD")
    c.call(CU=1, PV=2)
    assert (c["CV"], c["QU"], c["QD"]) == (1, 0, 0)
    c.call(CU=0).call(CU=1, CD=1)  # simultaneous edges cancel
    assert c["CV"] == 1
    c.call(CU=0, CD=0).call(CD=1)
    assert (c["CV"], c["QD"]) == (0, 1)
    c.call(CD=0, R=1, LD=1, PV=7)  # R dominates LD
    assert c["CV"] == 0
    c.call(R=0, LD=1)
    assert (c["CV"], c["QU"]) == (7, 1)
    c.call(LD=1, CU=1)  # edge during load is consumed
    c.call(LD=0, CU=1)
    assert c["CV"] == 7


def test_ctud_saturates_both_ways():
    c = Instance("CTUD")
    c["CV"] = 2**15 - 1
    c.call(CU=1).call(CU=0)
    assert c["CV"] == 2**15 - 1
    c["CV"] = -(2**15)
    c.call(CD=1).call(CD=0)
    assert c["CV"] == -(2**15)


def test_ulint_counters_use_unsigned_limits():
    top = np.int64(-1)  # 2^64 - 1 as its int64 bit pattern
    u = Instance("CTU_ULINT")
    u["CV"] = top - 1
    u["PV"] = 2**62
    for _ in range(3):
        u.call(CU=1).call(CU=0)
    assert u["CV"] % 2**64 == 2**64 - 1 and u["Q"] == 1
    d = Instance("CTD_ULINT")
    d.call(LD=1, PV=1).call(LD=0, CD=1).call(CD=0).call(CD=1)
    assert (d["CV"], d["Q"]) == (0, 1)
    ud = Instance("CTUD_ULINT")
    ud["CV"] = top
    ud.call(CU=1, PV=5)
    assert ud["CV"] % 2**64 == 2**64 - 1 and (ud["QU"], ud["QD"]) == (1, 0)
    ud.call(CU=0, R=1)
    assert (ud["CV"], ud["QD"]) == (0, 1)
    ud.call(R=0, CD=1)
    assert ud["CV"] == 0


def test_layouts_cover_every_standard_fb_and_alias():
    names = {"R_TRIG", "F_TRIG", "SR", "RS", "TON", "TOF", "TP", "LTON", "LTOF", "LTP"}
    for kind in ("CTU", "CTD", "CTUD"):
        names |= {kind + s for s in ("", "_DINT", "_UDINT", "_LINT", "_ULINT")}
    assert set(fbs.LAYOUTS) == names
    for name in names:
        step, _ = fbs.step_call(name)
        assert callable(getattr(fbs, step))
    assert fbs.LAYOUTS["CTUD"].offset("load") == fbs.CTUD_LD
    assert fbs.LAYOUTS["CTU_LINT"].fields[fbs.CTU_CV].st_type == "LINT"
    with pytest.raises(KeyError):
        fbs.LAYOUTS["TON"].offset("CV")


# --- random input sequences against a literal Python transcription of the §10 pseudo-code ---


def ref_timer(kind, steps):
    """§10 TON/TOF/TP bodies, statement by statement, for [(now, IN, PT), ...]."""
    q = et = start = 0
    running = prev_in = False
    out = []
    for now, in_, pt in steps:
        if kind == "TON":
            if not in_:
                q, et, running = 0, 0, False
            elif not running and not q:
                running, start, et, q = True, now, 0, 0
            elif running:
                if now - start >= pt:
                    q, et, running = 1, pt, False
                else:
                    et = now - start
        elif kind == "TOF":
            if in_:
                q, et, running = 1, 0, False
            elif prev_in:
                running, start, et, q = True, now, 0, 1
            elif running:
                if now - start >= pt:
                    q, et, running = 0, pt, False
                else:
                    et = now - start
            prev_in = in_
        else:
            if not running and not prev_in and in_:
                running, start, q, et = True, now, 1, 0
            elif running:
                if now - start >= pt:
                    q, et, running = 0, pt, False
                else:
                    et = now - start
            if not running and not in_:
                et = 0
            prev_in = in_
        out.append((q, et))
    return out


TIMER_STEPS = st.lists(st.tuples(st.booleans(), st.integers(0, 60)), min_size=1, max_size=40)


@settings(deadline=None)  # first calls compile
@given(kind=st.sampled_from(["TON", "TOF", "TP"]), inputs=TIMER_STEPS)
def test_timers_follow_the_pseudo_code(kind, inputs):
    steps = [((k - 1) * CYCLE, int(in_), pt) for k, (in_, pt) in enumerate(inputs, start=1)]
    t = Instance(kind)
    got = [(t.call(now, IN=in_, PT=pt)["Q"], t["ET"]) for now, in_, pt in steps]
    assert got == ref_timer(kind, steps)


@settings(deadline=None)  # first calls compile
@given(
    steps=st.lists(
        st.tuples(*[st.integers(0, 1)] * 4, st.integers(-3, 3)), min_size=1, max_size=40
    ),
    start=st.integers(-3, 3),
)
def test_ctud_follows_the_pseudo_code_near_small_limits(steps, start):
    c = Instance("CTUD")
    lo, hi = -2, 2  # small limits make saturation frequent
    c["CV"] = start
    got = []
    for cu, cd, r, ld, pv in steps:
        for field, v in (("CU", cu), ("CD", cd), ("R", r), ("LD", ld), ("PV", pv)):
            c[field] = v
        fbs.ctud_step(c.mem, c.base, np.int64(lo), np.int64(hi))
        got.append((c["CV"], c["QU"], c["QD"]))
    assert got == ref_ctud(start, steps, lo, hi)


def ref_ctud(start, steps, lo, hi):
    """§10 CTUD body from an initial CV (as if an earlier history left it there)."""
    cv, cu_m, cd_m = start, 0, 0
    out = []
    for cu, cd, r, ld, pv in steps:
        up, down = cu and not cu_m, cd and not cd_m
        cu_m, cd_m = cu, cd
        if r:
            cv = 0
        elif ld:
            cv = pv
        elif up and down:
            pass
        elif up and cv < hi:
            cv += 1
        elif down and cv > lo:
            cv -= 1
        out.append((cv, int(cv >= pv), int(cv <= 0)))
    return out
