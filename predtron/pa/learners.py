"""Online learners built on the multi-sample passive-aggressive update (seed 004, Sections 4-5).

* :class:`PairedPA`: a binary linear classifier ``sign(<w, x>)`` updated once per round
  on a batch (by default a positive and a negative sample drawn in a balanced way).
* :class:`CalibratedPA`: ``K`` classes, one ``w^k`` per class; in every round ``w^k``
  is updated on the batch with the samples of class ``k`` as positives and the others as
  negatives, their slacks weighted so that both sides weigh one (for a batch with one
  sample per class: ``1`` for the positive, ``1/(K-1)`` for each negative, which is the
  draft's calibrated update ``w^k <- w^k + alpha^k x^k - 1/(K-1) sum_{l != k} alpha^l x^l``).
* :class:`CalibratedMultilabelPA`: the same update for multilabel data (label ``k``
  relevant or not), predicting the labels with ``<w^k, x> >= 0``.

These learners update on whole batches, so they do not subclass
:class:`~predtron.learners.base.OnlineLearner`; they keep its method names
(``partial_fit``, ``fit``, ``predict``, ``decision_function``, ``score``, ``reset``,
``get_params``) and its conventions (learned state ends in ``_``).
"""

from __future__ import annotations

import numpy as np

from predtron._estimator import Estimator
from predtron._state import State, learner_state, restore_learner
from predtron._validation import (
    MAX_CLASSES,
    as_finite_array,
    check_binary_vector,
    check_choice,
    check_each,
    check_int,
    check_int_label,
    check_positive,
    excerpt,
)
from predtron.pa.dual import check_batch, check_C
from predtron.pa.rules import RULES, pa_update
from predtron.pa.streams import balanced_pairs, balanced_rounds
from predtron.problems.base import _first_argmax


class _BatchPA(Estimator):
    """Parameters, validation and bookkeeping shared by the batch passive-aggressive learners."""

    def _validate_params(self) -> None:
        check_choice(self.rule, "rule", RULES)
        check_C(self.C)
        check_positive(self.tol, "tol")
        check_int(self.max_iter, "max_iter", minimum=1)

    def _check_X(self, X) -> np.ndarray:
        X = as_finite_array(X, "X")
        if X.ndim != 2 or X.shape[1] == 0:
            raise ValueError(f"X must be a 2-D array (n_samples, n_features); got shape {X.shape}")
        if hasattr(self, "n_features_in_") and X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but this learner was fitted with {self.n_features_in_} features"
            )
        return X

    def _n_models(self) -> int:
        return 1

    def _get_state(self) -> tuple[dict, dict]:
        """``(scalars, arrays)`` restoring this fitted learner exactly (:mod:`predtron.persistence`)."""
        self._check_fitted()
        scalars, arrays = learner_state(self)
        scalars.update(n_unconverged_=int(self.n_unconverged_))
        arrays["coef"] = self._coef
        return scalars, arrays

    def _set_state(self, scalars: dict, arrays: dict) -> None:
        """Inverse of :meth:`_get_state`, every value checked."""
        state = State.of(scalars, arrays)
        restore_learner(self, state)
        self.n_unconverged_ = state.int("n_unconverged_")
        self._coef = state.array("coef", (self._n_models(), self.n_features_in_))

    def _start(self, n_features: int, n_models: int) -> None:
        if not hasattr(self, "n_features_in_"):
            self.n_features_in_ = n_features
            self._coef = np.zeros((n_models, n_features))
            self._new_trace()
            self.n_updates_ = 0
            self.n_unconverged_ = 0

    def _update_models(self, X: np.ndarray, targets: np.ndarray) -> None:
        """One round: update every model ``m`` on the batch with labels ``targets[:, m]``."""
        round_loss, changed = 0.0, False
        for m in range(targets.shape[1]):
            y = targets[:, m]
            weights = self._slack_weights(y)
            w_t = self._coef[m]
            round_loss += float(weights @ np.maximum(0.0, 1.0 - y * (X @ w_t)))
            step = pa_update(w_t, X, y, rule=self.rule, C=self.C, sample_weight=weights, tol=self.tol,
                             max_iter=self.max_iter)
            changed = changed or not np.array_equal(step.w, w_t)
            self.n_unconverged_ += int(not step.converged)
            self._coef[m] = step.w
        self._trace.add(round_loss / targets.shape[1])
        self.n_updates_ += int(changed)

    def _slack_weights(self, y: np.ndarray) -> np.ndarray:
        return np.ones(y.size)



