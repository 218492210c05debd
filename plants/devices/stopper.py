"""D21 stopper blade on a conveyor line (A9): a D11 cylinder that blocks while half raised.

The blade is a MONO cylinder row (t_ext = t_ret = blade time) plus an obstacle row of the
line at x_stop. ``tick`` moves the blade and sets the obstacle: it blocks while the stroke is
above 0.5. UP_S / DOWN_S are the cylinder's EXTENDED / RETRACTED switches; S-LIFT is judged
with ``safety.s_lift`` on the blade's stroke change.
"""

from __future__ import annotations

from numba import njit

from plants.devices import cylinder

BLOCKS_ABOVE = 0.5


@njit(cache=True)
def tick(obstacle, blade, blade_pa, stop_up, k):
    """Advance the blade one step and update whether it blocks (call before moving the line)."""
    cylinder.tick(blade, blade_pa, stop_up, False, k)
    obstacle.up = 1 if blade.s > BLOCKS_ABOVE else 0
