"""D12 jaw gripper and vacuum cup. The task supplies the geometry each tick (is the tool on a
part?) and moves a held part with the tool; these models give timing and the I/O.

Jaw gripper params: t_jaw (s, open <-> closed), contact (jaw stroke at which it meets a
part, 0..1), slip_first (1: the first grip attempt fails, the jaws close empty).
Jaw state: j (jaw stroke, 0 open .. 1 closed), held, attempts (closing strokes from open),
slipping (this stroke is the failing first attempt), picked_at / released_at (ticks of the
last pick / release, -1 none).
  CLOSE moves the jaws in t_jaw; closing with a part present stops them at ``contact`` and
  holds it (GRIPPED); without a part they close fully (CLOSED_EMPTY); opening releases the
  part as soon as the jaws leave contact. OPENED = j <= 0.02.
Vacuum params: build (ticks VAC must be on with the cup on a part), release, release_blow
(ticks until a held part drops off after VAC falls, without / with BLOW), porous_attempts
(number of first attempts that never build vacuum), leak_at (tick the held part is lost).
Vacuum state: on_cnt, off_cnt, held, attempts, picked_at, released_at, lost_at.
  VAC_OK = held. A part is picked after ``build`` ticks of VAC with the cup on it (an attempt
  that is porous never picks); it is released ``release`` (or ``release_blow``) ticks after
  VAC falls; a leak drops it (logged as an injected event).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.protocol import DT, EPS, NEVER, make_rows

JAW_DTYPE = np.dtype([("t_jaw", np.float64), ("contact", np.float64), ("slip_first", np.uint8)])

JAW_STATE_DTYPE = np.dtype(
    [("j", np.float64), ("held", np.uint8), ("attempts", np.int32), ("slipping", np.uint8),
     ("picked_at", np.int64),
     ("released_at", np.int64)]
)

VAC_DTYPE = np.dtype(
    [("build", np.int64), ("release", np.int64), ("release_blow", np.int64),
     ("porous_attempts", np.int32), ("leak_at", np.int64)]
)

VAC_STATE_DTYPE = np.dtype(
    [("on_cnt", np.int64), ("off_cnt", np.int64), ("held", np.uint8), ("attempts", np.int32),
     ("prev_vac", np.uint8), ("picked_at", np.int64), ("released_at", np.int64),
     ("lost_at", np.int64)]
)


def make_jaws(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: 0.2 s jaws meeting a part at 60 % stroke."""
    base = dict(t_jaw=0.2, contact=0.6)
    base.update(values)
    return make_rows(JAW_DTYPE, n_conditions, n_units, base)


def make_jaw_state(params: np.ndarray) -> np.ndarray:
    """Jaws open, nothing held."""
    st = np.zeros(params.shape, JAW_STATE_DTYPE)
    st["picked_at"] = -1
    st["released_at"] = -1
    return st


def make_cups(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: build-up 0.2 s, release 0.1 s (0.02 s with BLOW), no faults."""
    base = dict(build=20, release=10, release_blow=2, leak_at=NEVER)
    base.update(values)
    return make_rows(VAC_DTYPE, n_conditions, n_units, base)


def make_cup_state(params: np.ndarray) -> np.ndarray:
    """Vacuum off, nothing held."""
    st = np.zeros(params.shape, VAC_STATE_DTYPE)
    st["picked_at"] = -1
    st["released_at"] = -1
    st["lost_at"] = -1
    return st


@njit(cache=True)
def tick_jaws(st, pa, close, part_present, k):
    """Advance the jaws one step; ``part_present`` = the tool is at a part's grip position."""
    t = k + 1
    step = DT / pa.t_jaw
    if close:
        if st.j <= EPS:  # a new closing stroke from open: a grip attempt
            st.attempts += 1
            st.slipping = 1 if (pa.slip_first and st.attempts == 1) else 0
        stop_at = 1.0
        if (part_present or st.held) and not st.slipping:
            stop_at = pa.contact
        if st.j < stop_at:
            st.j = min(stop_at, st.j + step)
        if stop_at < 1.0 and st.j >= pa.contact - EPS and not st.held:
            st.held = 1
            st.picked_at = t
    else:
        st.j = max(0.0, st.j - step)
        if st.held and st.j < pa.contact - EPS:
            st.held = 0
            st.released_at = t
    if st.j >= 1.0 - EPS:
        st.j = 1.0
    if st.j <= EPS:
        st.j = 0.0


@njit(cache=True)
def sense_gripped(st, pa):
    """GRIPPED: jaws stopped on a part."""
    return st.held != 0


@njit(cache=True)
def sense_closed_empty(st):
    """CLOSED_EMPTY: fully closed without a part."""
    return st.j >= 1.0


@njit(cache=True)
def sense_opened(st):
    """OPENED."""
    return st.j <= 0.02


@njit(cache=True)
def tick_cup(st, pa, vac, blow, on_part, k):
    """Advance the vacuum cup one step; ``on_part`` = the cup sits on a part this tick."""
    t = k + 1
    if vac and not st.prev_vac:
        st.attempts += 1
    st.prev_vac = 1 if vac else 0
    if st.held and t >= pa.leak_at and st.lost_at < 0:
        st.held = 0
        st.lost_at = t
        st.released_at = t
    if vac:
        st.off_cnt = 0
        st.on_cnt = st.on_cnt + 1 if (on_part or st.held) else 0
        porous = st.attempts <= pa.porous_attempts
        if not st.held and not porous and st.on_cnt >= pa.build and st.lost_at < 0:
            st.held = 1
            st.picked_at = t
    else:
        st.on_cnt = 0
        st.off_cnt += 1
        if st.held and st.off_cnt >= (pa.release_blow if blow else pa.release):
            st.held = 0
            st.released_at = t


@njit(cache=True)
def sense_vac_ok(st):
    """VAC_OK: vacuum built on a held part."""
    return st.held != 0
