"""Multilabel ranking (Section 5): rank ``m`` labels of an input ``x`` with ``t = W x``."""

from __future__ import annotations

import itertools
import math

import numpy as np

from predtron._validation import MAX_DENSE_ENTRIES, as_label_array, check_each, check_int, check_n_labels
from predtron.problems.base import _check_rng
from predtron.problems.ranking import MAX_EXPONENTIAL_GRADE, RankingProblem, check_relevance
from predtron.scoring import VectorScoring


class MultilabelRanking(RankingProblem):
    """Multilabel ranking: ``W`` in ``R^{m x p}`` scores the ``m`` labels, ``t = W x``.

    Same rankings, representation (``rep(sigma) = f(sigma + 1) / Z``), losses, oracle
    and margin as :class:`~predtron.problems.subset_ranking.SubsetRanking`; only the
    score map differs.  Labels are relevance vectors in ``{0..y_max}^m`` (``y_max = 1``:
    relevant or not, as in multilabel data sets).  Corollary 7 bounds the Predtron's
    cumulative NDCG loss by ``2^{Ymax+3} m^2 log2^2(2m) R^2 / gamma^2`` with
    ``||x||_2 <= R`` (:func:`predtron.bounds.corollary7_bound`).

    Parameters
    ----------
    n_labels : int
        ``m``, the number of labels to rank.
    f, loss, k, gain, oracle
        As in :class:`~predtron.problems.ranking.RankingProblem`.
    y_max : int, default 1
        Largest relevance grade; the label space is ``{0..y_max}^m``.

    Notes
    -----
    ``c_L`` and ``C_L`` are computed exactly over the label space
    (:meth:`~predtron.problems.ranking.RankingProblem.loss_bounds`); an all-zero label
    has loss 0 for every ranking (no update).
    """

    def __init__(self, n_labels: int, f="linear", loss: str = "ndcg", k: int | None = None,
                 gain: str = "exponential", oracle: str = "auto", y_max: int = 1):
        super().__init__(f=f, loss=loss, k=k, gain=gain, oracle=oracle)
        self.n_labels = n_labels
        self.y_max = y_max
        check_int(n_labels, "n_labels", minimum=1, maximum=MAX_DENSE_ENTRIES)
        check_int(y_max, "y_max", minimum=1, maximum=MAX_EXPONENTIAL_GRADE)
        self.scoring = VectorScoring(n_labels)
        self._bounds: tuple[float, float] | None = None

    def check_label(self, y) -> np.ndarray:
        return check_relevance(y, "label", length=self.n_labels, y_max=self.y_max)

    def check_labels(self, Y, inputs) -> np.ndarray:
        arr = as_label_array(Y, "Y", booleans=False)
        check_n_labels(arr, inputs.n)
        if arr.ndim != 2 or arr.shape[1] != self.n_labels:
            if arr.dtype.kind == "O":
                return np.array(check_each(arr, self.check_label, "Y"), dtype=np.int64).reshape(-1, self.n_labels)
            raise ValueError(f"Y must be an (n_samples, {self.n_labels}) matrix of relevance grades; "
                             f"got shape {arr.shape}")
        grades = check_relevance(arr.ravel(), "Y", y_max=self.y_max) if arr.size else arr.astype(np.int64)
        return grades.reshape(arr.shape)

    def _score_shape(self, y=None) -> tuple[int, ...]:
        return (self.n_labels,)

    def _check_prediction(self, sigma, y=None) -> np.ndarray:
        return self._check_sigma(sigma, self.n_labels)

    def labels(self):
        return self._enumerate((np.array(c, dtype=np.int64)
                                for c in itertools.product(range(self.y_max + 1), repeat=self.n_labels)),
                               "labels", self.n_labels_space())

    def n_labels_space(self) -> int:
        return (self.y_max + 1) ** self.n_labels

    def random_label(self, rng: np.random.Generator) -> np.ndarray:
        _check_rng(rng)
        return rng.integers(0, self.y_max + 1, size=self.n_labels).astype(np.int64)

    def _label_for(self, sigma) -> np.ndarray:
        """The relevance ``max(y_max - sigma, 0)``: ``sigma`` sorts it decreasingly."""
        return np.maximum(self.y_max - sigma, 0).astype(np.int64)

    def _predictions(self, y=None):
        m = self.n_labels if y is None else len(y)
        return self._enumerate((np.array(p, dtype=np.int64) for p in itertools.permutations(range(m))),
                               "rankings", math.factorial(m))

    def _n_predictions(self, y=None) -> int:
        return math.factorial(self.n_labels if y is None else len(y))

    def pred_default(self):
        return np.arange(self.n_labels)

    def _loss_bounds(self) -> tuple[float, float]:
        if self._bounds is None:
            self._bounds = self.loss_bounds(self.n_labels, self.y_max)
        return self._bounds

    @property
    def c_L(self) -> float:
        """Smallest non-zero loss over ``{0..y_max}^m`` and all rankings."""
        return self._loss_bounds()[0]

    @property
    def C_L(self) -> float:
        """Largest loss over ``{0..y_max}^m`` and all rankings."""
        return self._loss_bounds()[1]
