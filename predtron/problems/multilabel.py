"""Multilabel classification (Section 3) with oracles that never enumerate 2^m subsets.

Labels and predictions are 0/1 vectors of length ``m``.  With ``s_j = 2 y_j - 1`` and
``a_j = 2 s_j t_j / sqrt(m)``, the representation of Section 3 gives

    <rep(y) - rep(sigma), t> = sum of a_j over the error set E = {j : sigma_j != y_j},

so the loss-augmented argmax is a choice of error set; each loss below picks it in
``O(m)`` or ``O(m log m)`` time.  These oracles are our derivation (the paper's
Appendix C.2 is not available); :mod:`predtron.testing` checks them against brute force.

The multivariate measures of bipartite ranking (UML Section 17.5: F1, F-beta, balanced
accuracy, precision@k, recall@k) live in :mod:`predtron.problems.bipartite`; this class
dispatches to it for those losses.
"""

from __future__ import annotations

import itertools
from typing import ClassVar

import numpy as np

from predtron._validation import (
    MAX_DENSE_ENTRIES,
    check_binary_matrix,
    check_binary_vector,
    check_bool,
    check_choice,
    check_int,
    check_n_labels,
)
from predtron.engine import EngineSpec
from predtron.problems.base import Problem, _check_rng
from predtron.problems.bipartite import BIPARTITE_LOSSES, BipartiteMeasure
from predtron.scoring import VectorScoring

LOSSES = ("hamming", "subset", "errorset", *BIPARTITE_LOSSES)

#: Largest ``m`` for which the error-set margin is computed by enumeration.
MAX_ENUMERATED_LABELS = 16


