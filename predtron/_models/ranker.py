"""The core of :class:`~predtron.sklearn.PredtronRanker` (learning to rank), without scikit-learn."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from predtron._models.base import EstimatorCore, _at_least_one, _optional, estimator_params
from predtron._models.checks import _canonical, _check_input, _check_score_input, _Offsets
from predtron._models.coef import _RankerCoefMixin
from predtron._models.weights import _query_weights, _row_weights, _score_weights
from predtron._ragged import Ragged
from predtron._validation import as_label_array, excerpt, query_offsets
from predtron.persistence import saveable_as
from predtron.problems import SubsetRanking, ranking_batch
from predtron.problems.ranking_measures import F_CHOICES, RankingLoss
from predtron.scoring import DocumentInputs, column_order_dot

__all__ = ["RankerCore"]


def _position_values(value, name: str) -> None:
    """One of the named position-value functions, or a callable."""
    if not callable(value) and (not isinstance(value, str) or value not in F_CHOICES):
        raise ValueError(f"{name} must be one of {sorted(F_CHOICES)} or a callable; got {excerpt(value)}")


@estimator_params({"f": "discount", "k": 10, "train_k": None},
                  {"f": _position_values, "k": _at_least_one, "train_k": _optional(_at_least_one)},
                  exclude=("fit_intercept",))
@saveable_as("PredtronRanker")
class RankerCore(_RankerCoefMixin, EstimatorCore):
    """The rules of :class:`~predtron.sklearn.PredtronRanker` without scikit-learn (its parameters,
    fit, partial_fit, predictions, score and state; see that class)."""


    fit_intercept = False

    def _problem(self):
        return SubsetRanking(f=self.f, loss="ndcg", k=self.train_k)

    def fit(self, X, y, *, qid=None, group=None, sample_weight=None):
        """Fit on documents ``X`` with relevance ``y`` and their queries (``qid`` or ``group``).

        ``sample_weight``: one non-negative weight per row, equal on the rows of a query (the
        query's weight: a query is one example of the learner), at least one positive; it
        scales the query's loss and so its update (see :mod:`predtron.learners.base`).
        """
        self._validate_params()
        _check_input(X, y, fitting=True, relevance=True, type_name=type(self).__name__)
        X, y = self._validate_data(X, y, reset=True, y_numeric=True)
        offsets = query_offsets(X.shape[0], qid=qid, group=group)
        weights = _query_weights(_row_weights(sample_weight, X.shape[0], fitting=True), offsets)
        inputs = DocumentInputs(_canonical(self._fit_scaler(X)), offsets)  # checked once: trusted from here
        problem = self._problem()
        grades = problem.check_labels(y, inputs)
        self.eta_ = self._resolve_eta(problem, inputs.X, grades.values, offsets)
        self._fit_learner(problem, inputs, grades, sample_weight=weights)
        self._last_qid = None
        return self

    def partial_fit(self, X, y, *, qid=None, group=None, sample_weight=None):
        """One online pass over the queries of the batch, in order, continuing from the current state.

        Every call takes its own ``qid`` or ``group`` and holds whole queries: a query never
        spans two calls (the streaming readers of :mod:`predtron.data.stream` cut chunks at
        query boundaries).  With ``qid``, a call whose first query id is the last query id of
        the previous call is refused: the rows of one query cut in two would silently be
        learned as two queries.  (``group`` carries no ids, so nothing can be checked; a
        query seen whole in two calls in a row, such as a one-query batch repeated, needs
        ``group`` for the same reason.)  ``sample_weight``: one weight per row, equal within
        a query, as in :meth:`fit`.
        {partial_scaling}
        """
        first, X, y = self._partial_data(X, y, relevance=True, y_numeric=True)
        offsets = query_offsets(X.shape[0], qid=qid, group=group)
        weights = _query_weights(_row_weights(sample_weight, X.shape[0], fitting=False), offsets)
        last = None if first else getattr(self, "_last_qid", None)
        if qid is not None and last is not None and len(qid) and np.asarray(qid)[0] == last:
            raise ValueError(f"qid: the first query of this partial_fit call ({excerpt(np.asarray(qid)[0].item())}) "
                             "continues the last query of the previous call; give partial_fit whole queries (cut "
                             "the chunks at query boundaries), or pass group= if it is another query with the "
                             "same id")
        grades = (self._problem() if first else self.learner_.problem).check_labels(y, _Offsets(offsets)).values
        self._partial_pass(first, X, grades, offsets, group=np.diff(offsets), sample_weight=weights)
        self._last_qid = np.asarray(qid)[-1].item() if qid is not None and len(qid) else None
        return self

    def _extra_state(self) -> dict:
        """The query id that ended the last ``partial_fit`` call (``None`` after ``fit`` or a call with
        ``group``), so that a loaded model refuses a query cut across two calls as the original does."""
        return {"last_qid": getattr(self, "_last_qid", None)}

    def _restore_extra(self, state) -> None:
        last = state.value("last_qid") if state.has("last_qid") else None  # absent from older files
        if last is not None and not isinstance(last, str) and (
                isinstance(last, bool) or not isinstance(last, (int, float)) or not np.isfinite(last)):
            raise ValueError(f"state entry 'last_qid' must be null, a finite number or a string (a query id); "
                             f"got {excerpt(last)}")
        self._last_qid = last

    def start_pass(self) -> None:
        """The next ``partial_fit`` call begins a new pass: its first query may carry the id that
        ended the previous call (the same query, seen again), which within a pass is refused."""
        self._last_qid = None

    def predict(self, X) -> np.ndarray:
        """One score per row (higher ranks first), ``X @ coef_ + intercept_``; ``X`` needs no
        query ids.  Each row's products are added in column order
        (:func:`~predtron.scoring.column_order_dot`), so a row scores the same bit for bit
        dense or sparse, alone or in a chunk of any size (a streamed ``predict`` writes what
        the in-memory one writes)."""
        self._check_fitted()
        X = self._validate_X(X, reset=False)
        coef = np.asarray(self.learner_.coef_, dtype=float).ravel()
        if sp.issparse(X):  # scipy adds a row's non-zeros in the order stored: sorted, summed duplicates
            return np.asarray(_canonical(X) @ coef).ravel()
        return column_order_dot(np.asarray(X, dtype=float), coef)

    def score(self, X, y, *, qid=None, group=None, sample_weight=None) -> float:
        """Mean NDCG@k over the queries (1 is a perfect ranking; queries with no relevant document
        count as perfect); with ``sample_weight`` (one weight per row of ``X``, equal on the rows of a
        query, as ``fit`` takes them), the mean weighted by the queries' weights."""
        _check_score_input(X, y, relevance=True)
        self._check_fitted()
        weights = _score_weights(sample_weight, np.shape(X)[0])
        scores = self.predict(X)
        offsets = query_offsets(len(scores), qid=qid, group=group)
        rel = SubsetRanking().check_labels(as_label_array(y, "y", booleans=False), _Offsets(offsets))
        if not isinstance(rel, Ragged):
            return np.nan
        losses = ranking_batch.losses_of_scores(RankingLoss("ndcg", k=self.k), scores, rel.values, offsets)
        if weights is None:
            return float(1.0 - losses.mean())
        return float(1.0 - np.average(losses, weights=_query_weights(weights, offsets)))
