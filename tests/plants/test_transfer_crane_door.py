"""D23 chain transfer, D14 pendulum, D13 door: exact rules and physics checks."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import chute, cylinder, door, pendulum, safety, transfer
from plants.devices import items as it_mod
from plants.devices.protocol import DT

from .linekit import Line


def _transfer_world(rear):
    w = Line([dict(length=300.0)], length=3000.0)
    w.place(0, rear)
    lp = cylinder.make_params(1, t_ext=0.5, t_ret=0.5)
    ls = cylinder.make_state(lp)[0, 0]
    tp = transfer.make_params(1, line=0, x0=1500.0, x1=2300.0, chute=0)
    ts, tp = transfer.make_state(tp)[0, 0], tp[0, 0]
    cp = chute.make_params(1, capacity=3, dest=4)
    return w, ls, lp[0, 0], ts, tp, chute.make_state(cp)[0], cp[0]


def _run(world, schedule, k0=0):
    w, ls, lp, ts, tp, cs, cp = world
    for i, (lift, chain) in enumerate(schedule):
        cylinder.tick(ls, lp, lift, False, k0 + i)
        transfer.tick(ts, tp, ls, w.items[0], chain, cs, cp, k0 + i)


def test_item_fully_in_the_zone_reaches_the_lane_after_the_chain_time_with_the_lift_up():
    world = _transfer_world(1700.0)
    _run(world, [(True, True)] * 48)
    assert world[0].items[0, 0]["place"] == it_mod.LINE  # lift UP (s >= 0.98) after 49 steps
    _run(world, [(True, True)] * 149, k0=48)
    item = world[0].items[0, 0]
    assert item["place"] == it_mod.HELD  # 149 ticks of chain time with the lift UP
    _run(world, [(True, True)], k0=197)
    assert item["fate"] == it_mod.DELIVERED and item["dest"] == 4 and world[5][0]["count"] == 1


def test_chain_time_with_the_lift_not_up_does_not_count_and_early_lowering_damages():
    world = _transfer_world(1700.0)
    _run(world, [(True, False)] * 60 + [(True, True)] * 100)
    assert world[3]["chain_ticks"] == 100
    _run(world, [(False, True)] * 2, k0=160)
    item = world[0].items[0, 0]
    assert item["place"] == it_mod.LINE and item["damaged"]


def test_straddling_item_is_not_lifted_and_s_lift_fires():
    world = _transfer_world(1400.0)  # footprint 1400..1700 straddles x0 = 1500
    _run(world, [(True, True)] * 60)
    assert world[0].items[0, 0]["place"] == it_mod.LINE
    assert safety.s_lift(world[0].items[0], 0, 1500.0, 0.1, 0.2)


def test_pendulum_small_oscillation_period_and_damping():
    pa = pendulum.make_params(1, c=0.0)
    s, p = pendulum.make_state(pa, rope=2000.0, theta=math.radians(2.0))[0, 0], pa[0, 0]
    crossings, prev = [], s["theta"]
    for k in range(1000):
        pendulum.tick(s, p, 0.0, 2000.0, k)
        if prev > 0.0 >= s["theta"]:
            crossings.append(k)
        prev = s["theta"]
    period = (crossings[-1] - crossings[0]) / (len(crossings) - 1) * DT
    assert abs(period - 2 * math.pi * math.sqrt(2.0 / 9.81)) < 0.02
    assert abs(pendulum.sense_sway(s)) <= 201  # undamped: amplitude kept
    pa = pendulum.make_params(1, c=0.05)
    s, p = pendulum.make_state(pa, rope=2000.0, theta=math.radians(2.0))[0, 0], pa[0, 0]
    for k in range(3000):
        pendulum.tick(s, p, 0.0, 2000.0, k)
    assert abs(math.degrees(s["theta"])) < 2.0 * math.exp(-0.05 * 30 / 2) * 1.1


def test_trolley_acceleration_swings_the_load_back_and_empty_hook_reads_zero():
    pa = pendulum.make_params(1)
    s, p = pendulum.make_state(pa, rope=3000.0)[0, 0], pa[0, 0]
    x, v = 0.0, 0.0
    for k in range(30):
        v += 500.0 * DT
        x += v * DT
        pendulum.tick(s, p, x, 3000.0, k)
    assert s["theta"] < 0.0 and pendulum.sense_sway_rate(s) < 0
    assert not safety.s_sway(s["theta"], 8.0)
    s2 = pendulum.make_state(pa, rope=3000.0, latched=0)[0, 0]
    pendulum.tick(s2, p, 100.0, 3000.0, 0)
    assert pendulum.sense_sway(s2) == 0


@settings(max_examples=20, deadline=None)
@given(accels=st.lists(st.floats(-800.0, 800.0), min_size=1, max_size=300),
       rope=st.floats(1000.0, 5000.0))
def test_pendulum_is_deterministic_and_bounded(accels, rope):
    def run():
        pa = pendulum.make_params(1, c=0.02)
        s, p = pendulum.make_state(pa, rope=rope)[0, 0], pa[0, 0]
        x, v, out = 0.0, 0.0, []
        for k, a in enumerate(accels):
            v += a * DT
            x += v * DT
            pendulum.tick(s, p, x, rope, k)
            out.append(float(s["theta"]))
        return out

    thetas = run()
    assert thetas == run() and max(abs(t) for t in thetas) < math.radians(10.0)


def test_door_runs_linearly_and_close_is_ignored_while_obstructed():
    pa = door.make_params(1, t_door=2.0)
    s, p = door.make_state(pa)[0, 0], pa[0, 0]
    for k in range(200):
        door.tick(s, p, True, False, True, k)
    assert door.sense_opened(s) and not door.sense_closed(s)
    for k in range(200, 250):
        door.tick(s, p, False, True, True, k)
    assert np.isclose(s["d"], 0.75)
    door.tick(s, p, False, True, False, 250)
    assert np.isclose(s["d"], 0.75) and safety.s_doorclose(s)
    assert safety.s_liftdoor(6.0, False) and safety.s_doorlevel(True, 1012.0, 1000.0)
