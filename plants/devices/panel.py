"""D01 operator panel: push-buttons, NC stop, latching E-stop and maintained switches.

The panel has no state of its own: its readings are the script (``scripts.py``) evaluated at
the tick. The task numbers the channels. Conventions:
  * NO button: TRUE on ``[t_press, t_press + d)`` (bouncing presses alternate for 3 ticks);
  * NC button (``*_NC``): FALSE on that interval;
  * ESTOP_OK (latching mushroom): FALSE on ``[t_e, t_r)``, a single event from press to release;
  * maintained switch (AUTO_SW, A1): TRUE from t = 0; a scripted event is a period switched OFF.
Lamps and horn are program outputs read by the judge directly; no model is needed.
"""

from __future__ import annotations

from numba import njit

from plants.devices.scripts import active


@njit(cache=True)
def sense_no(events, channel, k):
    """Normally-open push-button: TRUE while pressed."""
    return active(events, channel, k)


@njit(cache=True)
def sense_nc(events, channel, k):
    """Normally-closed contact (STOP_NC, ESTOP_OK, *_OK): FALSE while pressed or tripped."""
    return not active(events, channel, k)


@njit(cache=True)
def sense_switch(events, channel, k):
    """Maintained switch, ON from t = 0 except over its scripted OFF periods (A1)."""
    return not active(events, channel, k)
