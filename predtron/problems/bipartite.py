"""Multivariate performance measures for bipartite ranking (UML Section 17.5).

A prediction ``v`` and a label ``y`` are 0/1 vectors of length ``m``.  Every measure
here depends on them only through the confusion counts

    a = true positives, b = false positives, c = P - a false negatives, d = N - b true negatives,

with ``P`` (``N``) the number of relevant (irrelevant) labels of ``y``.  The
loss-augmented argmax of eq. (2) over ``rep(v) = (2 v - 1) / sqrt(m)`` therefore splits
into a search over the pairs ``(a, b)``: for fixed counts the loss is fixed and the
score ``<rep(v), t>`` is largest when ``v`` switches on the ``a`` relevant and the ``b``
irrelevant labels with the largest scores.  After sorting, prefix sums give every pair
in ``O(1)``: ``O(m^2)`` in all, instead of ``2^m`` (the enumeration of Section 17.5.1);
for F1 and F-beta a binary search per number of predicted labels brings it to ``O(m log m)``.

Losses (``1 -`` the measure), with our conventions for the degenerate cases:

* ``"f1"`` and ``"fbeta"``: ``1 - (1 + beta^2) a / ((1 + beta^2) a + b + beta^2 c)``.
  When the denominator is 0 (no relevant label and nothing predicted) the loss is 0.
* ``"balanced"``: ``1 - (a / P + d / N) / 2``, one minus the mean of sensitivity and
  specificity.  If ``y`` has no relevant (irrelevant) label the undefined rate is
  left out: the loss is ``1 - d / N`` (``1 - a / P``).
* ``"recall@k"``: predictions may switch on at most ``k`` labels (``a + b <= k``); the
  loss is ``1 - a / min(P, k)``, recall divided by the best recall reachable with
  ``k`` predictions, so that a zero-loss prediction always exists (the framework's
  ``Sigma_y`` is never empty).  ``P = 0`` gives loss 0.
* ``"precision@k"``: predictions switch on at least ``k`` labels (``a + b >= k``); the
  loss is ``1 - (a / (a + b)) / (min(P, k) / k)``, precision divided by the best
  precision reachable.  ``P = 0`` gives loss 0 (no prediction can be precise).
"""

from __future__ import annotations

import itertools

import numpy as np

from predtron._validation import MAX_DENSE_ENTRIES, check_choice, check_int, check_positive
from predtron.engine import fbeta_oracle

#: Names of the bipartite ranking losses of Part II (F1, F-beta, balanced error, precision@k, recall@k).
BIPARTITE_LOSSES = ("f1", "fbeta", "balanced", "precision@k", "recall@k")


