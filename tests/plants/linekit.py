"""A small one-condition conveyor world for tests: items, one line, segments, obstacles."""

from __future__ import annotations

import numpy as np

from plants.devices import conveyor
from plants.devices import items as items_mod


class Line:
    """One line [0, length] made of ``len(joints)+1`` segments, with a chosen far-end kind."""

    def __init__(self, item_attrs, length=2000.0, joints=(), down_kind=conveyor.END_OPEN,
                 up_kind=conveyor.END_PLATE, obstacles=()):
        self.items = items_mod.make_items([item_attrs])
        edges = [0.0, *joints, length]
        self.segments = conveyor.make_segments(
            1, len(edges) - 1, line=0, x0=np.array(edges[:-1])[None, :],
            x1=np.array(edges[1:])[None, :])
        self.lines = conveyor.make_lines(1, x_start=0.0, x_end=length, down_kind=down_kind,
                                         down_dest=7, up_kind=up_kind, up_dest=8)
        self.line_state = conveyor.make_line_state(self.lines)
        self.obstacles = conveyor.make_obstacles(1, max(len(obstacles), 1), line=0)
        for j, x in enumerate(obstacles):
            self.obstacles[0, j]["x"] = x
        if not obstacles:
            self.obstacles[0, 0]["line"] = -1

    def place(self, j, rear):
        it = self.items[0, j]
        it["place"] = items_mod.LINE
        it["line"] = 0
        it["rear"] = rear
        it["rear_prev"] = rear

    def step(self, speeds, k, blades=None):
        self.segments[0]["v"] = speeds
        if blades is not None:
            self.obstacles[0]["up"] = blades
        conveyor.tick_line(self.items[0], self.segments[0], self.obstacles[0], self.lines[0, 0],
                           self.line_state[0, 0], 0, k)

    def on_line(self):
        its = self.items[0]
        return its[its["place"] == items_mod.LINE]
