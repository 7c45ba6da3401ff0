"""Ranking losses of UML Section 17.4 and their convex surrogates for linear rankers.

An instance is a list of ``r`` items (the rows of ``X``); a linear ranker scores them by
``s = X w`` and ranks them by decreasing score.  Labels are real relevance vectors
``y`` of length ``r``.  Positions follow the package's convention: ``sigma[i]`` is the
0-based position of item ``i`` (0 = top); the textbook's ``pi(y)_i`` (``r`` = top)
is ``r - sigma[i]``.

* Kendall tau: the fraction of the ``r (r - 1) / 2`` pairs whose order differs,
  ``(2 / (r (r - 1))) sum_{i<j} 1[sign(y'_i - y'_j) != sign(y_i - y_j)]``; its convex
  upper bound for linear rankers is the pairwise hinge
  ``(2 / (r (r - 1))) sum_{i<j} max(0, 1 - sign(y_i - y_j) (s_i - s_j))``.
* NDCG with the textbook's top-``k`` discount: ``D`` is ``1 / log2(p + 2)`` at positions
  ``p < k`` and 0 below (the textbook's ``1 / log2(r - i + 2)`` for ``i > r - k``),
  ``G(sigma, y) = sum_i D(sigma[i]) y_i`` and the loss is ``1 - G(sigma, y) / G(sigma_y,
  y)`` for nonnegative ``y``.  Its hinge surrogate is an assignment problem (see
  :func:`ndcg_hinge`), solved by the subset-ranking oracle of
  :mod:`predtron.problems.ranking`.

Ties in ``y'`` (both ``sign`` values 0) follow the textbook's formula literally: a pair
tied in both vectors costs nothing, a pair tied in one only costs 1.
"""

from __future__ import annotations

import itertools

import numpy as np

from predtron._validation import MAX_DENSE_ENTRIES, as_finite_array, check_int, excerpt
from predtron.problems.ranking import RankingLoss, sort_positions
from predtron.problems.ranking_measures import _check_ranking
from predtron.problems.subset_ranking import SubsetRanking


def _check_pair(scores, y, name: str = "scores") -> tuple[np.ndarray, np.ndarray]:
    s = as_finite_array(scores, name)
    y = as_finite_array(y, "y")
    if s.ndim != 1 or y.ndim != 1 or s.shape != y.shape:
        raise ValueError(f"{name} and y must be 1-D of one length; got shapes {s.shape} and {y.shape}")
    if s.size < 2:
        raise ValueError(f"a ranking needs at least 2 items; got {s.size}")
    return s, y


def _pair_signs(v: np.ndarray) -> np.ndarray:
    """``sign(v_i - v_j)`` for ``i < j`` (upper triangle, flattened)."""
    i, j = np.triu_indices(v.size, k=1)
    return np.sign(v[i] - v[j])


def kendall_tau_loss(y_pred, y) -> float:
    """Kendall tau loss between two score vectors (UML Section 17.4), in ``[0, 1]``."""
    y_pred, y = _check_pair(y_pred, y, "y_pred")
    return float(np.mean(_pair_signs(y_pred) != _pair_signs(y)))


def kendall_tau_hinge(scores, y) -> float:
    """The pairwise hinge ``(2 / (r (r-1))) sum_{i<j} max(0, 1 - sign(y_i - y_j)(s_i - s_j))``.

    An upper bound of :func:`kendall_tau_loss` ``(scores, y)``, convex in ``scores``
    and hence in ``w`` for ``scores = X w``.
    """
    s, y = _check_pair(scores, y)
    return float(np.mean(np.maximum(0.0, 1.0 - _pair_signs(y) * _pair_diffs(s))))


def _pair_diffs(v: np.ndarray) -> np.ndarray:
    i, j = np.triu_indices(v.size, k=1)
    return v[i] - v[j]


def kendall_tau_hinge_gradient(scores, y) -> np.ndarray:
    """A subgradient of :func:`kendall_tau_hinge` in ``scores`` (``X^T`` of it is one in ``w``)."""
    s, y = _check_pair(scores, y)
    i, j = np.triu_indices(s.size, k=1)
    sign = _pair_signs(y)
    active = 1.0 - sign * _pair_diffs(s) > 0
    grad = np.zeros(s.size)
    np.add.at(grad, i[active], -sign[active])
    np.add.at(grad, j[active], sign[active])
    return grad / i.size


def topk_discount(r: int, k: int) -> np.ndarray:
    """``D`` by 0-based position: ``1 / log2(p + 2)`` for ``p < k``, else 0 (length ``r``)."""
    r = check_int(r, "r", minimum=1, maximum=MAX_DENSE_ENTRIES)
    return RankingLoss("ndcg", k=check_int(k, "k", minimum=1), gain="linear")._position_weights(r)


def _check_relevance(y) -> np.ndarray:
    y = as_finite_array(y, "y")
    if y.ndim != 1 or y.size < 2:
        raise ValueError(f"y must be a 1-D relevance vector with at least 2 items; got shape {y.shape}")
    if np.any(y < 0):
        raise ValueError(f"y must be nonnegative relevance for NDCG; got {excerpt(y)}")
    return y


def check_permutation(sigma, r: int) -> np.ndarray:
    """Validate a permutation of ``0..r-1`` given as positions (integral floats accepted)."""
    r = check_int(r, "r", minimum=1, maximum=MAX_DENSE_ENTRIES)
    return _check_ranking(sigma, r, f"sigma (r={r} positions)")


