"""D23 right-angle chain transfer (A28, MAT-M02): a lift cylinder row plus chains to a lane.

Params: line, x0, x1 (transfer zone on the line, mm), t_chain (ticks of chain running with the
lift UP an item needs to reach the lane), chute (lane/bin unit index).
State: item (row on the chains, -1 none), chain_ticks, was_up, n_damaged.
Tick (after the lift cylinder ticked): when the lift reaches UP (s >= 0.98) an item lying
fully inside the zone is raised onto the chains; chain time counts only while the lift is UP;
after t_chain it is delivered to the lane; if the lift leaves UP earlier the item is set back
on the rollers, damaged (DROPPED if another item took its place). The task keeps the zone
rollers at standstill and the zone closed (obstacles at its edges) while the lift is not
DOWN; S-LIFT is ``safety.s_lift`` at both zone edges.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import chute as chute_dev
from plants.devices.items import DELIVERED, DROPPED, HELD, LINE, line_is_free, record_fate
from plants.devices.protocol import EPS, make_rows

PARAM_DTYPE = np.dtype(
    [("line", np.int32), ("x0", np.float64), ("x1", np.float64), ("t_chain", np.int64),
     ("chute", np.int32)]
)

STATE_DTYPE = np.dtype(
    [("item", np.int32), ("chain_ticks", np.int64), ("was_up", np.uint8),
     ("n_damaged", np.int64)]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: 1.5 s of chain time (MAT-M02)."""
    base = dict(t_chain=150)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """Chains empty."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["item"] = -1
    return st


@njit(cache=True)
def tick(st, pa, lift, items, chain_on, chutes_st, chutes_pa, k):
    """Apply the transfer for the step k -> k+1 (``lift`` = the lift cylinder's state row)."""
    t = k + 1
    up = lift.s >= 0.98 - EPS
    if up and not st.was_up and st.item < 0:
        for j in range(items.shape[0]):
            it = items[j]
            if it.place == LINE and it.line == pa.line:
                if it.rear >= pa.x0 - EPS and it.rear + it.length <= pa.x1 + EPS:
                    it.place = HELD
                    st.item = j
                    st.chain_ticks = 0
                    break
    if st.item >= 0:
        it = items[st.item]
        if up:
            if chain_on:
                st.chain_ticks += 1
            if st.chain_ticks >= pa.t_chain:
                chute_dev.deliver(chutes_st[pa.chute], chutes_pa[pa.chute], t)
                record_fate(it, DELIVERED, chutes_pa[pa.chute].dest, t)
                st.item = -1
        else:
            it.damaged = 1
            st.n_damaged += 1
            held = st.item
            st.item = -1
            if line_is_free(items, pa.line, it.rear, it.rear + it.length, held):
                it.place = LINE
            else:
                record_fate(it, DROPPED, -1, t)
    st.was_up = 1 if up else 0
