"""D22 air jet, pop-up divert (A37) and swing arm (A26): decisions, S-JAM, conservation."""

from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import diverters
from plants.devices import items as it_mod

from .linekit import Line


def _tool(**values):
    pa = diverters.make_params(1, line=0, dest=5, **values)
    return diverters.make_state(pa)[0, 0], pa[0, 0]


def _run(w, s, p, outputs, v=200.0):
    for k, on in enumerate(outputs):
        w.step([v], k)
        diverters.tick(s, p, w.items[0], on, k)


def test_air_jet_needs_three_consecutive_ticks_with_the_centre_in_tolerance():
    w = Line([dict(length=60.0), dict(length=60.0)])
    w.place(0, 470.0)  # centre 500
    w.place(1, 200.0)
    s, p = _tool(kind=diverters.JET, x0=500.0, x1=500.0, tol=20.0)
    _run(w, s, p, [True, True, False, True, True], v=0.0)
    assert w.items[0, 0]["place"] == it_mod.LINE
    _run(w, s, p, [True], v=0.0)
    assert w.items[0, 0]["fate"] == it_mod.DELIVERED and w.items[0, 0]["dest"] == 5
    assert w.items[0, 1]["place"] == it_mod.LINE  # out of tolerance, untouched


def _popup_run(pattern):
    """One 60 mm item through the window [480, 520] at 200 mm/s; pattern(k, in_window) -> output."""
    w = Line([dict(length=60.0)])
    w.place(0, 400.0)
    s, p = _tool(kind=diverters.POPUP, x0=480.0, x1=520.0)
    for k in range(200):
        w.step([200.0], k)
        c = w.items[0, 0]["rear"] + 30.0
        diverters.tick(s, p, w.items[0], pattern(k, 480.0 <= c <= 520.0), k)
    return w.items[0, 0], s


def test_popup_diverts_only_when_on_for_every_tick_in_the_window():
    item, s = _popup_run(lambda k, inside: inside)
    assert item["fate"] == it_mod.DELIVERED and s["n_jam"] == 0
    item, s = _popup_run(lambda k, inside: False)
    assert item["place"] == it_mod.LINE and s["n_jam"] == 0
    item, s = _popup_run(lambda k, inside: inside and k % 7 != 0)
    assert item["place"] == it_mod.LINE and item["damaged"] and s["n_jam"] == 1


def test_swing_arm_lane_is_decided_at_the_zone_entry_and_moving_it_over_an_item_jams():
    w = Line([dict(length=100.0)])
    w.place(0, 300.0)
    s, p = _tool(kind=diverters.ARM, x0=500.0, x1=700.0, t_arm=0.2)
    _run(w, s, p, [True] * 250)
    assert w.items[0, 0]["fate"] == it_mod.DELIVERED and s["n_jam"] == 0
    assert diverters.sense_arm_div(s) and not diverters.sense_arm_home(s)
    w = Line([dict(length=100.0)])
    w.place(0, 450.0)  # already entering the zone with the arm at home: straight
    s, p = _tool(kind=diverters.ARM, x0=500.0, x1=700.0, t_arm=0.2)
    _run(w, s, p, [False] * 3 + [True] * 5)
    assert s["n_jam"] >= 1 and w.items[0, 0]["place"] == it_mod.LINE


@settings(max_examples=30, deadline=None)
@given(kind=st.sampled_from([diverters.JET, diverters.POPUP, diverters.ARM]),
       outputs=st.lists(st.booleans(), min_size=50, max_size=400),
       n=st.integers(1, 5))
def test_diverters_conserve_items(kind, outputs, n):
    w = Line([dict(length=60.0)] * n)
    for j in range(n):
        w.place(j, 100.0 + 150.0 * j)
    s, p = _tool(kind=kind, x0=800.0, x1=800.0 if kind == diverters.JET else 900.0)
    _run(w, s, p, outputs, v=300.0)
    its = w.items[0]
    delivered = int((its["fate"] == it_mod.DELIVERED).sum())
    on_line = int((its["place"] == it_mod.LINE).sum())
    dropped = int((its["fate"] == it_mod.DROPPED).sum())
    assert delivered + on_line + dropped == n and s["n_diverted"] == delivered
