"""D07 servo drive: constants, parameter/state/output dtypes and the Table A input signals.

See ``servo.py`` for the drive's rules; this module holds what the program and the judge read.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.protocol import NEVER, make_rows

HOME_CAM = 0
HOME_DIRECT = 1
HOME_FORWARD = 2

# active command
C_NONE = 0
C_HOME = 1
C_POS = 2  # MOVE_ABS / MOVE_REL
C_VEL = 3
C_HALT = 4
C_STOP = 5  # STOP level, error stop, disable, CSP exit: brake at a_max
C_GEAR = 6
C_CSP = 7
C_LIMSTOP = 8  # MOVE_VEL braking onto a soft limit (then ERROR 1)
C_QUICK = 9  # error stop, disable while moving, CSP exit: brake at a_max, no DONE

# homing phases
H_SEARCH = 0
H_BRAKE = 1
H_LEAVE = 2
H_FINISH = 3

E_SOFTLIM = 1
E_NOTHOMED = 2
E_OBSTRUCTION = 3
E_HWLIM = 4
E_NOTPOWERED = 5
E_PARAM = 6
E_CSPJUMP = 7
E_FAULT = 8

STANDSTILL_U_S = 0.5

PARAM_DTYPE = np.dtype(
    [
        ("vmax", np.float64), ("amax", np.float64), ("a_def", np.float64),
        ("powerup", np.int64),
        ("home_fast", np.float64), ("home_slow", np.float64), ("home_dir", np.float64),
        ("home_mode", np.int32),
        ("ref_lo", np.float64), ("ref_hi", np.float64), ("home_pos", np.float64),
        ("sl_lo", np.float64), ("sl_hi", np.float64),
        ("lim_neg", np.float64), ("lim_pos", np.float64),
        ("stop_neg", np.float64), ("stop_pos", np.float64),
        ("offset0", np.float64), ("homed0", np.uint8), ("modulo", np.float64),
        ("obs_x", np.float64), ("obs_from", np.int64), ("obs_to", np.int64),
        ("f8_from", np.int64), ("f8_to", np.int64), ("f8_unhome", np.uint8),
        ("x0", np.float64),
    ]
)

STATE_DTYPE = np.dtype(
    [
        ("x", np.float64), ("v", np.float64), ("x_prev", np.float64), ("offset", np.float64),
        ("homed", np.uint8), ("powered", np.uint8), ("power_cnt", np.int64),
        ("repower_at", np.int64),
        ("cmd", np.int32), ("phase", np.int32),
        ("tgt", np.float64), ("vcmd", np.float64), ("acmd", np.float64),
        ("busy", np.uint8), ("done", np.uint8), ("aborted", np.uint8),
        ("error", np.uint8), ("error_id", np.int32),
        ("in_vel", np.uint8), ("geared", np.uint8), ("csp_active", np.uint8),
        ("csp_step", np.float64),
        ("gear_ratio", np.float64), ("gear_x0", np.float64), ("gear_m0", np.float64),
        ("prev_enable", np.uint8), ("prev_home", np.uint8), ("prev_abs", np.uint8),
        ("prev_rel", np.uint8), ("prev_vel", np.uint8), ("prev_halt", np.uint8),
        ("prev_reset", np.uint8), ("prev_gear", np.uint8), ("prev_csp", np.uint8),
    ]
)

OUTPUT_DTYPE = np.dtype(
    [
        ("enable", np.uint8), ("home", np.uint8), ("move_abs", np.uint8),
        ("move_rel", np.uint8), ("move_vel", np.uint8), ("halt", np.uint8),
        ("stop", np.uint8), ("reset", np.uint8), ("gear_in", np.uint8), ("csp_on", np.uint8),
        ("target", np.int32), ("velocity", np.int16), ("accel", np.int16),
        ("gear_num", np.int16), ("gear_den", np.int16),
    ]
)
"""The Table A output block of one axis as latched from the program's %Q image."""


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults of 00_conventions §3.1 D07: vmax 1000, amax 5000, a_def 1000, power-up 100 ms,
    homing 50/5 u/s searching negative, switches 5 mm and stops 15 mm outside the soft limits."""
    base = dict(vmax=1000.0, amax=5000.0, a_def=1000.0, powerup=10, home_fast=50.0,
                home_slow=5.0, home_dir=-1.0, home_mode=HOME_CAM, ref_lo=-10.0, ref_hi=10.0,
                home_pos=10.0, sl_lo=0.0, sl_hi=1000.0, obs_from=NEVER, obs_to=NEVER,
                f8_from=NEVER, f8_to=NEVER)
    base.update(values)
    sl_lo = np.asarray(base["sl_lo"])
    sl_hi = np.asarray(base["sl_hi"])
    base.setdefault("lim_neg", sl_lo - 5.0)
    base.setdefault("lim_pos", sl_hi + 5.0)
    base.setdefault("stop_neg", sl_lo - 15.0)
    base.setdefault("stop_pos", sl_hi + 15.0)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """Drive disabled at x0, unhomed unless ``homed0``."""
    st = np.zeros(params.shape, STATE_DTYPE)
    st["x"] = params["x0"]
    st["x_prev"] = params["x0"]
    st["offset"] = params["offset0"]
    st["homed"] = params["homed0"]
    st["repower_at"] = -1
    return st


def make_outputs(n_conditions: int, n_units: int = 1) -> np.ndarray:
    """A zeroed Table A output block per axis (the kernel fills it from the %Q image)."""
    return np.zeros((n_conditions, n_units), OUTPUT_DTYPE)


# ---------------------------------------------------------------- sensing (Table A inputs)


@njit(cache=True)
def act_pos_u(st, pa):
    """ACT_POS in u (program coordinates, wrapped on modulo axes)."""
    p = st.x + st.offset
    if pa.modulo > 0.0:
        p = p % pa.modulo
    return p


@njit(cache=True)
def sense_act_pos(st, pa):
    """ACT_POS, DINT 0.01 u."""
    return np.int32(round(act_pos_u(st, pa) * 100.0))


@njit(cache=True)
def sense_act_vel(st):
    """ACT_VEL, INT 0.1 u/s (saturated)."""
    return np.int16(max(-32768.0, min(32767.0, round(st.v * 10.0))))


@njit(cache=True)
def _cam_x(pa, x):
    """Position on the cam's scale (wrapped on modulo axes)."""
    if pa.modulo > 0.0:
        return x % pa.modulo
    return x


@njit(cache=True)
def sense_ref_sw(st, pa):
    """Reference cam."""
    return pa.ref_lo <= _cam_x(pa, st.x) <= pa.ref_hi


@njit(cache=True)
def sense_lim_neg(st, pa):
    """Negative hardware over-travel switch."""
    return st.x <= pa.lim_neg


@njit(cache=True)
def sense_lim_pos(st, pa):
    """Positive hardware over-travel switch."""
    return st.x >= pa.lim_pos


@njit(cache=True)
def sense_standstill(st):
    """|v| < 0.5 u/s."""
    return abs(st.v) < STANDSTILL_U_S
