"""Public API of the compiler: ST source text -> `CompiledProgram` (or diagnostics).

`compile_source` never raises for any input text: front-end problems, layout limits and
code-generation or numba failures all come back as diagnostics, like `check_source`.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

from stc.codegen import emit
from stc.codegen.compile import CODEGEN_HASH, COMPILER_VERSION, cache_key, load_module
from stc.codegen.layout import LayoutError, Slot
from stc.codegen.lower_expr import CodegenError
from stc.codegen.lower_pou import ProgramLowering, lower_program
from stc.codegen.memory import ImageWriter, instance_slots, slots_of
from stc.codegen.program import CompiledProgram, IOBinding
from stc.codegen.signature import SCAN_SIGNATURE
from stc.diagnostics import Diagnostics
from stc.frontend import IOPoint, check_source
from stc.sema.model import SemanticModel

__all__ = ["CompileResult", "compile_source", "generate_source", "SCAN_SIGNATURE"]


@dataclass
class CompileResult:
    diagnostics: Diagnostics
    program: CompiledProgram | None  # None when there are compile errors
    seconds: float
    cached: bool


def generate_source(model: SemanticModel) -> tuple[ProgramLowering, str]:
    """The generated module text for a checked program (raises CodegenError/LayoutError)."""
    g, functions = lower_program(model)
    text = emit.module(COMPILER_VERSION, CODEGEN_HASH, functions)
    compile(text, "<generated>", "exec")  # Python's own limits (nesting) -> SyntaxError here
    return g, text


def compile_source(text: str, filename: str = "<input>", *, cache_dir: Path | None = None) -> CompileResult:
    start = time.perf_counter()
    checked = check_source(text, filename)
    diags = checked.diagnostics
    if checked.model is None or diags.has_errors:
        return CompileResult(diags, None, time.perf_counter() - start, False)
    try:
        g, source = generate_source(checked.model)
        key = cache_key(text)
        from stc.codegen.compile import default_cache_dir

        gen_file = (cache_dir or default_cache_dir()) / "gen" / f"p_{key}.py"
        cached = gen_file.exists()
        module = load_module(key, source, cache_dir)
        program = _program(g, checked.io, module, text)
        program.module_path = str(gen_file)
    except CodegenError as exc:
        diags.error(exc.message, exc.pos.line, exc.pos.col)
    except LayoutError as exc:
        diags.error(str(exc), 1, 1)
    except (SyntaxError, RecursionError, MemoryError):
        diags.error("program is too complex to compile (nesting too deep for the code generator)", 1, 1)
    except Exception as exc:  # noqa: BLE001 - the contract is "never raises"
        diags.error(f"internal compiler error ({type(exc).__name__}: {str(exc)[:200]}); please report", 1, 1)
    else:
        return CompileResult(diags, program, time.perf_counter() - start, cached)
    return CompileResult(diags, None, time.perf_counter() - start, False)


def _program(g: ProgramLowering, io: list[IOPoint], module: object, text: str) -> CompiledProgram:
    model = g.model
    writer = ImageWriter(g.sizer, g.alloc.sizes)
    slots: dict[str, Slot] = {}
    for v in model.globals.values():
        if v.section != "INSTANCE":
            writer.write(g.globals[id(v)], v.type, v.init)
            slots_of(g.sizer, v.name, v.type, g.globals[id(v)], slots)
    single = model.configuration is None
    for name, info, base in g.instances:
        writer.write_instance(base, info, {})
        instance_slots(g.sizer, "" if single else f"{name}.", info, base, slots)
    for info in g.pous:
        if id(info) in g.frames:
            fr = g.frames[id(info)]
            for v in info.variables.values():
                f = fr.record.fields.get(v.name.upper())
                if v.owner is info and f is not None and v.section != "VAR_IN_OUT":
                    for base in (fr.base, fr.image):
                        writer.write(tuple(a + b for a, b in zip(base, f.offset, strict=True)), v.type, v.init)
        if id(info) in g.statics:
            rec, base = g.statics[id(info)]
            for v in info.variables.values():
                f = rec.fields.get(v.name.upper())
                if v.owner is info and f is not None and v.section == "VAR_STAT":
                    writer.write(tuple(a + b for a, b in zip(base, f.offset, strict=True)), v.type, v.init)
        if id(info) in g.temp_images:
            rec = g.sizer.fb(info)
            image = g.temp_images[id(info)]
            assert rec.temp_start is not None
            for v in info.variables.values():
                if v.owner is info and v.section == "VAR_TEMP":
                    f = rec.fields[v.name.upper()]
                    rel = tuple(a - b + c for a, b, c in zip(f.offset, rec.temp_start, image, strict=True))
                    writer.write(rel, v.type, v.init)
    for (literal, wide), (start, n) in g.literals.items():
        from stc.runtime.strings import string_buffer

        st = "mw" if wide else "ms"
        writer.mem[st][start:start + n] = string_buffer(literal, n, wide)
    for address, (cell, t) in g.direct.items():
        slots[address] = Slot("mi", cell, t)
    bindings = []
    for p in io:
        slot = slots.get(p.name) if p.name else slots.get(p.address)
        if slot is None and not p.name:
            hit = g.located.get(p.address)
            if hit is not None:
                slot = _located_slot(g, hit)
        if slot is not None:
            bindings.append(IOBinding(p, slot))
    return CompiledProgram(module.scan, g.alloc.sizes, slots, bindings, list(g.locations),  # type: ignore[attr-defined]
                           writer.mem, source_sha256=hashlib.sha256(text.encode("utf-8", "replace")).hexdigest())


def _located_slot(g: ProgramLowering, hit: object) -> Slot | None:
    from stc.codegen.layout import storage
    from stc.sema.model import Variable

    loc = g.global_loc(hit) if isinstance(hit, Variable) else None
    if loc is None:
        f, base = hit  # type: ignore[misc]
        st = storage(f.type)
        idx = ("mi", "mr", "ml", "ms", "mw").index(st)
        return Slot(st, base[idx] + f.offset[idx], f.type)
    st = storage(loc.type)
    return Slot(st, int(loc.at(st)), loc.type)
