"""D04 reversing starter, D05 star-delta, D06 VFD, D08 raw axis, D21 stopper."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import cylinder, raw_axis, reversing, stardelta, stopper, vfd
from plants.devices.protocol import DT

from .linekit import Line


def _unit(mod, **values):
    pa = mod.make_params(1, **values)
    return mod.make_state(pa)[0, 0], pa[0, 0]


def test_reversing_starter_refuses_both_directions_and_runs_signed():
    s, p = _unit(reversing, pickup=3, dropout=2)
    for k in range(10):
        reversing.tick(s, p, True, True, k)
    assert not s["kf"] and not s["kr"] and s["n"] == 0.0
    for k in range(10, 13):
        reversing.tick(s, p, False, True, k)
    assert s["kr"] and s["n"] < 0.0


@settings(max_examples=30, deadline=None)
@given(cmds=st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=300))
def test_reversing_properties(cmds):
    s, p = _unit(reversing, pickup=2, dropout=2)
    for k, (f, r) in enumerate(cmds):
        reversing.tick(s, p, f, r, k)
        assert not (s["kf"] and s["kr"]) and -1.0 <= s["n"] <= 1.0


def test_star_delta_speed_targets_and_speed_90():
    s, p = _unit(stardelta, tau_s=0.5)
    for k in range(500):
        stardelta.tick(s, p, True, True, False, k)
    assert np.isclose(s["n"], 0.95 * (1 - (1 - DT / 0.5) ** 500)) and stardelta.sense_speed_90(s)
    for k in range(500, 503):
        stardelta.tick(s, p, True, False, True, k)
    assert s["star"] == 0 and s["delta"] == 1  # STAR drops out 20 ms after its coil
    s, p = _unit(stardelta, tau_s=0.5, jam=1)
    for k in range(500):
        stardelta.tick(s, p, True, True, False, k)
    assert np.isclose(s["n"], 0.70 * (1 - (1 - DT / 0.5) ** 500)) and not stardelta.sense_speed_90(s)


def test_vfd_ramps_reverses_through_zero_and_trips_with_inhibit():
    s, p = _unit(vfd, t_acc=1.0, t_dec=2.0, coast=10.0, trip_from=400, trip_to=500)
    for k in range(150):
        vfd.tick(s, p, True, False, False, 27648, k)
    assert s["f"] == 50.0 and vfd.sense_at_speed(s) and vfd.sense_freq_act(s) == 500
    fs = []
    for k in range(150, 400):
        vfd.tick(s, p, False, True, False, 27648, k)
        fs.append(float(s["f"]))
    assert np.isclose(fs[199], 0.0) and fs[-1] < 0.0  # 2 s down at 25 Hz/s, then up the other way
    assert np.all(np.abs(np.diff(fs)) <= 50.0 / 1.0 * DT + 1e-9)
    assert s["fault"] and not vfd.sense_running(s)
    vfd.tick(s, p, False, True, True, 27648, 400)
    assert s["fault"]  # cause not ended
    for k in range(401, 700):
        vfd.tick(s, p, False, True, k == 510, 27648, k)
    # reset accepted, but REV held since before the trip does not restart it (run-inhibit)
    assert not s["fault"] and s["inhibit"] and s["f"] == 0.0
    vfd.tick(s, p, False, False, False, 27648, 700)
    vfd.tick(s, p, False, True, False, 27648, 701)
    assert not s["inhibit"] and s["f"] < 0.0


def test_raw_axis_speed_law_limit_switch_and_encoder_reset():
    s, p = _unit(raw_axis, x0=500.0, enc_x0=123.4, v_fast=50.0, tau=0.1)
    assert raw_axis.sense_enc(s) == round((500.0 - 123.4) / 0.1)
    raw_axis.tick(s, p, True, False, True, False, 0)
    assert np.isclose(s["v"], 50.0 * DT / 0.1) and np.isclose(s["x"], 500.0 + s["v"] * DT)
    raw_axis.tick(s, p, True, False, True, True, 1)
    assert raw_axis.sense_enc(s) == round((s["x"] - s["x_prev"]) / 0.1)
    for k in range(2, 2000):
        raw_axis.tick(s, p, True, False, True, False, k)
    # the hard-wired switch cuts the drive; the stop distance v·tau = 5 mm stays short of the stop
    assert raw_axis.sense_lim_pos(s, p) and s["x"] < p["lim_pos"] + 5.0 + 1e-6 and abs(s["v"]) < 1e-6


def test_stopper_blocks_only_while_more_than_half_raised():
    w = Line([dict(length=100.0)], obstacles=(500.0,))
    bp = cylinder.make_params(1, t_ext=0.1, t_ret=0.1)
    bs = cylinder.make_state(bp)
    w.place(0, 300.0)
    ups = []
    for k in range(10):
        stopper.tick(w.obstacles[0, 0], bs[0, 0], bp[0, 0], True, k)
        ups.append(int(w.obstacles[0, 0]["up"]))
    assert ups == [0] * 5 + [1] * 5
    for k in range(10, 200):
        w.step([300.0], k)
    assert w.items[0, 0]["rear"] == 400.0
