"""Exact sums of float64 values: the same result however the values are split and ordered.

A float sum depends on the order of its additions, so statistics summed over a whole array, over
the chunks of a stream and over the shards of a cluster differ in their last bits.  The
accumulators here keep every sum exactly (as integers per binary exponent) and round once, when
the value is read: the scaler and Theorem 1's step computed from them are equal bit for bit
however the data were cut (``tests/test_statistics.py``).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["ExactSums", "exact_square"]

#: ``numpy.frexp`` exponents of finite float64 values lie in ``[-1073, 1024]``.
_OFFSET = 1080
_BINS = 2110
#: A value is ``M * 2**(e - 53)`` with ``|M| < 2**53``, kept as ``hi * 2**26 + lo``.
_HALF = 26

#: ``bincount`` adds its float64 weights (below ``2**27`` in magnitude) exactly for this many rows.
_ROWS = 1 << 25
#: Values per block of :meth:`ExactSums.add`.
_BLOCK = 1 << 18
#: Above this many bins (columns times exponents) the bins are found by sorting, not counted.
_DENSE_BINS = 1 << 22


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

    def combine(self, other: ExactSums) -> ExactSums:
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
