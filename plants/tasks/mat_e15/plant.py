"""MAT-E15 plant binding: X and Z slides (D11, monostable), a vacuum cup with BLOW (D12), a
scripted pick nest and a place nest emptied by the downstream, and the judge (K parts placed,
LAMP_ALARM never on, S-TOOLMOVE, S-DROP, S-CRUSH).

Batch state (``build``), one row per condition: X slide, Z slide, cup, the nests record and
the judge record. Plant step (``advance``): slides, cup (on the new geometry), what the cup
picked or let go, then removal and arrivals, so that ``sense`` at tick k + 1 shows S_{k+1}.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from plants.devices import cylinder, gripper
from plants.devices.protocol import EPS, NEVER, ticks
from plants.tasks.spec import TaskSpec

# Input image (task map order) and output image indices.
(I_AUTO_SW, I_X_HOME, I_X_PLACE, I_Z_UP, I_Z_DOWN_S, I_VAC_OK, I_PART_AT_PICK,
 I_PLACE_FREE) = range(8)
O_X_V, O_Z_V, O_VAC, O_BLOW, O_LAMP_ALARM = range(5)

MAX_PARTS = 16
RELEASE_S = 0.1  # D12: part comes off 0.1 s after VAC drops ...
RELEASE_BLOW_S = 0.02  # ... or 0.02 s with BLOW

VIOLATIONS = ("S-TOOLMOVE", "S-DROP", "S-CRUSH")
"""Violation id i + 1 -> S-code (the task's rule of that code gives the wording)."""

REASONS = (
    "LAMP_ALARM switched on",
    "a part was dropped after {arg:.0f} of K parts were placed",
)
"""Failure reason id i + 1 -> text."""

NEST_DTYPE = np.dtype([
    ("arrive", np.int64, (MAX_PARTS,)), ("n_arr", np.int32), ("next_arr", np.int32),
    ("t_rem", np.int64), ("porous", np.int32), ("k_parts", np.int32),
    ("at_pick", np.uint8), ("held", np.uint8), ("attempts", np.int32), ("sucking", np.uint8),
    ("place_occ", np.uint8), ("placed_at", np.int64), ("placed", np.int32),
    ("dropped", np.int32), ("drop_tick", np.int64),
])

JUDGE_DTYPE = np.dtype([("prev_xv", np.uint8)])

PROBES = {
    "x_stroke": ((1, 0), "s", "fraction"),
    "z_stroke": ((3, 0), "s", "fraction"),
    "parts_placed": (6, "placed", "parts"),
}
"""Plant variables `plantloop trace` can show."""


def build(task: TaskSpec) -> tuple[np.ndarray, ...]:
    """Fresh batch state of every condition of the task."""
    n = len(task.conditions)
    nest = np.zeros(n, NEST_DTYPE)
    for c, cond in enumerate(task.conditions):
        p = cond.params
        times = []
        for ev in cond.script:
            if ev.kind != "arrive":
                raise ValueError(f"{task.id} {cond.name}: unknown event kind {ev.kind!r}")
            times.append(ticks(ev.t))
        if not 1 <= len(times) <= MAX_PARTS:
            raise ValueError(f"{task.id} {cond.name}: 1..{MAX_PARTS} arrivals expected")
        row = nest[c]
        row["arrive"][:] = NEVER
        row["arrive"][: len(times)] = sorted(times)
        row["n_arr"] = len(times)
        row["t_rem"] = ticks(p["t_rem_s"])
        row["porous"] = int(p["porous_part"])
        row["k_parts"] = int(p["parts_to_place"])
        row["placed_at"] = NEVER
        row["drop_tick"] = -1
    conds = task.conditions
    xpa = cylinder.make_params(n, 1, kind=cylinder.MONO,
                               t_ext=[float(c.params["t_x_s"]) for c in conds],
                               t_ret=[float(c.params["t_x_s"]) for c in conds])
    zpa = cylinder.make_params(n, 1, kind=cylinder.MONO,
                               t_ext=[float(c.params["t_z_s"]) for c in conds],
                               t_ret=[float(c.params["t_z_s"]) for c in conds])
    cpa = gripper.make_cups(n, 1, build=[max(1, ticks(c.params["t_vac_s"])) for c in conds],
                            release=ticks(RELEASE_S), release_blow=ticks(RELEASE_BLOW_S))
    return (xpa, cylinder.make_state(xpa), zpa, cylinder.make_state(zpa), cpa,
            gripper.make_cup_state(cpa), nest, np.zeros(n, JUDGE_DTYPE))


@njit(cache=True)
def _x_home(xst):
    return xst.s <= 0.02 + EPS


@njit(cache=True)
def _x_place(xst):
    return xst.s >= 0.98 - EPS


@njit(cache=True)
def sense(plant, c, k, inp):
    """Slide switches from the strokes, VAC_OK from the cup, the nests from their record;
    AUTO_SW is always on (A1)."""
    xpa, xst, zpa, zst = plant[0][c, 0], plant[1][c, 0], plant[2][c, 0], plant[3][c, 0]
    nest = plant[6][c]
    inp[I_AUTO_SW] = 1.0
    inp[I_X_HOME] = 1.0 if cylinder.sense_retracted(xst, xpa) else 0.0
    inp[I_X_PLACE] = 1.0 if cylinder.sense_extended(xst, xpa) else 0.0
    inp[I_Z_UP] = 1.0 if cylinder.sense_retracted(zst, zpa) else 0.0
    inp[I_Z_DOWN_S] = 1.0 if cylinder.sense_extended(zst, zpa) else 0.0
    inp[I_VAC_OK] = 1.0 if gripper.sense_vac_ok(plant[5][c, 0]) else 0.0
    inp[I_PART_AT_PICK] = 1.0 if nest.at_pick else 0.0
    inp[I_PLACE_FREE] = 0.0 if nest.place_occ else 1.0


@njit(cache=True)
def _cup_on_part(nest, vac, at_pick):
    """Whether the cup can build vacuum on the part in the pick nest this step: counts one
    attempt per rising edge of (VAC with the cup down on it); a porous part's first attempt
    never builds vacuum."""
    sucking = vac and at_pick and nest.at_pick != 0 and not nest.held
    if sucking and not nest.sucking:
        nest.attempts += 1
    nest.sucking = 1 if sucking else 0
    porous = nest.porous == nest.next_arr and nest.attempts <= 1
    return at_pick and nest.at_pick != 0 and not porous


@njit(cache=True)
def advance(plant, c, k, out):
    """Slides, cup, pick / release bookkeeping, then downstream removal and arrivals."""
    xst, zst = plant[1][c, 0], plant[3][c, 0]
    cpa, cst, nest = plant[4][c, 0], plant[5][c, 0], plant[6][c]
    t = k + 1
    cylinder.tick(xst, plant[0][c, 0], out[O_X_V] != 0.0, False, k)
    cylinder.tick(zst, plant[2][c, 0], out[O_Z_V] != 0.0, False, k)
    z_down = zst.s >= 0.98 - EPS
    at_pick = _x_home(xst) and z_down
    at_place = _x_place(xst) and z_down
    vac = out[O_VAC] != 0.0
    on_part = _cup_on_part(nest, vac, at_pick)
    gripper.tick_cup(cst, cpa, vac, out[O_BLOW] != 0.0, on_part, k)
    if cst.held and not nest.held:  # picked from the pick nest
        nest.held = 1
        nest.at_pick = 0
    elif nest.held and not cst.held:  # let go
        nest.held = 0
        if at_place and not nest.place_occ:
            nest.place_occ = 1
            nest.placed_at = t
            nest.placed += 1
        else:
            nest.dropped += 1
            nest.drop_tick = t
    cup_at_place = _x_place(xst) and zst.s > 0.02 + EPS
    if nest.place_occ and t >= nest.placed_at + nest.t_rem and not cup_at_place:
        nest.place_occ = 0
        nest.placed_at = NEVER
    cup_at_pick = _x_home(xst) and zst.s > 0.02 + EPS
    if nest.next_arr < nest.n_arr and t >= nest.arrive[nest.next_arr] and not nest.at_pick \
            and not nest.held and not cup_at_pick:
        nest.at_pick = 1
        nest.next_arr += 1
        nest.attempts = 0
        nest.sucking = 0


@njit(cache=True)
def judge(plant, c, k, inp, out):
    """(violation id, outcome 1 success / -1 failed / 0 running, reason id, arg) of tick k."""
    zst, nest, js = plant[3][c, 0], plant[6][c], plant[7][c]
    violation = 0
    xv = 1 if out[O_X_V] != 0.0 else 0
    if xv != js.prev_xv and inp[I_Z_UP] == 0.0:
        violation = 1
    js.prev_xv = xv
    if nest.drop_tick == k + 1:
        violation = 2
    if zst.s > zst.s_prev + EPS and inp[I_PLACE_FREE] == 0.0 and inp[I_X_HOME] == 0.0:
        violation = 3
    if out[O_LAMP_ALARM] != 0.0:
        return violation, -1, 1, 0.0
    if nest.dropped > 0:
        return violation, -1, 2, float(nest.placed)
    if nest.placed >= nest.k_parts:
        return violation, 1, 0, 0.0
    return violation, 0, 0, 0.0
