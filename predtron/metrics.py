"""AUC, multiclass AUC and the mistake-rate bounds of the paired passive-aggressive draft.

Conventions (seed 004, Section 5 and Appendix A):

* ``AUC`` of scores ``s`` is the fraction of (positive, negative) pairs ordered
  correctly, ``s+ > s-``, a tie counting one half; computed by sorting in ``O(n log n)``.
* The mistake rates use the library's decoding (``+1`` when ``s >= threshold``, as
  ``Binary`` decodes ``t = 0``): ``E(M+)`` is the fraction of positives with
  ``s < threshold`` and ``E(M-)`` the fraction of negatives with ``s >= threshold``.
  The draft counts ``s = 0`` as a mistake on both sides; our rates are never larger, so
  the bound below is the draft's or tighter.
* Bound (Appendix A, eq. 1): ``1 - AUC <= E(M+) + E(M-)`` for every threshold, because a
  pair with ``s+ <= s-`` has ``s+ < threshold`` or ``s- >= threshold``.
* Multiclass, with one score column ``w^k`` per class: ``AUC_{w^k}(C^k, C^l)`` is the
  AUC of column ``k`` on class ``k`` (positives) against class ``l`` (negatives);
  ``AUC_allpairs`` is its mean over the ``K(K-1)`` ordered pairs ``k != l``, and
  (eq. 2) ``1 - AUC_allpairs <= 1/K sum_k (E_{C^k}(M_{w^k}) + 1/(K-1) sum_{l != k}
  E_{C^l}(M_{w^k}))``.
"""

from __future__ import annotations

import numpy as np

from predtron._validation import (
    as_finite_array,
    as_label_array,
    check_binary_matrix,
    check_bool,
    check_int,
    check_int_labels,
    check_real,
    excerpt,
)


# ------------------------------------------------------------------ validation
def _check_scores(scores, n: int | None = None, name: str = "scores") -> np.ndarray:
    s = as_finite_array(scores, name)
    if s.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array; got shape {s.shape}")
    if n is not None and s.shape[0] != n:
        raise ValueError(f"{name} must have one entry per label of y ({n}); got {s.shape[0]}")
    return s


def _check_pm1(y) -> np.ndarray:
    y = as_label_array(y, "y", booleans=False)
    if y.ndim != 1 or y.dtype.kind not in "iuf" or not np.all((y == 1) | (y == -1)):
        raise ValueError(f"y must be a 1-D array of -1 and +1 labels; got {excerpt(y)}")
    return y.astype(np.int64)


def _split(y, scores) -> tuple[np.ndarray, np.ndarray]:
    y = _check_pm1(y)
    s = _check_scores(scores, y.size)
    pos, neg = s[y == 1], s[y == -1]
    if pos.size == 0 or neg.size == 0:
        raise ValueError(f"y must hold at least one +1 and one -1 label (AUC compares the two); got {pos.size} "
                         f"positives and {neg.size} negatives")
    return pos, neg


def _check_multiclass(Y, S, n_classes: int | None) -> tuple[np.ndarray, np.ndarray]:
    S = as_finite_array(S, "S")
    if S.ndim != 2 or S.shape[1] < 2:
        raise ValueError(f"S must be a 2-D array (n_samples, n_classes >= 2) of scores; got shape {S.shape}")
    K = S.shape[1] if n_classes is None else check_int(n_classes, "n_classes", minimum=2)
    if S.shape[1] != K:
        raise ValueError(f"S must have one column per class (n_classes={K}); got {S.shape[1]}")
    Y = check_int_labels(Y, "Y", K, "n_classes")
    if Y.shape != (S.shape[0],):
        raise ValueError(f"Y must hold one integer label per row of S ({S.shape[0]}); got {Y.shape[0]}")
    missing = [k for k in range(K) if not np.any(Y == k)]
    if missing:
        raise ValueError(f"Y must hold every class 0..{K - 1} at least once (n_classes={K}); classes "
                         f"{excerpt(missing)} have no sample")
    return Y.astype(np.int64), S


# ------------------------------------------------------------------------ AUC
def pairwise_auc(pos_scores, neg_scores) -> float:
    """AUC of positive scores against negative scores (ties count one half), by sorting.

    Examples
    --------
    >>> pairwise_auc([0.9, 0.5], [0.5, 0.1])
    0.875
    """
    pos = _check_scores(pos_scores, name="pos_scores")
    neg = _check_scores(neg_scores, name="neg_scores")
    if pos.size == 0 or neg.size == 0:
        raise ValueError(f"AUC needs at least one score in pos_scores and in neg_scores; got {pos.size} and "
                         f"{neg.size}")
    neg_sorted = np.sort(neg)
    below = np.searchsorted(neg_sorted, pos, side="left")
    tied = np.searchsorted(neg_sorted, pos, side="right") - below
    return float((below.sum() + 0.5 * tied.sum()) / (pos.size * neg.size))


def auc(y, scores) -> float:
    """AUC of ``scores`` for labels ``y`` in ``{-1, +1}`` (ties count one half), ``O(n log n)``."""
    return pairwise_auc(*_split(y, scores))


