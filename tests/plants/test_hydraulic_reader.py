"""A41 hydraulic cylinder and D20 barcode/vision readers."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import hydraulic, reader

from .linekit import Line


def _cyl(**values):
    pa = hydraulic.make_params(1, **values)
    return hydraulic.make_state(pa)[0, 0], pa[0, 0]


def test_valve_dead_band_and_asymmetric_gain():
    _, p = _cyl(db=0.05, k_e=200.0)
    assert hydraulic.valve_flow(p, 0.05) == 0.0
    assert np.isclose(hydraulic.valve_flow(p, 1.0), 200.0)
    assert np.isclose(hydraulic.valve_flow(p, -1.0), -320.0)


def test_constant_valve_settles_at_the_valve_speed_and_pressure_reflects_the_load():
    s, p = _cyl(db=0.0, k_e=150.0, d=-6.0, x0=100.0)
    for k in range(100):
        hydraulic.tick(s, p, 27648 // 2, k)
    assert abs(s["v"] - (75.0 - 6.0)) < 0.5 and hydraulic.sense_pos(s) > 10000
    assert hydraulic.sense_pressure(s) == round(0.02 * s["vd"] - 12.0)


@settings(max_examples=20, deadline=None)
@given(valves=st.lists(st.integers(-40000, 40000), min_size=1, max_size=300))
def test_hydraulic_stays_inside_its_stops_and_is_deterministic(valves):
    def run():
        s, p = _cyl(x0=200.0)
        out = []
        for k, u in enumerate(valves):
            hydraulic.tick(s, p, u, k)
            assert p["x_lo"] <= s["x"] <= p["x_hi"]
            out.append(float(s["x"]))
        return out

    assert run() == run()


def _reader(kind, latency=4):
    pa = reader.make_params(1, line=0, x=500.0, latency=latency, kind=kind)
    return reader.make_state(pa)[0, 0], pa[0, 0]


def test_barcode_publishes_code_sequence_and_pulses_after_the_latency():
    w = Line([dict(length=100.0, code=4711), dict(length=100.0, code=0)])
    w.place(0, 350.0)
    w.place(1, 100.0)
    s, p = _reader(reader.BARCODE)
    events = []
    for k in range(200):
        w.step([500.0], k)
        reader.tick(s, p, w.items[0], k)
        events.append((int(s["seq"]), int(s["code"]), reader.sense_ok(s, k + 1),
                       reader.sense_nok(s, k + 1)))
    first = next(i for i, e in enumerate(events) if e[0] == 1)
    # the front reaches 500 mm after 10 steps (state 10); published 4 ticks later
    assert first == 13 and events[first][1] == 4711 and events[first][2]
    assert all(e[2] for e in events[first:first + 5]) and not events[first + 5][2]
    second = next(i for i, e in enumerate(events) if e[0] == 2)
    assert events[second][3] and events[second][1] == 0


def test_vision_verdicts_carry_the_trigger_number_and_lost_results_never_arrive():
    w = Line([dict(length=50.0, defect=1), dict(length=50.0, vision_lost=1),
              dict(length=50.0)])
    for j in range(3):
        w.place(j, 400.0 - 60.0 * j)
    s, p = _reader(reader.VISION, latency=20)
    seqs = []
    for k in range(100):
        w.step([300.0], k)
        reader.tick(s, p, w.items[0], k)
        if reader.sense_nok(s, k + 1) or reader.sense_ok(s, k + 1):
            seqs.append((int(s["seq"]), bool(reader.sense_nok(s, k + 1))))
    assert s["n_trig"] == 3 and sorted(set(seqs)) == [(1, True), (3, False)]
