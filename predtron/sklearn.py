"""scikit-learn estimators over the generic learners.

This module is a thin layer, the way ``lightgbm.sklearn`` sits over LightGBM: each
estimator turns its constructor parameters and the labels it is given into a
:mod:`predtron.problems` problem and a core learner (:class:`~predtron.Predtron`, or
:class:`~predtron.PredtronLD` with ``loss_driven=True``), and runs the learner's exact
online loop underneath.  What lives here are the practical defaults: the averaged iterate,
a new random order of the examples at every pass, an intercept, standardised features
and several passes (measured on real data in ``benchmarks/real_data.py``; see each class),
plus the conventions of scikit-learn: labels of any values (``classes_``), all
hyperparameters in the constructor, validation at ``fit``, ``score`` higher-is-better.
With ``average=False, shuffle=False, fit_intercept=False, standardize=False, epochs=1``
an estimator is Algorithm 1 of the paper as stated.

* :class:`PredtronClassifier` -- binary and multiclass, optional cost matrix, optional
  abstention with a cost.
* :class:`PredtronMultilabelClassifier` -- indicator matrices, Hamming, subset, F1 and the
  other multilabel losses.
* :class:`PredtronOrdinalClassifier` -- ordered labels, absolute loss.
* :class:`PredtronRanker` -- learning to rank from query ids or group sizes, like
  LightGBM's ``LGBMRanker``; ``score`` is the mean NDCG@k.
"""

from __future__ import annotations

import itertools
import math
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from predtron._state import State
from predtron._validation import (
    MAX_DENSE_ENTRIES,
    as_finite_array,
    as_label_array,
    check_bool,
    check_class_labels,
    check_int,
    check_matrix,
    check_positive,
    excerpt,
    query_offsets,
)
from predtron.learners.predtron import Predtron, PredtronLD
from predtron.persistence import saveable
from predtron.problems import Binary, Multiclass, Multilabel, Ordinal, SubsetRanking
from predtron.problems.general import check_loss_matrix
from predtron.problems.multilabel import LOSSES as MULTILABEL_LOSSES
from predtron.problems.ranking_measures import F_CHOICES

__all__ = [
    "PredtronClassifier",
    "PredtronMultilabelClassifier",
    "PredtronOrdinalClassifier",
    "PredtronRanker",
]


def _check_input(X, y=None, *, fitting: bool = False, relevance: bool = False, type_name: str = "this estimator") \
        -> None:
    """The package's checks before scikit-learn's ``validate_data`` (which keeps its own conventions,
    required by ``check_estimator``, and the feature names): real finite numbers below
    ``MAX_ABS_INPUT`` in ``X`` (no dates, no numeric strings), and classes in ``y`` that are finite
    numbers or strings, not a mix (``relevance``: numbers, no booleans).  ``fitting``: ``y`` is
    required."""
    check_matrix(X, "X", accept_sparse=True, min_features=0)
    if y is None:
        if fitting:
            raise ValueError(f"{type_name} requires y to be passed, but the target y is None "
                             "(one label per row of X)")
        return
    labels = as_label_array(y, "y", booleans=not relevance)
    flat = labels.ravel()
    if flat.dtype.kind in "cmMV":
        raise ValueError(f"y must hold numbers or strings (Complex data not supported); got dtype {flat.dtype}")
    if flat.dtype.kind == "f" and not np.all(np.isfinite(flat)):
        raise ValueError("y must not contain NaN or infinite values (a class must be a finite number or a string)")
    if flat.dtype.kind == "O":
        values = flat.tolist()
        if not all(isinstance(v, str) or (isinstance(v, numbers.Real) and math.isfinite(v)) for v in values):
            raise ValueError(f"y must hold finite numbers or strings as classes; got {excerpt(flat)}")
        if 0 < sum(isinstance(v, str) for v in values) < len(values):
            raise ValueError(f"y must hold numbers or strings as classes, not a mix of both; got {excerpt(flat)}")
    if relevance and flat.dtype.kind not in "iuf":
        raise ValueError(f"y must hold relevance grades (numbers); got {excerpt(flat)}")


