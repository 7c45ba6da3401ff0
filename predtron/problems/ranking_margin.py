"""Margins of score vectors on relevance labels for the ranking representation (Lemma 4).

``Sigma_y`` is the set of rankings with zero loss.  For NDCG it is the set of rankings
that sort ``y`` decreasingly (any order inside a relevance grade).  Writing the grades'
blocks of positions top to bottom, with the last position of block ``b`` at ``e_b``
(1-based), :func:`lemma4_margin` gives the margin of Section 2.2 in closed form; see
:func:`block_margin` for the derivation, which also covers scores that are not
compatible with ``y``.  Other losses (NDCG@k, precision@k) have zero-loss sets that are
not always of this block form; :meth:`RankingProblem.margin` then uses the exact
computation of :func:`pattern_margin`.
"""

from __future__ import annotations

import math

import numpy as np

from predtron._validation import as_finite_array, as_label_array, check_vector, excerpt
from predtron.problems.base import TIE_TOLERANCE
from predtron.problems.ranking_measures import _assignment_argmax, check_relevance, position_values


def _positions(t, fvals) -> tuple[np.ndarray, np.ndarray]:
    """Scores ``t`` and non-increasing position values ``fvals`` of one length."""
    t = check_vector(t, "t")
    fvals = check_vector(fvals, "fvals", length=t.size, length_name="one per item of t")
    if np.any(np.diff(fvals) > 0):
        raise ValueError(f"fvals must be non-increasing; got {excerpt(fvals)}")
    return t, fvals


def _pattern(allowed, m: int | None = None) -> np.ndarray:
    """A square boolean matrix (0/1 accepted) of allowed item-position pairs."""
    arr = as_finite_array(allowed, "allowed")
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"allowed must be a boolean (or 0/1) matrix; got {excerpt(arr)}")
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.size == 0 or (m is not None and arr.shape[0] != m):
        want = "(m, m)" if m is None else f"({m}, {m}), one row per item of t"
        raise ValueError(f"allowed must be a square {want} matrix; got shape {arr.shape}")
    return arr.astype(bool)


def _range_value(t: np.ndarray, fvals: np.ndarray, allowed: np.ndarray) -> tuple[float, float]:
    """``(max, min)`` of ``sum_i fvals[sigma[i]] t_i`` over the perfect matchings of ``allowed``."""
    profit = np.outer(t, fvals)
    out = []
    for sign in (1.0, -1.0):
        masked = np.where(allowed, sign * profit, -np.inf)
        sigma = _assignment_argmax(masked)
        out.append(float(fvals[sigma] @ t))
    return out[0], out[1]


def best_with_forced_pair(t: np.ndarray, fvals: np.ndarray) -> np.ndarray:
    """``M[i, j] = max {sum_l fvals[sigma[l]] t_l : sigma[i] = j}`` for all ``(i, j)`` in ``O(m^2)``.

    ``fvals`` must be non-increasing.  With item ``i`` pinned at position ``j``, the best
    arrangement of the others pairs the remaining scores, sorted decreasingly, with the
    remaining positions in order; against the fully sorted pairing, the items ranked
    between ``i``'s rank ``r`` and ``j`` shift by one position, which prefix sums give
    in ``O(1)`` per pair.
    """
    return _best_with_forced_pair(*_positions(t, fvals))


def _best_with_forced_pair(t: np.ndarray, fvals: np.ndarray) -> np.ndarray:
    m = len(t)
    order = np.argsort(-t, kind="stable")
    ts = t[order]
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.arange(m)
    same = np.concatenate([[0.0], np.cumsum(fvals * ts)])
    up = np.zeros(m)  # score at sorted rank q paired with the position above it
    up[1:] = fvals[:-1] * ts[1:]
    up = np.concatenate([[0.0], np.cumsum(up)])
    down = np.zeros(m)  # score at sorted rank q paired with the position below it
    down[:-1] = fvals[1:] * ts[:-1]
    down = np.concatenate([[0.0], np.cumsum(down)])
    r = rank[:, None]
    j = np.arange(m)[None, :]
    total = same[m]
    rest_above = same[r] + (up[j + 1] - up[r + 1]) + (total - same[j + 1])  # r <= j
    rest_below = same[j] + (down[r] - down[j]) + (total - same[np.minimum(r + 1, m)])  # r > j
    rest = np.where(r <= j, rest_above, rest_below)
    return rest + np.outer(t, fvals)


