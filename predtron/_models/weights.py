"""``sample_weight`` of the estimators' ``fit`` and ``partial_fit``: checked once, per row, and
handed, one per instance, to the core learner through the shared fit path
(:meth:`EstimatorCore._fit_learner`, :meth:`EstimatorCore._partial_pass`; the weighted
pass is :mod:`predtron.learners.base`, "Sample weights").

A row of weight ``w`` makes its loss, and so its step, ``w`` times the unweighted one; a row of
weight 0 changes nothing.  The feature scaling (``standardize=True``) and ``eta="auto"`` are
computed from the rows as given, without their weights.  The ranker takes one weight per row
(scikit-learn's shape), equal within each query: a query is one example of the learner.
"""

from __future__ import annotations

import numpy as np

from predtron.learners.base import check_sample_weight


def _row_weights(sample_weight, n_rows: int, *, fitting: bool) -> np.ndarray | None:
    """One finite non-negative weight per row (``fitting``: at least one positive)."""
    return check_sample_weight(sample_weight, n_rows, fitting=fitting, what="row of X")


def _query_weights(weights: np.ndarray | None, offsets: np.ndarray) -> np.ndarray | None:
    """The per-row weights of a flat ranking layout as one weight per query (equal within a query)."""
    if weights is None:
        return None
    starts = offsets[:-1]
    per_query = weights[starts]
    if not np.array_equal(np.repeat(per_query, np.diff(offsets)), weights):
        bad = int(np.flatnonzero(np.repeat(per_query, np.diff(offsets)) != weights)[0])
        query = int(np.searchsorted(offsets, bad, side="right") - 1)
        raise ValueError(f"sample_weight must be equal on the rows of a query (a query is one example); query "
                         f"{query} (rows {offsets[query]}-{offsets[query + 1] - 1}) has weights "
                         f"{weights[offsets[query]:offsets[query + 1]][:5].tolist()}")
    return per_query


def _score_weights(sample_weight, n_rows: int) -> np.ndarray | None:
    """The ``sample_weight`` of ``score``: ``None``, or one finite non-negative weight per row of ``X``
    with a positive sum (a weighted mean over no weight is undefined), checked before any score
    is computed, as ``fit`` checks its weights (the same messages, naming the argument)."""
    weights = check_sample_weight(sample_weight, n_rows, fitting=False, what="row of X")
    if weights is not None and not np.any(weights > 0):
        raise ValueError("sample_weight must hold at least one positive weight: a mean weighted by zeros is "
                         "undefined")
    return weights
