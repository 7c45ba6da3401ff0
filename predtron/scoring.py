"""Linear score maps: how a parameter matrix turns an input into scores ``t``.

The paper writes the scores as ``t = W X`` (Section 2) for a vector input and as
``t = X w`` for subset ranking (Section 4, one row of ``X`` per document).  Both are
linear maps ``A_X`` from parameters to scores; an online update needs only the map
and its adjoint, ``W <- W - eta * A_X^*(g)`` with ``g = rep(sigma~) - rep(sigma_y)``
(Algorithm 1, line 9).  A problem owns one of these objects (``problem.scoring``), so
learners never need to know which setting they are in.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np

from predtron._validation import as_finite_array, check_matrix

Kernel = Callable[[np.ndarray, np.ndarray], np.ndarray]


class LinearScoring(ABC):
    """A linear map ``A_X`` from parameters to scores, with its adjoint."""

    @abstractmethod
    def split(self, X) -> list[np.ndarray]:
        """Validate a batch of inputs and return one array per instance."""

    def group_rows(self, X, Y=None, qid=None, group=None) -> tuple[list[np.ndarray], list | None]:
        """Split a flat one-row-per-item layout into instances (ranking inputs only)."""
        raise ValueError(
            f"qid and group describe ranking inputs (one row per document); this problem takes "
            f"{type(self).__name__} inputs, one row per example"
        )

    @abstractmethod
    def n_features(self, x: np.ndarray) -> int:
        """Number of input features of one instance (what the parameters are sized by)."""

    @abstractmethod
    def init_params(self, n_features: int) -> np.ndarray:
        """The zero parameter ``W_1 = 0`` (Algorithm 1, line 1)."""

    @abstractmethod
    def scores(self, params: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``t = A_x(params)``."""

    @abstractmethod
    def gradient(self, g: np.ndarray, x: np.ndarray) -> np.ndarray:
        """The adjoint ``A_x^*(g)``: the gradient of ``<g, A_x(params)>`` in ``params``."""

    @abstractmethod
    def instance_norm(self, x: np.ndarray) -> float:
        """The norm ``R`` of one instance for which ``||A_x^*(g)||_F <= R ||g||_2``."""

    @abstractmethod
    def kernel_scores(
        self, kernel: Kernel, support: list[np.ndarray], coefs: list[np.ndarray], x: np.ndarray
    ) -> np.ndarray:
        """Scores of ``x`` under ``sum_i A_{x_i}^*(g_i)`` in the feature space of ``kernel``."""


class VectorScoring(LinearScoring):
    """``t = W x`` with ``W`` of shape ``(dim, p)`` (Section 2).

    Parameters
    ----------
    dim : int
        Dimension ``d`` of the representation space.
    """

    def __init__(self, dim: int):
        self.dim = int(dim)

    def split(self, X) -> list[np.ndarray]:
        return list(check_matrix(X, "X"))

    def n_features(self, x: np.ndarray) -> int:
        return int(x.shape[0])

    def init_params(self, n_features: int) -> np.ndarray:
        return np.zeros((self.dim, n_features))

    def scores(self, params: np.ndarray, x: np.ndarray) -> np.ndarray:
        return params @ x

    def gradient(self, g: np.ndarray, x: np.ndarray) -> np.ndarray:
        return np.outer(g, x)

    def instance_norm(self, x: np.ndarray) -> float:
        return float(np.linalg.norm(x))

    def kernel_scores(self, kernel, support, coefs, x):
        if not support:
            return np.zeros(self.dim)
        k = kernel(np.asarray(support), x[None, :])[:, 0]
        return np.asarray(coefs).T @ k


class DocumentScoring(LinearScoring):
    """``t = X w`` with one row of ``X`` per item and ``w`` shared by all items (Section 4).

    The number of items ``m`` may differ between instances; ``w`` has one entry per feature.
    """

    def split(self, X) -> list[np.ndarray]:
        if isinstance(X, np.ndarray) and X.ndim == 3:
            X = list(X)
        if not isinstance(X, Sequence) or isinstance(X, (str, bytes)):
            raise ValueError(
                "X must be a list of 2-D arrays, one (n_items, n_features) matrix per instance; "
                f"got {type(X).__name__}"
            )
        out = []
        for i, x in enumerate(X):
            x = as_finite_array(x, f"X[{i}]")
            if x.ndim != 2 or x.shape[0] == 0:
                raise ValueError(
                    f"X[{i}] must be a 2-D (n_items, n_features) matrix with at least one item; "
                    f"got shape {x.shape}"
                )
            out.append(x)
        return out

    def group_rows(self, X, Y=None, qid=None, group=None):
        """Split the flat layout (an ``(N, p0)`` matrix with query ids or group sizes, as
        LightGBM and XGBoost take it) into per-query matrices and relevance arrays."""
        from predtron.data.ranking import split_queries

        n_rows = np.shape(X)[0] if np.ndim(X) else 0
        xs, ys = split_queries(X, np.zeros(n_rows, dtype=int) if Y is None else Y, qid=qid, group=group)
        return xs, (None if Y is None else ys)

    def n_features(self, x: np.ndarray) -> int:
        return int(x.shape[1])

    def init_params(self, n_features: int) -> np.ndarray:
        return np.zeros(n_features)

    def scores(self, params: np.ndarray, x: np.ndarray) -> np.ndarray:
        return x @ params

    def gradient(self, g: np.ndarray, x: np.ndarray) -> np.ndarray:
        return x.T @ g

    def instance_norm(self, x: np.ndarray) -> float:
        return float(np.linalg.norm(x, 2)) if x.size else 0.0

    def kernel_scores(self, kernel, support, coefs, x):
        if not support:
            return np.zeros(x.shape[0])
        rows = np.concatenate(support, axis=0)
        weights = np.concatenate(coefs)
        return kernel(x, rows) @ weights
