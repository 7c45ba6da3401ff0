"""``coef_`` and ``intercept_`` of the estimators, in the original feature space.

The core learner scores the *standardised* inputs ``z = (x - mean) / scale`` (see
``standardize``): ``t = W z + b``.  In the features the user passed this is ``t = (W / scale) x +
(b - (W / scale) mean)``, so the estimators report ``coef_ = W / scale`` (column by column) and
``intercept_ = b - coef_ @ mean`` (``mean`` is zero for sparse input, which is only scaled), and
``X @ coef_.T + intercept_`` is ``decision_function(X)`` up to rounding.  With ``average=True``
``W`` and ``b`` are the averaged iterate, the parameters the estimator predicts with.

The shapes are those of scikit-learn's linear models: ``(1, n_features)`` and ``(1,)`` where
``decision_function`` returns one column per row (two classes), ``(n_scores, n_features)`` and
``(n_scores,)`` otherwise (classes, labels or levels); the ranker, one score per document as a
single-target regressor, has ``coef_`` of shape ``(n_features,)`` and a float ``intercept_``.
Both are computed from the fitted state on every access (they are read-only views of it).
"""

from __future__ import annotations

import numpy as np


class _LinearCoefMixin:
    """``coef_`` and ``intercept_`` of an estimator whose ``decision_function`` is the core
    learner's scores (one column, for a single score, flattened to ``(n,)``)."""

    def _original_parameters(self) -> tuple[np.ndarray, np.ndarray]:
        """``(W, b)`` of the core learner's predictor, mapped to the unscaled features."""
        self._check_fitted()
        learner = self.learner_
        W = np.array(learner.coef_, dtype=np.float64)
        b = np.array(learner.intercept_, dtype=np.float64) if getattr(learner, "_intercept", False) \
            else np.zeros(W.shape[:-1])
        scaler = getattr(self, "scaler_", None)
        if scaler is not None:
            W = W / scaler.scale
            if scaler.mean is not None:
                b = b - W @ scaler.mean
        return W, b

    def _decision_parameters(self) -> tuple[np.ndarray, np.ndarray]:
        return self._original_parameters()

    @property
    def coef_(self) -> np.ndarray:
        """Weights of the decision function in the original features (see the class notes):
        ``(1, n_features)`` for two classes, else ``(n_scores, n_features)``."""
        return self._decision_parameters()[0]

    @property
    def intercept_(self) -> np.ndarray:
        """Bias of the decision function in the original features, ``(1,)`` for two classes,
        else ``(n_scores,)`` (zeros with ``fit_intercept=False`` and unscaled features)."""
        return self._decision_parameters()[1]


class _OrdinalCoefMixin(_LinearCoefMixin):
    """Two levels: the decision is the score difference of the two levels, one row."""

    def _decision_parameters(self) -> tuple[np.ndarray, np.ndarray]:
        W, b = self._original_parameters()
        if W.shape[0] == 2:
            return (W[1] - W[0])[None, :], np.array([b[1] - b[0]])
        return W, b


class _RankerCoefMixin(_LinearCoefMixin):
    """The ranker: one score per document, ``coef_`` of shape ``(n_features,)`` and a float
    ``intercept_`` (the shift standardisation adds; it changes no ranking)."""

    def _decision_parameters(self) -> tuple[np.ndarray, float]:
        W, b = self._original_parameters()
        return W, float(b)

    @property
    def intercept_(self) -> float:
        """The constant the standardisation adds to every score (0.0 without centring); it
        changes no ranking."""
        return self._decision_parameters()[1]

    def decision_function(self, X) -> np.ndarray:
        """One score per row, ``(n_samples,)`` (the same as :meth:`predict`): sort a query's
        documents by decreasing score.  Equals ``X @ coef_ + intercept_`` up to rounding."""
        return self.predict(X)
