"""Multilabel ranking (Section 5): rank ``m`` labels of an input ``x`` with ``t = W x``."""

from __future__ import annotations

import itertools

import numpy as np

from predtron._validation import check_int
from predtron.problems.ranking import RankingProblem, check_relevance
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
        self.n_labels = check_int(n_labels, "n_labels", minimum=1)
        self.y_max = check_int(y_max, "y_max", minimum=1)
        self.scoring = VectorScoring(self.n_labels)
        self._bounds: tuple[float, float] | None = None

    def get_params(self) -> dict:
        return {"n_labels": self.n_labels, **super().get_params(), "y_max": self.y_max}

    def check_label(self, y) -> np.ndarray:
        return check_relevance(y, "label", length=self.n_labels, y_max=self.y_max)

    def labels(self):
        return (np.array(c, dtype=np.int64)
                for c in itertools.product(range(self.y_max + 1), repeat=self.n_labels))

    def random_label(self, rng: np.random.Generator) -> np.ndarray:
        return rng.integers(0, self.y_max + 1, size=self.n_labels).astype(np.int64)

    def label_for(self, sigma) -> np.ndarray:
        """The relevance ``max(y_max - sigma, 0)``: ``sigma`` sorts it decreasingly."""
        sigma = self._check_sigma(sigma)
        return np.maximum(self.y_max - sigma, 0).astype(np.int64)

    def predictions(self, y=None):
        m = self.n_labels if y is None else len(y)
        return (np.array(p, dtype=np.int64) for p in itertools.permutations(range(m)))

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
