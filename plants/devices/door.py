"""D13 powered door (lift landing / cabin door) with a light beam obstruction input.

Params: t_door (s, open <-> closed, linear). State: d (0 closed .. 1 open), n_close_obst /
first_close_obst (DOOR_CLOSE commanded while the beam is broken: S-DOORCLOSE, tick).
Tick: DOOR_OPEN opens, DOOR_CLOSE closes (both = no motion); DOOR_CLOSE is ignored while
DOOR_OBST reads FALSE (obstructed) and the door stops.
Inputs: DOOR_OPENED (d = 1), DOOR_CLOSED (d = 0).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.protocol import DT, EPS, make_rows

PARAM_DTYPE = np.dtype([("t_door", np.float64)])

STATE_DTYPE = np.dtype(
    [("d", np.float64), ("n_close_obst", np.int64), ("first_close_obst", np.int64)]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Default door time 2 s."""
    base = dict(t_door=2.0)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray, d0: float = 0.0) -> np.ndarray:
    """Closed (or at ``d0``)."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["d"] = d0
    st["first_close_obst"] = -1
    return st


@njit(cache=True)
def tick(st, pa, open_cmd, close_cmd, beam_clear, k):
    """Advance the door one step."""
    if close_cmd and not beam_clear:
        st.n_close_obst += 1
        if st.first_close_obst < 0:
            st.first_close_obst = k
    step = DT / pa.t_door
    if open_cmd and not close_cmd:
        st.d = min(1.0, st.d + step)
    elif close_cmd and not open_cmd and beam_clear:
        st.d = max(0.0, st.d - step)
    if st.d >= 1.0 - EPS:
        st.d = 1.0
    if st.d <= EPS:
        st.d = 0.0


@njit(cache=True)
def sense_opened(st):
    """DOOR_OPENED."""
    return st.d >= 1.0


@njit(cache=True)
def sense_closed(st):
    """DOOR_CLOSED."""
    return st.d <= 0.0
