"""Multiclass classification with any cost matrix (Section 3)."""

from __future__ import annotations

import numpy as np

from predtron._validation import check_int
from predtron.problems.base import first_argmax
from predtron.problems.general import General, check_loss_matrix


class Multiclass(General):
    """Multiclass classification: ``rep(j) = e_j`` in ``R^k`` and ``pred = argmax``.

    With the 0-1 loss the margin is Crammer and Singer's, the surrogate is the multiclass
    hinge ``max(0, 1 + max_{sigma != y} t_sigma - t_y)`` and Algorithm 1 is their
    multiclass perceptron.  Any cost matrix works (the cost-sensitive setting).

    Parameters
    ----------
    n_classes : int
        ``k >= 2``; labels and predictions are ``0..k-1``.
    loss : array-like of shape (k, k), optional
        ``loss[sigma, y]``; non-negative with a zero in every column.  Default: 0-1.

    Notes
    -----
    ``pred`` and ``oracle`` are ``O(k)``; ties go to the smallest class index.
    """

    def __init__(self, n_classes: int, loss=None):
        k = check_int(n_classes, "n_classes", minimum=2)
        matrix = 1.0 - np.eye(k) if loss is None else loss
        shape = np.shape(matrix)
        if shape != (k, k):
            raise ValueError(f"loss must be a ({k}, {k}) matrix for n_classes={k}; got shape {shape}")
        super().__init__(check_loss_matrix(matrix, "loss"), np.eye(k))
        self.n_classes = k

    def get_params(self) -> dict:
        return {"n_classes": self.n_classes, "loss": self._L.tolist()}

    def rep(self, sigma) -> np.ndarray:
        out = np.zeros(self.n_classes)
        out[self._index(sigma)] = 1.0
        return out

    def pred(self, t) -> int:
        return first_argmax(t)

    def oracle(self, t, y) -> int:
        t = np.asarray(t, dtype=float)
        return first_argmax(self._L[:, y] + t - t[self.correct(y)])

    def margin(self, t, y) -> float:
        t = np.asarray(t, dtype=float)
        good = self._L[:, y] == 0
        if good.all():
            return np.inf
        gap = float(t[good].min() - t[~good].max())
        return gap if np.ptp(t[good]) <= 1e-12 * (1 + np.abs(t).max()) else min(gap, 0.0)
