"""D07 servo drive: per-tick motion of the active command (homing phases, positioning,
velocity, gearing, CSP, stops) and the constraints applied after it (obstruction, end stops,
hardware limits)."""

from __future__ import annotations

from numba import njit

from plants.devices.protocol import DT, EPS
from plants.devices.servo_commands import _clip_accel, _fail, _finish
from plants.devices.servo_profile import brake, position_step, ramp_to
from plants.devices.servo_state import (
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
    E_HWLIM,
    E_OBSTRUCTION,
    E_SOFTLIM,
    H_BRAKE,
    H_FINISH,
    H_LEAVE,
    H_SEARCH,
    HOME_FORWARD,
    _cam_x,
)


@njit(cache=True)
def _home_motion(st, pa, x, v):
    """One tick of drive-internal homing; returns (v_new, x_new)."""
    a = st.acmd
    if st.phase == H_SEARCH:
        v_new = ramp_to(v, st.vcmd, a)
        x_new = x + 0.5 * (v + v_new) * DT
        if pa.home_mode == HOME_FORWARD:
            if _cam_x(pa, x) < pa.ref_lo <= _cam_x(pa, x_new):
                st.offset = pa.home_pos - (x + (pa.ref_lo - _cam_x(pa, x)))
                st.homed = 1
                st.phase = H_FINISH
        elif pa.ref_lo <= _cam_x(pa, x_new) <= pa.ref_hi:
            st.phase = H_BRAKE
        elif (st.vcmd < 0.0 and x_new <= pa.lim_neg) or (st.vcmd > 0.0 and x_new >= pa.lim_pos):
            st.vcmd = -st.vcmd  # reverse the search at the over-travel switch
        return v_new, x_new
    if st.phase == H_LEAVE:
        v_new = ramp_to(v, -pa.home_dir * pa.home_slow, a)
        x_new = x + 0.5 * (v + v_new) * DT
        edge = pa.ref_hi if pa.home_dir < 0.0 else pa.ref_lo
        if (x <= edge < x_new) if pa.home_dir < 0.0 else (x >= edge > x_new):
            st.offset = pa.home_pos - edge
            st.homed = 1
            st.phase = H_FINISH
        return v_new, x_new
    v_new = brake(v, a)
    x_new = x + 0.5 * (v + v_new) * DT
    if v_new == 0.0:
        if st.phase == H_BRAKE:
            st.phase = H_LEAVE
        else:
            _finish(st)
    return v_new, x_new


@njit(cache=True)
def _near_soft_limit(st, pa, v):
    """MOVE_VEL when homed: start braking at a_max in time to stop exactly at the soft limit."""
    if not st.homed or pa.modulo > 0.0 or v == 0.0:
        return False
    pos = st.x + st.offset
    room = (pa.sl_hi - pos) if v > 0.0 else (pos - pa.sl_lo)
    return room <= v * v / (2.0 * pa.amax) + abs(v) * DT + pa.amax * DT * DT


@njit(cache=True)
def _motion(st, pa, out, x_master, v_master):
    """New (v, x) for the active command, before stops, obstructions and limits."""
    x = st.x
    v = st.v
    cmd = st.cmd
    if cmd == C_HOME:
        return _home_motion(st, pa, x, v)
    if cmd == C_POS or cmd == C_LIMSTOP:
        v_new, arrived = position_step(x, v, st.tgt, st.vcmd, st.acmd)
        if arrived:
            if cmd == C_LIMSTOP:
                _fail(st, E_SOFTLIM, True)
            else:
                _finish(st)
            return 0.0, st.tgt
        return v_new, x + 0.5 * (v + v_new) * DT
    if cmd == C_VEL:
        if out.move_vel:
            st.vcmd = max(-pa.vmax, min(pa.vmax, out.velocity / 10.0))
            st.acmd = _clip_accel(pa, out.accel)
        v_new = ramp_to(v, st.vcmd, st.acmd)
        st.in_vel = 1 if abs(v_new - st.vcmd) <= max(0.005 * abs(st.vcmd), 0.5) else 0
        if _near_soft_limit(st, pa, v_new):
            st.cmd = C_LIMSTOP
            st.in_vel = 0
            st.tgt = (pa.sl_hi if v_new > 0.0 else pa.sl_lo) - st.offset
            st.vcmd = abs(v)
            st.acmd = pa.amax
            return _motion(st, pa, out, x_master, v_master)
        return v_new, x + 0.5 * (v + v_new) * DT
    if cmd == C_GEAR:
        v_sync = st.gear_ratio * v_master
        if st.geared:
            x_new = st.gear_x0 + st.gear_ratio * (x_master - st.gear_m0)
            if abs(v_sync) > pa.vmax + EPS:
                _fail(st, E_OBSTRUCTION, False)
            return v_sync, x_new
        v_new = ramp_to(v, v_sync, st.acmd)
        x_new = x + 0.5 * (v + v_new) * DT
        if abs(v_new - v_sync) <= max(0.005 * abs(v_sync), EPS):
            st.geared = 1
            st.in_vel = 1
            st.gear_x0 = x_new
            st.gear_m0 = x_master
        return v_new, x_new
    if cmd == C_CSP:
        tgt_prog = out.target / 100.0
        x_new = tgt_prog - st.offset
        step = x_new - x
        if tgt_prog < pa.sl_lo - EPS or tgt_prog > pa.sl_hi + EPS:
            _fail(st, E_SOFTLIM, False)
        elif abs(step) > 1.05 * pa.vmax * DT + EPS or abs(step - st.csp_step) > 2.0 * pa.amax * DT * DT + EPS:
            _fail(st, E_CSPJUMP, False)
        else:
            st.csp_step = step
            return step / DT, x_new
        v_new = brake(v, pa.amax)
        return v_new, x + 0.5 * (v + v_new) * DT
    # HALT decelerates at its ACCEL, every other stop at a_max
    a = st.acmd if cmd == C_HALT else pa.amax
    v_new = brake(v, a)
    if v_new == 0.0:
        if cmd == C_HALT or (cmd == C_STOP and not st.done):
            st.done = 1
            if cmd == C_HALT:
                _finish(st)
        if cmd == C_QUICK:
            st.cmd = C_NONE
            st.busy = 0
        if cmd == C_STOP and not out.stop:
            st.cmd = C_NONE
            st.busy = 0
    return v_new, x + 0.5 * (v + v_new) * DT


@njit(cache=True)
def _constrain(st, pa, x_old, x_new, v_new, k):
    """Obstruction (ERROR 3), mechanical end stops and hardware limits (ERROR 4)."""
    t = k + 1
    if pa.obs_from <= t < pa.obs_to:
        if (x_old < pa.obs_x <= x_new) or (x_old > pa.obs_x >= x_new):
            x_new = pa.obs_x
            v_new = 0.0
            _fail(st, E_OBSTRUCTION, True)
    if pa.modulo == 0.0:
        if x_new <= pa.stop_neg:
            x_new = pa.stop_neg
            v_new = 0.0
        elif x_new >= pa.stop_pos:
            x_new = pa.stop_pos
            v_new = 0.0
        if st.cmd != C_HOME:
            into_neg = x_new <= pa.lim_neg and (x_old > pa.lim_neg or v_new < 0.0)
            into_pos = x_new >= pa.lim_pos and (x_old < pa.lim_pos or v_new > 0.0)
            if (into_neg or into_pos) and not (st.error and st.error_id == E_HWLIM):
                v_new = 0.0
                _fail(st, E_HWLIM, True)
            elif into_neg or into_pos:
                v_new = 0.0
    return x_new, v_new
