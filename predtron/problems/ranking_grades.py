"""An exact loss-augmented argmax for ranking that exploits the relevance grades (Lemma 3).

The oracle of Lemma 3 maximises ``sum_i P[i, sigma[i]]`` over rankings ``sigma`` with
profit ``P[i, j] = t_i f_j - w_i b_j``, where ``f`` are the normalised position values
(strictly decreasing), ``b`` the loss's position weights (non-increasing) and
``w = v / I(y)`` the item values over the ideal DCG (see
:mod:`predtron.problems.ranking_measures`).  A dense assignment solver ignores that ``w``
takes only as many values as there are relevance grades.  :func:`grades_argmax` uses that
structure and is exact; the argument is below and in its docstring.

Why the method is exact
-----------------------
Call the items that share a value of ``w`` a *class* (one per relevance grade; for
precision@k the relevant grades form one class), with ``G`` classes of sizes ``n_g``.

1. *Inside a class, items go in decreasing order of score.*  Two items of one class at
   positions ``j < j'`` contribute ``t_a f_j + t_b f_j'`` plus a loss term that does not
   change when they swap; swapping changes the sum by ``(t_b - t_a)(f_j - f_j')``, so
   the higher score at the higher position is never worse.  A ranking is thus fixed by
   its *class sequence* (which class sits at each position), or equivalently by the path
   of counts ``c(p) = (c_1(p), ..., c_G(p))``, the number of items of each class in the
   top ``p`` positions (``sum_g c_g(p) = p``; each step adds one to one class).
2. *The objective is separable and concave in the counts.*  Write ``d_p = f_p - f_{p+1} > 0``
   and ``e_p = b_p - b_{p+1}``, and let ``T_g(c)`` be the sum of the ``c`` largest scores
   of class ``g``.  Summing by parts over the positions (Abel summation),

       sum_i t_i f_{sigma[i]} - w_i b_{sigma[i]}
           = const + sum_{p=1}^{m-1} sum_g [ d_{p-1} T_g(c_g(p)) - e_{p-1} w_g c_g(p) ],

   where the constant does not depend on the ranking.  ``T_g`` has decreasing increments
   (the sorted scores), so each term is a concave function of one count ``c_g(p)``.
3. *This is a concave-profit network flow.*  Give each class a chain of arcs, one per
   layer ``p``; position ``p`` sends one unit into the chain of the class it takes, so the
   flow on the chain arc of class ``g`` after layer ``p`` is ``c_g(p)``, and the chain
   ends in a demand ``n_g``.  Class sequences are exactly the integral flows, and the
   objective is a sum of concave profits of single arc flows (extended linearly between
   integers).  For such separable convex-cost flow problems with integral data an
   integral flow is optimal among all flows if and only if no cycle of the residual
   network improves it by sending one unit around it (the negative-cycle optimality
   condition).  A simple cycle uses each chain arc at most once, so it changes every
   count ``c_g(p)`` by at most one.
4. *Certificate by a band dynamic programme.*  Fix a reference path ``r`` and a width
   ``W >= 1``.  The *band* is the set of count paths with ``|c_g(p) - r_g(p)| <= W``
   for every class and layer; its best member ``x`` is found by a dynamic programme over
   layers whose states are the offsets ``c(p) - r(p)`` (``K`` states per layer).  If
   ``x`` stays strictly inside the band wherever the band is narrower than the trivial
   bounds ``0 <= c_g(p) <= n_g``, every improving cycle of ``x`` would give a path that
   is still in the band and better than ``x``; there is none, so ``x`` is optimal.  The
   same holds for the reference itself (it is the centre of the band) when the band's
   best value does not exceed its value: then ``r`` is optimal.  Otherwise ``x`` is
   strictly better than ``r`` and becomes the next reference; the value increases at
   every pass, so the loop ends.

The reference comes from sorting by ``t - rho w`` for a few ``rho`` (the sort rule of
:func:`~predtron.problems.ranking_measures._sort_rule`) followed by adjacent swaps that
improve the objective (an odd-even transposition sort with the exact pairwise test);
for random scores this lands within one count of an optimum, so one band pass (two
with ``W = 1``) certifies it.  When a pass's best path reaches the band's edge the
width doubles (while the band stays small), which is what scores far from a sort need
(for example scores already ordered by relevance).  The cost of a pass is
``O(m K G)`` with ``K`` the number of offsets in ``{-W..W}^G`` that sum to zero (3, 7,
19, 51 for ``W = 1`` and ``G = 2..5``; about ``3^G``, so many grades make the method
slow), against ``O(m^3)`` for a dense assignment.  If ``max_passes`` passes do not
certify a reference, or the band would have more than :data:`MAX_BAND_STATES` states,
the dense assignment solver is used, so the result is always exact.
Values are floating-point sums: "exact" means up to rounding, as for
:func:`~predtron.problems.ranking_measures.assignment_argmax`.
"""

