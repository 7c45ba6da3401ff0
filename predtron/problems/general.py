"""A user's own finite problem: any loss matrix and any representation (Section 2)."""

from __future__ import annotations

import numpy as np

from predtron._validation import as_finite_array, check_int_label
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
        self._L = check_loss_matrix(loss_matrix)
        R = as_finite_array(reps, "reps")
        k = self._L.shape[0]
        if R.ndim != 2 or R.shape[0] != k:
            raise ValueError(
                f"reps must be a 2-D (n_predictions, dim) matrix with {k} rows (one per row of "
                f"loss_matrix); got shape {R.shape}"
            )
        norms = np.linalg.norm(R, axis=1)
        if np.any(norms == 0):
            raise ValueError(f"reps row {int(np.flatnonzero(norms == 0)[0])} is zero")
        R = R / norms[:, None]
        for i in range(k):
            dup = np.flatnonzero(np.all(np.isclose(R[i + 1:], R[i]), axis=1))
            if dup.size:
                raise ValueError(
                    f"reps rows {i} and {i + 1 + int(dup[0])} point the same way after "
                    "normalisation; each prediction needs its own representation"
                )
        self._reps = R
        self._preds = list(range(k))
        self.scoring = VectorScoring(R.shape[1])

    def get_params(self) -> dict:
        return {"loss_matrix": self._L.tolist(), "reps": self._reps.tolist()}

    @property
    def n_predictions(self) -> int:
        return self._L.shape[0]

    @property
    def n_labels(self) -> int:
        return self._L.shape[1]

    def check_label(self, y) -> int:
        return check_int_label(y, "label", self.n_labels)

    def _index(self, sigma) -> int:
        return check_int_label(sigma, "prediction", self.n_predictions)

    def loss(self, sigma, y) -> float:
        return float(self._L[sigma, y])

    def _loss_column(self, y) -> np.ndarray:
        return self._L[:, y]

    def correct(self, y) -> int:
        return int(np.flatnonzero(self._L[:, y] == 0)[0])

    def label_for(self, sigma):
        zeros = np.flatnonzero(self._L[sigma] == 0)
        return int(zeros[0]) if zeros.size else None

    def labels(self):
        return iter(range(self.n_labels))

    def loss_matrix(self) -> np.ndarray:
        return self._L.copy()