class PairedPA(_BatchPA):
    """Binary passive-aggressive classifier updated on batches (paired PA, seed 004 Section 4).

    In each round the weights ``w_t`` move to (an approximation of, depending on ``rule``)
    the solution of ``min_w 1/2 ||w - w_t||^2 + C sum_i [1 - y_i <w, x_i>]_+`` over the
    round's batch (:func:`predtron.pa.rules.pa_update`).  ``fit`` draws a balanced stream:
    one positive and one negative sample per round.

    Parameters
    ----------
    rule : {"auc", "dca", "sequential", "correct_mistakes", "max_violators"}, default "auc"
        The update rule.
    C : float, default 1.0
        Aggressiveness ``C > 0`` (``np.inf``: uncapped, hard-margin steps).
    tol, max_iter
        Stopping rule of ``"dca"`` (projected-gradient tolerance, number of sweeps).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weights ``w`` (no intercept: append a constant feature for one).
    loss_history_ : ndarray of shape (n_rounds,)
        Sum of the hinge losses of each round's batch at ``w_t``.
    n_rounds_ : int
        Number of rounds seen.
    n_updates_ : int
        Number of rounds in which ``w`` changed.
    n_unconverged_ : int
        Rounds in which ``"dca"`` stopped at ``max_iter`` before reaching ``tol``.
    n_features_in_ : int
        Number of features.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.5], [0.8, -0.2], [-1.0, 0.3], [-0.7, -0.4], [-0.9, 0.1]])
    >>> y = [1, 1, -1, -1, -1]
    >>> PairedPA(rule="auc", C=1.0).fit(X, y, n_rounds=10, seed=0).predict(X).tolist()
    [1, 1, -1, -1, -1]
    """

    def __init__(self, rule: str = "auc", C: float = 1.0, tol: float = 1e-10, max_iter: int = 1000):
        self.rule = rule
        self.C = C
        self.tol = tol
        self.max_iter = max_iter

    @property
    def coef_(self) -> np.ndarray:
        self._check_fitted()
        return self._coef[0]

    def partial_fit(self, X, y):
        """One round: update ``w`` on the batch ``(X, y)`` (all its samples together).

        Parameters
        ----------
        X : array-like of shape (k, n_features)
            The round's batch, e.g. ``[x+, x-]``.
        y : array-like of shape (k,)
            Labels in ``{-1, +1}``.
        """
        self._validate_params()
        X, y = check_batch(X, y)
        X = self._check_X(X)
        self._start(X.shape[1], 1)
        self._update_models(X, y[:, None])
        return self

    def fit(self, X, y, n_rounds: int | None = None, seed: int = 0):
        """Start from ``w = 0`` and learn from ``n_rounds`` balanced pairs drawn from ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels in ``{-1, +1}``; both classes must be present.
        n_rounds : int, optional
            Number of rounds (default ``n_samples``).
        seed : int
            Seed of the stream (:func:`predtron.pa.streams.balanced_pairs`).
        """
        self._validate_params()
        X, y = check_batch(X, y)
        rounds = balanced_pairs(y, X.shape[0] if n_rounds is None else n_rounds, seed)
        self.reset()
        self._start(X.shape[1], 1)
        for pair in rounds:
            self._update_models(X[pair], y[pair][:, None])
        return self

    def decision_function(self, X) -> np.ndarray:
        """Scores ``<w, x>`` of each row of ``X``."""
        self._check_fitted()
        return self._check_X(X) @ self._coef[0]

    def predict(self, X) -> np.ndarray:
        """``+1`` where ``<w, x> >= 0`` (ties decoded as ``+1``, as in ``Binary``), else ``-1``."""
        return np.where(self.decision_function(X) >= 0, 1, -1)

    def mean_loss(self, X, y) -> float:
        """Fraction of misclassified samples (lower is better; ``score`` is its negative)."""
        self._check_fitted()
        X, y = check_batch(X, y)
        return float(np.mean(self.predict(X) != y))


