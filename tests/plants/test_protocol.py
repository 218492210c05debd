"""The device protocol helpers: tick conversion and per-condition column filling."""

import numpy as np
import pytest

from plants.devices import cylinder, dol, protocol


def test_ticks_round_seconds_to_whole_ticks():
    assert protocol.ticks(1.0) == 100 and protocol.ticks(0.3) == 30 and protocol.ticks(0.004) == 0


def test_make_rows_fills_scalars_per_condition_lists_and_full_arrays():
    pa = dol.make_params(3, 2, pickup=[2, 4, 6], tau_acc=np.array([[0.1, 0.2]] * 3))
    assert pa.shape == (3, 2)
    assert pa["pickup"].tolist() == [[2, 2], [4, 4], [6, 6]]
    assert pa["tau_acc"][:, 1].tolist() == [0.2, 0.2, 0.2] and np.all(pa["tau_coast"] == 0.5)
    assert np.all(pa["ol_from"] == protocol.NEVER)


def test_make_rows_rejects_unknown_columns():
    with pytest.raises(KeyError, match="t_extend"):
        cylinder.make_params(1, t_extend=0.3)


def test_a_1d_sequence_is_per_condition_even_when_units_have_the_same_count():
    pa = dol.make_params(2, 2, pickup=[1, 3], dropout=np.array([[5, 7]]))
    assert pa["pickup"].tolist() == [[1, 1], [3, 3]]
    assert pa["dropout"].tolist() == [[5, 7], [5, 7]]
