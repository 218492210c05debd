"""STRING/WSTRING functions of §9 against its examples and a Python-slicing reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stc.runtime import strings as s
from stc.runtime.strings import buffer_text, string_buffer

TEXT = st.text(alphabet="ABC", max_size=8)
SMALL = st.integers(-3, 12)


def call(fn, *args, capacity=80, wide=False):
    """Run a string function on Python strs/ints; returns the result text."""
    dst = np.zeros(capacity, dtype=np.uint16 if wide else np.uint8)
    flat = []
    for a in args:
        if isinstance(a, str):
            flat += [string_buffer(a, max(len(a), 1), wide), len(a)]
        else:
            flat.append(a)
    return buffer_text(dst, fn(dst, *flat))


def ref_mid(x, n, p):
    return "" if p < 1 or p > len(x) or n <= 0 else x[p - 1 : p - 1 + n]


def ref_delete(x, n, p):
    return x if p < 1 or p > len(x) else x[: p - 1] + x[p - 1 + max(n, 0) :]


def ref_insert(a, b, p):
    p = min(max(p, 0), len(a))
    return a[:p] + b + a[p:]


def ref_replace(a, b, n, p):
    return a if p < 1 or p > len(a) else ref_insert(ref_delete(a, n, p), b, p - 1)


def test_spec_examples():
    assert call(s.s_mid, "ASTRING", 3, 2) == "STR"
    assert call(s.s_insert, "ABC", "XY", 2) == "ABXYC"
    assert call(s.s_delete, "ABXYC", 2, 3) == "ABC"
    assert call(s.s_replace, "ABCDE", "X", 2, 3) == "ABXE"
    a, b = string_buffer("ABCBC"), string_buffer("BC")
    assert s.s_find(a, 5, b, 2) == 2


def test_edge_cases():
    assert call(s.s_left, "ABC", 5) == "ABC"
    assert call(s.s_left, "ABC", -1) == ""
    assert call(s.s_right, "ABC", 2) == "BC"
    assert call(s.s_mid, "ABC", 2, 0) == ""
    assert call(s.s_mid, "ABC", 2, 4) == ""
    assert call(s.s_mid, "ABC", 9, 2) == "BC"
    assert call(s.s_delete, "ABC", 1, 0) == "ABC"
    assert call(s.s_insert, "ABC", "X", 9) == "ABCX"
    assert call(s.s_insert, "ABC", "X", -2) == "XABC"
    assert call(s.s_replace, "ABC", "X", 1, 4) == "ABC"
    assert call(s.s_concat, "AB", "CD") == "ABCD"
    e = string_buffer("")
    assert s.s_find(string_buffer("ABC"), 3, e, 0) == 0  # FIND with '' is 0


def test_results_truncate_to_destination_capacity():
    assert call(s.s_concat, "ABCD", "EFGH", capacity=6) == "ABCDEF"
    assert call(s.s_insert, "ABCD", "XY", 1, capacity=4) == "AXYB"
    assert call(s.s_assign, "HELLO", capacity=3) == "HEL"
    assert call(s.s_replace, "ABCDE", "XYZ", 1, 2, capacity=5) == "AXYZC"


def test_wstring_buffers_work_the_same():
    assert call(s.s_concat, "Ä€", "x", wide=True) == "Ä€x"
    assert call(s.s_mid, "ASTRING", 3, 2, wide=True) == "STR"


def test_string_wstring_conversions():
    wide = string_buffer("Aé€", wide=True)
    narrow = np.zeros(2, dtype=np.uint8)
    assert buffer_text(narrow, s.s_narrow(narrow, wide, 3)) == "Aé"  # truncated to STRING(2)
    narrow = np.zeros(8, dtype=np.uint8)
    assert buffer_text(narrow, s.s_narrow(narrow, wide, 3)) == "Aé?"
    back = np.zeros(8, dtype=np.uint16)
    assert buffer_text(back, s.s_assign(back, string_buffer("Aé"), 2)) == "Aé"


def test_latin1_bytes_roundtrip():
    assert call(s.s_concat, "ÿ", "é") == "ÿé"


@settings(deadline=None)  # first calls compile
@given(x=TEXT, n=SMALL, p=SMALL)
def test_left_right_mid_delete_match_reference(x, n, p):
    k = min(max(n, 0), len(x))
    assert call(s.s_left, x, n) == x[:k]
    assert call(s.s_right, x, n) == x[len(x) - k :]
    assert call(s.s_mid, x, n, p) == ref_mid(x, n, p)
    assert call(s.s_delete, x, n, p) == ref_delete(x, n, p)


@settings(deadline=None)  # first calls compile
@given(a=TEXT, b=TEXT, n=SMALL, p=SMALL, cap=st.integers(1, 20))
def test_insert_replace_concat_match_reference(a, b, n, p, cap):
    assert call(s.s_insert, a, b, p, capacity=cap) == ref_insert(a, b, p)[:cap]
    assert call(s.s_replace, a, b, n, p, capacity=cap) == ref_replace(a, b, n, p)[:cap]
    assert call(s.s_concat, a, b, capacity=cap) == (a + b)[:cap]


@settings(deadline=None)  # first calls compile
@given(a=TEXT, b=TEXT)
def test_find_and_compare_match_reference(a, b):
    ba, bb = string_buffer(a, 8), string_buffer(b, 8)
    assert s.s_find(ba, len(a), bb, len(b)) == (a.find(b) + 1 if b else 0)
    assert s.s_compare(ba, len(a), bb, len(b)) == (a > b) - (a < b)


@pytest.mark.parametrize(("a", "b", "order"), [("abc", "abd", -1), ("ab", "abc", -1),
                                               ("B", "a", -1), ("x", "x", 0), ("b", "a", 1)])  # fmt: skip
def test_compare_is_bytewise_and_case_sensitive(a, b, order):
    assert s.s_compare(string_buffer(a), len(a), string_buffer(b), len(b)) == order
