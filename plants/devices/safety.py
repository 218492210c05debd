"""S-code predicates (00_conventions §3.3 with amendments A3, A4, A9, A24, A33), as njit functions.

Each predicate is evaluated once per tick on (S_{k+1}, output image, input image) and returns
TRUE while the rule is violated; the judge records the first tick a predicate is TRUE (G8).
The task parameterises them: which outputs are hazards, thresholds, zones. Rules that need
history keep it in a small tracker record (``*_DTYPE``) owned by the task's judge state;
rules about events a device detects itself (a pusher strike, a drop, an overflow) read the
device's event counters, which only ever grow, so the predicate stays TRUE once violated.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import servo
from plants.devices.items import LINE
from plants.devices.protocol import DT, EPS

# ---------------------------------------------------------------- panel and starters


@njit(cache=True)
def s_estop(estop_ok, hazard):
    """S-ESTOP (category 0): a hazard output is TRUE while ESTOP_OK reads FALSE."""
    return hazard and not estop_ok


@njit(cache=True)
def s_stoppb(stop_nc, hazard):
    """S-STOPPB: a hazard output is TRUE while STOP_NC reads FALSE."""
    return hazard and not stop_nc


@njit(cache=True)
def s_bothdir(cmd_a, cmd_b):
    """S-BOTHDIR / S-COILS: both direction commands (or both coils) TRUE in one output image."""
    return cmd_a and cmd_b


RESTART_DTYPE = np.dtype([("armed", np.uint8), ("prev_out", np.uint8)])
"""S-RESTART tracker: ``armed`` = the output was stopped by an event and no START edge since."""


@njit(cache=True)
def s_restart(tr, output, start_edge, stopping_event):
    """S-RESTART (A3): after a trip/fault/E-stop/STOP/mode change/power return stopped the
    output, it may rise again only after a START (or task-named request) edge."""
    if start_edge:
        tr.armed = 0
    if stopping_event:
        tr.armed = 1
    violated = output and not tr.prev_out and tr.armed
    tr.prev_out = 1 if output else 0
    return violated


DEADTIME_DTYPE = np.dtype([("off_a", np.int64), ("off_b", np.int64)])
"""S-DEADTIME tracker: ticks since each direction command was last TRUE."""


def make_deadtime(n_conditions: int) -> np.ndarray:
    """Both directions long off at t = 0."""
    tr = np.zeros(n_conditions, DEADTIME_DTYPE)
    tr["off_a"] = 1 << 40
    tr["off_b"] = 1 << 40
    return tr


@njit(cache=True)
def s_deadtime(tr, cmd_a, cmd_b, t_rev_ticks):
    """S-DEADTIME: one direction commanded earlier than T_rev after the other one fell
    (a 2-tick tolerance on this lower bound, A5)."""
    violated = (cmd_a and tr.off_b < t_rev_ticks - 2) or (cmd_b and tr.off_a < t_rev_ticks - 2)
    tr.off_a = 0 if cmd_a else tr.off_a + 1
    tr.off_b = 0 if cmd_b else tr.off_b + 1
    return violated


@njit(cache=True)
def s_plug(reverse_cmd, speed_toward_forward, threshold):
    """S-PLUG: the reverse direction is commanded while the measured speed exceeds a threshold."""
    return reverse_cmd and speed_toward_forward > threshold


STARDELTA_DTYPE = np.dtype([("star_off", np.int64), ("prev_delta", np.uint8)])
"""S-STARDELTA tracker: ticks since STAR was last TRUE, previous DELTA output."""


@njit(cache=True)
def s_stardelta(tr, star, delta):
    """S-STARDELTA: STAR and DELTA together, or DELTA rising < 50 ms after STAR fell."""
    rising = delta and not tr.prev_delta
    violated = (star and delta) or (rising and tr.star_off < 5)
    tr.star_off = 0 if star else tr.star_off + 1
    tr.prev_delta = 1 if delta else 0
    return violated


@njit(cache=True)
def s_inrush(delta_rising, n):
    """S-INRUSH: DELTA rises while the speed is below 0.85 p.u."""
    return delta_rising and n < 0.85


CYCLE_WINDOW = 64
CYCLE_DTYPE = np.dtype([("starts", np.int64, (CYCLE_WINDOW,)), ("n", np.int64)])
"""S-CYCLE tracker: ticks of the latest motor starts (a ring)."""


@njit(cache=True)
def s_cycle(tr, start_now, n_max, k):
    """S-CYCLE: more than n_max motor starts within any 60 s window (n_max < CYCLE_WINDOW)."""
    if start_now:
        tr.starts[tr.n % CYCLE_WINDOW] = k
        tr.n += 1
    if tr.n <= n_max:
        return False
    oldest = tr.starts[(tr.n - n_max - 1) % CYCLE_WINDOW]
    return k - oldest < 6000


# ---------------------------------------------------------------- axes


@njit(cache=True)
def s_hwlim_axis(st, pa):
    """S-HWLIM for a Table A axis: an over-travel switch actuated outside drive homing."""
    on = servo.sense_lim_neg(st, pa) or servo.sense_lim_pos(st, pa)
    return on and st.cmd != servo.C_HOME and pa.modulo == 0.0


@njit(cache=True)
def s_crash_axis(st, pa):
    """S-CRASH for a Table A axis: a mechanical end stop reached."""
    return pa.modulo == 0.0 and (st.x <= pa.stop_neg + EPS or st.x >= pa.stop_pos - EPS)


@njit(cache=True)
def s_switch_zone(x, lo_switch, hi_switch):
    """S-HWLIM for program-closed axes (D08/D09): x at or beyond an over-travel switch."""
    return x <= lo_switch or x >= hi_switch


@njit(cache=True)
def s_end_stop(x, stop_lo, stop_hi):
    """S-CRASH for program-closed axes: an end stop reached."""
    return x <= stop_lo + EPS or x >= stop_hi - EPS


@njit(cache=True)
def s_vmax(x_prev, x, v_limit):
    """S-VMAX: the tick-average speed (A33) exceeds the task's process speed limit."""
    return abs(x - x_prev) / DT > v_limit + EPS