def _check_score_input(X, y, *, relevance: bool = False) -> None:
    """``_check_input`` and at least one row: a score of no rows is undefined."""
    _check_input(X, y, fitting=True, relevance=relevance)
    if np.shape(X)[0] == 0:
        raise ValueError(f"X must hold at least one row to score (a mean over no rows is undefined); "
                         f"got shape {np.shape(X)}")


def _saved_classes(state) -> np.ndarray:
    """The saved ``classes_``: at least 2 distinct classes (numbers or strings), sorted."""
    classes = check_class_labels(state.value("classes_"), "state entry 'classes_'")
    if classes.size < 2 or np.any(classes[1:] <= classes[:-1]):
        raise ValueError("state entry 'classes_' must hold at least 2 sorted distinct classes")
    return classes


class _Standardizer:
    """Per-feature scaling learned at fit: ``(x - mean) / std`` (sparse input: ``x / rms``, no
    centring, so the matrix stays sparse).  Constant features are left unscaled."""

    def __init__(self, X):
        if sp.issparse(X):
            mean_sq = np.asarray(X.multiply(X).mean(axis=0)).ravel()
            self.mean = None
            self.scale = np.sqrt(mean_sq)
        else:
            self.mean = X.mean(axis=0)
            self.scale = X.std(axis=0)
        self.scale = np.where(self.scale > 0, self.scale, 1.0)

    def __call__(self, X):
        # The statistics decide, not the layout of X: a scaler fitted on dense data centres
        # (densifying sparse input), one fitted on sparse data only scales.
        if self.mean is None:
            return sp.csr_matrix(X @ sp.diags(1.0 / self.scale)) if sp.issparse(X) else X / self.scale
        if sp.issparse(X):
            X = X.toarray()
        return (X - self.mean) / self.scale


def theorem1_step(problem, X, labels, intercept: bool, offsets=None) -> float:
    """``c_L / (4 R^2)``, Theorem 1's step size, with ``R^2`` the MEAN squared instance norm.

    Theorem 1 takes the largest norm ``R``; one outlying row then shrinks the step for every
    example, so the estimators use the mean of ``||x||^2`` (plus 1 for an intercept; for a
    query, the squared Frobenius norm of its document matrix, an upper bound of the squared
    operator norm).  ``c_L`` is the smallest non-zero loss (over the training labels for
    ranking).  Falls back to 1 when every loss is zero.
    """
    if sp.issparse(X):
        squares = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    else:
        squares = np.einsum("ij,ij->i", X, X)
    if offsets is not None:
        squares = np.add.reduceat(squares, offsets[:-1]) if len(squares) else squares
    r2 = float(np.mean(squares)) + (1.0 if intercept else 0.0)
    if offsets is not None:
        segments = [labels[a:b] for a, b in itertools.pairwise(offsets)]
        try:
            c_L = problem.loss_bounds_for(segments)[0]
        except ValueError:
            return 1.0
    else:
        c_L = problem.c_L
    return float(c_L / (4.0 * r2)) if r2 > 0 else 1.0


