"""MOT-E06 on the D07 drive vs the review estimate (sims/MOT-E_and_MOT-H05/e06_e07_d07.py).

The spec's straightforward program (enable, wait POWERED, HOME, three MOVE_ABS with 0.5 s
dwells) must finish each condition near the review's estimated time and meet the completion
rules: each P held at standstill within ±0.05 mm for >= 0.45 s, ERROR never TRUE.
"""

import pytest

from plants.devices import servo
from plants.devices.protocol import DT

from .axiskit import Axis

AXIS = dict(vmax=500.0, amax=3000.0, a_def=1000.0, home_fast=100.0, home_slow=5.0,
            ref_lo=-10.0, ref_hi=20.0, home_pos=20.0, sl_lo=0.0, sl_hi=800.0)

CONDITIONS = {  # x0, offset, power-up s, P1..P3, V, START presses, review estimate (s)
    "C1": (400.0, 123.45, 0.1, (100, 650, 300), 400, (0.5,), 9.90),
    "C2": (10.0, 0.0, 0.1, (700, 50, 780), 300, (1.0,), 11.17),
    "C3": (760.0, 0.0, 0.8, (20, 400, 21), 250, (0.5,), 14.32),
    "C4": (300.0, -250.0, 0.1, (250, 251, 30), 100, (0.5, 3.0), 10.35),
}


def _program(ax, mem, start, P, V):
    """One scan of the spec's sequence; returns LAMP_READY."""
    s = ax.s
    edge = start and not mem.get("start_prev", False)
    mem["start_prev"] = start
    ax.set(home=0, move_abs=0)
    step = mem.get("step", "idle")
    if step == "idle" and edge:
        ax.set(enable=1)
        mem["step"] = "power"
    elif step == "power" and s["powered"]:
        ax.set(home=1)
        mem["step"] = "homing"
    elif step == "homing" and s["homed"] and s["done"]:
        mem.update(step="move", i=0)
    if mem.get("step") == "move":
        ax.set(target=P[mem["i"]] * 100, velocity=10 * V, accel=1500, move_abs=1)
        mem["step"] = "moving"
    elif step == "moving" and s["done"]:
        if mem["i"] == 2:
            mem["step"] = "ready"
        else:
            mem.update(step="dwell", t=0)
    elif step == "dwell":
        mem["t"] += 1
        if mem["t"] >= 50:
            mem["i"] += 1
            mem["step"] = "move"
            ax.set(target=P[mem["i"]] * 100, velocity=10 * V, accel=1500, move_abs=1)
            mem["step"] = "moving"
    return mem.get("step") == "ready"


@pytest.mark.parametrize("name", sorted(CONDITIONS))
def test_spec_program_meets_completion_near_the_review_estimate(name):
    x0, offset, powerup, P, V, starts, estimate = CONDITIONS[name]
    ax = Axis(**AXIS, x0=x0, offset0=offset, powerup=round(powerup / DT))
    mem, held, hold_ticks, reached, ready_at = {}, [0, 0, 0], 0, 0, None
    for k in range(3000):
        start = any(round(t / DT) <= k < round((t + 0.3) / DT) for t in starts)
        ready = _program(ax, mem, start, P, V)
        if ready and ready_at is None:
            ready_at = k * DT
        ax.run(1)
        assert not ax["error"]
        assert abs(servo.act_pos_u(ax.s, ax.p) - ax["x"] - ax["offset"]) < 1e-9
        assert abs(ax["x"] - ax["x_prev"]) / DT <= 450.0  # S-VMAX
        # completion: P_i held at standstill within 0.05 mm, in order
        if reached < 3:
            on_p = servo.sense_standstill(ax.s) and abs(ax.act_pos / 100 - P[reached]) <= 0.05
            hold_ticks = hold_ticks + 1 if on_p else 0
            if hold_ticks >= 45:
                held[reached] = 1
                reached += 1
                hold_ticks = 0
        if ready_at is not None and reached == 3:
            break
    assert held == [1, 1, 1] and ready_at is not None
    total = ready_at - starts[0]
    # the review's estimate also counts a 0.5 s (+0.02) dwell after P3, which the spec lacks
    assert abs(total - (estimate - 0.52)) <= 0.1 and total * 1.15 < 25.0
