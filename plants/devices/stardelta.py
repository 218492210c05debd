"""D05 star-delta starter + high-inertia fan motor.

Parameters: tau_s (load time constant, s), dropout (ticks, 20 ms = 2), jam (1: star speed
saturates at 0.70), ol_from/ol_to (overload window, ticks).
State: main, star, delta (contactors; they close in the step their coil rises and open after
the drop-out), counters, n (p.u.).
Tick: MAIN + STAR drives n toward 0.95 (0.70 jammed) with tau_s; MAIN + DELTA toward 1.0 with
tau_s/3; anything else (including STAR and DELTA together, a short circuit judged by
S-STARDELTA) lets n decay with 10·tau_s. Input SPEED_90 = n >= 0.90.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.contactor import follow
from plants.devices.protocol import DT, NEVER, make_rows

PARAM_DTYPE = np.dtype(
    [("tau_s", np.float64), ("dropout", np.int64), ("jam", np.uint8),
     ("ol_from", np.int64), ("ol_to", np.int64)]
)

STATE_DTYPE = np.dtype(
    [
        ("main", np.uint8), ("star", np.uint8), ("delta", np.uint8), ("n", np.float64),
        ("on_m", np.int64), ("off_m", np.int64), ("on_s", np.int64), ("off_s", np.int64),
        ("on_d", np.int64), ("off_d", np.int64),
    ]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: tau_s 1 s, drop-out 20 ms, no faults."""
    base = dict(tau_s=1.0, dropout=2, ol_from=NEVER, ol_to=NEVER)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """At rest, all contactors open."""
    return np.zeros(params.shape, STATE_DTYPE)


@njit(cache=True)
def tick(st, pa, main, star, delta, k):
    """Advance one 10 ms step with the latched MAIN/STAR/DELTA coil outputs."""
    m, st.on_m, st.off_m = follow(st.main != 0, main, st.on_m, st.off_m, 0, pa.dropout)
    s, st.on_s, st.off_s = follow(st.star != 0, star, st.on_s, st.off_s, 0, pa.dropout)
    d, st.on_d, st.off_d = follow(st.delta != 0, delta, st.on_d, st.off_d, 0, pa.dropout)
    if pa.ol_from <= k + 1 < pa.ol_to:
        m = False
    st.main = 1 if m else 0
    st.star = 1 if s else 0
    st.delta = 1 if d else 0
    if m and s and not d:
        target = 0.70 if pa.jam else 0.95
        st.n += (target - st.n) * DT / pa.tau_s
    elif m and d and not s:
        st.n += (1.0 - st.n) * DT / (pa.tau_s / 3.0)
    else:
        st.n += -st.n * DT / (10.0 * pa.tau_s)


@njit(cache=True)
def sense_speed_90(st):
    """SPEED_90: n >= 0.90."""
    return st.n >= 0.90
