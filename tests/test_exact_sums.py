"""Exact sums (``predtron._exact``): the compiled extraction, its exponent bins and the NumPy twin
against the implementation they replaced (kept here as the slow reference) and against ``Fraction``."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from predtron._exact import ExactSums, exact_square
from predtron.engine import scans

_OFFSET, _BINS, _HALF = 1080, 2110, 26
_ROWS, _BLOCK, _DENSE_BINS = 1 << 25, 1 << 18, 1 << 22


class ReferenceExactSums:
    """Exact running sums of the columns of float64 matrices.

    Parameters
    ----------
    width : int
        Number of columns (1 for a sum of scalars).

    Notes
    -----
    :meth:`add` takes finite values (the estimators check them before); :meth:`combine` adds
    another accumulator's sums; :meth:`fractions` returns the exact sums and :meth:`means` the
    correctly rounded means.
    """

    def __init__(self, width: int):
        self.width = int(width)
        self.keys = np.zeros(0, dtype=np.int64)
        self.hi = np.zeros(0, dtype=np.int64)
        self.lo = np.zeros(0, dtype=np.int64)

    def add(self, values) -> ReferenceExactSums:
        """Add the rows of ``values`` (shape ``(n, width)``, or ``(n,)`` when ``width`` is 1)."""
        V = np.asarray(values, dtype=np.float64).reshape(-1, self.width)
        size = self.width * _BINS
        if size > _DENSE_BINS:
            for start in range(0, V.shape[0], _ROWS):
                hi, lo, keys = self._split(V[start:start + _ROWS])
                block_keys, inverse = np.unique(keys, return_inverse=True)
                self._merge(block_keys.astype(np.int64),
                            np.bincount(inverse, weights=hi, minlength=len(block_keys)).astype(np.int64),
                            np.bincount(inverse, weights=lo, minlength=len(block_keys)).astype(np.int64))
            return self
        # Dense bins: running float64 tables, exact while a bin holds fewer than 2**26 values (each
        # below 2**27), merged as integers every _ROWS rows.
        rows = max(1, min(_ROWS, _BLOCK // self.width))  # blocks whose temporaries stay in the cache
        for outer in range(0, V.shape[0], _ROWS):
            hs, ls = np.zeros(size), np.zeros(size)
            for start in range(outer, min(V.shape[0], outer + _ROWS), rows):
                hi, lo, keys = self._split(V[start:start + rows])
                hs += np.bincount(keys, weights=hi, minlength=size)
                ls += np.bincount(keys, weights=lo, minlength=size)
            used = np.flatnonzero((hs != 0) | (ls != 0))
            self._merge(used.astype(np.int64), hs[used].astype(np.int64), ls[used].astype(np.int64))
        return self

    def _split(self, V: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(hi, lo, keys)`` of the values: ``m * 2**53 = hi * 2**26 + lo`` with integer ``hi``, ``lo``
        held exactly as floats, and each value's bin (column and binary exponent); a zero adds
        nothing to its bin, whatever its exponent."""
        m, e = np.frexp(V)
        hi = np.floor(m * 134217728.0)  # 2**27
        lo = m * 9007199254740992.0 - hi * 67108864.0  # 2**53, 2**26
        keys = np.add(e, (np.arange(self.width, dtype=np.intp) * _BINS + _OFFSET)[None, :], dtype=np.intp)
        return hi.ravel(), lo.ravel(), keys.ravel()

    def _merge(self, keys: np.ndarray, hi: np.ndarray, lo: np.ndarray) -> None:
        merged, inverse = np.unique(np.concatenate([self.keys, keys]), return_inverse=True)
        his = np.zeros(len(merged), dtype=np.int64)
        los = np.zeros(len(merged), dtype=np.int64)
        np.add.at(his, inverse, np.concatenate([self.hi, hi]))
        np.add.at(los, inverse, np.concatenate([self.lo, lo]))
        self.keys, self.hi, self.lo = merged, his, los

    def combine(self, other: ReferenceExactSums) -> ReferenceExactSums:
        """Add the sums of ``other`` (of the same width) to these."""
        if other.width != self.width:
            raise ValueError(f"other must sum {self.width} columns; got {other.width}")
        self._merge(other.keys, other.hi, other.lo)
        return self

    def fractions(self) -> list[Fraction]:
        """The exact sum of every column."""
        totals = [0] * self.width
        base = _OFFSET + 53
        for key, hi, lo in zip(self.keys.tolist(), self.hi.tolist(), self.lo.tolist(), strict=True):
            column, exponent = divmod(key, _BINS)
            totals[column] += ((hi << _HALF) + lo) << exponent  # in units of 2**-(_OFFSET + 53)
        return [Fraction(t, 1 << base) for t in totals]

    def means(self, n: int) -> np.ndarray:
        """Every column's exact sum divided by ``n``, rounded once (0 for ``n == 0``)."""
        if n == 0:
            return np.zeros(self.width)
        return np.array([float(t / n) for t in self.fractions()], dtype=np.float64)


def _fractions(columns, exponents, hi, lo, width):
    totals = [Fraction(0)] * width
    for j, e, h, low in zip(columns.tolist(), exponents.tolist(), hi.tolist(), lo.tolist(), strict=True):
        totals[j] += Fraction((h << _HALF) + low) * Fraction(2) ** (e - 53)
    return totals


