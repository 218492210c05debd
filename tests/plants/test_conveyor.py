"""D18 conveyor lines with D16 items (G11): exact motion, joints, ends, blocking, properties."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import conveyor
from plants.devices import items as it_mod
from plants.devices.protocol import DT, EPS

from .linekit import Line


def test_item_moves_with_the_surface_and_is_dropped_at_an_open_end():
    w = Line([dict(length=300.0)])
    w.place(0, 0.0)
    for k in range(10):
        w.step([300.0], k)
    assert np.isclose(w.items[0, 0]["rear"], 10 * 300.0 * DT)
    k = 10
    while w.items[0, 0]["place"] == it_mod.LINE:
        w.step([300.0], k)
        k += 1
    item = w.items[0, 0]
    assert item["fate"] == it_mod.DROPPED and w.line_state[0, 0]["n_drop"] == 1
    # dropped in the step in which the centre passed x = 2000
    assert item["rear"] + 150.0 > 2000.0 and item["rear"] + 150.0 - 3.0 <= 2000.0 + EPS
    assert item["t_fate"] == k


def test_receiver_delivers_and_end_plate_blocks_and_presses():
    w = Line([dict(length=200.0)], down_kind=conveyor.END_RECEIVER)
    w.place(0, 1700.0)
    for k in range(200):
        w.step([500.0], k)
    assert w.items[0, 0]["fate"] == it_mod.DELIVERED and w.items[0, 0]["dest"] == 7
    w = Line([dict(length=200.0)], down_kind=conveyor.END_PLATE)
    w.place(0, 1700.0)
    for k in range(200):
        w.step([500.0], k)
    assert w.items[0, 0]["rear"] == 1800.0 and w.items[0, 0]["pressed"]
    assert w.items[0, 0]["press_ticks"] > 100


def test_items_queue_behind_a_raised_stopper_and_pass_when_lowered():
    w = Line([dict(length=100.0), dict(length=100.0)], obstacles=(1000.0,))
    w.place(0, 500.0)
    w.place(1, 300.0)
    for k in range(300):
        w.step([400.0], k, blades=[1])
    a, b = w.items[0, 0], w.items[0, 1]
    assert np.isclose(a["rear"], 900.0) and np.isclose(b["rear"], 800.0)
    assert a["pressed"] and b["pressed"]
    w.step([400.0], 300, blades=[0])
    assert np.isclose(a["rear"], 904.0) and not a["pressed"]


def test_item_changes_carrier_at_the_joint_and_a_stopped_receiving_belt_is_a_pileup():
    w = Line([dict(length=200.0)], joints=(1000.0,))
    w.place(0, 700.0)
    k = 0
    while w.items[0, 0]["rear"] + 100.0 < 1000.0:
        w.step([300.0, 0.0], k)
        k += 1
    assert w.line_state[0, 0]["n_pileup"] == 1
    rear = float(w.items[0, 0]["rear"])
    w.step([300.0, 0.0], k)
    assert w.items[0, 0]["rear"] == rear  # now carried by the stopped belt


@st.composite
def _world(draw):
    n_items = draw(st.integers(1, 8))
    lengths = [draw(st.floats(40.0, 400.0)) for _ in range(n_items)]
    joints = sorted(draw(st.lists(st.floats(200.0, 1800.0), max_size=2, unique=True)))
    if len(joints) == 2 and joints[1] - joints[0] < 1.0:
        joints = joints[:1]
    obstacles = tuple(draw(st.lists(st.floats(50.0, 1950.0), max_size=2)))
    down = draw(st.sampled_from([conveyor.END_OPEN, conveyor.END_RECEIVER, conveyor.END_PLATE]))
    up = draw(st.sampled_from([conveyor.END_OPEN, conveyor.END_PLATE]))
    # a non-overlapping initial placement
    rears, x = [], 0.0
    for ln in lengths:
        x += draw(st.floats(0.0, 300.0))
        rears.append(x)
        x += ln
    n_seg = len(joints) + 1
    speeds = draw(st.lists(
        st.lists(st.sampled_from([-600.0, -250.0, 0.0, 2.0, 250.0, 600.0, 1500.0]),
                 min_size=n_seg, max_size=n_seg), min_size=1, max_size=6))
    blades = draw(st.lists(st.lists(st.booleans(), min_size=max(len(obstacles), 1),
                                    max_size=max(len(obstacles), 1)), min_size=1, max_size=6))
    return lengths, rears, joints, obstacles, down, up, speeds, blades


def _simulate(world, n_ticks=400):
    lengths, rears, joints, obstacles, down, up, speeds, blades = world
    length = max(2000.0, rears[-1] + lengths[-1] + 10.0)
    w = Line([dict(length=ln) for ln in lengths], length=length, joints=joints,
             obstacles=obstacles, down_kind=down, up_kind=up)
    for j, r in enumerate(rears):
        w.place(j, r)
    for k in range(n_ticks):
        w.step(speeds[(k // 70) % len(speeds)], k, blades=blades[(k // 50) % len(blades)])
        yield w, k


@settings(max_examples=60, deadline=None)
@given(world=_world())
def test_line_properties(world):
    n = len(world[0])
    fates_seen = {}
    for w, _k in _simulate(world):
        its = w.items[0]
        # conservation: every item is on the line or has exactly one recorded fate
        assert len(its) == n
        for j in range(n):
            if its[j]["place"] == it_mod.DONE:
                fates_seen.setdefault(j, (int(its[j]["fate"]), int(its[j]["t_fate"])))
                assert fates_seen[j] == (int(its[j]["fate"]), int(its[j]["t_fate"]))
                assert its[j]["fate"] in (it_mod.DELIVERED, it_mod.DROPPED)
            else:
                assert its[j]["place"] == it_mod.LINE and j not in fates_seen
        on = w.on_line()
        order = np.argsort(on["rear"])
        for a, b in zip(order[:-1], order[1:], strict=False):
            assert on[a]["rear"] + on[a]["length"] <= on[b]["rear"] + 1e-6  # never overlap
        for item in on:
            c = item["rear"] + item["length"] / 2
            assert -EPS <= c <= w.lines[0, 0]["x_end"] + EPS  # centre still on the line
            if world[4] == conveyor.END_PLATE:
                assert item["rear"] + item["length"] <= w.lines[0, 0]["x_end"] + 1e-6
            if world[5] == conveyor.END_PLATE:
                assert item["rear"] >= -1e-6
            assert abs(item["rear"] - item["rear_prev"]) <= 1500.0 * DT + 1e-9
    ln = w.line_state[0, 0]
    assert ln["n_drop"] == sum(1 for f, _ in fates_seen.values() if f == it_mod.DROPPED)
    assert ln["n_delivered"] == sum(1 for f, _ in fates_seen.values() if f == it_mod.DELIVERED)


@settings(max_examples=15, deadline=None)
@given(world=_world())
def test_line_is_deterministic(world):
    def run():
        last = None
        for w, _ in _simulate(world, n_ticks=200):
            last = w
        return last.items.copy(), last.line_state.copy()

    (a_items, a_line), (b_items, b_line) = run(), run()
    assert a_items.tobytes() == b_items.tobytes() and a_line.tobytes() == b_line.tobytes()
