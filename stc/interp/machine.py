"""`Interpreter`: the tree-walking back end, implementing `stc.backend.ScanBackend`.

Memory is plain Python containers built from the semantic model's initial values: one dict
per PROGRAM instance, one for globals, one for direct addresses used in code. A scan
refreshes the input cells, re-initialises VAR_TEMP, runs the program instances in order
and, when it completes, records the snapshot; a fault (§12) stops the run and leaves the
snapshot of the last completed scan.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import fields
from itertools import product
from typing import Any

import numpy as np

from stc import ast
from stc import types as T
from stc.backend import CYCLE_MS, RuntimeErrorRecord
from stc.interp import values as V
from stc.interp.calls import CallMixin
from stc.interp.eval_expr import ExprEvaluator
from stc.interp.exec_stmt import StmtExecutor
from stc.interp.faults import Fault
from stc.interp.memory import Frame
from stc.sema.iolist import canonical_address
from stc.sema.model import POUInfo, SemanticModel, Variable

WATCHDOG_ITERATIONS = 1_000_000
ADDRESS_TYPES = {"X": T.BOOL, "B": T.BYTE, "W": T.WORD, "D": T.DWORD, "L": T.LWORD}
_SHORT_BIT_ADDRESS = re.compile(r"^%([IQM])(\d+)\.(\d+)$")
# Sections that are state of an instance (shown in snapshots).
STATE_SECTIONS = ("VAR", "VAR_INPUT", "VAR_OUTPUT", "VAR_STAT")
Cell = tuple[dict[str, Any], str, T.Type]

__all__ = ["Interpreter", "WATCHDOG_ITERATIONS"]


def canonical_target(target: str) -> str:
    """`%i0.3` -> `%IX0.3`; variable paths are returned unchanged."""
    if not target.startswith("%"):
        return target
    t = target.upper()
    m = _SHORT_BIT_ADDRESS.match(t)
    return f"%{m.group(1)}X{m.group(2)}.{m.group(3)}" if m else t


class Interpreter(ExprEvaluator, StmtExecutor, CallMixin):
    """One program instance set executing scan by scan (one condition).

    `track_snapshots=False` (benchmarks) skips the per-scan snapshot copy; `snapshot()` then
    reads live memory, which after a runtime error includes the partial scan."""

    def __init__(self, model: SemanticModel, watchdog_limit: int = WATCHDOG_ITERATIONS,
                 track_snapshots: bool = True) -> None:
        self.model = model
        self.watchdog_limit = watchdog_limit
        self.track_snapshots = track_snapshots
        self._member_keys: dict[tuple[int, str], str] = {}
        self._direct = sorted({canonical_address(n.address) for n in _walk(model.source)
                               if isinstance(n, ast.DirectAddress) and not n.address.wildcard})
        self.reset()

    # ------------------------------------------------------------------ ScanBackend

    def reset(self) -> None:
        m = self.model
        self.globals: dict[str, Any] = {v.name: V.clone(v.init) for v in m.globals.values()
                                        if v.section != "INSTANCE"}
        self.instances: dict[str, dict[str, Any]] = {pi.name: _new_instance(pi.pou) for pi in m.entry}
        self.instance_of: dict[POUInfo, str] = {pi.pou: pi.name for pi in m.entry}
        self.addresses: dict[str, Any] = {a: False if a[2] == "X" else 0 for a in self._direct}
        self.statics: dict[str, dict[str, Any]] = {}
        self.cells, self.by_name = self._io_cells()
        self.input_image: dict[str, Any] = {}
        self.scan_no = 0
        self.now_ms = 0
        self.loop_count = 0
        self.fault: RuntimeErrorRecord | None = None
        self._snapshot = self._take_snapshot()

    def set_input(self, target: str, value: Any) -> None:
        t = canonical_target(target)
        if not t.startswith("%") and t not in self.by_name:
            raise KeyError(f"no AT %I* variable named {target!r}")
        self.input_image[t] = value

    def scan(self) -> RuntimeErrorRecord | None:
        if self.fault is not None:
            return self.fault
        self.scan_no += 1
        self.now_ms = (self.scan_no - 1) * CYCLE_MS
        self.loop_count = 0
        self._refresh_inputs()
        current = self.model.entry[0].pou if self.model.entry else None
        try:
            with np.errstate(all="ignore"):
                for pi in self.model.entry:
                    current = pi.pou
                    inst = self.instances[pi.name]
                    for v in pi.pou.variables.values():
                        if v.owner is pi.pou and v.section == "VAR_TEMP":
                            inst[v.name] = V.clone(v.init)
                    self.exec_block(pi.pou.node.body, Frame(pi.pou, inst))
        except Fault as f:
            pos = f.pos or ast.NOWHERE
            self.fault = RuntimeErrorRecord(f.code, f.message, f.pou or (current.name if current else ""),
                                            pos.line, pos.col, self.scan_no, self.now_ms)
            return self.fault
        if self.track_snapshots:
            self._snapshot = self._take_snapshot()
        return None

    def snapshot(self) -> dict[str, Any]:
        if not self.track_snapshots and self.fault is None:
            return self._take_snapshot()
        return dict(self._snapshot)

    # ------------------------------------------------------------------ inputs

    def _io_cells(self) -> tuple[dict[str, list[Cell]], dict[str, Cell]]:
        """Input cells by canonical address, and `AT %I*` variables by path."""
        cells: dict[str, list[Cell]] = {}
        by_name: dict[str, Cell] = {}
        single = self.model.configuration is None

        def add(container: dict[str, Any], v: Variable, path: str) -> None:
            loc = v.location
            if loc is None or loc.area.upper() != "I":
                return
            if loc.wildcard:
                by_name[path] = (container, v.name, v.type)
            else:
                cells.setdefault(canonical_address(loc), []).append((container, v.name, v.type))

        for v in self.model.globals.values():
            if v.section != "INSTANCE":
                add(self.globals, v, v.name)
        for pi in self.model.entry:
            inst = self.instances[pi.name]
            for v in pi.pou.variables.values():
                if v.owner is pi.pou:
                    add(inst, v, v.name if single else f"{pi.name}.{v.name}")
        for a in self._direct:
            if a.startswith("%I"):
                cells.setdefault(a, []).append((self.addresses, a, ADDRESS_TYPES[a[2]]))
        return cells, by_name

    def _refresh_inputs(self) -> None:
        for target, value in self.input_image.items():
            targets = [self.by_name[target]] if target in self.by_name else self.cells.get(target, [])
            for container, key, ty in targets:
                v = int(value) if T.is_anyint(ty) or isinstance(T.base_of(ty), T.EnumType) else value
                container[key] = V.store(v, None, ty)

    # ------------------------------------------------------------------ snapshots

    def _take_snapshot(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        single = self.model.configuration is None
        for v in self.model.globals.values():
            if v.section != "INSTANCE":
                _flatten(v.name, v.type, self.globals[v.name], out)
        for pi in self.model.entry:
            inst = self.instances[pi.name]
            prefix = "" if single else pi.name + "."
            for v in pi.pou.variables.values():
                if v.owner is pi.pou and v.section in STATE_SECTIONS:
                    _flatten(prefix + v.name, v.type, inst[v.name], out)
        for a in self._direct:
            out[a] = V.to_json(self.addresses[a])
        return out


def _walk(node: Any) -> Iterator[Any]:
    """Every AST node below `node` (to find the direct addresses used in code)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            stack.extend(n)
        elif isinstance(n, ast.Node):
            yield n
            stack.extend(getattr(n, f.name) for f in fields(n)
                         if f.name not in ("pos", "ty", "const", "symbol", "member_pos", "end_pos"))


