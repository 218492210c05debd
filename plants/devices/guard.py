"""D02 guard door with solenoid lock (light-curtain readings come from the script, D01 style).

Params: bolt (ticks the bolt takes to follow LOCK; -1 = a door without lock), fb_from/fb_to
(lock feedback drop-out window: LOCKED reads FALSE although the bolt is in), attempts (up to
N_ATTEMPTS scripted open attempts: attempt_t tick, open_len ticks the door then stays open,
forced = opens whatever the lock).
State: open, open_until, next (next attempt), bolt_in, bolt_cnt (ticks LOCK has differed from
the bolt), waited (ticks the current attempt has waited for the lock, logged), n_forced.
Tick: the bolt follows LOCK after ``bolt`` ticks and only while the door is closed; a pending
attempt opens the door on the first tick the bolt is out (at once without a lock, or when
forced); the door closes again after its open time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.protocol import NEVER, make_rows

N_ATTEMPTS = 8

PARAM_DTYPE = np.dtype(
    [
        ("bolt", np.int64), ("fb_from", np.int64), ("fb_to", np.int64),
        ("attempt_t", np.int64, (N_ATTEMPTS,)), ("open_len", np.int64, (N_ATTEMPTS,)),
        ("forced", np.uint8, (N_ATTEMPTS,)),
    ]
)

STATE_DTYPE = np.dtype(
    [
        ("open", np.uint8), ("open_until", np.int64), ("next", np.int32),
        ("bolt_in", np.uint8), ("bolt_cnt", np.int64), ("waited", np.int64),
        ("n_forced", np.int32),
    ]
)


def make_params(n_conditions: int, n_units: int = 1, attempts=(), **values) -> np.ndarray:
    """``attempts`` = [(t_s, open_s, forced), ...] shared by all rows (or set the columns)."""
    base = dict(bolt=10, fb_from=NEVER, fb_to=NEVER)
    base.update(values)
    rows = make_rows(PARAM_DTYPE, n_conditions, n_units, base)
    rows["attempt_t"] = NEVER
    if len(attempts) > N_ATTEMPTS:
        raise ValueError(f"at most {N_ATTEMPTS} open attempts")
    for j, (t_s, open_s, forced) in enumerate(attempts):
        rows["attempt_t"][..., j] = round(t_s * 100)
        rows["open_len"][..., j] = round(open_s * 100)
        rows["forced"][..., j] = int(forced)
    return rows


def make_state(params: np.ndarray) -> np.ndarray:
    """Door closed, bolt out."""
    return np.zeros(params.shape, STATE_DTYPE)


@njit(cache=True)
def tick(st, pa, lock, k):
    """Advance one step with the latched LOCK output."""
    t = k + 1
    if pa.bolt >= 0 and not st.open:
        if (lock != 0) != (st.bolt_in != 0):
            st.bolt_cnt += 1
            if st.bolt_cnt >= pa.bolt:
                st.bolt_in = 1 if lock else 0
                st.bolt_cnt = 0
        else:
            st.bolt_cnt = 0
    if st.open and t >= st.open_until:
        st.open = 0
    if not st.open and st.next < N_ATTEMPTS and t >= pa.attempt_t[st.next]:
        j = st.next
        if pa.forced[j] or pa.bolt < 0 or not st.bolt_in:
            st.open = 1
            st.bolt_in = 0
            st.open_until = t + pa.open_len[j]
            st.next += 1
            if pa.forced[j]:
                st.n_forced += 1
        else:
            st.waited += 1


@njit(cache=True)
def sense_door_closed(st):
    """DOOR_CLOSED."""
    return st.open == 0


@njit(cache=True)
def sense_locked(st, pa, k):
    """LOCKED (bolt engaged), FALSE during the feedback drop-out window."""
    return st.bolt_in != 0 and not (pa.fb_from <= k < pa.fb_to)
