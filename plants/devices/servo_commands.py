"""D07 servo drive: command acceptance (Table A priority, rejections and their errors), CSP
level, power stage and RESET. Each function updates the drive state's command fields."""

from __future__ import annotations

from numba import njit

from plants.devices.protocol import DT, EPS
from plants.devices.servo_state import (
    C_CSP,
    C_GEAR,
    C_HALT,
    C_HOME,
    C_NONE,
    C_POS,
    C_QUICK,
    C_STOP,
    C_VEL,
    E_FAULT,
    E_HWLIM,
    E_NOTHOMED,
    E_NOTPOWERED,
    E_OBSTRUCTION,
    E_PARAM,
    E_SOFTLIM,
    H_LEAVE,
    H_SEARCH,
    HOME_DIRECT,
    HOME_FORWARD,
    act_pos_u,
    sense_lim_neg,
    sense_lim_pos,
    sense_ref_sw,
)


@njit(cache=True)
def _fail(st, error_id, stop_now):
    """Enter ErrorStop: brake at a_max (or stop at once for obstructions and HW limits)."""
    if st.busy and not st.done:
        st.aborted = 1
    st.error = 1
    st.error_id = error_id
    st.busy = 0
    st.done = 0
    st.in_vel = 0
    st.geared = 0
    st.csp_active = 0
    st.cmd = C_QUICK
    if stop_now:
        st.v = 0.0
        st.cmd = C_NONE


@njit(cache=True)
def _accept(st, cmd):
    """A command is accepted: previous DONE/ABORTED clear, the new one is active."""
    st.cmd = cmd
    st.busy = 1
    st.done = 0
    st.aborted = 0
    st.in_vel = 0
    st.geared = 0
    st.csp_active = 0


@njit(cache=True)
def _finish(st):
    """The active discrete command completed."""
    st.cmd = C_NONE
    st.busy = 0
    st.done = 1
    st.v = 0.0


@njit(cache=True)
def _clip_accel(pa, accel):
    """ACCEL word to u/s²: <= 0 uses a_def, clipped to a_max."""
    if accel <= 0:
        return pa.a_def
    return min(float(accel), pa.amax)


@njit(cache=True)
def _refused_by_limit(st, pa, direction):
    """After an ERROR 4 reset, motion toward the still-actuated limit is refused (A13)."""
    if direction < 0 and sense_lim_neg(st, pa):
        return True
    if direction > 0 and sense_lim_pos(st, pa):
        return True
    return False


@njit(cache=True)
def _start_position(st, pa, tgt, velocity, accel):
    """Start a positioning move to TRUE coordinate tgt (validated by the caller)."""
    if velocity <= 0:
        _fail(st, E_PARAM, False)
        return
    if _refused_by_limit(st, pa, 1 if tgt > st.x else -1):
        _fail(st, E_HWLIM, False)
        return
    _accept(st, C_POS)
    st.tgt = tgt
    st.vcmd = min(velocity / 10.0, pa.vmax)
    st.acmd = _clip_accel(pa, accel)


@njit(cache=True)
def _move_abs(st, pa, out):
    """MOVE_ABS: needs HOMED, TARGET inside the soft limits; modulo axes go positive (D07)."""
    if not st.homed:
        _fail(st, E_NOTHOMED, False)
        return
    tgt_prog = out.target / 100.0
    if pa.modulo > 0.0:
        d = (tgt_prog - act_pos_u(st, pa)) % pa.modulo
        a = _clip_accel(pa, out.accel)
        while st.v > 0.0 and d < st.v * st.v / (2.0 * a):
            d += pa.modulo
        _start_position(st, pa, st.x + d, out.velocity, out.accel)
        return
    if tgt_prog < pa.sl_lo - EPS or tgt_prog > pa.sl_hi + EPS:
        _fail(st, E_SOFTLIM, False)
        return
    _start_position(st, pa, tgt_prog - st.offset, out.velocity, out.accel)


@njit(cache=True)
def _move_rel(st, pa, out):
    """MOVE_REL: target = position at the edge + TARGET; allowed unhomed (no soft limits then)."""
    dist = out.target / 100.0
    if st.homed and pa.modulo == 0.0:
        tgt_prog = act_pos_u(st, pa) + dist
        if tgt_prog < pa.sl_lo - EPS or tgt_prog > pa.sl_hi + EPS:
            _fail(st, E_SOFTLIM, False)
            return
    _start_position(st, pa, st.x + dist, out.velocity, out.accel)


