"""D11 cylinder: exact stroke timing, valve kinds, faults and stroke/switch properties."""

from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import cylinder as cyl


def _unit(s0=0.0, **values):
    pa = cyl.make_params(1, **values)
    return cyl.make_state(pa, s0)[0, 0], pa[0, 0]


def _drive(s, p, cmds, k0=0):
    out = []
    for i, (ext, ret) in enumerate(cmds):
        cyl.tick(s, p, ext, ret, k0 + i)
        out.append((float(s["s"]), cyl.sense_retracted(s, p), cyl.sense_extended(s, p)))
    return out


def test_monostable_extends_in_t_ext_and_springs_back_in_t_ret():
    s, p = _unit(t_ext=0.3, t_ret=0.5)
    trace = _drive(s, p, [(True, False)] * 30)
    assert [i for i, (_, _, e) in enumerate(trace) if e][0] == 29  # s >= 0.98 after 30 steps
    assert trace[-1][0] == 1.0
    assert not trace[0][1] and trace[0][0] > 0.02  # leaves the rear switch at once
    trace = _drive(s, p, [(False, False)] * 50, k0=30)
    assert trace[-1][0] == 0.0 and trace[-1][1] and not trace[-2][0] == 0.0


def test_bistable_last_coil_wins_and_both_coils_hold():
    s, p = _unit(kind=cyl.BISTABLE, t_ext=0.2, t_ret=0.2)
    _drive(s, p, [(True, False)] + [(False, False)] * 5)
    assert abs(s["s"] - 6 * 0.05) < 1e-9  # keeps extending after the coil pulse
    before = float(s["s"])
    _drive(s, p, [(True, True)] * 3, k0=6)
    assert s["s"] == before
    _drive(s, p, [(False, True)] + [(False, False)] * 2, k0=9)
    assert abs(s["s"] - (before - 3 * 0.05)) < 1e-9


def test_five_three_valve_holds_mid_stroke_without_a_coil():
    s, p = _unit(kind=cyl.FIVE_THREE, t_ext=0.5)
    _drive(s, p, [(True, False)] * 10 + [(False, False)] * 10)
    assert abs(s["s"] - 0.2) < 1e-9


def test_stick_holds_the_stroke_once_then_extension_continues():
    s, p = _unit(t_ext=0.2, stick_s=0.5, stick_arm=0, stick_len=120)
    trace = _drive(s, p, [(True, False)] * 200)
    strokes = [x for x, _, _ in trace]
    assert strokes[9] == 0.5 and strokes[9 + 120] == 0.5 and strokes[9 + 121] > 0.5
    assert strokes[-1] == 1.0


def test_air_loss_freezes_a_double_acting_cylinder_and_springs_back_a_single_acting_one():
    s, p = _unit(kind=cyl.FIVE_THREE, s0=1.0, air_from=0, air_to=10)
    _drive(s, p, [(False, True)] * 10)
    assert s["s"] == 1.0
    s, p = _unit(s0=1.0, air_from=0, air_to=10, t_ret=0.5)
    _drive(s, p, [(True, False)] * 10)
    assert abs(s["s"] - 0.8) < 1e-9


def test_broken_reed_switch_never_turns_on():
    s, p = _unit(s0=1.0, reed_ext_broken=1)
    _drive(s, p, [(True, False)] * 3)
    assert not cyl.sense_extended(s, p)


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from([cyl.MONO, cyl.BISTABLE, cyl.FIVE_THREE]),
    t_ext=st.floats(0.15, 1.5), t_ret=st.floats(0.15, 1.5),
    cmds=st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=250),
)
def test_cylinder_properties(kind, t_ext, t_ret, cmds):
    s, p = _unit(kind=kind, t_ext=t_ext, t_ret=t_ret)
    trace = _drive(s, p, cmds)
    s2, p2 = _unit(kind=kind, t_ext=t_ext, t_ret=t_ret)
    assert _drive(s2, p2, cmds) == trace
    prev = 0.0
    for x, ret_sw, ext_sw in trace:
        assert 0.0 <= x <= 1.0
        assert not (ret_sw and ext_sw)  # end switches are never both TRUE
        assert abs(x - prev) <= 0.01 / min(t_ext, t_ret) + 1e-12
        prev = x
