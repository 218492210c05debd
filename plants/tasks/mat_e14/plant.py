"""MAT-E14 plant binding: D24-type hopper fed by a D03 screw feeder, and the judge.

Batch state (``build``): DOL parameters and state ``(n, 1)`` (the scripted overload trip is the
starter's OL window), the bridging script ``(n, events)``, one task record per condition
(rates, consumption period, judge ticks), one hopper record and one judge record per
condition, and the S-CYCLE start tracker. The level integrates fill x n (nothing while the
material bridges) minus the alternating consumption. The judge checks the lamps against the
switches the program saw, the level band (10-95 %, or for bridged runs < 95 % and 25-85 % at
T) and the three safety rules.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import dol, scripts
from plants.devices.protocol import DT, NEVER, ticks
from plants.devices.safety import CYCLE_DTYPE, s_cycle, s_overflow_level
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
I_AUTO_SW, I_LL, I_LOW, I_HIGH, I_HH, I_OL_OK = range(6)
O_FEEDER, O_LAMP_LOW, O_LAMP_HIGH = range(3)
CH_BRIDGE = 0
"""Script channel: the feeder delivers nothing while it is active."""

LL_PCT, LOW_PCT, HIGH_PCT, HH_PCT = 10.0, 30.0, 80.0, 95.0
FINAL_LO_PCT, FINAL_HI_PCT = 25.0, 85.0
"""Bridged runs: the level band at T (the catalog's 30-80 % plus the feeder's coast and run-up
lag beyond the switch levels, up to fill x tau = 1.5 %)."""
OVERFLOW_PCT = 100.0
MAX_STARTS = 6
TAU_S = 0.5

VIOLATIONS = ("S-CYCLE", "S-OVERFLOW", "S-OLRUN")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""
V_CYCLE, V_OVERFLOW, V_OLRUN = range(1, 4)

REASONS = (
    "LAMP_LOW_ALARM differed from NOT LL for more than 0.5 s",
    "LAMP_HIGH_ALARM differed from HH for more than 0.5 s",
    "the level left the 10-95 % band ({arg:.1f} %)",
    "the level reached 95 % ({arg:.1f} %)",
    "the level at T is outside 25-85 % ({arg:.1f} %)",
)
"""Failure reason id i + 1 -> text."""
R_LAMP_LOW, R_LAMP_HIGH, R_BAND, R_HH, R_FINAL = range(1, 6)

PROBES = {
    "level": (4, "h", "%"),
    "screw_speed": ((1, 0), "n", "p.u."),
}
"""Plant variables `plantloop trace` can show: the hopper level and the screw speed."""

TASKP_DTYPE = np.dtype([
    ("fill", np.float64), ("cons1", np.float64), ("cons2", np.float64), ("period", np.int64),
    ("bridged", np.uint8), ("lamp_window", np.int64), ("last_tick", np.int64),
])

HOPPER_DTYPE = np.dtype([("h", np.float64)])

JUDGE_DTYPE = np.dtype([("prev_feeder", np.uint8), ("low_lag", np.int64), ("high_lag", np.int64)])


def _events(task: TaskSpec, cond) -> tuple[list[tuple], int, int]:
    """The bridging events and the overload window (ticks) of one condition."""
    bridges, ol_from, ol_to = [], NEVER, NEVER
    for ev in cond.script:
        if ev.kind == "bridge":
            bridges.append(scripts.event(CH_BRIDGE, ev.t, ev.t + ev.duration))
        elif ev.kind == "trip" and ol_from == NEVER:
            ol_from, ol_to = ticks(ev.t), ticks(ev.t + ev.duration)
        else:
            raise ValueError(f"{task.id} {cond.name}: unknown or repeated event {ev.kind} {ev.target!r}")
    return bridges, ol_from, ol_to


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    conds = task.conditions
    n = len(conds)
    taskp = np.zeros(n, TASKP_DTYPE)
    hopper = np.zeros(n, HOPPER_DTYPE)
    events, ol_from, ol_to = [], [], []
    for c, cond in enumerate(conds):
        bridges, t_from, t_to = _events(task, cond)
        events.append(bridges)
        ol_from.append(t_from)
        ol_to.append(t_to)
        p = cond.params
        taskp[c]["fill"] = p["fill_pct_s"]
        taskp[c]["cons1"] = p["cons1_pct_s"]
        taskp[c]["cons2"] = p["cons2_pct_s"]
        taskp[c]["period"] = ticks(p["cons_period_s"])
        taskp[c]["bridged"] = 1 if bridges else 0
        taskp[c]["last_tick"] = ticks(task.time_limit(cond)) - 1
        hopper[c]["h"] = p["h0_pct"]
    taskp["lamp_window"] = ticks(float(task.judge.get("lamp_window_s", 0.5)))
    dpa = dol.make_params(n, 1, tau_acc=TAU_S, tau_coast=TAU_S, ol_from=ol_from, ol_to=ol_to)
    return (dpa, dol.make_state(dpa), scripts.build_scripts(events, spare_rows=0), taskp, hopper,
            np.zeros(n, JUDGE_DTYPE), np.zeros(n, CYCLE_DTYPE))


@njit(cache=True)
def sense(plant, c, k, inp):
    """Selector (always auto), the four level switches and the overload relay."""
    h = plant[4][c].h
    inp[I_AUTO_SW] = 1.0
    inp[I_LL] = 1.0 if h >= LL_PCT else 0.0
    inp[I_LOW] = 1.0 if h >= LOW_PCT else 0.0
    inp[I_HIGH] = 1.0 if h >= HIGH_PCT else 0.0
    inp[I_HH] = 1.0 if h >= HH_PCT else 0.0
    inp[I_OL_OK] = 1.0 if dol.sense_ol_ok(plant[0][c, 0], k) else 0.0


@njit(cache=True)
def consumption(tp, k):
    """Scripted consumption of tick k: the first rate in even periods, the second in odd ones."""
    return tp.cons1 if (k // tp.period) % 2 == 0 else tp.cons2


@njit(cache=True)
def advance(plant, c, k, out):
    """One 10 ms step: the starter and screw speed, then the level balance."""
    st, tp, hop = plant[1][c, 0], plant[3][c], plant[4][c]
    dol.tick(st, plant[0][c, 0], out[O_FEEDER] != 0.0, k)
    delivery = 0.0 if scripts.active(plant[2][c], CH_BRIDGE, k) else tp.fill * st.n
    hop.h = max(0.0, hop.h + (delivery - consumption(tp, k)) * DT)


@njit(cache=True)
def _lag(count, differs):
    """Ticks a lamp has differed from its switch without interruption."""
    return count + 1 if differs else 0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    tp, h, js = plant[3][c], plant[4][c].h, plant[5][c]
    feeder = out[O_FEEDER] != 0.0
    violation = 0
    if s_cycle(plant[6][c], feeder and not js.prev_feeder, MAX_STARTS, k):
        violation = V_CYCLE
    elif s_overflow_level(h, OVERFLOW_PCT):
        violation = V_OVERFLOW
    elif feeder and inp[I_OL_OK] == 0.0:
        violation = V_OLRUN
    js.prev_feeder = 1 if feeder else 0
    js.low_lag = _lag(js.low_lag, (out[O_LAMP_LOW] != 0.0) == (inp[I_LL] != 0.0))
    js.high_lag = _lag(js.high_lag, (out[O_LAMP_HIGH] != 0.0) != (inp[I_HH] != 0.0))
    if js.low_lag > tp.lamp_window:
        return violation, -1, R_LAMP_LOW, 0.0
    if js.high_lag > tp.lamp_window:
        return violation, -1, R_LAMP_HIGH, 0.0
    if tp.bridged:
        if h >= HH_PCT:
            return violation, -1, R_HH, h
        if k >= tp.last_tick:
            if FINAL_LO_PCT <= h <= FINAL_HI_PCT:
                return violation, 1, 0, 0.0
            return violation, -1, R_FINAL, h
    else:
        if h < LL_PCT or h > HH_PCT:
            return violation, -1, R_BAND, h
        if k >= tp.last_tick:
            return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
