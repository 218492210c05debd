"""D26 capper: a head cylinder (D11 row), a cap chute, a spin motor and TORQUE_OK.

Params: t_torque (ticks of spinning on a capped bottle until TORQUE_OK), strip (ticks of
spinning beyond TORQUE_OK that strip the cap, 40 = 0.4 s).
State: caps (caps in the chute), bottle (item row under the head during this stroke, -1),
spin_ticks, over_ticks, torque_ok, was_down, n_head_empty / first_head_empty (the head came
down with no bottle: S-COLLIDE, tick).
Tick (after the head cylinder ticked; ``bottle`` = the item row under the head, -1 none):
when the head reaches DOWN over a bottle without a cap and the chute is not empty, a cap is
placed; while the head is down on a capped bottle, SPIN time adds up to TORQUE_OK and beyond
it to a stripped cap. Leaving DOWN ends the bottle's stroke.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.items import CAP_NONE, CAP_ON, CAP_STRIPPED, CAP_TORQUED
from plants.devices.protocol import EPS, make_rows

PARAM_DTYPE = np.dtype([("t_torque", np.int64), ("strip", np.int64)])

STATE_DTYPE = np.dtype(
    [("caps", np.int32), ("bottle", np.int32), ("spin_ticks", np.int64),
     ("over_ticks", np.int64), ("torque_ok", np.uint8), ("was_down", np.uint8),
     ("n_head_empty", np.int64), ("first_head_empty", np.int64)]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: t_torque 0.5 s, strip after 0.4 s more."""
    base = dict(t_torque=50, strip=40)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray, caps: int | np.ndarray = 20) -> np.ndarray:
    """Head up, ``caps`` caps in the chute."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["caps"] = caps
    st["bottle"] = -1
    st["first_head_empty"] = -1
    return st


@njit(cache=True)
def tick(st, pa, head, items, bottle, spin, k):
    """Apply the capping head for the step k -> k+1 (``head`` = the head cylinder's state)."""
    down = head.s >= 0.98 - EPS
    if down and not st.was_down:
        st.bottle = bottle
        st.spin_ticks = 0
        st.over_ticks = 0
        st.torque_ok = 0
        if bottle < 0:
            st.n_head_empty += 1
            if st.first_head_empty < 0:
                st.first_head_empty = k + 1
        elif items[bottle].cap == CAP_NONE and st.caps > 0:
            items[bottle].cap = CAP_ON
            st.caps -= 1
    if down and st.bottle >= 0 and spin and items[st.bottle].cap != CAP_NONE:
        it = items[st.bottle]
        if st.torque_ok:
            st.over_ticks += 1
            if st.over_ticks > pa.strip:
                it.cap = CAP_STRIPPED
        else:
            st.spin_ticks += 1
            if st.spin_ticks >= pa.t_torque:
                st.torque_ok = 1
                if it.cap == CAP_ON:
                    it.cap = CAP_TORQUED
    if not down:
        st.bottle = -1
        st.torque_ok = 0
    st.was_down = 1 if down else 0


@njit(cache=True)
def sense_torque_ok(st):
    """TORQUE_OK."""
    return st.torque_ok != 0


@njit(cache=True)
def sense_caps_available(st):
    """CAPS_AVAIL: the cap chute is not empty."""
    return st.caps > 0
