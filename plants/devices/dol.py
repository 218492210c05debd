"""D03 direct-on-line starter + motor (also the "DOL τ" belt drive of A4).

Parameters (``PARAM_DTYPE``):
  pickup, dropout   contactor delays, ticks (RUN continuously TRUE/FALSE that long moves K)
  tau_acc, tau_coast speed time constants, s (A4 "DOL τ": both equal, pick-up/drop-out 0)
  ol_from, ol_to    overload trip window, ticks: OL_OK = FALSE on [ol_from, ol_to)
  open_from, open_to contactor drops out by itself / fails to close on this window, ticks
  weld_from         from this tick the contactor is welded: K stays as it is once closed
State (``STATE_DTYPE``):
  k        contactor closed (RUN_FB = K)
  n        speed, p.u. (0..1)
  on_cnt, off_cnt  ticks RUN has been TRUE / FALSE without interruption
  starts   number of K closings (for S-CYCLE)
Tick: K follows RUN after the delays and is forced open while OL_OK = FALSE or in the open
window; then n += (K ? 1 - n : -n)·dt/(K ? tau_acc : tau_coast).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.contactor import follow
from plants.devices.protocol import DT, NEVER, make_rows

PARAM_DTYPE = np.dtype(
    [
        ("pickup", np.int64),
        ("dropout", np.int64),
        ("tau_acc", np.float64),
        ("tau_coast", np.float64),
        ("ol_from", np.int64),
        ("ol_to", np.int64),
        ("open_from", np.int64),
        ("open_to", np.int64),
        ("weld_from", np.int64),
    ]
)

STATE_DTYPE = np.dtype(
    [
        ("k", np.uint8),
        ("n", np.float64),
        ("on_cnt", np.int64),
        ("off_cnt", np.int64),
        ("starts", np.int64),
    ]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Parameters with defaults: no delays, tau 0.5 s, no faults (windows at NEVER)."""
    base = dict(tau_acc=0.5, tau_coast=0.5, ol_from=NEVER, ol_to=NEVER,
                open_from=NEVER, open_to=NEVER, weld_from=NEVER)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """Motor at rest, contactor open."""
    return np.zeros(params.shape, STATE_DTYPE)


@njit(cache=True)
def sense_ol_ok(pa, k):
    """Overload relay healthy (FALSE during the scripted trip window)."""
    return not (pa.ol_from <= k < pa.ol_to)


@njit(cache=True)
def sense_run_fb(st):
    """Auxiliary contact = contactor state."""
    return st.k != 0


@njit(cache=True)
def tick(st, pa, run, k):
    """Advance one 10 ms step with the latched coil output ``run``."""
    was_closed = st.k != 0
    closed, st.on_cnt, st.off_cnt = follow(was_closed, run, st.on_cnt, st.off_cnt,
                                           pa.pickup, pa.dropout)
    t = k + 1  # forced states hold in the state of tick k+1 (the fault acts at once)
    if (pa.open_from <= t < pa.open_to) or not sense_ol_ok(pa, t):
        closed = False
    if was_closed and t >= pa.weld_from:
        closed = True  # welded contacts stay closed whatever the coil does
    if closed and not was_closed:
        st.starts += 1
    st.k = 1 if closed else 0
    if closed:
        st.n += (1.0 - st.n) * DT / pa.tau_acc
    else:
        st.n += -st.n * DT / pa.tau_coast