def _new_instance(pou: POUInfo) -> dict[str, Any]:
    return {v.name: V.clone(v.init) for v in pou.variables.values()
            if v.owner is pou and v.section not in ("VAR_EXTERNAL", "VAR_IN_OUT")}


def _flatten(path: str, t: T.Type, value: Any, out: dict[str, Any]) -> None:
    """Variable path -> JSON value, as stc.backend describes the snapshot."""
    b = T.base_of(t)
    if isinstance(b, T.ArrayType):
        ranges = [range(lo, hi + 1) for lo, hi in b.dims]
        for offset, idx in enumerate(product(*ranges)):
            _flatten(f"{path}[{','.join(map(str, idx))}]", b.elem, value[offset], out)
    elif isinstance(b, T.StructType):
        for m in b.members:
            _flatten(f"{path}.{m.name}", m.type, value[m.name], out)
    elif isinstance(b, T.FBType) and b.standard:
        for p in b.params:
            out[f"{path}.{p.name}"] = V.to_json(value[p.name])
    elif isinstance(b, T.FBType):
        info: POUInfo = b.pou
        for v in info.variables.values():
            if v.owner is info and v.section in STATE_SECTIONS:
                _flatten(f"{path}.{v.name}", v.type, value[v.name], out)
        for m in info.methods.values():
            for v in m.variables.values():
                if v.owner is m and v.section == "VAR_INST":
                    _flatten(f"{path}.{m.name}.{v.name}", v.type, value.get(f"${m.name}.{v.name}", v.init), out)
    else:
        out[path] = V.to_json(value)
