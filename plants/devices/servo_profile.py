"""Per-tick motion profiles of the D07 servo drive (pure functions of x, v, limits).

Positions integrate with the trapezoidal rule x += (v_old + v_new)/2·dt (A18), so a ramp
at a covers exactly v²/(2a) and a positioning move never overshoots when it starts with a
stopping distance inside the remaining way. Every function returns the new velocity; the
caller integrates. No function changes |v| by more than a·dt in one tick.
"""

from __future__ import annotations

import math

from numba import njit

from plants.devices.protocol import DT, EPS


@njit(cache=True)
def ramp_to(v, v_target, a):
    """Velocity after one tick of ramping toward v_target at acceleration a."""
    dv = v_target - v
    step = a * DT
    if dv > step:
        return v + step
    if dv < -step:
        return v - step
    return v_target


@njit(cache=True)
def brake(v, a):
    """Velocity after one tick of braking at a toward standstill."""
    return ramp_to(v, 0.0, a)


@njit(cache=True)
def position_step(x, v, x_target, v_lim, a):
    """One tick of a trapezoidal positioning move; returns (v_new, arrived).

    Picks the highest speed (<= v_lim, within ±a·dt of v) from which the axis can still stop
    at x_target after this tick; ``arrived`` says the remaining way fits into a braking step
    to standstill, in which case the caller snaps x to the target with v = 0.
    """
    d = x_target - x
    s = 1.0 if d > 0.0 else -1.0
    u = v * s  # speed toward the target (negative: moving away)
    dist = abs(d)
    if u < 0.0:
        return brake(v, a), False
    if dist <= u * DT * 0.5 + EPS and u <= a * DT + EPS:
        return 0.0, True
    # largest u_new with (u + u_new)/2·dt + u_new²/(2a) <= dist
    disc = DT * DT * 0.25 + 2.0 * (dist - u * DT * 0.5) / a
    u_fit = a * (-DT * 0.5 + math.sqrt(disc)) if disc > 0.0 else 0.0
    u_new = min(u + a * DT, u_fit)
    if u > v_lim:
        u_new = min(u_new, max(u - a * DT, v_lim))
    else:
        u_new = min(u_new, v_lim)
    u_new = max(u_new, u - a * DT, 0.0)
    return u_new * s, False
