"""A ragged array: one flat array of values cut into consecutive segments.

Ranking instances differ in their number of items, so their scores and relevance grades
are stored flat with ``offsets`` (segment ``i`` is ``values[offsets[i]:offsets[i + 1]]``),
the layout LightGBM and XGBoost use.  Learners index a block of instances at once.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np


class Ragged:
    """Segments ``values[offsets[i]:offsets[i + 1]]``, ``i = 0..len - 1``.

    Parameters
    ----------
    values : ndarray of shape (N, ...)
        The concatenated segments.
    offsets : ndarray of shape (n + 1,)
        Non-decreasing, ``offsets[0] = 0`` and ``offsets[-1] = N``.
    """

    __slots__ = ("offsets", "values")

    def __init__(self, values: np.ndarray, offsets: np.ndarray):
        self.values = values
        self.offsets = offsets

    @classmethod
    def from_list(cls, segments) -> Ragged:
        """Concatenate a list of arrays."""
        segments = list(segments)
        sizes = np.array([len(s) for s in segments], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        values = np.concatenate(segments) if segments else np.empty(0)
        return cls(values, offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def sizes(self) -> np.ndarray:
        """Length of every segment."""
        return np.diff(self.offsets)

    def segment_ids(self) -> np.ndarray:
        """The segment number of every value."""
        return np.repeat(np.arange(len(self)), self.sizes)

    def __getitem__(self, index):
        if isinstance(index, (int, np.integer)):
            i = int(index)
            if i < 0:
                i += len(self)
            return self.values[self.offsets[i]:self.offsets[i + 1]]
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1:
                lo, hi = self.offsets[start], self.offsets[max(stop, start)]
                return Ragged(self.values[lo:hi], self.offsets[start:max(stop, start) + 1] - lo)
            index = np.arange(start, stop, step)
        rows = np.asarray(index, dtype=np.int64)
        return Ragged(self.values[gather_index(self.offsets, rows)], offsets_of(self.sizes[rows]))

    def __iter__(self) -> Iterator[np.ndarray]:
        for i in range(len(self)):
            yield self.values[self.offsets[i]:self.offsets[i + 1]]

    def tolist(self) -> list[np.ndarray]:
        """The segments as a list of arrays (views)."""
        return list(self)


def offsets_of(sizes: np.ndarray) -> np.ndarray:
    """Offsets ``[0, s0, s0 + s1, ...]`` of consecutive segments of the given sizes."""
    return np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)


def gather_index(offsets: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Flat indices of the values of segments ``rows``, in that order."""
    starts = offsets[rows]
    sizes = offsets[rows + 1] - starts
    if sizes.size == 0:
        return np.empty(0, dtype=np.int64)
    shift = np.repeat(starts - offsets_of(sizes)[:-1], sizes)
    return np.arange(int(sizes.sum()), dtype=np.int64) + shift
