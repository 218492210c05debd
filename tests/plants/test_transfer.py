"""D23 turntable: exact capture/discharge ticks, S-SHEAR, S-DROP, and property tests."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import cylinder, safety, transfer
from plants.devices import items as it_mod

from .linekit import Line


def _world(rears, lengths=None, dest_rev=-1):
    lengths = lengths or [300.0] * len(rears)
    w = Line([dict(length=ell) for ell in lengths], length=3000.0)
    for j, rear in enumerate(rears):
        w.place(j, rear)
    rp = cylinder.make_params(1, t_ext=0.5, t_ret=0.5)
    rs = cylinder.make_state(rp)[0, 0]
    tp = transfer.make_turntable_params(1, line=0, x0=1500.0, x1=2300.0, v_roll=500.0,
                                        dest_fwd=5, dest_rev=dest_rev)
    ts = transfer.make_turntable_state(tp)[0, 0]
    return w, rs, rp[0, 0], ts, tp[0, 0]


def _run(world, schedule, k0=0):
    w, rs, rp, ts, tp = world
    for i, (rot, fwd, rev) in enumerate(schedule):
        cylinder.tick(rs, rp, rot, False, k0 + i)
        transfer.tick_turntable(ts, tp, rs, w.items[0], fwd, rev, k0 + i)


def test_item_inside_the_table_is_taken_on_the_first_tick_of_rotation_and_delivered():
    world = _world([1700.0])
    item = world[0].items[0, 0]
    _run(world, [(True, False, False)])
    assert item["place"] == it_mod.LINE  # s = 0.02: T_0 still on
    _run(world, [(True, False, False)], k0=1)
    assert item["place"] == it_mod.HELD and world[3]["u"] == 200.0
    _run(world, [(True, False, False)] * 47, k0=2)
    assert transfer.sense_t90(world[1]) and not transfer.sense_t0(world[1])
    # centre at u = 350 must pass 800: 450 mm at 5 mm per tick = 90 ticks, the 91st passes
    _run(world, [(True, True, False)] * 90, k0=49)
    assert item["place"] == it_mod.HELD
    _run(world, [(True, True, False)], k0=139)
    assert item["fate"] == it_mod.DELIVERED and item["dest"] == 5 and item["t_fate"] == 140
    assert world[3]["n_delivered"] == 1 and not safety.s_drop_counted(world[3])


def test_rollers_discharging_toward_a_side_without_receiver_drop_the_item():
    world = _world([1700.0])
    _run(world, [(True, False, False)] * 49 + [(True, False, True)] * 71)
    item = world[0].items[0, 0]
    assert item["fate"] == it_mod.DROPPED and world[3]["first_drop_tick"] == 120
    assert safety.s_drop_counted(world[3])


def test_rollers_do_not_move_the_item_while_the_table_is_turning():
    world = _world([1700.0])
    _run(world, [(True, True, False)] * 48)
    assert world[3]["u"] == 200.0


def test_straddling_item_is_sheared_and_not_taken():
    world = _world([1400.0])
    _run(world, [(True, False, False)] * 3)
    item = world[0].items[0, 0]
    assert item["place"] == it_mod.LINE and item["damaged"]
    assert safety.s_shear(world[3]) and world[3]["first_shear_tick"] == 1  # first moving tick


def test_item_just_touching_the_edge_is_not_sheared():
    world = _world([1199.5])  # front at 1499.5: within the 1 mm straddle tolerance
    _run(world, [(True, False, False)] * 3)
    assert not safety.s_shear(world[3])


def test_turning_back_to_zero_sets_the_item_back_on_the_line():
    world = _world([1700.0])
    _run(world, [(True, False, False)] * 49 + [(True, True, False)] * 20
         + [(False, False, False)] * 49)
    item = world[0].items[0, 0]
    assert item["place"] == it_mod.LINE and item["rear"] == 1800.0


def test_s_lift_zone_sees_either_edge_only_while_rising():
    w = _world([2200.0])[0]  # straddles x1 = 2300
    items = w.items[0]
    assert safety.s_lift_zone(items, 0, 1500.0, 2300.0, 0.1, 0.2)
    assert not safety.s_lift_zone(items, 0, 1500.0, 2300.0, 0.2, 0.2)
    assert not safety.s_lift_zone(items, 0, 1000.0, 1900.0, 0.1, 0.2)


schedules = st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans(),
                               st.integers(1, 80)), min_size=1, max_size=8)
"""Runs of (ROTATE, FWD, REV) held for 1..80 ticks, so that the table reaches 90°."""


def _fingerprint(world):
    its = world[0].items[0]
    return (its["place"].tolist(), its["fate"].tolist(), its["t_fate"].tolist(),
            its["rear"].tolist(), world[3].tolist())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 40)), min_size=1, max_size=4),
       schedules, st.sampled_from([-1, 6]))
def test_properties_items_conserved_switches_consistent_deterministic(spec, sched, dest_rev):
    rears, lengths, x = [], [], 900.0
    for kind, gap in spec:
        lengths.append((200.0, 300.0, 500.0)[kind])
        rears.append(x + 10.0 * gap)
        x = rears[-1] + lengths[-1] + 1.0
    runs = []
    for _ in range(2):
        world = _world(rears, lengths, dest_rev)
        w, rs, rp, ts, tp = world
        steps = [(r, f, b) for r, f, b, n in sched for _ in range(n)]
        for k, step in enumerate(steps):
            _run(world, [step], k0=k)
            assert not (transfer.sense_t0(rs) and transfer.sense_t90(rs))
            assert transfer.sense_t0(rs) == (rs["s"] <= 0.02 + 1e-9)
            its = w.items[0]
            held = np.flatnonzero(its["place"] == it_mod.HELD)
            assert len(held) <= 1 and (len(held) == 0 or held[0] == ts["item"])
            done = its["place"] == it_mod.DONE
            assert np.all((its["fate"] != it_mod.FATE_NONE) == done)
            delivered = its["fate"] == it_mod.DELIVERED
            assert np.all(np.isin(its["dest"][delivered], [5, 6]))
            assert int(delivered.sum()) == ts["n_delivered"]
            on = np.sort(its[its["place"] == it_mod.LINE], order="rear")
            assert np.all(on["rear"][1:] >= on["rear"][:-1] + on["length"][:-1] - 1e-9)
        runs.append(_fingerprint(world))
    assert runs[0] == runs[1]
