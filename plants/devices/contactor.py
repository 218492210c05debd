"""Contactor timing shared by the starters (D03-D05): pick-up and drop-out as tick counters."""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def follow(closed, command, on_cnt, off_cnt, pickup, dropout):
    """One tick of a contactor following its coil: returns (closed, on_cnt, off_cnt).

    It closes once the coil has been TRUE for ``pickup`` ticks and opens once it has been
    FALSE for ``dropout`` ticks (0 = in the same step).
    """
    if command:
        on_cnt += 1
        off_cnt = 0
        if on_cnt >= pickup:
            closed = True
    else:
        off_cnt += 1
        on_cnt = 0
        if off_cnt >= dropout:
            closed = False
    return closed, on_cnt, off_cnt
