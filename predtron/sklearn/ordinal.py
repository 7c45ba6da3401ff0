"""Ordinal regression: :class:`~predtron.sklearn.PredtronOrdinalClassifier`, scikit-learn's adapter over
:class:`~predtron._models.ordinal.OrdinalCore` (the rules; see :mod:`predtron.sklearn._adapter`)."""

from __future__ import annotations

from sklearn.base import ClassifierMixin

from predtron._models.ordinal import OrdinalCore
from predtron.persistence import saveable
from predtron.sklearn._adapter import SklearnAdapter, adapter_params

__all__ = ["PredtronOrdinalClassifier"]


@adapter_params(OrdinalCore)
@saveable
class PredtronOrdinalClassifier(ClassifierMixin, SklearnAdapter, OrdinalCore):
    """Ordinal regression with the Predtron (:class:`~predtron.problems.Ordinal`).

    The sorted distinct labels of ``y`` (numbers, or anything sortable such as ``1..5``
    stars) are the ordered levels; the loss is the absolute difference of levels.  An ordered
    pandas ``Categorical`` whose order differs from the sorted order of its values (``low <
    medium < high``) is refused rather than re-ordered: pass its codes.

    Parameters
    ----------
    {common}

    Attributes
    ----------
    classes_ : ndarray
        The levels, sorted.
    coef_ : ndarray of shape (n_levels, n_features), or (1, n_features) for two levels
        The weights of the level scores in the original features (standardisation undone;
        the averaged iterate with ``average=True``); for two levels, those of the score
        difference ``decision_function`` returns.
    intercept_ : ndarray of shape (n_levels,), or (1,) for two levels
        The bias of the level scores: ``decision_function(X)`` is ``X @ coef_.T + intercept_``
        (flattened for two levels).
    learner_ : Predtron
        The fitted core learner.
    n_features_in_ : int
        Number of features seen by ``fit``.

    Notes
    -----
    ``score`` is the negative mean absolute error counted in levels.

    Examples
    --------
    >>> import numpy as np
    >>> from predtron.sklearn import PredtronOrdinalClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 3))
    >>> stars = np.digitize(X[:, 0], [-0.5, 0.5]) + 1  # levels 1, 2, 3
    >>> model = PredtronOrdinalClassifier(random_state=0).fit(X, stars)
    >>> model.classes_.tolist()
    [1, 2, 3]
    >>> model.predict([[-2.0, 0.0, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, 0.0]]).tolist()
    [1, 2, 3]
    >>> model.coef_.shape
    (3, 3)
    """

    # The public methods are the core's (named here so that the class documents them and so that
    # they come before scikit-learn's mixins, whose ``score`` is not the estimator's).
    fit = OrdinalCore.fit
    partial_fit = OrdinalCore.partial_fit
    decision_function = OrdinalCore.decision_function
    predict = OrdinalCore.predict
    score = OrdinalCore.score
