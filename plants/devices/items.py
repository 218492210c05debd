"""D16 workpieces: one record per item, shaped ``(n_conditions, max_items)``.

Positions are along the item's line (mm, the flow direction positive); the footprint is
``[rear, rear + length]`` and the item moves with the surface under its centre (G11).
Attributes (set before the run, seen by the program only through sensors):
  length, width, height (mm), colour (``COLOURS``), metal, weight (g), code (barcode, 0 =
  unreadable), seq (sequence number), t_place (tick an emitter places it; TIME mode),
  pitch (mm the previous item must have travelled before this one is placed; PITCH mode)
State:
  place   WAITING (not yet on the plant), LINE (on a conveyor line), HELD (captured by a tool),
          DONE (its fate is recorded)
  line    line index while on a line
  rear, rear_prev   position now and before the last tick (mm)
  travel  signed distance travelled on lines since placement (mm)
  fate, dest, t_fate  DELIVERED to destination ``dest`` / DROPPED / REMOVED, and the tick
  damaged, pressed, press_ticks   quality flag; blocked while its surface moves (and for how long)
  defect, vision_lost   quality verdict a vision station reports / its result is lost
  fill    liquid filled into the item (bottles, ml)
  cap     CAP_NONE, CAP_ON (placed), CAP_TORQUED, CAP_STRIPPED (bottles, D26)
  tool, tool_in, tool_on, tool_lane   bookkeeping of the in-line tool (air jet, pop-up divert,
          swing arm) whose window the item is passing: tool id (-1 none), ticks in the
          window, ticks the tool was on meanwhile, lane decided by a swing arm (-1 none)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from plants.devices.protocol import EPS

WAITING = 0
LINE = 1
HELD = 2
DONE = 3

FATE_NONE = 0
DELIVERED = 1
DROPPED = 2
REMOVED = 3

CAP_NONE = 0
CAP_ON = 1
CAP_TORQUED = 2
CAP_STRIPPED = 3

COLOURS = ("RED", "BLUE", "GREEN", "BLACK", "SILVER", "WHITE")
RED, BLUE, GREEN, BLACK, SILVER, WHITE = range(6)

ITEM_DTYPE = np.dtype(
    [
        ("length", np.float64),
        ("width", np.float64),
        ("height", np.float64),
        ("colour", np.int32),
        ("metal", np.uint8),
        ("weight", np.float64),
        ("code", np.int32),
        ("seq", np.int32),
        ("t_place", np.int64),
        ("pitch", np.float64),
        ("place", np.int32),
        ("line", np.int32),
        ("rear", np.float64),
        ("rear_prev", np.float64),
        ("travel", np.float64),
        ("fate", np.int32),
        ("dest", np.int32),
        ("t_fate", np.int64),
        ("damaged", np.uint8),
        ("pressed", np.uint8),
        ("press_ticks", np.int64),
        ("defect", np.uint8),
        ("vision_lost", np.uint8),
        ("fill", np.float64),
        ("cap", np.int32),
        ("tool", np.int32),
        ("tool_in", np.int32),
        ("tool_on", np.int32),
        ("tool_lane", np.int32),
    ]
)


def make_items(per_condition: Sequence[Sequence[dict]]) -> np.ndarray:
    """Item records ``(n_conditions, max_items)`` from per-condition lists of attribute dicts.

    Rows beyond a condition's list stay DONE with no fate, so they are never placed.
    """
    width = max((len(lst) for lst in per_condition), default=0)
    items = np.zeros((len(per_condition), max(width, 1)), ITEM_DTYPE)
    items["place"] = DONE
    items["dest"] = -1
    items["tool"] = -1
    items["tool_lane"] = -1
    for c, lst in enumerate(per_condition):
        for j, attrs in enumerate(lst):
            row = items[c, j]
            row["place"] = WAITING
            row["seq"] = j + 1
            for name, val in attrs.items():
                if name not in ITEM_DTYPE.names:
                    raise KeyError(f"{name!r} is not an item attribute")
                row[name] = val
    return items


@njit(cache=True)
def front(it):
    """Downstream end of the footprint (mm)."""
    return it.rear + it.length


@njit(cache=True)
def centre(it):
    """Centre of the footprint: the point that rides on the surface (G11)."""
    return it.rear + 0.5 * it.length


@njit(cache=True)
def covers(it, x):
    """TRUE if the footprint covers position x (rear <= x <= front, D19)."""
    return it.rear <= x + EPS and x <= it.rear + it.length + EPS


@njit(cache=True)
def record_fate(it, fate, dest, k):
    """Close an item's life with one fate (G7: exactly one recorded fate per item)."""
    it.place = DONE
    it.fate = fate
    it.dest = dest
    it.t_fate = k
    it.pressed = 0
    it.press_ticks = 0


@njit(cache=True)
def line_is_free(items, line, lo, hi, skip):
    """TRUE if no item on ``line`` other than row ``skip`` has a footprint inside (lo, hi)."""
    for j in range(items.shape[0]):
        it = items[j]
        if j != skip and it.place == LINE and it.line == line:
            if it.rear < hi - EPS and it.rear + it.length > lo + EPS:
                return False
    return True


@njit(cache=True)
def remove_covering(items, line, x, k):
    """Operator removal (G5): the item whose footprint covers x on ``line`` gets fate REMOVED.

    Returns the item row, -1 if none covers x.
    """
    for j in range(items.shape[0]):
        it = items[j]
        if it.place == LINE and it.line == line and covers(it, x):
            record_fate(it, REMOVED, -1, k)
            return j
    return -1
