"""The core of :class:`~predtron.sklearn.PredtronClassifier` (binary and multiclass, with costs or
abstention), without scikit-learn."""

from __future__ import annotations

import math
import numbers

import numpy as np

from predtron._models.base import EstimatorCore, estimator_params
from predtron._models.checks import _check_score_input, _classes_state, _saved_classes
from predtron._models.coef import _LinearCoefMixin
from predtron._models.weights import _row_weights, _score_weights
from predtron._validation import as_finite_array, check_positive, excerpt
from predtron.persistence import saveable_as
from predtron.problems import Binary, Multiclass
from predtron.problems.general import check_loss_matrix

__all__ = ["ClassifierCore"]


def _reject_cost(value, name: str) -> None:
    """``None``, or a cost in ``(0, 1)``: abstaining must cost less than a mistake."""
    if value is not None:
        cost = check_positive(value, name)
        if cost >= 1:
            raise ValueError(f"{name} must be in (0, 1) (abstaining must cost less than a mistake); got {cost!r}")


def _reject_label(value, name: str) -> None:
    """One label (a number, a string or ``None``) but a NaN or infinite number, which no prediction
    could be compared with (NaN differs from itself); a list or an array is not one label."""
    if value is not None and not isinstance(value, (str, numbers.Real)):
        raise ValueError(f"{name} must be one label, a number or a string (predict returns it for an abstention); "
                         f"got {type(value).__name__}: {excerpt(value)}")
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number or a string (predictions are compared with it); "
                         f"got {value!r}")


@estimator_params({"cost_matrix": None, "reject_cost": None, "reject_label": -1},
                  {"cost_matrix": None, "reject_cost": _reject_cost, "reject_label": _reject_label})
