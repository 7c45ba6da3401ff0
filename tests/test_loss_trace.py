"""LossTrace.extend (what a compiled pass hands over) against LossTrace.add round by round."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from predtron import _history
from predtron._history import LossTrace


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(1e-12, 1e6), max_size=600), st.floats(0, 1e6), st.booleans())
def test_extend_equals_add_round_by_round(losses, start, record):
    """Below and above the size added in Python (_SMALL), the totals are the per-round ones, bit for bit."""
    losses = np.array(losses, dtype=np.float64)
    rounds = np.arange(2, 2 * len(losses) + 1, 2, dtype=np.int64)  # every other round has a loss
    count = 2 * len(losses) + 1
    fast, slow = LossTrace(record), LossTrace(record)
    fast.total = slow.total = start
    fast.extend(count, rounds, losses)
    for loss in losses.tolist():
        slow.skip(1)
        slow.add(loss)
    slow.skip(1)
    assert (fast.total, fast.n_nonzero, fast.n_rounds) == (slow.total, slow.n_nonzero, slow.n_rounds)
    if record:
        np.testing.assert_array_equal(fast.history(), slow.history())


def test_both_sides_of_the_python_sum_are_exercised():
    assert 0 < _history._SMALL < 600
