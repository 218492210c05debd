"""Table A glue: `axis_indices` finds the block wherever a task puts it, and the shared
sense/latch helpers address every row where `axis_io` says it is (by name, not by offset)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from plants.devices import servo
from plants.tasks.axis_glue import latch_axis, sense_axis
from plants.tasks.axis_io import AXIS_INPUTS, AXIS_OUTPUTS, axis_block, axis_indices
from plants.tasks.spec import Signal

from .axiskit import Axis

START = Signal("%IX0.0", "START", "BOOL", "start", "")
LAMP = Signal("%QX0.0", "LAMP", "BOOL", "lamp", "")


def _images(n: int, prefix: str = "") -> tuple[tuple[Signal, ...], tuple[Signal, ...]]:
    block = axis_block(n, prefix)
    return ((START, *(s for s in block if s.address.startswith("%I"))),
            (LAMP, *(s for s in block if s.address.startswith("%Q"))))


def test_axis_indices_follow_the_block_wherever_it_stands() -> None:
    inputs, outputs = _images(2, "X_")
    assert axis_indices(inputs, "X_") == {name: 1 + i for i, name in enumerate(AXIS_INPUTS)}
    assert axis_indices(outputs, "X_") == {name: 1 + i for i, name in enumerate(AXIS_OUTPUTS)}
    assert [s.name for s in inputs[1:]] == ["X_" + n for n in AXIS_INPUTS]


def test_axis_indices_refuse_a_missing_or_broken_block() -> None:
    inputs, _ = _images(0)
    with pytest.raises(ValueError, match="no Table A"):
        axis_indices(inputs, "Y_")
    broken = (*inputs[:5], START, *inputs[5:])
    with pytest.raises(ValueError, match="not contiguous"):
        axis_indices(broken)


@njit
def _sense(st, pa, inp, i0):
    sense_axis(st[0, 0], pa[0, 0], inp, i0)


@njit
def _latch(outs, out, o0):
    latch_axis(outs[0, 0], out, o0)


def test_sense_axis_writes_every_status_row_by_name() -> None:
    ax = Axis(vmax=500.0, amax=3000.0, a_def=1000.0, sl_lo=-1e9, sl_hi=1e9)
    ax.set(enable=1, velocity=1000, accel=1000)
    ax.run_until(lambda a: a["powered"])
    ax.pulse("move_vel")
    ax.run(20)
    inputs, _ = _images(1)
    at = axis_indices(inputs)
    inp = np.full(len(inputs), -7.0)
    _sense(ax.st, ax.pa, inp, at["POWERED"])
    s, p = ax.s, ax.p
    expected = {"POWERED": s["powered"], "HOMED": s["homed"], "BUSY": s["busy"], "DONE": s["done"],
                "ERROR": s["error"], "STANDSTILL": servo.sense_standstill(s), "IN_VEL": s["in_vel"],
                "ABORTED": s["aborted"], "LIM_NEG": servo.sense_lim_neg(s, p),
                "LIM_POS": servo.sense_lim_pos(s, p), "REF_SW": servo.sense_ref_sw(s, p),
                "CSP_ACTIVE": s["csp_active"], "GEARED": s["geared"],
                "ACT_POS": servo.sense_act_pos(s, p), "ACT_VEL": servo.sense_act_vel(s),
                "ERROR_ID": s["error_id"]}
    assert {n: inp[at[n]] for n in expected} == {n: float(v) for n, v in expected.items()}
    assert inp[at["ACT_VEL"]] > 0 and inp[at["POWERED"]] == 1.0  # a moving drive, not all zeros
    assert inp[0] == -7.0 and inp[at["ACT_FORCE"]] == -7.0  # rows outside POWERED..ERROR_ID kept


def test_latch_axis_reads_every_command_row_by_name() -> None:
    _, outputs = _images(3)
    at = axis_indices(outputs)
    values = {"ENABLE": 1, "HOME": 0, "MOVE_ABS": 1, "MOVE_REL": 0, "MOVE_VEL": 1, "HALT": 0,
              "STOP": 1, "RESET": 0, "GEAR_IN": 1, "CSP_ON": 1, "TARGET": 123456,
              "VELOCITY": -321, "ACCEL": 2500, "GEAR_NUM": 3, "GEAR_DEN": 7}
    out = np.zeros(len(outputs))
    for name, value in values.items():
        out[at[name]] = value
    outs = servo.make_outputs(1)
    _latch(outs, out, at["ENABLE"])
    blk = outs[0, 0]
    assert {n: int(blk[n.lower()]) for n in values} == values
