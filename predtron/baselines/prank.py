"""PRank, the perceptron for ordinal regression of Crammer and Singer (NIPS 2001).

The Predtron handles ordinal regression by reduction to multiclass classification
(Section 3 of the paper): one weight vector per level.  PRank is the classic
alternative it is compared against there: a single direction ``w`` and ``l - 1``
ordered thresholds ``b_0 <= ... <= b_{l-2}`` that cut the line ``w . x`` into the
``l`` levels.  Its mistake bound, ``sum |y_hat - y| <= (l - 1) (R^2 + 1) / gamma^2``,
is stated for a *rank margin*: the smallest distance, over examples and thresholds,
between ``w* . x`` and a threshold, with ``||w*||^2 + ||b*||^2 = 1``
(:func:`rank_margin`, :func:`prank_bound`).

Levels are ``0..l-1``.  For a label ``y`` and threshold ``r`` write ``z_r = +1`` if
``y > r`` (the score should be above ``b_r``) and ``z_r = -1`` otherwise.  On a
mistake, every threshold ``r`` with ``z_r (w . x - b_r) <= 0`` is on the wrong side;
PRank moves each of them by ``-z_r`` and moves ``w`` by the sum of those ``z_r``
times ``x``.  The prediction is the first level whose threshold exceeds ``w . x``
(``l - 1`` when none does).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from predtron._estimator import Estimator
from predtron._state import State, learner_state, restore_learner
from predtron._validation import (
    MAX_CLASSES,
    as_finite_array,
    check_each,
    check_int,
    check_int_label,
    check_int_labels,
    check_matrix,
    check_positive,
    check_seed,
    check_size,
    finite_result,
)
from predtron.persistence import saveable

_NO_LABELS = object()


def _prediction(score: float, thresholds: np.ndarray) -> int:
    """The first level whose threshold exceeds ``score`` (the last level when none does)."""
    above = np.flatnonzero(thresholds > score)
    return int(above[0]) if above.size else len(thresholds)


def _directions(y: int, n_thresholds: int) -> np.ndarray:
    """``z_r = +1`` for thresholds below level ``y`` (``r < y``), ``-1`` for the others."""
    return np.where(np.arange(n_thresholds) < y, 1.0, -1.0)


@saveable
class PRank(Estimator):
    """PRank: a perceptron with ``l - 1`` ordered thresholds (Crammer and Singer, 2001).

    Parameters
    ----------
    n_levels : int
        Number of levels ``l >= 2``; labels and predictions are ``0..l-1``.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The direction ``w``.
    thresholds_ : ndarray of shape (n_levels - 1,)
        ``b_0 <= ... <= b_{l-2}``; level ``r`` is predicted when ``b_{r-1} <= w . x < b_r``.
    loss_history_ : ndarray of shape (n_rounds,)
        Absolute loss ``|y_hat - y|`` of every online round, in order.
    n_updates_ : int
        Number of rounds with a mistake (and hence an update).
    n_features_in_ : int
        Number of input features seen by the first call to ``partial_fit``.

    Notes
    -----
    Starting from ``w = 0`` and ``b = 0`` the thresholds stay ordered after every update
    (Crammer and Singer, 2001, Lemma 1), so the prediction rule is well defined.

    Examples
    --------
    >>> import numpy as np
    >>> from predtron.baselines.prank import PRank
    >>> X = np.array([[0.1], [1.1], [2.1], [0.2], [1.2], [2.2]]); y = [0, 1, 2, 0, 1, 2]
    >>> PRank(3).fit(np.c_[X, np.ones(6)], y, epochs=20).predict(np.c_[X, np.ones(6)]).tolist()
    [0, 1, 2, 0, 1, 2]
    """

    def __init__(self, n_levels: int):
        self.n_levels = n_levels

    # ---------------------------------------------------------------- checking
    def _check_data(self, X, y=_NO_LABELS) -> tuple[np.ndarray, list[int] | None]:
        X = check_matrix(X)
        if hasattr(self, "n_features_in_") and X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but this PRank was fitted with "
                f"{self.n_features_in_} features"
            )
        if y is _NO_LABELS:
            return X, None
        return X, check_each(y, lambda label: check_int_label(label, "label", self.n_levels, "n_levels"), "y",
                             X.shape[0])

    def _validate_params(self) -> None:
        check_int(self.n_levels, "n_levels", minimum=2, maximum=MAX_CLASSES)

    # ------------------------------------------------------------- persistence
    def _get_state(self) -> tuple[dict, dict]:
        """``(scalars, arrays)`` restoring this fitted PRank exactly (:mod:`predtron.persistence`)."""
        self._check_fitted()
        scalars, arrays = learner_state(self)
        arrays.update(coef=self.coef_, thresholds=self.thresholds_)
        return scalars, arrays

    def _set_state(self, scalars: dict, arrays: dict) -> None:
        """Inverse of :meth:`_get_state`, every value checked."""
        state = State.of(scalars, arrays)
        restore_learner(self, state)
        self.coef_ = state.array("coef", (self.n_features_in_,))
        self.thresholds_ = state.array("thresholds", (self.n_levels - 1,))
        if np.any(np.diff(self.thresholds_) < 0):
            raise ValueError("state array 'thresholds' must be non-decreasing (PRank keeps them ordered)")

    # -------------------------------------------------------------- online loop
    def partial_fit(self, X, y) -> PRank:
        """One online pass over ``(X, y)`` in order, updating on every mistake.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.
        y : sequence of int
            Levels in ``0..n_levels-1``.
        """
        self._validate_params()
        X, labels = self._check_data(X, y)
        if not hasattr(self, "n_features_in_"):
            if X.shape[0] == 0:
                raise ValueError("X is empty; at least one example is needed to start learning")
            self.n_features_in_ = int(X.shape[1])
            self.coef_ = np.zeros(self.n_features_in_)
            self.thresholds_ = np.zeros(self.n_levels - 1)
            self._new_trace()
            self.n_updates_ = 0
        for x, label in zip(X, labels, strict=True):
            self._round(x, label)
        return self

    def _round(self, x: np.ndarray, y: int) -> None:
        score = float(self.coef_ @ x)
        loss = abs(_prediction(score, self.thresholds_) - y)
        self._trace.add(float(loss))
        if loss == 0:
            return
        z = _directions(y, self.n_levels - 1)
        tau = np.where(z * (score - self.thresholds_) <= 0, z, 0.0)
        self.coef_ += tau.sum() * x
        self.thresholds_ -= tau
        self.n_updates_ += 1

    # ------------------------------------------------------------- prediction
    def decision_function(self, X) -> np.ndarray:
        """The scores ``w . x`` (compare them with ``thresholds_``)."""
        self._check_fitted()
        X, _ = self._check_data(X)
        return X @ self.coef_

    def predict(self, X) -> np.ndarray:
        """The first level whose threshold exceeds ``w . x``, for each input."""
        scores = self.decision_function(X)
        return np.array([_prediction(float(s), self.thresholds_) for s in scores], dtype=np.int64)

    def mean_loss(self, X, y) -> float:
        """Mean absolute error ``|y_hat - y|`` on ``(X, y)`` (lower is better; ``score`` is its negative)."""
        self._check_fitted()
        X, labels = self._check_data(X, y)
        if X.shape[0] == 0:
            raise ValueError("X is empty; a mean loss needs at least one example")
        return float(np.mean(np.abs(self.predict(X) - np.asarray(labels))))


def rank_margin(w, thresholds, X, y) -> float:
    """PRank's rank margin of ``(w, b)`` on a data set, after scaling to unit norm.

    ``min_i min_r z_r(y_i) (w . x_i - b_r)`` with ``(w, b)`` divided by
    ``sqrt(||w||^2 + ||b||^2)``; positive exactly when every example falls strictly
    inside its own band of thresholds.
    """
    w = as_finite_array(w, "w")
    b = as_finite_array(thresholds, "thresholds")
    X = check_matrix(X)
    if w.ndim != 1 or w.shape[0] != X.shape[1]:
        raise ValueError(f"w must be a vector of length {X.shape[1]} (one per feature of X); got shape {w.shape}")
    if b.ndim != 1 or b.size == 0:
        raise ValueError(f"thresholds must be a non-empty vector; got shape {b.shape}")
    levels = check_int_labels(y, "y", b.size + 1, "1 + len(thresholds)")
    if len(levels) != X.shape[0]:
        raise ValueError(f"X and y must have the same length; got {X.shape[0]} and {len(levels)}")
    if X.shape[0] == 0:
        raise ValueError("X is empty; the margin over no example is not defined")
    scale = float(np.sqrt(w @ w + b @ b))
    if scale == 0:
        raise ValueError("w and thresholds are all zero; their margin is not defined")
    scores = X @ w
    return float(min(np.min(_directions(label, b.size) * (s - b)) for s, label in
                     zip(scores, levels, strict=True))) / scale


def prank_bound(R: float, gamma: float, n_levels: int) -> float:
    """PRank's mistake bound ``sum |y_hat - y| <= (l - 1) (R^2 + 1) / gamma^2``.

    ``R = max ||x||`` and ``gamma`` is the rank margin (:func:`rank_margin`) of a
    unit-norm ``(w*, b*)``.
    """
    n_levels = check_int(n_levels, "n_levels", minimum=2, maximum=2**53)
    R, gamma = np.float64(check_positive(R, "R")), np.float64(check_positive(gamma, "gamma"))
    return finite_result(lambda: (n_levels - 1) * (R**2 + 1) / gamma**2, R=R, gamma=gamma, n_levels=n_levels)


class RankedData(NamedTuple):
    """Ordinal data generated by thresholds, with the target that separates it.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features)
        Inputs (the last coordinate is the constant ``bias``).
    y : ndarray of shape (n_samples,)
        Levels ``0..l-1``.
    w_star : ndarray
        Unit-norm target direction (zero on the constant coordinate).
    thresholds : ndarray of shape (l - 1,)
        Increasing target thresholds.
    """

    X: np.ndarray
    y: np.ndarray
    w_star: np.ndarray
    thresholds: np.ndarray


def make_ranked_data(n_samples: int, n_features: int, n_levels: int, gap: float = 0.05,
                     noise: float = 0.0, bias: float = 1.0, seed: int = 0) -> RankedData:
    """Draw ordinal data labelled by the thresholds of a target ``(w*, b*)``.

    Inputs are ``(u, bias)`` with ``u`` uniform in the unit ball of ``R^{n_features - 1}``;
    ``w*`` is a random unit vector on the ``u`` part, and the thresholds are the
    quantiles of ``w* . u`` that split the draws into ``n_levels`` equally likely bands.
    The level is the number of thresholds below ``w* . u``.  With ``noise = 0`` draws
    closer than ``gap`` to a threshold are rejected, so the data are separable in
    PRank's sense and (through the constant coordinate) in the multiclass sense of the
    Predtron; with ``noise > 0`` Gaussian noise of that scale is added to ``w* . u``
    before labelling (no rejection), which makes the data noisy.

    Parameters
    ----------
    n_samples, n_features : int
        Size of the data set; ``n_features >= 2`` counts the constant coordinate.
    n_levels : int
        Number of levels ``l >= 2``.
    gap : float
        Smallest distance between ``w* . u`` and a threshold (noise-free data).
    noise : float
        Standard deviation of the label noise (0 for separable data).
    bias : float
        Value of the constant coordinate.
    seed : int
        Seed of the draws.
    """
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    n_features = check_int(n_features, "n_features", minimum=2)
    n_levels = check_int(n_levels, "n_levels", minimum=2)
    gap = check_positive(gap, "gap")
    noise = check_positive(noise, "noise", allow_zero=True, maximum=1e100)
    bias = check_positive(bias, "bias", maximum=1e100)
    check_size("n_samples x n_features", 4 * n_samples, n_features)
    rng = np.random.default_rng(check_seed(seed))
    dim = n_features - 1
    w = rng.standard_normal(dim)
    w /= np.linalg.norm(w)

    def draw(count: int) -> np.ndarray:
        u = rng.standard_normal((count, dim))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        return u * rng.uniform(0, 1, (count, 1)) ** (1.0 / dim)

    pilot = draw(4000) @ w
    thresholds = np.quantile(pilot, np.arange(1, n_levels) / n_levels)
    if noise == 0 and np.min(np.diff(np.concatenate([[-1.0], thresholds, [1.0]]))) <= 2 * gap:
        raise ValueError(f"gap={gap!r} is too large for n_levels={n_levels} levels in {dim} dimensions; ask for a "
                         "smaller gap")
    kept: list[np.ndarray] = []
    while sum(len(k) for k in kept) < n_samples:
        u = draw(4 * n_samples)
        s = u @ w
        if noise == 0:
            u = u[np.min(np.abs(s[:, None] - thresholds[None, :]), axis=1) >= gap]
        kept.append(u)
    u = np.concatenate(kept)[:n_samples]
    s = u @ w + (noise * rng.standard_normal(n_samples) if noise > 0 else 0.0)
    y = np.searchsorted(thresholds, s, side="right").astype(np.int64)
    X = np.hstack([u, np.full((n_samples, 1), bias)])
    return RankedData(X, y, np.append(w, 0.0), thresholds)


def multiclass_target(w, thresholds, bias: float = 1.0) -> np.ndarray:
    """A multiclass parameter matrix ``W`` that decodes like the threshold model ``(w, b)``.

    Row ``j`` scores level ``j`` by ``t_j = sum_{r < j} (w . u - b_r)`` (``u`` the input
    without its constant coordinate ``bias``, the last one), so ``t_{j+1} - t_j =
    w . u - b_j``: the scores rise up to the level the thresholds pick and fall after
    it, and ``argmax_j t_j`` is that level.  This is how ordinal data separable by
    thresholds is also separable for the Predtron's multiclass reduction (Section 3);
    the rows are centred (which changes no score difference) and ``W`` is scaled to
    unit Frobenius norm.

    Parameters
    ----------
    w : array-like of shape (n_features,)
        Target direction; its last entry (the constant coordinate) must be 0.
    thresholds : array-like of shape (l - 1,)
        Increasing thresholds.
    bias : float
        Value of the constant coordinate of the inputs.
    """
    w = as_finite_array(w, "w")
    b = as_finite_array(thresholds, "thresholds")
    if w.ndim != 1 or w.size < 2 or w[-1] != 0:
        raise ValueError("w must be a vector of length >= 2 whose last entry (the constant coordinate) "
                         f"is 0; got {w.tolist()!r}")
    if b.ndim != 1 or b.size == 0 or np.any(np.diff(b) <= 0):
        raise ValueError(f"thresholds must be a non-empty increasing vector; got {b.tolist()!r}")
    bias = check_positive(bias, "bias", minimum=1e-100, maximum=1e100)
    levels = np.arange(b.size + 1)
    W = levels[:, None] * w[None, :]
    W[:, -1] = -np.concatenate([[0.0], np.cumsum(b)]) / bias
    W -= W.mean(axis=0)
    return W / np.linalg.norm(W)