class _PredtronEstimator(BaseEstimator):
    """Shared parameters, validation and the core learner of the estimators."""

    def _learner(self, problem, eta=None):
        cls = PredtronLD if self.loss_driven else Predtron
        eta = getattr(self, "eta_", self.eta) if eta is None else eta
        return cls(problem, eta=eta, update=self.update, average=self.average, shuffle=self.shuffle,
                   random_state=self._seed(), fit_intercept=self.fit_intercept, record_losses=False)

    def _fit_learner(self, problem, X, target, **split) -> None:
        """Fit the core learner, stopping early when the online loss of a pass stops improving."""
        self.learner_ = self._learner(problem)
        self.learner_.fit(X, target, epochs=self.epochs, verbose=self.verbose, callback=self._stopper(), **split)
        self.n_iter_ = self.learner_.n_epochs_

    def _stopper(self):
        """Early stopping as scikit-learn's ``tol``/``n_iter_no_change``: stop once the mean loss the
        learner suffers in a pass has not improved on the best pass by ``tol`` for
        ``n_iter_no_change`` passes in a row."""
        if self.tol is None:
            return None
        tol = check_positive(self.tol, "tol", allow_zero=True)
        patience = check_int(self.n_iter_no_change, "n_iter_no_change", minimum=1)
        state = {"best": np.inf, "stall": 0, "rounds": 0, "total": 0.0}

        def stop(learner, epoch: int) -> bool:
            rounds, total = learner.n_rounds_, learner.cumulative_loss_
            mean = (total - state["total"]) / max(rounds - state["rounds"], 1)
            state["rounds"], state["total"] = rounds, total
            state["stall"] = state["stall"] + 1 if mean > state["best"] - tol else 0
            state["best"] = min(state["best"], mean)
            return bool(state["stall"] >= patience)

        return stop

    def _resolve_eta(self, problem, X, labels, offsets=None) -> float:
        """The step size: ``eta`` as given, or Theorem 1's step for ``eta="auto"``."""
        if isinstance(self.eta, str) and self.eta == "auto":
            return theorem1_step(problem, X, labels, bool(self.fit_intercept), offsets)
        return check_positive(self.eta, "eta")

    def _seed(self):
        state = self.random_state
        if isinstance(state, np.random.RandomState):
            return int(state.randint(0, 2**31 - 1))
        return state

    def _check_common(self) -> None:
        check_int(self.epochs, "epochs", minimum=1)
        for name in ("average", "shuffle", "fit_intercept", "standardize", "loss_driven", "verbose"):
            check_bool(getattr(self, name), name)
        if not (isinstance(self.eta, str) and self.eta == "auto"):
            check_positive(self.eta, "eta")

    def _validate_X(self, X, reset: bool):
        _check_input(X)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=reset)
        return self._transform(X)

    def _transform(self, X):
        return self.scaler_(X) if getattr(self, "scaler_", None) is not None else X

    def _fit_scaler(self, X):
        self.scaler_ = _Standardizer(X) if self.standardize else None
        return self._transform(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # -------------------------------------------------------------- persistence
    def _check_fitted(self) -> None:
        check_is_fitted(self)

    def _validate_params(self) -> None:
        self._check_common()

    def _get_state(self) -> tuple[dict, dict]:
        check_is_fitted(self)
        scalars, arrays = self.learner_._get_state()
        arrays = {f"learner.{k}": v for k, v in arrays.items()}
        scalars = {"learner": scalars, "n_features_in_": int(self.n_features_in_), "eta_": float(self.eta_)}
        if self.scaler_ is not None:
            arrays["scale"] = self.scaler_.scale
            if self.scaler_.mean is not None:
                arrays["mean"] = self.scaler_.mean
        scalars.update(self._extra_state())
        return scalars, arrays

    def _set_state(self, scalars: dict, arrays: dict) -> None:
        state = State.of(scalars, arrays)
        self.n_features_in_ = state.int("n_features_in_", minimum=1, maximum=MAX_DENSE_ENTRIES)
        self.eta_ = state.real("eta_", minimum=0.0)
        if self.eta_ <= 0:
            raise ValueError(f"state entry 'eta_' must be positive; got {self.eta_}")
        self._restore_extra(state)
        if state.has_array("scale"):
            scaler = _Standardizer.__new__(_Standardizer)
            scaler.scale = state.array("scale", (self.n_features_in_,))
            if np.any(scaler.scale <= 0):
                raise ValueError("state array 'scale' must be positive")
            scaler.mean = state.array("mean", (self.n_features_in_,)) if state.has_array("mean") else None
            self.scaler_ = scaler
        elif self.standardize:
            raise ValueError("standardize=True but the state has no array 'scale'")
        else:
            self.scaler_ = None
        self.learner_ = self._learner(self._problem())
        self.learner_._validate_params()
        self.learner_._set_state(state.sub("learner"), None)
        if self.learner_.n_features_in_ != self.n_features_in_:
            raise ValueError(f"state entry 'learner.n_features_in_' ({self.learner_.n_features_in_}) must equal "
                             f"n_features_in_ ({self.n_features_in_})")

    def _extra_state(self) -> dict:
        return {}

    def _restore_extra(self, state) -> None:
        return None


_COMMON_DOC = """
    eta : float or "auto", default "auto"
        Step size of Algorithm 1.  ``"auto"`` is Theorem 1's step ``c_L / (4 R^2)`` with
        ``R^2`` the mean squared norm of the (standardised) training inputs (see
        :func:`theorem1_step`); ``eta_`` holds the value used.  With the oracle update,
        ``eta`` times the squared input norm sets how much the loss term of the oracle weighs
        against the scores, so a step on the data's own scale makes the estimator
        independent of how the features were scaled.
    epochs : int, default 50
        Largest number of passes over the training data (see ``tol``).
    tol : float or None, default 1e-3
        Stop when the mean loss the learner suffers in a pass has not improved on the best
        pass by ``tol`` for ``n_iter_no_change`` passes in a row (as scikit-learn's linear
        models stop); ``None`` makes exactly ``epochs`` passes.  ``n_iter_`` is the number
        of passes made.
    n_iter_no_change : int, default 5
        Patience of the stopping rule.
    average : bool, default True
        Predict with the averaged iterate (Freund and Schapire; Collins).
    shuffle : bool, default True
        Visit the examples in a new random order at every pass.
    random_state : int, RandomState, numpy Generator or None, default None
        Seed of the shuffling.
    fit_intercept : bool, default True
        A bias per score coordinate.
    standardize : bool, default True
        Scale every feature to unit variance with the training statistics, and centre it
        when the training input is dense (centring sparse input would densify it, so sparse
        input is only scaled: a model fitted on a CSR matrix then differs from one fitted on
        the same data dense; with ``standardize=False`` they are identical).  The
        perceptron's mistake bounds grow with the input radius ``R``, and a feature on a much
        larger scale than the others dominates it (on Mulan emotions, without it the
        estimator predicts no label at all).
    update : {"oracle", "prediction"}, default "oracle"
        Which prediction enters the update: the loss-augmented argmax (Algorithm 1) or the
        prediction itself (perceptron-style).
    loss_driven : bool, default False
        Use Predtron.LD, which scales each step by the loss just suffered.
    verbose : bool, default False
        Show a progress bar over the passes and examples of ``fit``.
"""


def _defaults(cls):
    cls.__doc__ = cls.__doc__.replace("    {common}\n", _COMMON_DOC.lstrip("\n"))
    return cls


@_defaults
@saveable
class PredtronClassifier(ClassifierMixin, _PredtronEstimator):
    """Binary and multiclass classification with the Predtron.

    Two classes use :class:`~predtron.problems.Binary` (the perceptron), more use
    :class:`~predtron.problems.Multiclass` (Crammer and Singer's multiclass perceptron); a
    ``cost_matrix`` makes either cost-sensitive.

    Parameters
    ----------
    {common}
    cost_matrix : array-like of shape (n_classes, n_classes), optional
        ``cost_matrix[i, j]`` is the cost of predicting ``classes_[i]`` for an example of
        class ``classes_[j]`` (non-negative, zero on the diagonal).  Default: 0-1.
    reject_cost : float in (0, 1), optional
        Allow abstaining at this cost (a mistake costs 1).  The paper's REJECT
        representation (:class:`~predtron.problems.BinaryReject`) never abstains when
        Algorithm 1 starts from ``W = 0`` (every update is antisymmetric in the two class
        scores; see the book's binary chapter), so the estimator abstains by Chow's rule on
        its own scores instead: it predicts ``reject_label`` when the gap between the two
        best class scores is below ``threshold_``, the threshold that minimises the mean
        loss with abstention on the training data.
    reject_label : object, default -1
        What ``predict`` returns for an abstention (must not be one of the classes).

    Attributes
    ----------
    classes_ : ndarray
        The class labels, sorted.
    learner_ : Predtron
        The fitted core learner (``learner_.coef_``, ``learner_.intercept_``).
    threshold_ : float
        Score gap below which the classifier abstains (with ``reject_cost``).
    n_features_in_ : int
        Number of features seen by ``fit``.

    Notes
    -----
    ``score`` is the accuracy, or the negative mean cost with a cost matrix or an
    abstention cost (higher is better in every case).
    """

    def __init__(self, *, eta="auto", epochs=50, tol=1e-3, n_iter_no_change=5, average=True, shuffle=True,
                 random_state=None, fit_intercept=True, standardize=True, update="oracle", loss_driven=False,
                 verbose=False, cost_matrix=None, reject_cost=None, reject_label=-1):
        self.eta = eta
        self.epochs = epochs
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.average = average
        self.shuffle = shuffle
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.standardize = standardize
        self.update = update
        self.loss_driven = loss_driven
        self.verbose = verbose
        self.cost_matrix = cost_matrix
        self.reject_cost = reject_cost
        self.reject_label = reject_label

    def _problem(self):
        k = len(self.classes_)
        if k == 2 and self.cost_matrix is None:
            return Binary()
        return Multiclass(k, loss=None if self.cost_matrix is None else np.asarray(self.cost_matrix, dtype=float))

    def _binary(self) -> bool:
        return len(self.classes_) == 2 and self.cost_matrix is None

    def _encode(self, indices: np.ndarray) -> np.ndarray:
        """Class indices as the problem's labels (``classes_[1]`` is ``+1`` for two classes)."""
        return np.where(indices == 1, 1, -1) if self._binary() else indices

    def _decode(self, predictions: np.ndarray) -> np.ndarray:
        if self._binary():
            return (np.asarray(predictions) == 1).astype(np.int64)
        return np.asarray(predictions, dtype=np.int64)

    def fit(self, X, y):
        """Fit on ``X`` (dense or sparse) and labels ``y`` of any values."""
        self._check_common()
        _check_input(X, y, fitting=True, type_name=type(self).__name__)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_classification_targets(y)
        self.classes_, indices = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"y must hold at least 2 classes to learn from; got 1 class ({excerpt(self.classes_)})")
        if self.cost_matrix is not None:
            shape = as_finite_array(self.cost_matrix, "cost_matrix").shape
            if shape != (len(self.classes_),) * 2:
                raise ValueError(f"cost_matrix must be ({len(self.classes_)}, {len(self.classes_)}) for the "
                                 f"{len(self.classes_)} classes of y; got shape {shape}")
            check_loss_matrix(self.cost_matrix, "cost_matrix")
        if self.reject_cost is not None:
            cost = check_positive(self.reject_cost, "reject_cost")
            if cost >= 1:
                raise ValueError(f"reject_cost must be in (0, 1) (abstaining must cost less than a mistake); "
                                 f"got {cost!r}")
            if np.any(self.classes_ == self.reject_label):
                raise ValueError(f"reject_label must differ from every class; {self.reject_label!r} is a class of y")
        X = self._fit_scaler(X)
        problem = self._problem()
        self.eta_ = self._resolve_eta(problem, X, self._encode(indices))
        self._fit_learner(problem, X, self._encode(indices))
        if self.reject_cost is not None:
            self.threshold_ = self._fit_threshold(X, indices)
        return self

    def _scores(self, X) -> np.ndarray:
        return self.learner_.decision_function(X)

    def decision_function(self, X) -> np.ndarray:
        """Class scores: ``(n,)`` for two classes (positive favours ``classes_[1]``), else ``(n, k)``."""
        check_is_fitted(self)
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

    def _predict_indices(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Class indices and the abstention mask."""
        check_is_fitted(self)
        T = self._scores(self._validate_X(X, reset=False))
        indices = self._decode(self.learner_.problem.batch_pred(T))
        abstain = (self._gap(T) < self.threshold_) if self.reject_cost is not None else np.zeros(len(T), dtype=bool)
        return indices, abstain

    def predict(self, X) -> np.ndarray:
        """The predicted class (``reject_label`` for an abstention)."""
        indices, abstain = self._predict_indices(X)
        labels = self.classes_[indices]
        if not abstain.any():
            return labels
        marker = np.asarray(self.reject_label)
        out = labels.astype(np.result_type(labels.dtype, marker.dtype)) if marker.dtype.kind in "biuf" \
            and labels.dtype.kind in "biuf" else labels.astype(object)
        out[abstain] = self.reject_label
        return out

    def score(self, X, y, sample_weight=None) -> float:
        """Accuracy, or the negative mean cost with ``cost_matrix`` or ``reject_cost``."""
        _check_score_input(X, y)
        if self.cost_matrix is None and self.reject_cost is None:
            return super().score(X, y, sample_weight=sample_weight)
        indices, abstain = self._predict_indices(X)
        y = check_class_labels(y, "y", n=np.shape(X)[0])
        index = {c: i for i, c in enumerate(self.classes_.tolist())}
        truth = np.array([index.get(v, -1) for v in y.tolist()], dtype=np.int64)
        if truth.shape != indices.shape or np.any(truth < 0):
            raise ValueError(f"y must hold one label seen in fit per row of X; got {excerpt(y)}")
        matrix = (1.0 - np.eye(len(self.classes_))) if self.cost_matrix is None else np.asarray(self.cost_matrix)
        costs = np.where(abstain, float(self.reject_cost or 0.0), matrix[indices, truth])
        return -float(np.average(costs, weights=sample_weight))

    def _extra_state(self) -> dict:
        state = {"classes_": self.classes_.tolist()}
        if self.reject_cost is not None:  # JSON has no infinity: "abstain always" is stored as None
            state["threshold_"] = float(self.threshold_) if np.isfinite(self.threshold_) else None
        return state

    def _restore_extra(self, state) -> None:
        self.classes_ = _saved_classes(state)
        if self.reject_cost is not None:
            self.threshold_ = np.inf if state.value("threshold_") is None else state.real("threshold_", minimum=0.0)


@_defaults
@saveable
class PredtronMultilabelClassifier(ClassifierMixin, _PredtronEstimator):
    """Multilabel classification with the Predtron (:class:`~predtron.problems.Multilabel`).

    Labels are an indicator matrix ``Y`` of shape ``(n_samples, n_labels)``; the learner
    predicts all labels jointly under the chosen loss, with the fast oracles of the
    package (no enumeration of the ``2^m`` label sets).

    Parameters
    ----------
    loss : {"hamming", "subset", "errorset", "f1", "fbeta", "balanced", "precision@k", "recall@k"}, default "hamming"
        The multilabel loss (see :class:`~predtron.problems.Multilabel`).
    k : int, optional
        For ``"precision@k"`` and ``"recall@k"``.
    beta : float, default 1.0
        For ``"fbeta"``.
    {common}

    Attributes
    ----------
    classes_ : ndarray
        The label indices ``0..n_labels-1`` for an indicator target (as scikit-learn's
        multilabel classifiers report them), or the class labels of a multiclass target.
    n_labels_ : int
        Number of labels.
    learner_ : Predtron
        The fitted core learner.
    n_features_in_ : int
        Number of features seen by ``fit``.

    Notes
    -----
    ``score`` is the negative mean loss, with the Hamming loss divided by the number of
    labels (the usual Hamming loss, in ``[0, 1]``).
    """

    def __init__(self, *, loss="hamming", k=None, beta=1.0, eta="auto", epochs=50, tol=1e-3,
                 n_iter_no_change=5, average=True, shuffle=True, random_state=None, fit_intercept=True,
                 standardize=True, update="oracle", loss_driven=False, verbose=False):
        self.loss = loss
        self.k = k
        self.beta = beta
        self.eta = eta
        self.epochs = epochs
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.average = average
        self.shuffle = shuffle
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.standardize = standardize
        self.update = update
        self.loss_driven = loss_driven
        self.verbose = verbose

    def _problem(self):
        if not self.multilabel_:
            k = len(self.classes_)
            return Binary() if k == 2 else Multiclass(k)
        if self.loss not in MULTILABEL_LOSSES:
            raise ValueError(f"loss must be one of {sorted(MULTILABEL_LOSSES)}; got {excerpt(self.loss)}")
        extra = {"normalize": True} if self.loss == "hamming" else {}
        if self.loss == "fbeta":
            extra["beta"] = self.beta
        if self.loss in ("precision@k", "recall@k"):
            extra["k"] = self.k
        return Multilabel(self.n_labels_, self.loss, **extra)

    def fit(self, X, y):
        """Fit on ``X`` (dense or sparse) and a 0/1 indicator matrix ``Y``.

        A one-dimensional ``Y`` (or a single column) of class labels is a multiclass target,
        the special case where exactly one label is on: it is learned with
        :class:`~predtron.problems.Multiclass` (:class:`~predtron.problems.Binary` for two
        classes) and ``predict`` returns class labels.
        """
        self._check_common()
        _check_input(X, y, fitting=True, type_name=type(self).__name__)
        X, Y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, multi_output=True,
                             y_numeric=False)
        Y = np.asarray(Y)
        check_classification_targets(Y)
        if Y.ndim == 2 and Y.shape[1] == 1:
            Y = Y[:, 0]
        self.multilabel_ = Y.ndim == 2
        if self.multilabel_:
            values = np.unique(Y)
            if not np.all(np.isin(values, [0, 1])):
                raise ValueError(f"Y must be a 0/1 indicator matrix (one column per label); got values "
                                 f"{excerpt(values)}")
            self.n_labels_ = Y.shape[1]
            self.classes_ = np.arange(self.n_labels_)
            target = Y.astype(np.int64)
        else:
            self.classes_, indices = np.unique(Y, return_inverse=True)
            if len(self.classes_) < 2:
                raise ValueError(f"y must hold at least 2 classes to learn from; got 1 class "
                                 f"({excerpt(self.classes_)})")
            self.n_labels_ = len(self.classes_)
            target = np.where(indices == 1, 1, -1) if len(self.classes_) == 2 else indices
        problem = self._problem()
        X = self._fit_scaler(X)
        self.eta_ = self._resolve_eta(problem, X, target)
        self._fit_learner(problem, X, target)
        return self

    def decision_function(self, X) -> np.ndarray:
        """Label scores, ``(n, n_labels)``; a label is predicted where its score is ``>= 0``
        (class scores for a multiclass target, ``(n,)`` for two classes)."""
        check_is_fitted(self)
        T = self.learner_.decision_function(self._validate_X(X, reset=False))
        return T[:, 0] if not self.multilabel_ and len(self.classes_) == 2 else T

    def predict(self, X) -> np.ndarray:
        """The predicted 0/1 indicator matrix (class labels for a multiclass target)."""
        check_is_fitted(self)
        pred = self.learner_.predict(self._validate_X(X, reset=False))
        if self.multilabel_:
            return pred
        return self.classes_[(pred == 1).astype(np.int64) if len(self.classes_) == 2 else pred]

    def score(self, X, y, sample_weight=None) -> float:
        """Negative mean loss (the Hamming loss divided by the number of labels); accuracy for
        a multiclass target."""
        _check_score_input(X, y)
        check_is_fitted(self)
        if not self.multilabel_:
            return ClassifierMixin.score(self, X, y, sample_weight=sample_weight)
        X = self._validate_X(X, reset=False)
        if sample_weight is None:
            return -self.learner_.mean_loss(X, y)
        losses = self.learner_.problem.batch_loss(self.learner_.decision_function(X),
                                                   self.learner_.problem.check_labels(y, _Count(X.shape[0])))
        return -float(np.average(losses, weights=sample_weight))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        tags.target_tags.multi_output = True
        return tags

    def _extra_state(self) -> dict:
        classes = None if self.multilabel_ else self.classes_.tolist()
        return {"n_labels_": int(self.n_labels_), "multilabel_": bool(self.multilabel_), "classes_": classes}

    def _restore_extra(self, state) -> None:
        self.n_labels_ = state.int("n_labels_", minimum=1, maximum=MAX_DENSE_ENTRIES)
        self.multilabel_ = state.bool("multilabel_")
        if self.multilabel_:
            self.classes_ = np.arange(self.n_labels_)
        else:
            self.classes_ = _saved_classes(state)
            if len(self.classes_) != self.n_labels_:
                raise ValueError("state entry 'classes_' must hold n_labels_ classes")


class _Count:
    """A stand-in for inputs when only the number of instances is needed."""

    def __init__(self, n: int):
        self.n = n


@_defaults
@saveable
class PredtronOrdinalClassifier(ClassifierMixin, _PredtronEstimator):
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
    learner_ : Predtron
        The fitted core learner.
    n_features_in_ : int
        Number of features seen by ``fit``.

    Notes
    -----
    ``score`` is the negative mean absolute error counted in levels.
    """

    def __init__(self, *, eta="auto", epochs=50, tol=1e-3, n_iter_no_change=5, average=True, shuffle=True,
                 random_state=None, fit_intercept=True, standardize=True, update="oracle", loss_driven=False,
                 verbose=False):
        self.eta = eta
        self.epochs = epochs
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.average = average
        self.shuffle = shuffle
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.standardize = standardize
        self.update = update
        self.loss_driven = loss_driven
        self.verbose = verbose

    def _problem(self):
        return Ordinal(len(self.classes_))

    def fit(self, X, y):
        """Fit on ``X`` and ordered labels ``y``."""
        self._check_common()
        _check_input(X, y, fitting=True, type_name=type(self).__name__)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_classification_targets(y)
        self.classes_, levels = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"y must hold at least 2 levels to learn from; got 1 class ({excerpt(self.classes_)})")
        X = self._fit_scaler(X)
        problem = self._problem()
        self.eta_ = self._resolve_eta(problem, X, levels)
        self._fit_learner(problem, X, levels)
        return self

    def decision_function(self, X) -> np.ndarray:
        """Level scores ``(n, n_levels)``; the prediction is the best-scoring level.  With two
        levels, ``(n,)``: the score of ``classes_[1]`` minus that of ``classes_[0]``."""
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


