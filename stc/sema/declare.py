"""Declarations: user types, globals and POU variables with fully evaluated initial values.

Types resolve on demand (a TYPE may use one declared later, STRUCT EXTENDS flattens the
base first); POUs declare on demand too, so an FB instance's default value can include
the defaults of an FB declared further down the file.
"""

from __future__ import annotations

from typing import Any

from stc import ast, stdlib
from stc import types as T
from stc.ast import NOT_CONST
from stc.diagnostics import Diagnostics
from stc.sema import consteval as C
from stc.sema.model import EnumValue, POUInfo, ProgramInstance, SemanticModel, UserType, Variable
from stc.sema.resolve import Resolver
from stc.sema.symbols import Scope, check_reserved, program_type

# Compiler limits: one variable may hold at most this many scalar cells / bytes. Every
# condition of a verification run gets its own copy of program memory, so a few bad
# declarations must not be able to exhaust the host.
MAX_ARRAY_ELEMENTS = 1_000_000
MAX_VARIABLE_BYTES = 64 * 1024 * 1024
MAX_PROGRAM_BYTES = 64 * 1024 * 1024
# Initial values are Python objects (one per scalar cell): bound their total so that a
# short hostile text cannot make the checker build hundreds of millions of them.
MAX_PROGRAM_CELLS = 4_000_000

# Sections allowed per POU kind (§2.1).
ALLOWED_SECTIONS = {
    "PROGRAM": {"VAR", "VAR_TEMP", "VAR_INPUT", "VAR_OUTPUT", "VAR_EXTERNAL"},
    "FUNCTION_BLOCK": {"VAR", "VAR_TEMP", "VAR_INPUT", "VAR_OUTPUT", "VAR_IN_OUT", "VAR_EXTERNAL", "VAR_STAT"},
    "FUNCTION": {"VAR", "VAR_INPUT", "VAR_OUTPUT", "VAR_IN_OUT", "VAR_EXTERNAL", "VAR_STAT"},
    "METHOD": {"VAR", "VAR_TEMP", "VAR_INPUT", "VAR_OUTPUT", "VAR_IN_OUT", "VAR_STAT", "VAR_INST"},
}
UNSUPPORTED_SECTIONS = {"VAR_ACCESS", "VAR_CONFIG"}


