"""D10 rotary index table with locking pin (the pin is a D11 cylinder row).

Params: n_stations, w_fast, w_creep (°/s), tau (s), brake (°/s², motor off), w_pre (°, PRE_CAM
window before the next station, 12), cam (°, INDEX_CAM half width 0.8), pin_tol (°, 1.0).
State: theta (°, [0, 360)), w (°/s, >= 0: the table turns one way), collided (pin stopped
by a collision), n_pin / first_pin (S-PIN events, tick).
Tick: with MOTOR, w -> (CREEP ? w_creep : w_fast) with tau; without, w falls at the brake rate.
While the pin is in (stroke > 0.1) the table is locked (w = 0). A pin entering (stroke passing
0.1) with the table more than pin_tol off a station or turning faster than 0.5 °/s is a
collision: the pin stops where it is and S-PIN is counted. A pin reaching full stroke within
pin_tol re-centres theta exactly on the station.
Inputs: INDEX_CAM (|theta - station| <= cam), PRE_CAM (angle to the next station in (cam,
w_pre]), HOME_CAM (station 1 = 0° ± cam), PIN_IN / PIN_OUT from the pin cylinder.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import cylinder
from plants.devices.protocol import DT, EPS, make_rows

PARAM_DTYPE = np.dtype(
    [
        ("n_stations", np.int32), ("w_fast", np.float64), ("w_creep", np.float64),
        ("tau", np.float64), ("brake", np.float64), ("w_pre", np.float64),
        ("cam", np.float64), ("pin_tol", np.float64), ("theta0", np.float64),
    ]
)

STATE_DTYPE = np.dtype(
    [
        ("theta", np.float64), ("w", np.float64), ("collided", np.uint8),
        ("n_pin", np.int64), ("first_pin", np.int64),
    ]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: 8 stations, 60/8 °/s, tau 0.2 s, brake 400 °/s², PRE window 12°."""
    base = dict(n_stations=8, w_fast=60.0, w_creep=8.0, tau=0.2, brake=400.0, w_pre=12.0,
                cam=0.8, pin_tol=1.0)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """At rest at theta0."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["theta"] = params["theta0"]
    st["first_pin"] = -1
    return st


@njit(cache=True)
def station_error(st, pa):
    """Signed angle from the nearest station to theta (°)."""
    pitch = 360.0 / pa.n_stations
    e = st.theta % pitch
    if e > pitch / 2.0:
        e -= pitch
    return e


@njit(cache=True)
def tick(st, pa, pin_st, pin_pa, motor, creep, pin, k):
    """Advance the table and its pin one step (MOTOR, CREEP, PIN latched outputs)."""
    if st.collided:
        pin_st.s_prev = pin_st.s  # a collided pin is stuck
    else:
        cylinder.tick(pin_st, pin_pa, pin, False, k)
        if pin_st.s_prev <= 0.1 + EPS < pin_st.s:
            if abs(station_error(st, pa)) > pa.pin_tol or st.w > 0.5:
                st.collided = 1
                pin_st.s = pin_st.s_prev
                st.n_pin += 1
                if st.first_pin < 0:
                    st.first_pin = k + 1
    if motor:
        target = pa.w_creep if creep else pa.w_fast
        st.w += (target - st.w) * DT / pa.tau
    else:
        st.w = max(0.0, st.w - pa.brake * DT)
    if pin_st.s > 0.1 + EPS and not st.collided:
        st.w = 0.0
    st.theta = (st.theta + st.w * DT) % 360.0
    if pin_st.s >= 0.98 - EPS and abs(station_error(st, pa)) <= pa.pin_tol:
        st.theta = (st.theta - station_error(st, pa)) % 360.0


@njit(cache=True)
def sense_index_cam(st, pa):
    """INDEX_CAM: within ±cam of a station."""
    return abs(station_error(st, pa)) <= pa.cam + EPS


@njit(cache=True)
def sense_pre_cam(st, pa):
    """PRE_CAM: the angle to the next station (running direction) is in (cam, w_pre]."""
    pitch = 360.0 / pa.n_stations
    to_next = pitch - (st.theta % pitch)
    return pa.cam < to_next <= pa.w_pre + EPS


@njit(cache=True)
def sense_home_cam(st, pa):
    """HOME_CAM: station 1 (0°) ± cam."""
    d = st.theta if st.theta <= 180.0 else st.theta - 360.0
    return abs(d) <= pa.cam + EPS


@njit(cache=True)
def station_index(st, pa):
    """1-based number of the station the table is at (nearest)."""
    pitch = 360.0 / pa.n_stations
    return int(round((st.theta - station_error(st, pa)) / pitch)) % pa.n_stations + 1