def pattern_margin(t, allowed: np.ndarray, fvals: np.ndarray) -> float:
    """Margin (Section 2.2) of ``t`` when ``Sigma_y`` = perfect matchings of ``allowed``.

    ``fvals = (f(1), ..., f(m)) / Z``.  With ``V(sigma) = <rep(sigma), t>``:
    ``gap = min_{Sigma_y} V - max_{sigma not in Sigma_y} V``; the margin is ``gap`` when
    ``V`` is constant on ``Sigma_y`` (``t`` compatible with ``y``) and ``min(gap, 0)``
    otherwise, the convention of :meth:`predtron.problems.base.Problem.margin`.  A
    ranking is outside ``Sigma_y`` iff it puts some item ``i`` at a forbidden position
    ``j``, so the second term is the largest :func:`best_with_forced_pair` entry over
    forbidden pairs (``O(m^2)``); the range of ``V`` on ``Sigma_y`` comes from two
    assignments restricted to allowed pairs (``O(m^3)``).  ``inf`` if every ranking has
    zero loss.
    """
    t, fvals = _positions(t, fvals)
    allowed = _pattern(allowed, t.size)
    if not _has_perfect_matching(allowed):
        raise ValueError("allowed admits no ranking: no assignment puts every item at an allowed position")
    return _pattern_margin(t, allowed, fvals)


