"""The core of :class:`~predtron.sklearn.PredtronMultilabelClassifier` (multilabel classification),
without scikit-learn."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from predtron._models.base import EstimatorCore, estimator_params
from predtron._models.checks import _check_input, _check_score_input, _Count, _saved_classes
from predtron._models.coef import _LinearCoefMixin
from predtron._models.weights import _row_weights, _score_weights
from predtron._validation import MAX_DENSE_ENTRIES, check_choice, check_int, check_positive, excerpt
from predtron.persistence import saveable_as
from predtron.problems import Binary, Multiclass, Multilabel
from predtron.problems.multilabel import LOSSES as MULTILABEL_LOSSES

__all__ = ["MultilabelCore"]


def _nonzero_fraction(X) -> float:
    """The fraction of the entries of ``X`` (dense or CSR) that are not zero (1 for no entry)."""
    size = X.shape[0] * X.shape[1]
    if size == 0:
        return 1.0
    stored = X.data if sp.issparse(X) else X
    return float(np.count_nonzero(stored)) / size


def _hamming_step_factor(X, n_labels: int, cardinality: float) -> float:
    """The multilabel estimator's ``eta="auto"`` for the Hamming loss, as a multiple of
    Theorem 1's step ``c_L / (4 R^2)`` of the joint problem (``c_L = 1/m``), on the (scaled)
    training inputs ``X`` whose target has the label cardinality ``cardinality``: see
    :func:`_hamming_factor`."""
    return _hamming_factor(_nonzero_fraction(X), n_labels, cardinality)


def _hamming_factor(nonzero_fraction: float, n_labels: int, cardinality: float) -> float:
    """The Hamming step factor from the fraction of non-zero entries and the label cardinality.

    With the Hamming loss the oracle updates label ``j`` exactly when its margin
    ``s_j <w_j, x>`` is below ``1 / (4 eta)`` in the units of one perceptron step ``x``: the
    step sets the margin every label must keep, ``kappa R^2`` with ``kappa = m / factor``
    (the joint step asks ``kappa = m``, each label's own binary step ``kappa = 1``).

    * Sparse rows (at most half the entries non-zero: text, indicators): ``2 m``,
      ``kappa = 1/2``.
    * Dense rows: ``m / max(q, 1/2)``, ``kappa = q``, the mean number of labels on per
      training row (the label cardinality, :attr:`FitStatistics.label_cardinality`; at least
      1/2, the sparse rows' margin): a label keeps a margin in proportion to how many labels a
      row carries, so that rare labels (``q`` small against ``m``) are not pushed towards "off"
      by every row that lacks them.

    The evidence is in the notes of :class:`PredtronMultilabelClassifier`.
    """
    m = float(n_labels)
    if nonzero_fraction <= 0.5:
        return 2.0 * m
    return m / max(float(cardinality), 0.5)


def _target_array(Y) -> np.ndarray:
    """The validated target of ``fit``/``partial_fit`` as a dense array: scikit-learn's validation
    keeps a sparse indicator matrix sparse (its multilabel estimators accept one, as ``score``
    here does), and ``numpy.asarray`` of a sparse matrix is a 0-d object array."""
    return Y.toarray() if sp.issparse(Y) else np.asarray(Y)


def _refuse_label_sets(y) -> None:
    """Refuse label sets (``[[0, 2], [1]]``, sets, rows of different lengths), naming the indicator
    matrix the estimator takes and how to make one, before the shared label checks (whose message,
    for rows that are not numbers, speaks of class labels)."""
    if isinstance(y, np.ndarray):
        if y.dtype.kind != "O" or y.ndim != 1:
            return
    elif not isinstance(y, (list, tuple)):
        return
    rows = list(y)
    sets = any(isinstance(row, (set, frozenset)) for row in rows)
    ragged = bool(rows) and all(isinstance(row, (list, tuple, np.ndarray)) for row in rows) \
        and len({len(row) for row in rows}) > 1
    if sets or ragged:
        raise ValueError(f"y must be a 2-D 0/1 indicator matrix of shape (n_samples, n_labels), one column per "
                         f"label; got label sets ({'sets' if sets else 'rows of different lengths'}: "
                         f"{excerpt(rows)}): sklearn.preprocessing.MultiLabelBinarizer().fit_transform(y) makes the "
                         f"indicator matrix from them")


def _check_indicator(Y: np.ndarray) -> np.ndarray:
    """The target of ``fit``/``partial_fit``: a 2-D 0/1 indicator matrix, as int64; a 1-D ``y``
    (class labels) is refused, naming what to pass instead."""
    if Y.ndim == 1:
        raise ValueError(f"y must be a 2-D 0/1 indicator matrix of shape (n_samples, n_labels), one column per "
                         f"label (sklearn.preprocessing.MultiLabelBinarizer makes one from label sets); got a "
                         f"1-D array of shape {Y.shape}: for one class label per row use PredtronClassifier, or "
                         f"pass y.reshape(-1, 1) for a single 0/1 label")
    if Y.ndim != 2:
        raise ValueError(f"y must be a 2-D 0/1 indicator matrix of shape (n_samples, n_labels), one column per "
                         f"label; got a {Y.ndim}-D array of shape {Y.shape}")
    if Y.shape[1] == 0:
        raise ValueError(f"y must have at least one label column; got shape {Y.shape}")
    values = np.unique(Y)
    if not np.all(np.isin(values, [0, 1])):
        raise ValueError(f"Y must be a 0/1 indicator matrix (one column per label); got values {excerpt(values)}")
    return Y.astype(np.int64)


def _k(value, name: str) -> None:
    """``None``, or a number of labels (``>= 1``; at most ``n_labels_``, which the problem checks)."""
    if value is not None:
        check_int(value, name, minimum=1)


def _beta(value, name: str) -> None:
    """A finite positive weight of recall in the F-beta loss."""
    check_positive(value, name)


# k and beta are checked whatever the loss: a value that is not a number is refused even where the
# loss does not read it (it was kept silently, and took effect, or failed, at a later set_params(loss=...)).
@estimator_params({"loss": "hamming", "k": None, "beta": 1.0, "tol": 1e-2},
                  {"loss": lambda v, n: check_choice(v, n, MULTILABEL_LOSSES), "k": _k, "beta": _beta})
@saveable_as("PredtronMultilabelClassifier")
class MultilabelCore(_LinearCoefMixin, EstimatorCore):
    """The rules of :class:`~predtron.sklearn.PredtronMultilabelClassifier` without scikit-learn (its parameters,
    fit, partial_fit, predictions, score and state; see that class)."""


    #: ``tol`` is relative to the first pass's mean loss (see the class notes).
    _relative_tol = True

    def _problem(self):
        if not self.multilabel_:
            k = len(self.classes_)
            return Binary() if k == 2 else Multiclass(k)
        extra = {"normalize": True} if self.loss == "hamming" else {}
        if self.loss == "fbeta":
            extra["beta"] = self.beta
        if self.loss in ("precision@k", "recall@k"):
            extra["k"] = self.k
        return Multilabel(self.n_labels_, self.loss, **extra)

    def check_training_labels(self, X, y) -> None:
        """Check a part of the training data as ``fit`` checks the whole, the indicator matrix
        included (a 1-D ``y`` or values other than 0 and 1 are refused with ``fit``'s messages)."""
        super().check_training_labels(X, y)
        _check_indicator(np.asarray(y))

    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` (dense or sparse) and a 0/1 indicator matrix ``Y`` of shape
        ``(n_samples, n_labels)`` (a single column is one label).

        A one-dimensional ``y`` is refused: class labels are :class:`PredtronClassifier`'s
        target (this estimator used to fit them silently as a multiclass model; a model so
        fitted and saved still loads and predicts class labels).  ``sample_weight``: one
        non-negative weight per row, as in :meth:`PredtronClassifier.fit`.
        """
        self._validate_params()
        _refuse_label_sets(y)
        _check_input(X, y, fitting=True, type_name=type(self).__name__)
        X, Y = self._validate_data(X, y, reset=True, multi_output=True)
        Y = _target_array(Y)
        self._check_targets(Y)
        target = _check_indicator(Y)
        weights = _row_weights(sample_weight, X.shape[0], fitting=True)
        self.multilabel_ = True
        self.n_labels_ = Y.shape[1]
        self.classes_ = np.arange(self.n_labels_)
        problem = self._problem()
        X = self._fit_scaler(X)
        self.eta_ = self._resolve_eta(problem, X, target)
        self._fit_learner(problem, X, target, sample_weight=weights)
        return self

    def _step_factor(self, statistics) -> float:
        """``eta="auto"`` with the Hamming loss: Theorem 1's step of the joint problem times
        :func:`_hamming_factor` of the (scaled) training inputs' non-zero fraction and the
        target's label cardinality, both from ``statistics`` (see the class notes)."""
        if self.multilabel_ and self.loss == "hamming":
            return _hamming_factor(statistics.nonzero_fraction, self.n_labels_, statistics.label_cardinality)
        return 1.0

    def scaler_from(self, statistics):
        """``scaler_`` from a training set's statistics: the shared standardiser, except that dense
        features which all lie in ``[0, 1]`` share one scale (``FitStatistics.scaler(common_unit_scale=
        True)``; see the class notes)."""
        return statistics.scaler(common_unit_scale=True)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One online pass over the batch ``(X, Y)``, in order, continuing from the current state.

        ``Y`` is a 0/1 indicator matrix, as in :meth:`fit` (a one-dimensional ``y`` is refused);
        the first call fixes the number of labels and later batches must have as many columns.
        ``classes`` is accepted for the signature scikit-learn's classifiers share and must be
        ``None``, the label indices ``0..n_labels-1`` or the values of an indicator, ``[0, 1]``.
        ``sample_weight``: one non-negative weight per row (a batch of zero weights leaves the
        model unchanged).
        {partial_scaling}
        """
        _refuse_label_sets(y)
        first, X, Y = self._partial_data(X, y, multi_output=True, y_numeric=False)
        Y = _target_array(Y)
        self._check_targets(Y)
        target = _check_indicator(Y)
        weights = _row_weights(sample_weight, X.shape[0], fitting=False)
        n_labels = Y.shape[1] if first else self.n_labels_
        if classes is not None and not any(np.array_equal(np.asarray(classes).ravel(), allowed)
                                           for allowed in (np.arange(n_labels), np.arange(2))):
            raise ValueError(f"classes must be None, the label indices 0..{n_labels - 1} or the indicator values "
                             f"[0, 1] (an indicator matrix gives the labels by its columns); got {excerpt(classes)}")
        if first:
            self.multilabel_ = True
            self.n_labels_ = Y.shape[1]
            self.classes_ = np.arange(self.n_labels_)
        elif not self.multilabel_ or Y.shape[1] != self.n_labels_:
            expected = f"{self.n_labels_} label columns" if self.multilabel_ else "one class label per row"
            raise ValueError(f"y must have the layout of the first call to partial_fit ({expected}); got shape "
                             f"{Y.shape}")
        self._partial_pass(first, X, target, sample_weight=weights)
        return self

    def decision_function(self, X) -> np.ndarray:
        """Label scores, ``(n, n_labels)``, ``X @ coef_.T + intercept_``; a label is predicted where
        its score is ``>= 0`` (a model saved by an older version from class labels: class scores,
        ``(n,)`` for two classes)."""
        self._check_fitted()
        T = self.learner_.decision_function(self._validate_X(X, reset=False))
        return T[:, 0] if not self.multilabel_ and len(self.classes_) == 2 else T

    def predict(self, X) -> np.ndarray:
        """The predicted 0/1 indicator matrix (class labels for a multiclass target)."""
        self._check_fitted()
        pred = self.learner_.predict(self._validate_X(X, reset=False))
        if self.multilabel_:
            return pred
        return self.classes_[(pred == 1).astype(np.int64) if len(self.classes_) == 2 else pred]

    def score(self, X, y, sample_weight=None) -> float:
        """Negative mean loss (the Hamming loss divided by the number of labels); accuracy for
        a multiclass target."""
        _check_score_input(X, y)
        sample_weight = _score_weights(sample_weight, np.shape(X)[0])
        self._check_fitted()
        if not self.multilabel_:
            return self._accuracy(X, y, sample_weight=sample_weight)
        X = self._validate_X(X, reset=False)
        if sample_weight is None:
            return -self.learner_.mean_loss(X, y)
        losses = self.learner_.problem.batch_loss(self.learner_.decision_function(X),
                                                   self.learner_.problem.check_labels(y, _Count(X.shape[0])))
        return -float(np.average(losses, weights=sample_weight))

    def _extra_state(self) -> dict:
        classes = None if self.multilabel_ else self.classes_.tolist()
        return {"n_labels_": int(self.n_labels_), "multilabel_": bool(self.multilabel_), "classes_": classes}

    def _restore_extra(self, state) -> None:
        self.n_labels_ = state.int("n_labels_", minimum=1, maximum=MAX_DENSE_ENTRIES)
        self.multilabel_ = state.bool("multilabel_")
        if self.multilabel_:
            if state.value("classes_") is not None:  # the label indices: not stored
                raise ValueError(f"state entry 'classes_' must be null for a multilabel model; got "
                                 f"{excerpt(state.value('classes_'))}")
            self.classes_ = np.arange(self.n_labels_)
        else:
            self.classes_ = _saved_classes(state)
            if len(self.classes_) != self.n_labels_:
                raise ValueError("state entry 'classes_' must hold n_labels_ classes")
