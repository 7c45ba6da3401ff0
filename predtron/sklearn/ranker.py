"""Learning to rank: :class:`~predtron.sklearn.PredtronRanker`."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from predtron._ragged import Ragged
from predtron._validation import as_label_array, excerpt, query_offsets
from predtron.persistence import saveable
from predtron.problems import SubsetRanking, ranking_batch
from predtron.problems.ranking_measures import F_CHOICES, RankingLoss
from predtron.scoring import DocumentInputs
from predtron.sklearn._base import _at_least_one, _optional, _PredtronEstimator, estimator_params
from predtron.sklearn._checks import _canonical, _check_input, _check_score_input, _Offsets
from predtron.sklearn._coef import _RankerCoefMixin
from predtron.sklearn._weights import _query_weights, _row_weights

__all__ = ["PredtronRanker"]


def _position_values(value, name: str) -> None:
    """One of the named position-value functions, or a callable."""
    if not callable(value) and (not isinstance(value, str) or value not in F_CHOICES):
        raise ValueError(f"{name} must be one of {sorted(F_CHOICES)} or a callable; got {excerpt(value)}")


@estimator_params({"f": "discount", "k": 10, "train_k": None},
                  {"f": _position_values, "k": _at_least_one, "train_k": _optional(_at_least_one)},
                  exclude=("fit_intercept",))
@saveable
class PredtronRanker(_RankerCoefMixin, _PredtronEstimator):
    """Learning to rank with the Predtron (:class:`~predtron.problems.SubsetRanking`).

    Like LightGBM's ``LGBMRanker``: ``fit(X, y, group=...)`` or ``fit(X, y, qid=...)`` on
    one row per document with integer relevance grades ``y``; ``predict(X)`` returns one
    score per row (sort a query's rows by decreasing score); ``score`` is the mean NDCG@k
    over queries.  The learner runs Algorithm 1 on the NDCG loss with the loss-augmented
    oracle of Lemma 3 (Corollary 5 of the paper).

    Parameters
    ----------
    f : str or callable, default "discount"
        The representation's position values (see
        :class:`~predtron.problems.SubsetRanking`).  The default, the NDCG discount
        ``1 / log2(1 + i)``, makes the oracle an exact sort (Lemma 3's product case); on
        MQ2008 it also ranked best (``benchmarks/real_data.py``).
    k : int, default 10
        Cut-off of the NDCG@k that ``score`` reports.
    train_k : int, optional
        Cut-off of the NDCG loss the learner is trained on (``None``: the full NDCG).
    eta : float or "auto", default "auto"
        Step size; ``"auto"`` is Theorem 1's step on the data's mean squared query norm
        (:func:`~predtron.bounds.theorem1_step`).
    epochs : int, default 50
        Largest number of passes over the queries.
    tol : float or None, default 1e-3
        Early stopping on the mean loss of a pass (see :class:`PredtronClassifier`).
    n_iter_no_change : int, default 5
        Patience of the stopping rule.
    average : bool, default True
        Predict with the averaged iterate.
    shuffle : bool, default True
        Visit the queries in a new random order at every pass.
    random_state : int, RandomState, numpy Generator or None, default None
        Seed of the shuffling.
    standardize : bool, default True
        Scale every feature to unit variance (and centre it, for dense input).
    update : {"oracle", "prediction"}, default "oracle"
        Which ranking enters the update.
    loss_driven : bool, default False
        Use Predtron.LD.
    verbose : bool, default False
        Show a progress bar.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weight vector in the original features (the averaged iterate with
        ``average=True``): ``predict(X)`` and ``decision_function(X)`` are
        ``X @ coef_ + intercept_``.
    intercept_ : float
        The constant the standardisation adds to every score (0.0 without centring); it
        changes no ranking.
    learner_ : Predtron
        The fitted core learner (``learner_.coef_`` is the weight vector ``w`` on the
        standardised features).
    eta_ : float
        The step size used.
    n_iter_ : int
        Passes made.
    n_features_in_ : int
        Number of features seen by ``fit``.

    Notes
    -----
    Ranking scores are shift-invariant, so there is no intercept.  In ``cross_val_score``
    or ``GridSearchCV``, turn on scikit-learn's metadata routing, request the query ids
    for both ``fit`` and ``score``, and split by query with ``GroupKFold``::

        sklearn.set_config(enable_metadata_routing=True)
        ranker = PredtronRanker().set_fit_request(qid=True).set_score_request(qid=True)
        cross_val_score(ranker, X, y, cv=GroupKFold(5), params={"qid": qid, "groups": qid})

    (with routing on, the splitter's ``groups`` travel in ``params`` too).

    Examples
    --------
    >>> import numpy as np
    >>> from predtron.sklearn import PredtronRanker
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 3))  # 20 queries of 10 documents
    >>> qid = np.repeat(np.arange(20), 10)
    >>> relevance = np.digitize(X[:, 0], [0.0, 1.0])  # grades 0, 1, 2
    >>> ranker = PredtronRanker(random_state=0).fit(X, relevance, qid=qid)
    >>> ranker.score(X, relevance, qid=qid) > 0.95  # mean NDCG@10
    True
    >>> int(ranker.predict([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]).argmax())  # the first ranks first
    0
    >>> ranker.coef_.shape
    (3,)
    """

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
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, y_numeric=True)
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

    def predict(self, X) -> np.ndarray:
        """One score per row (higher ranks first), ``X @ coef_ + intercept_``; ``X`` needs no
        query ids."""
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        return np.asarray(X @ self.learner_.coef_).ravel()

    def score(self, X, y, *, qid=None, group=None) -> float:
        """Mean NDCG@k over the queries (1 is a perfect ranking; queries with no relevant document
        count as perfect)."""
        _check_score_input(X, y, relevance=True)
        check_is_fitted(self)
        scores = self.predict(X)
        offsets = query_offsets(len(scores), qid=qid, group=group)
        rel = SubsetRanking().check_labels(as_label_array(y, "y", booleans=False), _Offsets(offsets))
        loss = RankingLoss("ndcg", k=self.k)
        return float(1.0 - ranking_batch.losses_of_scores(loss, scores, rel.values, offsets).mean()) \
            if isinstance(rel, Ragged) else np.nan
