"""Ranking operations over a block of instances stored flat (the learners' hot loop).

The scores and relevance grades of a block of queries (or of a block of examples in
multilabel ranking) are concatenated with ``offsets``.  One stable ``lexsort`` sorts every
segment by decreasing score at once, which gives ``pred`` for the whole block; the
losses of :class:`~predtron.problems.ranking_measures.RankingLoss` then follow from the
position weights and one segmented sum.

Exactness.  The learners compare the loss of each instance with 0 to find mistakes, so
the block computation must give bitwise the same value as the per-instance one (and as
the compiled pass of :mod:`predtron.engine.ranking`).  Every path forms the same products in
the same (position) order and adds them strictly left to right (:func:`segment_sums`);
the per-instance loss of :meth:`~predtron.problems.ranking.RankingProblem._loss` is this
module's function on one segment.
"""

from __future__ import annotations

import numpy as np

from predtron.problems.base import TIE_TOLERANCE
from predtron.problems.ranking_measures import RankingLoss


def segment_ids(offsets: np.ndarray) -> np.ndarray:
    """The segment number of every flat position."""
    if len(offsets) == 2:  # one segment (a round of the online loop): no repeat to build
        return np.zeros(int(offsets[1]) - int(offsets[0]), dtype=np.intp)
    return np.repeat(np.arange(len(offsets) - 1), offsets[1:] - offsets[:-1])


def _stable_descending(keys: np.ndarray, seg: np.ndarray, one: bool) -> np.ndarray:
    """Flat indices by segment, then by decreasing ``keys``, ties in item order: the stable
    ``lexsort``, or for one segment (``one``) the stable ``argsort`` that gives the same order."""
    return np.argsort(-keys, kind="stable") if one else np.lexsort((-keys, seg))


def tie_keys(values: np.ndarray, offsets: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Scores rounded to a grid of ``TIE_TOLERANCE`` times the segment's largest magnitude.

    Scores that agree to about twelve significant digits become equal keys, so a tie
    between scores that are equal in exact arithmetic is broken by item order (as
    :func:`~predtron.problems.base.first_argmax` does for the finite problems) and not by
    the last bits of a matrix product, which depend on how the product was blocked.
    """
    if len(values) == 0:
        return values
    if len(offsets) == 2:  # one segment: its largest magnitude
        scale = np.full(len(values), np.max(np.abs(values)))
    else:
        scale = np.maximum.reduceat(np.abs(values), offsets[:-1])[seg]
    unit = scale * TIE_TOLERANCE
    unit = np.where(unit > 0, unit, 1.0)  # all zero, or so small (subnormal) that the grid underflows: all tie
    return np.round(values / unit)


def sort_segments(values: np.ndarray, offsets: np.ndarray, seg: np.ndarray | None = None) -> np.ndarray:
    """Flat indices sorted by segment, then by decreasing value up to the tie tolerance
    (:func:`tie_keys`); ties keep item order."""
    seg = segment_ids(offsets) if seg is None else seg
    return _stable_descending(tie_keys(values, offsets, seg), seg, len(offsets) == 2)


def rankings(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``pred`` of every segment, flat: ``sigma[i]`` is the 0-based position of item ``i`` in its segment."""
    seg = segment_ids(offsets)
    order = sort_segments(values, offsets, seg)
    sigma = np.empty(len(values), dtype=np.int64)
    sigma[order] = np.arange(len(values)) - offsets[seg]
    return sigma


def segment_sums(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The sum of every segment, added strictly left to right.

    ``numpy.add.reduceat`` and ``sum`` add in pairs, in an order that depends on the
    segment's length; a running sum (``cumsum`` along the rows of the segments padded with
    zeros, which change no sum) has one order that compiled code can follow exactly.
    """
    sizes = offsets[1:] - offsets[:-1]
    n = len(sizes)
    if n == 0:
        return np.zeros(0)
    if n == 1:  # one segment: its own running sum (no padding; an empty one sums to 0)
        return values.cumsum()[-1:] if len(values) else np.zeros(1)
    width = int(sizes.max())
    padded = np.zeros((n, width))
    seg = segment_ids(offsets)
    padded[seg, np.arange(len(values)) - offsets[seg]] = values
    return np.cumsum(padded, axis=1)[:, -1]


def losses(ranking_loss: RankingLoss, order: np.ndarray, y: np.ndarray, offsets: np.ndarray,
           seg: np.ndarray | None = None) -> np.ndarray:
    """Loss of every segment when its items sit in the positions given by ``order``.

    ``order`` lists flat item indices segment by segment, top position first (the output
    of :func:`sort_segments` for the scores, or the inverse of a ranking).
    """
    seg = segment_ids(offsets) if seg is None else seg
    n = len(offsets) - 1
    if n == 0:
        return np.zeros(0)
    v = ranking_loss._item_values(y)  # callers validate (an unchecked batch kernel)
    if n == 1:  # one segment (a round of the online loop): its positions are its items' indices
        b = ranking_loss._position_weights(len(v)) if len(v) else np.zeros(0)
    else:
        b = ranking_loss._position_weights(int((offsets[1:] - offsets[:-1]).max()))[np.arange(len(v)) - offsets[seg]]
    dcg = segment_sums(v[order] * b, offsets)
    ideal = segment_sums(v[_stable_descending(v, seg, n == 1)] * b, offsets)
    safe = np.where(ideal == 0, 1.0, ideal)
    return np.where(ideal == 0, 0.0, np.maximum(0.0, (ideal - dcg) / safe))


def losses_of_scores(ranking_loss: RankingLoss, values: np.ndarray, y: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``L(pred(t), y)`` of every segment of the flat scores ``values``."""
    seg = segment_ids(offsets)
    return losses(ranking_loss, sort_segments(values, offsets, seg), y, offsets, seg)


def average_precisions(values: np.ndarray, y: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Average precision of every segment of the flat scores ``values`` with relevance grades ``y``.

    The items are taken in the order ``pred`` puts them (:func:`sort_segments`: decreasing score,
    ties to the lower item), an item is relevant when its grade is positive, and AP is the mean,
    over the relevant items, of the precision of the top positions down to each (LETOR's MAP is the
    mean of AP over the queries).  A segment with no relevant item has AP 1: no ranking is better
    than another, as for NDCG@k (:mod:`~predtron.problems.ranking_measures`).
    """
    seg = segment_ids(offsets)
    order = sort_segments(values, offsets, seg)
    relevant = (np.asarray(y)[order] > 0).astype(np.float64)
    found = np.cumsum(relevant)  # relevant items down to each position (whole numbers, exact)
    before = np.concatenate(([0.0], found))[offsets[:-1]][seg]
    precision = (found - before) / (np.arange(len(values)) - offsets[seg] + 1)
    n_relevant = segment_sums(relevant, offsets)
    total = segment_sums(relevant * precision, offsets)
    return np.where(n_relevant == 0, 1.0, total / np.maximum(n_relevant, 1.0))
