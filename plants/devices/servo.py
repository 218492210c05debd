"""D07 servo positioning drive behind the Table A axis block (PLCopen-like, I/O level).

Units: u = mm or degree. The state holds the TRUE position ``x`` (u, float); the program sees
ACT_POS = x + offset in 0.01 u, where ``offset`` is the unknown power-up offset until homing
sets it so that the reference edge reads HOME_POS. Soft limits are in program coordinates;
REF cam, hardware limit switches, mechanical stops and obstructions in true coordinates.

Parameters (``PARAM_DTYPE``): vmax, amax, a_def (u/s, u/s²); powerup (ticks); home_fast,
home_slow (u/s); home_dir (-1 searches negative, +1 "homes positive"); home_mode (HOME_CAM,
HOME_DIRECT, HOME_FORWARD); ref_lo, ref_hi (REF_SW TRUE for x in [ref_lo, ref_hi]);
home_pos (u); sl_lo, sl_hi (soft limits, u); lim_neg, lim_pos (switch actuated at x <= lim_neg
/ x >= lim_pos); stop_neg, stop_pos (mechanical end stops); offset0 (u, before homing);
homed0 (start homed, offset0 then is the homed offset); modulo (0 = linear, else the period,
e.g. 360); obs_x, obs_from, obs_to (obstruction at true x on ticks [from, to): the axis stops
there with ERROR 3, which clears once the obstruction is gone); f8_from, f8_to, f8_unhome
(ERROR 8 drive fault at f8_from, clearable from f8_to, losing HOMED if f8_unhome); x0.

State (``STATE_DTYPE``): x, v (u, u/s), x_prev (for tick-average speeds, A33), offset,
homed, powered, power_cnt (ticks ENABLE held), repower_at (tick after an error-8 reset),
cmd (active command, C_*), phase (homing phase, H_*), tgt, vcmd, acmd (active profile),
busy, done, aborted, error, error_id, in_vel, geared, csp_active, csp_step (last CSP step,
u), gear_ratio, gear_x0, gear_m0 (lock points), prev_* (previous output image bits for
edges). The axis keeps x unwrapped on modulo axes; ACT_POS and the cam wrap.
"""

from __future__ import annotations

from numba import njit

from plants.devices.servo_commands import _commands, _csp_level, _power, _reset
from plants.devices.servo_motion import _constrain, _motion
from plants.devices.servo_state import (  # the drive's public constants and API
    C_CSP,
    C_GEAR,
    C_HALT,
    C_HOME,
    C_LIMSTOP,
    C_NONE,
    C_POS,
    C_QUICK,
    C_STOP,
    C_VEL,
    E_CSPJUMP,
    E_FAULT,
    E_HWLIM,
    E_NOTHOMED,
    E_NOTPOWERED,
    E_OBSTRUCTION,
    E_PARAM,
    E_SOFTLIM,
    H_BRAKE,
    H_FINISH,
    H_LEAVE,
    H_SEARCH,
    HOME_CAM,
    HOME_DIRECT,
    HOME_FORWARD,
    OUTPUT_DTYPE,
    PARAM_DTYPE,
    STANDSTILL_U_S,
    STATE_DTYPE,
    act_pos_u,
    make_outputs,
    make_params,
    make_state,
    sense_act_pos,
    sense_act_vel,
    sense_lim_neg,
    sense_lim_pos,
    sense_ref_sw,
    sense_standstill,
)

__all__ = [
    "C_CSP",
    "C_GEAR",
    "C_HALT",
    "C_HOME",
    "C_LIMSTOP",
    "C_NONE",
    "C_POS",
    "C_QUICK",
    "C_STOP",
    "C_VEL",
    "E_CSPJUMP",
    "E_FAULT",
    "E_HWLIM",
    "E_NOTHOMED",
    "E_NOTPOWERED",
    "E_OBSTRUCTION",
    "E_PARAM",
    "E_SOFTLIM",
    "HOME_CAM",
    "HOME_DIRECT",
    "HOME_FORWARD",
    "H_BRAKE",
    "H_FINISH",
    "H_LEAVE",
    "H_SEARCH",
    "OUTPUT_DTYPE",
    "PARAM_DTYPE",
    "STANDSTILL_U_S",
    "STATE_DTYPE",
    "act_pos_u",
    "make_outputs",
    "make_params",
    "make_state",
    "sense_act_pos",
    "sense_act_vel",
    "sense_lim_neg",
    "sense_lim_pos",
    "sense_ref_sw",
    "sense_standstill",
    "tick",
]


@njit(cache=True)
def tick(st, pa, out, x_master, v_master, k):
    """Advance the drive one 10 ms step for its latched Table A output block ``out``.

    ``x_master``/``v_master`` are the true position and speed of the task's GEAR_IN master
    after its own tick (pass 0.0 when the task has none).
    """
    _reset(st, pa, out, k)
    _power(st, pa, out, k)
    _commands(st, pa, out)
    _csp_level(st, pa, out)
    x_old = st.x
    v_new, x_new = _motion(st, pa, out, x_master, v_master)
    x_new, v_new = _constrain(st, pa, x_old, x_new, v_new, k)
    st.x_prev = x_old
    st.x = x_new
    st.v = v_new
    st.prev_enable = out.enable
    st.prev_home = out.home
    st.prev_abs = out.move_abs
    st.prev_rel = out.move_rel
    st.prev_vel = out.move_vel
    st.prev_halt = out.halt
    st.prev_reset = out.reset
    st.prev_gear = out.gear_in
    st.prev_csp = out.csp_on