# ---------------------------------------------------------------- items and tools


@njit(cache=True)
def s_drop(line_state):
    """S-DROP: an item's centre passed an open line end."""
    return line_state.n_drop > 0


@njit(cache=True)
def s_pileup(line_state):
    """S-PILEUP (A24): an item's centre crossed onto a surface at standstill."""
    return line_state.n_pileup > 0


@njit(cache=True)
def s_jam(pusher_state):
    """S-JAM: the plate struck an item off-centre when it came out."""
    return pusher_state.n_jam > 0


@njit(cache=True)
def s_strike(pusher_state):
    """S-STRIKE: an item entered the plate window while the plate was out."""
    return pusher_state.n_strike > 0


@njit(cache=True)
def s_overflow(chute_state):
    """S-OVERFLOW: an item delivered into a chute at capacity."""
    return chute_state.n_overflow > 0


@njit(cache=True)
def s_pressure(items, t_p_ticks):
    """S-PRESSURE: an item pressed (blocked while its surface moves) for longer than t_p."""
    for j in range(items.shape[0]):
        if items[j].place == LINE and items[j].press_ticks > t_p_ticks:
            return True
    return False


@njit(cache=True)
def s_touch(items, line, lo, hi):
    """S-TOUCH: two items on the zero-pressure section [lo, hi] of a line closer than 1 mm."""
    n = items.shape[0]
    for a in range(n):
        ia = items[a]
        if ia.place != LINE or ia.line != line or ia.rear + ia.length < lo or ia.rear > hi:
            continue
        for b in range(n):
            ib = items[b]
            if b != a and ib.place == LINE and ib.line == line and ib.rear >= ia.rear:
                if ib.rear - (ia.rear + ia.length) < 1.0 and ib.rear <= hi:
                    return True
    return False


@njit(cache=True)
def s_lift(items, line, x_edge, s_prev, s_now):
    """S-LIFT (A9): a blade/lift stroke increases while an item straddles x_edge by > 1 mm."""
    if s_now <= s_prev + EPS:
        return False
    for j in range(items.shape[0]):
        it = items[j]
        if it.place == LINE and it.line == line:
            if it.rear < x_edge - 1.0 and it.rear + it.length > x_edge + 1.0:
                return True
    return False


# ---------------------------------------------------------------- guards, liquids, weighing


@njit(cache=True)
def s_guard(door_closed, hazard_speed, threshold):
    """S-GUARD: a hazard motion (|speed| > threshold) while DOOR_CLOSED reads FALSE."""
    return (not door_closed) and abs(hazard_speed) > threshold


@njit(cache=True)
def s_unlock(lock, hazard_at_rest):
    """S-UNLOCK: LOCK = FALSE while the hazard is not at rest."""
    return (not lock) and not hazard_at_rest


LC_DTYPE = np.dtype([("blocked", np.int64)])
"""S-LC tracker: ticks since LC_CLEAR fell (-1 while clear)."""


@njit(cache=True)
def s_lc(tr, lc_clear, dangerous_cmd, dangerous_speed, t_lc_ticks):
    """S-LC: a motion command in the dangerous direction while the curtain is broken, or
    motion in that direction (> 1 u/s) longer than t_LC after it broke."""
    if lc_clear:
        tr.blocked = -1
        return False
    tr.blocked = 0 if tr.blocked < 0 else tr.blocked + 1
    return dangerous_cmd or (dangerous_speed > 1.0 and tr.blocked > t_lc_ticks)


