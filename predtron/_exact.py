"""Exact sums of float64 values: the same result however the values are split and ordered.

A float sum depends on the order of its additions, so statistics summed over a whole array, over
the chunks of a stream and over the shards of a cluster differ in their last bits.  The
accumulators here keep every sum exactly (as integers per binary exponent) and round once, when
the value is read: the scaler and Theorem 1's step computed from them are equal bit for bit
however the data were cut (``tests/test_statistics.py``).  The sums themselves are made by
:func:`predtron.engine.scans.exact_bins` (compiled: exact float64 extraction in a few passes at
about NumPy's speed; its NumPy twin counts each value's mantissa into bins per exponent), and
``tests/test_exact_sums.py`` checks every path against the former implementation.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from predtron.engine.scans import exact_bins

__all__ = ["ExactSums", "exact_square"]

#: ``numpy.frexp`` exponents of finite float64 values lie in ``[-1073, 1024]``.
_OFFSET = 1080
_BINS = 2110
#: A value is ``M * 2**(e - 53)`` with ``|M| < 2**53``, kept as ``hi * 2**26 + lo``.
_HALF = 26


def exact_square(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(p, e)`` with ``p + e == values**2`` exactly (Dekker's product without a fused multiply-add;
    ``p`` is the rounded square, ``e`` its rounding error)."""
    a = np.asarray(values, dtype=np.float64)
    c = 134217729.0 * a  # 2**27 + 1
    hi = c - (c - a)
    lo = a - hi
    p = a * a
    e = ((hi * hi - p) + 2.0 * hi * lo) + lo * lo
    return p, e


class ExactSums:
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

    def add(self, values) -> ExactSums:
        """Add the rows of ``values`` (shape ``(n, width)``, or ``(n,)`` when ``width`` is 1)."""
        self._merge(*exact_bins(np.asarray(values, dtype=np.float64).reshape(-1, self.width)))
        return self

    def add_squares(self, values) -> ExactSums:
        """Add the exact squares of the rows of ``values``: the same sums as ``add(p).add(e)`` for
        ``p, e = exact_square(values)``, in one pass."""
        self._merge(*exact_bins(np.asarray(values, dtype=np.float64).reshape(-1, self.width), square=True))
        return self

    def _merge(self, columns: np.ndarray, exponents: np.ndarray, hi: np.ndarray, lo: np.ndarray) -> None:
        keys = columns * _BINS + exponents + _OFFSET
        merged, inverse = np.unique(np.concatenate([self.keys, keys]), return_inverse=True)
        his = np.zeros(len(merged), dtype=np.int64)
        los = np.zeros(len(merged), dtype=np.int64)
        np.add.at(his, inverse, np.concatenate([self.hi, hi]))
        np.add.at(los, inverse, np.concatenate([self.lo, lo]))
        self.keys, self.hi, self.lo = merged, his, los

    def combine(self, other: ExactSums) -> ExactSums:
        """Add the sums of ``other`` (of the same width) to these."""
        if other.width != self.width:
            raise ValueError(f"other must sum {self.width} columns; got {other.width}")
        columns, bins = np.divmod(other.keys, _BINS)
        self._merge(columns, bins - _OFFSET, other.hi, other.lo)
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
