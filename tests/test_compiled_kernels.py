"""Small compiled kernels of :mod:`predtron.engine` against their NumPy / Python definitions."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from predtron import engine
from predtron._history import LossTrace

finite_or_not = st.floats(allow_nan=True, allow_infinity=True, width=64)


@settings(max_examples=300, deadline=None)
@given(arrays(np.float64, st.integers(0, 70), elements=finite_or_not))
def test_finite_max_abs_matches_numpy(values):
    finite, top = engine.finite_max_abs(values)
    assert finite == bool(np.all(np.isfinite(values)))
    if finite:
        assert top == (float(np.max(np.abs(values))) if values.size else 0.0)
    else:
        assert top == np.inf


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 300), st.integers(0, 299), st.sampled_from([np.nan, np.inf, -np.inf]), st.booleans())
def test_one_non_finite_entry_is_found_anywhere(n, where, bad, negative_zeros):
    """Every position of the vectorised loop and of its tail, among zeros of either sign."""
    values = np.full(n, -0.0 if negative_zeros else 1.5)
    values[where % n] = bad
    assert engine.finite_max_abs(values) == (False, np.inf)


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e6, 1e6), st.lists(st.floats(-1e6, 1e6), max_size=50))
def test_running_sum_is_the_python_loop(start, values):
    expected = start
    for v in values:
        expected += v
    assert engine.running_sum(start, np.array(values, dtype=np.float64)) == expected


def test_trace_extend_equals_adds_bit_for_bit():
    """A compiled pass's losses added at once give the totals of adding them one round at a time."""
    rng = np.random.default_rng(0)
    losses = rng.random(1000) * 10.0 ** rng.integers(-8, 8, 1000)
    rounds = np.sort(rng.choice(5000, size=1000, replace=False)) + 1
    one, batch = LossTrace(record=True), LossTrace(record=True)
    one.add(0.3), batch.add(0.3)
    previous = 0
    for r, loss in zip(rounds.tolist(), losses.tolist(), strict=True):
        one.skip(r - previous - 1)
        one.add(loss)
        previous = r
    one.skip(5000 - previous)
    batch.extend(5000, rounds, losses)
    assert one.total == batch.total and one.n_nonzero == batch.n_nonzero and one.n_rounds == batch.n_rounds
    assert np.array_equal(one.history(), batch.history())