def brute_force_auc(y, scores) -> float:
    """AUC by enumerating all (positive, negative) pairs: the reference for :func:`auc`."""
    pos, neg = _split(y, scores)
    total = 0.0
    for p in pos:
        for q in neg:
            total += 1.0 if p > q else 0.5 if p == q else 0.0
    return total / (pos.size * neg.size)


# -------------------------------------------------------------- binary bound
def mistake_rates(y, scores, threshold: float = 0.0) -> tuple[float, float]:
    """``(E(M+), E(M-))``: fraction of positives scored ``< threshold``, of negatives ``>= threshold``."""
    threshold = check_real(threshold, "threshold")
    pos, neg = _split(y, scores)
    return float(np.mean(pos < threshold)), float(np.mean(neg >= threshold))


def auc_bound(y, scores, threshold: float = 0.0) -> float:
    """Right-hand side of ``1 - AUC <= E(M+) + E(M-)`` (draft, Appendix A, eq. 1)."""
    e_pos, e_neg = mistake_rates(y, scores, threshold)
    return e_pos + e_neg


# ------------------------------------------------------------------ multiclass
def pairwise_auc_matrix(Y, S, n_classes: int | None = None) -> np.ndarray:
    """``A[k, l] = AUC_{w^k}(C^k, C^l)``: column ``k`` of ``S`` on class ``k`` against class ``l``.

    The diagonal is ``nan``.  ``Y`` holds labels ``0..K-1``; ``S`` has shape
    ``(n_samples, K)`` (e.g. ``CalibratedPA.decision_function``).
    """
    Y, S = _check_multiclass(Y, S, n_classes)
    K = S.shape[1]
    A = np.full((K, K), np.nan)
    for k in range(K):
        for l in range(K):
            if l != k:
                A[k, l] = pairwise_auc(S[Y == k, k], S[Y == l, k])
    return A


def all_pairs_auc(Y, S, n_classes: int | None = None) -> float:
    """``AUC_allpairs = 1/(K(K-1)) sum_k sum_{l != k} AUC_{w^k}(C^k, C^l)`` (draft, Section 5).

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, -1.0]])
    >>> round(all_pairs_auc([0, 1, 2, 0], S), 4)  # one tie: A[1, 0] = 0.75, the rest 1
    0.9583
    """
    A = pairwise_auc_matrix(Y, S, n_classes)
    return float(np.nanmean(A))


def one_vs_all_auc(Y, S, n_classes: int | None = None, average: bool = True):
    """AUC of column ``k`` on class ``k`` against all other samples, per class or averaged."""
    average = check_bool(average, "average")
    Y, S = _check_multiclass(Y, S, n_classes)
    per_class = np.array([pairwise_auc(S[Y == k, k], S[Y != k, k]) for k in range(S.shape[1])])
    return float(per_class.mean()) if average else per_class


def multilabel_auc(Y, S, average: bool = True):
    """AUC of column ``k`` of ``S`` on the samples with label ``k`` against those without it.

    ``Y`` is a 0/1 array of shape ``(n_samples, n_labels)``; every label needs at least
    one sample with it and one without it.
    """
    average = check_bool(average, "average")
    S = as_finite_array(S, "S")
    if S.ndim != 2 or S.shape[1] == 0:
        raise ValueError(f"S must be a 2-D array (n_samples, n_labels) of scores; got shape {S.shape}")
    shape = np.shape(as_label_array(Y, "Y"))
    if shape != S.shape:
        raise ValueError(f"Y must be a 0/1 array with the shape of S {S.shape}; got shape {shape}")
    Y = check_binary_matrix(Y, "Y", S.shape[1])
    per_label = np.array([auc(np.where(Y[:, k] == 1, 1, -1), S[:, k]) for k in range(S.shape[1])])
    return float(per_label.mean()) if average else per_label


def class_mistake_matrix(Y, S, n_classes: int | None = None, threshold: float = 0.0) -> np.ndarray:
    """``E[k, l] = E_{C^l}(M_{w^k})``: mistake rate of column ``k`` on class ``l``.

    For ``l = k`` a mistake is ``s_k < threshold`` (a positive rejected), for ``l != k``
    it is ``s_k >= threshold`` (a negative accepted).
    """
    threshold = check_real(threshold, "threshold")
    Y, S = _check_multiclass(Y, S, n_classes)
    K = S.shape[1]
    E = np.empty((K, K))
    for k in range(K):
        for l in range(K):
            scores = S[Y == l, k]
            E[k, l] = np.mean(scores < threshold) if l == k else np.mean(scores >= threshold)
    return E


def all_pairs_auc_bound(Y, S, n_classes: int | None = None, threshold: float = 0.0) -> float:
    """Right-hand side of the multiclass bound (draft, Appendix A, eq. 2).

    ``1/K sum_k (E_{C^k}(M_{w^k}) + 1/(K-1) sum_{l != k} E_{C^l}(M_{w^k}))`` with
    :func:`class_mistake_matrix`; it bounds ``1 - all_pairs_auc(Y, S)``.
    """
    E = class_mistake_matrix(Y, S, n_classes, threshold)
    K = E.shape[0]
    own = np.diag(E)
    others = (E.sum(axis=1) - own) / (K - 1)
    return float(np.mean(own + others))