@njit(cache=True)
def s_bypass(feed, discharge):
    """S-BYPASS: a feed and the discharge gate open together."""
    return feed and discharge


@njit(cache=True)
def s_dryrun(running, level, level_min):
    """S-DRYRUN: a pump or screw runs below its minimum level."""
    return running and level < level_min


@njit(cache=True)
def s_spill(valve_open, container_ok):
    """S-SPILL: a filling valve is open with no container correctly positioned."""
    return valve_open and not container_ok


@njit(cache=True)
def s_overflow_level(level, limit):
    """S-OVERFLOW for tanks, hoppers and bottles: content at or above its limit."""
    return level >= limit


# ---------------------------------------------------------------- cranes and lifts


@njit(cache=True)
def s_sway(theta_rad, theta_max_deg):
    """S-SWAY: the suspended load's sway exceeds θ_max."""
    return abs(theta_rad) * 180.0 / np.pi > theta_max_deg


@njit(cache=True)
def s_liftdoor(cabin_speed, all_doors_closed):
    """S-LIFTDOOR: the cabin moves faster than 5 mm/s with any door not closed."""
    return abs(cabin_speed) > 5.0 and not all_doors_closed


@njit(cache=True)
def s_doorlevel(door_opening, z, z_floor):
    """S-DOORLEVEL: a door opening while the cabin is more than 10 mm off the floor level."""
    return door_opening and abs(z - z_floor) > 10.0


@njit(cache=True)
def s_doorclose(door_state):
    """S-DOORCLOSE: DOOR_CLOSE commanded while the door beam was obstructed."""
    return door_state.n_close_obst > 0


# ---------------------------------------------------------------- motion and process rules


@njit(cache=True)
def s_reverse(reverse_cmd, speed_forward, threshold):
    """S-REVERSE: the opposite run command while still turning forward (> threshold), or a
    web/knife axis running backwards (call with reverse_cmd TRUE and speed_forward = −v)."""
    return reverse_cmd and speed_forward > threshold


@njit(cache=True)
def s_sync(tool_engaged, v_tool, v_material, tolerance):
    """S-SYNC: a tool engaged with moving material while the speed mismatch exceeds its tolerance
    (tick-average speeds, A33)."""
    return tool_engaged and abs(v_tool - v_material) > tolerance


@njit(cache=True)
def s_skew(x_a, x_b, limit):
    """S-SKEW: the position difference of coupled axes exceeds its limit."""
    return abs(x_a - x_b) > limit


@njit(cache=True)
def s_sep(x_a, x_b, min_gap):
    """S-SEP: two vehicles on one track closer than the minimum separation."""
    return abs(x_a - x_b) < min_gap


@njit(cache=True)
def s_force(force, limit):
    """S-FORCE: a measured force or torque beyond its absolute limit."""
    return abs(force) > limit


@njit(cache=True)
def s_follow(x_ref, x, bound):
    """S-FOLLOW: the position error of a program-closed loop exceeds its bound."""
    return abs(x_ref - x) > bound


PUDDLE_DTYPE = np.dtype([("slow_ticks", np.int64)])
"""S-PUDDLE tracker: ticks the valve has been ON with the speed below the threshold."""


@njit(cache=True)
def s_puddle(tr, valve_on, speed, threshold):
    """S-PUDDLE: a dispensing valve ON while the path speed is below the threshold for > 0.1 s."""
    if valve_on and abs(speed) < threshold:
        tr.slow_ticks += 1
    else:
        tr.slow_ticks = 0
    return tr.slow_ticks > 10


@njit(cache=True)
def s_brake(brake_closed, speed, sag):
    """S-BRAKE: a vertical axis moves (> 1 u/s) against the closed brake, or has dropped more
    than 1 mm unpowered with the brake released (``sag`` = drop since power was lost)."""
    return (brake_closed and abs(speed) > 1.0) or sag > 1.0


@njit(cache=True)
def s_dancer(p, p_max):
    """S-DANCER: slack (p < 10 mm) or web break (p > p_max − 10 mm)."""
    return p < 10.0 or p > p_max - 10.0


@njit(cache=True)
def s_pin(table_state, motor_on, pin_retracted):
    """S-PIN: a pin collision happened, or the table motor is ON with the pin not retracted."""
    return table_state.n_pin > 0 or (motor_on and not pin_retracted)


@njit(cache=True)
def s_toolmove(transport_speed, tool_safe, threshold):
    """S-TOOLMOVE: a transport moves (> threshold) while the named tool is not at its safe
    position."""
    return abs(transport_speed) > threshold and not tool_safe


