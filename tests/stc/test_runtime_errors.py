"""Error state, helpers composed inside njit code the way generated code calls them, and the
contract that keeps numba from compiling one helper specialisation per constant value."""

import numpy as np
import pytest
from numba import njit, types
from numba.core.registry import CPUDispatcher

from stc.runtime import checks, errors, fbs, ints, reals, strings
from stc.runtime.errors import (
    DIV_ZERO,
    ERR_CODE,
    ERR_LOC,
    FOR_STEP_ZERO,
    INDEX_RANGE,
    MUX_RANGE,
    SUBRANGE,
    new_error_state,
)

LOC_DIV = np.int64(11)
LOC_IDX = np.int64(12)
W16 = np.int64(16)


@njit(cache=True)
def scan_body(err, mem, a, b, r):
    """A miniature generated scan: typed constants, wrap at stores, helpers for / and MOD."""
    q = ints.wrap_int(ints.div_int(err, LOC_DIV, a, b))
    m = ints.wrap_int(ints.mod_int(err, LOC_DIV, a, b))
    s = ints.wrap_int(ints.shl(err, LOC_DIV, a, np.int64(1), W16))
    i = checks.check_index(err, LOC_IDX, b, np.int64(0), np.int64(3))
    mem[8 + i] = reals.real_to_signed(err, LOC_DIV, r, W16)
    mem[0] = a
    fbs.ton_step(mem, np.int64(0), np.int64(10) * b)
    return q + m + s


def test_helpers_compose_in_njit_and_report_the_first_error():
    err = new_error_state()
    mem = np.zeros(16, dtype=np.int64)
    assert scan_body(err, mem, np.int64(-7), np.int64(2), np.float32(2.5)) == -3 - 1 + -14
    assert err[ERR_CODE] == 0 and mem[10] == 2
    assert scan_body(err, mem, np.int64(7), np.int64(0), np.float32(0.0)) == 14
    assert (err[ERR_CODE], err[ERR_LOC]) == (DIV_ZERO, LOC_DIV)
    err = new_error_state()
    scan_body(err, mem, np.int64(30), np.int64(5), np.float32(0.0))  # index 5 outside 0..3
    assert (err[ERR_CODE], err[ERR_LOC]) == (INDEX_RANGE, LOC_IDX)


def test_checks_return_safe_values():
    err = new_error_state()
    assert checks.check_index(err, 1, 5, 1, 10) == 5
    assert checks.check_subrange(err, 1, 10, 1, 10) == 10
    assert checks.check_mux(err, 1, 2, 3) == 2
    assert checks.check_for_step(err, 1, -1) == 1
    assert err[ERR_CODE] == 0
    for call, code in [
        (lambda e: checks.check_index(e, 1, 11, 1, 10), INDEX_RANGE),
        (lambda e: checks.check_subrange(e, 1, 0, 1, 10), SUBRANGE),
        (lambda e: checks.check_mux(e, 1, 3, 3), MUX_RANGE),
        (lambda e: checks.check_mux(e, 1, -1, 3), MUX_RANGE),
        (lambda e: checks.check_for_step(e, 1, 0), FOR_STEP_ZERO),
    ]:
        e = new_error_state()
        assert call(e) in (0, 1)  # the lower bound, or "do not run the loop"
        assert e[ERR_CODE] == code


def test_error_names_and_messages():
    assert errors.code_name(DIV_ZERO) == "DIV_ZERO"
    assert errors.code_name(int(errors.WATCHDOG)) == "WATCHDOG"
    assert errors.code_message(DIV_ZERO) == "division by zero"
    assert errors.is_warning(errors.BAD_NUMBER_TEXT) and not errors.is_warning(DIV_ZERO)
    assert set(errors.NAMES) == set(errors.MESSAGES)
    assert errors.code_name(999) == "UNKNOWN_999"


def _runtime_dispatchers():
    from stc.runtime import convert, textparse, timefns

    for module in (checks, convert, errors, fbs, ints, reals, strings, textparse, timefns):
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.__module__ == module.__name__:
                yield f"{module.__name__.rsplit('.', 1)[1]}.{name}", obj


@pytest.mark.slow  # compiles every helper when the numba cache is cold (~30 s)
def test_precompile_covers_every_public_helper_without_literal_specialisations():
    from stc.runtime.precompile import precompile

    exercised = set(precompile())
    scan_body(new_error_state(), np.zeros(16, np.int64), np.int64(1), np.int64(1), np.float32(1))
    public = {
        name
        for name, _ in _runtime_dispatchers()
        if not name.split(".")[1].startswith("_") and not name.startswith("textparse.")
    }  # textparse is exercised through convert
    aliases = {"ints.wrap_byte", "ints.wrap_word", "ints.wrap_dword", "ints.wrap_lword"}
    aliases |= {"fbs.lton_step", "fbs.ltof_step", "fbs.ltp_step"}
    assert public - aliases <= exercised
    literal = {
        name: sig
        for name, disp in _runtime_dispatchers()
        for sig in disp.signatures
        if any(isinstance(t, types.Literal) for t in sig)
    }
    assert literal == {}