from __future__ import annotations

import functools
import itertools
from typing import NamedTuple

import numpy as np

from predtron._validation import MAX_DENSE_ENTRIES, check_bool, check_int, check_vector
from predtron.problems.ranking_measures import _assignment_argmax

#: Largest ``G * W`` for which :func:`band_states` counts the states (the count is a
#: polynomial convolution; larger bands are never used by the oracle).
MAX_BAND_PRODUCT = 4096

#: Largest number of band states per layer :func:`grades_argmax` builds tables for;
#: beyond it (many grades) the dense assignment is used.
MAX_BAND_STATES = 4000


class GradesResult(NamedTuple):
    """Result of :func:`grades_argmax` with ``return_info=True``."""

    sigma: np.ndarray  #: the ranking (``sigma[i]`` = 0-based position of item ``i``)
    classes: int  #: number of classes ``G`` (distinct values of ``w``)
    width: int  #: band half-width ``W`` used by the passes
    states: int  #: band states per layer ``K``
    swap_rounds: int  #: rounds of adjacent swaps for the reference
    passes: int  #: band passes run
    method: str  #: ``"sort"`` (one class), ``"band"`` (certified) or ``"assignment"`` (fallback)


# ------------------------------------------------------------------ band tables
def band_states(G: int, W: int) -> int:
    """``K``: the number of offsets ``delta`` in ``{-W..W}^G`` with ``sum(delta) = 0``
    (``G * W`` at most :data:`MAX_BAND_PRODUCT`)."""
    G = check_int(G, "G", minimum=1, maximum=MAX_BAND_PRODUCT)
    W = check_int(W, "W", minimum=0, maximum=MAX_BAND_PRODUCT)
    if G * W > MAX_BAND_PRODUCT:
        raise ValueError(f"G * W must be at most {MAX_BAND_PRODUCT} (bands this wide are never used); got "
                         f"G={G}, W={W}")
    return _band_states(G, W)


@functools.lru_cache(maxsize=64)
def _band_states(G: int, W: int) -> int:
    poly = np.ones(1, dtype=object)
    for _ in range(G):
        poly = np.convolve(poly, np.ones(2 * W + 1, dtype=object))
    return int(poly[G * W])


class _BandTables(NamedTuple):
    offsets: np.ndarray  # D, (K, G): the offsets c(p) - r(p) of the band states, zero first
    pred: np.ndarray  # (G, G, K): pred[s, g, k], see _band_tables
    pick: np.ndarray  # (G, K): column of the gain table for reaching state k by class g
    pred_lists: list  # pred_lists[s][k][g] = pred[s, g, k], for the backtracking in Python
    pick_lists: list  # pick_lists[k][g] = pick[g, k]


