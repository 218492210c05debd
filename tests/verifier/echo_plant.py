"""A minimal plant for kernel and binding tests: it echoes, and judges the echo.

Inputs: A (%IW140 INT) = the condition's value, S (%IX0.0) = TRUE from tick `press`.
Outputs: Y (%QW140 INT), Q (%QX0.0). Violation 1 (S-TEST): Q TRUE while S is FALSE.
Success: from tick `done` on, Y equals A. Failure reason 1: Y = 99 ("gave up", arg = Y).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.tasks.spec import Condition, Signal, TaskSpec

PARAMS = np.dtype([("a", np.float64), ("press", np.int64), ("done", np.int64)])
VIOLATIONS = ("S-TEST",)
REASONS = ("the program gave up (Y = {arg:g})",)

TASK = TaskSpec(
    id="MOT-E98",
    title="Echo",
    devices=("an echo",),
    io=(
        Signal("%IW140", "A", "INT", "value"),
        Signal("%IX0.0", "S", "BOOL", "switch"),
        Signal("%QW140", "Y", "INT", "echo of A"),
        Signal("%QX0.0", "Q", "BOOL", "only while S"),
    ),
    spec=("Y := A.",),
    completion="Y equals A.",
    time_limit_s=1.0,
    safety=(),
    published=(),
    conditions=(
        Condition("C1", {"a": -5, "press": 30, "done": 10}),
        Condition("C2", {"a": 1234, "press": 1_000_000, "done": 50}, time_limit_s=0.8),
    ),
    plant="tests.verifier.echo_plant",
    reference="",
)


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    params = np.zeros(len(task.conditions), PARAMS)
    for c, cond in enumerate(task.conditions):
        params[c] = (cond.params["a"], cond.params["press"], cond.params["done"])
    return (params,)


@njit(cache=True)
def sense(plant, c, k, inp):
    pa = plant[0][c]
    inp[0] = pa.a
    inp[1] = 1.0 if k >= pa.press else 0.0


@njit(cache=True)
def advance(plant, c, k, out):
    pass


@njit(cache=True)
def judge(plant, c, k, inp, out):
    pa = plant[0][c]
    violation = 1 if (out[1] != 0.0 and inp[1] == 0.0) else 0
    if out[0] == 99.0:
        return violation, -1, 1, out[0]
    if k >= pa.done and out[0] == inp[0]:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