@njit(cache=True)
def s_auto(motor_on, auto_sw):
    """S-AUTO (A1): a named motor output TRUE while AUTO_SW reads FALSE."""
    return motor_on and not auto_sw


LATCH_DTYPE = np.dtype([("latched", np.uint8)])
"""S-LATCH tracker: a STOP press has latched the named outputs off."""


@njit(cache=True)
def s_latch(tr, output, stop_pressed, release_event):
    """S-LATCH (A2): after a STOP press the named outputs stay FALSE until the release event."""
    if release_event:
        tr.latched = 0
    if stop_pressed:
        tr.latched = 1
    return output and tr.latched != 0


TWOHAND_DTYPE = np.dtype(
    [("since_a", np.int64), ("since_b", np.int64), ("released", np.uint8),
     ("prev_stroke", np.uint8), ("ok", np.uint8)]
)
"""S-TWOHAND tracker: ticks each button has been held, both-released flag, stroke state."""


def make_twohand(n_conditions: int) -> np.ndarray:
    """Both buttons released at t = 0."""
    tr = np.zeros(n_conditions, TWOHAND_DTYPE)
    tr["released"] = 1
    return tr


@njit(cache=True)
def s_twohand(tr, a, b, stroke):
    """S-TWOHAND: a stroke starts or continues without both buttons held, or started from
    presses more than 0.5 s apart, or without both released since the last stroke."""
    tr.since_a = tr.since_a + 1 if a else 0
    tr.since_b = tr.since_b + 1 if b else 0
    violated = False
    if stroke and not tr.prev_stroke:
        ok = a and b and abs(tr.since_a - tr.since_b) <= 50 and tr.released
        tr.ok = 1 if ok else 0
        tr.released = 0
        violated = not ok
    elif stroke:
        violated = not (a and b)
    if not a and not b:
        tr.released = 1
    tr.prev_stroke = 1 if stroke else 0
    return violated


STOPAXIS_DTYPE = np.dtype([("since_stop", np.int64), ("blocked", np.uint8)])
"""S-STOPAXIS tracker: ticks since the last STOP press (-1 none), MOVE edges blocked."""


@njit(cache=True)
def s_stopaxis(tr, stop_pressed, start_edge, move_edge, speed, stop_ticks):
    """S-STOPAXIS (A21): an axis moves (> 1 u/s) later than the stop time after a STOP press,
    or receives a MOVE edge before the next START edge."""
    if start_edge:
        tr.blocked = 0
        tr.since_stop = -1
    if stop_pressed:
        tr.blocked = 1
        tr.since_stop = 0
    elif tr.since_stop >= 0:
        tr.since_stop += 1
    late = tr.since_stop > stop_ticks and abs(speed) > 1.0
    return late or (move_edge and tr.blocked != 0)


@njit(cache=True)
def s_forkmove(fork_centred, x_speed, z_offset_from_window):
    """S-FORKMOVE: X motion, or Z beyond the ±30 mm lift window, with the fork not centred."""
    return (not fork_centred) and (abs(x_speed) > 1.0 or abs(z_offset_from_window) > 30.0)


@njit(cache=True)
def boxes_intersect(ax0, ax1, ay0, ay1, az0, az1, bx0, bx1, by0, by1, bz0, bz1):
    """S-COLLIDE / S-CRUSH geometry: two axis-aligned boxes overlap (open intervals)."""
    return (ax0 < bx1 and bx0 < ax1) and (ay0 < by1 and by0 < ay1) and (az0 < bz1 and bz0 < az1)


@njit(cache=True)
def s_collapse(drop_height):
    """S-COLLAPSE: a palletiser layer dropped from more than 20 mm."""
    return drop_height > 20.0


# ---------------------------------------------------------------- transfer units, pallet station


@njit(cache=True)
def s_shear(turntable_state):
    """S-SHEAR (D23): the turntable turned while an item straddled the table edge."""
    return turntable_state.n_shear > 0


@njit(cache=True)
def s_drop_counted(device_state):
    """S-DROP of a device that counts its own drops (turntable discharge with no receiver,
    dispenser forks opened with the table not up, pallet box released unsupported)."""
    return device_state.n_drop > 0


@njit(cache=True)
def s_collapse_counted(place_state):
    """S-COLLAPSE (D27): a box or layer released more than 20 mm above its resting height."""
    return place_state.n_collapse > 0


@njit(cache=True)
def s_crush_counted(place_state):
    """S-CRUSH (D27): a box was placed into a box of its own layer or above."""
    return place_state.n_crush > 0


@njit(cache=True)
def s_lift_zone(items, line, x0, x1, s_prev, s_now):
    """S-LIFT (D23): a transfer lift rises while an item straddles either zone edge."""
    return s_lift(items, line, x0, s_prev, s_now) or s_lift(items, line, x1, s_prev, s_now)