def ndcg_topk_loss(sigma, y, k: int) -> float:
    """``1 - G(sigma, y) / G(sigma_y, y)`` with the top-``k`` discount and linear gain ``y_i``.

    ``sigma`` is a permutation (``sigma[i]`` = position of item ``i``; use
    :func:`predtron.problems.ranking.sort_positions` to rank a score vector).  When the
    ideal gain is 0 (every relevance is 0) every ranking is perfect: the loss is 0.
    This is the ranking problems' NDCG@k with ``gain="linear"``
    (:class:`predtron.problems.ranking.RankingLoss`), extended to real relevance.
    """
    y = _check_relevance(y)
    sigma = _check_ranking(sigma, y.size, "sigma (one position per item of y)")
    return RankingLoss("ndcg", k=check_int(k, "k", minimum=1), gain="linear")._value(sigma, y)


def _ndcg_problem(k: int) -> SubsetRanking:
    """The subset-ranking problem whose surrogate is the textbook's NDCG hinge (up to ``Z``)."""
    return SubsetRanking(f="linear", loss="ndcg", k=check_int(k, "k", minimum=1), gain="linear")


def ndcg_hinge_argmax(scores, y, k: int) -> np.ndarray:
    """The ranking ``sigma~`` attaining :func:`ndcg_hinge` (an assignment problem).

    Reuses the subset-ranking oracle (Lemma 3 of the paper): with ``f(i) = -i`` the
    representation is ``rep(sigma) = -(sigma + 1) / Z``, so the Predtron surrogate at
    ``t = Z s`` is ``max_sigma [Delta(sigma, y) + sum_i (sigma_y[i] - sigma[i]) s_i]``,
    the textbook's hinge in our position convention.  The assignment's costs are the
    textbook's ``A[i, j] = j alpha_i + D(j) beta_i``.
    """
    s, y = _check_pair(scores, y)
    _check_relevance(y)
    problem = _ndcg_problem(k)
    # real-valued relevance is valid here (linear gain), so the unchecked oracle is used on checked inputs
    return problem._oracle(_norm(s.size) * s, y)


def _norm(r: int) -> float:
    return float(np.sqrt(np.sum(np.arange(1.0, r + 1) ** 2)))


def ndcg_hinge(scores, y, k: int) -> float:
    """``max_sigma [Delta(sigma, y) + sum_i (sigma_y[i] - sigma[i]) s_i]``, the NDCG hinge (Section 17.4.1).

    ``sigma_y`` sorts ``y`` decreasingly (ties to the smaller index).  It is convex in
    ``s`` and at least the NDCG@k loss of the ranking that sorts ``s``.
    """
    s, y = _check_pair(scores, y)
    tilde = ndcg_hinge_argmax(s, y, k)
    sigma_y = sort_positions(y)
    return float(ndcg_topk_loss(tilde, y, k) + (sigma_y - tilde) @ s)


def ndcg_hinge_gradient(scores, y, k: int) -> np.ndarray:
    """A subgradient of :func:`ndcg_hinge` in ``s``: ``sigma_y - sigma~`` (``X^T`` of it in ``w``)."""
    s, y = _check_pair(scores, y)
    return (sort_positions(y) - ndcg_hinge_argmax(s, y, k)).astype(float)


# ----------------------------------------------------- brute-force references (tests and book)
def brute_force_kendall_tau(y_pred, y) -> float:
    """Kendall tau loss by a double loop over item pairs (reference for tests)."""
    y_pred, y = _check_pair(y_pred, y, "y_pred")
    r = len(y)
    discordant = sum(
        np.sign(y_pred[i] - y_pred[j]) != np.sign(y[i] - y[j]) for i in range(r) for j in range(i + 1, r)
    )
    return 2.0 * discordant / (r * (r - 1))


def brute_force_ndcg_hinge(scores, y, k: int) -> tuple[np.ndarray, float]:
    """The NDCG hinge by enumerating all ``r!`` rankings (``r <= 8``; reference for tests).

    Evaluates ``max_sigma [Delta(sigma, y) + sum_i (sigma_y[i] - sigma[i]) s_i]`` with the
    top-``k`` discount written out directly (``1 / log2(p + 2)`` at 0-based positions
    ``p < k``, linear gain) and returns ``(argmax, value)``.
    """
    s, y = _check_pair(scores, y)
    _check_relevance(y)
    k = check_int(k, "k", minimum=1)
    r = len(y)
    if r > 8:
        raise ValueError(f"brute_force_ndcg_hinge enumerates r! rankings, for r <= 8; got r = {r}")
    weight = np.array([1.0 / np.log2(p + 2.0) if p < k else 0.0 for p in range(r)])
    ideal = float(np.sort(y)[::-1] @ weight)
    sigma_y = np.empty(r, dtype=np.int64)
    sigma_y[np.argsort(-y, kind="stable")] = np.arange(r)
    best, best_value = None, -np.inf
    for perm in itertools.permutations(range(r)):
        sigma = np.array(perm)
        loss = 0.0 if ideal == 0 else 1.0 - float(weight[sigma] @ y) / ideal
        value = loss + float((sigma_y - sigma) @ s)
        if value > best_value:
            best, best_value = sigma, value
    return best, best_value
