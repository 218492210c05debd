"""D28 telescopic fork and rack slots (AS/RS).

Fork params: t_stroke (s, centre <-> end). Fork state: f (-1 left end .. 0 centre .. +1 right
end), load (tote code on the fork, 0 = empty), n_collide / first_collide (S-COLLIDE events
the task reports through ``collide``).
Tick: FORK_L drives toward -1, FORK_R toward +1, neither (or both) back to the centre, at
1/t_stroke per second. FORK_C = |f| <= 0.02, FORK_L_END = f <= -0.98, FORK_R_END = f >= 0.98,
LOAD_ON_FORK = load != 0.
Rack: an int32 array of tote codes per slot (0 = empty), one row per condition, owned by the
task. ``exchange`` moves a tote between an extended fork and a slot when the fork's support
passes the slot level: upward (pick: extended at level − 15 mm, raise 30 mm) or downward
(put: extended at level + 15 mm, lower 30 mm).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.protocol import DT, EPS, make_rows

PARAM_DTYPE = np.dtype([("t_stroke", np.float64)])

STATE_DTYPE = np.dtype(
    [("f", np.float64), ("load", np.int64), ("n_collide", np.int64), ("first_collide", np.int64)]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Default stroke time 1.0 s."""
    base = dict(t_stroke=1.0)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """Fork centred and empty."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["first_collide"] = -1
    return st


@njit(cache=True)
def tick(st, pa, left, right, k):
    """Advance the fork one step."""
    target = 0.0
    if left and not right:
        target = -1.0
    elif right and not left:
        target = 1.0
    step = DT / pa.t_stroke
    if abs(target - st.f) <= step + EPS:
        st.f = target
    elif target > st.f:
        st.f += step
    else:
        st.f -= step


@njit(cache=True)
def extended(st):
    """The fork is at one of its ends (-1 left, +1 right, 0 not extended)."""
    if st.f >= 0.98 - EPS:
        return 1
    if st.f <= -0.98 + EPS:
        return -1
    return 0


@njit(cache=True)
def exchange(st, rack, slot, z_prev, z, z_level):
    """Pick or put at ``slot`` when the support passes z_level in this step; returns +1 picked,
    -1 put, 0 nothing (the caller checks that the fork is extended into that slot)."""
    if z_prev < z_level <= z and st.load == 0 and rack[slot] != 0:
        st.load = rack[slot]
        rack[slot] = 0
        return 1
    if z_prev > z_level >= z and st.load != 0 and rack[slot] == 0:
        rack[slot] = st.load
        st.load = 0
        return -1
    return 0


@njit(cache=True)
def collide(st, k):
    """Record an S-COLLIDE event found by the task's geometry check."""
    st.n_collide += 1
    if st.first_collide < 0:
        st.first_collide = k


@njit(cache=True)
def sense_centred(st):
    """FORK_C."""
    return abs(st.f) <= 0.02 + EPS
