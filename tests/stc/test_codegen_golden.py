"""Golden files of the generated Python for representative programs (tests/stc/golden/).

Reviewing a change to code generation means reviewing the diff of these files. Refresh
them with `PLANTLOOP_UPDATE_GOLDEN=1 pytest tests/stc/test_codegen_golden.py`. Only
source generation runs here (no numba), so the test is fast.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stc.compiler import generate_source
from stc.frontend import check_source

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("PLANTLOOP_UPDATE_GOLDEN") == "1"


def _generated(st: Path) -> str:
    checked = check_source(st.read_text(), st.name)
    assert checked.model is not None, checked.diagnostics.render()
    _g, text = generate_source(checked.model)
    return text.split("\n", 1)[1]  # drop the header line (it carries the code-generator hash)


@pytest.mark.parametrize("st", sorted(GOLDEN.glob("*.st")), ids=lambda p: p.stem)
def test_generated_code_matches_golden(st: Path) -> None:
    expected = st.with_suffix(".py.golden")
    text = _generated(st)
    if UPDATE or not expected.exists():
        expected.write_text(text)
        if not UPDATE:
            pytest.fail(f"golden file {expected.name} was missing and has been written; review it")
    assert text == expected.read_text()


def test_generated_code_has_no_forbidden_constructs() -> None:
    for st in sorted(GOLDEN.glob("*.st")):
        text = _generated(st)
        body = text.split("_jit = njit", 1)[1]
        for bad in (" // ", " % ", " and ", " or ", " if ", " else "):
            lines = [ln for ln in body.splitlines() if bad in ln and not ln.strip().startswith(("if ", "elif "))]
            assert not lines, (st.name, bad, lines[:3])
