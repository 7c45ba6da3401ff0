"""MMP, the multiclass multilabel perceptron of Crammer and Singer (JMLR 2003).

Section 5 of the Predtron paper compares its multilabel-ranking bound (Corollary 7)
with MMP, the additive online algorithm for *category ranking* of Crammer and Singer,
"A family of additive online algorithms for category ranking".  MMP keeps one
prototype ``w_r`` per label (``W`` of shape ``(k, p)``), ranks the labels of an input
``x`` by their scores ``t_r = <w_r, x>``, and receives the set ``y`` of relevant labels.

**Error set.**  The pairs the current ranking gets wrong are

    ``E = {(r, s) : r relevant, s irrelevant, t_r <= t_s}``

(a tie counts as an error, so ``W = 0`` errs on every pair).  A round with ``E``
empty is correct and leaves ``W`` unchanged.

**Update (our fixed choice of the family).**  Crammer and Singer allow any
non-negative pair weights ``alpha_{r,s}`` supported on ``E`` and summing to one; this
module uses the **uniform** weights ``alpha_{r,s} = 1 / |E|``.  With ``L`` the loss of
the round,

    ``tau_r = L * sum_{s : (r, s) in E} alpha_{r,s}`` for relevant ``r``,
    ``tau_s = -L * sum_{r : (r, s) in E} alpha_{r,s}`` for irrelevant ``s``,
    ``w_j <- w_j + tau_j x`` for every label ``j``.

Scaling the step by the loss is what makes MMP *loss driven*, the property the
Predtron paper's Predtron.LD borrows.

**Losses.**  ``"is_error"`` (1 when ``E`` is non-empty, else 0; its largest value is
``A = 1``) or ``"error_set_size"`` (``|E|``; ``A = |y| (k - |y|) <= floor(k^2 / 4)``).

**Bound** (:func:`mmp_bound`).  If a ``W*`` of unit Frobenius norm satisfies
``<w*_r - w*_s, x> >= gamma`` for every example, relevant ``r`` and irrelevant ``s``,
and ``||x||_2 <= R``, then ``sum_tau L_tau <= 2 A R^2 / gamma^2``.  The proof is the
perceptron potential argument (ours, written for this choice of weights): with
``U = c W*`` the update ``Delta`` satisfies ``<W, Delta> <= 0`` (pairs in ``E`` are
mis-ordered), ``<U, Delta> >= c L gamma`` and ``||Delta||_F^2 <= 2 L^2 R^2``, so
``||W - U||_F^2`` falls by at least ``2 c L gamma - 2 L^2 R^2 >= 2 L (c gamma - A R^2)``
per round; ``c = 2 A R^2 / gamma`` and ``||W_1 - U||_F^2 = c^2`` give the bound.
Predictions do not depend on any step size (every update is a sum of multiples of
inputs with fixed coefficients), so MMP has none.
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
    check_matrix,
    check_positive,
    finite_result,
)
from predtron.scoring import row_dot, row_scores

LOSSES = ("is_error", "error_set_size")

_NO_LABELS = object()


def _scores(t, name: str = "t") -> np.ndarray:
    t = as_finite_array(t, name)
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of label scores; got shape {t.shape}")
    return t


def ranking_from_scores(t: np.ndarray) -> np.ndarray:
    """The ranking that sorts ``t`` decreasingly: ``sigma[j]`` = 0-based position of label ``j``.

    Ties are broken by label index (lower index first), as in the package's ranking
    problems.
    """
    t = _scores(t)
    order = np.argsort(-t, kind="stable")
    sigma = np.empty(t.shape[0], dtype=np.int64)
    sigma[order] = np.arange(t.shape[0])
    return sigma


def error_set(t: np.ndarray, y: np.ndarray) -> list[tuple[int, int]]:
    """The mis-ordered pairs ``(r, s)``: ``r`` relevant, ``s`` irrelevant and ``t_r <= t_s``."""
    t = _scores(t)
    return _error_set(t, check_binary_vector(y, "y", t.size, "len(t)"))


def _error_set(t: np.ndarray, y: np.ndarray) -> list[tuple[int, int]]:
    relevant, irrelevant = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    return [(int(r), int(s)) for r in relevant for s in irrelevant if t[r] <= t[s]]


def mmp_loss(t: np.ndarray, y: np.ndarray, loss: str = "is_error") -> float:
    """The loss MMP suffers with scores ``t`` on the relevant set ``y`` (0/1 array)."""
    check_choice(loss, "loss", LOSSES)
    size = len(error_set(t, y))  # validates t and y
    return float(size > 0) if loss == "is_error" else float(size)


def max_loss(n_labels: int, loss: str = "is_error") -> float:
    """``A``, the largest value of ``loss`` over all labels with ``n_labels`` labels."""
    n_labels = check_int(n_labels, "n_labels", minimum=1)
    check_choice(loss, "loss", LOSSES)
    return 1.0 if loss == "is_error" else float((n_labels // 2) * (n_labels - n_labels // 2))


def mmp_margin(W, X, Y) -> float:
    """Margin of ``W / ||W||_F`` on a data set: ``min <w_r - w_s, x>`` over examples and
    (relevant ``r``, irrelevant ``s``) pairs.

    Examples whose label is all-relevant or all-irrelevant contribute no pair; when no
    example has a pair the margin is ``inf``.
    """
    W = as_finite_array(W, "W")
    X = check_matrix(X)
    if W.ndim != 2 or W.shape[1] != X.shape[1]:
        raise ValueError(f"W must have shape (n_labels, {X.shape[1]}), one column per feature of X; got shape "
                         f"{W.shape}")
    scale = float(np.linalg.norm(W))
    if scale == 0:
        raise ValueError("W is zero; the margin of the zero matrix is not defined")
    labels = _check_labels(Y, X.shape[0], W.shape[0], "rows of W")
    best = np.inf
    for x, y in zip(X, labels, strict=True):
        t = row_dot(W, x) / scale
        rel, irr = t[y == 1], t[y == 0]
        if rel.size and irr.size:
            best = min(best, float(rel.min() - irr.max()))
    return best


def mmp_bound(R: float, gamma: float, n_labels: int, loss: str = "is_error") -> float:
    """``sum_tau L_tau <= 2 A R^2 / gamma^2`` for separable data (module docstring)."""
    R, gamma = np.float64(check_positive(R, "R")), np.float64(check_positive(gamma, "gamma"))
    A = max_loss(n_labels, loss)
    return finite_result(lambda: 2 * A * R**2 / gamma**2, R=R, gamma=gamma, n_labels=n_labels)


def _check_labels(Y, n_samples: int, n_labels: int, size_name: str = "n_labels") -> list[np.ndarray]:
    return check_each(Y, lambda y: check_binary_vector(y, "label", n_labels, size_name), "Y", n_samples)


class MMP(Estimator):
    """The multiclass multilabel perceptron (Crammer and Singer, 2003), uniform pair weights.

    Parameters
    ----------
    n_labels : int
        Number of labels ``k >= 2``.
    loss : {"is_error", "error_set_size"}, default "is_error"
        The loss that scales each update and is recorded in ``loss_history_``.

    Attributes
    ----------
    coef_ : ndarray of shape (n_labels, n_features)
        The prototypes ``w_1, ..., w_k`` as rows.
    loss_history_ : ndarray of shape (n_rounds,)
        Loss suffered in every online round, in order.
    n_updates_ : int
        Number of rounds with a non-empty error set.
    n_features_in_ : int
        Number of input features seen by the first call to ``partial_fit``.

    Notes
    -----
    Labels are 0/1 arrays of length ``n_labels`` (1 = relevant).  ``predict`` returns
    rankings in the package's convention (``sigma[j]`` = 0-based position of label
    ``j``; ties by label index); ``decision_function`` returns the scores ``W x``.

    Examples
    --------
    >>> import numpy as np
    >>> from predtron.baselines.mmp import MMP
    >>> X = np.eye(3); Y = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    >>> MMP(3).fit(X, Y, epochs=2).predict(X).tolist()
    [[0, 1, 2], [1, 0, 2], [1, 2, 0]]
    """

    def __init__(self, n_labels: int, loss: str = "is_error"):
        self.n_labels = n_labels
        self.loss = loss

    # ------------------------------------------------------------ scikit-learn
    def _validate_params(self) -> None:
        check_int(self.n_labels, "n_labels", minimum=2, maximum=MAX_CLASSES)
        check_choice(self.loss, "loss", LOSSES)

    def _get_state(self) -> tuple[dict, dict]:
        """``(scalars, arrays)`` restoring this fitted MMP exactly (:mod:`predtron.persistence`)."""
        self._check_fitted()
        scalars, arrays = learner_state(self)
        arrays["coef"] = self.coef_
        return scalars, arrays

    def _set_state(self, scalars: dict, arrays: dict) -> None:
        """Inverse of :meth:`_get_state`, every value checked."""
        state = State.of(scalars, arrays)
        restore_learner(self, state)
        self.coef_ = state.array("coef", (self.n_labels, self.n_features_in_))

    def _check_data(self, X, Y=_NO_LABELS) -> tuple[np.ndarray, list[np.ndarray] | None]:
        X = check_matrix(X)
        if hasattr(self, "n_features_in_") and X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but this MMP was fitted with {self.n_features_in_} features"
            )
        if Y is _NO_LABELS:
            return X, None
        return X, _check_labels(Y, X.shape[0], self.n_labels)

    # -------------------------------------------------------------- online loop
    def partial_fit(self, X, Y) -> MMP:
        """One online pass over ``(X, Y)`` in order, updating on every round with errors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.
        Y : sequence of 0/1 arrays of length ``n_labels``
            Relevant labels of each input.
        """
        self._validate_params()
        X, labels = self._check_data(X, Y)
        if not hasattr(self, "n_features_in_"):
            if X.shape[0] == 0:
                raise ValueError("X is empty; at least one example is needed to start learning")
            self.n_features_in_ = int(X.shape[1])
            self.coef_ = np.zeros((self.n_labels, self.n_features_in_))
            self._new_trace()
            self.n_updates_ = 0
        for x, y in zip(X, labels, strict=True):
            self._round(x, y)
        return self

    def _round(self, x: np.ndarray, y: np.ndarray) -> None:
        t = row_dot(self.coef_, x)  # labels with equal rows tie exactly, on any machine
        pairs = _error_set(t, y)
        loss = float(len(pairs) > 0) if self.loss == "is_error" else float(len(pairs))
        self._trace.add(loss)
        if not pairs:
            return
        tau = np.zeros(self.n_labels)
        weight = loss / len(pairs)
        for r, s in pairs:
            tau[r] += weight
            tau[s] -= weight
        self.coef_ += np.outer(tau, x)
        self.n_updates_ += 1

    # ------------------------------------------------------------- prediction
    def decision_function(self, X) -> np.ndarray:
        """Scores ``t = W x`` of the labels, one row per input."""
        self._check_fitted()
        X, _ = self._check_data(X)
        return row_scores(X, self.coef_)

    def predict(self, X) -> np.ndarray:
        """Rankings of the labels (``sigma[j]`` = position of label ``j``), one row per input."""
        scores = self.decision_function(X)
        return np.array([ranking_from_scores(t) for t in scores], dtype=np.int64).reshape(len(scores), self.n_labels)

    def mean_loss(self, X, Y) -> float:
        """Mean loss (the learner's ``loss``) on ``(X, Y)`` (lower is better; ``score`` is its negative)."""
        self._check_fitted()
        X, labels = self._check_data(X, Y)
        if X.shape[0] == 0:
            raise ValueError("X is empty; a mean loss needs at least one example")
        scores = row_scores(X, self.coef_)
        return float(np.mean([mmp_loss(t, y, self.loss) for t, y in zip(scores, labels, strict=True)]))
