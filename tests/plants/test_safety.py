"""S-code predicates: each rule fires exactly on its violating pattern."""

import numpy as np

from plants.devices import items as it_mod
from plants.devices import safety


def _tracker(dtype, **values):
    tr = np.zeros(1, dtype)
    for k, v in values.items():
        tr[k] = v
    return tr[0]


def test_estop_stoppb_bothdir():
    assert safety.s_estop(False, True) and not safety.s_estop(True, True)
    assert safety.s_stoppb(False, True) and not safety.s_stoppb(False, False)
    assert safety.s_bothdir(True, True) and not safety.s_bothdir(True, False)


def test_restart_needs_a_start_edge_after_a_stopping_event():
    tr = _tracker(safety.RESTART_DTYPE)
    assert not safety.s_restart(tr, True, True, False)  # normal start
    assert not safety.s_restart(tr, False, False, True)  # trip stops it
    assert safety.s_restart(tr, True, False, False)  # restarts by itself
    tr = _tracker(safety.RESTART_DTYPE, armed=1)
    assert not safety.s_restart(tr, False, True, False)
    assert not safety.s_restart(tr, True, False, False)  # START edge came earlier: allowed (A3)


def test_deadtime_with_two_tick_tolerance():
    tr = safety.make_deadtime(1)[0]
    for _ in range(5):
        assert not safety.s_deadtime(tr, True, False, 20)
    for _ in range(17):
        assert not safety.s_deadtime(tr, False, False, 20)
    assert safety.s_deadtime(tr, False, True, 20)  # 17 ticks < 20 - 2
    tr = safety.make_deadtime(1)[0]
    safety.s_deadtime(tr, True, False, 20)
    for _ in range(18):
        safety.s_deadtime(tr, False, False, 20)
    assert not safety.s_deadtime(tr, False, True, 20)


def test_stardelta_overlap_gap_and_inrush():
    tr = _tracker(safety.STARDELTA_DTYPE)
    assert not safety.s_stardelta(tr, True, False)
    assert safety.s_stardelta(tr, True, True)
    tr = _tracker(safety.STARDELTA_DTYPE)
    safety.s_stardelta(tr, True, False)
    for _ in range(4):
        assert not safety.s_stardelta(tr, False, False)
    assert safety.s_stardelta(tr, False, True)  # DELTA 40 ms after STAR fell
    assert safety.s_inrush(True, 0.8) and not safety.s_inrush(True, 0.9)


def test_cycle_counts_starts_in_a_sliding_minute():
    tr = _tracker(safety.CYCLE_DTYPE)
    hits = [safety.s_cycle(tr, True, 3, k) for k in (0, 1000, 2000, 3000)]
    assert hits == [False, False, False, True]
    assert not safety.s_cycle(tr, True, 3, 9000)  # only 3 starts in (3000, 9000]


def test_vmax_uses_tick_average_speed():
    assert safety.s_vmax(0.0, 4.51, 450.0) and not safety.s_vmax(0.0, 4.5, 450.0)


def test_item_rules_pressure_touch_lift():
    items = it_mod.make_items([[dict(length=100.0), dict(length=100.0)]])[0]
    items["place"] = it_mod.LINE
    items["rear"] = [0.0, 100.5]
    assert safety.s_touch(items, 0, 0.0, 1000.0)
    items["rear"] = [0.0, 101.5]
    assert not safety.s_touch(items, 0, 0.0, 1000.0)
    items["press_ticks"] = [0, 51]
    assert safety.s_pressure(items, 50) and not safety.s_pressure(items, 51)
    assert safety.s_lift(items, 0, 50.0, 0.1, 0.2)  # blade rises under item 0
    assert not safety.s_lift(items, 0, 50.0, 0.2, 0.2)  # not rising
    assert not safety.s_lift(items, 0, 100.7, 0.1, 0.2)  # in the gap
