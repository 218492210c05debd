"""MAT-M01 on the device library vs the review simulation (sims/MAT-E_and_MAT-M01/m01.py
with the revised C4 data of summary.py, which is the catalog's).

The review's reference program (colour FIFO, fire on PE edges, stall rule) drives the
library's emitter, DOL belt, line, colour sensors, two pushers with chutes; its finishing
times must match the review's (summary.txt) and the one-change variant without the stall
rule must strike item 8 in C4, as the review found.
"""

import pytest

from plants.devices import chute, conveyor, cylinder, dol, emitter, pusher, sensors
from plants.devices import items as it_mod
from plants.devices.protocol import DT

COL = {"R": it_mod.RED, "B": it_mod.BLUE, "G": it_mod.GREEN, "W": it_mod.WHITE}

CONDITIONS = {
    "C1": dict(v=250, st=(.3, .3), cols="RBGRRBWRBRGB",
               pitch=[400, 650, 800, 400, 500, 700, 450, 600, 400, 800, 550], T=50, t_ref=33.7),
    "C2": dict(v=400, st=(.2, .2), cols="RBRBGRRBBRWBRBG", pitch=[300] * 14, T=35, t_ref=17.7),
    "C3": dict(v=300, st=(.2, .2), cols="RRBRGRBRRBRBRR",
               pitch=[300, 450, 300, 600, 350, 300, 500, 300, 400, 300, 550, 300, 300],
               ch0=[5, 0], empty=[(20.0, [0])], T=55, t_ref=24.8),
    "C4": dict(v=250, st=(.3, .3), cols="BRBGBRBBRBGB",
               pitch=[400, 500, 450, 700, 400, 400, 400, 600, 550, 400, 450], p2_stick=4, T=55,
               t_ref=32.7),
    "C5": dict(v=300, st=(.25, .25), cols="RRRRBBBBGGRRBB", pitch=[400] * 13,
               auto_off=[(10.0, 12.0)], T=55, t_ref=28.7),
    "C6": dict(v=300, st=(.2, .2), cols="RBRBRRBBRBGRRBBRBRBW",
               pitch=[300, 400, 350, 300, 500, 300, 700, 300, 300, 450, 300, 350, 300, 600, 300,
                      300, 400, 300, 300], empty=[(25.0, [0, 1]), (45.0, [0, 1])], T=80,
               t_ref=32.8),
}


def reference(inp, s, stall_rule=True):
    """The review's reference program (m01.ref with FIFO), as a scan function."""
    if not s:
        s.update(q1=[], q2=[], e=False, pe1=False, pe2=False, f1=False, f2=False, t1=0.0,
                 t2=0.0, lamp=False)
    if inp["ENTRY_PE"] and not s["e"]:
        s["q1"].append("R" if inp["COL_RED"] else "B" if inp["COL_BLUE"] else "O")
    s["e"] = inp["ENTRY_PE"]
    if inp["PE1"] and not s["pe1"] and s["q1"]:
        c = s["q1"].pop(0)
        if c == "R" and not inp["CH1_FULL"]:
            s["f1"], s["t1"] = True, 0.0
        else:
            s["lamp"] |= c == "R"
            s["q2"].append(c)
    s["pe1"] = inp["PE1"]
    if inp["PE2"] and not s["pe2"] and s["q2"]:
        c = s["q2"].pop(0)
        if c == "B" and not inp["CH2_FULL"]:
            s["f2"], s["t2"] = True, 0.0
        elif c == "B":
            s["lamp"] = True
    s["pe2"] = inp["PE2"]
    if inp["P1_EXT"]:
        s["f1"] = False
    if inp["P2_EXT"]:
        s["f2"] = False
    s["t1"] = s["t1"] + DT if (s["f1"] or not inp["P1_RET"]) else 0.0
    s["t2"] = s["t2"] + DT if (s["f2"] or not inp["P2_RET"]) else 0.0
    stalled = stall_rule and (s["t1"] > 1.0 or s["t2"] > 1.0)
    return inp["AUTO_SW"] and not stalled, s["f1"], s["f2"], s["lamp"]