@njit(cache=True)
def _start_home(st, pa):
    """HOME edge: DIRECT sets the position at once; otherwise search and/or leave the cam."""
    _accept(st, C_HOME)
    st.acmd = min(pa.a_def, pa.amax, 1000.0)
    if pa.home_mode == HOME_DIRECT:
        st.offset = pa.home_pos - st.x
        st.homed = 1
        _finish(st)
    elif pa.home_mode == HOME_FORWARD:
        st.phase = H_SEARCH
        st.vcmd = pa.home_fast
    elif sense_ref_sw(st, pa):
        st.phase = H_LEAVE
    else:
        st.phase = H_SEARCH
        st.vcmd = pa.home_dir * pa.home_fast


@njit(cache=True)
def _stop_level(st, any_edge):
    """STOP held: brake at a_max, every other command is ignored and ABORTED is set."""
    if (st.busy and not st.done and st.cmd != C_STOP) or any_edge:
        st.aborted = 1
    if st.cmd != C_STOP:
        st.cmd = C_STOP
        st.busy = 1
        st.done = 0
        st.in_vel = 0
        st.geared = 0
        st.csp_active = 0


@njit(cache=True)
def _commands(st, pa, out):
    """Edges and levels of the output block -> the accepted command (Table A priority)."""
    e_home = out.home and not st.prev_home
    e_abs = out.move_abs and not st.prev_abs
    e_rel = out.move_rel and not st.prev_rel
    e_vel = out.move_vel and not st.prev_vel
    e_halt = out.halt and not st.prev_halt
    e_gear = out.gear_in and not st.prev_gear
    any_edge = e_home or e_abs or e_rel or e_vel or e_halt or e_gear
    if out.stop:
        _stop_level(st, any_edge)
        return
    if st.error or not any_edge:
        return
    if not st.powered:
        if not (e_halt and not (e_home or e_abs or e_rel or e_vel or e_gear)):
            _fail(st, E_NOTPOWERED, False)
        return
    if e_halt:
        interrupted = st.busy and not st.done
        _accept(st, C_HALT)
        st.aborted = 1 if interrupted else 0
        st.acmd = _clip_accel(pa, out.accel)
    elif e_home:
        _start_home(st, pa)
    elif e_abs:
        _move_abs(st, pa, out)
    elif e_rel:
        _move_rel(st, pa, out)
    elif e_vel:
        if out.velocity != 0 and _refused_by_limit(st, pa, 1 if out.velocity > 0 else -1):
            _fail(st, E_HWLIM, False)
        else:
            _accept(st, C_VEL)
    elif out.gear_den <= 0:
        _fail(st, E_PARAM, False)
    else:
        _accept(st, C_GEAR)
        st.gear_ratio = out.gear_num / out.gear_den
        st.acmd = _clip_accel(pa, out.accel)


@njit(cache=True)
def _csp_level(st, pa, out):
    """CSP_ON level: accepted when powered, homed and idle; falling CSP_ON brakes at a_max."""
    if st.cmd == C_CSP and not out.csp_on:
        st.cmd = C_QUICK
        st.csp_active = 0
        st.busy = 0
    elif out.csp_on and st.cmd != C_CSP and not out.stop and not st.error:
        if st.powered and st.homed and (st.cmd == C_NONE or (st.done and not st.busy)):
            _accept(st, C_CSP)
            st.csp_active = 1
            st.csp_step = st.v * DT


# ---------------------------------------------------------------- power, faults, reset


@njit(cache=True)
def _power(st, pa, out, k):
    """ENABLE level -> POWERED after the power-up delay; disable while moving = quick stop."""
    t = k + 1
    if t == pa.f8_from:
        if pa.f8_unhome:
            st.homed = 0
        _fail(st, E_FAULT, False)
        st.powered = 0
    if out.enable:
        st.power_cnt += 1
    else:
        st.power_cnt = 0
    f8 = st.error and st.error_id == E_FAULT
    if out.enable and not f8 and st.power_cnt >= pa.powerup and t >= st.repower_at:
        st.powered = 1
    if not out.enable and st.powered:
        if abs(st.v) > 0.0:
            if st.cmd != C_QUICK:
                if st.busy and not st.done:
                    st.aborted = 1
                st.cmd = C_QUICK
                st.busy = 0
        else:
            st.powered = 0
            st.cmd = C_NONE
            st.busy = 0


@njit(cache=True)
def _reset(st, pa, out, k):
    """RESET edge clears the error once its cause has ended."""
    if not (out.reset and not st.prev_reset) or not st.error:
        return
    t = k + 1
    if st.error_id == E_FAULT and t < pa.f8_to:
        return
    if st.error_id == E_OBSTRUCTION and pa.obs_from <= t < pa.obs_to:
        return
    if st.error_id == E_FAULT:
        st.repower_at = t + 10
    st.error = 0
    st.error_id = 0
