"""D03 DOL starter + motor: exact contactor delays, speed law, faults, and properties."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import dol
from plants.devices.protocol import DT


def _unit(**values):
    pa = dol.make_params(1, **values)
    return dol.make_state(pa)[0, 0], pa[0, 0]


def _run(st_, pa, runs, k0=0):
    trace = []
    for i, run in enumerate(runs):
        dol.tick(st_, pa, bool(run), k0 + i)
        trace.append((int(st_["k"]), float(st_["n"])))
    return trace


def test_contactor_closes_after_pickup_and_opens_after_dropout():
    s, p = _unit(pickup=4, dropout=2)
    trace = _run(s, p, [1] * 6 + [0] * 3)
    # RUN latched at tick 0 -> K in the state of tick 4 (= after 4 steps), i.e. 40 ms later
    assert [k for k, _ in trace] == [0, 0, 0, 1, 1, 1, 1, 0, 0]


def test_speed_law_is_first_order_with_separate_time_constants():
    s, p = _unit(tau_acc=0.5, tau_coast=2.0)
    _run(s, p, [1])
    assert np.isclose(s["n"], DT / 0.5)
    n1 = float(s["n"])
    _run(s, p, [0], k0=1)
    assert np.isclose(s["n"], n1 - n1 * DT / 2.0)
    s, p = _unit(tau_acc=0.5)
    _run(s, p, [1] * 50)
    assert np.isclose(s["n"], 1 - (1 - DT / 0.5) ** 50)


def test_overload_window_forces_contactor_open_and_ol_ok_false():
    s, p = _unit(ol_from=10, ol_to=20)
    trace = _run(s, p, [1] * 30)
    # trace[i] is the state of tick i + 1; OL_OK is FALSE in the states of ticks 10..19
    assert all(k == 0 for k, _ in trace[9:19]) and trace[8][0] == 1 and trace[19][0] == 1
    assert dol.sense_ol_ok(p, 9) and not dol.sense_ol_ok(p, 10) and dol.sense_ol_ok(p, 20)


def test_welded_contactor_stays_closed_and_failed_one_never_closes():
    s, p = _unit(weld_from=5)
    trace = _run(s, p, [1] * 10 + [0] * 10)
    assert all(k == 1 for k, _ in trace)
    s, p = _unit(open_from=0, open_to=100)
    assert all(k == 0 for k, _ in _run(s, p, [1] * 50))
    assert not dol.sense_run_fb(s)


@settings(max_examples=40, deadline=None)
@given(
    runs=st.lists(st.booleans(), min_size=1, max_size=300),
    pickup=st.integers(0, 6),
    tau=st.floats(0.2, 2.0),
    ol=st.tuples(st.integers(0, 300), st.integers(0, 100)),
)
def test_dol_properties(runs, pickup, tau, ol):
    values = dict(pickup=pickup, dropout=2, tau_acc=tau, tau_coast=2 * tau,
                  ol_from=ol[0], ol_to=ol[0] + ol[1])
    s, p = _unit(**values)
    trace = _run(s, p, runs)
    s2, p2 = _unit(**values)
    assert _run(s2, p2, runs) == trace  # same inputs, same trajectory
    for i, (k, n) in enumerate(trace):
        assert 0.0 <= n <= 1.0
        if not dol.sense_ol_ok(p, i + 1):
            assert k == 0
        if k and (i == 0 or trace[i - 1][0] == 0):
            assert all(runs[max(0, i - pickup + 1): i + 1])  # closing needs RUN held for pick-up
    assert s["starts"] == sum(1 for i, (k, _) in enumerate(trace) if k and (i == 0 or not trace[i - 1][0]))
