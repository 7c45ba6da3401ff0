"""Binary classification (Section 3): the perceptron, weighted losses and a REJECT option."""

from __future__ import annotations

import numpy as np

from predtron._validation import check_positive
from predtron.problems.base import FiniteProblem
from predtron.scoring import VectorScoring

#: The abstain prediction of :class:`BinaryReject`.
REJECT = 0


def _check_pm1(y, name: str = "label") -> int:
    if isinstance(y, (bool, np.bool_)) or y not in (-1, 1):
        raise ValueError(f"{name} must be -1 or +1; got {y!r}")
    return int(y)


class Binary(FiniteProblem):
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
        self.cost_pos = check_positive(cost_pos, "cost_pos")
        self.cost_neg = check_positive(cost_neg, "cost_neg")
        self._preds = [1, -1]
        self._reps = np.array([[1.0], [-1.0]])
        self.scoring = VectorScoring(1)

    def get_params(self) -> dict:
        return {"cost_pos": self.cost_pos, "cost_neg": self.cost_neg}

    def check_label(self, y) -> int:
        return _check_pm1(y)

    def loss(self, sigma, y) -> float:
        if sigma == y:
            return 0.0
        return self.cost_pos if y == 1 else self.cost_neg

    def correct(self, y) -> int:
        return int(y)

    def oracle(self, t, y) -> int:
        # Flipping the label is worth alpha_y - 2 y t; keeping it is worth 0.
        cost = self.cost_pos if y == 1 else self.cost_neg
        return -int(y) if cost - 2.0 * y * float(np.ravel(t)[0]) > 0 else int(y)

    def pred(self, t) -> int:
        return 1 if float(np.ravel(t)[0]) >= 0 else -1

    def margin(self, t, y) -> float:
        return 2.0 * y * float(np.ravel(t)[0])

    def labels(self):
        return iter([1, -1])

    @property
    def c_L(self) -> float:
        return min(self.cost_pos, self.cost_neg)

    @property
    def C_L(self) -> float:
        return max(self.cost_pos, self.cost_neg)


class BinaryReject(FiniteProblem):
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
        self.reject_cost_pos = check_positive(reject_cost_pos, "reject_cost_pos")
        self.reject_cost_neg = check_positive(reject_cost_neg, "reject_cost_neg")
        for name, value in (("reject_cost_pos", self.reject_cost_pos),
                            ("reject_cost_neg", self.reject_cost_neg)):
            if value > 1:
                raise ValueError(
                    f"{name} must be in (0, 1] (abstaining may not cost more than a mistake); "
                    f"got {value!r}"
                )
        self._preds = [1, -1, REJECT]
        self._reps = np.array([[1.0, 0.0], [0.0, 1.0], [2 ** -0.5, 2 ** -0.5]])
        self.scoring = VectorScoring(2)

    def get_params(self) -> dict:
        return {"reject_cost_pos": self.reject_cost_pos, "reject_cost_neg": self.reject_cost_neg}

    def check_label(self, y) -> int:
        return _check_pm1(y)

    def label_for(self, sigma):
        return None if sigma == REJECT else int(sigma)

    def loss(self, sigma, y) -> float:
        if sigma == REJECT:
            return self.reject_cost_pos if y == 1 else self.reject_cost_neg
        return 0.0 if sigma == y else 1.0

    def correct(self, y) -> int:
        return int(y)

    def labels(self):
        return iter([1, -1])

    @property
    def c_L(self) -> float:
        return min(self.reject_cost_pos, self.reject_cost_neg)

    @property
    def C_L(self) -> float:
        return 1.0