def _has_perfect_matching(allowed: np.ndarray) -> bool:
    """Whether some permutation puts every item ``i`` at a position ``j`` with ``allowed[i, j]``."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    match = maximum_bipartite_matching(csr_matrix(allowed.astype(np.int8)), perm_type="column")
    return bool(np.all(match >= 0))


def _pattern_margin(t: np.ndarray, allowed: np.ndarray, fvals: np.ndarray) -> float:
    if allowed.all():
        return math.inf
    bad = float(_best_with_forced_pair(t, fvals)[~allowed].max())
    high, low = _range_value(t, fvals, allowed)
    return _finish_margin(low - bad, high - low, t)


def _finish_margin(gap: float, spread: float, t: np.ndarray) -> float:
    tol = TIE_TOLERANCE * (1.0 + float(np.max(np.abs(t), initial=0.0)))
    return float(gap) if spread <= tol else float(min(gap, 0.0))


def block_structure(allowed: np.ndarray) -> list[np.ndarray] | None:
    """Item blocks, top to bottom, if ``Sigma_y`` is "block ``c`` fills its run of positions".

    Returns the list of item index arrays when the columns of ``allowed`` form runs of
    identical columns whose item sets are disjoint and as large as their runs (the form
    of the set of rankings that sort ``y``); otherwise ``None``.
    """
    return _block_structure(_pattern(allowed))


def _block_structure(allowed: np.ndarray) -> list[np.ndarray] | None:
    m = allowed.shape[0]
    blocks, seen, start = [], np.zeros(m, dtype=bool), 0
    while start < m:
        stop = start + 1
        while stop < m and np.array_equal(allowed[:, stop], allowed[:, start]):
            stop += 1
        items = np.flatnonzero(allowed[:, start])
        if len(items) != stop - start or seen[items].any():
            return None
        seen[items] = True
        blocks.append(items)
        start = stop
    return blocks


def block_margin(t, blocks: list[np.ndarray], fvals: np.ndarray) -> float:
    """Closed-form margin (Lemma 4) when ``Sigma_y`` is block-structured.

    ``blocks`` lists the item sets top to bottom (block ``c`` fills positions
    ``e_{c-1}+1 .. e_c``, 1-based) and ``fvals = (f(1), ..., f(m)) / Z``.

    Derivation.  By summation by parts, ``V(sigma) = <rep(sigma), t> = sum_{p<m}
    Delta_p S_p(sigma) + f(m) S_m / Z`` with ``Delta_p = (f(p) - f(p+1)) / Z > 0`` and
    ``S_p`` the sum of the scores of the top ``p`` items.  A ranking is outside
    ``Sigma_y`` iff for some boundary ``b`` its top ``e_b`` items are not
    ``U_b = blocks[0] u ... u blocks[b-1]``.  Among such rankings, the best one exchanges
    the lowest-scored item of ``U_b`` with the highest-scored item outside it, which
    lowers ``S_{e_b}`` by ``d_b = min_{U_b} t - max_{not U_b} t`` and leaves every other
    ``S_p`` at its maximum; if ``d_b <= 0`` the unconstrained maximum ``V*`` is already
    reached outside ``Sigma_y``.  Hence

        max_{sigma not in Sigma_y} V = V* - min_b Delta_{e_b} max(d_b, 0),

    while ``V`` on ``Sigma_y`` ranges between sorting each block's scores against its
    positions decreasingly and increasingly.  When ``t`` is constant on each block
    (compatible) with strictly decreasing block scores ``T_1 > T_2 > ...``, the margin
    is ``min_b (T_b - T_{b+1}) (f(e_b) - f(e_b + 1)) / Z``: Lemma 4's condition
    ``t_{i_j - 1} - t_{i_j} >= gamma Z / (f(i_j - 1) - f(i_j))``.  ``O(m log m)``.
    """
    t, fvals = _positions(t, fvals)
    if not isinstance(blocks, (list, tuple)):
        raise ValueError(f"blocks must be a list of arrays of item indices; got {excerpt(blocks)}")
    checked = []
    for c, items in enumerate(blocks):
        arr = as_label_array(items, f"blocks[{c}]", booleans=False)
        if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu":
            raise ValueError(f"blocks[{c}] must be a non-empty 1-D array of item indices; got {excerpt(arr)}")
        checked.append(arr.astype(np.int64))
    flat = np.concatenate(checked) if checked else np.zeros(0, dtype=np.int64)
    if not np.array_equal(np.sort(flat), np.arange(t.size)):
        raise ValueError(f"blocks must split the items 0..{t.size - 1} of t into disjoint sets; got {excerpt(flat)}")
    return _block_margin(t, checked, fvals)


def _block_margin(t: np.ndarray, blocks: list[np.ndarray], fvals: np.ndarray) -> float:
    if len(blocks) <= 1:
        return math.inf
    top = float(np.sort(t)[::-1] @ fvals)
    high = low = 0.0
    start = 0
    slack = math.inf
    inside_min = math.inf
    outside = np.ones(len(t), dtype=bool)
    for c, items in enumerate(blocks):
        stop = start + len(items)
        scores = np.sort(t[items])[::-1]
        high += float(scores @ fvals[start:stop])
        low += float(scores[::-1] @ fvals[start:stop])
        outside[items] = False
        inside_min = min(inside_min, float(scores[-1]))
        if c < len(blocks) - 1:
            d = inside_min - float(t[outside].max())
            slack = min(slack, (fvals[stop - 1] - fvals[stop]) * max(d, 0.0))
        start = stop
    return _finish_margin(low - (top - slack), high - low, t)


def lemma4_margin(t, y, f="linear") -> float:
    """Margin of the scores ``t`` on the relevance vector ``y`` for ``rep = f / Z`` (Lemma 4).

    ``Sigma_y`` is the set of rankings that sort ``y`` decreasingly (the zero-loss set of
    NDCG with any strictly increasing gain); see :func:`block_margin` for the closed
    form.  Returns ``inf`` when every ranking sorts ``y`` (all grades equal, or one
    item), a positive value exactly when ``t`` has a positive margin on ``y``, and
    ``<= 0`` otherwise.
    """
    t = check_vector(t, "t")
    y = check_relevance(y, "y")
    if y.shape != t.shape:
        raise ValueError(f"t and y must be 1-D arrays of the same length; got shapes {t.shape} and "
                         f"{y.shape}")
    fvals = position_values(f, len(t))
    fvals = fvals / np.linalg.norm(fvals)
    order = np.argsort(-y, kind="stable")
    grades = y[order]
    cuts = np.flatnonzero(np.diff(grades)) + 1
    return _block_margin(t, np.split(order, cuts), fvals)


# ------------------------------------------------------------- the problem
