"""Update rules of the paired passive-aggressive draft (seed 004, Section 4): which index sets
``J`` the clipped common dual step (:mod:`predtron.pa.dual`) is taken on, and how often.

Every rule starts from ``alpha = 0`` and ``w = w_t`` and returns a :class:`PAUpdate`:

* ``"dca"`` (PA-DCA): single-coordinate steps ``J = {i}``, swept cyclically until the
  projected dual gradient is at most ``tol`` (or ``max_iter`` sweeps): the exact
  solution of the batch problem.
* ``"sequential"`` (PA-sequential): one single-coordinate step per sample, in batch
  order (for a pair: ``x+`` then ``x-``).
* ``"auc"`` (PA-AUC): one common step on the whole batch; for a pair ``J = {x+, x-}``,
  which constrains the difference ``<w, x+ - x->`` (the pair's order).
* ``"correct_mistakes"`` (PA-correctMistakes): one common step on the samples with
  positive hinge loss at ``w_t`` (the draft writes ``0 <= l``, which would be every sample;
  we read it as ``l > 0``); no step when there is none.  A loss within the rounding error
  of its computation counts as zero (a sample a previous step put exactly on its margin
  has no loss), so the choice does not depend on the machine's summation order.
* ``"max_violators"`` (PA-maxViolators): one common step on the positive sample with the
  largest hinge loss and the negative sample with the largest hinge loss (first index
  on ties, losses within rounding of zero counting as zero; a class absent from the batch
  contributes nothing).  For a pair it is
  ``"auc"``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from predtron._validation import check_choice, check_int, check_positive
from predtron.pa.dual import (
    _apply,
    _decided_losses,
    _kkt_violation,
    _step_size,
    check_batch,
    check_C,
    check_sample_weight,
    check_w,
)

RULES = ("dca", "sequential", "auc", "correct_mistakes", "max_violators")


class PAUpdate(NamedTuple):
    """Result of a multi-sample passive-aggressive update.

    Attributes
    ----------
    w : ndarray of shape (n_features,)
        The new weight vector ``w_{t+1}``.
    alpha : ndarray of shape (k,)
        The dual variables of the batch (``w_{t+1} = w_t + sum_i alpha_i c_i y_i x_i``).
    n_steps : int
        Number of common dual steps taken (index sets stepped on).
    converged : bool
        For ``"dca"``: whether the projected gradient reached ``tol``.  Single-pass
        rules report ``True``.
    """

    w: np.ndarray
    alpha: np.ndarray
    n_steps: int
    converged: bool


def index_sets(rule: str, w_t, X, y) -> list[np.ndarray]:
    """The index sets a single-pass rule steps on, in order (``"dca"`` has no fixed list).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0]]); y = [1, -1, -1]
    >>> [J.tolist() for J in index_sets("max_violators", np.zeros(2), X, y)]
    [[0, 1]]
    """
    check_choice(rule, "rule", RULES)
    X, y = check_batch(X, y)
    w_t = check_w(w_t, X.shape[1], "w_t")
    k = X.shape[0]
    if rule == "dca":
        raise ValueError("rule 'dca' iterates to convergence and has no fixed list of index sets")
    if rule == "sequential":
        return [np.array([i]) for i in range(k)]
    if rule == "auc":
        return [np.arange(k)]
    losses = _decided_losses(w_t, X, y)
    if rule == "correct_mistakes":
        J = np.flatnonzero(losses > 0)
        return [J] if J.size else []
    chosen = []
    for label in (1.0, -1.0):
        members = np.flatnonzero(y == label)
        if members.size:
            chosen.append(int(members[np.argmax(losses[members])]))
    return [np.array(sorted(chosen))]


def pa_update(w_t, X, y, rule: str = "auc", C: float = 1.0, sample_weight=None, tol: float = 1e-10,
              max_iter: int = 1000) -> PAUpdate:
    """One multi-sample passive-aggressive update of ``w_t`` on the batch ``(X, y)``.

    Parameters
    ----------
    w_t : array-like of shape (n_features,)
        Current weights.
    X : array-like of shape (k, n_features)
        The batch (for the paired updates ``k = 2``: a positive and a negative sample).
    y : array-like of shape (k,)
        Labels in ``{-1, +1}``.
    rule : {"dca", "sequential", "auc", "correct_mistakes", "max_violators"}
        The update rule (see the module docstring).
    C : float
        Aggressiveness ``C > 0``; ``np.inf`` gives the hard-margin (uncapped) step.
    sample_weight : array-like of shape (k,), optional
        Slack weights ``c_i > 0`` (default 1; the calibrated update uses ``1/(K-1)``).
    tol : float
        ``"dca"`` stops when the largest projected dual gradient is at most ``tol``.
    max_iter : int
        ``"dca"`` makes at most this many sweeps over the batch.

    Returns
    -------
    PAUpdate

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]]); y = [1, -1]
    >>> step = pa_update(np.zeros(2), X, y, rule="auc", C=10.0)
    >>> step.w.tolist(), step.alpha.tolist()
    ([1.0, -1.0], [1.0, 1.0])
    """
    check_choice(rule, "rule", RULES)
    C = check_C(C)
    check_positive(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    X, y = check_batch(X, y)
    c = check_sample_weight(sample_weight, X.shape[0])
    w = check_w(w_t, X.shape[1], "w_t")
    Z = (c * y)[:, None] * X
    alpha = np.zeros(X.shape[0])
    if rule == "dca":
        return _dca(w, alpha, Z, c, C, tol, max_iter)
    sets = index_sets(rule, w, X, y)
    for J in sets:
        _apply(w, alpha, Z, J, _step_size(w, alpha, Z, c, J, C), C)
    return PAUpdate(w, alpha, len(sets), True)


def _dca(w: np.ndarray, alpha: np.ndarray, Z: np.ndarray, c: np.ndarray, C: float, tol: float,
         max_iter: int) -> PAUpdate:
    singles = [np.array([i]) for i in range(Z.shape[0])]
    n_steps = 0
    for _ in range(max_iter):
        if _kkt_violation(w, alpha, Z, c, C) <= tol:
            return PAUpdate(w, alpha, n_steps, True)
        for J in singles:
            _apply(w, alpha, Z, J, _step_size(w, alpha, Z, c, J, C), C)
            n_steps += 1
    return PAUpdate(w, alpha, n_steps, _kkt_violation(w, alpha, Z, c, C) <= tol)
