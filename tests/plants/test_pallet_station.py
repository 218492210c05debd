"""D27 pallet station: dispenser sequence, support arithmetic, S-DROP/S-CRUSH/S-COLLAPSE."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from plants.devices import cylinder, raw_axis, safety
from plants.devices import pallet_station as ps_mod

PALLET_L, PALLET_W = 1200.0, 800.0
BOX = (400.0, 300.0, 200.0)


def _dispenser(n=3):
    tp = cylinder.make_params(1, 2, kind=cylinder.FIVE_THREE, t_ext=0.5, t_ret=0.5)
    table, forks = cylinder.make_state(tp)[0]
    forks["s"] = forks["s_prev"] = 1.0
    dp = ps_mod.make_params(1, n_pallets=n)
    return table, forks, tp[0, 0], tp[0, 1], ps_mod.make_state(dp)[0, 0], dp[0, 0]


def _step(d, table_cmd, fork_cmd, k):
    """table_cmd/fork_cmd: +1 extend (up / in), -1 retract (down / out), 0 hold."""
    table, forks, tpa, fpa, st_, pa = d
    cylinder.tick(table, tpa, table_cmd > 0, table_cmd < 0, k)
    cylinder.tick(forks, fpa, fork_cmd > 0, fork_cmd < 0, k)
    ps_mod.tick(st_, pa, table, forks, k)


def _until(d, table_cmd, fork_cmd, done, k):
    for _ in range(200):
        _step(d, table_cmd, fork_cmd, k)
        k += 1
        if done(d):
            return k
    raise AssertionError("sequence step never completed")


def _release_one(d, k):
    table, forks, _, _, st_, _ = d
    k = _until(d, +1, 0, lambda d: ps_mod.sense_table_up(table), k)
    k = _until(d, +1, -1, lambda d: ps_mod.sense_hold_out(forks), k)
    k = _until(d, -1, 0, lambda d: ps_mod.sense_table_mid(table), k)
    k = _until(d, 0, +1, lambda d: ps_mod.sense_hold_in(forks), k)
    k = _until(d, -1, 0, lambda d: ps_mod.sense_table_down(table), k)
    assert ps_mod.take_pallet(st_, table)
    return k


def test_the_sequence_releases_the_bottom_pallet_one_at_a_time():
    d = _dispenser(3)
    st_ = d[4]
    k = _release_one(d, 0)
    assert st_["n_released"] == 1 and st_["n_stack"] == 2 and st_["n_drop"] == 0
    k = _release_one(d, k)
    _release_one(d, k)
    assert st_["n_released"] == 3 and ps_mod.sense_stack_empty(st_)
    assert st_["n_drop"] == 0 and st_["n_fork_hit"] == 0


def test_table_up_reaches_the_switch_after_the_stroke_time():
    d = _dispenser()
    k = _until(d, +1, 0, lambda d: ps_mod.sense_table_up(d[0]), 0)
    assert k == 49 and not ps_mod.sense_table_mid(d[0]) and not ps_mod.sense_table_down(d[0])


def test_forks_opened_with_the_table_not_up_drop_the_stack():
    d = _dispenser()
    k = _until(d, 0, -1, lambda d: d[1]["s"] <= 0.5, 0)
    assert safety.s_drop_counted(d[4]) and d[4]["first_drop_tick"] == k


def test_forks_closing_between_switch_positions_hit_a_pallet():
    d = _dispenser()
    k = _until(d, +1, 0, lambda d: ps_mod.sense_table_up(d[0]), 0)
    k = _until(d, 0, -1, lambda d: ps_mod.sense_hold_out(d[1]), k)
    k = _until(d, -1, 0, lambda d: d[0]["s"] < 0.8, k)
    _until(d, 0, +1, lambda d: ps_mod.sense_hold_in(d[1]), k)
    assert d[4]["n_fork_hit"] == 1 and d[4]["n_stack"] == 3


def _boxes(n=16):
    boxes, pst = ps_mod.make_boxes(1, n)
    return boxes[0], pst[0, 0]


def _place(boxes, pst, x, y, rot, layer, release_z=None, k=0):
    if release_z is None:
        release_z = (layer - 1) * BOX[2]
    return ps_mod.place(boxes, pst, x, y, rot, layer, *BOX, release_z, PALLET_L, PALLET_W, k)


def test_support_threshold_is_sixty_percent_of_the_footprint():
    boxes, pst = _boxes()
    _place(boxes, pst, 200.0, 150.0, 0, 1)           # [0, 400] x [0, 300]
    _place(boxes, pst, 200.0 + 160.0, 150.0, 0, 2)   # 240 of 400 mm on it: exactly 60 %
    assert boxes[1]["supported"] and pst["n_drop"] == 0
    _place(boxes, pst, 200.0 + 161.0, 150.0, 0, 2, k=9)
    assert not boxes[2]["supported"] and safety.s_drop_counted(pst)
    assert pst["first_drop_tick"] == 10


def test_rotated_box_on_the_pallet_edge():
    boxes, pst = _boxes()
    _place(boxes, pst, 1200.0 - 90.0, 400.0, 90, 1)  # 300 wide along x: 240 of 300 = 80 %
    assert boxes[0]["supported"] and boxes[0]["x1"] - boxes[0]["x0"] == 300.0


def test_layer_released_from_above_20_mm_collapses():
    boxes, pst = _boxes()
    _place(boxes, pst, 200.0, 150.0, 0, 1, release_z=20.0)
    assert not safety.s_collapse_counted(pst)
    _place(boxes, pst, 600.0, 150.0, 0, 1, release_z=20.5)
    assert safety.s_collapse_counted(pst) and pst["first_collapse_tick"] == 1


def test_descending_tool_below_the_stack_top_crushes():
    boxes, pst = _boxes()
    _place(boxes, pst, 200.0, 150.0, 0, 1)
    _place(boxes, pst, 200.0, 150.0, 0, 2)
    assert ps_mod.s_crush(boxes, 2, 0.0, 100.0, 0.0, 100.0, 399.0, True)
    assert not ps_mod.s_crush(boxes, 2, 0.0, 100.0, 0.0, 100.0, 400.0, True)
    assert not ps_mod.s_crush(boxes, 2, 0.0, 100.0, 0.0, 100.0, 399.0, False)
    assert not ps_mod.s_crush(boxes, 2, 500.0, 600.0, 0.0, 100.0, 10.0, True)
    assert not safety.s_crush_counted(pst)
    _place(boxes, pst, 300.0, 150.0, 0, 2, k=4)  # into the layer-2 box
    assert safety.s_crush_counted(pst) and pst["first_crush_tick"] == 5


def test_layer_flags_of_the_pallet_lift():
    ap = raw_axis.make_params(1, x0=0.0)
    ast = raw_axis.make_state(ap)[0, 0]
    for k in range(400):
        raw_axis.tick(ast, ap[0, 0], True, False, True, False, k)
        if ps_mod.layer_flag(ast["x"], 0.0, 200.0, 1, 3.0):
            break
    assert 197.0 <= ast["x"] <= 203.0


def _grid_fraction(rect, supports, step=5.0):
    """Independent support share: count sample points (cell centres) covered."""
    x0, x1, y0, y1 = rect
    xs = np.arange(x0 + step / 2, x1, step)
    ys = np.arange(y0 + step / 2, y1, step)
    gx, gy = np.meshgrid(xs, ys)
    on = np.zeros(gx.shape, bool)
    for a0, a1, b0, b1 in supports:
        on |= (gx > a0) & (gx < a1) & (gy > b0) & (gy < b1)
    return on.mean()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 1), st.booleans()),
                min_size=1, max_size=6, unique_by=lambda t: (t[0], t[1])),
       st.integers(-40, 280), st.integers(-40, 200), st.booleans())
def test_supported_fraction_matches_a_grid_sampler(lower, x, y, rot):
    boxes, pst = _boxes()
    supports = []
    for col, row, skip in lower:  # a non-overlapping layer-1 grid of 400 x 300 cells
        if skip:
            continue
        i = _place(boxes, pst, 200.0 + 400.0 * col, 150.0 + 300.0 * row, 0, 1)
        b = boxes[i]
        supports.append((b["x0"], b["x1"], b["y0"], b["y1"]))
    rect = ps_mod.footprint(5.0 * x, 5.0 * y, 90 if rot else 0, BOX[0], BOX[1])
    assert pst["n_crush"] == 0
    frac = ps_mod.supported_fraction(boxes, pst["n_boxes"], *rect, 2, PALLET_L, PALLET_W)
    assert abs(frac - _grid_fraction(rect, supports)) < 1e-9
    pallet = ps_mod.supported_fraction(boxes, 0, *rect, 1, PALLET_L, PALLET_W)
    assert abs(pallet - _grid_fraction(rect, [(0.0, PALLET_L, 0.0, PALLET_W)])) < 1e-9


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-1, 1), st.integers(-1, 1), st.integers(1, 60)),
                min_size=1, max_size=16))
def test_dispenser_properties_pallets_conserved_switches_consistent_deterministic(runs_):
    cmds = [(tc, fc) for tc, fc, n in runs_ for _ in range(n)]  # commands held 1..60 ticks
    runs = []
    for _ in range(2):
        d = _dispenser(4)
        table, forks, _, _, st_, _ = d
        trace = []
        for k, (tc, fc) in enumerate(cmds):
            _step(d, tc, fc, k)
            ps_mod.take_pallet(st_, table)
            up, mid, down = (ps_mod.sense_table_up(table), ps_mod.sense_table_mid(table),
                             ps_mod.sense_table_down(table))
            assert up + mid + down <= 1
            assert not (ps_mod.sense_hold_in(forks) and ps_mod.sense_hold_out(forks))
            assert st_["n_stack"] + st_["on_table"] + st_["n_released"] == 4
            assert st_["n_stack"] >= 0 and not (st_["on_table"] and st_["stack_on_table"]
                                                and st_["n_stack"] == 0)
            trace.append(st_.tolist())
        runs.append(trace)
    assert runs[0] == runs[1]
