"""A user's own finite problem: any loss matrix and any representation (Section 2)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from predtron._validation import as_finite_array, check_int, check_int_label, check_int_labels, check_n_labels
from predtron.problems.base import FiniteProblem
from predtron.scoring import VectorScoring


def check_loss_matrix(loss_matrix, name: str = "loss_matrix") -> np.ndarray:
    """Validate a ``k x l`` loss matrix: finite, non-negative, a zero in every column."""
    L = as_finite_array(loss_matrix, name)
    if L.ndim != 2 or L.shape[0] < 2 or L.shape[1] < 1:
        raise ValueError(
            f"{name} must be a 2-D (n_predictions, n_labels) matrix with at least 2 predictions; "
            f"got shape {L.shape}"
        )
    if np.any(L < 0):
        i, j = np.argwhere(L < 0)[0]
        raise ValueError(f"{name} must be non-negative; entry [{i}, {j}] is {float(L[i, j]):g}")
    no_zero = np.flatnonzero(~np.any(L == 0, axis=0))
    if no_zero.size:
        raise ValueError(
            f"every column of {name} needs a zero (a correct prediction for that label); "
            f"column {int(no_zero[0])} has none"
        )
    if not np.any(L > 0):
        raise ValueError(f"{name} is all zeros, so every prediction is correct: nothing to learn")
    return L


def check_reps(reps, k: int, name: str = "reps") -> np.ndarray:
    """Validate a ``k x d`` representation matrix and normalise its rows to unit length."""
    k = check_int(k, "k", minimum=2)
    R = as_finite_array(reps, name)
    if R.ndim != 2 or R.shape[0] != k or R.shape[1] < 1:
        raise ValueError(
            f"{name} must be a 2-D (n_predictions, dim) matrix with k={k} rows (one per row of "
            f"loss_matrix); got shape {R.shape}"
        )
    norms = np.linalg.norm(R, axis=1)
    if np.any(norms == 0):
        raise ValueError(f"{name} row {int(np.flatnonzero(norms == 0)[0])} is zero")
    R = R / norms[:, None]
    for i in range(k):
        dup = np.flatnonzero(np.all(np.isclose(R[i + 1:], R[i]), axis=1))
        if dup.size:
            raise ValueError(
                f"{name} rows {i} and {i + 1 + int(dup[0])} point the same way after "
                "normalisation; each prediction needs its own representation"
            )
    return R


class General(FiniteProblem):
    """A finite problem from a loss matrix and a representation matrix.

    Parameters
    ----------
    loss_matrix : array-like of shape (k, l)
        ``loss_matrix[sigma, y] = L(sigma, y)``; predictions are ``0..k-1`` and labels
        ``0..l-1``.
    reps : array-like of shape (k, d)
        Row ``sigma`` is the representation of prediction ``sigma``; rows are normalised
        to unit length and must be distinct.

    Notes
    -----
    ``pred`` and ``oracle`` enumerate the ``k`` predictions, which is exact; ties go
    to the smallest index.
    """

    def __init__(self, loss_matrix, reps):
        self.loss_matrix_values = loss_matrix
        self.reps = reps
        L = check_loss_matrix(loss_matrix)
        self._setup(L, check_reps(reps, L.shape[0]))

    _param_attributes: ClassVar[dict[str, str]] = {"loss_matrix": "loss_matrix_values"}

    #: The parameter that sets the number of labels (named in messages).
    _labels_size_name = "loss_matrix columns"

    def _setup(self, L: np.ndarray, reps=None) -> None:
        """Set the problem up from a checked loss matrix ``L`` and a representation matrix
        ``reps`` checked by :func:`check_reps`, or, with ``None``, the standard basis of ``R^k``
        (unit and distinct rows by construction, so not checked: the check compares every pair
        of rows, ``O(k^3)`` work for ``k`` rows of ``k`` entries, 25 s for 2,001 classes)."""
        self._L = L
        self._reps = np.eye(L.shape[0]) if reps is None else reps
        self._preds = list(range(L.shape[0]))
        self._label_values = list(range(L.shape[1]))
        self._correct_index = np.argmax(L == 0, axis=0)  # first zero of every column
        self.scoring = VectorScoring(self._reps.shape[1])

    @property
    def n_labels(self) -> int:
        return self._L.shape[1]

    def check_label(self, y) -> int:
        return check_int_label(y, "label", self.n_labels, self._labels_size_name)

    def check_labels(self, Y, inputs) -> np.ndarray:
        Y = check_int_labels(Y, "Y", self.n_labels, self._labels_size_name)
        check_n_labels(Y, inputs.n)
        return Y

    def _check_prediction(self, sigma, y=None) -> int:
        return check_int_label(sigma, "sigma", self._L.shape[0], self._labels_size_name)

    def _index(self, sigma) -> int:
        return check_int_label(sigma, "prediction", self._L.shape[0])

    def _rep(self, sigma) -> np.ndarray:
        return self._reps[sigma]

    def _loss(self, sigma, y) -> float:
        return float(self._L[sigma, y])

    def _label_index(self, y) -> int:
        return int(y)

    def _label_columns(self, Y: np.ndarray) -> np.ndarray:
        return np.asarray(Y, dtype=np.int64)

    def _correct(self, y) -> int:
        return int(self._correct_index[y])

    def _label_for(self, sigma):
        zeros = np.flatnonzero(self._L[sigma] == 0)
        return int(zeros[0]) if zeros.size else None
