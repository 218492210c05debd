"""MAT-E01 on the device library vs the review simulation (sims/MAT-E_and_MAT-M01/e01.py,
summary.txt): operator placement (D17, [0, l + 50] free), DOL-τ belt, photo-eyes, removal
once CONV has been FALSE for t_rm, STOP_NC and AUTO_SW scripts; the review's reference
program must finish at the review's times with no drop."""

import pytest

from plants.devices import conveyor, dol, emitter, panel, scripts, sensors
from plants.devices import items as it_mod
from plants.devices.protocol import DT

STOP, AUTO = 0, 1

CONDITIONS = {
    "C1": dict(v=300, tau=0.1, len=300, items=[1.0, 15.0, 30.0], t_rm=2, T=50, t_ref=37.3),
    "C2": dict(v=400, tau=0.3, len=400, items=[1.0, 12.0, 24.0], t_rm=1, T=45, t_ref=28.9),
    "C3": dict(v=200, tau=0.2, len=200, items=[1.0, 5.0, 20.0], t_rm=3, auto_off=[(6.0, 8.0)],
               T=55, t_ref=32.7),
    "C4": dict(v=300, tau=0.1, len=250, items=[1.0, 9.0, 20.0], t_rm=2, stop=[4.0],
               auto_off=[(8.0, 9.0)], T=50, t_ref=27.4),
}


def reference(inp, s):
    """The review's reference program (e01.ref)."""
    if not s:
        s.update(cnt=0, prev_entry=False, prev_end=False, latch=False, run=False)
    if inp["ENTRY_PE"] and not s["prev_entry"]:
        s["cnt"] += 1
    if (not inp["END_PE"]) and s["prev_end"] and not s["run"]:
        s["cnt"] -= 1
    if not inp["STOP_NC"]:
        s["latch"] = True
    if not inp["AUTO_SW"]:
        s["latch"] = False
    run = (inp["AUTO_SW"] and inp["STOP_NC"] and not s["latch"] and s["cnt"] > 0
           and not inp["END_PE"])
    s["prev_entry"], s["prev_end"], s["run"] = inp["ENTRY_PE"], inp["END_PE"], run
    return run, (not run) and inp["END_PE"]


def run(cond):
    n = len(cond["items"])
    rows = it_mod.make_items([[dict(length=float(cond["len"]), t_place=round(t / DT))
                               for t in cond["items"]]])[0]
    script = scripts.build_scripts([[scripts.press(STOP, t) for t in cond.get("stop", [])]
                                    + [scripts.event(AUTO, a, b) for a, b in cond.get("auto_off", [])]])[0]
    segs = conveyor.make_segments(1, 1, line=0, x0=0.0, x1=2000.0)
    lines = conveyor.make_lines(1, x_end=2000.0)
    lstate = conveyor.make_line_state(lines)
    obst = conveyor.make_obstacles(1, 1, line=-1)
    ep = emitter.make_params(1, line=0, gap_min=50.0, mode=emitter.TIME, last=n)
    es = emitter.make_state(ep)
    mp = dol.make_params(1, tau_acc=cond["tau"], tau_coast=cond["tau"])
    ms = dol.make_state(mp)
    sp = sensors.make_params(1, 2, line=0, x=[[100.0, 1850.0]])
    ss = sensors.make_state(sp)
    mem, conv_off, removed = {}, 0, 0
    for k in range(int(cond["T"] / DT)):
        if conv_off >= round(cond["t_rm"] / DT) and it_mod.remove_covering(rows, 0, 1850.0, k) >= 0:
            removed += 1
            conv_off = 0
        for u in range(2):
            sensors.tick(ss[0, u], sp[0, u], rows, k)
        inp = dict(ENTRY_PE=sensors.sense(ss[0, 0], sp[0, 0], k),
                   END_PE=sensors.sense(ss[0, 1], sp[0, 1], k),
                   STOP_NC=panel.sense_nc(script, STOP, k),
                   AUTO_SW=panel.sense_switch(script, AUTO, k))
        conv, _lamp = reference(inp, mem)
        dol.tick(ms[0, 0], mp[0, 0], conv, k)
        segs[0, 0]["v"] = ms[0, 0]["n"] * cond["v"]
        conveyor.tick_line(rows, segs[0], obst[0], lines[0, 0], lstate[0, 0], 0, k)
        emitter.tick(es[0, 0], ep[0, 0], rows, False, k)
        conv_off = 0 if conv else conv_off + 1
        if removed == n:
            return (k + 1) * DT, rows, lstate[0, 0]
    return None, rows, lstate[0, 0]


@pytest.mark.parametrize("name", sorted(CONDITIONS))
def test_reference_program_matches_the_review_simulation(name):
    cond = CONDITIONS[name]
    t_done, rows, ln = run(cond)
    assert t_done is not None and abs(t_done - cond["t_ref"]) <= 0.1
    assert all(rows["fate"] == it_mod.REMOVED) and ln["n_drop"] == 0
