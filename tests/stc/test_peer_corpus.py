"""Peer corpus: blark's own test sources, each classified inside or outside the plantloop dialect.

blark (GPL-2.0, https://github.com/klauer/blark) parses TwinCAT ST; its test files are the
kind of code plantloop is fed. Files outside the dialect must be rejected with our *named*
message for the construct, never a generic syntax error or a traceback. blark is GPL-2.0, so
its files are not copied into this repository: the test reads them from the pinned blark sdist
(sha256-checked) in $PLANTLOOP_BLARK_CACHE (default ~/.cache/plantloop), fetching it once from
PyPI with `pip download` when it is not there yet. See docs/conformance.md.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tarfile
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PEER = Path(__file__).resolve().parents[1] / "corpus" / "blark"
EXPECTATIONS: dict[str, dict[str, Any]] = tomllib.loads(
    (PEER / "expectations.toml").read_text(encoding="utf-8")
)
SUFFIXES = (".st", ".TcPOU")
SDIST_PREFIX = "blark/tests/"
WRAPS = {"none", "library", "method"}

# --- where the peer files come from ---------------------------------------------------------------


BLARK_SDIST = "blark-0.8.3.tar.gz"
BLARK_SHA256 = "0d6b33ea92a691d6eba529208fff7aec41778a9b39f700fec53090a5db506428"
FETCH_PROBLEM: list[str] = []


def _cache_dir() -> Path:
    return Path(os.environ.get("PLANTLOOP_BLARK_CACHE", Path.home() / ".cache" / "plantloop"))


def _sdist() -> Path | None:
    """The pinned blark sdist, fetched from PyPI into the cache on first use."""
    path = _cache_dir() / BLARK_SDIST
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
               "--no-binary", ":all:", "-d", str(path.parent),
               "blark==0.8.3"]
        try:
            subprocess.run(cmd, check=True, capture_output=True, timeout=120)
        except (subprocess.SubprocessError, OSError) as exc:
            FETCH_PROBLEM.append(f"`{' '.join(cmd)}` failed: {exc} {getattr(exc, 'stderr', b'')!r}")
            return None
    if hashlib.sha256(path.read_bytes()).hexdigest() != BLARK_SHA256:
        FETCH_PROBLEM.append(f"{path} does not have the pinned sha256 {BLARK_SHA256}")
        return None
    return path


def _sdist_members(sdist: Path) -> Iterator[tuple[str, bytes]]:
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            _, _, inner = member.name.partition("/")  # drop the blark-X.Y.Z/ top folder
            if member.isfile() and inner.startswith(SDIST_PREFIX) and inner.endswith(SUFFIXES):
                data = tar.extractfile(member)
                if data is not None:
                    yield inner.removeprefix(SDIST_PREFIX), data.read()


def peer_files() -> dict[str, bytes]:
    """Peer file contents keyed like expectations.toml (empty when the sdist is unavailable)."""
    sdist = _sdist()
    return dict(_sdist_members(sdist)) if sdist else {}


FILES = peer_files()

# --- turning a peer file into one checkable ST source ----------------------------------------------


def _cdata(element: ET.Element | None, tag: str) -> str:
    found = element.find(tag) if element is not None else None
    return (found.text or "") if found is not None else ""


def tcpou_to_st(raw: bytes) -> str:
    """Join a TwinCAT XML object's declaration, body and METHOD/ACTION/PROPERTY parts."""
    root = ET.fromstring(raw)
    obj = next(iter(root))
    parts = [_cdata(obj, "Declaration"), _cdata(obj, "Implementation/ST")]
    for child in obj:
        if child.tag == "Method":
            parts += [
                _cdata(child, "Declaration"),
                _cdata(child, "Implementation/ST"),
                "END_METHOD",
            ]
        elif child.tag == "Action":
            parts += [
                f"ACTION {child.get('Name')}:",
                _cdata(child, "Implementation/ST"),
                "END_ACTION",
            ]
        elif child.tag == "Property":
            parts.append(_cdata(child, "Declaration"))
            for accessor in ("Get", "Set"):
                part = child.find(accessor)
                if part is not None:
                    body = _cdata(part, "Implementation/ST")
                    parts += [accessor.upper(), _cdata(part, "Declaration"), body]
                    parts.append(f"END_{accessor.upper()}")
            parts.append("END_PROPERTY")
    if obj.tag == "POU":
        keyword = parts[0].upper()
        for kind in ("FUNCTION_BLOCK", "PROGRAM", "FUNCTION"):
            if kind in keyword:
                parts.append(f"END_{kind}")
                break
    return "\n".join(parts) + "\n"