class Multilabel(Problem):
    """Multilabel classification: ``rep(sigma) = (2 sigma - 1) / sqrt(m)``, ``pred = sign``.

    Parameters
    ----------
    n_labels : int
        ``m``, the number of labels.
    loss : {"hamming", "subset", "errorset", "f1", "fbeta", "balanced", "precision@k", "recall@k"}
        * ``"hamming"``: ``|sigma union y| - |sigma intersect y|``, the number of wrong
          labels (unnormalised, as in the paper; see ``normalize``);
        * ``"subset"``: the subset 0-1 loss, 1 unless ``sigma == y``;
        * ``"errorset"``: the error-set size, the number of pairs (relevant label
          missed, irrelevant label predicted) = false negatives x false positives;
        * ``"f1"``, ``"fbeta"``, ``"balanced"``, ``"precision@k"``, ``"recall@k"``: one
          minus a multivariate measure of UML Section 17.5; ``"recall@k"`` predictions
          switch on at most ``k`` labels and ``"precision@k"`` predictions at least ``k``.
          Definitions and degenerate-case conventions: :mod:`predtron.problems.bipartite`.
    normalize : bool
        Divide the Hamming loss by ``m`` (only with ``loss="hamming"``).
    beta : float
        ``beta > 0`` of ``loss="fbeta"`` (only with that loss).
    k : int, optional
        ``1 <= k <= m`` for ``loss="precision@k"`` and ``"recall@k"`` (required there).

    Notes
    -----
    A score of exactly 0 decodes to 1 (label predicted), as in :class:`~predtron.problems.Binary`.
    """

    _param_attributes: ClassVar[dict[str, str]] = {"loss": "loss_name"}

    def __init__(self, n_labels: int, loss: str = "hamming", *, normalize: bool = False,
                 beta: float = 1.0, k: int | None = None):
        self.n_labels = n_labels
        self.loss_name = loss
        self.normalize = normalize
        self.beta = beta
        self.k = k
        m = check_int(n_labels, "n_labels", minimum=1, maximum=MAX_DENSE_ENTRIES)
        check_choice(loss, "loss", LOSSES)
        normalize = check_bool(normalize, "normalize")
        if normalize and loss != "hamming":
            raise ValueError(f"normalize=True applies only to loss='hamming'; got loss={loss!r}")
        if loss == "errorset" and m < 2:
            raise ValueError("loss='errorset' needs n_labels >= 2 (it counts pairs of labels)")
        if beta != 1.0 and loss != "fbeta":
            raise ValueError(f"beta applies only to loss='fbeta'; got loss={loss!r}")
        if k is not None and loss not in ("precision@k", "recall@k"):
            raise ValueError(f"k applies only to loss='precision@k' or 'recall@k'; got loss={loss!r}")
        self._measure = BipartiteMeasure(loss, m, beta, k) if loss in BIPARTITE_LOSSES else None
        self._m = m
        self._normalize = normalize
        self.scoring = VectorScoring(m)
        self._scale = 1.0 / np.sqrt(m)

    # ------------------------------------------------------------------ basics
    def check_label(self, y) -> np.ndarray:
        return check_binary_vector(y, "label", self._m)

    def check_labels(self, Y, inputs) -> np.ndarray:
        Y = check_binary_matrix(Y, "Y", self._m)
        check_n_labels(Y, inputs.n)
        return Y

    def _check_prediction(self, sigma, y=None) -> np.ndarray:
        sigma = check_binary_vector(sigma, "sigma", self._m)
        if self._measure is not None and not self._measure.allowed(int(sigma.sum())):
            bound = "at most" if self.loss_name == "recall@k" else "at least"
            raise ValueError(f"sigma must switch on {bound} k={self.k} labels for loss={self.loss_name!r}; "
                             f"got {int(sigma.sum())}")
        return sigma

    def _rep(self, sigma) -> np.ndarray:
        return (2.0 * np.asarray(sigma, dtype=float) - 1.0) * self._scale

    def _pred(self, t) -> np.ndarray:
        if self._measure is not None:
            return self._measure.pred(t)
        return (np.asarray(t, dtype=float) >= 0).astype(np.int64)

    def _correct(self, y) -> np.ndarray:
        if self._measure is not None:
            return self._measure.correct(y)
        return np.asarray(y, dtype=np.int64)

    def _loss(self, sigma, y) -> float:
        if self._measure is not None:
            return self._measure.loss(sigma, y)
        return float(self._loss_rows(np.asarray(sigma)[None, :], np.asarray(y)[None, :])[0])

    def _loss_rows(self, S: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Hamming, subset or error-set loss of every row of ``S`` against ``Y`` (exact counts)."""
        if self.loss_name == "hamming":
            wrong = np.count_nonzero(S != Y, axis=1).astype(float)
            return wrong / self._m if self._normalize else wrong
        if self.loss_name == "subset":
            return np.any(S != Y, axis=1).astype(float)
        false_neg = np.count_nonzero((Y == 1) & (S == 0), axis=1)
        false_pos = np.count_nonzero((Y == 0) & (S == 1), axis=1)
        return (false_neg * false_pos).astype(float)

    def batch_pred(self, T) -> np.ndarray:
        if self._measure is not None and self._measure.k is not None:
            return super().batch_pred(T)
        return (np.asarray(T, dtype=float) >= 0).astype(np.int64)

    def batch_loss(self, T, Y) -> np.ndarray:
        if self._fbeta:
            S, Y = self.batch_pred(T), np.asarray(Y)
            a = np.count_nonzero((S == 1) & (Y == 1), axis=1)
            b = np.count_nonzero((S == 1) & (Y == 0), axis=1)
            P = np.count_nonzero(Y == 1, axis=1)
            return np.asarray(self._measure.loss_counts(a, b, P, self._m - P), dtype=float)
        if self._measure is not None:
            return super().batch_loss(T, Y)
        return self._loss_rows(self.batch_pred(T), np.asarray(Y))

    @property
    def _fbeta(self) -> bool:
        return self.loss_name in ("f1", "fbeta")

    def _compiled_spec(self, labels) -> EngineSpec | None:
        if self._fbeta:
            return EngineSpec.fbeta(labels, self._scale, 2.0 / np.sqrt(self._m), self._measure.beta ** 2)
        if self._measure is not None or self.loss_name == "errorset":
            return None
        return EngineSpec.multilabel(labels, self.loss_name == "subset", self._scale, self._normalize)

    def _round(self, t, y, use_oracle):
        if self._measure is not None or self.loss_name == "errorset":
            return super()._round(t, y, use_oracle)
        t = np.asarray(t, dtype=float)
        y = np.asarray(y)
        sigma = (t >= 0).astype(np.int64)
        loss = float(self._loss_rows(sigma[None, :], y[None, :])[0])
        if loss == 0:
            return 0.0, None
        chosen = self._oracle(t, y) if use_oracle else sigma
        # rep(chosen) - rep(y) = 2 (chosen - y) / sqrt(m), entry by entry exactly
        return loss, (2.0 * chosen - 1.0) * self._scale - (2.0 * y - 1.0) * self._scale

    def _gains(self, t, y) -> np.ndarray:
        """``a_j``: how much ``<rep(y) - rep(sigma), t>`` grows when label ``j`` is wrong."""
        return 2.0 * (2.0 * np.asarray(y) - 1.0) * np.asarray(t, dtype=float) * self._scale

    def _flip(self, y, errors: np.ndarray) -> np.ndarray:
        sigma = np.array(y, dtype=np.int64)
        sigma[errors] = 1 - sigma[errors]
        return sigma

    # ------------------------------------------------------------------ oracle
    def _oracle(self, t, y) -> np.ndarray:
        if self._measure is not None:
            return self._measure.oracle(t, y)
        a = self._gains(t, y)
        y = np.asarray(y)
        if self.loss_name == "hamming":
            unit = 1.0 / self._m if self._normalize else 1.0
            return self._flip(y, unit - a > 0)
        if self.loss_name == "subset":
            errors = a < 0
            if not errors.any():
                errors[int(np.argmin(a))] = True
            value = 1.0 - a[errors].sum()
            return self._flip(y, errors) if value > 0 else y.astype(np.int64)
        return self._flip(y, _errorset_choice(a, y == 1))

    # ------------------------------------------------------------------ margin
    def _margin(self, t, y) -> float:
        if self.loss_name in ("errorset", "precision@k", "recall@k"):
            y = np.asarray(y)
            if self.loss_name == "errorset" and (y.all() or not y.any()):
                return np.inf
            if self._m > MAX_ENUMERATED_LABELS:
                raise ValueError(
                    f"the {self.loss_name} margin is computed by enumeration, for n_labels <= "
                    f"{MAX_ENUMERATED_LABELS}; got n_labels={self._m}"
                )
            return super()._margin(t, y)
        a = self._gains(t, y)
        negative = a[a < 0]
        return float(negative.sum()) if negative.size else float(a.min())

    # ------------------------------------------------------------- enumeration
    def _predictions(self, y=None):
        if self._measure is not None:
            return self._measure.predictions()
        return self.labels()

    def labels(self):
        return (np.array(bits, dtype=np.int64)
                for bits in itertools.product((1, 0), repeat=self._m))

    def _n_predictions(self, y=None) -> int:
        return 2 ** self._m

    def n_labels_space(self) -> int:
        return 2 ** self._m

    def random_label(self, rng):
        _check_rng(rng)
        return rng.integers(0, 2, self._m).astype(np.int64)

    def pred_default(self):
        if self._measure is not None:
            return self._measure.default_prediction()
        return np.ones(self._m, dtype=np.int64)

    def _score_shape(self, y=None) -> tuple[int, ...]:
        return (self._m,)

    @property
    def c_L(self) -> float:
        if self._measure is not None:
            values = self._measure.loss_values()
            return float(values[values > 1e-12].min())
        if self.loss_name == "hamming" and self._normalize:
            return 1.0 / self._m
        return 1.0

    @property
    def C_L(self) -> float:
        if self._measure is not None:
            return float(self._measure.loss_values().max())
        if self.loss_name == "hamming":
            return 1.0 if self._normalize else float(self._m)
        if self.loss_name == "subset":
            return 1.0
        half = self._m // 2
        return float(half * (self._m - half))


def _errorset_choice(a: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """Error set maximising ``p * n - sum_{E} a`` with ``p`` relevant, ``n`` irrelevant labels.

    For a fixed ``p`` the best labels to get wrong are the ``p`` relevant labels with the
    smallest ``a`` (and likewise for ``n``), and the value is concave in ``n`` with
    increments ``p - a_(n)``, so the best ``n`` is the number of sorted irrelevant gains
    below ``p``.  Sorting dominates: ``O(m log m)``.
    """
    pos_idx = np.flatnonzero(relevant)
    neg_idx = np.flatnonzero(~relevant)
    pos_order = pos_idx[np.argsort(a[pos_idx], kind="stable")]
    neg_order = neg_idx[np.argsort(a[neg_idx], kind="stable")]
    pos_sorted, neg_sorted = a[pos_order], a[neg_order]
    pos_prefix = np.concatenate([[0.0], np.cumsum(pos_sorted)])
    neg_prefix = np.concatenate([[0.0], np.cumsum(neg_sorted)])
    p = np.arange(len(pos_idx) + 1)
    n = np.searchsorted(neg_sorted, p, side="left")
    values = p * n - pos_prefix[p] - neg_prefix[n]
    best = int(np.argmax(values))
    errors = np.zeros(len(a), dtype=bool)
    if values[best] > 0:
        errors[pos_order[:best]] = True
        errors[neg_order[: n[best]]] = True
    return errors
