"""Shared machinery of the ranking problems (Sections 4 and 5 of the paper).

A ranking of ``m`` items is an int array ``sigma`` with ``sigma[i]`` the 0-based position
of item ``i`` (0 = top).  The paper's positions are 1-based, so every formula below
evaluates ``f`` and the discount at ``sigma[i] + 1``.

Representation and decoding (Section 4)
---------------------------------------
``rep(sigma)_i = f(sigma[i] + 1) / Z`` with ``f`` strictly decreasing and
``Z = sqrt(sum_{i=1}^m f(i)^2)``, so ``||rep(sigma)||_2 = 1``.  Then

    <rep(sigma), t> = (1/Z) sum_i f(sigma[i] + 1) t_i,

which, by the rearrangement inequality, is largest when the largest score sits at the
top: ``pred(t)`` sorts ``t`` in decreasing order (ties: lower item index first).

Losses as sums over (item, position) pairs
-----------------------------------------
Every loss here has the form ``L(sigma, y) = 1 - sum_i v_i b_{sigma[i]} / I(y)`` with

* item values ``v_i``: the gain ``G(y_i)`` (``2^{y_i} - 1``, or ``y_i`` with
  ``gain="linear"``) for NDCG, the indicator ``y_i > 0`` for precision;
* position weights ``b_j`` (``j`` 0-based), non-increasing: the discount
  ``D(j + 1) = 1 / log2(j + 2)`` for NDCG, ``D(j + 1) [j < k]`` for NDCG@k and
  ``[j < k]`` for precision@k;
* ``I(y) = sum_j s_j b_j`` with ``s`` the values ``v`` sorted decreasingly (the ideal
  DCG; for precision@k it is ``min(k, r)`` with ``r`` the number of relevant items).

Precision@k is therefore ``1 - (relevant items in the top k) / min(k, r)``: we divide by
``min(k, r)`` rather than by ``k`` so that some ranking has zero loss even when fewer
than ``k`` items are relevant (the framework of Section 2 needs ``Sigma_y`` non-empty).
If ``I(y) = 0`` (all relevance zero, or no relevant item) no ranking is better than
another; we set the loss to 0 for every ranking, so such a query never causes an update.

Loss-augmented argmax (Lemma 3)
-------------------------------
Dropping terms that do not depend on ``sigma``, the oracle maximises
``sum_i P[i, sigma[i]]`` with profit ``P[i, j] = f(j + 1) t_i / Z - v_i b_j / I(y)``, a
linear assignment problem (``scipy.optimize.linear_sum_assignment``, ``O(m^3)``).

When is a sort exact?  If the ``f`` values are an affine function of the position
weights, ``f(j + 1) = alpha b_j + beta`` with ``alpha > 0``, then
``P[i, j] = b_j (alpha t_i / Z - v_i / I(y)) + beta t_i / Z``; the last term sums to a
constant over all rankings, and what is left is a product ``a_i b_j``, which the
rearrangement inequality maximises by giving the largest ``a_i`` the largest ``b_j``:
sort ``a`` decreasingly (``O(m log m)``).  This is the case for ``f = "discount"``
(``f(i) = 1 / log2(1 + i)``) with the full NDCG.  In general the profit is a sum of two
products ``t_i f_j`` and ``v_i b_j`` and no single ordering of the items and of the
positions is optimal, so the assignment is needed.  :meth:`RankingProblem.sort_exact`
tests the affine relation numerically for a given ``m``.

Margin (Lemma 4)
----------------
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

import itertools
import math
from collections.abc import Callable, Iterator

import numpy as np
from scipy.optimize import linear_sum_assignment

from predtron._validation import as_finite_array, check_choice, check_int
from predtron.problems.base import TIE_TOLERANCE, Problem

#: Names of the built-in choices of ``f`` (Section 4): ``-i``, ``1/i``, ``-i^1.1``,
#: ``-i^2`` and the NDCG discount ``1/log2(1 + i)``.
F_CHOICES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "linear": lambda i: -i,
    "inverse": lambda i: 1.0 / i,
    "power1.1": lambda i: -(i**1.1),
    "square": lambda i: -(i**2),
    "discount": lambda i: 1.0 / np.log2(1.0 + i),
}
GAINS = ("exponential", "linear")
LOSSES = ("ndcg", "precision")
ORACLES = ("auto", "assignment", "sort")

#: Largest exponential gain exponent (``2^y - 1`` must stay finite in float64).
MAX_EXPONENTIAL_GRADE = 1000

#: Largest number of sorted labels :meth:`RankingProblem.loss_bounds` enumerates.
MAX_ENUMERATED_LABELS = 20_000


# ---------------------------------------------------------------- elementary maps
def discount(positions) -> np.ndarray:
    """The NDCG discount ``D(i) = 1 / log2(1 + i)`` of 1-based positions ``i`` (Section 4)."""
    return 1.0 / np.log2(1.0 + np.asarray(positions, dtype=float))


def gain(y, kind: str = "exponential") -> np.ndarray:
    """The gain ``G(y) = 2^y - 1`` (``kind="exponential"``, Section 4) or ``G(y) = y``."""
    check_choice(kind, "gain", GAINS)
    y = np.asarray(y, dtype=float)
    return np.expm1(y * np.log(2.0)) if kind == "exponential" else y.copy()


def position_values(f, m: int) -> np.ndarray:
    """``f(1), ..., f(m)``: ``f`` by name (see :data:`F_CHOICES`) or a callable on 1-based positions.

    Raises ``ValueError`` unless the values are finite and strictly decreasing, and
    not all zero (so that ``Z > 0``).
    """
    m = check_int(m, "m", minimum=1)
    if isinstance(f, str):
        func = F_CHOICES.get(f)
        if func is None:
            raise ValueError(f"f must be one of {sorted(F_CHOICES)} or a callable; got {f!r}")
    elif callable(f):
        func = f
    else:
        raise ValueError(f"f must be one of {sorted(F_CHOICES)} or a callable; got {f!r}")
    positions = np.arange(1, m + 1, dtype=float)
    try:
        values = np.asarray(func(positions), dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"f could not be evaluated on the positions 1..{m} ({exc})") from None
    if values.shape != (m,):
        raise ValueError(
            f"f must map the array of positions 1..{m} to an array of shape ({m},); got shape "
            f"{values.shape}"
        )
    if not np.all(np.isfinite(values)):
        raise ValueError(f"f must be finite on the positions 1..{m}; got {values.tolist()}")
    steps = np.diff(values)
    if np.any(steps >= 0):
        j = int(np.flatnonzero(steps >= 0)[0]) + 1
        raise ValueError(
            f"f must be strictly decreasing on the positions 1..{m}; got f({j}) = {values[j - 1]!r} "
            f"and f({j + 1}) = {values[j]!r}"
        )
    if not np.any(values):
        raise ValueError("f(1) must be non-zero for a single position (Z would be 0)")
    return values


def sort_positions(t) -> np.ndarray:
    """Positions that sort ``t`` decreasingly: ``sigma[i]`` = 0-based rank of item ``i``.

    Ties go to the lower item index first (a stable sort), so the result is
    deterministic.
    """
    t = np.asarray(t)
    order = np.argsort(-t, kind="stable")
    sigma = np.empty(len(t), dtype=np.int64)
    sigma[order] = np.arange(len(t))
    return sigma


def assignment_argmax(profit: np.ndarray) -> np.ndarray:
    """A permutation ``sigma`` maximising ``sum_i profit[i, sigma[i]]`` (linear assignment)."""
    rows, cols = linear_sum_assignment(profit, maximize=True)
    sigma = np.empty(profit.shape[0], dtype=np.int64)
    sigma[rows] = cols
    return sigma


def check_relevance(y, name: str = "y", length: int | None = None, y_max: int | None = None) -> np.ndarray:
    """Validate a relevance vector: 1-D, non-empty, integer-valued, ``0 <= y_i (<= y_max)``.

    Returns it as an ``int64`` array; floats such as ``2.0`` are accepted, ``2.5`` and NaN
    are not.
    """
    arr = np.asarray(y)
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be an array of integer relevance grades; got dtype {arr.dtype}")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of relevance grades; got shape {arr.shape}")
    if length is not None and arr.shape != (length,):
        raise ValueError(f"{name} must have {length} relevance grades; got {arr.shape[0]}")
    if arr.dtype.kind == "f":
        if np.isnan(arr).any():
            raise ValueError(f"{name} contains NaN; relevance grades must be integers >= 0")
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            bad = arr[~(np.isfinite(arr) & (arr == np.round(arr)))][0]
            raise ValueError(f"{name} must contain integer relevance grades; got {bad!r}")
    if np.any(arr < 0):
        raise ValueError(f"{name} must contain relevance grades >= 0; got {arr[arr < 0][0]!r}")
    arr = arr.astype(np.int64)
    if y_max is not None and np.any(arr > y_max):
        raise ValueError(f"{name} must contain relevance grades <= y_max = {y_max}; got {arr.max()}")
    if arr.max() > MAX_EXPONENTIAL_GRADE:
        raise ValueError(
            f"{name} has a relevance grade {arr.max()} > {MAX_EXPONENTIAL_GRADE}, whose gain 2^y - 1 "
            "overflows; rescale the grades"
        )
    return arr


# ------------------------------------------------------------------- losses
class RankingLoss:
    """A loss ``L(sigma, y) = 1 - sum_i v_i b_{sigma[i]} / I(y)`` (see the module notes).

    Parameters
    ----------
    name : {"ndcg", "precision"}
        NDCG (Section 4) or precision.
    k : int, optional
        Cut-off: NDCG@k counts positions ``< k`` only; precision@k needs it.  A ``k``
        larger than the number of items acts as ``k = m``.
    gain : {"exponential", "linear"}
        Gain of NDCG (ignored by precision, which only asks whether ``y > 0``).
    """

    def __init__(self, name: str = "ndcg", k: int | None = None, gain: str = "exponential"):
        self.name = check_choice(name, "loss", LOSSES)
        if k is not None:
            k = check_int(k, "k", minimum=1)
        if name == "precision" and k is None:
            raise ValueError("loss='precision' needs a cut-off k (precision@k); got k=None")
        self.k = k
        self.gain = check_choice(gain, "gain", GAINS)

    def item_values(self, y: np.ndarray) -> np.ndarray:
        """``v``: the gains (NDCG) or the relevance indicators (precision)."""
        if self.name == "precision":
            return (np.asarray(y) > 0).astype(float)
        return gain(y, self.gain)

    def position_weights(self, m: int) -> np.ndarray:
        """``b_j`` for 0-based positions ``j``, non-increasing."""
        cut = m if self.k is None else min(self.k, m)
        b = np.zeros(m)
        b[:cut] = 1.0 if self.name == "precision" else discount(np.arange(1, cut + 1))
        return b

    def ideal(self, v: np.ndarray, b: np.ndarray) -> float:
        """``I(y) = sum_j s_j b_j`` (the ideal DCG, or ``min(k, r)`` for precision)."""
        return float((np.sort(v)[::-1] * b).sum())

    def value(self, sigma: np.ndarray, y: np.ndarray) -> float:
        """``L(sigma, y)``; exactly 0 for every member of ``Sigma_y`` and when ``I(y) = 0``.

        The DCG is summed in position order, like the ideal, so that a zero-loss ranking
        gives bitwise the same sum and the loss is exactly 0.
        """
        v = self.item_values(y)
        b = self.position_weights(len(v))
        ideal = self.ideal(v, b)
        if ideal == 0:
            return 0.0
        by_position = np.empty_like(v)
        by_position[sigma] = v
        dcg = float((by_position * b).sum())
        return max(0.0, (ideal - dcg) / ideal)

    def allowed(self, y: np.ndarray) -> np.ndarray:
        """``A[i, j]``: whether item ``i`` sits at position ``j`` in some zero-loss ranking.

        The positions split into runs of equal weight ``b_j`` (single positions where
        ``b`` strictly decreases, the tail beyond ``k``, the top ``k`` for precision).
        A ranking has zero loss iff each run holds the same multiset of values as the
        sorted values ``s`` on that run, so item ``i`` may sit in a run iff ``v_i``
        occurs among the run's values.  Zero-loss rankings are exactly the perfect
        matchings of ``A`` (checked by enumeration in the tests).
        """
        v = self.item_values(y)
        m = len(v)
        b = self.position_weights(m)
        if self.ideal(v, b) == 0:
            return np.ones((m, m), dtype=bool)
        s = np.sort(v)[::-1]
        allowed = np.zeros((m, m), dtype=bool)
        start = 0
        while start < m:
            stop = start + 1
            while stop < m and b[stop] == b[start]:
                stop += 1
            allowed[:, start:stop] = np.isin(v, s[start:stop])[:, None]
            start = stop
        return allowed

    def __repr__(self) -> str:
        return f"RankingLoss(name={self.name!r}, k={self.k!r}, gain={self.gain!r})"


# ------------------------------------------------------------------- margins
def _range_value(t: np.ndarray, fvals: np.ndarray, allowed: np.ndarray) -> tuple[float, float]:
    """``(max, min)`` of ``sum_i fvals[sigma[i]] t_i`` over the perfect matchings of ``allowed``."""
    profit = np.outer(t, fvals)
    out = []
    for sign in (1.0, -1.0):
        masked = np.where(allowed, sign * profit, -np.inf)
        sigma = assignment_argmax(masked)
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
    t = np.asarray(t, dtype=float)
    allowed = np.asarray(allowed, dtype=bool)
    if allowed.all():
        return math.inf
    bad = float(best_with_forced_pair(t, fvals)[~allowed].max())
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
    allowed = np.asarray(allowed, dtype=bool)
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
    t = np.asarray(t, dtype=float)
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
    t = as_finite_array(t, "t")
    y = np.asarray(y)
    if t.ndim != 1 or y.shape != t.shape:
        raise ValueError(f"t and y must be 1-D arrays of the same length; got shapes {t.shape} and "
                         f"{y.shape}")
    fvals = position_values(f, len(t))
    fvals = fvals / np.linalg.norm(fvals)
    order = np.argsort(-y, kind="stable")
    grades = y[order]
    cuts = np.flatnonzero(np.diff(grades)) + 1
    return block_margin(t, np.split(order, cuts), fvals)


# ------------------------------------------------------------- the problem
class RankingProblem(Problem):
    """Shared part of :class:`~predtron.problems.subset_ranking.SubsetRanking` and
    :class:`~predtron.problems.multilabel_ranking.MultilabelRanking` (Sections 4-5).

    Subclasses set ``scoring`` and implement ``check_label``.

    Parameters
    ----------
    f : str or callable
        ``"linear"`` (``-i``), ``"inverse"`` (``1/i``), ``"power1.1"`` (``-i^1.1``),
        ``"square"`` (``-i^2``), ``"discount"`` (``1/log2(1+i)``) or a callable mapping
        an array of 1-based positions to strictly decreasing values.
    loss : {"ndcg", "precision"}
        ``L = 1 - NDCG`` (or NDCG@k with ``k``), or ``1 - precision@k``.
    k : int, optional
        Cut-off for NDCG@k and precision@k.
    gain : {"exponential", "linear"}
        NDCG gain ``2^y - 1`` (Section 4) or ``y`` (for data with many grades).
    oracle : {"auto", "assignment", "sort"}
        How the loss-augmented argmax is computed: ``"assignment"`` (Lemma 3) always,
        ``"sort"`` (exact only when :meth:`sort_exact`; raises otherwise) or ``"auto"``
        (sort when exact, assignment otherwise).
    """

    def __init__(self, f="linear", loss: str = "ndcg", k: int | None = None,
                 gain: str = "exponential", oracle: str = "auto"):
        self.f = f
        self.ranking_loss = RankingLoss(loss, k, gain)
        self.loss_name = loss
        self.k = k
        self.gain = gain
        self.oracle_method = check_choice(oracle, "oracle", ORACLES)
        self._cache: dict[int, tuple[np.ndarray, np.ndarray, float | None]] = {}
        position_values(f, 2)  # fail early on a bad name or a callable that cannot run

    def get_params(self) -> dict:
        return {"f": self.f, "loss": self.loss_name, "k": self.k, "gain": self.gain,
                "oracle": self.oracle_method}

    # ------------------------------------------------------------ per-size data
    def _sizes(self, m: int) -> tuple[np.ndarray, np.ndarray, float | None]:
        """``(f / Z, b, alpha)`` for ``m`` items; ``alpha`` is not ``None`` when a sort is exact."""
        if m not in self._cache:
            fvals = position_values(self.f, m)
            fvals = fvals / np.linalg.norm(fvals)
            b = self.ranking_loss.position_weights(m)
            self._cache[m] = (fvals, b, _sort_rule(fvals, b))
        return self._cache[m]

    def sort_exact(self, m: int) -> bool:
        """Whether the sort oracle is exact for ``m`` items (``f`` affine in the weights ``b``, or
        ``b`` constant so that the loss does not depend on the ranking)."""
        return self._sizes(check_int(m, "m", minimum=1))[2] is not None

    # ------------------------------------------------------------------ basics
    def _check_sigma(self, sigma) -> np.ndarray:
        sigma = np.asarray(sigma)
        if sigma.ndim != 1 or sigma.dtype.kind not in "iu" or not np.array_equal(
                np.sort(sigma), np.arange(len(sigma))):
            raise ValueError(
                "a ranking must be an int array sigma with sigma[i] the 0-based position of item i "
                f"(a permutation of 0..m-1); got {sigma.tolist()!r}"
            )
        return sigma

    def rep(self, sigma) -> np.ndarray:
        """``rep(sigma)_i = f(sigma[i] + 1) / Z`` (Section 4)."""
        sigma = self._check_sigma(sigma)
        return self._sizes(len(sigma))[0][sigma]

    def pred(self, t) -> np.ndarray:
        """Sort ``t`` decreasingly, ties to the lower item index (maximises ``<rep(sigma), t>``)."""
        return sort_positions(np.asarray(t, dtype=float))

    def correct(self, y) -> np.ndarray:
        """``sigma_y``: the stable sort of ``y`` decreasingly (a zero-loss ranking)."""
        return sort_positions(np.asarray(y))

    def loss(self, sigma, y) -> float:
        sigma = self._check_sigma(sigma)
        y = np.asarray(y)
        if len(sigma) != len(y):
            raise ValueError(f"the ranking has {len(sigma)} items but y has {len(y)}")
        return self.ranking_loss.value(sigma, y)

    def same(self, a, b) -> bool:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))

    def _check_t(self, t, y) -> np.ndarray:
        t = as_finite_array(t, "t")
        if t.shape != (len(y),):
            raise ValueError(f"t must have one score per item, shape ({len(y)},); got {t.shape}")
        return t

    # ------------------------------------------------------------------ oracle
    def oracle(self, t, y) -> np.ndarray:
        """Loss-augmented argmax by assignment (Lemma 3), or by a sort where that is exact."""
        y = np.asarray(y)
        t = self._check_t(t, y)
        m = len(y)
        fvals, b, alpha = self._sizes(m)
        v = self.ranking_loss.item_values(y)
        ideal = self.ranking_loss.ideal(v, b)
        if ideal == 0:
            return sort_positions(t)
        if self.oracle_method == "sort" and alpha is None:
            raise ValueError(
                f"oracle='sort' is exact only when f is an affine function of the loss's position "
                f"weights; not for f={self.f!r}, loss={self.loss_name!r}, k={self.k!r}, m={m}"
            )
        if alpha is not None and self.oracle_method != "assignment":
            return sort_positions(t if alpha == 0 else alpha * t - v / ideal)
        return assignment_argmax(np.outer(t, fvals) - np.outer(v / ideal, b))

    # ------------------------------------------------------------------ margin
    def zero_loss_pattern(self, y) -> np.ndarray:
        """``A[i, j]``: item ``i`` may sit at position ``j`` in a zero-loss ranking."""
        return self.ranking_loss.allowed(np.asarray(y))

    def margin(self, t, y) -> float:
        """Exact margin of ``t`` on ``y`` (Section 2.2) without enumerating rankings.

        Uses the closed form of Lemma 4 (:func:`block_margin`) when ``Sigma_y`` is
        block-structured (always for NDCG) and :func:`pattern_margin` otherwise
        (NDCG@k or precision@k when a relevance grade straddles the cut-off; the margin
        is then never positive).
        """
        y = np.asarray(y)
        t = self._check_t(t, y)
        fvals = self._sizes(len(y))[0]
        allowed = self.zero_loss_pattern(y)
        blocks = block_structure(allowed)
        if blocks is not None:
            return block_margin(t, blocks, fvals)
        return pattern_margin(t, allowed, fvals)

    def separating_scores(self, y, margin: float, jitter: float = 0.0,
                          rng: np.random.Generator | None = None) -> np.ndarray:
        """Scores with margin at least ``margin`` on ``y``, constant on each grade block.

        Block scores decrease by ``margin Z / (f(e_b) - f(e_b + 1))`` at each boundary
        (Lemma 4), times ``1 + jitter * u_b`` with ``u_b`` uniform on [0, 1) (and a
        relative ``1e-9`` guard against rounding); the scores are centred.  Raises
        ``ValueError`` when ``Sigma_y`` is not block-structured (no score vector has a
        positive margin on such a ``y``).
        """
        y = np.asarray(y)
        m = len(y)
        fvals = self._sizes(m)[0]
        blocks = block_structure(self.zero_loss_pattern(y))
        if blocks is None:
            raise ValueError(
                f"no scores have a positive margin on y={y.tolist()} with loss={self.loss_name!r}, "
                f"k={self.k!r}: its zero-loss rankings are not 'sort each grade into its block'"
            )
        rng = rng if rng is not None else np.random.default_rng(0)
        t = np.zeros(m)
        level, stop = 0.0, m
        for c in range(len(blocks) - 1, -1, -1):
            t[blocks[c]] = level
            stop -= len(blocks[c])
            if c > 0:
                step = margin / (fvals[stop - 1] - fvals[stop])
                level += step * (1.0 + 1e-9 + jitter * float(rng.random()))
        return t - t.mean()

    # ------------------------------------------------------------ loss extremes
    def label_loss_range(self, y) -> tuple[float, float]:
        """``(smallest non-zero loss, largest loss)`` over all rankings for one label.

        The DCG ``sum_i v_i b_{sigma[i]}`` is a rearrangement sum, so its largest value
        outside ``Sigma_y`` is :func:`best_with_forced_pair` (with the item values as
        scores and ``b`` as position values) over forbidden pairs, and its smallest is
        the reversed pairing.  The first entry is ``inf`` when every ranking has zero loss.
        """
        y = np.asarray(y)
        v = self.ranking_loss.item_values(y)
        b = self.ranking_loss.position_weights(len(v))
        ideal = self.ranking_loss.ideal(v, b)
        allowed = self.ranking_loss.allowed(y)
        if ideal == 0 or allowed.all():
            return math.inf, 0.0
        best_bad = float(best_with_forced_pair(v, b)[~allowed].max())
        worst = float(np.sort(v) @ b)
        return (ideal - best_bad) / ideal, (ideal - worst) / ideal

    def loss_bounds_for(self, Y) -> tuple[float, float]:
        """``(c_L, C_L)`` over the labels in ``Y`` (what Theorem 1 needs for a data set).

        Raises ``ValueError`` if no label in ``Y`` has a non-zero loss.
        """
        ranges = [self.label_loss_range(self.check_label(y)) for y in Y]
        c_L = min(r[0] for r in ranges)
        if not math.isfinite(c_L):
            raise ValueError("no label in Y has a ranking with non-zero loss; c_L is undefined")
        return c_L, max(r[1] for r in ranges)

    def loss_bounds(self, m: int, y_max: int) -> tuple[float, float]:
        """``(c_L, C_L)`` over every label in ``{0..y_max}^m`` (Section 2.1).

        Loss values are invariant under relabelling the items, so only the
        non-increasing labels are visited, ``C(m + y_max, m)`` of them; raises
        ``ValueError`` when that exceeds :data:`MAX_ENUMERATED_LABELS`.
        """
        m = check_int(m, "m", minimum=1)
        y_max = check_int(y_max, "y_max", minimum=0)
        count = math.comb(m + y_max, m)
        if count > MAX_ENUMERATED_LABELS:
            raise ValueError(
                f"loss_bounds enumerates C(m + y_max, m) = {count} sorted labels, more than "
                f"{MAX_ENUMERATED_LABELS}; use loss_bounds_for(Y) on the labels of your data"
            )
        labels = (np.array(c[::-1]) for c in itertools.combinations_with_replacement(range(y_max + 1), m))
        ranges = [self.label_loss_range(y) for y in labels]
        c_L = min(r[0] for r in ranges)
        if not math.isfinite(c_L):
            raise ValueError(f"every ranking has zero loss for m={m}, y_max={y_max}; c_L is undefined")
        return c_L, max(r[1] for r in ranges)

    # ------------------------------------------------------------- enumeration
    def predictions(self, y=None) -> Iterator[np.ndarray]:
        """All ``m!`` rankings of ``len(y)`` items (testing only)."""
        if y is None:
            raise ValueError(f"{type(self).__name__}.predictions needs a label y to know the number of items")
        return (np.array(p, dtype=np.int64) for p in itertools.permutations(range(len(y))))


def _sort_rule(fvals: np.ndarray, b: np.ndarray) -> float | None:
    """The slope ``alpha`` when the oracle's profit has product form, else ``None``.

    ``0.0`` means the position weights are constant (the loss does not depend on the
    ranking), so sorting the scores is exact; a positive ``alpha`` means
    ``fvals = alpha b + beta`` and sorting ``alpha t - v / I(y)`` is exact.
    """
    m = len(fvals)
    if m == 1 or np.ptp(b) == 0:
        return 0.0
    design = np.column_stack([b, np.ones(m)])
    (alpha, beta), *_ = np.linalg.lstsq(design, fvals, rcond=None)
    residual = np.abs(design @ np.array([alpha, beta]) - fvals).max()
    if alpha > 0 and residual <= 1e-12 * (1.0 + np.abs(fvals).max()):
        return float(alpha)
    return None