def run(cond, program):
    n = len(cond["cols"])
    its = it_mod.make_items([[dict(length=60.0, colour=COL[c], t_place=100,
                                   pitch=([0.0] + cond["pitch"])[j])
                              for j, c in enumerate(cond["cols"])]])
    item_rows = its[0]
    segs = conveyor.make_segments(1, 1, line=0, x0=0.0, x1=2500.0)
    lines = conveyor.make_lines(1, x_end=2500.0, down_kind=conveyor.END_RECEIVER, down_dest=9)
    lstate = conveyor.make_line_state(lines)
    obst = conveyor.make_obstacles(1, 1, line=-1)
    ep = emitter.make_params(1, line=0, x_place=0.0, gap_min=0.0, mode=emitter.PITCH, last=n)
    es = emitter.make_state(ep)
    mp = dol.make_params(1, tau_acc=0.1, tau_coast=0.1)
    ms = dol.make_state(mp)
    red, blue = sensors.colour_mask(it_mod.RED), sensors.colour_mask(it_mod.BLUE)
    sp = sensors.make_params(1, 4, line=0, x=[[300.0, 300.0, 300.0, 1030.0]],
                             kind=[[sensors.DIFFUSE, sensors.COLOUR, sensors.COLOUR,
                                    sensors.DIFFUSE]], colours=[[0, red, blue, 0]])
    sp2 = sensors.make_params(1, line=0, x=1630.0)
    ss, ss2 = sensors.make_state(sp), sensors.make_state(sp2)
    t_ext, t_ret = cond["st"]
    cp = cylinder.make_params(1, 2, t_ext=t_ext, t_ret=t_ret)
    cs = cylinder.make_state(cp)
    pp = pusher.make_params(1, 2, line=0, xp=[[1000.0, 1600.0]], chute=[[0, 1]])
    ps = pusher.make_state(pp)
    chp = chute.make_params(1, 2, capacity=5, dest=[[1, 2]])
    chs = chute.make_state(chp, count=[cond.get("ch0", [0, 0])])
    empties = sorted(cond.get("empty", []))
    prog_state, strokes, was_ret = {}, 0, True
    for k in range(int(cond["T"] / DT)):
        while empties and k >= round(empties[0][0] / DT):
            for w in empties.pop(0)[1]:
                chute.empty(chs[0, w])
        for u in range(4):
            sensors.tick(ss[0, u], sp[0, u], item_rows, k)
        sensors.tick(ss2[0, 0], sp2[0, 0], item_rows, k)
        auto = not any(round(a / DT) <= k < round(b / DT) for a, b in cond.get("auto_off", []))
        inp = dict(
            AUTO_SW=auto, ENTRY_PE=sensors.sense(ss[0, 0], sp[0, 0], k),
            COL_RED=sensors.sense(ss[0, 1], sp[0, 1], k),
            COL_BLUE=sensors.sense(ss[0, 2], sp[0, 2], k),
            PE1=sensors.sense(ss[0, 3], sp[0, 3], k), PE2=sensors.sense(ss2[0, 0], sp2[0, 0], k),
            P1_RET=cylinder.sense_retracted(cs[0, 0], cp[0, 0]),
            P1_EXT=cylinder.sense_extended(cs[0, 0], cp[0, 0]),
            P2_RET=cylinder.sense_retracted(cs[0, 1], cp[0, 1]),
            P2_EXT=cylinder.sense_extended(cs[0, 1], cp[0, 1]),
            CH1_FULL=chute.sense_full(chs[0, 0], chp[0, 0]),
            CH2_FULL=chute.sense_full(chs[0, 1], chp[0, 1]))
        conv, p1, p2, _lamp = program(inp, prog_state)
        # the review's P2 stick: its n-th stroke holds at half stroke for 1.2 s (A39 script)
        if p2 and cs[0, 1]["s"] <= 0.02 and was_ret:
            strokes += 1
            if strokes == cond.get("p2_stick"):
                cp[0, 1]["stick_s"], cp[0, 1]["stick_arm"], cp[0, 1]["stick_len"] = 0.5, k, 120
        if cs[0, 1]["s"] <= 0.02 and not p2:
            was_ret = True
        elif p2:
            was_ret = False
        dol.tick(ms[0, 0], mp[0, 0], conv, k)
        segs[0, 0]["v"] = ms[0, 0]["n"] * cond["v"]
        conveyor.tick_line(item_rows, segs[0], obst[0], lines[0, 0], lstate[0, 0], 0, k)
        for u, cmd in ((0, p1), (1, p2)):
            cylinder.tick(cs[0, u], cp[0, u], cmd, False, k)
            pusher.tick(ps[0, u], pp[0, u], cs[0, u], item_rows, chs[0], chp[0], k)
        emitter.tick(es[0, 0], ep[0, 0], item_rows, False, k)
        if es[0, 0]["placed"] == n and all(item_rows["place"] == it_mod.DONE):
            return (k + 1) * DT, item_rows, ps[0], chs[0]
    return None, item_rows, ps[0], chs[0]


def _routed_correctly(rows, cond):
    for it, c in zip(rows, cond["cols"], strict=True):
        if it["damaged"] or it["fate"] != it_mod.DELIVERED:
            return False
        want = {"R": 1, "B": 2}.get(c, 9)
        if it["dest"] != want and not (it["dest"] == 9 and c in "RB"):
            return False
    return True


@pytest.mark.parametrize("name", sorted(CONDITIONS))
def test_reference_program_matches_the_review_simulation(name):
    cond = CONDITIONS[name]
    t_done, rows, ps, chs = run(cond, reference)
    assert t_done is not None and abs(t_done - cond["t_ref"]) <= 0.1
    assert _routed_correctly(rows, cond)
    assert ps["n_jam"].sum() == 0 and ps["n_strike"].sum() == 0 and chs["n_overflow"].sum() == 0


def test_without_the_stall_rule_item_8_is_struck_in_c4():
    _, rows, ps, _ = run(CONDITIONS["C4"], lambda i, s: reference(i, s, stall_rule=False))
    assert ps["n_strike"].sum() + ps["n_jam"].sum() >= 1 and rows[7]["damaged"]
