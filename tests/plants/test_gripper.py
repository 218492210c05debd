"""D12 jaw gripper and vacuum cup timing."""

from plants.devices import gripper


def _jaws(**values):
    pa = gripper.make_jaws(1, **values)
    return gripper.make_jaw_state(pa)[0, 0], pa[0, 0]


def _cup(**values):
    pa = gripper.make_cups(1, **values)
    return gripper.make_cup_state(pa)[0, 0], pa[0, 0]


def test_jaws_stop_on_a_part_and_release_when_opening():
    s, p = _jaws(t_jaw=0.2, contact=0.6)
    for k in range(30):
        gripper.tick_jaws(s, p, True, True, k)
    assert gripper.sense_gripped(s, p) and s["j"] == 0.6 and s["picked_at"] == 12
    assert not gripper.sense_closed_empty(s)
    gripper.tick_jaws(s, p, False, True, 30)
    assert not s["held"] and s["released_at"] == 31


def test_jaws_close_empty_without_a_part_and_slip_first_attempt():
    s, p = _jaws()
    for k in range(30):
        gripper.tick_jaws(s, p, True, False, k)
    assert gripper.sense_closed_empty(s) and not s["held"]
    s, p = _jaws(slip_first=1)
    for k in range(30):
        gripper.tick_jaws(s, p, True, True, k)
    assert not s["held"] and gripper.sense_closed_empty(s)
    for k in range(30, 60):
        gripper.tick_jaws(s, p, False, True, k)
    assert gripper.sense_opened(s)
    for k in range(60, 90):
        gripper.tick_jaws(s, p, True, True, k)
    assert s["held"]


def test_vacuum_builds_on_a_part_and_releases_faster_with_blow():
    s, p = _cup(build=10, release=10, release_blow=2)
    for k in range(9):
        gripper.tick_cup(s, p, True, False, True, k)
    assert not gripper.sense_vac_ok(s)
    gripper.tick_cup(s, p, True, False, True, 9)
    assert gripper.sense_vac_ok(s) and s["picked_at"] == 10
    gripper.tick_cup(s, p, False, True, True, 10)
    gripper.tick_cup(s, p, False, True, True, 11)
    assert not s["held"] and s["released_at"] == 12


def test_porous_first_attempt_and_leak():
    s, p = _cup(build=5, porous_attempts=1)
    for k in range(20):
        gripper.tick_cup(s, p, True, False, True, k)
    assert not s["held"]
    gripper.tick_cup(s, p, False, False, True, 20)
    for k in range(21, 30):
        gripper.tick_cup(s, p, True, False, True, k)
    assert s["held"]
    s, p = _cup(build=5, leak_at=50)
    for k in range(60):
        gripper.tick_cup(s, p, True, False, True, k)
    assert s["lost_at"] == 50 and not s["held"]


def test_fork_strokes_and_exchanges_totes_when_passing_the_slot_level():
    import numpy as np

    from plants.devices import fork

    pa = fork.make_params(1, t_stroke=1.0)
    s, p = fork.make_state(pa)[0, 0], pa[0, 0]
    for k in range(100):
        fork.tick(s, p, False, True, k)
    assert fork.extended(s) == 1 and not fork.sense_centred(s)
    rack = np.array([0, 42, 0], dtype=np.int32)
    assert fork.exchange(s, rack, 1, 985.0, 1005.0, 1000.0) == 1
    assert s["load"] == 42 and rack[1] == 0
    assert fork.exchange(s, rack, 2, 1015.0, 1000.0, 1000.0) == -1
    assert rack[2] == 42 and s["load"] == 0
    for k in range(100, 200):
        fork.tick(s, p, False, False, k)
    assert fork.sense_centred(s)


def test_capper_places_a_cap_torques_and_strips_when_spinning_too_long():
    from plants.devices import capper, cylinder
    from plants.devices import items as it_mod

    rows = it_mod.make_items([[dict(length=60.0), dict(length=60.0)]])[0]
    hp = cylinder.make_params(1, t_ext=0.3, t_ret=0.3)
    hs = cylinder.make_state(hp)[0, 0]
    pa = capper.make_params(1, t_torque=50, strip=40)
    s, p = capper.make_state(pa, caps=1)[0, 0], pa[0, 0]
    for k in range(30):
        cylinder.tick(hs, hp[0, 0], True, False, k)
        capper.tick(s, p, hs, rows, 0, False, k)
    assert rows[0]["cap"] == it_mod.CAP_ON and not capper.sense_caps_available(s)
    for k in range(30, 80):
        cylinder.tick(hs, hp[0, 0], True, False, k)
        capper.tick(s, p, hs, rows, 0, True, k)
    assert capper.sense_torque_ok(s) and rows[0]["cap"] == it_mod.CAP_TORQUED
    for k in range(80, 121):
        cylinder.tick(hs, hp[0, 0], True, False, k)
        capper.tick(s, p, hs, rows, 0, True, k)
    assert rows[0]["cap"] == it_mod.CAP_STRIPPED
    for k in range(121, 160):
        cylinder.tick(hs, hp[0, 0], k < 150, False, k)
        capper.tick(s, p, hs, rows, 1 if k >= 150 else 0, False, k)
    assert s["n_head_empty"] == 0
    for k in range(160, 200):
        cylinder.tick(hs, hp[0, 0], True, False, k)
        capper.tick(s, p, hs, rows, 1, False, k)
    assert rows[1]["cap"] == it_mod.CAP_NONE  # the chute is empty