@functools.lru_cache(maxsize=32)
def _band_tables(G: int, W: int) -> _BandTables:
    """The band states and their transitions for ``G`` classes and half-width ``W``.

    ``pred[s, g, k]`` is the index of the offset of the state at layer ``p`` from which
    state ``k`` at layer ``p + 1`` is reached by placing an item of class ``g``, when the
    reference places class ``s`` at position ``p`` (offset ``D[k] - e_g + e_s``), or ``K``
    (an always-impossible state) when that offset leaves the band.
    """
    free = np.array(list(itertools.product(range(-W, W + 1), repeat=G - 1)), dtype=np.int64).reshape(-1, G - 1)
    D = np.column_stack([free, -free.sum(1)])
    D = D[np.abs(D[:, -1]) <= W]
    D = D[np.lexsort((*(D[:, g] for g in reversed(range(G))), np.abs(D).sum(1)))]
    K = len(D)
    weights = (2 * W + 1) ** np.arange(G, dtype=np.int64)
    codes = (D + W) @ weights
    by_code = np.argsort(codes)
    sorted_codes = codes[by_code]
    eye = np.eye(G, dtype=np.int64)
    pred = np.full((G, G, K), K, dtype=np.intp)
    for s in range(G):
        for g in range(G):
            prev = D - eye[g] + eye[s]
            inside = (np.abs(prev) <= W).all(1)
            slot = np.searchsorted(sorted_codes, (prev[inside] + W) @ weights)
            pred[s, g, inside] = by_code[slot]
    pick = (np.arange(G)[:, None] * (2 * W + 1) + D.T + W).astype(np.intp)
    for table in (D, pred, pick):
        table.setflags(write=False)
    return _BandTables(D, pred, pick, pred.transpose(0, 2, 1).tolist(), pick.T.tolist())


