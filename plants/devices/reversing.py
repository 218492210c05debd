"""D04 reversing starter + motor: two interlocked contactors and a signed speed.

Parameters: pickup, dropout (ticks), tau_acc, tau_coast (s), ol_from/ol_to (overload trip
window, ticks). State: kf, kr (contactors), n (signed speed, p.u.), on/off counters.
Tick: FWD and REV both TRUE in one output image closes neither (short-circuit attempt, judged
by S-BOTHDIR); each contactor follows its coil with the delays and is forced open during an
overload; n moves toward +1 (K_F), -1 (K_R) with tau_acc, or toward 0 with tau_coast.
Inputs: FB_FWD = kf, FB_REV = kr, OL_OK.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.contactor import follow
from plants.devices.protocol import DT, NEVER, make_rows

PARAM_DTYPE = np.dtype(
    [
        ("pickup", np.int64), ("dropout", np.int64),
        ("tau_acc", np.float64), ("tau_coast", np.float64),
        ("ol_from", np.int64), ("ol_to", np.int64),
    ]
)

STATE_DTYPE = np.dtype(
    [
        ("kf", np.uint8), ("kr", np.uint8), ("n", np.float64),
        ("on_f", np.int64), ("off_f", np.int64), ("on_r", np.int64), ("off_r", np.int64),
    ]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: no contactor delays, tau 0.5 s both ways, no overload."""
    base = dict(tau_acc=0.5, tau_coast=0.5, ol_from=NEVER, ol_to=NEVER)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """At rest, both contactors open."""
    return np.zeros(params.shape, STATE_DTYPE)


@njit(cache=True)
def sense_ol_ok(pa, k):
    """Overload relay healthy."""
    return not (pa.ol_from <= k < pa.ol_to)


@njit(cache=True)
def tick(st, pa, fwd, rev, k):
    """Advance one 10 ms step with the latched FWD/REV coil outputs."""
    both = fwd and rev
    cf, st.on_f, st.off_f = follow(st.kf != 0, fwd and not both, st.on_f, st.off_f,
                                   pa.pickup, pa.dropout)
    cr, st.on_r, st.off_r = follow(st.kr != 0, rev and not both, st.on_r, st.off_r,
                                   pa.pickup, pa.dropout)
    if not sense_ol_ok(pa, k + 1):
        cf = False
        cr = False
    st.kf = 1 if cf else 0
    st.kr = 1 if cr else 0
    target = 0.0
    if cf and not cr:
        target = 1.0
    elif cr and not cf:
        target = -1.0
    tau = pa.tau_acc if target != 0.0 else pa.tau_coast
    st.n += (target - st.n) * DT / tau
