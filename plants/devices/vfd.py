"""D06 variable-frequency drive (conveyor speed = f/f_max·v_nom).

Parameters: f_max (Hz), t_acc, t_dec (s, 0 -> f_max), coast (Hz/s after a trip), trip_from,
trip_to (ticks: the drive trips at trip_from; the cause ends at trip_to).
State: f (Hz, signed), fault, inhibit (run-inhibit after a reset), prev_fwd, prev_rev,
prev_rst, f_target (Hz, for AT_SPEED).
Tick: with exactly one run command, no fault and no inhibit, the target is ±f_ref (SPEED_REF
raw 0..27648 = 0..f_max, negative read as 0), otherwise 0; f ramps at f_max/t_acc while |f|
rises and f_max/t_dec while it falls, passing through 0 on reversal. On a fault f decays at
the coast rate. A FAULT_RST edge clears the fault once its cause has ended and sets the
run-inhibit, which a fresh FALSE->TRUE run command clears.
Inputs: READY, RUNNING (|f| > 0.2 Hz), AT_SPEED (|f - target| <= 0.5 Hz while running), FAULT,
FREQ_ACT (0.1 Hz, signed).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.protocol import DT, NEVER, make_rows

FULL_SCALE = 27648

PARAM_DTYPE = np.dtype(
    [("f_max", np.float64), ("t_acc", np.float64), ("t_dec", np.float64),
     ("coast", np.float64), ("trip_from", np.int64), ("trip_to", np.int64)]
)

STATE_DTYPE = np.dtype(
    [("f", np.float64), ("fault", np.uint8), ("inhibit", np.uint8), ("prev_fwd", np.uint8),
     ("prev_rev", np.uint8), ("prev_rst", np.uint8), ("f_target", np.float64)]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: 50 Hz, 2 s ramps, coast 10 Hz/s, no trip."""
    base = dict(f_max=50.0, t_acc=2.0, t_dec=2.0, coast=10.0, trip_from=NEVER, trip_to=NEVER)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """Stopped, healthy."""
    return np.zeros(params.shape, STATE_DTYPE)


@njit(cache=True)
def tick(st, pa, fwd, rev, fault_rst, speed_ref, k):
    """Advance one 10 ms step with the latched run commands, reset and SPEED_REF word."""
    t = k + 1
    if t == pa.trip_from:
        st.fault = 1
    if fault_rst and not st.prev_rst and st.fault and t >= pa.trip_to:
        st.fault = 0
        st.inhibit = 1
    if st.inhibit and ((fwd and not st.prev_fwd) or (rev and not st.prev_rev)):
        st.inhibit = 0
    st.prev_fwd = 1 if fwd else 0
    st.prev_rev = 1 if rev else 0
    st.prev_rst = 1 if fault_rst else 0
    f_ref = max(0, min(FULL_SCALE, speed_ref)) / FULL_SCALE * pa.f_max
    target = 0.0
    if (fwd != rev) and not st.fault and not st.inhibit:
        target = f_ref if fwd else -f_ref
    st.f_target = target
    f = st.f
    if st.fault:
        step = pa.coast * DT
        st.f = 0.0 if abs(f) <= step else f - step * np.sign(f)
        return
    if f != 0.0 and np.sign(target) != np.sign(f) and target != 0.0:
        target = 0.0  # reversal passes through 0
    if abs(target) > abs(f) and (f == 0.0 or np.sign(target) == np.sign(f)):
        step = pa.f_max / pa.t_acc * DT
    else:
        step = pa.f_max / pa.t_dec * DT
    if abs(target - f) <= step:
        st.f = target
    else:
        st.f = f + step * np.sign(target - f)


@njit(cache=True)
def sense_running(st):
    """RUNNING: |f| > 0.2 Hz and no fault."""
    return abs(st.f) > 0.2 and not st.fault


@njit(cache=True)
def sense_at_speed(st):
    """AT_SPEED: running within 0.5 Hz of the commanded frequency."""
    return sense_running(st) and abs(st.f - st.f_target) <= 0.5


@njit(cache=True)
def sense_ready(st):
    """READY: no fault."""
    return not st.fault


@njit(cache=True)
def sense_freq_act(st):
    """FREQ_ACT, INT 0.1 Hz signed."""
    return np.int16(round(st.f * 10.0))
