"""D10 index table, D15 web/marks/dancer, D17 gravity magazine, operator removal."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import cylinder, index_table, magazine, web
from plants.devices import items as it_mod

from .linekit import Line


def _table(**values):
    pa = index_table.make_params(1, **values)
    cp = cylinder.make_params(1, kind=cylinder.MONO, t_ext=0.3, t_ret=0.3)
    return (index_table.make_state(pa)[0, 0], pa[0, 0], cylinder.make_state(cp)[0, 0], cp[0, 0])


def _index(s, p, ps, pp, schedule, k0=0):
    for i, (motor, creep, pin) in enumerate(schedule):
        index_table.tick(s, p, ps, pp, motor, creep, pin, k0 + i)


def test_index_to_next_station_with_pre_cam_creep_and_pin():
    s, p, ps, pp = _table(n_stations=8, w_fast=60.0, w_creep=8.0, tau=0.1, brake=800.0)
    k = 0
    seen_pre = False
    while k < 3000:
        pre = index_table.sense_pre_cam(s, p)
        seen_pre |= pre
        at = index_table.sense_index_cam(s, p) and s["theta"] > 10.0
        index_table.tick(s, p, ps, pp, not at, pre, at, k)
        k += 1
        if cylinder.sense_extended(ps, pp):
            break
    assert seen_pre and s["theta"] == 45.0 and s["n_pin"] == 0
    assert index_table.station_index(s, p) == 2 and not index_table.sense_home_cam(s, p)


def test_pin_entering_a_turning_table_is_a_collision():
    s, p, ps, pp = _table(n_stations=4, w_fast=60.0, tau=0.1)
    _index(s, p, ps, pp, [(True, False, False)] * 100)
    _index(s, p, ps, pp, [(True, False, True)] * 10, k0=100)
    assert s["n_pin"] == 1 and s["collided"] and 0.1 >= ps["s"] > 0.0


@settings(max_examples=25, deadline=None)
@given(schedule=st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=1,
                         max_size=400))
def test_index_table_properties(schedule):
    s, p, ps, pp = _table()
    _index(s, p, ps, pp, schedule)
    assert 0.0 <= s["theta"] < 360.0 and s["w"] >= 0.0 and 0.0 <= ps["s"] <= 1.0
    if ps["s"] > 0.1 and not s["collided"]:
        assert s["w"] == 0.0  # a pin that is in locks the table


def test_master_profile_marks_latch_and_edge_registers():
    pa = web.make_params(1, profile=[(0.0, 0.0), (1.0, 500.0)], mark_x0=100.0, pitch=50.0)
    s, p = web.make_state(pa)[0, 0], pa[0, 0]
    for k in range(200):
        web.tick(s, p, False, 0.0, k)
    # ramp 0 -> 500 mm/s over 1 s (250 mm), then 1 s at 500 mm/s
    assert np.isclose(s["x"], 750.0) and web.sense_master_pos(s) == 75000
    assert s["latched"] and s["mark_pos"] == 100.0  # the first mark, exactly
    assert s["edge_r_cnt"] == 14 and s["edge_r_pos"] == 750.0 and s["lost"] == 13
    web.tick(s, p, True, 0.0, 200)
    assert not s["latched"]
    for k in range(201, 220):
        web.tick(s, p, False, 0.0, k)
    assert s["latched"] and s["mark_pos"] == 800.0


def test_dancer_integrates_the_speed_difference_with_a_measurement_lag():
    pa = web.make_params(1, profile=[(0.0, 100.0)], p0=100.0, tau_d=0.1)
    s, p = web.make_state(pa)[0, 0], pa[0, 0]
    for k in range(100):
        web.tick(s, p, False, 80.0, k)
    assert np.isclose(s["p"], 100.0 + 20.0 * 1.0 / 2.0)
    assert s["p_meas"] < s["p"] and web.sense_dancer(s) < 1100


def test_roll_radius_shrinks_on_an_unwinder():
    pa = web.make_params(1, profile=[(0.0, 1000.0)], r0=300.0, t_web=0.1)
    s, p = web.make_state(pa)[0, 0], pa[0, 0]
    for k in range(100):
        web.tick(s, p, False, 1000.0, k)
    assert np.isclose(web.roll_radius(s, p), np.sqrt(300.0**2 - 0.1 * 1000.0 / np.pi))


def test_magazine_pushes_one_item_per_stroke_and_reports_collisions_and_empty():
    w = Line([dict(length=80.0)] * 3)
    cp = cylinder.make_params(1, t_ext=0.1, t_ret=0.1)
    cs = cylinder.make_state(cp)[0, 0]
    mp = magazine.make_params(1, line=0, x_exit=0.0, first=0, last=3)
    ms, mp = magazine.make_state(mp)[0, 0], mp[0, 0]

    def stroke(k0, v):
        for k in range(k0, k0 + 40):
            cylinder.tick(cs, cp[0, 0], k < k0 + 20, False, k)
            magazine.tick(ms, mp, cs, cp[0, 0], w.items[0], k)
            w.step([v], k)

    stroke(0, 0.0)
    assert w.items[0, 0]["place"] == it_mod.LINE and ms["next"] == 1
    stroke(40, 0.0)  # exit still occupied: a collision, the item stays in the stack
    assert ms["n_collide"] == 1 and ms["next"] == 1
    w.items[0, 0]["rear"] = 500.0
    stroke(80, 0.0)
    stroke(120, 0.0)
    assert ms["next"] == 2 and ms["n_collide"] == 2
    assert it_mod.remove_covering(w.items[0], 0, 40.0, 160) == 1
    stroke(160, 0.0)
    assert magazine.sense_empty(ms, mp) and w.items[0, 1]["fate"] == it_mod.REMOVED
