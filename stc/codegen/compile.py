"""Compile generated source with numba, through an on-disk cache shared by processes.

Generated modules are real `.py` files under the cache directory (so numba's own
`cache=True` can cache every function next to them), named by a key over the program
source, the compiler version and a hash of the runtime helpers and of this package:
numba does not notice when a helper in another file changes, so a new helper or code
generator simply means new files. Writes are atomic (temp file + `os.replace`) and a
per-key lock file serialises the first compile, so concurrent workers compile once.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from stc.runtime import RUNTIME_HASH

COMPILER_VERSION = "0.1.0"


def _codegen_hash() -> str:
    digest = hashlib.sha256(RUNTIME_HASH.encode())
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


CODEGEN_HASH = _codegen_hash()


def default_cache_dir() -> Path:
    env = os.environ.get("PLANTLOOP_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "plantloop"


def cache_key(source: str) -> str:
    digest = hashlib.sha256(source.encode("utf-8", errors="surrogatepass"))
    digest.update(f"|{COMPILER_VERSION}|{CODEGEN_HASH}".encode())
    return digest.hexdigest()[:32]


def load_module(key: str, text: str, cache_dir: Path | None = None) -> ModuleType:
    """Write (once) and import the generated module; importing compiles or loads `scan`."""
    name = f"plantloop_gen_{key}"
    if name in sys.modules:
        return sys.modules[name]
    root = (cache_dir or default_cache_dir()) / "gen"
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"p_{key}.py"
    with open(root / f"p_{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                fd, tmp = tempfile.mkstemp(dir=root, suffix=".tmp")
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace(tmp, path)
            spec = importlib.util.spec_from_file_location(name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return module
