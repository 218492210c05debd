"""Drive one D07 axis from tests: set Table A output bits/words, run ticks, record a trace."""

from __future__ import annotations

from plants.devices import servo


class Axis:
    """One condition, one axis; ``out`` is the latched output block the tests write."""

    def __init__(self, **params):
        self.pa = servo.make_params(1, **params)
        self.st = servo.make_state(self.pa)
        self.outs = servo.make_outputs(1)
        self.s, self.p, self.out = self.st[0, 0], self.pa[0, 0], self.outs[0, 0]
        self.k = 0
        self.trace = []

    def set(self, **values):
        for name, val in values.items():
            self.out[name] = val
        return self

    def pulse(self, name, **words):
        """A command edge: words set, the bit TRUE for one tick, then FALSE."""
        self.set(**words)
        self.set(**{name: 1})
        self.run(1)
        self.set(**{name: 0})

    def run(self, n, x_master=0.0, v_master=0.0):
        for _ in range(n):
            servo.tick(self.s, self.p, self.out, x_master, v_master, self.k)
            self.k += 1
            self.trace.append(self.snapshot())
        return self

    def run_until(self, pred, limit=100000):
        for _ in range(limit):
            if pred(self):
                return self.k
            self.run(1)
        raise AssertionError("condition not reached")

    def snapshot(self):
        s = self.s
        return (self.k, float(s["x"]), float(s["v"]), int(s["cmd"]), int(s["busy"]),
                int(s["done"]), int(s["error_id"]), int(s["powered"]), int(s["homed"]))

    @property
    def act_pos(self):
        return int(servo.sense_act_pos(self.s, self.p))

    def __getitem__(self, name):
        return self.s[name]