class Declarer:
    def __init__(self, model: SemanticModel, type_decls: dict[str, ast.TypeDecl], resolver: Resolver,
                 diags: Diagnostics) -> None:
        self.model = model
        self.type_decls = type_decls
        self.r = resolver
        self.diags = diags
        self.global_scope = Scope(model, None)
        self._resolving: set[str] = set()
        self._declared: set[POUInfo] = set()
        self._declaring: set[POUInfo] = set()
        self._cells = 0  # scalar cells of all initial values built so far

    def error(self, msg: str, pos: ast.Pos) -> T.Type:
        self.diags.error(msg, pos.line, pos.col)
        return T.ERROR

    # ------------------------------------------------------------------ all

    def declare_all(self) -> None:
        for k in self.type_decls:
            self.user_type(k)
        src = self.model.source
        for block in src.globals:
            self.declare_block(block, None, self.global_scope)
        for cfg in src.configurations:
            for block in cfg.globals:
                self.declare_block(block, None, self.global_scope)
            for res in cfg.resources:
                for block in res.globals:
                    self.declare_block(block, None, self.global_scope)
        for info in list(self.model.pous.values()):
            self.declare_pou(info)
            for m in info.methods.values():
                self.declare_pou(m)

    # ------------------------------------------------------------------ types

    def user_type(self, k: str) -> UserType | None:
        ut = self.model.types.get(k)
        if ut is not None:
            return ut
        td = self.type_decls.get(k)
        if td is None:
            return None
        if k in self._resolving:
            self.error(f"type '{td.name}' is defined in terms of itself", td.pos)
            return UserType(td.name, T.ERROR, None, td.pos)
        self._resolving.add(k)
        ty = self.typeref(td.type, self.global_scope, td.name)
        init = None
        if td.init is not None:
            init = self.initial_value(td.init, ty, self.global_scope, td.name)
        elif isinstance(ty, T.EnumType) and isinstance(td.type, ast.EnumType):
            init = ty.initial
        ut = UserType(td.name, ty, init, td.pos)
        if isinstance(ty, T.EnumType) and init is not None and isinstance(init, int):
            ty.default = init
        self.model.types[k] = ut
        self._resolving.discard(k)
        return ut

    def typeref(self, ref: ast.TypeRef, scope: Scope, name: str = "") -> T.Type:
        if isinstance(ref, ast.NamedType):
            return self.named_type(ref.name, ref.pos)
        if isinstance(ref, ast.StringType):
            n = 80
            if ref.length is not None:
                v = self.r.const_int(ref.length, scope, "string length")
                if v is None:
                    return T.ERROR
                if not 1 <= v <= 65535:
                    return self.error(f"STRING length {v} is out of range 1..65535", ref.length.pos)
                n = v
            return T.StringType(n, ref.wide)
        if isinstance(ref, ast.ArrayType):
            return self.array_type(ref, scope)
        if isinstance(ref, ast.SubrangeType):
            base = T.elementary(ref.base)
            if base is None or not T.is_anyint(base):
                return self.error(f"subrange base type must be an integer type, got '{ref.base}'", ref.pos)
            lo = self.r.const_int(ref.lo, scope, "subrange bound")
            hi = self.r.const_int(ref.hi, scope, "subrange bound")
            if lo is None or hi is None:
                return T.ERROR
            if lo > hi:
                return self.error(f"subrange {lo}..{hi}: lower bound greater than upper bound", ref.pos)
            if not (T.fits(lo, base) and T.fits(hi, base)):
                return self.error(f"subrange {lo}..{hi} is outside the range of {base.name}", ref.pos)
            return T.SubrangeType(base, lo, hi)
        if isinstance(ref, ast.EnumType):
            return self.enum_type(ref, scope, name)
        if isinstance(ref, ast.StructType):
            return self.struct_type(ref, scope, name)
        return self.error(f"unsupported type {type(ref).__name__}", ref.pos)

    def named_type(self, name: str, pos: ast.Pos) -> T.Type:
        k = ast.key(name)
        e = T.elementary(k)
        if e is not None:
            return e
        if k in ("STRING", "WSTRING"):
            return T.StringType(80, k == "WSTRING")
        ut = self.user_type(k)
        if ut is not None:
            return ut.type
        info = self.model.pous.get(k)
        if info is not None:
            if info.kind == "FUNCTION_BLOCK":
                return self.r.fb_type(info)
            return self.error(f"'{info.name}' is a {info.kind}, not a type", pos)
        fb = self.r.standard_fb(k)
        if fb is not None:
            return fb
        if k in ("POINTER", "REFERENCE"):  # already rejected by the parser
            return T.ERROR
        if k in stdlib.OTHER_FBS or k.startswith(stdlib.LIBRARY_FB_PREFIXES):
            return self.error(f"unknown function block type '{name}'", pos)
        return self.error(f"unknown type '{name}'", pos)

    def array_type(self, ref: ast.ArrayType, scope: Scope) -> T.Type:
        dims: list[tuple[int, int]] = []
        bad = False
        for d in ref.dims:
            lo = self.r.const_int(d.lo, scope, "array bound")
            hi = self.r.const_int(d.hi, scope, "array bound")
            if lo is None or hi is None:
                bad = True
                continue
            if lo > hi:
                self.error(f"array bounds {lo}..{hi}: lower bound greater than upper bound", d.pos)
                bad = True
                continue
            dims.append((lo, hi))
        elem = self.typeref(ref.elem, scope)
        if bad or elem is T.ERROR:
            return T.ERROR
        at = T.ArrayType(tuple(dims), elem)
        count = _total_elements(at)
        size = T.byte_size(at) or 0
        if count > MAX_ARRAY_ELEMENTS or size > MAX_VARIABLE_BYTES:
            return self.error(f"array too large: {count} elements (limit {MAX_ARRAY_ELEMENTS} elements, "
                              f"{MAX_VARIABLE_BYTES // (1024 * 1024)} MB)", ref.pos)
        return at

    def enum_type(self, ref: ast.EnumType, scope: Scope, name: str) -> T.Type:
        base = T.INT
        if ref.base:
            b = T.elementary(ref.base)
            if b is None or not T.is_anyint(b):
                return self.error(f"enumeration base type must be an integer type, got '{ref.base}'", ref.pos)
            base = b
        et = T.EnumType(name or "<enum>", base=base)
        nxt = 0
        for en in ref.values:
            k = ast.key(en.name)
            if en.value is not None:
                v = self.r.const_int(en.value, scope, "enumerator value")
                nxt = v if v is not None else nxt
            if k in et.values:
                self.error(f"duplicate enumerator '{en.name}' in '{et.name}'", en.pos)
                continue
            if not T.fits(nxt, base):
                self.error(f"enumerator value {nxt} is out of range of {base.name}", en.pos)
            et.values[k] = nxt
            et.spelling[k] = en.name
            self.model.enumerators.setdefault(k, []).append(EnumValue(et, en.name, nxt))
            nxt += 1
        return et

    def struct_type(self, ref: ast.StructType, scope: Scope, name: str) -> T.Type:
        st = T.StructType(name or "<struct>")
        if ref.extends:
            base = self.user_type(ast.key(ref.extends))
            if base is None or not isinstance(base.type, T.StructType):
                self.error(f"unknown struct type '{ref.extends}' in EXTENDS", ref.pos)
            else:
                st.members.extend(base.type.members)
        for decl in ref.members:
            ty = self.typeref(decl.type, scope)
            for dn in decl.names:
                if st.member(dn.name) is not None:
                    self.error(f"duplicate member '{dn.name}' in '{st.name}'", dn.pos)
                    continue
                init = None
                if decl.init is not None and ty is not T.ERROR:
                    init = self.initial_value(decl.init, ty, scope, dn.name)
                elif ty is not T.ERROR:
                    init = self.type_default(decl.type, ty)
                st.members.append(T.StructMember(dn.name, ty, init, dn.pos))
        return st

    # ------------------------------------------------------------------ initial values

    def type_default(self, ref: ast.TypeRef | None, ty: T.Type) -> Any:
        """The value of a variable without initializer (alias defaults, FB defaults)."""
        if isinstance(ref, ast.NamedType):
            ut = self.model.types.get(ast.key(ref.name))
            if ut is not None and ut.init is not None:
                return ut.init
        return self.default(ty)

    def default(self, ty: T.Type) -> Any:
        if isinstance(ty, T.FBType) and not ty.standard:
            info: POUInfo = ty.pou
            self.declare_pou(info)
            return {v.name: v.init for v in info.variables.values()
                    if v.owner is info and v.section not in ("VAR_TEMP", "VAR_EXTERNAL", "VAR_IN_OUT", "RESULT")}
        if isinstance(ty, T.ArrayType):
            return C.repeat(self.default(ty.elem), ty.count)
        return C.default_value(ty)

    def initial_value(self, init: ast.Init, ty: T.Type, scope: Scope, name: str) -> Any:
        if ty is T.ERROR:
            return None
        if isinstance(init, ast.ArrayInit):
            return self._array_init(init, ty, scope, name)
        if isinstance(init, ast.StructInit):
            return self._struct_init(init, ty, scope, name)
        t = self.r.expr(init, scope, ty)
        if t is T.ERROR:
            return self.default(ty)
        if isinstance(T.base_of(ty), T.FBType):
            self.error(f"FB instance '{name}' needs an initializer list like (PT := T#5s)", init.pos)
            return self.default(ty)
        self.r.coerce(init, ty, "")
        if init.const is NOT_CONST:
            self.error(f"initial value of '{name}' must be a constant expression", init.pos)
            return self.default(ty)
        return C.store(init.const, ty)

    def _array_init(self, init: ast.ArrayInit, ty: T.Type, scope: Scope, name: str) -> Any:
        if not isinstance(ty, T.ArrayType):
            self.error(f"array initializer for '{name}' of type {ty}", init.pos)
            return self.default(ty)
        values: list[Any] = []
        surplus: ast.Pos | None = None
        for item in init.items:
            n = 1
            if item.repeat is not None:
                r = self.r.const_int(item.repeat, scope, "repetition count")
                n = max(r or 0, 0)
            v = self.initial_value(item.value, ty.elem, scope, name)
            if surplus is None and len(values) + n > ty.count:
                surplus = item.pos
            values.extend(C.repeat(v, n))
        if surplus is not None:
            self.error(f"too many initial values for '{name}': {len(values)} given, the array has "
                       f"{ty.count} elements", surplus)
            values = values[: ty.count]
        return values + C.repeat(self.default(ty.elem), ty.count - len(values))

    def _struct_init(self, init: ast.StructInit, ty: T.Type, scope: Scope, name: str) -> Any:
        value = self.default(ty)
        if isinstance(ty, T.StructType):
            for f in init.fields:
                m = ty.member(f.name)
                if m is None:
                    self.error(f"'{ty.name}' has no member '{f.name}'", f.pos)
                    continue
                value[m.name] = self.initial_value(f.value, m.type, scope, f"{name}.{m.name}")
            return value
        if isinstance(ty, T.FBType):
            for f in init.fields:
                p = ty.find(f.name) if ty.standard else None
                if not ty.standard:
                    v = ty.pou.variables.get(ast.key(f.name))
                    p = T.Param(v.name, v.type, v.section) if v is not None and v.owner is ty.pou else None
                if p is None or p.section in ("VAR_TEMP", "RESULT"):
                    self.error(f"'{ty.name}' has no variable '{f.name}'", f.pos)
                    continue
                value[p.name] = self.initial_value(f.value, p.type, scope, f"{name}.{p.name}")
            return value
        self.error(f"structure initializer for '{name}' of type {ty}", init.pos)
        return value

    # ------------------------------------------------------------------ variables

    def declare_pou(self, info: POUInfo) -> None:
        if info in self._declared or info in self._declaring:
            return
        self._declaring.add(info)
        node = info.node
        scope = Scope(self.model, info)
        if info.kind == "FUNCTION_BLOCK":
            self.r.fb_type(info)
        elif info.kind == "PROGRAM":
            program_type(info)
        if isinstance(node, ast.Function | ast.Method):
            ret = self.typeref(node.return_type, scope) if node.return_type is not None else T.VOID
            info.return_type = ret
            if ret is not T.VOID:
                info.variables[ast.key(info.name)] = Variable(
                    info.name, ret, "RESULT", node.pos, init=self.type_default(node.return_type, ret), owner=info)
        for block in node.var_blocks:
            self.declare_block(block, info, scope)
        if isinstance(info.type, T.FBType):
            info.type.params = [T.Param(v.name, v.type, v.section) for v in info.variables.values()
                                if v.owner is info]
        if isinstance(node, ast.Function):
            info.type = T.FunctionType(info.name, info.return_type, [], info)
        self._declaring.discard(info)
        self._declared.add(info)

    def declare_block(self, block: ast.VarBlock, info: POUInfo | None, scope: Scope) -> None:
        kind = block.kind
        pos = block.pos
        if kind in UNSUPPORTED_SECTIONS:
            self.error(f"{kind} is not supported by plantloop", pos)
            return
        if info is None and kind != "VAR_GLOBAL":
            self.error(f"{kind} is not allowed at top level", pos)
            return
        if info is not None:
            if kind == "VAR_INST" and info.kind != "METHOD":
                self.error("VAR_INST is only allowed in a METHOD", pos)
            elif kind == "VAR_GLOBAL":
                self.error("VAR_GLOBAL is only allowed at top level or in a CONFIGURATION/RESOURCE", pos)
            elif kind not in ALLOWED_SECTIONS[info.kind]:
                self.error(f"{kind} is not allowed in a {info.kind}", pos)
            retain = sorted(block.qualifiers & {"RETAIN", "PERSISTENT", "NON_RETAIN"})
            if retain and info.kind in ("FUNCTION", "METHOD"):
                # the AST has no qualifier position: it follows the section keyword and one blank
                self.error(f"{retain[0]} is not allowed in a {info.kind}", ast.Pos(pos.line, pos.col + len(kind) + 1))
        for decl in block.decls:
            self.declare_var(decl, block, info, scope)

    def declare_var(self, decl: ast.VarDecl, block: ast.VarBlock, info: POUInfo | None, scope: Scope) -> None:
        table = info.variables if info is not None else self.model.globals
        if block.kind == "VAR_EXTERNAL":
            self._external(decl, block, info, scope)
            return
        ty = self.typeref(decl.type, scope, decl.names[0].name if isinstance(decl.type, ast.EnumType) else "")
        self._cells += storage_cells(ty)
        if self._cells > MAX_PROGRAM_CELLS and ty is not T.ERROR:
            self.error(f"program too large: more than {MAX_PROGRAM_CELLS} variable cells in total", decl.type.pos)
            ty = T.ERROR
        if isinstance(ty, T.FBType) and not ty.standard and info is not None:
            info.calls.setdefault(ty.pou, decl.type.pos)
        init: Any
        if decl.init is not None:
            init = self.initial_value(decl.init, ty, scope, decl.names[0].name)
        else:
            init = self.type_default(decl.type, ty) if ty is not T.ERROR else None
            if block.constant:
                self.error(f"constant '{decl.names[0].name}' must have an initial value", decl.pos)
        if isinstance(T.base_of(ty), T.FBType) and info is not None and info.kind == "FUNCTION" and block.kind == "VAR":
            self.diags.warning(f"FB instance '{decl.names[0].name}' in a FUNCTION is re-initialised at every "
                               "call and keeps no state", decl.pos.line, decl.pos.col)
        for dn in decl.names:
            k = ast.key(dn.name)
            if not check_reserved(dn.name, dn.pos, self.diags):
                continue
            if k in table:
                prev = table[k]
                what = "the function result" if prev.section == "RESULT" else f"'{prev.name}'"
                self.error(f"duplicate declaration of '{dn.name}' (conflicts with {what} at line {prev.pos.line})",
                           dn.pos)
                continue
            if info is not None and k in self.model.globals:
                g = self.model.globals[k]
                self.diags.warning(f"'{dn.name}' shadows the global variable declared at line {g.pos.line}",
                                   dn.pos.line, dn.pos.col)
            table[k] = Variable(
                dn.name, ty, block.kind, dn.pos, init=init, constant=block.constant,
                retain=bool(block.qualifiers & {"RETAIN", "PERSISTENT"}), location=decl.location,
                owner=info, decl=decl)

    def _external(self, decl: ast.VarDecl, block: ast.VarBlock, info: POUInfo | None, scope: Scope) -> None:
        assert info is not None
        ty = self.typeref(decl.type, scope)
        for dn in decl.names:
            g = self.model.globals.get(ast.key(dn.name))
            if g is None:
                self.error(f"VAR_EXTERNAL '{dn.name}' does not match a global variable", dn.pos)
                continue
            if ty is not T.ERROR and g.type is not T.ERROR and not T.same_type(ty, g.type):
                self.error(f"VAR_EXTERNAL '{dn.name}' has type {ty} but the global has type {g.type}", dn.pos)
            if block.constant is False and g.constant:
                self.error(f"VAR_EXTERNAL '{dn.name}' must be CONSTANT: the global is a constant", dn.pos)
            info.variables[ast.key(dn.name)] = g

    # ------------------------------------------------------------------ entry point

    def declare_entry(self) -> None:
        """The PROGRAM instances executed each scan (§2): the CONFIGURATION's, or the single PROGRAM."""
        src = self.model.source
        if len(src.configurations) > 1:
            c = src.configurations[1]
            self.error("only one CONFIGURATION is allowed", c.pos)
        if src.configurations:
            cfg = src.configurations[0]
            self.model.configuration = cfg.name
            instances = [*cfg.instances] + [i for r in cfg.resources for i in r.instances]
            instances.sort(key=lambda i: (i.pos.line, i.pos.col))
            for res in cfg.resources:
                for task in res.tasks:
                    if task.properties:
                        # no position for the property list in the AST: `TASK name (` + one blank assumed
                        col = task.pos.col + len("TASK ") + len(task.name) + 2
                        self.diags.warning(
                            f"TASK '{task.name}' properties are ignored: the harness cycle (10 ms) is the only clock",
                            task.pos.line, col)
            for inst in instances:
                info = self.model.pous.get(ast.key(inst.type_name))
                if info is None or info.kind != "PROGRAM":
                    self.error(f"unknown PROGRAM type '{inst.type_name}'", _instance_type_pos(inst))
                    continue
                k = ast.key(inst.name)
                if k in self.model.globals:
                    self.error(f"duplicate declaration of '{inst.name}'", inst.pos)
                    continue
                self.model.globals[k] = Variable(inst.name, program_type(info), "INSTANCE", inst.pos)
                self.model.entry.append(ProgramInstance(inst.name, info, inst.task, inst.pos))
            if not instances:
                self.error("the CONFIGURATION instantiates no PROGRAM", cfg.pos)
            return
        programs = [p for p in self.model.pous.values() if p.kind == "PROGRAM"]
        if not programs:
            self.error("no PROGRAM found: the file must contain exactly one PROGRAM (or a CONFIGURATION)",
                       ast.Pos(1, 1))
        elif len(programs) > 1:
            p = programs[1]
            self.error("multiple PROGRAMs; keep one or add a CONFIGURATION", p.pos)
        else:
            p = programs[0]
            self.model.entry.append(ProgramInstance(p.name, p, None, p.pos))

    def check_memory(self) -> None:
        """The whole program's memory (globals and PROGRAM instances) must fit the limit."""
        total = sum(storage_bytes(v.type) for v in self.model.globals.values() if v.section != "INSTANCE")
        for inst in self.model.entry:
            total += sum(storage_bytes(v.type) for v in inst.pou.variables.values() if v.owner is inst.pou)
        if total > MAX_PROGRAM_BYTES:
            where = self.model.entry[0].pos if self.model.entry else ast.Pos(1, 1)
            self.error(f"program memory too large: {total} bytes (limit {MAX_PROGRAM_BYTES // (1024 * 1024)} MB)",
                       where)


