"""Operator and disturbance scripts (G5, D01): timed events as data, fixed before the run.

A script is a record array shaped ``(n_conditions, max_events)`` of ``EVENT_DTYPE``; unused
rows have ``channel = -1``. An event holds a channel (a button, a switch, a fault input, the
chute-emptying of a bin ... numbered by the task) high on the tick interval ``[start, end)``,
optionally with a value (analog operator entries) and a bounce flag (the reading alternates
TRUE/FALSE on the first 3 ticks, D01). Scripts tied to plant or program events (A39) are
resolved by the task's ``advance`` writing rows at run time with ``arm_event``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from plants.devices.protocol import ticks

EVENT_DTYPE = np.dtype(
    [
        ("channel", np.int32),  # task-defined signal number, -1 = unused row
        ("start", np.int64),  # first tick on which the event is active
        ("end", np.int64),  # first tick on which it is no longer active
        ("value", np.float64),  # value carried by the event (analog entries), else 1
        ("bounce", np.uint8),  # 1: reading alternates on the first 3 ticks (contact bounce)
    ]
)

PRESS_S = 0.3
"""Default length of a push-button press (G5)."""


def event(channel: int, t_start: float, t_end: float, value: float = 1.0, bounce: bool = False):
    """One event as a tuple of EVENT_DTYPE fields; times in seconds."""
    if t_end < t_start:
        raise ValueError(f"event on channel {channel} ends ({t_end}) before it starts ({t_start})")
    return (channel, ticks(t_start), ticks(t_end), value, int(bounce))


def press(channel: int, t: float, duration: float = PRESS_S, bounce: bool = False):
    """A push-button press of ``duration`` seconds starting at ``t``."""
    return event(channel, t, t + duration, 1.0, bounce)


def build_scripts(per_condition: Sequence[Sequence[tuple]], spare_rows: int = 4) -> np.ndarray:
    """Pack per-condition event lists into one ``(n_conditions, max_events)`` array.

    ``spare_rows`` free rows per condition are left for events armed at run time (A39).
    """
    width = max((len(evs) for evs in per_condition), default=0) + spare_rows
    script = np.zeros((len(per_condition), max(width, 1)), EVENT_DTYPE)
    script["channel"] = -1
    for c, evs in enumerate(per_condition):
        for j, ev in enumerate(sorted(evs, key=lambda e: (e[1], e[0]))):
            script[c, j] = ev
    return script


@njit(cache=True)
def active(events, channel, k):
    """Reading of a channel at tick ``k``: TRUE while one of its events is active (bounce aware)."""
    on = False
    for j in range(events.shape[0]):
        ev = events[j]
        if ev.channel == channel and ev.start <= k < ev.end:
            if ev.bounce and k - ev.start < 3:
                on = on | ((k - ev.start) % 2 == 0)
            else:
                on = True
    return on


@njit(cache=True)
def value(events, channel, k, default):
    """Value of the latest-started active event of a channel at tick ``k``, else ``default``."""
    out = default
    best = np.int64(-1)
    for j in range(events.shape[0]):
        ev = events[j]
        if ev.channel == channel and ev.start <= k < ev.end and ev.start >= best:
            best = ev.start
            out = ev.value
    return out


@njit(cache=True)
def starts(events, channel, k):
    """TRUE on the tick at which an event of the channel starts (one-shot actions: emptying)."""
    hit = False
    for j in range(events.shape[0]):
        ev = events[j]
        if ev.channel == channel and ev.start == k:
            hit = True
    return hit


@njit(cache=True)
def arm_event(events, channel, start, end, val):
    """Write an event into the first free row (state-triggered scripts); FALSE if none is free."""
    for j in range(events.shape[0]):
        if events[j].channel < 0:
            events[j].channel = channel
            events[j].start = start
            events[j].end = end
            events[j].value = val
            events[j].bounce = 0
            return True
    return False
