"""Multiclass classification with any cost matrix (Section 3)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from predtron._validation import MAX_CLASSES, as_finite_array, check_int
from predtron.engine import EngineSpec
from predtron.problems.base import first_argmax_rows_trusted, first_argmax_trusted
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

    _param_attributes: ClassVar[dict[str, str]] = {"loss": "costs"}
    _labels_size_name = "n_classes"

    def __init__(self, n_classes: int, loss=None):
        self.n_classes = n_classes
        self.costs = loss
        k = check_int(n_classes, "n_classes", minimum=2, maximum=MAX_CLASSES)
        matrix = 1.0 - np.eye(k) if loss is None else as_finite_array(loss, "loss")
        if matrix.shape != (k, k):
            raise ValueError(f"loss must be a ({k}, {k}) matrix for n_classes={k}; got shape {matrix.shape}")
        self._setup(check_loss_matrix(matrix, "loss"))  # one-hot representations
        self._k = k

    def _rep(self, sigma) -> np.ndarray:
        out = np.zeros(self._k)
        out[sigma] = 1.0
        return out

    def _direction(self, t, y, sigma) -> np.ndarray:
        g = np.zeros(self._k)
        g[sigma] += 1.0
        g[self._correct(y)] -= 1.0
        return g

    def _pred(self, t) -> int:
        return first_argmax_trusted(t)

    def _batch_pred_index(self, T) -> np.ndarray:
        return first_argmax_rows_trusted(np.asarray(T, dtype=float))

    def _compiled_spec(self, labels) -> EngineSpec:
        return EngineSpec.multiclass(labels, self._L, self._correct_index)

    def _oracle(self, t, y) -> int:
        return first_argmax_trusted(self._L[:, y] + (t - t[self._correct_index[y]]))

    def _round(self, t, y, use_oracle):
        sigma = first_argmax_trusted(t)
        loss = float(self._L[sigma, y])
        if loss == 0:
            return 0.0, None
        correct = int(self._correct_index[y])
        chosen = first_argmax_trusted(self._L[:, y] + (t - t[correct])) if use_oracle else sigma
        g = np.zeros(self._k)
        g[chosen] += 1.0
        g[correct] -= 1.0
        return loss, g

    def _margin(self, t, y) -> float:
        good = self._L[:, y] == 0
        if good.all():
            return np.inf
        gap = float(t[good].min() - t[~good].max())
        return gap if np.ptp(t[good]) <= 1e-12 * (1 + np.abs(t).max()) else min(gap, 0.0)
