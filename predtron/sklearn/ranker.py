"""Learning to rank: :class:`~predtron.sklearn.PredtronRanker`, scikit-learn's adapter over
:class:`~predtron._models.ranker.RankerCore` (the rules; see :mod:`predtron.sklearn._adapter`)."""

from __future__ import annotations

from predtron._models.ranker import RankerCore
from predtron.persistence import saveable
from predtron.sklearn._adapter import SklearnAdapter, adapter_params

__all__ = ["PredtronRanker"]


@adapter_params(RankerCore)
@saveable
class PredtronRanker(SklearnAdapter, RankerCore):
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

    # The public methods are the core's (named here so that the class documents them and so that
    # they come before scikit-learn's mixins, whose ``score`` is not the estimator's).
    fit = RankerCore.fit
    partial_fit = RankerCore.partial_fit
    predict = RankerCore.predict
    decision_function = RankerCore.decision_function
    score = RankerCore.score
