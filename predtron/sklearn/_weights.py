"""``sample_weight`` of the estimators' ``fit`` and ``partial_fit``: checked once, per row, and
handed to the core learner (:mod:`predtron.learners.base`, "Sample weights").

A row of weight ``w`` makes its loss, and so its step, ``w`` times the unweighted one; a row of
weight 0 changes nothing.  The feature scaling (``standardize=True``) and ``eta="auto"`` are
computed from the rows as given, without their weights.  The ranker takes one weight per row
(scikit-learn's shape), equal within each query: a query is one example of the learner.
"""

from __future__ import annotations

import numpy as np

from predtron.learners.base import check_sample_weight
from predtron.scoring import Inputs, VectorInputs
from predtron.sklearn._checks import _canonical


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


class _SampleWeightMixin:
    """``_fit_learner`` and ``_partial_pass`` of the shared estimator base with a ``sample_weight``
    (one weight per example of the core learner, already checked).  Without weights both are the
    base's own methods; with weights they run the same steps and hand the weights to the core
    learner's ``fit_inputs`` / ``partial_fit``."""

    def _fit_learner(self, problem, X, target, sample_weight=None) -> None:
        if sample_weight is None:
            super()._fit_learner(problem, X, target)
            return
        self.learner_ = self._learner(problem)
        if not isinstance(X, Inputs):  # a matrix validated by fit: trusted from here on
            X = VectorInputs(_canonical(X), problem.scoring.dim, bool(self.fit_intercept))
            target = problem.check_labels(target, X)
        self.learner_.fit_inputs(X, target, epochs=self.epochs, verbose=self.verbose, callback=self._stopper(),
                                 sample_weight=sample_weight)
        self.n_iter_ = self.learner_.n_epochs_

    def _partial_pass(self, first: bool, X, target, offsets=None, sample_weight=None, **split) -> None:
        if sample_weight is None:
            super()._partial_pass(first, X, target, offsets, **split)
            return
        if first:
            X = self._fit_scaler(X)
            problem = self._problem()
            self.eta_ = self._resolve_eta(problem, X, target, offsets)
            self.learner_ = self._learner(problem)
        else:
            X = self._transform(X)
        self.learner_.partial_fit(X, target, **split, sample_weight=sample_weight)
