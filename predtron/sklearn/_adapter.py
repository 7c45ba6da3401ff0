"""The scikit-learn side of the four estimators: :class:`SklearnAdapter`, their public boundary.

Each public estimator is its core of :mod:`predtron._models` (the parameters, the rules of ``fit``,
``partial_fit``, the predictions, the state; no scikit-learn) with scikit-learn's base classes in
front of it, as ``lightgbm.sklearn`` wraps LightGBM's ``Booster``: ``BaseEstimator`` (parameters,
``repr``, cloning, metadata routing), ``ClassifierMixin`` where it applies, scikit-learn's
validation at the public boundary (``validate_data``, with feature names, ``check_is_fitted``,
``check_classification_targets``) and the tags that ``check_estimator`` reads.  Nothing here
changes a result: the arrays the core receives hold the same numbers.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from predtron._models.base import COMMON_PARAMS, EstimatorCore, adapter_params, estimator_params

__all__ = ["COMMON_PARAMS", "SklearnAdapter", "adapter_params", "estimator_params"]


class SklearnAdapter(BaseEstimator):
    """scikit-learn's validation, fitted check and tags over an :class:`~predtron._models.base.EstimatorCore`
    (the core's boundary hooks replaced by scikit-learn's functions)."""

    def _validate_params(self) -> None:
        """The core's parameter checks (each parameter's own checker, naming it), not scikit-learn's
        constraint objects."""
        EstimatorCore._validate_params(self)

    def _validate_data(self, X, y=None, *, reset: bool, multi_output: bool = False, y_numeric: bool = False):
        if y is None:
            return validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=reset)
        return validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, reset=reset, multi_output=multi_output,
                             y_numeric=y_numeric)

    def _check_targets(self, y) -> None:
        check_classification_targets(y)

    def _check_fitted(self) -> None:
        check_is_fitted(self)

    def _accuracy(self, X, y, sample_weight=None) -> float:
        return ClassifierMixin.score(self, X, y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