class BipartiteMeasure:
    """One of :data:`BIPARTITE_LOSSES` on ``m`` labels, with its prediction space.

    Parameters
    ----------
    name : str
        One of :data:`BIPARTITE_LOSSES`.
    n_labels : int
        ``m``.
    beta : float
        ``beta > 0`` of the F-beta loss (``"f1"`` is ``beta = 1``).
    k : int or None
        ``1 <= k <= m`` for ``"precision@k"`` and ``"recall@k"``, else ``None``.
    """

    def __init__(self, name: str, n_labels: int, beta: float = 1.0, k: int | None = None):
        self.name = check_choice(name, "name", BIPARTITE_LOSSES)
        self.m = n_labels = check_int(n_labels, "n_labels", minimum=1, maximum=MAX_DENSE_ENTRIES)
        self.beta = 1.0 if name == "f1" else check_positive(beta, "beta", minimum=1e-100, maximum=1e100)
        if name in ("precision@k", "recall@k"):
            if k is None:
                raise ValueError(f"loss={name!r} needs k, the number of labels to predict")
            self.k = check_int(k, "k", minimum=1)
            if self.k > n_labels:
                raise ValueError(f"k must be at most n_labels={n_labels}; got k={self.k}")
            if name == "precision@k" and self.k == n_labels:
                raise ValueError(
                    f"precision@k with k = n_labels = {n_labels} allows only the all-ones prediction, "
                    "so there is nothing to learn; use k < n_labels"
                )
        elif k is not None:
            raise ValueError(f"k applies only to loss='precision@k' or 'recall@k'; got loss={name!r}")
        else:
            self.k = None

    # ------------------------------------------------------------ the measure
    def loss_counts(self, a, b, P: int, N: int):
        """The loss as a function of the counts ``a``, ``b`` (arrays broadcast) and ``P``, ``N``."""
        a = np.asarray(a, dtype=float)
        b = np.asarray(b, dtype=float)
        c, d = P - a, N - b
        if self.name in ("f1", "fbeta"):
            w = 1.0 + self.beta ** 2
            den = w * a + b + self.beta ** 2 * c
            return np.where(den > 0, 1.0 - w * a / np.where(den > 0, den, 1.0), 0.0)
        if self.name == "balanced":
            if P == 0:
                return 1.0 - d / N
            if N == 0:
                return 1.0 - a / P
            return 1.0 - 0.5 * (a / P + d / N)
        if P == 0:
            return np.zeros(np.broadcast(a, b).shape)
        best = min(P, self.k)
        if self.name == "recall@k":
            return 1.0 - a / best
        n = np.maximum(a + b, 1.0)
        return 1.0 - a * self.k / (n * best)

    def allowed(self, n_predicted):
        """Whether a prediction switching on ``n_predicted`` labels is in the prediction space."""
        n_predicted = np.asarray(n_predicted)
        if self.name == "recall@k":
            return n_predicted <= self.k
        if self.name == "precision@k":
            return n_predicted >= self.k
        return np.ones(n_predicted.shape, dtype=bool)

    def loss(self, sigma, y) -> float:
        sigma, y = np.asarray(sigma), np.asarray(y)
        a = int(np.count_nonzero((sigma == 1) & (y == 1)))
        b = int(np.count_nonzero((sigma == 1) & (y == 0)))
        P = int(np.count_nonzero(y == 1))
        return float(self.loss_counts(a, b, P, self.m - P))

    def loss_values(self) -> np.ndarray:
        """Every value the loss takes over all labels and allowed predictions (``O(m^3)``)."""
        values = []
        for P in range(self.m + 1):
            a, b = np.meshgrid(np.arange(P + 1), np.arange(self.m - P + 1), indexing="ij")
            ok = self.allowed(a + b)
            values.append(np.asarray(self.loss_counts(a, b, P, self.m - P))[ok])
        return np.concatenate(values)

    # ------------------------------------------------------- prediction space
    def pred(self, t: np.ndarray) -> np.ndarray:
        """``argmax_{v allowed} sum_i v_i t_i``: the labels with ``t_i >= 0``, cut or topped up to ``k``."""
        t = np.asarray(t, dtype=float)
        v = (t >= 0).astype(np.int64)
        if self.k is None:
            return v
        order = np.argsort(-t, kind="stable")
        n = int(v.sum())
        if self.name == "recall@k" and n > self.k:
            v[:] = 0
            v[order[: self.k]] = 1
        elif self.name == "precision@k" and n < self.k:
            v[order[: self.k]] = 1
        return v

    def correct(self, y: np.ndarray) -> np.ndarray:
        """A zero-loss allowed prediction: ``y`` itself, or ``y`` cut (recall@k) / topped up (precision@k)."""
        y = np.asarray(y, dtype=np.int64)
        P = int(y.sum())
        if self.name == "recall@k" and P > self.k:
            v = np.zeros_like(y)
            v[np.flatnonzero(y)[: self.k]] = 1
            return v
        if self.name == "precision@k" and P < self.k:
            v = y.copy()
            v[np.flatnonzero(y == 0)[: self.k - P]] = 1
            return v
        return y

    def predictions(self):
        """Every allowed prediction (``2^m`` candidates filtered; tests only)."""
        for bits in itertools.product((1, 0), repeat=self.m):
            v = np.array(bits, dtype=np.int64)
            if self.allowed(v.sum()):
                yield v

    def default_prediction(self) -> np.ndarray:
        v = np.zeros(self.m, dtype=np.int64)
        v[: self.k if self.k is not None else self.m] = 1
        return v

    # ---------------------------------------------------------------- oracle
    def oracle(self, t: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Maximiser of ``L(v, y) + <rep(v), t>`` over allowed ``v``.

        ``<rep(v), t> = (2 sum_{v_i = 1} t_i - sum_i t_i) / sqrt(m)``; the second term and
        ``<rep(sigma_y), t>`` do not depend on ``v``.  Ties go to the smallest ``a``, then
        the smallest ``b``; within a count, to labels earlier in the stable sort.  F1 and
        F-beta: :func:`predtron.engine.fbeta_oracle`, a binary search per number of
        predicted labels (``O(m log m)``); the other measures and the reference for those
        two: :meth:`oracle_grid`.
        """
        if self.name in ("f1", "fbeta"):
            return fbeta_oracle(np.asarray(t, dtype=float), np.asarray(y, dtype=np.int64),
                                2.0 / np.sqrt(self.m), self.beta ** 2)
        return self.oracle_grid(t, y)

    def oracle_grid(self, t: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:meth:`oracle` by the enumeration of every count pair ``(a, b)`` (``O(m^2)``)."""
        t = np.asarray(t, dtype=float)
        y = np.asarray(y)
        pos = np.flatnonzero(y == 1)
        neg = np.flatnonzero(y == 0)
        pos = pos[np.argsort(-t[pos], kind="stable")]
        neg = neg[np.argsort(-t[neg], kind="stable")]
        top_pos = np.concatenate([[0.0], np.cumsum(t[pos])])
        top_neg = np.concatenate([[0.0], np.cumsum(t[neg])])
        a, b = np.meshgrid(np.arange(len(pos) + 1), np.arange(len(neg) + 1), indexing="ij")
        values = self.loss_counts(a, b, len(pos), len(neg)) + (2.0 / np.sqrt(self.m)) * (
            top_pos[:, None] + top_neg[None, :])
        values = np.where(self.allowed(a + b), values, -np.inf)
        top = values.max()
        tol = 1e-12 * (1.0 + abs(top))
        best_a, best_b = np.argwhere(values >= top - tol)[0]
        v = np.zeros(self.m, dtype=np.int64)
        v[pos[:best_a]] = 1
        v[neg[:best_b]] = 1
        return v
