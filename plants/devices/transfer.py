"""D23 right-angle chain transfer (A28, MAT-M02): a lift cylinder row plus chains to a lane.

Params: line, x0, x1 (transfer zone on the line, mm), t_chain (ticks of chain running with the
lift UP an item needs to reach the lane), chute (lane/bin unit index).
State: item (row on the chains, -1 none), chain_ticks, was_up, n_damaged.
Tick (after the lift cylinder ticked): when the lift reaches UP (s >= 0.98) an item lying
fully inside the zone is raised onto the chains; chain time counts only while the lift is UP;
after t_chain it is delivered to the lane; if the lift leaves UP earlier the item is set back
on the rollers, damaged (DROPPED if another item took its place). The task keeps the zone
rollers at standstill and the zone closed (obstacles at its edges) while the lift is not
DOWN; S-LIFT is ``safety.s_lift_zone`` (``s_lift`` at both zone edges).

Turntable (``TT_*``, ``make_turntable_*``, ``tick_turntable``): the table is the zone
[x0, x1] of a main line; rotation is a cylinder row the task ticks first (s = 0 -> 0°,
s = 1 -> 90°; T_0 = s <= 0.02, T_90 = s >= 0.98, read with ``sense_t0``/``sense_t90``).
Params: line, x0, x1 (mm), v_roll (table roller surface speed, mm/s), dest_fwd, dest_rev
(side destinations at the table's u = x1 - x0 end / u = 0 end when at 90°; -1 = no receiver).
State: item (row on the table, -1 none), u (its rear in table coordinates, mm), was_at0,
n_shear/first_shear_tick (S-SHEAR: the table turned while an item straddled x0 or x1 by
> 1 mm; that item is damaged), n_drop/first_drop_tick (S-DROP: the rollers discharged toward
a side with no receiver), n_delivered.
Tick: on the first tick the table leaves 0° the item lying fully inside the zone is taken
onto the table (HELD). At 90° with exactly one of FWD/REV the held item moves ±v_roll·dt;
its centre passing an end delivers it to that side's destination (or drops it). Back at 0°
a held item is set on the main line at rear = x0 + u (DROPPED if its place is taken). With
the table at 0° the table rollers are a segment of the main line (the task sets its speed);
while not at 0° the task closes the zone edges (end plates), as ``mat_e10`` does.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import chute as chute_dev
from plants.devices.items import DELIVERED, DROPPED, HELD, LINE, line_is_free, record_fate
from plants.devices.protocol import DT, EPS, make_rows

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


TT_PARAM_DTYPE = np.dtype(
    [("line", np.int32), ("x0", np.float64), ("x1", np.float64), ("v_roll", np.float64),
     ("dest_fwd", np.int32), ("dest_rev", np.int32)]
)

TT_STATE_DTYPE = np.dtype(
    [("item", np.int32), ("u", np.float64), ("was_at0", np.uint8),
     ("n_shear", np.int64), ("first_shear_tick", np.int64),
     ("n_drop", np.int64), ("first_drop_tick", np.int64), ("n_delivered", np.int64)]
)

T0_MAX = 0.02
T90_MIN = 0.98
STRADDLE_MM = 1.0


def make_turntable_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: 800 mm table, 500 mm/s rollers, receiver only on the FWD side."""
    base = dict(x0=0.0, x1=800.0, v_roll=500.0, dest_fwd=0, dest_rev=-1)
    base.update(values)
    return make_rows(TT_PARAM_DTYPE, n_conditions, n_units, base)


def make_turntable_state(params: np.ndarray) -> np.ndarray:
    """Table empty at 0°."""
    st = np.zeros(params.shape, TT_STATE_DTYPE)
    st["item"] = -1
    st["was_at0"] = 1
    st["first_shear_tick"] = -1
    st["first_drop_tick"] = -1
    return st


@njit(cache=True)
def sense_t0(rot):
    """T_0 switch of the rotation (cylinder state row)."""
    return rot.s <= T0_MAX + EPS


@njit(cache=True)
def sense_t90(rot):
    """T_90 switch of the rotation (cylinder state row)."""
    return rot.s >= T90_MIN - EPS


@njit(cache=True)
def straddles(it, x):
    """TRUE if the item's footprint reaches more than 1 mm to both sides of x."""
    return it.rear < x - STRADDLE_MM and it.rear + it.length > x + STRADDLE_MM


@njit(cache=True)
def _shear_check(st, pa, items, t):
    for j in range(items.shape[0]):
        it = items[j]
        if it.place == LINE and it.line == pa.line:
            if straddles(it, pa.x0) or straddles(it, pa.x1):
                it.damaged = 1
                if st.n_shear == 0:
                    st.first_shear_tick = t
                st.n_shear += 1


@njit(cache=True)
def _discharge(st, it, dest, t):
    if dest >= 0:
        record_fate(it, DELIVERED, dest, t)
        st.n_delivered += 1
    else:
        record_fate(it, DROPPED, -1, t)
        if st.n_drop == 0:
            st.first_drop_tick = t
        st.n_drop += 1
    st.item = -1


@njit(cache=True)
def tick_turntable(st, pa, rot, items, fwd, rev, k):
    """Apply the turntable for the step k -> k+1 (``rot`` = the rotation cylinder's row,
    already ticked)."""
    t = k + 1
    at0 = sense_t0(rot)
    if abs(rot.s - rot.s_prev) > EPS:
        _shear_check(st, pa, items, t)
    if st.was_at0 and not at0 and st.item < 0:
        for j in range(items.shape[0]):
            it = items[j]
            if it.place == LINE and it.line == pa.line:
                if it.rear >= pa.x0 - EPS and it.rear + it.length <= pa.x1 + EPS:
                    it.place = HELD
                    st.item = j
                    st.u = it.rear - pa.x0
                    break
    if st.item >= 0:
        it = items[st.item]
        if sense_t90(rot) and fwd != rev:
            st.u += (pa.v_roll if fwd else -pa.v_roll) * DT
            c = st.u + 0.5 * it.length
            if c > pa.x1 - pa.x0 + EPS:
                _discharge(st, it, pa.dest_fwd, t)
            elif c < -EPS:
                _discharge(st, it, pa.dest_rev, t)
        elif at0:
            held = st.item
            st.item = -1
            it.rear = pa.x0 + st.u
            it.rear_prev = it.rear
            if line_is_free(items, pa.line, it.rear, it.rear + it.length, held):
                it.place = LINE
            else:
                st.item = held
                _discharge(st, it, -1, t)
    st.was_at0 = 1 if at0 else 0
