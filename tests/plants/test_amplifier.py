"""D09 analog servo amplifier: READY delay, dead band, gain, lag, disturbance, encoder."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import amplifier as amp
from plants.devices.protocol import DT


def _unit(disturbance=(), **values):
    pa = amp.make_params(1, disturbance=disturbance, **values)
    return amp.make_state(pa)[0, 0], pa[0, 0]


def test_ready_rises_100_ms_after_enable_and_drops_with_it():
    s, p = _unit(x0=100.0)
    for k in range(10):
        assert not amp.sense_ready(s, p)
        amp.tick(s, p, True, 0, k)
    assert amp.sense_ready(s, p)
    amp.tick(s, p, False, 0, 10)
    assert not amp.sense_ready(s, p)


def test_velocity_lag_gain_and_dead_band_exact_first_step_and_steady_state():
    s, p = _unit(x0=100.0, tau_v=0.05, db=0.02, gain_err=0.1)
    amp.tick(s, p, True, 13824, 0)  # half scale: 200 mm/s · 1.1 = 220, minus 8 mm/s dead band
    assert np.isclose(s["v"], 212.0 * DT / 0.05)
    assert np.isclose(s["x"], 100.0 + s["v"] * DT)
    for k in range(1, 100):
        amp.tick(s, p, True, 13824, k)
    assert np.isclose(s["v"], 212.0 * (1 - (1 - DT / 0.05) ** 100))
    s, p = _unit(x0=100.0, db=0.02)
    for k in range(100):
        amp.tick(s, p, True, 500, k)  # 7.2 mm/s is inside the 8 mm/s dead band
    assert s["v"] == 0.0 and s["x"] == 100.0


def test_disturbance_acts_only_while_enabled_and_repeats_with_its_period():
    s, p = _unit(disturbance=[(0.0, 5.0), (4.0, -5.0)], dist_period=800, x0=300.0)
    assert amp.disturbance(p, 0) == 5.0 and amp.disturbance(p, 400) == -5.0
    assert amp.disturbance(p, 800) == 5.0 and amp.disturbance(p, 1250) == -5.0
    for k in range(50):
        amp.tick(s, p, False, 0, k)
    assert s["x"] == 300.0


def test_encoder_is_the_rounded_true_position_plus_offset_and_switches_follow_x():
    s, p = _unit(x0=10.004, enc_offset=-12345)
    assert amp.sense_enc(s, p) == 1000 - 12345
    assert amp.sense_ref(s, p) and not amp.sense_lim_neg(s, p)
    s, p = _unit(x0=-5.0)
    assert amp.sense_lim_neg(s, p) and not amp.sense_lim_pos(s, p)


@settings(max_examples=30, deadline=None)
@given(cmds=st.lists(st.tuples(st.booleans(), st.integers(-40000, 40000)), min_size=1,
                     max_size=300),
       tau=st.floats(0.02, 0.08), db=st.floats(0.0, 0.02), gain=st.floats(-0.1, 0.1),
       x0=st.floats(0.0, 600.0))
def test_amplifier_properties(cmds, tau, db, gain, x0):
    def run():
        s, p = _unit(disturbance=[(0.0, 10.0)], x0=x0, tau_v=tau, db=db, gain_err=gain)
        out = []
        for k, (en, raw) in enumerate(cmds):
            amp.tick(s, p, en, raw, k)
            out.append((float(s["x"]), float(s["v"])))
            assert p["stop_neg"] <= s["x"] <= p["stop_pos"]
            assert abs(s["v"]) <= 400.0 * 1.1 + 10.0 + 1e-9  # full scale, gain, disturbance
            assert not (amp.sense_lim_neg(s, p) and amp.sense_lim_pos(s, p))
        return out

    assert run() == run()