@saveable
class PredtronRanker(_PredtronEstimator):
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
        (:func:`theorem1_step`).
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
    learner_ : Predtron
        The fitted core learner (``learner_.coef_`` is the weight vector ``w``).
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
    """

    fit_intercept = False

    def __init__(self, *, f="discount", k=10, train_k=None, eta="auto", epochs=50, tol=1e-3,
                 n_iter_no_change=5, average=True, shuffle=True, random_state=None, standardize=True,
                 update="oracle", loss_driven=False, verbose=False):
        self.f = f
        self.k = k
        self.train_k = train_k
        self.eta = eta
        self.epochs = epochs
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.average = average
        self.shuffle = shuffle
        self.random_state = random_state
        self.standardize = standardize
        self.update = update
        self.loss_driven = loss_driven
        self.verbose = verbose

    def _problem(self):
        if not callable(self.f) and (not isinstance(self.f, str) or self.f not in F_CHOICES):
            raise ValueError(f"f must be one of {sorted(F_CHOICES)} or a callable; got {excerpt(self.f)}")
        return SubsetRanking(f=self.f, loss="ndcg", k=self.train_k)

    def fit(self, X, y, *, qid=None, group=None):
        """Fit on documents ``X`` with relevance ``y`` and their queries (``qid`` or ``group``)."""
        self._check_common()
        check_int(self.k, "k", minimum=1)
        _check_input(X, y, fitting=True, relevance=True, type_name=type(self).__name__)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, y_numeric=True)
        X = self._fit_scaler(X)
        problem = self._problem()
        offsets = query_offsets(X.shape[0], qid=qid, group=group)
        grades = problem.check_labels(y, _Offsets(offsets)).values
        self.eta_ = self._resolve_eta(problem, X, grades, offsets)
        self._fit_learner(problem, X, grades, group=np.diff(offsets))
        return self

    def predict(self, X) -> np.ndarray:
        """One score per row (higher ranks first); ``X`` needs no query ids."""
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
        from predtron._ragged import Ragged
        from predtron.problems import ranking_batch
        from predtron.problems.ranking_measures import RankingLoss

        loss = RankingLoss("ndcg", k=self.k)
        return float(1.0 - ranking_batch.losses_of_scores(loss, scores, rel.values, offsets).mean()) \
            if isinstance(rel, Ragged) else np.nan

    def _check_common(self) -> None:
        check_int(self.epochs, "epochs", minimum=1)
        for name in ("average", "shuffle", "standardize", "loss_driven", "verbose"):
            check_bool(getattr(self, name), name)
        if not (isinstance(self.eta, str) and self.eta == "auto"):
            check_positive(self.eta, "eta")
        if self.train_k is not None:
            check_int(self.train_k, "train_k", minimum=1)


class _Offsets:
    """A stand-in for ranking inputs when only the query offsets are needed."""

    def __init__(self, offsets: np.ndarray):
        self.offsets = offsets
        self.n = len(offsets) - 1
