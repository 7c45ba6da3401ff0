"""Ordinal regression: :class:`~predtron.sklearn.PredtronOrdinalClassifier`."""

from __future__ import annotations

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from predtron._validation import check_class_labels, excerpt
from predtron.persistence import saveable
from predtron.problems import Ordinal
from predtron.sklearn._base import _PredtronEstimator, estimator_params
from predtron.sklearn._checks import _check_score_input, _saved_classes
from predtron.sklearn._coef import _OrdinalCoefMixin
from predtron.sklearn._weights import _row_weights

__all__ = ["PredtronOrdinalClassifier"]


@estimator_params()
@saveable
class PredtronOrdinalClassifier(ClassifierMixin, _OrdinalCoefMixin, _PredtronEstimator):
    """Ordinal regression with the Predtron (:class:`~predtron.problems.Ordinal`).

    The sorted distinct labels of ``y`` (numbers, or anything sortable such as ``1..5``
    stars) are the ordered levels; the loss is the absolute difference of levels.

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

    def _problem(self):
        return Ordinal(len(self.classes_))

    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` and ordered labels ``y`` (``sample_weight``: one non-negative weight per
        row, as in :meth:`PredtronClassifier.fit`)."""
        X, levels = self._fit_classes(X, y, unit="levels")
        weights = _row_weights(sample_weight, X.shape[0], fitting=True)
        X = self._fit_scaler(X)
        problem = self._problem()
        self.eta_ = self._resolve_eta(problem, X, levels)
        self._fit_learner(problem, X, levels, sample_weight=weights)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One online pass over the batch ``(X, y)``, in order, continuing from the current state.

        ``classes`` (all the levels of the stream) is required on the first call.
        ``sample_weight``: one non-negative weight per row, as in :meth:`fit`.
        {partial_scaling}
        """
        first, X, y = self._partial_data(X, y)
        weights = _row_weights(sample_weight, X.shape[0], fitting=False)
        self._partial_classes(classes, first, unit="levels")
        self._partial_pass(first, X, self._class_indices(y), sample_weight=weights)
        return self

    def decision_function(self, X) -> np.ndarray:
        """Level scores ``(n, n_levels)``, ``X @ coef_.T + intercept_``; the prediction is the
        best-scoring level.  With two levels, ``(n,)``: the score of ``classes_[1]`` minus that of
        ``classes_[0]``."""
        check_is_fitted(self)
        T = self.learner_.decision_function(self._validate_X(X, reset=False))
        return T[:, 1] - T[:, 0] if T.shape[1] == 2 else T

    def predict(self, X) -> np.ndarray:
        """The predicted level, as one of ``classes_``."""
        check_is_fitted(self)
        return self.classes_[self.learner_.predict(self._validate_X(X, reset=False))]

    def score(self, X, y, sample_weight=None) -> float:
        """Negative mean absolute error, counted in levels."""
        _check_score_input(X, y)
        check_is_fitted(self)
        y = check_class_labels(y, "y", n=np.shape(X)[0])
        index = {c: i for i, c in enumerate(self.classes_.tolist())}
        if any(v not in index for v in y.tolist()):
            raise ValueError(f"y holds levels not seen in fit: {excerpt(y)}")
        truth = np.array([index[v] for v in y.tolist()])
        pred = self.learner_.predict(self._validate_X(X, reset=False))
        return -float(np.average(np.abs(pred - truth), weights=sample_weight))

    def _extra_state(self) -> dict:
        return {"classes_": self.classes_.tolist()}

    def _restore_extra(self, state) -> None:
        self.classes_ = _saved_classes(state)
