"""D22 pusher + chute: capture, S-JAM, S-STRIKE, early retraction, overflow, and a closed loop."""

from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import chute, conveyor, cylinder, dol, emitter, pusher, safety, sensors
from plants.devices import items as it_mod

from .linekit import Line


class Station:
    """Line + pusher at 1000 mm feeding chute 0 (dest 2); the line end is a receiver (dest 7)."""

    def __init__(self, item_attrs, t_ext=0.3, t_ret=0.3, capacity=20, length=1500.0):
        self.w = Line(item_attrs, length=length, down_kind=conveyor.END_RECEIVER)
        cp = cylinder.make_params(1, t_ext=t_ext, t_ret=t_ret)
        self.cyl, self.cyl_pa = cylinder.make_state(cp)[0, 0], cp[0, 0]
        pp = pusher.make_params(1, line=0, xp=1000.0, chute=0)
        self.ps, self.pp = pusher.make_state(pp)[0, 0], pp[0, 0]
        chp = chute.make_params(1, capacity=capacity, dest=2)
        self.ch, self.chp = chute.make_state(chp)[0], chp[0]

    def step(self, v, push, k):
        self.w.step([v], k)
        cylinder.tick(self.cyl, self.cyl_pa, push, False, k)
        pusher.tick(self.ps, self.pp, self.cyl, self.w.items[0], self.ch, self.chp, k)


def test_centred_item_is_captured_and_delivered_at_full_stroke():
    s = Station([dict(length=60.0)])
    s.w.place(0, 975.0)  # centre 1005
    k = 0
    while s.w.items[0, 0]["place"] != it_mod.DONE:
        s.step(0.0, True, k)
        k += 1
    item = s.w.items[0, 0]
    assert item["fate"] == it_mod.DELIVERED and item["dest"] == 2 and not item["damaged"]
    assert k == 30 and s.ch[0]["count"] == 1  # delivered when s reaches 0.98 (30 ticks of 0.3 s)
    assert s.ps["n_jam"] == 0 and s.ps["n_strike"] == 0


def test_off_centre_item_in_the_window_is_jammed():
    s = Station([dict(length=60.0), dict(length=60.0)])
    s.w.place(0, 975.0)
    s.w.place(1, 1030.0)  # overlaps the window [950, 1050], centre 1060: struck
    for k in range(3):
        s.step(0.0, True, k)
    assert s.ps["n_jam"] == 1 and s.w.items[0, 1]["damaged"] and safety.s_jam(s.ps)
    assert s.w.items[0, 0]["place"] == it_mod.HELD


def test_item_entering_the_window_while_the_plate_is_out_is_struck():
    s = Station([dict(length=60.0)])
    s.w.place(0, 800.0)
    k = 0
    for k in range(80):
        s.step(250.0, True, k)
    assert s.ps["n_strike"] == 1 and safety.s_strike(s.ps) and s.ps["first_strike"] > 0


def test_plate_retracting_early_drops_the_item_back_damaged():
    s = Station([dict(length=60.0)])
    s.w.place(0, 970.0)
    for k in range(10):
        s.step(0.0, True, k)
    s.step(0.0, False, 10)
    item = s.w.items[0, 0]
    assert item["place"] == it_mod.LINE and item["damaged"] and s.ps["captured"] == -1


def test_delivery_into_a_full_chute_is_an_overflow():
    s = Station([dict(length=60.0)], capacity=1)
    s.ch[0]["count"] = 1
    assert chute.sense_full(s.ch[0], s.chp[0])
    s.w.place(0, 970.0)
    for k in range(40):
        s.step(0.0, True, k)
    assert safety.s_overflow(s.ch[0]) and s.ch[0]["first_overflow"] == 30
    chute.empty(s.ch[0])
    assert not chute.sense_full(s.ch[0], s.chp[0])


def _sorting_run(metal, t_ext, t_ret, v):
    """MAT-E03-like loop: items at pitch 800, metal ones pushed on PUSH_PE, the rest to the end."""
    attrs = [dict(length=60.0, metal=int(m), t_place=100, pitch=800.0) for m in metal]
    s = Station(attrs, t_ext=t_ext, t_ret=t_ret)
    ep = emitter.make_params(1, line=0, x_place=0.0, gap_min=50.0, mode=emitter.PITCH,
                             first=0, last=len(metal))
    es, ep = emitter.make_state(ep)[0, 0], ep[0, 0]
    sp = sensors.make_params(1, 3, line=0, x=[[300.0, 300.0, 1030.0]],
                             kind=[[sensors.DIFFUSE, sensors.INDUCTIVE, sensors.DIFFUSE]])
    ss = sensors.make_state(sp)
    dp = dol.make_params(1, tau_acc=0.1, tau_coast=0.1)
    ds, dp = dol.make_state(dp)[0, 0], dp[0, 0]
    queue, prev, push = [], [False, False, False], False
    for k in range(6000):
        for u in range(3):
            sensors.tick(ss[0, u], sp[0, u], s.w.items[0], k)
        entry, ind, pe = (sensors.sense(ss[0, u], sp[0, u], k) for u in range(3))
        # program scan
        if entry and not prev[0]:
            queue.append(ind)
        if pe and not prev[2] and queue and queue.pop(0):
            push = True
        if cylinder.sense_extended(s.cyl, s.cyl_pa):
            push = False
        prev = [entry, ind, pe]
        # plant step
        dol.tick(ds, dp, True, k)
        s.step(ds["n"] * v, push, k)
        emitter.tick(es, ep, s.w.items[0], False, k)
        if all(s.w.items[0]["place"] == it_mod.DONE):
            break
    return s


@settings(max_examples=6, deadline=None)
@given(metal=st.lists(st.booleans(), min_size=3, max_size=8),
       t_ext=st.sampled_from([0.2, 0.3, 0.6]), t_ret=st.sampled_from([0.3, 0.6]),
       v=st.sampled_from([200.0, 250.0, 350.0]))
def test_sorting_loop_conserves_items_and_routes_them(metal, t_ext, t_ret, v):
    s = _sorting_run(metal, t_ext, t_ret, v)
    its = s.w.items[0]
    assert all(its["place"] == it_mod.DONE)
    assert [int(d) for d in its["dest"]] == [2 if m else 7 for m in metal]
    assert s.ps["n_jam"] == 0 and s.ps["n_strike"] == 0 and not any(its["damaged"])
    assert s.ch[0]["count"] == sum(metal)