class CalibratedPA(_BatchPA):
    """Calibrated multiclass passive-aggressive learner (seed 004, Section 5).

    One weight vector ``w^k`` per class.  In a round with batch ``(x_i, y_i)``, each
    ``w^k`` takes the passive-aggressive update of ``rule`` with targets ``+1`` for the
    samples of class ``k`` and ``-1`` for the others, the slack of each positive weighted
    ``1 / #positives`` and of each negative ``1 / #negatives``.  ``fit`` draws one sample
    per class per round, so the positive has weight 1 and each negative ``1/(K-1)``: the
    update is ``w^k <- w^k + alpha_k x^k - 1/(K-1) sum_{l != k} alpha_l x^l``, aimed at the
    all-pairs AUC bound (:func:`predtron.metrics.all_pairs_auc_bound`).

    Parameters
    ----------
    n_classes : int
        ``K >= 2``; labels are ``0..K-1``.
    rule : str, default "correct_mistakes"
        The update rule of each ``w^k`` (the draft uses PA-correctMistakes).
    C, tol, max_iter
        As in :class:`PairedPA`.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features)
        Row ``k`` is ``w^k``.
    loss_history_ : ndarray of shape (n_rounds,)
        Mean over ``k`` of the weighted hinge loss of ``w^k`` on the round's batch.
    n_rounds_, n_updates_, n_unconverged_, n_features_in_
        As in :class:`PairedPA`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [-1.0, -1.0, 1.0]]); Y = [0, 1, 2]
    >>> CalibratedPA(3).fit(X, Y, n_rounds=20).predict(X).tolist()
    [0, 1, 2]
    """

    def __init__(self, n_classes: int, rule: str = "correct_mistakes", C: float = 1.0, tol: float = 1e-10,
                 max_iter: int = 1000):
        self.n_classes = n_classes
        self.rule = rule
        self.C = C
        self.tol = tol
        self.max_iter = max_iter

    def _validate_params(self) -> None:
        check_int(self.n_classes, "n_classes", minimum=2, maximum=MAX_CLASSES)
        super()._validate_params()

    @property
    def coef_(self) -> np.ndarray:
        self._check_fitted()
        return self._coef

    def _n_models(self) -> int:
        return self.n_classes

    def _check_Y(self, Y, n: int) -> np.ndarray:
        labels = check_each(Y, lambda label: check_int_label(label, "label", self.n_classes, "n_classes"), "Y", n)
        return np.asarray(labels, dtype=np.int64)

    def _targets(self, Y: np.ndarray) -> np.ndarray:
        """``(n, n_models)`` matrix of +-1 targets of every model."""
        return np.where(Y[:, None] == np.arange(self.n_classes)[None, :], 1.0, -1.0)

    def _groups(self, Y: np.ndarray) -> list[np.ndarray]:
        groups = [np.flatnonzero(Y == k) for k in range(self.n_classes)]
        missing = [k for k, g in enumerate(groups) if g.size == 0]
        if missing:
            raise ValueError(f"a balanced stream needs every class of n_classes={self.n_classes} in Y; classes "
                             f"{excerpt(missing)} have no sample")
        return groups

    def _slack_weights(self, y: np.ndarray) -> np.ndarray:
        n_pos, n_neg = int(np.sum(y > 0)), int(np.sum(y < 0))
        return np.where(y > 0, 1.0 / max(n_pos, 1), 1.0 / max(n_neg, 1))

    def partial_fit(self, X, Y):
        """One round: update every ``w^k`` on the batch ``(X, Y)``.

        Parameters
        ----------
        X : array-like of shape (k, n_features)
            The round's batch (any size; ``fit`` uses one sample per class).
        Y : sequence of labels
            Class labels ``0..K-1`` (:class:`CalibratedMultilabelPA`: 0/1 rows).
        """
        self._validate_params()
        X = self._check_X(X)
        if X.shape[0] == 0:
            raise ValueError("X is empty; a round needs at least one sample")
        Y = self._check_Y(Y, X.shape[0])
        self._start(X.shape[1], self._n_models())
        self._update_models(X, self._targets(Y))
        return self

    def fit(self, X, Y, n_rounds: int | None = None, seed: int = 0):
        """Start from ``w^k = 0`` and learn from ``n_rounds`` balanced rounds drawn from ``(X, Y)``.

        Each round holds one sample of every class (:class:`CalibratedMultilabelPA`: for
        every label one sample that has it), drawn by :func:`predtron.pa.streams.balanced_rounds`.

        Parameters
        ----------
        n_rounds : int, optional
            Number of rounds (default ``n_samples``).
        seed : int
            Seed of the stream.
        """
        self._validate_params()
        X = self._check_X(X)
        Y = self._check_Y(Y, X.shape[0])
        rounds = balanced_rounds(self._groups(Y), X.shape[0] if n_rounds is None else n_rounds, seed)
        self.reset()
        self._start(X.shape[1], self._n_models())
        targets = self._targets(Y)
        for row in rounds:
            self._update_models(X[row], targets[row])
        return self

    def decision_function(self, X) -> np.ndarray:
        """Scores ``<w^k, x>``: an array of shape ``(n_samples, n_models)``."""
        self._check_fitted()
        return self._check_X(X) @ self._coef.T

    def predict(self, X) -> np.ndarray:
        """The class with the largest score (first one on ties)."""
        return np.array([_first_argmax(s) for s in self.decision_function(X)], dtype=np.int64)

    def mean_loss(self, X, Y) -> float:
        """Fraction of misclassified samples (lower is better; ``score`` is its negative)."""
        self._check_fitted()
        X = self._check_X(X)
        Y = self._check_Y(Y, X.shape[0])
        return float(np.mean(self.predict(X) != Y))


