"""Operator scripts and the D01 panel: exact tick intervals, NC inversion, bounce, armed events."""

import numpy as np

from plants.devices import panel, scripts


def _script():
    return scripts.build_scripts(
        [[scripts.press(0, 1.0), scripts.event(1, 2.0, 2.5), scripts.press(2, 3.0, 0.5, bounce=True),
          scripts.event(3, 4.0, 6.0, value=42.0), scripts.event(3, 5.0, 5.5, value=7.0)]]
    )[0]


def test_press_reads_true_on_half_open_tick_interval():
    ev = _script()
    readings = [panel.sense_no(ev, 0, k) for k in range(95, 135)]
    assert readings == [False] * 5 + [True] * 30 + [False] * 5


def test_nc_button_and_maintained_switch_are_inverted():
    ev = _script()
    assert panel.sense_nc(ev, 1, 199) and not panel.sense_nc(ev, 1, 200)
    assert not panel.sense_nc(ev, 1, 249) and panel.sense_nc(ev, 1, 250)
    assert panel.sense_switch(ev, 9, 0)  # no script: maintained switch on from t = 0 (A1)


def test_bouncing_press_alternates_on_its_first_three_ticks():
    ev = _script()
    assert [panel.sense_no(ev, 2, k) for k in range(299, 306)] == [
        False, True, False, True, True, True, True]


def test_value_takes_the_latest_started_active_event():
    ev = _script()
    assert scripts.value(ev, 3, 399, -1.0) == -1.0
    assert scripts.value(ev, 3, 400, -1.0) == 42.0
    assert scripts.value(ev, 3, 520, -1.0) == 7.0
    assert scripts.value(ev, 3, 560, -1.0) == 42.0
    assert scripts.starts(ev, 3, 500) and not scripts.starts(ev, 3, 501)


def test_armed_event_uses_a_spare_row_and_reports_when_full():
    script = scripts.build_scripts([[scripts.press(0, 1.0)]], spare_rows=1)
    ev = script[0]
    assert scripts.arm_event(ev, 5, 10, 20, 1.0)
    assert panel.sense_no(ev, 5, 15)
    assert not scripts.arm_event(ev, 6, 10, 20, 1.0)
    assert np.count_nonzero(script["channel"] >= 0) == 2