def _total_elements(t: T.Type) -> int:
    """Scalar cells of an array, through arrays of arrays."""
    n = 1
    while isinstance(t, T.ArrayType):
        n *= t.count
        t = t.elem
    return n


def _instance_type_pos(inst: ast.ProgramInstance) -> ast.Pos:
    """Where the type of `PROGRAM name [WITH task] : Type` starts (single blanks assumed:
    the AST has no position for it)."""
    col = inst.pos.col + len("PROGRAM ") + len(inst.name) + len(" : ")
    if inst.task:
        col += len(" WITH ") + len(inst.task)
    return ast.Pos(inst.pos.line, col)


def storage_bytes(t: T.Type, seen: frozenset[int] = frozenset()) -> int:
    """Approximate bytes of program memory one value of `t` occupies (structs and FB
    instances included), for the whole-program memory limit."""
    t = T.base_of(t)
    n = T.byte_size(t)
    if n is not None:
        return n
    if isinstance(t, T.ArrayType):
        return t.count * storage_bytes(t.elem, seen)
    if isinstance(t, T.StructType):
        return sum(storage_bytes(m.type, seen) for m in t.members)
    if isinstance(t, T.FBType):
        if id(t) in seen:  # an FB that contains itself: already a recursion error
            return 0
        inner = seen | {id(t)}
        if t.standard or t.pou is None:
            return sum(storage_bytes(p.type, inner) for p in t.params) + 16
        return sum(storage_bytes(v.type, inner) for v in t.pou.variables.values()
                   if v.owner is t.pou and v.section not in ("VAR_EXTERNAL", "RESULT"))
    return 8


def storage_cells(t: T.Type) -> int:
    """Scalar cells of one initial value of `t` (the cost of building it)."""
    t = T.base_of(t)
    if isinstance(t, T.ArrayType):
        return t.count * storage_cells(t.elem)
    if isinstance(t, T.StructType):
        return max(1, sum(storage_cells(m.type) for m in t.members))
    if isinstance(t, T.FBType):
        return max(1, len(t.params))
    return 1
