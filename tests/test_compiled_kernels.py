"""Small compiled kernels of :mod:`predtron.engine` against their NumPy / Python definitions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from predtron import engine
from predtron._history import LossTrace
from predtron.engine import scans

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


@pytest.mark.parametrize("values, expected", [
    ([1.7976931348623157e308, -1.7976931348623157e308], (True, 1.7976931348623157e308)),  # the largest finite
    ([5e-324, -1e-310, 0.0], (True, 1e-310)),  # subnormals order as their bits do
    ([-0.0, -0.0], (True, 0.0)),
    ([1.0, float.fromhex("-0x1.8p+1023"), np.inf], (False, np.inf)),
    ([np.float64(np.nan) * -1.0, 1.0], (False, np.inf)),  # a NaN with its sign bit set
    (np.frombuffer(np.uint64(0x7FF0_0000_0000_0001).tobytes(), dtype=np.float64), (False, np.inf)),  # least NaN
])
def test_finite_max_abs_at_the_edges_of_the_bit_order(values, expected):
    """The compiled scan is an integer maximum over the bits below the sign: the largest finite value,
    subnormals, zeros of either sign, infinities and NaNs of any sign and payload."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    assert tuple(scans._finite_max_abs(values)) == expected  # the kernel itself
    assert tuple(engine.finite_max_abs(values)) == expected
    assert scans._finite_max_abs_numpy(values) == expected


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
