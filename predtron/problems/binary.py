"""Binary classification (Section 3): the perceptron, weighted losses and a REJECT option."""

from __future__ import annotations

import numpy as np

from predtron._validation import as_label_array, check_int, check_n_labels, check_positive, excerpt
from predtron.engine import EngineSpec
from predtron.problems.base import FiniteProblem
from predtron.scoring import VectorScoring

#: The abstain prediction of :class:`BinaryReject`.
REJECT = 0


def _check_pm1(y, name: str = "label") -> int:
    if isinstance(y, (bool, np.bool_)) or not isinstance(y, (int, float, np.integer, np.floating)) or y not in (-1, 1):
        raise ValueError(f"{name} must be -1 or +1; got {excerpt(y)}")
    return int(y)


def check_pm1_labels(Y, n: int, name: str = "Y") -> np.ndarray:
    """A 1-D array of ``-1``/``+1`` labels, one per example (booleans refused)."""
    n = check_int(n, "n", minimum=0)
    arr = as_label_array(Y, name, booleans=False)
    check_n_labels(arr, n, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, one -1/+1 label per example; got shape {arr.shape}")
    if arr.dtype.kind == "O":
        return np.array([_check_pm1(y, f"{name}[{i}]") for i, y in enumerate(arr)], dtype=np.int64)
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold -1/+1 labels; got {excerpt(arr)}")
    bad = (arr != 1) & (arr != -1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}[{i}] must be -1 or +1; got {arr[i].item()!r}")
    return arr.astype(np.int64)


class _PlusMinusLabels(FiniteProblem):
    """Labels ``+1``/``-1`` (checked one at a time or all at once)."""

    def check_label(self, y) -> int:
        return _check_pm1(y)

    def check_labels(self, Y, inputs) -> np.ndarray:
        return check_pm1_labels(Y, inputs.n)

    def _label_index(self, y) -> int:
        return 0 if y == 1 else 1

    def _label_columns(self, Y: np.ndarray) -> np.ndarray:
        return (np.asarray(Y) != 1).astype(np.int64)

    def _correct(self, y) -> int:
        return int(y)


class Binary(_PlusMinusLabels):
    """Binary classification with ``rep(+1) = +1`` and ``rep(-1) = -1`` (``d = 1``).

    The loss is the weighted 0-1 loss ``L_alpha(sigma, y) = alpha_y`` if ``sigma != y``
    (Corollary 2); with unit costs Algorithm 1 is the classic perceptron.  Ties
    (``t = 0``) are decoded as ``+1``.

    Parameters
    ----------
    cost_pos : float
        ``alpha_{+1}``, the cost of a mistake when the true label is ``+1``.
    cost_neg : float
        ``alpha_{-1}``, the cost of a mistake when the true label is ``-1``.
    """

    def __init__(self, cost_pos: float = 1.0, cost_neg: float = 1.0):
        self.cost_pos = cost_pos
        self.cost_neg = cost_neg
        self._alpha = {1: check_positive(cost_pos, "cost_pos"), -1: check_positive(cost_neg, "cost_neg")}
        self._preds = [1, -1]
        self._label_values = [1, -1]
        self._reps = np.array([[1.0], [-1.0]])
        self._L = np.array([[0.0, self._alpha[-1]], [self._alpha[1], 0.0]])
        self.scoring = VectorScoring(1)

    def _loss(self, sigma, y) -> float:
        return 0.0 if sigma == y else self._alpha[y]

    def _oracle(self, t, y) -> int:
        # Flipping the label is worth alpha_y - 2 y t; keeping it is worth 0.
        return -int(y) if self._alpha[y] - 2.0 * y * float(t[0]) > 0 else int(y)

    def _pred(self, t) -> int:
        return 1 if float(t[0]) >= 0 else -1

    def _margin(self, t, y) -> float:
        return 2.0 * y * float(t[0])

    def _batch_pred_index(self, T) -> np.ndarray:
        return (np.asarray(T)[:, 0] < 0).astype(np.int64)

    def _compiled_spec(self, labels) -> EngineSpec:
        return EngineSpec.binary(labels, self._alpha[1], self._alpha[-1])

    @property
    def c_L(self) -> float:
        return min(self._alpha.values())

    @property
    def C_L(self) -> float:
        return max(self._alpha.values())


class BinaryReject(_PlusMinusLabels):
    """Binary classification with an abstain option (Section 3, "REJECT option").

    Predictions are ``+1``, ``-1`` and :data:`REJECT` (``0``); labels are ``+1``/``-1``.
    ``rep(+1) = e_1``, ``rep(-1) = e_2`` and ``rep(REJECT) = (e_1 + e_2) / sqrt(2)``, so
    abstaining wins when both scores are high and close.  The loss is 0-1 on the two
    classes and ``beta_y`` for abstaining on an example of class ``y``.

    Parameters
    ----------
    reject_cost_pos, reject_cost_neg : float
        ``beta_{+1}`` and ``beta_{-1}``, each in ``(0, 1]``.
    """

    def __init__(self, reject_cost_pos: float, reject_cost_neg: float):
        self.reject_cost_pos = reject_cost_pos
        self.reject_cost_neg = reject_cost_neg
        beta_pos = check_positive(reject_cost_pos, "reject_cost_pos")
        beta_neg = check_positive(reject_cost_neg, "reject_cost_neg")
        for name, value in (("reject_cost_pos", beta_pos), ("reject_cost_neg", beta_neg)):
            if value > 1:
                raise ValueError(
                    f"{name} must be in (0, 1] (abstaining may not cost more than a mistake); got {value!r}"
                )
        self._preds = [1, -1, REJECT]
        self._label_values = [1, -1]
        self._reps = np.array([[1.0, 0.0], [0.0, 1.0], [2 ** -0.5, 2 ** -0.5]])
        self._L = np.array([[0.0, 1.0], [1.0, 0.0], [beta_pos, beta_neg]])
        self.scoring = VectorScoring(2)

    def _label_for(self, sigma):
        return None if sigma == REJECT else int(sigma)

    @property
    def c_L(self) -> float:
        return float(self._L[2].min())

    @property
    def C_L(self) -> float:
        return 1.0