# ------------------------------------------------------------------ the pieces
def _items_at(seq: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Item at each position for the class sequence ``seq`` (classes in score order)."""
    items = np.empty(len(seq), dtype=np.int64)
    items[np.argsort(seq, kind="stable")] = order
    return items


def _value(items: np.ndarray, t, w, f, b) -> float:
    return float(t[items] @ f - w[items] @ b)


def _adjacent_swaps(items: np.ndarray, t, w, d, e, max_rounds: int) -> tuple[np.ndarray, int]:
    """Swap neighbours while that strictly increases the objective (odd-even rounds).

    Items of one class never swap (their pairwise change is ``(t_a - t_b) d_p >= 0``),
    so the order inside each class is kept.
    """
    m = len(items)
    rows = np.vstack([t[items], w[items], items.astype(float)])
    rounds, moved = 0, True
    while moved and rounds < max_rounds:
        rounds += 1
        moved = False
        for lo in (0, 1):
            up, down = rows[:, lo:m - 1:2], rows[:, lo + 1:m:2]
            if up.shape[1] == 0:
                continue
            gain = (up[0] - down[0]) * d[lo:m - 1:2] - (up[1] - down[1]) * e[lo:m - 1:2]
            swap = gain < 0
            if swap.any():
                moved = True
                new_up = np.where(swap, down, up)
                rows[:, lo + 1:m:2] = np.where(swap, up, down)
                rows[:, lo:m - 1:2] = new_up
    return rows[2].astype(np.int64), rounds


def _band_pass(seq, counts, starts, tsorted, wv, f, b, W):
    """Best class sequence whose counts stay within ``W`` of those of ``seq``.

    Returns ``(best sequence, its value, value of seq, touches)`` where ``touches`` says
    whether the best path reaches the band's edge where the band is narrower than
    ``0 <= c_g <= n_g``.  Values are sums of the profits of the placed items.
    """
    m, G = len(seq), len(counts)
    tables = _band_tables(G, W)
    D, pred, pick = tables.offsets, tables.pred, tables.pick
    K = len(D)
    ref = np.zeros((m + 1, G), dtype=np.int64)
    np.cumsum(np.eye(G, dtype=np.int64)[seq], axis=0, out=ref[1:])
    # gain[p, g, W + j]: profit of placing class g at position p, arriving at count ref + j;
    # -inf when no such item exists, which also keeps every reachable state inside 0..n_g
    arrive = ref[1:, :, None] + np.arange(-W, W + 1)
    ok = (arrive >= 1) & (arrive <= counts[None, :, None])
    item = np.where(ok, starts[None, :, None] + arrive - 1, 0)
    gain = tsorted[item] * f[:, None, None] - (b[:, None] * wv[None, :])[:, :, None]
    gain[~ok] = -np.inf
    gain = gain.reshape(m, G * (2 * W + 1))
    # forward pass: the best value of every band state, layer by layer (states are columns)
    values = np.full((m + 1, K + 1), -np.inf)
    values[0, 0] = 0.0
    maximum = np.maximum.reduce
    seq_list = seq.tolist()
    for p in range(m):
        cand = values[p].take(pred[seq_list[p]])
        cand += gain[p].take(pick)
        maximum(cand, axis=0, out=values[p + 1, :K])
    best = float(values[m, 0])
    # backward pass along the best path: the first class that reaches the state's value
    value_at, gain_at = values.item, gain.item
    out = np.empty(m, dtype=np.int64)
    states = np.zeros(m + 1, dtype=np.int64)
    state = 0
    for p in range(m - 1, -1, -1):
        preds, cols = tables.pred_lists[seq_list[p]][state], tables.pick_lists[state]
        target, chosen = value_at(p + 1, state), 0
        for g in range(G):
            if value_at(p, preds[g]) + gain_at(p, cols[g]) == target:
                chosen = g
                break
        out[p] = chosen
        state = states[p] = preds[chosen]
    offsets = D[states]
    ref_value = float(np.cumsum(gain[np.arange(m), seq * (2 * W + 1) + W])[-1])
    path = ref + offsets
    binding = ((offsets == W) & (path < counts)) | ((offsets == -W) & (path > 0))
    return out, best, ref_value, bool(binding.any())


def _reference(t, w, cls, order, f, b, d, e, max_rounds, iterations=4):
    """A good class sequence to centre the band on (any sequence would keep the result exact).

    Candidates: sorts by ``t - rho w`` for a few slopes ``rho`` taken from the ratios
    ``e_p / d_p`` (the sort is exact when that ratio is constant), then a few sorts with
    the ratio at each item's current position.  In each, the items past the last position
    where ``b`` changes (the tail beyond a cut-off ``k``) are sorted by score, which is
    optimal there.  The best candidate is improved by adjacent swaps.
    """
    m = len(t)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(d > 0, e / d, 0.0)
    changes = np.flatnonzero(e)
    tail = int(changes[-1]) + 1 if len(changes) else 0

    def candidate(key):
        items = _items_at(cls[np.argsort(-key, kind="stable")], order)
        if tail < m - 1:
            rest = items[tail:]
            items[tail:] = rest[np.lexsort((rest, -t[rest]))]
        return items, _value(items, t, w, f, b)

    sorted_ratio = np.sort(ratio)
    n = len(sorted_ratio) - 1
    slopes = sorted({0.0, *(float(sorted_ratio[(q * n) // 10]) for q in (0, 5, 9, 10))})
    best_items, best_value = max((candidate(t - slope * w) for slope in slopes), key=lambda c: c[1])
    at_position = np.append(ratio, ratio[-1])
    items = best_items
    for _ in range(iterations):
        position = np.empty(m, dtype=np.int64)
        position[items] = np.arange(m)
        items, value = candidate(t - at_position[position] * w)
        if value > best_value:
            best_items, best_value = items, value
    items, rounds = _adjacent_swaps(best_items, t, w, d, e, max_rounds)
    return cls[items], rounds


# ------------------------------------------------------------------ the oracle
def grades_argmax(t, w, fvals, b, *, width: int | None = None, max_passes: int = 10,
                  max_states: int = 1000, return_info: bool = False):
    """A ranking maximising ``sum_i t_i fvals[sigma[i]] - w_i b[sigma[i]]``, exactly.

    The loss-augmented argmax of Lemma 3 with the profit of
    :meth:`~predtron.problems.ranking.RankingProblem.oracle`, solved through the classes
    of equal ``w`` (relevance grades) instead of a dense ``m x m`` assignment.  See the
    module notes for the argument: inside a class items go by decreasing score, the
    objective is a separable concave function of the class counts along the ranking
    (summation by parts), so it is a concave-profit network flow, and a band dynamic
    programme around a reference ranking certifies optimality (no improving cycle).

    Parameters
    ----------
    t : array of shape (m,)
        Scores.
    w : array of shape (m,)
        Item values over the ideal DCG, ``v / I(y)`` (``>= 0``; equal values = a class).
    fvals : array of shape (m,)
        Position values ``f(j + 1) / Z``, non-increasing (strictly decreasing for the
        package's ``f``).
    b : array of shape (m,)
        Position weights of the loss (any real values; non-increasing for the package's
        losses).
    width : int, optional
        Band half-width ``W`` of the first pass (default :func:`default_width`: 2 for up
        to four classes, where one pass usually both finds and certifies the optimum,
        else 1).  After a pass whose best path reaches the band's edge (two such passes
        in a row at width 1), the width doubles while the band keeps at most
        ``max_states`` states per layer.
    max_passes : int
        Band passes before falling back to the dense assignment.
    max_states : int
        Largest number of band states per layer the doubling may reach.
    return_info : bool
        Return a :class:`GradesResult` (with the passes and the method used) instead
        of ``sigma``.

    Returns
    -------
    sigma : int array of shape (m,)
        ``sigma[i]`` is the 0-based position of item ``i``.  Ties in ``t`` inside a class
        go to the lower item index; the result is deterministic.
    """
    t = check_vector(t, "t")
    m = len(t)
    w = check_vector(w, "w", length=m, length_name="one per item of t")
    fvals = check_vector(fvals, "fvals", length=m, length_name="one per item of t")
    b = check_vector(b, "b", length=m, length_name="one per item of t")
    if width is not None:
        width = check_int(width, "width", minimum=1, maximum=MAX_BAND_PRODUCT)
    max_passes = check_int(max_passes, "max_passes", minimum=0)
    max_states = check_int(max_states, "max_states", minimum=1)
    return_info = check_bool(return_info, "return_info")
    d = fvals[:-1] - fvals[1:]
    if np.any(d < 0):
        j = int(np.flatnonzero(d < 0)[0])
        raise ValueError(f"fvals must be non-increasing; got fvals[{j}] = {float(fvals[j])!r} < "
                         f"fvals[{j + 1}] = {float(fvals[j + 1])!r}")
    wv, cls = np.unique(w, return_inverse=True)
    G = len(wv)
    order = np.lexsort((-t, cls))  # by class, then decreasing score, then item index
    counts = np.bincount(cls, minlength=G)

    def result(sigma, W=0, K=0, rounds=0, passes=0, method="band"):
        if return_info:
            return GradesResult(sigma, G, W, K, rounds, passes, method)
        return sigma

    if G == 1:
        sigma = np.empty(m, dtype=np.int64)
        sigma[order] = np.arange(m)
        return result(sigma, method="sort")
    W = (2 if G <= 4 else 1) if width is None else width
    K = _states(G, W)
    if K > MAX_BAND_STATES:
        return result(_assignment_argmax(np.outer(t, fvals) - np.outer(w, b)), W, K, method="assignment")
    e = b[:-1] - b[1:]
    seq, rounds = _reference(t, w, cls, order, fvals, b, d, e, max_rounds=m)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    tsorted = t[order]
    scale = float(np.abs(t).sum() * np.abs(fvals).max() + np.abs(w).sum() * np.abs(b).max())
    tol = 8.0 * m * np.finfo(float).eps * scale
    passes, certified, touched = 0, False, False
    while not certified and passes < max_passes:
        passes += 1
        best_seq, best, ref_value, touches = _band_pass(seq, counts, starts, tsorted, wv, fvals, b, W)
        if best <= ref_value + tol:
            certified = True  # the reference is a best member of its band, and it is the band's centre
        else:
            seq = best_seq  # strictly better than the reference
            certified = not touches  # the band's best path is strictly inside the band
            # the optimum may be further away: look wider (at width 1 every move touches the
            # edge, so widen only when a second pass still moves)
            wider = touches and (W > 1 or touched) and _states(G, 2 * W) <= min(max_states, MAX_BAND_STATES)
            touched = touches and not wider
            if wider:
                W *= 2
                K = _states(G, W)
    if not certified:
        sigma = _assignment_argmax(np.outer(t, fvals) - np.outer(w, b))
        return result(sigma, W, K, rounds, passes, method="assignment")
    sigma = np.empty(m, dtype=np.int64)
    sigma[_items_at(seq, order)] = np.arange(m)
    return result(sigma, W, K, rounds, passes)


# ------------------------------------------------------------------ cost model
#: Seconds per call of the dense assignment oracle: ``fixed + cube * m^3`` (building the
#: ``m x m`` profits and ``linear_sum_assignment``; on the profits of Lemma 3 it takes about
#: ``m^3`` steps in practice).
ASSIGNMENT_COST = {"fixed": 5.0e-5, "cube": 1.1e-9}
#: Seconds per call of :func:`grades_argmax`: ``fixed + m * passes * (layer + state * K * G)``
#: with ``passes`` the typical number of band passes for the starting width.
#: Both dictionaries were fitted with ``python benchmarks/ranking_oracle.py --calibrate``
#: on the shared 2-core machine of this project under load; only their ratio matters for
#: :func:`choose_method`, which puts the crossover at about 150 items for two to four
#: grades and 200 for five (measured: 150-200 and 200-300).
GRADES_COST = {"fixed": 1.6e-3, "layer": 1.7e-5, "state": 1.5e-8, "passes_w1": 1.7, "passes_w2": 1.0}


def default_width(G: int) -> int:
    """Band half-width used by :func:`grades_argmax`: 2 for up to four classes (at most 85
    states per layer; one pass usually finds and certifies the optimum), else 1."""
    return 2 if check_int(G, "G", minimum=1, maximum=MAX_DENSE_ENTRIES) <= 4 else 1


def _states(G: int, W: int) -> int | float:
    """:func:`band_states`, or ``inf`` for bands wider than :data:`MAX_BAND_PRODUCT` (never usable)."""
    return _band_states(G, W) if G * W <= MAX_BAND_PRODUCT else MAX_BAND_STATES + 1


def _check_sizes(m, G) -> tuple[int, int]:
    m = check_int(m, "m", minimum=1, maximum=MAX_DENSE_ENTRIES)
    G = check_int(G, "G", minimum=1)
    if G > m:
        raise ValueError(f"G (distinct item values) must be at most m (items); got G={G}, m={m}")
    return m, G


def oracle_costs(m: int, G: int) -> dict[str, float]:
    """Predicted seconds per call of the ``"assignment"`` and ``"grades"`` oracles.

    A deterministic function of the number of items ``m`` and of classes ``G`` (distinct
    item values), from the constants :data:`ASSIGNMENT_COST` and :data:`GRADES_COST`.
    """
    return _oracle_costs(*_check_sizes(m, G))


def _oracle_costs(m: int, G: int) -> dict[str, float]:
    lsa = ASSIGNMENT_COST["fixed"] + ASSIGNMENT_COST["cube"] * m**3
    if G <= 1:
        return {"assignment": lsa, "grades": GRADES_COST["fixed"]}
    W = default_width(G)
    if G * W > MAX_BAND_PRODUCT:  # far more than MAX_BAND_STATES states
        return {"assignment": lsa, "grades": np.inf}
    K = _band_states(G, W)
    if K > MAX_BAND_STATES:
        return {"assignment": lsa, "grades": np.inf}
    passes = GRADES_COST["passes_w2" if W == 2 else "passes_w1"]
    grades = GRADES_COST["fixed"] + m * passes * (GRADES_COST["layer"] + GRADES_COST["state"] * K * G)
    return {"assignment": lsa, "grades": grades}


def choose_method(m: int, G: int) -> str:
    """``"grades"`` or ``"assignment"``: the one :func:`oracle_costs` predicts faster."""
    return _choose_method(*_check_sizes(m, G))


def _choose_method(m: int, G: int) -> str:
    costs = _oracle_costs(m, G)
    return "grades" if costs["grades"] < costs["assignment"] else "assignment"


@functools.lru_cache(maxsize=1)
def smallest_grades_size() -> int:
    """The smallest ``m`` for which :func:`choose_method` can pick ``"grades"`` (two classes are
    the cheapest case), so that smaller queries skip counting their classes."""
    m = 2
    while _choose_method(m, 2) == "assignment" and m < 1_000_000:
        m += 1
    return m
