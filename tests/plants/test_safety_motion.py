"""S-code predicates for motion, process and tool rules."""

import numpy as np

from plants.devices import safety


def _tr(dtype, **values):
    tr = np.zeros(1, dtype)
    for k, v in values.items():
        tr[k] = v
    return tr[0]


def test_simple_thresholds():
    assert safety.s_reverse(True, 0.6, 0.5) and not safety.s_reverse(True, 0.4, 0.5)
    assert safety.s_sync(True, 101.0, 100.0, 0.5) and not safety.s_sync(False, 0.0, 100.0, 0.5)
    assert safety.s_skew(10.0, 12.1, 2.0) and not safety.s_skew(10.0, 12.0, 2.0)
    assert safety.s_sep(0.0, 499.0, 500.0) and not safety.s_sep(0.0, 500.0, 500.0)
    assert safety.s_force(-120.0, 100.0) and safety.s_follow(0.0, 0.6, 0.5)
    assert safety.s_brake(True, 2.0, 0.0) and safety.s_brake(False, 0.0, 1.5)
    assert not safety.s_brake(True, 0.5, 0.5)
    assert safety.s_dancer(9.0, 200.0) and safety.s_dancer(191.0, 200.0)
    assert not safety.s_dancer(100.0, 200.0)
    assert safety.s_toolmove(2.0, False, 1.0) and not safety.s_toolmove(2.0, True, 1.0)
    assert safety.s_auto(True, False) and not safety.s_auto(True, True)
    assert safety.s_forkmove(False, 2.0, 0.0) and safety.s_forkmove(False, 0.0, 31.0)
    assert not safety.s_forkmove(False, 0.0, 29.0) and not safety.s_forkmove(True, 50.0, 99.0)
    assert safety.s_collapse(21.0) and not safety.s_collapse(20.0)
    assert safety.boxes_intersect(0, 10, 0, 10, 0, 10, 9, 20, 9, 20, 9, 20)
    assert not safety.boxes_intersect(0, 10, 0, 10, 0, 10, 10, 20, 0, 10, 0, 10)


def test_puddle_needs_more_than_100_ms():
    tr = _tr(safety.PUDDLE_DTYPE)
    hits = [safety.s_puddle(tr, True, 1.0, 5.0) for _ in range(12)]
    assert hits.index(True) == 10


def test_latch_holds_until_the_release_event():
    tr = _tr(safety.LATCH_DTYPE)
    assert not safety.s_latch(tr, False, True, False)
    assert safety.s_latch(tr, True, False, False)
    assert not safety.s_latch(tr, True, False, True)


def test_twohand_rules():
    tr = safety.make_twohand(1)[0]
    for _ in range(10):
        safety.s_twohand(tr, True, False, False)
    assert not safety.s_twohand(tr, True, True, True)  # both held, 0.1 s apart
    assert safety.s_twohand(tr, True, False, True)  # continues with one hand
    tr = safety.make_twohand(1)[0]
    for _ in range(60):
        safety.s_twohand(tr, True, False, False)
    assert safety.s_twohand(tr, True, True, True)  # presses 0.6 s apart
    tr = safety.make_twohand(1)[0]
    safety.s_twohand(tr, True, True, True)
    safety.s_twohand(tr, True, True, False)
    assert safety.s_twohand(tr, True, True, True)  # not released since the last stroke


def test_stopaxis_stop_time_and_blocked_moves():
    tr = _tr(safety.STOPAXIS_DTYPE, since_stop=-1)
    safety.s_stopaxis(tr, True, False, False, 100.0, 50)
    hits = [safety.s_stopaxis(tr, False, False, False, 100.0, 50) for _ in range(51)]
    assert hits.index(True) == 50
    assert safety.s_stopaxis(tr, False, False, True, 0.0, 50)
    assert not safety.s_stopaxis(tr, False, True, True, 0.0, 50)


def test_pin_rule():
    tr = np.zeros(1, [("n_pin", np.int64)])[0]
    assert safety.s_pin(tr, True, False) and not safety.s_pin(tr, True, True)
