"""The core of :class:`~predtron.sklearn.PredtronOrdinalClassifier` (ordinal regression), without
scikit-learn."""

from __future__ import annotations

import numpy as np

from predtron._models.base import EstimatorCore, estimator_params
from predtron._models.checks import _check_score_input, _classes_state, _saved_classes
from predtron._models.coef import _OrdinalCoefMixin
from predtron._models.weights import _row_weights, _score_weights
from predtron._validation import excerpt
from predtron.persistence import saveable_as
from predtron.problems import Ordinal

__all__ = ["OrdinalCore"]


def check_level_order(labels, name: str, type_name: str, *, every_category: bool = False) -> None:
    """Refuse an ordered pandas categorical ``labels`` whose order of the levels it holds is not their
    sorted order: the estimator's levels are the sorted distinct labels (``classes_``), so the
    categorical's own order (``low < medium < high``, sorted ``high, low, medium``) would be lost
    silently and another problem learned.  Any other labels pass unchanged.

    ``every_category``: compare the order of all the categories, not only of those ``labels``
    holds (for a dask series, whose values are not in memory: :mod:`predtron.dask`)."""
    dtype = getattr(labels, "dtype", None)
    if getattr(dtype, "ordered", None) is not True or not hasattr(dtype, "categories"):
        return
    present = None if every_category else set(np.asarray(labels, dtype=object).tolist())
    order = [level for level in dtype.categories.tolist() if present is None or level in present]
    try:
        ordered = np.unique(np.asarray(order)).tolist()
    except TypeError:  # levels that do not sort (a mix of kinds): refused by the label checks
        return
    if ordered != order:
        raise ValueError(f"{name} is an ordered pandas Categorical whose levels run {excerpt(order)}, but "
                         f"{type_name} orders its levels by sorting the labels ({excerpt(ordered)}), so that order "
                         f"would be lost; pass the codes ({name}.cat.codes of a Series, {name}.codes of a "
                         "Categorical) and map the predictions back with the categories")


@estimator_params()
@saveable_as("PredtronOrdinalClassifier")
class OrdinalCore(_OrdinalCoefMixin, EstimatorCore):
    """The rules of :class:`~predtron.sklearn.PredtronOrdinalClassifier` without scikit-learn (its parameters,
    fit, partial_fit, predictions, score and state; see that class)."""


    def _problem(self):
        return Ordinal(len(self.classes_))

    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` and ordered labels ``y`` (``sample_weight``: one non-negative weight per
        row, as in :meth:`PredtronClassifier.fit`).

        The levels are the sorted distinct labels; an ordered pandas ``Categorical`` whose order
        is not the sorted one (``low < medium < high``) is refused: pass its codes."""
        check_level_order(y, "y", type(self).__name__)
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
        check_level_order(y, "y", type(self).__name__)
        check_level_order(classes, "classes", type(self).__name__)
        first, X, y = self._partial_data(X, y)
        weights = _row_weights(sample_weight, X.shape[0], fitting=False)
        self._partial_classes(classes, first, unit="levels")
        self._partial_pass(first, X, self._class_indices(y), sample_weight=weights)
        return self

    def decision_function(self, X) -> np.ndarray:
        """Level scores ``(n, n_levels)``, ``X @ coef_.T + intercept_``; the prediction is the
        best-scoring level.  With two levels, ``(n,)``: the score of ``classes_[1]`` minus that of
        ``classes_[0]``."""
        self._check_fitted()
        T = self.learner_.decision_function(self._validate_X(X, reset=False))
        return T[:, 1] - T[:, 0] if T.shape[1] == 2 else T

    def predict(self, X) -> np.ndarray:
        """The predicted level, as one of ``classes_``."""
        self._check_fitted()
        return self.classes_[self.learner_.predict(self._validate_X(X, reset=False))]

    def score(self, X, y, sample_weight=None) -> float:
        """Negative mean absolute error, counted in levels."""
        _check_score_input(X, y)
        sample_weight = _score_weights(sample_weight, np.shape(X)[0])
        self._check_fitted()
        truth = self._scored_indices(y, np.shape(X)[0], "level")
        pred = self.learner_.predict(self._validate_X(X, reset=False))
        return -float(np.average(np.abs(pred - truth), weights=sample_weight))

    def _extra_state(self) -> dict:
        return _classes_state(self.classes_)

    def _restore_extra(self, state) -> None:
        self.classes_ = _saved_classes(state)
