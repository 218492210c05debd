"""Kernel side of Table A (`axis_io`): one D07 drive's status into the input image and the
program's Table A outputs into the drive's latched block.

Kept apart from `axis_io` so task declarations stay importable without numba. Both helpers
address the block by its first image index (`axis_indices(...)["POWERED"]` / `["ENABLE"]`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import servo


@njit(cache=True)
def _b(flag):
    return 1.0 if flag else 0.0


@njit(cache=True)
def sense_axis(st, pa, inp, i0):
    """POWERED .. ERROR_ID of drive state ``st`` into ``inp[i0:i0 + 16]``; ACT_FORCE (the
    row after) is left to a task with a load model."""
    inp[i0] = _b(st.powered)
    inp[i0 + 1] = _b(st.homed)
    inp[i0 + 2] = _b(st.busy)
    inp[i0 + 3] = _b(st.done)
    inp[i0 + 4] = _b(st.error)
    inp[i0 + 5] = _b(servo.sense_standstill(st))
    inp[i0 + 6] = _b(st.in_vel)
    inp[i0 + 7] = _b(st.aborted)
    inp[i0 + 8] = _b(servo.sense_lim_neg(st, pa))
    inp[i0 + 9] = _b(servo.sense_lim_pos(st, pa))
    inp[i0 + 10] = _b(servo.sense_ref_sw(st, pa))
    inp[i0 + 11] = _b(st.csp_active)
    inp[i0 + 12] = _b(st.geared)
    inp[i0 + 13] = float(servo.sense_act_pos(st, pa))
    inp[i0 + 14] = float(servo.sense_act_vel(st))
    inp[i0 + 15] = float(st.error_id)


@njit(cache=True)
def latch_axis(blk, out, o0):
    """ENABLE .. GEAR_DEN of ``out[o0:o0 + 15]`` into the drive's latched output block."""
    blk.enable = out[o0] != 0.0
    blk.home = out[o0 + 1] != 0.0
    blk.move_abs = out[o0 + 2] != 0.0
    blk.move_rel = out[o0 + 3] != 0.0
    blk.move_vel = out[o0 + 4] != 0.0
    blk.halt = out[o0 + 5] != 0.0
    blk.stop = out[o0 + 6] != 0.0
    blk.reset = out[o0 + 7] != 0.0
    blk.gear_in = out[o0 + 8] != 0.0
    blk.csp_on = out[o0 + 9] != 0.0
    blk.target = np.int32(out[o0 + 10])
    blk.velocity = np.int16(out[o0 + 11])
    blk.accel = np.int16(out[o0 + 12])
    blk.gear_num = np.int16(out[o0 + 13])
    blk.gear_den = np.int16(out[o0 + 14])
