"""MAT-E03 on the device library vs the review simulation (sims/MAT-E_and_MAT-M01/e03.py,
summary.txt): the review's reference program must finish each condition at the review's time
with every part at its destination and no S-JAM/S-STRIKE."""

import pytest

from plants.devices import chute, conveyor, cylinder, dol, emitter, pusher, sensors
from plants.devices import items as it_mod
from plants.devices.protocol import DT

CONDITIONS = {
    "C1": dict(v=250, te=0.3, tr=0.3, types="MPMPMPMPMP", pitch=[800] * 9, T=45, t_ref=35.7),
    "C2": dict(v=350, te=0.2, tr=0.6, types="MMMMMPPPPP", pitch=[800] * 9, T=35, t_ref=25.8),
    "C3": dict(v=200, te=0.6, tr=0.4, types="MPPMMPMPPMMP",
               pitch=[800, 1400, 900, 1000, 800, 1200, 850, 1400, 800, 1000, 950], T=80,
               t_ref=63.6),
    "C4": dict(v=300, te=0.4, tr=0.4, types="PMMPMPPMPM", pitch=[800] * 9,
               auto_off=[(12.0, 15.0)], T=50, t_ref=31.7),
}


def reference(inp, s):
    """The review's reference program (e03.ref): read IND_S at ENTRY_PE, fire at PUSH_PE."""
    if not s:
        s.update(metal=False, pe_prev=False, en_prev=False, firing=False)
    if inp["ENTRY_PE"] and not s["en_prev"]:
        s["metal"] = inp["IND_S"]
    s["en_prev"] = inp["ENTRY_PE"]
    if inp["PUSH_PE"] and not s["pe_prev"]:
        if s["metal"]:
            s["firing"] = True
        s["metal"] = False
    s["pe_prev"] = inp["PUSH_PE"]
    if inp["PUSH_EXT"]:
        s["firing"] = False
    return inp["AUTO_SW"], s["firing"]


def run(cond):
    n = len(cond["types"])
    rows = it_mod.make_items([[dict(length=60.0, metal=int(m == "M"), t_place=100,
                                    pitch=([0.0] + cond["pitch"])[j])
                               for j, m in enumerate(cond["types"])]])[0]
    segs = conveyor.make_segments(1, 1, line=0, x0=0.0, x1=1500.0)
    lines = conveyor.make_lines(1, x_end=1500.0, down_kind=conveyor.END_RECEIVER, down_dest=9)
    lstate = conveyor.make_line_state(lines)
    obst = conveyor.make_obstacles(1, 1, line=-1)
    ep = emitter.make_params(1, line=0, mode=emitter.PITCH, last=n)
    es = emitter.make_state(ep)
    mp = dol.make_params(1, tau_acc=0.1, tau_coast=0.1)
    ms = dol.make_state(mp)
    sp = sensors.make_params(1, 3, line=0, x=[[300.0, 300.0, 1030.0]],
                             kind=[[sensors.DIFFUSE, sensors.INDUCTIVE, sensors.DIFFUSE]])
    ss = sensors.make_state(sp)
    cp = cylinder.make_params(1, t_ext=cond["te"], t_ret=cond["tr"])
    cs = cylinder.make_state(cp)
    pp = pusher.make_params(1, line=0, xp=1000.0, chute=0)
    ps = pusher.make_state(pp)
    chp = chute.make_params(1, capacity=20, dest=1)
    chs = chute.make_state(chp)
    mem = {}
    for k in range(int(cond["T"] / DT)):
        for u in range(3):
            sensors.tick(ss[0, u], sp[0, u], rows, k)
        auto = not any(round(a / DT) <= k < round(b / DT) for a, b in cond.get("auto_off", []))
        inp = dict(AUTO_SW=auto, ENTRY_PE=sensors.sense(ss[0, 0], sp[0, 0], k),
                   IND_S=sensors.sense(ss[0, 1], sp[0, 1], k),
                   PUSH_PE=sensors.sense(ss[0, 2], sp[0, 2], k),
                   PUSH_EXT=cylinder.sense_extended(cs[0, 0], cp[0, 0]))
        conv, push = reference(inp, mem)
        dol.tick(ms[0, 0], mp[0, 0], conv, k)
        segs[0, 0]["v"] = ms[0, 0]["n"] * cond["v"]
        conveyor.tick_line(rows, segs[0], obst[0], lines[0, 0], lstate[0, 0], 0, k)
        cylinder.tick(cs[0, 0], cp[0, 0], push, False, k)
        pusher.tick(ps[0, 0], pp[0, 0], cs[0, 0], rows, chs[0], chp[0], k)
        emitter.tick(es[0, 0], ep[0, 0], rows, False, k)
        if es[0, 0]["placed"] == n and all(rows["place"] == it_mod.DONE):
            return (k + 1) * DT, rows, ps[0, 0]
    return None, rows, ps[0, 0]


@pytest.mark.parametrize("name", sorted(CONDITIONS))
def test_reference_program_matches_the_review_simulation(name):
    cond = CONDITIONS[name]
    t_done, rows, ps = run(cond)
    assert t_done is not None and abs(t_done - cond["t_ref"]) <= 0.1
    assert [int(d) for d in rows["dest"]] == [1 if m == "M" else 9 for m in cond["types"]]
    assert not rows["damaged"].any() and ps["n_jam"] == 0 and ps["n_strike"] == 0
