"""Lowering of whole POUs, and the program-wide plan: memory regions, names, the scan.

`ProgramLowering` owns everything shared between POU bodies: the sizer and allocator,
where globals, program instances, FUNCTION/METHOD frames (and their pristine images)
live, string literals and scratch buffers, the table of source locations (runtime
errors carry an index into it), and our own function names (`pou3`) for every POU.
`BodyLowering` lowers one POU body into one njit function.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stc import ast
from stc import types as T
from stc.codegen import emit
from stc.codegen.layout import STORES, Allocator, Record, Size, Sizer, add
from stc.codegen.lower_call import CallLowering
from stc.codegen.lower_expr import CodegenError, ExprLowering, Loc, StrVal, offset
from stc.codegen.lower_std import StdLowering
from stc.codegen.lower_stmt import StmtLowering
from stc.runtime.strings import string_buffer
from stc.sema.iolist import canonical_address
from stc.sema.model import POUInfo, SemanticModel, Variable

BASES = ("bi", "br", "bl", "bs", "bw")
ARRAYS = "mi, mr, ml, ms, mw"
CHUNK_LINES = 300
"""Generated lines per njit function before a POU body is split (compile time, measured)."""
SCAN_SIGNATURE_TEXT = "int64(int64[::1], float32[::1], float64[::1], uint8[::1], uint16[::1], int64, int64, int64[::1])"
SCAN_DECORATOR = f'@njit("{SCAN_SIGNATURE_TEXT}", cache=True, error_model="numpy")'
SCAN_PARAMS = [*ARRAYS.split(", "), "now", "scan_no", "err"]
SCAN_RETURN = "return np.int64(err[0] + 0 * (mi.size + mr.size + ml.size + ms.size + mw.size))"


@dataclass
class Frame:
    """The static frame of a FUNCTION or METHOD, and its pristine image."""

    record: Record
    base: Size
    image: Size


@dataclass
class ProgramLowering:
    model: SemanticModel
    sizer: Sizer = field(default_factory=Sizer)
    alloc: Allocator = field(default_factory=Allocator)
    globals: dict[int, Size] = field(default_factory=dict)
    instances: list[tuple[str, POUInfo, Size]] = field(default_factory=list)
    frames: dict[int, Frame] = field(default_factory=dict)
    statics: dict[int, tuple[Record, Size]] = field(default_factory=dict)
    temp_images: dict[int, Size] = field(default_factory=dict)
    direct: dict[str, tuple[int, T.Type]] = field(default_factory=dict)
    literals: dict[tuple[str, bool], tuple[int, int]] = field(default_factory=dict)
    locations: list[tuple[str, int, int]] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)
    pous: list[POUInfo] = field(default_factory=list)
    _loc_index: dict[tuple[str, int, int], int] = field(default_factory=dict)

    # ------------------------------------------------------------------ planning

    def plan(self) -> None:
        """Allocate every region except literals/scratch (allocated while lowering)."""
        for v in self.model.globals.values():
            if v.section != "INSTANCE":
                self.globals[id(v)] = self.alloc.take(self.sizer.size(v.type))
        for inst in self.model.entry:
            self.instances.append((inst.name, inst.pou, self.alloc.take(self.sizer.fb(inst.pou).size)))
        for info in self.model.pous.values():
            self.pous.append(info)
            self.pous.extend(info.methods.values())
        for i, info in enumerate(self.pous):
            self.names[id(info)] = f"pou{i + 1}"
            if info.kind in ("FUNCTION", "METHOD"):
                rec = Record(info.name)
                for v in info.variables.values():
                    if v.owner is info and v.section not in ("VAR_STAT", "VAR_INST"):
                        rec.add(v.name.upper(), v.name, v.type, v.section, self.sizer)
                self.frames[id(info)] = Frame(rec, self.alloc.take(rec.size), self.alloc.take(rec.size))
                if info.kind == "FUNCTION":
                    srec = Record(info.name)
                    for v in info.variables.values():
                        if v.owner is info and v.section == "VAR_STAT":
                            srec.add(v.name.upper(), v.name, v.type, v.section, self.sizer)
                    self.statics[id(info)] = (srec, self.alloc.take(srec.size))
            else:
                rec = self.sizer.fb(info)
                assert rec.temp_start is not None
                temp = tuple(a - b for a, b in zip(rec.size, rec.temp_start, strict=True))
                self.temp_images[id(info)] = self.alloc.take(temp)  # type: ignore[arg-type]
        located = {canonical_address(v.location): v for v in self.model.globals.values()
                   if v.location is not None and not v.location.wildcard}
        for _name, info, base in self.instances:
            rec = self.sizer.fb(info)
            for v in info.variables.values():
                if v.owner is info and v.location is not None and not v.location.wildcard:
                    located.setdefault(canonical_address(v.location), (rec.fields[v.name.upper()], base))
        self.located = located

    # ------------------------------------------------------------------ lookups used while lowering

    def fn_name(self, info: POUInfo) -> str:
        return self.names[id(info)]

    def frame(self, info: POUInfo) -> Frame:
        return self.frames[id(info)]

    def loc_id(self, pou: str, pos: ast.Pos) -> str:
        key = (pou, pos.line, pos.col)
        k = self._loc_index.get(key)
        if k is None:
            k = len(self.locations)
            self.locations.append(key)
            self._loc_index[key] = k
        return f"np.int64({k})"

    def global_loc(self, v: Variable) -> Loc:
        return Loc(tuple(str(b) for b in self.globals[id(v)]), v.type)

    def program_var_loc(self, info: POUInfo, member: str, pos: ast.Pos) -> Loc:
        for _name, pinfo, base in self.instances:
            if pinfo is info:
                f = self.sizer.fb(info).fields[member.upper()]
                return Loc(tuple(str(b) for b in add(base, f.offset)), f.type)
        raise CodegenError(f"PROGRAM '{info.name}' is not instantiated", pos)

    def direct_loc(self, loc: ast.Location) -> Loc:
        address = canonical_address(loc)
        hit = self.located.get(address)
        if isinstance(hit, Variable):
            return self.global_loc(hit)
        if hit is not None:
            f, base = hit
            return Loc(tuple(str(b) for b in add(base, f.offset)), f.type)
        if address not in self.direct:
            t = {"X": T.BOOL, "B": T.BYTE, "W": T.WORD, "D": T.DWORD, "L": T.LWORD}[loc.size or "X"]
            self.direct[address] = (self.alloc.take((1, 0, 0, 0, 0))[0], t)
        cell, t = self.direct[address]
        return Loc((str(cell), "0", "0", "0", "0"), t)

    def literal(self, text: str, wide: bool) -> StrVal:
        key = (text, wide)
        if key not in self.literals:
            n = len(string_buffer(text, None, wide))
            size = (0, 0, 0, 0, n) if wide else (0, 0, 0, n, 0)
            self.literals[key] = (self.alloc.take(size)[4 if wide else 3], n)
        start, n = self.literals[key]
        st = "mw" if wide else "ms"
        return StrVal(f"{st}[{start}:{start + n}]", f"np.int64({n})", wide)

    def scratch_loc(self, t: T.StringType) -> Loc:
        base = self.alloc.take(self.sizer.size(t))
        return Loc(tuple(str(b) for b in base), t)

    # ------------------------------------------------------------------ whole program

    def functions(self) -> list[str]:
        out = []
        flat = self.flat_program()
        for info in self.pous:
            if info.kind == "PROGRAM" and not any(i is info for _n, i, _b in self.instances):
                continue
            out.append(BodyLowering(self, info).function(as_scan=info is flat))
        if flat is None:
            out.append(self.scan_function())
        return out

    def flat_program(self) -> POUInfo | None:
        """The PROGRAM whose body is the scan itself (the only instance), else None.

        One njit function less: numba links and re-optimises every callee's code into its
        caller, so a wrapper level costs about as much LLVM time as the body (measured).
        """
        if len(self.instances) == 1:
            return self.instances[0][1]
        return None

    def scan_function(self) -> str:
        em = emit.Emitter()
        em.out("mi[0] = 0")
        for k, (_name, info, base) in enumerate(self.instances):
            call = f"{self.fn_name(info)}({ARRAYS}, {', '.join(emit.typed(str(b)) for b in base)}, now, err)"
            if k == 0:
                em.out(call)
            else:
                em.out("if err[0] == 0:")
                em.out("    " + call)
        em.out(SCAN_RETURN)
        return emit.function("scan", SCAN_PARAMS, em, SCAN_DECORATOR)


class BodyLowering(CallLowering, StdLowering, StmtLowering, ExprLowering):
    """One POU body -> one njit function."""

    def __init__(self, g: ProgramLowering, pou: POUInfo) -> None:
        self.g = g
        self.pou = pou
        self.em = emit.Emitter(indent=2)
        self.needs_check = False
        self.loop_depth = 0
        self.uses_return_flag = False
        self.last_result: Any = None
        self.bases: tuple[str, ...] = BASES
        own = [base for _n, info, base in g.instances if info is pou]
        if pou.kind == "PROGRAM" and len(own) == 1:
            self.bases = tuple(str(b) for b in own[0])  # one instance: absolute offsets fold

    def loc_id(self, pos: ast.Pos) -> str:
        return self.g.loc_id(self.pou.name, pos)

    def has_instance(self) -> bool:
        return self.pou.kind in ("PROGRAM", "FUNCTION_BLOCK", "METHOD")

    def this_loc(self) -> Loc:
        if not self.has_instance():
            raise CodegenError("THIS^ outside a FUNCTION_BLOCK", self.pou.pos)
        fb = self.pou.fb if self.pou.kind == "METHOD" else self.pou
        return Loc(self.bases, fb.type)  # type: ignore[union-attr]

    def var_loc(self, v: Variable) -> Loc:
        owner = v.owner
        if owner is None:
            return self.g.global_loc(v)
        if owner.kind in ("PROGRAM", "FUNCTION_BLOCK"):
            mine = self.pou if self.pou.kind != "METHOD" else self.pou.fb
            if owner is not mine:
                raise CodegenError(f"'{v.name}' is not visible here", v.pos)
            f = self.g.sizer.fb(owner).fields[v.name.upper()]
            loc = Loc(self.bases, f.type).shifted(f.offset, f.type)
        elif owner.kind == "METHOD" and v.section in ("VAR_INST", "VAR_STAT"):
            fb = owner.fb
            assert fb is not None
            f = self.g.sizer.fb(fb).fields[f"{owner.name.upper()}.{v.name.upper()}"]
            loc = Loc(BASES, f.type).shifted(f.offset, f.type)
        elif owner.kind == "FUNCTION" and v.section == "VAR_STAT":
            rec, base = self.g.statics[id(owner)]
            f = rec.fields[v.name.upper()]
            return Loc(tuple(str(b) for b in add(base, f.offset)), f.type)
        else:
            frame = self.g.frame(owner)
            f = frame.record.fields[v.name.upper()]
            loc = Loc(tuple(str(b) for b in add(frame.base, f.offset)), f.type)
        if v.section == "VAR_IN_OUT":
            return self.deref(loc)
        return loc

    def _v__Code(self, e: Any) -> str:
        return e.code

    def params(self) -> list[str]:
        return [*ARRAYS.split(", "), *(BASES if self.has_instance() else ()), "now", "err"]

    def function(self, as_scan: bool = False) -> str:
        """The POU's njit function (or the scan itself, for the only PROGRAM instance); a
        long body is split into chunk functions (numba's compile time grows faster than
        linearly with the size of one function)."""
        info = self.pou
        self.em = emit.Emitter(indent=2)
        pieces: list[list[tuple[int, str]]] = []
        for stmt in info.node.body:
            mark = self.em.mark()
            self.statement(stmt)
            pieces.append(self.em.lines[mark:])
        chunks: list[list[tuple[int, str]]] = [[]]
        for piece in pieces:
            if chunks[-1] and len(chunks[-1]) + len(piece) > CHUNK_LINES:
                chunks.append([])
            chunks[-1].extend(piece)
        name = self.g.fn_name(info)
        params = self.params()
        # absolute offsets (one instance): chunks need no base parameters
        chunk_params = params if self.bases == BASES else [p for p in params if p not in BASES]
        out = []
        self.em = emit.Emitter(indent=1)
        if as_scan:
            self.em.out("mi[0] = 0")
        if info.kind in ("PROGRAM", "FUNCTION_BLOCK"):
            rec = self.g.sizer.fb(info)
            assert rec.temp_start is not None
            size = tuple(a - b for a, b in zip(rec.size, rec.temp_start, strict=True))
            dst = tuple(offset(b, o) for b, o in zip(self.bases, rec.temp_start, strict=True))
            self.reset_block(dst, self.g.temp_images[id(info)], size)
        if len(chunks) == 1:
            if self.uses_return_flag:
                self.em.out("rf = 0")
            self._wrapped(chunks[0])
        else:
            self.em.out("rf = 0")
            for k, lines in enumerate(chunks):
                chunk = emit.Emitter(indent=1)
                chunk.out("rf = 0")
                saved, self.em = self.em, chunk
                self._wrapped(lines)
                self.em = saved
                chunk.out("return rf")
                out.append(emit.function(f"{name}_{k}", chunk_params, chunk))
                call = f"rf = {name}_{k}({', '.join(chunk_params)})"
                self.em.out(call if k == 0 else "if rf == 0:")
                if k:
                    self.em.out("    " + call)
        if as_scan:
            self.em.out(SCAN_RETURN)
            out.append(emit.function("scan", SCAN_PARAMS, self.em, SCAN_DECORATOR))
        else:
            self.em.out("return")
            out.append(emit.function(name, params, self.em))
        return "\n\n".join(out)

    def _wrapped(self, lines: list[tuple[int, str]]) -> None:
        self.em.out("while True:")
        self.em.lines.extend(lines)
        self.em.out("    break")


def lower_program(model: SemanticModel) -> tuple[ProgramLowering, list[str]]:
    g = ProgramLowering(model)
    g.plan()
    return g, g.functions()


__all__ = ["ProgramLowering", "BodyLowering", "lower_program", "STORES"]
