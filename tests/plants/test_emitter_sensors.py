"""D17 emitter modes and D19/D20 sensors: placement ticks, blocking, footprints, faults."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import emitter, sensors
from plants.devices import items as it_mod
from plants.devices.protocol import EPS

from .linekit import Line


def _emitter(mode, n, gap=50.0):
    pa = emitter.make_params(1, line=0, x_place=0.0, gap_min=gap, mode=mode, first=0, last=n)
    return emitter.make_state(pa)[0, 0], pa[0, 0]


def test_time_mode_places_at_the_scripted_tick_and_waits_while_blocked():
    w = Line([dict(length=300.0, t_place=100), dict(length=300.0, t_place=110)])
    s, p = _emitter(emitter.TIME, 2)
    placed_at = {}
    for k in range(400):
        w.step([200.0], k)
        emitter.tick(s, p, w.items[0], False, k)
        for j in range(2):
            if w.items[0, j]["place"] == it_mod.LINE:
                placed_at.setdefault(j, k + 1)
    assert placed_at[0] == 100  # in the state of t = 1.0 s
    # the second waits until [0, 300 + 50] is free: rear of item 0 at >= 350 mm
    assert placed_at[1] == 100 + 175 and s["blocked_ticks"] == 175 - 10


def test_pitch_mode_places_the_next_item_when_the_previous_travelled_the_pitch():
    w = Line([dict(length=60.0, t_place=100), dict(length=60.0, pitch=800.0)], length=3000.0)
    s, p = _emitter(emitter.PITCH, 2)
    for k in range(600):
        w.step([250.0], k)
        emitter.tick(s, p, w.items[0], False, k)
        if w.items[0, 1]["place"] == it_mod.LINE:
            break
    assert np.isclose(w.items[0, 0]["travel"], 800.0) and w.items[0, 1]["rear"] == 0.0


def test_program_mode_places_on_an_induct_edge_only():
    w = Line([dict(length=60.0), dict(length=60.0)])
    s, p = _emitter(emitter.PROGRAM, 2)
    for k, induct in enumerate([False, True, True, True]):
        emitter.tick(s, p, w.items[0], induct, k)
    assert s["placed"] == 1


def _sensor(**values):
    pa = sensors.make_params(1, line=0, **values)
    return sensors.make_state(pa)[0, 0], pa[0, 0]


def test_sensor_kinds_see_footprints_and_attributes():
    w = Line([dict(length=100.0, metal=1, colour=it_mod.RED, height=80.0),
              dict(length=100.0, colour=it_mod.BLUE, height=40.0)])
    w.place(0, 250.0)
    w.place(1, 500.0)
    its = w.items[0]
    assert sensors.detects(_sensor(x=250.0, kind=sensors.DIFFUSE)[1], its)  # rear edge counts
    assert sensors.detects(_sensor(x=350.0, kind=sensors.DIFFUSE)[1], its)  # front edge counts
    assert not sensors.detects(_sensor(x=400.0, kind=sensors.DIFFUSE)[1], its)
    assert sensors.detects(_sensor(x=400.0, kind=sensors.RETRO)[1], its)  # beam clear
    assert not sensors.detects(_sensor(x=300.0, kind=sensors.RETRO)[1], its)
    assert sensors.detects(_sensor(x=300.0, kind=sensors.INDUCTIVE)[1], its)
    assert not sensors.detects(_sensor(x=550.0, kind=sensors.INDUCTIVE)[1], its)
    red = sensors.colour_mask(it_mod.RED)
    assert sensors.detects(_sensor(x=300.0, kind=sensors.COLOUR, colours=red)[1], its)
    assert not sensors.detects(_sensor(x=550.0, kind=sensors.COLOUR, colours=red)[1], its)
    assert not sensors.detects(_sensor(x=550.0, kind=sensors.HEIGHT_GATE, h_min=50.0)[1], its)
    assert sensors.sense_height(_sensor(x=300.0)[1], its) == 800
    w.items[0, 0]["place"] = it_mod.HELD  # captured items are no longer seen (A8)
    assert not sensors.detects(_sensor(x=300.0, kind=sensors.DIFFUSE)[1], w.items[0])


def test_stuck_and_chatter_faults():
    w = Line([dict(length=100.0)])
    s, p = _sensor(x=105.0, chatter=1, stuck_from=300, stuck_to=310, stuck_val=1)
    w.place(0, 0.0)
    readings = []
    for k in range(320):
        sensors.tick(s, p, w.items[0], k)
        readings.append(sensors.sense(s, p, k))
        w.step([100.0], k)
    truth_edge = 5  # the footprint front reaches 105 mm in the state of tick 5 (1 mm per tick)
    assert readings[truth_edge - 1:truth_edge + 3] == [False, True, False, True]
    assert all(readings[300:310]) and not readings[299] and not readings[310]


@settings(max_examples=30, deadline=None)
@given(xs=st.lists(st.floats(0.0, 2000.0), min_size=1, max_size=4),
       lengths=st.lists(st.floats(40.0, 300.0), min_size=1, max_size=5),
       v=st.sampled_from([100.0, 250.0, 400.0]))
def test_diffuse_sensors_agree_with_positions(xs, lengths, v):
    w = Line([dict(length=ln, t_place=1 + 40 * j) for j, ln in enumerate(lengths)])
    s, p = _emitter(emitter.TIME, len(lengths), gap=20.0)
    sens = [_sensor(x=x, kind=sensors.DIFFUSE) for x in xs]
    for k in range(300):
        w.step([v], k)
        emitter.tick(s, p, w.items[0], False, k)
        on = w.on_line()
        for ss, sp in sens:
            sensors.tick(ss, sp, w.items[0], k + 1)
            # footprints are closed intervals, compared with the library's EPS tolerance
            expect = any(i["rear"] - EPS <= sp["x"] <= i["rear"] + i["length"] + EPS for i in on)
            assert sensors.sense(ss, sp, k + 1) == expect