def checkable_source(key: str, raw: bytes, wrap: str) -> str:
    """The ST text to check: TcPOU flattened, then the documented fragment wrapper applied."""
    text = tcpou_to_st(raw) if key.endswith(".TcPOU") else raw.decode("utf-8-sig")
    if wrap == "method":
        text = f"FUNCTION_BLOCK PeerHost\n{text}\nEND_FUNCTION_BLOCK\n"
    if wrap in ("method", "library"):
        text = f"{text}\nPROGRAM PeerMain\nEND_PROGRAM\n"
    return text


# --- tests -------------------------------------------------------------------------------------------


def test_peer_files_are_present() -> None:
    assert not FETCH_PROBLEM, "blark peer corpus unavailable: " + "; ".join(FETCH_PROBLEM)
    assert len(FILES) == 27


def test_every_peer_file_is_classified() -> None:
    assert set(FILES) <= set(EXPECTATIONS), sorted(set(FILES) - set(EXPECTATIONS))
    for key, exp in EXPECTATIONS.items():
        assert exp["wrap"] in WRAPS and exp["why"], key
        assert exp["expect"] in ("clean", "reject"), key
        assert (exp["expect"] == "reject") == bool(exp.get("message")), key


def test_tcpou_flattening_keeps_methods_and_actions() -> None:
    raw = (
        b'<?xml version="1.0"?><TcPlcObject><POU Name="FB_A">'
        b"<Declaration><![CDATA[FUNCTION_BLOCK FB_A]]></Declaration>"
        b"<Implementation><ST><![CDATA[x := 1;]]></ST></Implementation>"
        b'<Method Name="M"><Declaration><![CDATA[METHOD M]]></Declaration>'
        b"<Implementation><ST><![CDATA[y := 2;]]></ST></Implementation></Method>"
        b'<Action Name="Act"><Implementation><ST><![CDATA[z := 3;]]></ST></Implementation></Action>'
        b"</POU></TcPlcObject>"
    )
    lines = tcpou_to_st(raw).split("\n")
    assert lines[:9] == [
        "FUNCTION_BLOCK FB_A",
        "x := 1;",
        "METHOD M",
        "y := 2;",
        "END_METHOD",
        "ACTION Act:",
        "z := 3;",
        "END_ACTION",
        "END_FUNCTION_BLOCK",
    ]


@pytest.mark.parametrize("key", sorted(FILES))
def test_peer_file(key: str) -> None:
    try:
        from stc.frontend import check_source
    except ImportError as exc:  # written in parallel with this corpus
        pytest.fail(f"stc.frontend.check_source is not available: {exc}")
    exp = EXPECTATIONS[key]
    text = checkable_source(key, FILES[key], exp["wrap"])
    try:
        result = check_source(text, key)
    except Exception as exc:  # any Python exception on any input is a front-end bug
        pytest.fail(f"check_source raised {type(exc).__name__}: {exc}")
    errors = [f"{d.line}:{d.column}: {d.message}" for d in result.diagnostics.errors]
    if exp["expect"] == "clean":
        assert not errors, f"{key} should check clean ({exp['why']}):\n" + "\n".join(errors)
    else:
        wanted = exp["message"]
        assert any(w in e for e in errors for w in wanted), (
            f"{key} ({exp['why']}) must be rejected with one of {wanted}; got:\n"
            + ("\n".join(errors) or "(no errors)")
        )
