"""The program's I/O list: located variables and direct addresses (§2.3), with their checks.

The verifier binds this list to a task's I/O map, so every entry carries a canonical
upper-case address, its elementary type, direction and the declared variable path.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator
from dataclasses import dataclass

from stc import ast
from stc import types as T
from stc.diagnostics import Diagnostics
from stc.sema.model import SemanticModel, Variable

DIRECTIONS = {"I": "input", "Q": "output", "M": "memory"}
SIZE_FITS = {
    "X": {"BOOL"},
    "B": {"BYTE", "SINT", "USINT", "BOOL"},
    "W": {"WORD", "INT", "UINT"},
    "D": {"DWORD", "DINT", "UDINT", "REAL"},
    "L": {"LWORD", "LINT", "ULINT", "LREAL"},
}
SIZE_BYTES = {"X": 1, "B": 1, "W": 2, "D": 4, "L": 8}
DEFAULT_TYPE = {"X": "BOOL", "B": "BYTE", "W": "WORD", "D": "DWORD", "L": "LWORD"}


@dataclass(frozen=True)
class IOPoint:
    address: str  # canonical upper case: '%IX0.3', '%QW140', or '%I*'
    area: str  # 'I' | 'Q' | 'M'
    size: str | None  # 'X', 'B', 'W', 'D', 'L'
    index: int | None
    bit: int | None
    type: str  # elementary type name, upper case
    direction: str  # 'input' | 'output' | 'memory'
    name: str  # declared variable path, '' for a direct address used in code
    line: int
    column: int

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def _size(loc: ast.Location) -> str | None:
    if loc.wildcard:
        return None
    return (loc.size or ("X" if loc.bit is not None else "X")).upper()


def canonical_address(loc: ast.Location) -> str:
    area = loc.area.upper()
    if loc.wildcard:
        return f"%{area}*"
    text = f"%{area}{_size(loc)}{loc.index}"
    return text + (f".{loc.bit}" if loc.bit is not None else "")


def _type_name(t: T.Type) -> str:
    b = T.base_of(t)
    if isinstance(b, T.EnumType):
        b = b.base or T.INT
    return b.name if isinstance(b, T.ElementaryType | T.StringType) else str(t)


def build_io_list(model: SemanticModel, diags: Diagnostics) -> list[IOPoint]:
    points: list[IOPoint] = []
    where: dict[int, ast.Pos] = {}  # id(point) -> position of its address text, for warnings
    for path, v in _located_variables(model):
        p = _check_located(path, v, diags)
        if p is not None:
            points.append(p)
            where[id(p)] = v.location.pos if v.location is not None else v.pos
    seen = {p.address for p in points}
    used = [n for n in all_nodes(model.source) if isinstance(n, ast.DirectAddress) and not n.address.wildcard]
    for node in sorted(used, key=lambda n: (n.pos.line, n.pos.col)):
        p = _point(node.address, DEFAULT_TYPE.get(_size(node.address) or "X", "BOOL"), "", node.pos)
        if _check_bit(node.address, node.pos, diags) and p.address not in seen:
            seen.add(p.address)
            points.append(p)
    _warn_overlaps(points, where, diags)
    return points


def _located_variables(model: SemanticModel) -> Iterator[tuple[str, Variable]]:
    for v in model.globals.values():
        if v.location is not None:
            yield v.name, v
    single = model.configuration is None
    instances = {id(i.pou): i.name for i in model.entry}
    for info in model.pous.values():
        for v in info.variables.values():
            if v.location is None or v.owner is not info:
                continue
            if info.kind == "PROGRAM":
                prefix = "" if single else f"{instances.get(id(info), info.name)}."
            else:
                prefix = f"{info.name}."
            yield prefix + v.name, v


def _point(loc: ast.Location, type_name: str, name: str, pos: ast.Pos) -> IOPoint:
    area = loc.area.upper()
    size = _size(loc)
    return IOPoint(canonical_address(loc), area, size, None if loc.wildcard else loc.index,
                   loc.bit, type_name, DIRECTIONS.get(area, "memory"), name, pos.line, pos.col)


def _check_bit(loc: ast.Location, pos: ast.Pos, diags: Diagnostics) -> bool:
    if loc.bit is not None and not 0 <= loc.bit <= 7:
        diags.error(f"bit number {loc.bit} in {loc.text} is out of range 0..7", loc.pos.line, loc.pos.col)
        return False
    if loc.bit is not None and _size(loc) != "X":
        diags.error(f"a bit number needs size X: {loc.text}", loc.pos.line, loc.pos.col)
        return False
    return True


def _check_located(path: str, v: Variable, diags: Diagnostics) -> IOPoint | None:
    loc = v.location
    assert loc is not None
    if v.type is T.ERROR or not _check_bit(loc, v.pos, diags):
        return None
    tname = _type_name(v.type)
    size = _size(loc)
    if size is not None and tname not in SIZE_FITS.get(size, set()):
        fits = "/".join(sorted(SIZE_FITS.get(size, set())))
        diags.error(f"located variable '{v.name}' of type {v.type} does not fit {canonical_address(loc)} "
                    f"(size {size} needs {fits})", loc.pos.line, loc.pos.col)
        return None
    if size is None and not isinstance(T.base_of(v.type), T.ElementaryType):
        diags.error(f"located variable '{v.name}' must have an elementary type, got {v.type}",
                    loc.pos.line, loc.pos.col)
        return None
    return _point(loc, tname, path, v.pos)


def _byte_span(p: IOPoint) -> tuple[int, int]:
    assert p.index is not None and p.size is not None
    return p.index, p.index + SIZE_BYTES[p.size] - 1


def _warn_overlaps(points: list[IOPoint], where: dict[int, ast.Pos], diags: Diagnostics) -> None:
    """Different addresses sharing bytes are not aliased (decision D11): warn.

    A sweep over byte spans sorted per area; spans are at most 8 bytes, so the set of
    spans still open at any offset stays small and the check is near-linear.
    """
    fixed = sorted((p for p in points if p.index is not None and p.size is not None),
                   key=lambda p: (p.area, _byte_span(p)[0], p.line, p.column))
    open_spans: list[IOPoint] = []
    reported: set[IOPoint] = set()
    for p in fixed:
        start, _end = _byte_span(p)
        open_spans = [q for q in open_spans if q.area == p.area and _byte_span(q)[1] >= start]
        for q in open_spans:
            if q.address == p.address or (p.size == "X" and q.size == "X"):
                continue  # the same cell, or distinct bits of one byte
            first, later = sorted((q, p), key=lambda x: (x.line, x.column))
            if later not in reported:
                reported.add(later)
                pos = where.get(id(later), ast.Pos(later.line, later.column))
                diags.warning(f"addresses {first.address} and {later.address} overlap (byte offsets) but are "
                              "independent cells in plantloop (not aliased)", pos.line, pos.col)
        open_spans.append(p)


def all_nodes(node: object) -> Iterator[object]:
    """Every AST node below `node` (generic walk over dataclass fields)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, list):
            stack.extend(n)
            continue
        if not isinstance(n, ast.Node):
            continue
        for name in _child_fields(type(n)):
            child = getattr(n, name)
            if isinstance(child, ast.Node | list):
                stack.append(child)


_SKIPPED = frozenset({"pos", "ty", "const", "symbol", "member_pos", "end_pos", "op_pos", "bit_pos"})


@functools.cache
def _child_fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if f.name not in _SKIPPED)


_all_nodes = all_nodes  # former private name, still imported by the interpreter
