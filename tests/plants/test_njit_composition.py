"""Devices composed inside one njit loop over conditions and ticks, the way a task kernel will.

Guards the protocol itself: record rows taken from 2-D device arrays inside njit code, passed
to the device ticks by reference, and every condition advanced independently.
"""

import numpy as np
from numba import njit

from plants.devices import (
    amplifier,
    chute,
    conveyor,
    cylinder,
    dol,
    emitter,
    items,
    protocol,
    pusher,
    scripts,
    sensors,
    servo,
)
from plants.devices.panel import sense_nc


@njit(cache=True)
def _convey_to_end(its, segs, obst, lines, lstate, motor_st, motor_pa, emit_st, emit_pa,
                   sens_st, sens_pa, script, v_nom, n_ticks):
    """MAT-E01-like loop: run the belt while END_PE is clear and STOP_NC reads TRUE."""
    n_cond = its.shape[0]
    stopped_at = np.full(n_cond, -1)
    for c in range(n_cond):
        for k in range(n_ticks):
            sensors.tick(sens_st[c, 0], sens_pa[c, 0], its[c], k)
            end_pe = sensors.sense(sens_st[c, 0], sens_pa[c, 0], k)
            conv = (not end_pe) and sense_nc(script[c], 0, k)
            if end_pe and stopped_at[c] < 0:
                stopped_at[c] = k
            dol.tick(motor_st[c, 0], motor_pa[c, 0], conv, k)
            segs[c, 0].v = motor_st[c, 0].n * v_nom[c]
            conveyor.tick_line(its[c], segs[c], obst[c], lines[c, 0], lstate[c, 0], 0, k)
            emitter.tick(emit_st[c, 0], emit_pa[c, 0], its[c], False, k)
    return stopped_at


def test_conditions_run_in_one_njit_loop_and_stay_independent():
    n = 3
    its = items.make_items([[dict(length=300.0, t_place=100)]] * n)
    segs = conveyor.make_segments(n, 1, line=0, x0=0.0, x1=2000.0)
    obst = conveyor.make_obstacles(n, 1, line=-1)
    lines = conveyor.make_lines(n)
    lstate = conveyor.make_line_state(lines)
    mp = dol.make_params(n, tau_acc=[0.1, 0.3, 0.2], tau_coast=[0.1, 0.3, 0.2])
    ep = emitter.make_params(n, line=0, x_place=0.0, gap_min=50.0, last=1)
    sp = sensors.make_params(n, line=0, x=1850.0)
    script = scripts.build_scripts([[], [scripts.press(0, 3.0, 1.0)], []])
    stopped = _convey_to_end(its, segs, obst, lines, lstate, dol.make_state(mp), mp,
                             emitter.make_state(ep), ep, sensors.make_state(sp), sp, script,
                             np.array([300.0, 400.0, 200.0]), 2500)
    assert np.all(stopped > 0) and len(set(stopped.tolist())) == 3
    assert np.all(its["place"] == items.LINE)  # stopped before the open end: nothing dropped
    assert np.all(lstate["n_drop"] == 0)
    # condition 1: the belt is at speed when the item is placed at 1.0 s, so its front reaches
    # 1850 mm after (1850 - 300)/300 s more
    assert abs(stopped[0] * protocol.DT - (1.0 + 1550.0 / 300.0)) <= 0.015


@njit(cache=True)
def _servo_batch(st, pa, out, n_ticks):
    for c in range(st.shape[0]):
        o = out[c, 0]
        o.enable = 1
        for k in range(n_ticks):
            o.home = 1 if k >= 20 else 0
            servo.tick(st[c, 0], pa[c, 0], o, 0.0, 0.0, k)
    return st


def test_servo_rows_homed_in_an_njit_batch():
    pa = servo.make_params(2, x0=[400.0, 10.0], home_fast=100.0, ref_lo=-10.0, ref_hi=20.0,
                           home_pos=20.0, sl_hi=800.0)
    st = _servo_batch(servo.make_state(pa), pa, servo.make_outputs(2), 1500)
    assert np.all(st["homed"] == 1) and np.all(st["done"] == 1) and np.all(st["error"] == 0)


@njit(cache=True)
def _push_station(its, segs, obst, lines, lstate, cyl_st, cyl_pa, push_st, push_pa, ch_st,
                  ch_pa, amp_st, amp_pa, n_ticks):
    """Belt at 250 mm/s, pusher fired when an item's centre reaches it; an amplifier runs too."""
    for c in range(its.shape[0]):
        fire = False
        for k in range(n_ticks):
            for j in range(its.shape[1]):
                it = its[c, j]
                if it.place == items.LINE and abs(items.centre(it) - push_pa[c, 0].xp) < 2.0:
                    fire = True
            if cylinder.sense_extended(cyl_st[c, 0], cyl_pa[c, 0]):
                fire = False
            segs[c, 0].v = 250.0
            conveyor.tick_line(its[c], segs[c], obst[c], lines[c, 0], lstate[c, 0], 0, k)
            cylinder.tick(cyl_st[c, 0], cyl_pa[c, 0], fire, False, k)
            pusher.tick(push_st[c, 0], push_pa[c, 0], cyl_st[c, 0], its[c], ch_st[c], ch_pa[c], k)
            amplifier.tick(amp_st[c, 0], amp_pa[c, 0], True, 1000, k)
    return ch_st


def test_pusher_cylinder_chute_and_amplifier_inside_njit():
    n = 2
    its = items.make_items([[dict(length=60.0, t_place=0)]] * n)
    its["place"] = items.LINE
    its["line"] = 0
    segs = conveyor.make_segments(n, 1, line=0, x0=0.0, x1=1500.0)
    lines = conveyor.make_lines(n, x_end=1500.0)
    cp = cylinder.make_params(n, t_ext=0.3, t_ret=0.3)
    pp = pusher.make_params(n, line=0, xp=1000.0, chute=0)
    chp = chute.make_params(n, capacity=5)
    ap = amplifier.make_params(n, x0=100.0)
    ch = _push_station(its, segs, conveyor.make_obstacles(n, 1, line=-1), lines,
                       conveyor.make_line_state(lines), cylinder.make_state(cp), cp,
                       pusher.make_state(pp), pp, chute.make_state(chp), chp,
                       amplifier.make_state(ap), ap, 600)
    assert np.all(ch["count"][:, 0] == 1) and np.all(its["fate"] == items.DELIVERED)
