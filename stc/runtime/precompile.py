"""Compile (or load from numba's cache) every helper for the argument types generated code
passes, so a worker process pays helper compilation once, before its first program."""

from __future__ import annotations

import time

import numpy as np

from stc.runtime import checks, convert, errors, fbs, ints, reals, strings, timefns


def precompile() -> dict[str, float]:
    """Call each helper once with its canonical types.

    Returns seconds per helper name (`module.helper`), summed over its type variants; a
    first call includes compiling or loading it (and helpers it calls for the first time).
    """
    err = errors.new_error_state()
    i, u = np.int64(1), np.uint64(1)
    r, lr = np.float32(1.5), np.float64(1.5)
    done: dict[str, float] = {}

    def run(module, name, *args):
        start = time.perf_counter()
        getattr(module, name)(*args)
        key = f"{module.__name__.rsplit('.', 1)[1]}.{name}"
        done[key] = done.get(key, 0.0) + time.perf_counter() - start

    run(errors, "raise_error", err, i, i)
    run(errors, "raise_warning", err, i, i)
    err[:] = 0
    for name in ("wrap_sint", "wrap_int", "wrap_dint", "wrap_lint", "wrap_usint", "wrap_uint",
                 "wrap_udint", "wrap_ulint", "to_bool", "abs_int", "bit_mask"):  # fmt: skip
        run(ints, name, i)
    for name in ("wrap_sint", "wrap_int", "wrap_dint", "wrap_lint",
                 "wrap_usint", "wrap_uint", "wrap_udint", "wrap_ulint"):  # fmt: skip
        run(ints, name, u)
    for name in ("div_int", "mod_int"):
        run(ints, name, err, i, i, i)
    for name in ("div_ulint", "mod_ulint"):
        run(ints, name, err, i, u, u)
    for name in ("shl", "shr", "rol", "ror"):
        run(ints, name, err, i, i, i, i)
        run(ints, name, err, i, u, i, i)
    run(ints, "get_bit", i, i)
    run(ints, "set_bit", i, i, i)
    run(ints, "cmp_ulint_lint", u, i)

    for x in (r, lr):
        for name in ("real_to_signed", "real_to_unsigned", "trunc_to_signed", "trunc_to_unsigned"):
            run(reals, name, err, i, x, np.int64(16))
        for name in ("real_to_ulint", "trunc_to_ulint"):
            run(reals, name, err, i, x)
    run(reals, "div_real", err, i, r, r)
    run(reals, "div_lreal", err, i, lr, lr)
    run(reals, "expt_real", r, r)
    run(reals, "expt_lreal", lr, lr)

    for x in (r, lr):
        run(timefns, "time_mul_real", err, i, i, x)
        run(timefns, "time_div_real", err, i, i, x)
    for name in ("tod_add", "dt_add", "seconds_diff_to_time"):
        run(timefns, name, i, i)
    for name in ("time_to_ltime", "ltime_to_time"):
        run(timefns, name, i)

    for name in ("check_index", "check_subrange"):
        run(checks, name, err, i, i, i, i)
    run(checks, "check_mux", err, i, i, i)
    run(checks, "check_for_step", err, i, i)

    for dtype in (np.uint8, np.uint16):
        a = np.zeros(8, dtype=dtype)
        b = np.zeros(8, dtype=dtype)
        run(strings, "s_assign", a, b, i)
        run(strings, "s_narrow", np.zeros(8, dtype=np.uint8), b, i)
        run(strings, "s_left", a, b, i, i)
        run(strings, "s_right", a, b, i, i)
        run(strings, "s_mid", a, b, i, i, i)
        run(strings, "s_concat", a, b, i, b, i)
        run(strings, "s_insert", a, b, i, b, i, i)
        run(strings, "s_delete", a, b, i, i, i)
        run(strings, "s_replace", a, b, i, b, i, i, i)
        run(strings, "s_find", a, i, b, i)
        run(strings, "s_compare", a, i, b, i)

        run(convert, "int_to_text", a, i)
        run(convert, "int_to_text", a, u)
        run(convert, "bool_to_text", a, i)
        run(convert, "real_to_text", a, r)
        run(convert, "lreal_to_text", a, lr)
        run(convert, "time_to_text", a, i)
        run(convert, "ltime_to_text", a, i)
        for name in ("text_to_int", "text_to_ulint", "text_to_real", "text_to_bool"):
            run(convert, name, err, i, b, i)
        run(convert, "text_to_duration", err, i, b, i, i)
    run(convert, "bcd_to_int", err, i, i, i)
    run(convert, "int_to_bcd", err, i, i, i)

    mem = np.zeros(16, dtype=np.int64)
    for name in ("r_trig_step", "f_trig_step", "sr_step", "rs_step",
                 "ctu_ulint_step", "ctd_ulint_step", "ctud_ulint_step"):  # fmt: skip
        run(fbs, name, mem, i)
    for name in ("ctu_step", "ctd_step", "ctud_step"):
        run(fbs, name, mem, i, i, i)
    for name in ("ton_step", "tof_step", "tp_step"):
        run(fbs, name, mem, i, i)
    return done
