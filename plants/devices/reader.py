"""D20 barcode reader and vision station on a conveyor line (A25).

Params: line, x (reader/camera position, mm), latency (ticks), kind (BARCODE, VISION), pulse
(ticks a result pulse lasts, 5).
State: a ring of pending results (due tick, value, sequence), ``code`` / ``seq`` (published
CODE and READ_SEQ, or RESULT_SEQ), ``ok_until`` / ``nok_until`` (pulse ends), ``n_trig``.
Tick (after the line moved): an item whose front crosses x triggers once (trigger number =
n_trig); barcode: after the latency CODE := item code, READ_SEQ++ and READ_OK (code != 0) or
NOREAD pulses; vision: after the latency RESULT_SEQ := trigger number with RES_OK (item
``defect`` = 0) or RES_NOK; an item with ``vision_lost`` never gets a verdict; at most one
result is published per tick (a later one waits a tick).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices.items import LINE
from plants.devices.protocol import EPS, make_rows

BARCODE = 0
VISION = 1
N_PENDING = 16

PARAM_DTYPE = np.dtype(
    [("line", np.int32), ("x", np.float64), ("latency", np.int64), ("kind", np.int32),
     ("pulse", np.int64)]
)

STATE_DTYPE = np.dtype(
    [
        ("due", np.int64, (N_PENDING,)), ("val", np.int64, (N_PENDING,)),
        ("trig", np.int64, (N_PENDING,)), ("n_pending", np.int32),
        ("code", np.int64), ("seq", np.int64), ("ok_until", np.int64), ("nok_until", np.int64),
        ("n_trig", np.int64), ("n_overrun", np.int64),
    ]
)


def make_params(n_conditions: int, n_units: int = 1, **values) -> np.ndarray:
    """Defaults: 40 ms latency, 5-tick pulses."""
    base = dict(latency=4, pulse=5)
    base.update(values)
    return make_rows(PARAM_DTYPE, n_conditions, n_units, base)


def make_state(params: np.ndarray) -> np.ndarray:
    """Nothing pending or published."""
    return np.zeros(params.shape, STATE_DTYPE)


@njit(cache=True)
def _push(st, due, val, trig):
    if st.n_pending >= N_PENDING:
        st.n_overrun += 1
        return
    st.due[st.n_pending] = due
    st.val[st.n_pending] = val
    st.trig[st.n_pending] = trig
    st.n_pending += 1


@njit(cache=True)
def tick(st, pa, items, k):
    """Trigger on front crossings of this step; publish the oldest due result (state k+1)."""
    t = k + 1
    for j in range(items.shape[0]):
        it = items[j]
        if it.place == LINE and it.line == pa.line:
            if it.rear_prev + it.length < pa.x - EPS <= it.rear + it.length:
                st.n_trig += 1
                if pa.kind == BARCODE:
                    _push(st, t + pa.latency, it.code, st.n_trig)
                elif not it.vision_lost:
                    _push(st, t + pa.latency, 1 if it.defect else 0, st.n_trig)
    if st.n_pending > 0 and st.due[0] <= t:
        val = st.val[0]
        if pa.kind == BARCODE:
            st.code = val
            st.seq += 1
            ok = val != 0
        else:
            st.seq = st.trig[0]
            ok = val == 0
        if ok:
            st.ok_until = t + pa.pulse
        else:
            st.nok_until = t + pa.pulse
        for i in range(st.n_pending - 1):
            st.due[i] = st.due[i + 1]
            st.val[i] = st.val[i + 1]
            st.trig[i] = st.trig[i + 1]
        st.n_pending -= 1


@njit(cache=True)
def sense_ok(st, k):
    """READ_OK / RES_OK pulse."""
    return k < st.ok_until


@njit(cache=True)
def sense_nok(st, k):
    """NOREAD / RES_NOK pulse."""
    return k < st.nok_until