@saveable_as("PredtronClassifier")
class ClassifierCore(_LinearCoefMixin, EstimatorCore):
    """The rules of :class:`~predtron.sklearn.PredtronClassifier` without scikit-learn (its parameters,
    fit, partial_fit, predictions, score and state; see that class)."""


    def _problem(self):
        k = len(self.classes_)
        if k == 2 and self.cost_matrix is None:
            return Binary()
        return Multiclass(k, loss=None if self.cost_matrix is None else np.asarray(self.cost_matrix, dtype=float))

    def _binary_params(self) -> bool:
        """Whether the parameters make the problem binary (two classes, no cost matrix): the rule of a fit."""
        return len(self.classes_) == 2 and self.cost_matrix is None

    def _binary(self) -> bool:
        """Whether the fitted problem is binary (the parameters' rule before a fit): predictions read
        the model they come from, so that a ``cost_matrix`` given by ``set_params`` to a fitted
        binary model takes effect at the next fit, not by decoding its scores as class scores."""
        learner = self.__dict__.get("learner_")
        return isinstance(learner.problem, Binary) if learner is not None else self._binary_params()

    def _encode(self, indices: np.ndarray, binary: bool | None = None) -> np.ndarray:
        """Class indices as the problem's labels (``classes_[1]`` is ``+1`` for two classes);
        ``binary``: the rule to use (default: the fitted problem's)."""
        return np.where(indices == 1, 1, -1) if (self._binary() if binary is None else binary) else indices

    def _decode(self, predictions: np.ndarray) -> np.ndarray:
        if self._binary():
            return (np.asarray(predictions) == 1).astype(np.int64)
        return np.asarray(predictions, dtype=np.int64)

    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` (dense or sparse) and labels ``y`` of any values.

        ``sample_weight`` (one non-negative weight per row, at least one positive) scales each
        row's loss and so its update; a zero weight leaves the model as without the row (see
        :mod:`predtron.learners.base`, "Sample weights").  The scaling statistics, Theorem 1's
        step (``eta="auto"``) and the abstention threshold do not use the weights.
        """
        X, indices = self._fit_classes(X, y)
        weights = _row_weights(sample_weight, X.shape[0], fitting=True)
        if self.cost_matrix is not None:
            self._checked_cost_matrix("classes of y")
        if self.reject_cost is not None:
            self._check_reject_label()
        X = self._fit_scaler(X)
        problem = self._problem()
        target = self._encode(indices, self._binary_params())  # the problem of this fit, not of an earlier one
        self.eta_ = self._resolve_eta(problem, X, target)
        self._fit_learner(problem, X, target, sample_weight=weights)
        if self.reject_cost is not None:
            self.threshold_ = self._fit_threshold(X, indices)
        else:  # a fit without abstention keeps no threshold of an earlier fit with it
            self.__dict__.pop("threshold_", None)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One online pass over the batch ``(X, y)``, in order, continuing from the current state.

        ``classes`` (all the labels of the stream) is required on the first call, as in
        scikit-learn's ``SGDClassifier.partial_fit``; a later batch may hold any subset of them.
        ``reject_cost`` is not available here (its threshold is fitted on the whole training
        set by :meth:`fit`).  ``sample_weight``: one non-negative weight per row, as in
        :meth:`fit` (a batch of zero weights leaves the model unchanged).
        {partial_scaling}
        """
        first, X, y = self._partial_data(X, y)
        weights = _row_weights(sample_weight, X.shape[0], fitting=False)
        if first and self.reject_cost is not None:
            raise ValueError("partial_fit does not support reject_cost: the abstention threshold is fitted on the "
                             "whole training set by fit")
        self._partial_classes(classes, first)
        if first and self.cost_matrix is not None:
            self._checked_cost_matrix("classes")
        self._partial_pass(first, X, self._encode(self._class_indices(y)), sample_weight=weights)
        return self

    def _checked_cost_matrix(self, classes: str) -> np.ndarray:
        """``cost_matrix`` as a float array, checked against ``classes_``: one row and column per
        class, non-negative and finite, a zero in every column (``classes`` names the classes in
        the message).  ``fit`` and ``partial_fit`` check it before learning, ``score`` before
        scoring: a matrix given by ``set_params`` after the fit is refused, naming it, rather than
        indexed by the fitted classes (a NumPy ``IndexError``, or a silent part of a larger matrix)."""
        k = len(self.classes_)
        matrix = as_finite_array(self.cost_matrix, "cost_matrix")
        if matrix.shape != (k, k):
            raise ValueError(f"cost_matrix must be ({k}, {k}) for the {k} {classes}; got shape {matrix.shape}")
        check_loss_matrix(self.cost_matrix, "cost_matrix")
        return np.asarray(matrix, dtype=np.float64)

    def _scores(self, X) -> np.ndarray:
        return self.learner_.decision_function(X)

    def decision_function(self, X) -> np.ndarray:
        """Class scores, ``X @ coef_.T + intercept_``: ``(n,)`` for two classes without a cost
        matrix (positive favours ``classes_[1]``), else ``(n, n_classes)`` (the predicted class
        has the largest score)."""
        self._check_fitted()
        T = self._scores(self._validate_X(X, reset=False))
        return T[:, 0] if self._binary() else T

    def _gap(self, T: np.ndarray) -> np.ndarray:
        if T.shape[1] == 1:
            return 2.0 * np.abs(T[:, 0])
        top2 = np.sort(T, axis=1)[:, -2:]
        return top2[:, 1] - top2[:, 0]

    def _fit_threshold(self, X, indices: np.ndarray) -> float:
        T = self._scores(X)
        wrong = self._decode(self.learner_.problem.batch_pred(T)) != indices
        gap = self._gap(T)
        order = np.argsort(gap, kind="stable")
        # Abstaining on the j smallest gaps costs reject_cost * j plus the mistakes among the others.
        mistakes_left = wrong.sum() - np.concatenate([[0], np.cumsum(wrong[order])])
        totals = float(self.reject_cost) * np.arange(len(gap) + 1) + mistakes_left
        j = int(np.argmin(totals))
        if j == 0:
            return 0.0
        sorted_gap = gap[order]
        return float(sorted_gap[j - 1] + (sorted_gap[j] - sorted_gap[j - 1]) / 2) if j < len(gap) else np.inf

    def _check_reject_label(self) -> None:
        """``reject_label`` is none of ``classes_`` (an abstention would read as that class)."""
        if np.any(self.classes_ == self.reject_label):
            raise ValueError(f"reject_label must differ from every class; {self.reject_label!r} is a class of y")

    def _check_reject(self) -> None:
        """``reject_cost`` and ``reject_label`` as ``fit`` checks them, for the predictions of a fitted
        model: values given by ``set_params`` after the fit are refused, naming them, rather than
        used (an abstention cost of 5 in the score, a label that is a class or a list in the
        predictions, or NumPy's error for a cost that is not a number)."""
        _reject_cost(self.reject_cost, "reject_cost")
        _reject_label(self.reject_label, "reject_label")
        self._check_reject_label()

    def _predict_indices(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Class indices and the abstention mask."""
        self._check_fitted()
        if self.reject_cost is not None:
            self._check_reject()
        T = self._scores(self._validate_X(X, reset=False))
        indices = self._decode(self.learner_.problem.batch_pred(T))
        abstain = (self._gap(T) < self._threshold()) if self.reject_cost is not None else np.zeros(len(T), dtype=bool)
        return indices, abstain

    def predict(self, X) -> np.ndarray:
        """The predicted class (``reject_label`` for an abstention)."""
        indices, abstain = self._predict_indices(X)
        labels = self.classes_[indices]
        if self.reject_cost is None:
            return labels
        # One dtype for the classes and reject_label, whether or not a row of this X abstains (the
        # predictions of two batches then have the same dtype and concatenate and compare alike).
        marker = np.asarray(self.reject_label)
        kinds = {marker.dtype.kind in "biuf", labels.dtype.kind in "biuf"}
        same = kinds == {True} or (marker.dtype.kind == "U" and labels.dtype.kind == "U")
        out = labels.astype(np.result_type(labels.dtype, marker.dtype) if same else object)
        out[abstain] = self.reject_label
        return out

    def score(self, X, y, sample_weight=None) -> float:
        """Accuracy, or the negative mean cost with ``cost_matrix`` or ``reject_cost``."""
        _check_score_input(X, y)
        sample_weight = _score_weights(sample_weight, np.shape(X)[0])
        if self.cost_matrix is None and self.reject_cost is None:
            return self._accuracy(X, y, sample_weight=sample_weight)
        indices, abstain = self._predict_indices(X)
        truth = self._scored_indices(y, np.shape(X)[0], "label")
        matrix = (1.0 - np.eye(len(self.classes_))) if self.cost_matrix is None \
            else self._checked_cost_matrix("classes of the fit (classes_)")
        costs = np.where(abstain, float(self.reject_cost or 0.0), matrix[indices, truth])
        return -float(np.average(costs, weights=sample_weight))

    def _threshold(self) -> float:
        """``threshold_``, which ``fit`` sets with ``reject_cost``; a ``reject_cost`` given by
        ``set_params`` after a fit without one is refused, naming it (not an ``AttributeError``)."""
        if not hasattr(self, "threshold_"):
            raise ValueError(f"reject_cost={self.reject_cost!r} was set after a fit without it: the abstention "
                             "threshold_ is fitted by fit; call fit again (or set reject_cost=None)")
        return self.threshold_

    def _extra_state(self) -> dict:
        state = _classes_state(self.classes_)
        if self.reject_cost is not None:  # JSON has no infinity: "abstain always" is stored as None
            threshold = self._threshold()
            state["threshold_"] = float(threshold) if np.isfinite(threshold) else None
        return state

    def _restore_extra(self, state) -> None:
        self.classes_ = _saved_classes(state)
        if self.reject_cost is not None:
            self.threshold_ = np.inf if state.value("threshold_") is None else state.real("threshold_", minimum=0.0)