def _reference(X, square=False):
    width = X.shape[1]
    if square:
        p, e = exact_square(X)
        return ReferenceExactSums(width).add(p).add(e).fractions()
    return ReferenceExactSums(width).add(X).fractions()


# every binary scale: huge, tiny, subnormal, negative, zeros of both signs, few-bit values
_scales = st.sampled_from([0.0, -0.0, 1.0, -3.0, 0.1, 1e-5, 1e5, 1e-300, -1e-310, 5e-324, 1e300, -1.7e308,
                           2.0 ** -1000])
_values = st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=64), _scales,
                    st.floats(-10.0, 10.0), st.integers(-2 ** 53, 2 ** 53).map(float))


@st.composite
def _matrices(draw):
    n = draw(st.integers(0, 40))
    width = draw(st.integers(1, 5))
    X = draw(arrays(np.float64, (n, width), elements=_values))
    if draw(st.booleans()):  # one column's ordinary values, times one scale per column
        with np.errstate(over="ignore", invalid="ignore"):
            X = X * np.array(draw(st.lists(_scales, min_size=width, max_size=width)))
        X[~np.isfinite(X)] = 1.0
    return X


def _squarable(X):
    """``X`` with the values whose square overflows (which the reference sums to nothing meaningful)
    replaced by 1."""
    return np.where(np.abs(X) < 1e150, X, 1.0)


@settings(max_examples=300, deadline=None)
@given(_matrices(), st.booleans())
def test_every_path_gives_the_reference_sums(X, square):
    """The compiled extraction, the compiled exponent bins and the NumPy twin all give the sums of
    the implementation they replaced, which are the exact ones (squares: of Dekker's ``p + e``, which
    underflow below about 1e-154 as the reference's do)."""
    if square:
        X = _squarable(X)
    expected = _reference(X, square)
    if not square:
        assert expected == [sum((Fraction(v) for v in X[:, j]), Fraction(0)) for j in range(X.shape[1])]
    width = X.shape[1]
    for path in (scans._exact_levels, scans._exact_bins_by_exponent, scans._exact_bins_numpy):
        out = path(np.ascontiguousarray(X), square)
        assert out[0] and _fractions(*out[1:], width) == expected, path
    sums = ExactSums(width).add_squares(X) if square else ExactSums(width).add(X)
    assert sums.fractions() == expected


@settings(max_examples=100, deadline=None)
@given(_matrices(), st.lists(st.integers(0, 40), max_size=4), st.booleans())
def test_chunks_and_shards_combine_to_the_whole(X, cuts, square):
    if square:
        X = _squarable(X)
    bounds = sorted({0, X.shape[0], *[min(c, X.shape[0]) for c in cuts]})
    width = X.shape[1]

    def add(part):
        return ExactSums(width).add_squares(part) if square else ExactSums(width).add(part)

    chunked = ExactSums(width)
    for a, b in itertools.pairwise(bounds):
        (chunked.add_squares if square else chunked.add)(X[a:b])
    sharded = ExactSums(width)
    for a, b in itertools.pairwise(bounds):
        sharded.combine(add(X[a:b]))
    assert chunked.fractions() == sharded.fractions() == add(X).fractions() == _reference(X, square)
    n = X.shape[0]
    assert np.array_equal(add(X).means(n), sharded.means(n))


def test_long_columns_cross_many_blocks_and_levels():
    """Columns of 5000 rows (several blocks of the extraction) with a range that needs several
    levels, and one too wide for them (every value binned)."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((5000, 4)) * np.array([1.0, 1e-8, 1e12, 1.0])
    X[::7, 1] *= 1e-12
    X[::11, 3] = 1e-200  # needs far more than EXACT_MAX_LEVELS levels
    for square in (False, True):
        expected = _reference(X, square)
        for path in (scans._exact_levels, scans._exact_bins_by_exponent):
            out = path(X, square)
            assert out[0] and _fractions(*out[1:], 4) == expected
        # the extraction ran for the first three columns: a few levels each, not one bin per exponent
        levels = scans._exact_levels(X[:, :3], square)
        assert len(levels[1]) <= 3 * scans.EXACT_MAX_LEVELS < len(scans._exact_bins_by_exponent(X[:, :3], square)[1])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("square", [False, True])
def test_a_value_that_is_not_finite_is_summed_as_before(bad, square):
    """The estimators refuse such values first; the sums keep what the reference made of them."""
    X = np.array([[1.0, 2.0], [bad, 3.0]])
    assert not scans._exact_levels(X, square)[0]
    with np.errstate(invalid="ignore"):
        sums = ExactSums(2).add_squares(X) if square else ExactSums(2).add(X)
        assert sums.fractions() == _reference(X, square)


def test_wide_rows_take_the_sorted_bins_in_the_twin():
    """More than 2**22 / 2110 columns: the twin finds the bins by sorting (the reference's other path)."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((3, 2500)) * 10.0 ** rng.integers(-20, 20, size=(3, 2500))
    expected = _reference(X)
    assert _fractions(*scans._exact_bins_numpy(X, False)[1:], 2500) == expected
    assert ExactSums(2500).add(X).fractions() == expected
