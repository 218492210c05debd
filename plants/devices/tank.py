"""D25 liquid tank and bottle filler.

Tank params: pct_per_ml (level % per ml, i.e. 100 / tank volume), q_in1, q_in2 (ml/s of the
two inlet valves), q_pump (ml/s, only while the level is above 0), low, high, hh (switch
levels, %), h0 (%). Tank state: h (level %), h_max (highest level so far).
  h += (q_in·valves − q_pump·pump)·dt·pct_per_ml, clamped to [0, 100+]; switches TRUE at or
  above their level; LEVEL word in 0.1 %.
Filler params: q (ml/s), q_drift (ml/s per s), delay (ticks, 30 ms = 3: the valve opens and
closes that long after the command). Filler state: cmd_cnt (ticks the command has differed
from the valve), valve, count (ml dispensed, free-running FLOW_CNT), last (ml in the last
step). The task adds ``last`` to the fill of the item under the nozzle (or counts a spill).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.protocol import DT, make_rows

TANK_DTYPE = np.dtype(
    [
        ("pct_per_ml", np.float64), ("q_in1", np.float64), ("q_in2", np.float64),
        ("q_pump", np.float64), ("low", np.float64), ("high", np.float64), ("hh", np.float64),
        ("h0", np.float64),
    ]
)

TANK_STATE_DTYPE = np.dtype([("h", np.float64), ("h_max", np.float64)])

FILLER_DTYPE = np.dtype([("q", np.float64), ("q_drift", np.float64), ("delay", np.int64)])

FILLER_STATE_DTYPE = np.dtype(
    [("cmd_cnt", np.int64), ("valve", np.uint8), ("count", np.float64), ("last", np.float64)]
)


def make_tanks(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Tank parameters (``pct_per_ml`` = 100 / tank volume in ml)."""
    return make_rows(TANK_DTYPE, n_conditions, n_units, values)


def make_tank_state(params: np.ndarray) -> np.ndarray:
    """Level h0."""
    st = np.zeros(params.shape, TANK_STATE_DTYPE)
    st["h"] = params["h0"]
    st["h_max"] = params["h0"]
    return st


def make_fillers(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Filler parameters; the valve delay defaults to 30 ms."""
    base = dict(delay=3)
    base.update(values)
    return make_rows(FILLER_DTYPE, n_conditions, n_units, base)


def make_filler_state(params: np.ndarray) -> np.ndarray:
    """Valve closed, counter 0."""
    return np.zeros(params.shape, FILLER_STATE_DTYPE)


@njit(cache=True)
def tick_tank(st, pa, in1, in2, pump):
    """One step of the level balance; returns the ml pumped out in this step."""
    q_out = pa.q_pump if (pump and st.h > 0.0) else 0.0
    q_in = (pa.q_in1 if in1 else 0.0) + (pa.q_in2 if in2 else 0.0)
    st.h = max(0.0, st.h + (q_in - q_out) * DT * pa.pct_per_ml)
    st.h_max = max(st.h_max, st.h)
    return q_out * DT


@njit(cache=True)
def sense_level(st):
    """LEVEL word, 0.1 %."""
    return np.int16(min(32767.0, round(st.h * 10.0)))


@njit(cache=True)
def tick_filler(st, pa, fill, k):
    """One step of the fill valve (delayed) and flow; ``st.last`` = ml dispensed this step."""
    if (fill != 0) != (st.valve != 0):
        st.cmd_cnt += 1
        if st.cmd_cnt >= pa.delay:
            st.valve = 1 if fill else 0
            st.cmd_cnt = 0
    else:
        st.cmd_cnt = 0
    st.last = 0.0
    if st.valve:
        st.last = max(0.0, pa.q + pa.q_drift * k * DT) * DT
        st.count += st.last


@njit(cache=True)
def sense_flow_cnt(st):
    """FLOW_CNT, DINT, 1 count per ml (free-running)."""
    return np.int32(int(st.count))