class CalibratedMultilabelPA(CalibratedPA):
    """The calibrated passive-aggressive update for multilabel data (seed 004, Section 5).

    Label ``k`` has its own ``w^k``, updated on each round's batch with the samples that
    have label ``k`` as positives and the others as negatives (slacks weighted ``1 /
    #positives`` and ``1 / #negatives``).  The threshold at ``0`` is the calibration: a
    label is predicted relevant when ``<w^k, x> >= 0`` (as ``Multilabel.pred`` decodes).
    ``fit`` draws, in each round, for every label one sample that has it (samples with no
    relevant label are never drawn).

    Parameters
    ----------
    n_labels : int
        Number of labels ``>= 1``; labels are 0/1 rows of that length.
    rule, C, tol, max_iter
        As in :class:`CalibratedPA`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]); Y = [[1, 0], [0, 1], [1, 1]]
    >>> CalibratedMultilabelPA(2).fit(X, Y, n_rounds=20).predict(X).tolist()
    [[1, 0], [0, 1], [1, 1]]
    """

    def __init__(self, n_labels: int, rule: str = "correct_mistakes", C: float = 1.0, tol: float = 1e-10,
                 max_iter: int = 1000):
        self.n_labels = n_labels
        self.rule = rule
        self.C = C
        self.tol = tol
        self.max_iter = max_iter

    def _validate_params(self) -> None:
        check_int(self.n_labels, "n_labels", minimum=1, maximum=MAX_CLASSES)
        _BatchPA._validate_params(self)

    def _n_models(self) -> int:
        return self.n_labels

    def _check_Y(self, Y, n: int) -> np.ndarray:
        rows = check_each(Y, lambda label: check_binary_vector(label, "label", self.n_labels), "Y", n)
        return np.asarray(rows, dtype=np.int64).reshape(n, self.n_labels)

    def _targets(self, Y: np.ndarray) -> np.ndarray:
        return np.where(Y == 1, 1.0, -1.0)

    def _groups(self, Y: np.ndarray) -> list[np.ndarray]:
        groups = [np.flatnonzero(Y[:, k] == 1) for k in range(self.n_labels)]
        missing = [k for k, g in enumerate(groups) if g.size == 0]
        if missing:
            raise ValueError(f"Y must hold a positive sample (a 1) of every label for a balanced stream; labels "
                             f"{excerpt(missing)} have none")
        return groups

    def predict(self, X) -> np.ndarray:
        """0/1 rows: label ``k`` is predicted relevant when ``<w^k, x> >= 0``."""
        return (self.decision_function(X) >= 0).astype(np.int64)

    def mean_loss(self, X, Y) -> float:
        """Normalised Hamming loss: fraction of wrong label entries (lower is better; ``score`` is its negative)."""
        self._check_fitted()
        X = self._check_X(X)
        Y = self._check_Y(Y, X.shape[0])
        return float(np.mean(self.predict(X) != Y))
