"""D02 guard door, D24 scales and hopper, D25 tank and filler, and their S-codes."""

import math

import numpy as np

from plants.devices import guard, safety, scale, tank
from plants.devices import items as it_mod

from .linekit import Line


def test_locked_door_opens_only_once_the_bolt_is_out_and_forced_opening_is_logged():
    pa = guard.make_params(1, bolt=10, attempts=[(1.0, 2.0, False), (6.0, 0.5, True)])
    s, p = guard.make_state(pa)[0, 0], pa[0, 0]
    opened = []
    for k in range(700):
        guard.tick(s, p, k < 300 or k >= 450, k)  # unlock from 3.0 s to 4.5 s
        opened.append(not guard.sense_door_closed(s))
    first = opened.index(True)
    assert first == 299 + 10  # bolt out 10 ticks after LOCK fell at tick 300
    assert s["waited"] > 0 and not opened[first + 200] and opened[first + 199]
    assert not opened[598] and opened[599] and s["n_forced"] == 1  # forced at 6.0 s, locked
    assert opened[648] and not opened[649] and s["bolt_in"]  # closed at 6.5 s, then locked


def test_lock_feedback_dropout_reads_false_with_the_bolt_in():
    pa = guard.make_params(1, bolt=2, fb_from=50, fb_to=60)
    s, p = guard.make_state(pa)[0, 0], pa[0, 0]
    for k in range(55):
        guard.tick(s, p, True, k)
    assert s["bolt_in"] and not guard.sense_locked(s, p, 55) and guard.sense_locked(s, p, 60)


def test_platform_reading_filters_overlap_weighted_load_and_tares():
    w = Line([dict(length=200.0, weight=500.0)])
    w.place(0, 0.0)
    pa = scale.make_platforms(1, line=0, x0=1000.0, x1=1400.0, tau=0.05)
    s, p = scale.make_platform_state(pa)[0, 0], pa[0, 0]
    w.items[0, 0]["rear"] = 900.0  # half on the platform
    assert scale.platform_load(p, w.items[0], 0) == 250.0
    w.items[0, 0]["rear"] = 1100.0
    for k in range(100):
        scale.tick_platform(s, p, w.items[0], False, k)
    assert scale.sense_platform(s, p, 100) == 500
    scale.tick_platform(s, p, w.items[0], True, 100)
    assert scale.sense_platform(s, p, 101) == 0


def test_platform_ripple_and_drift():
    pa = scale.make_platforms(1, line=0, x0=0.0, x1=1.0, tau=0.01, ripple_a=10.0,
                              ripple_f=5.0, drift=60.0)
    s, p = scale.make_platform_state(pa)[0, 0], pa[0, 0]
    items = it_mod.make_items([[]])[0]
    for k in range(105):
        scale.tick_platform(s, p, items, False, k)
    expect = 60.0 * 1.06 / 60.0 + 10.0 * math.sin(2 * math.pi * 5.0 * 1.06)
    assert scale.sense_platform(s, p, 106) == round(expect)


def test_hopper_in_flight_mass_arrives_after_the_fall_time_and_discharges():
    pa = scale.make_hoppers(1, r_c=100.0, r_f=10.0, t_fall=50, r_d=200.0, tau=0.02)
    s, p = scale.make_hopper_state(pa)[0, 0], pa[0, 0]
    for k in range(100):
        scale.tick_hopper(s, p, True, True, False, False, k)
    assert np.isclose(s["m"], 50.0) and np.isclose(scale.in_flight(s), 50.0)  # COARSE wins
    for k in range(100, 200):
        scale.tick_hopper(s, p, False, False, False, False, k)
    assert np.isclose(s["m"], 100.0) and scale.sense_hopper(s, p) == 100
    out = sum(scale.tick_hopper(s, p, False, False, True, False, k) for k in range(200, 300))
    assert np.isclose(out, 100.0) and s["m"] == 0.0 and safety.s_bypass(True, True)


def test_tank_level_balance_switch_levels_and_dry_pump():
    pa = tank.make_tanks(1, pct_per_ml=0.01, q_in1=200.0, q_pump=100.0, h0=1.0)
    s, p = tank.make_tank_state(pa)[0, 0], pa[0, 0]
    for _ in range(100):
        tank.tick_tank(s, p, True, False, True)
    assert np.isclose(s["h"], 2.0) and tank.sense_level(s) == 20
    out = sum(tank.tick_tank(s, p, False, False, True) for _ in range(300))
    assert s["h"] == 0.0 and np.isclose(out, 200.0)
    assert safety.s_dryrun(True, s["h"], 5.0)


def test_filler_valve_delay_and_free_running_count():
    pa = tank.make_fillers(1, q=100.0)
    s, p = tank.make_filler_state(pa)[0, 0], pa[0, 0]
    counts = []
    for k in range(20):
        tank.tick_filler(s, p, k < 10, k)
        counts.append(float(s["count"]))
    assert counts[1] == 0.0 and counts[2] == 1.0  # opens 30 ms after the command
    assert np.isclose(counts[-1], 10.0) and tank.sense_flow_cnt(s) == 10


def test_guard_and_light_curtain_rules():
    assert safety.s_guard(False, 2.0, 1.0) and not safety.s_guard(True, 2.0, 1.0)
    assert safety.s_unlock(False, False) and not safety.s_unlock(False, True)
    tr = np.zeros(1, safety.LC_DTYPE)[0]
    tr["blocked"] = -1
    assert not safety.s_lc(tr, True, True, 100.0, 10)
    assert safety.s_lc(tr, False, True, 0.0, 10)  # command into the broken curtain
    hits = [safety.s_lc(tr, False, False, 50.0, 10) for _ in range(12)]
    assert hits.index(True) == 10  # motion continued longer than t_LC
    assert safety.s_spill(True, False) and safety.s_overflow_level(100.0, 100.0)
