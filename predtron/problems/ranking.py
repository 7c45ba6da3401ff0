"""The ranking problem shared by subset ranking and multilabel ranking (Sections 4 and 5).

The primitives (representations, losses, the assignment oracle) live in
:mod:`predtron.problems.ranking_measures`, the exact oracle by relevance grades in
:mod:`predtron.problems.ranking_grades` and the margins in
:mod:`predtron.problems.ranking_margin`; they are re-exported here.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import ClassVar

import numpy as np

from predtron._ragged import Ragged
from predtron._validation import (
    MAX_ABS_INPUT,
    MAX_DENSE_ENTRIES,
    as_finite_array,
    as_label_array,
    check_choice,
    check_each,
    check_generator,
    check_int,
    check_positive,
    excerpt,
)
from predtron.engine import grade_dp_argmax, grade_dp_is_cheap
from predtron.problems import ranking_batch
from predtron.problems.base import Problem
from predtron.problems.ranking_grades import choose_method, grades_argmax, smallest_grades_size
from predtron.problems.ranking_margin import (
    _best_with_forced_pair,
    _block_margin,
    _block_structure,
    _pattern_margin,
    best_with_forced_pair,
    block_margin,
    block_structure,
    lemma4_margin,
    pattern_margin,
)
from predtron.problems.ranking_measures import (
    F_CHOICES,
    GAINS,
    LOSSES,
    MAX_EXPONENTIAL_GRADE,
    RankingLoss,
    _assignment_argmax,
    _sort_positions,
    assignment_argmax,
    check_relevance,
    discount,
    gain,
    position_values,
    sort_positions,
)

ORACLES = ("auto", "assignment", "sort", "grades", "dp")

#: Largest number of sorted labels :meth:`RankingProblem.loss_bounds` enumerates.
MAX_ENUMERATED_LABELS = 20_000

__all__ = [
    "F_CHOICES",
    "GAINS",
    "LOSSES",
    "MAX_ENUMERATED_LABELS",
    "MAX_EXPONENTIAL_GRADE",
    "ORACLES",
    "RankingLoss",
    "RankingProblem",
    "assignment_argmax",
    "best_with_forced_pair",
    "block_margin",
    "block_structure",
    "check_relevance",
    "discount",
    "gain",
    "grades_argmax",
    "lemma4_margin",
    "pattern_margin",
    "position_values",
    "sort_positions",
]

#: Entries of the ``(queries, m, m)`` blocks of :meth:`RankingProblem.grade_c_L`.
_GRADE_BLOCK = 1 << 20

#: ``(f, loss, k, m) -> (f / Z, b, alpha)`` of :meth:`RankingProblem._sizes` for ``f`` given by
#: name, shared by the problems of the process (the values are read-only and depend on nothing
#: else); at most :data:`_MAX_SIZE_TABLES` entries.
_SIZE_TABLES: dict[tuple, tuple[np.ndarray, np.ndarray, float | None]] = {}
_MAX_SIZE_TABLES = 1 << 14


class RankingProblem(Problem):
    """Shared part of :class:`~predtron.problems.subset_ranking.SubsetRanking` and
    :class:`~predtron.problems.multilabel_ranking.MultilabelRanking` (Sections 4-5).

    Subclasses set ``scoring`` and implement ``check_label`` and ``check_labels``.

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
    oracle : {"auto", "assignment", "sort", "grades", "dp"}
        How the loss-augmented argmax is computed, always exactly:

        * ``"assignment"``: the dense assignment of Lemma 3
          (``scipy.optimize.linear_sum_assignment``, about ``m^3`` steps);
        * ``"sort"``: a sort, exact only when :meth:`sort_exact` (raises otherwise);
        * ``"grades"``: :func:`~predtron.problems.ranking_grades.grades_argmax`, which
          uses that items of one relevance grade share their loss value (about ``m``
          steps per band pass; fast for large ``m`` and few grades);
        * ``"dp"``: :func:`predtron.engine.grade_dp_argmax`, dynamic programming over the
          counts of each grade placed so far (``prod_g (m_g + 1)`` states; compiled, with an
          exact NumPy twin while compiling does not pay, see :mod:`predtron.engine.jit`);
        * ``"auto"``: the sort when it is exact; otherwise ``"dp"`` when it is cheaper than
          a dense assignment (:func:`predtron.engine.grade_dp_is_cheap`: every MQ2008
          query, for example); otherwise ``"grades"`` or ``"assignment"``, whichever the calibrated
          cost model :func:`~predtron.problems.ranking_grades.choose_method` predicts
          faster for the number of items and of distinct grades (the assignment below
          about 150 items, ``"grades"`` above about 200 with up to five grades).
    """

    _param_attributes: ClassVar[dict[str, str]] = {"loss": "loss_name", "oracle": "oracle_method"}

    def __init__(self, f="linear", loss: str = "ndcg", k: int | None = None,
                 gain: str = "exponential", oracle: str = "auto"):
        self.f = f
        self.loss_name = loss
        self.k = k
        self.gain = gain
        self.oracle_method = oracle
        self.ranking_loss = RankingLoss(loss, k, gain)
        check_choice(oracle, "oracle", ORACLES)
        self._cache: dict[int, tuple[np.ndarray, np.ndarray, float | None]] = {}
        if not isinstance(f, str) or f not in F_CHOICES:
            position_values(f, 2)  # fail early on a bad name or a callable that cannot run

    # ------------------------------------------------------------ per-size data
    def _sizes(self, m: int) -> tuple[np.ndarray, np.ndarray, float | None]:
        """``(f / Z, b, alpha)`` for ``m`` items; ``alpha`` is not ``None`` when a sort is exact.

        The arrays are read-only.  For ``f`` given by name they are shared by every problem of
        the process with the same ``f``, loss and cut-off (what determines them), so a new
        problem (a user's first fit, a stream's next chunk) finds them built, and they are
        built without the checks a callable needs (:func:`_named_entry`).
        """
        entry = self._cache.get(m)
        if entry is None:
            key = (self.f, self.loss_name, self.k, m) if isinstance(self.f, str) else None
            entry = _SIZE_TABLES.get(key) if key is not None else None
            if entry is None:
                if key is not None:
                    entry = _named_entry(self.f, self.ranking_loss, m)
                    if len(_SIZE_TABLES) < _MAX_SIZE_TABLES:
                        _SIZE_TABLES[key] = entry
                else:
                    fvals = position_values(self.f, m)
                    fvals = fvals / np.linalg.norm(fvals)
                    fvals.flags.writeable = False
                    b = self.ranking_loss._position_weights(m)
                    entry = (fvals, b, _sort_rule(fvals, b))
            self._cache[m] = entry
        return entry

    def sort_exact(self, m: int) -> bool:
        """Whether the sort oracle is exact for ``m`` items (``f`` affine in the weights ``b``, or
        ``b`` constant so that the loss does not depend on the ranking)."""
        return self._sizes(check_int(m, "m", minimum=1, maximum=MAX_DENSE_ENTRIES))[2] is not None

    # ------------------------------------------------------------------ checks
    def _check_sigma(self, sigma, m: int | None = None, name: str = "sigma") -> np.ndarray:
        arr = as_label_array(sigma, name, booleans=False)
        if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)  # integral floats, as labels accept them
        if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu" or not np.array_equal(
                np.sort(arr), np.arange(len(arr))):
            raise ValueError(
                f"{name} must be a ranking: an int array with {name}[i] the 0-based position of item i "
                f"(a permutation of 0..m-1); got {excerpt(arr)}"
            )
        if m is not None and len(arr) != m:
            raise ValueError(f"{name} ranks {len(arr)} items but y has {m}")
        return arr.astype(np.int64)

    def _check_prediction(self, sigma, y=None) -> np.ndarray:
        return self._check_sigma(sigma, None if y is None else len(y))

    def _score_shape(self, y=None) -> tuple[int, ...]:
        if y is None:
            return (len(self.pred_default()),)
        return (len(y),)

    def _check_scores(self, t, y=None) -> np.ndarray:
        t = as_finite_array(t, "t")
        expected = self._score_shape(y)
        if (expected is None and (t.ndim != 1 or t.size == 0)) or (expected is not None and t.shape != expected):
            want = "a non-empty 1-D array" if expected is None else f"shape {expected} (one per item of y)"
            raise ValueError(f"t must have one score per item, {want}; got shape {t.shape}")
        return t

    # ------------------------------------------------------------------ basics
    def _rep(self, sigma) -> np.ndarray:
        """``rep(sigma)_i = f(sigma[i] + 1) / Z`` (Section 4)."""
        return self._sizes(len(sigma))[0][sigma]

    def _pred(self, t) -> np.ndarray:
        """Sort ``t`` decreasingly, ties (up to a relative ``TIE_TOLERANCE``) to the lower item
        index: a maximiser of ``<rep(sigma), t>``, decided the same way however ``t`` was computed."""
        t = np.asarray(t, dtype=float)
        return ranking_batch.rankings(t, np.array([0, len(t)]))

    def _correct(self, y) -> np.ndarray:
        """``sigma_y``: the stable sort of ``y`` decreasingly (a zero-loss ranking)."""
        return _sort_positions(np.asarray(y))

    def _loss(self, sigma, y) -> float:
        y = np.asarray(y)
        offsets = np.array([0, len(y)])
        return float(ranking_batch.losses(self.ranking_loss, np.argsort(sigma), y, offsets)[0])

    def same(self, a, b) -> bool:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))

    # ------------------------------------------------------------------- batch
    def _flat(self, T, Y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Scores and grades of a block as flat arrays with offsets (2-D blocks: one row each)."""
        if isinstance(T, Ragged):
            return T.values, np.asarray(Y.values if isinstance(Y, Ragged) else Y), T.offsets
        T = np.asarray(T, dtype=float)
        n, m = T.shape
        return T.ravel(), np.asarray(Y).ravel(), np.arange(n + 1, dtype=np.int64) * m

    def batch_loss(self, T, Y) -> np.ndarray:
        values, y, offsets = self._flat(T, Y)
        return ranking_batch.losses_of_scores(self.ranking_loss, values, y, offsets)

    def batch_pred(self, T):
        if isinstance(T, Ragged):
            return self.stack(Ragged(ranking_batch.rankings(T.values, T.offsets), T.offsets))
        T = np.asarray(T, dtype=float)
        n, m = T.shape
        flat = ranking_batch.rankings(T.ravel(), np.arange(n + 1, dtype=np.int64) * m)
        return flat.reshape(n, m)

    # ------------------------------------------------------------------ oracle
    def _oracle(self, t, y) -> np.ndarray:
        """Loss-augmented argmax (Lemma 3): maximise ``sum_i P[i, sigma[i]]`` with
        ``P[i, j] = t_i f_j / Z - v_i b_j / I(y)``, by the method chosen with ``oracle``.

        Every method returns a maximiser (up to floating-point rounding), deterministically.
        """
        y = np.asarray(y)
        m = len(y)
        fvals, b, alpha = self._sizes(m)
        v = self.ranking_loss._item_values(y)
        ideal = self.ranking_loss._ideal(v, b)
        if ideal == 0:
            return _sort_positions(t)
        method = self.oracle_method
        if method == "sort" and alpha is None:
            raise ValueError(
                f"oracle='sort' is exact only when f is an affine function of the loss's position "
                f"weights; not for f={self.f!r}, loss={self.loss_name!r}, k={self.k!r}, m={m}"
            )
        if method == "auto":
            if alpha is not None:
                method = "sort"
            elif grade_dp_is_cheap(v):
                method = "dp"
            elif m < smallest_grades_size():
                method = "assignment"
            else:
                method = choose_method(m, len(np.unique(v)))
        if method == "dp":
            return grade_dp_argmax(np.ascontiguousarray(t, dtype=float), v / ideal, fvals, b)
        if method == "sort":
            return _sort_positions(t if alpha == 0 else alpha * t - v / ideal)
        if method == "grades":
            return grades_argmax(t, v / ideal, fvals, b)
        return _assignment_argmax(np.outer(t, fvals) - np.outer(v / ideal, b))

    # ------------------------------------------------------------------ margin
    def zero_loss_pattern(self, y) -> np.ndarray:
        """``A[i, j]``: item ``i`` may sit at position ``j`` in a zero-loss ranking."""
        return self.ranking_loss._allowed(np.asarray(self.check_label(y)))

    def _margin(self, t, y) -> float:
        """Exact margin of ``t`` on ``y`` (Section 2.2) without enumerating rankings.

        Uses the closed form of Lemma 4 (:func:`block_margin`) when ``Sigma_y`` is
        block-structured (always for NDCG) and :func:`pattern_margin` otherwise
        (NDCG@k or precision@k when a relevance grade straddles the cut-off; the margin
        is then never positive).
        """
        y = np.asarray(y)
        fvals = self._sizes(len(y))[0]
        allowed = self.ranking_loss._allowed(y)
        blocks = _block_structure(allowed)
        if blocks is not None:
            return _block_margin(np.asarray(t, dtype=float), blocks, fvals)
        return _pattern_margin(np.asarray(t, dtype=float), allowed, fvals)

    def separating_scores(self, y, margin: float, jitter: float = 0.0,
                          rng: np.random.Generator | None = None) -> np.ndarray:
        """Scores with margin at least ``margin`` on ``y``, constant on each grade block.

        Block scores decrease by ``margin Z / (f(e_b) - f(e_b + 1))`` at each boundary
        (Lemma 4), times ``1 + jitter * u_b`` with ``u_b`` uniform on [0, 1) (and a
        relative ``1e-9`` guard against rounding); the scores are centred.  Raises
        ``ValueError`` when ``Sigma_y`` is not block-structured (no score vector has a
        positive margin on such a ``y``).
        """
        y = self.check_label(y)
        margin = check_positive(margin, "margin", maximum=MAX_ABS_INPUT)
        jitter = check_positive(jitter, "jitter", allow_zero=True, maximum=MAX_ABS_INPUT)
        rng = check_generator(rng)
        m = len(y)
        fvals = self._sizes(m)[0]
        blocks = _block_structure(self.ranking_loss._allowed(y))
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
        return self._label_loss_range(self.check_label(y))

    def _label_loss_range(self, y) -> tuple[float, float]:
        v = self.ranking_loss._item_values(y)
        b = self.ranking_loss._position_weights(len(v))
        ideal = self.ranking_loss._ideal(v, b)
        allowed = self.ranking_loss._allowed(y)
        if ideal == 0 or allowed.all():
            return math.inf, 0.0
        best_bad = float(_best_with_forced_pair(v, b)[~allowed].max())
        worst = float(np.sort(v) @ b)
        return (ideal - best_bad) / ideal, (ideal - worst) / ideal

    def loss_bounds_for(self, Y) -> tuple[float, float]:
        """``(c_L, C_L)`` over the labels in ``Y`` (what Theorem 1 needs for a data set).

        Raises ``ValueError`` if no label in ``Y`` has a non-zero loss.
        """
        ranges = [self.label_loss_range(y) for y in check_each(Y, self.check_label, "Y")]
        if not ranges:
            raise ValueError("Y is empty; the loss bounds of no label are not defined")
        c_L = min(r[0] for r in ranges)
        if not math.isfinite(c_L):
            raise ValueError("no label in Y has a ranking with non-zero loss; c_L is undefined")
        return c_L, max(r[1] for r in ranges)

    def grade_c_L(self, grades: np.ndarray, offsets: np.ndarray) -> float:
        """``c_L`` of :meth:`loss_bounds_for` over the queries of a flat layout, on validated data.

        ``grades`` holds the relevance grades of every document (int64, as :meth:`check_labels`
        returns them) and ``offsets`` the ``n_queries + 1`` row offsets of the queries; neither
        is checked again.  The result equals the per-query loop's bit for bit: a label's
        smallest non-zero loss depends only on the multiset of its grades (every step of
        :meth:`label_loss_range` sorts or pairs values, never positions), so each query's
        grades are sorted and the queries of one length are computed
        together with the same element-wise arithmetic as :meth:`label_loss_range`
        (:func:`~predtron.problems.ranking_margin.best_with_forced_pair` over the forbidden
        item-position pairs), in blocks of bounded memory.

        Raises ``ValueError`` as :meth:`loss_bounds_for` does (no query; no query with a
        non-zero loss).
        """
        sizes = np.diff(offsets)
        if sizes.size == 0:
            raise ValueError("Y is empty; the loss bounds of no label are not defined")
        query = np.repeat(np.arange(sizes.size), sizes)
        ordered = grades[np.lexsort((-grades, query))]  # each query's grades, largest first
        c_L = math.inf
        for m in np.unique(sizes).tolist():
            starts = offsets[:-1][sizes == m]
            labels = ordered[starts[:, None] + np.arange(m)]  # one row per query, non-increasing
            block = max(1, _GRADE_BLOCK // (m * m))
            for first in range(0, len(labels), block):
                c_L = min(c_L, self._sorted_c_L(labels[first:first + block]))
        if not math.isfinite(c_L):
            raise ValueError("no label in Y has a ranking with non-zero loss; c_L is undefined")
        return c_L

    def _sorted_c_L(self, Y: np.ndarray) -> float:
        """Smallest finite ``label_loss_range(y)[0]`` over the rows of ``Y`` (each non-increasing,
        one length ``m``), ``inf`` if none: :meth:`_label_loss_range` row by row, vectorised."""
        loss = self.ranking_loss
        m = Y.shape[1]
        v = loss._item_values(Y)  # element-wise: the values of every row, non-increasing
        b = loss._position_weights(m)
        ideal = np.cumsum(v * b, axis=1)[:, -1]  # as RankingLoss._ideal, left to right
        # Sigma_y: item i may sit at position p iff its value is among those of p's block of
        # equal position weights (RankingLoss._allowed; the rows are sorted, so "among" is a range)
        cuts = np.flatnonzero(np.diff(b) != 0) + 1
        first = np.repeat(np.concatenate([[0], cuts]), np.diff(np.concatenate([[0], cuts, [m]])))
        last = np.repeat(np.concatenate([cuts, [m]]) - 1, np.diff(np.concatenate([[0], cuts, [m]])))
        allowed = (v[:, None, last] <= v[:, :, None]) & (v[:, :, None] <= v[:, None, first])
        # best_with_forced_pair with t = v already sorted (rank i for item i), row by row
        prod = np.cumsum(b * v, axis=1)
        same = np.concatenate([np.zeros((len(v), 1)), prod], axis=1)
        up = np.zeros_like(v)
        up[:, 1:] = b[:-1] * v[:, 1:]
        up = np.concatenate([np.zeros((len(v), 1)), np.cumsum(up, axis=1)], axis=1)
        down = np.zeros_like(v)
        down[:, :-1] = b[1:] * v[:, :-1]
        down = np.concatenate([np.zeros((len(v), 1)), np.cumsum(down, axis=1)], axis=1)
        r = np.arange(m)[:, None]
        j = np.arange(m)[None, :]
        total = same[:, m][:, None, None]
        rest_above = same[:, r] + (up[:, j + 1] - up[:, r + 1]) + (total - same[:, j + 1])
        rest_below = same[:, j] + (down[:, r] - down[:, j]) + (total - same[:, np.minimum(r + 1, m)])
        best = np.where(r <= j, rest_above, rest_below) + v[:, :, None] * b[None, None, :]
        best_bad = np.where(allowed, -np.inf, best).max(axis=(1, 2))
        live = (ideal != 0) & ~allowed.all(axis=(1, 2))
        return float(np.min((ideal[live] - best_bad[live]) / ideal[live], initial=math.inf))

    def loss_bounds(self, m: int, y_max: int) -> tuple[float, float]:
        """``(c_L, C_L)`` over every label in ``{0..y_max}^m`` (Section 2.1).

        Loss values are invariant under relabelling the items, so only the
        non-increasing labels are visited, ``C(m + y_max, m)`` of them; raises
        ``ValueError`` when that exceeds :data:`MAX_ENUMERATED_LABELS`.
        """
        m = check_int(m, "m", minimum=1, maximum=MAX_ENUMERATED_LABELS)
        y_max = check_int(y_max, "y_max", minimum=0, maximum=MAX_EXPONENTIAL_GRADE)
        count = math.comb(m + y_max, m)
        if count > MAX_ENUMERATED_LABELS:
            raise ValueError(
                f"loss_bounds enumerates C(m + y_max, m) = {count} sorted labels, more than "
                f"{MAX_ENUMERATED_LABELS}; use loss_bounds_for(Y) on the labels of your data"
            )
        labels = (np.array(c[::-1]) for c in itertools.combinations_with_replacement(range(y_max + 1), m))
        ranges = [self._label_loss_range(y) for y in labels]
        c_L = min(r[0] for r in ranges)
        if not math.isfinite(c_L):
            raise ValueError(f"every ranking has zero loss for m={m}, y_max={y_max}; c_L is undefined")
        return c_L, max(r[1] for r in ranges)

    # ------------------------------------------------------------- enumeration
    def _predictions(self, y=None) -> Iterator[np.ndarray]:
        """All ``m!`` rankings of ``len(y)`` items (testing only)."""
        if y is None:
            raise ValueError(f"{type(self).__name__}.predictions needs a label y to know the number of items")
        return self._enumerate((np.array(p, dtype=np.int64) for p in itertools.permutations(range(len(y)))),
                               "rankings", math.factorial(len(y)))

    def _n_predictions(self, y=None) -> int | None:
        return None if y is None else math.factorial(len(y))


def _named_entry(f: str, loss: RankingLoss, m: int) -> tuple[np.ndarray, np.ndarray, float | None]:
    """``(f / Z, b, alpha)`` of :meth:`RankingProblem._sizes` for ``f`` given by name: the
    arithmetic of :func:`position_values` without its checks (a named ``f`` is finite and
    strictly decreasing at every size) and the sort rule from :func:`_named_sort_rule`."""
    raw = np.asarray(F_CHOICES[f](np.arange(1, m + 1, dtype=float)), dtype=float)
    fvals = raw / np.linalg.norm(raw)
    fvals.flags.writeable = False
    b = loss._position_weights(m)
    return fvals, b, _named_sort_rule(f, loss, fvals, b)


def _named_sort_rule(f: str, loss: RankingLoss, fvals: np.ndarray, b: np.ndarray) -> float | None:
    """:func:`_sort_rule` for ``f`` given by name, deciding from the case which sizes need its solve.

    ``b`` is constant only for one item or precision@k with ``k >= m`` (``alpha = 0``).  Two
    points always lie on a line.  From three items on, a named ``f`` is an affine function of
    the weights only for ``f = "discount"`` under the uncut NDCG (``f`` is then the discount
    over ``Z``): a cut ``k < m - 1`` gives weight 0 to two positions whose ``f`` differ; a cut
    ``k = m - 1`` puts the last position off the line through the others (for the discount the
    line through the origin, for the others none, or for ``k = 2`` a line that misses it);
    precision@k (``k < m``) gives one weight to two positions whose ``f`` differ (two of the
    top ``k``, or two below it); the other named ``f`` are not affine in ``1 / log2(1 + i)``
    on three positions.  The affine
    cases keep the least-squares solve, so ``alpha`` is the same number;
    ``tests/test_ranking_tables.py`` checks the rule against the solve.
    """
    m = len(fvals)
    cut = m if loss.k is None else min(loss.k, m)
    if m == 1 or (loss.name == "precision" and cut == m):
        return 0.0
    if m == 2 or (f == "discount" and loss.name == "ndcg" and cut == m):
        return _solved_rule(fvals, b)  # the closed-form fit of _sort_rule would pass: straight to the solve
    return None


def _sort_rule(fvals: np.ndarray, b: np.ndarray) -> float | None:
    """The slope ``alpha`` when the oracle's profit has product form, else ``None``.

    ``0.0`` means the position weights are constant (the loss does not depend on the
    ranking), so sorting the scores is exact; a positive ``alpha`` means
    ``fvals = alpha b + beta`` and sorting ``alpha t - v / I(y)`` is exact.
    """
    m = len(fvals)
    if m == 1 or np.ptp(b) == 0:
        return 0.0
    # A closed-form fit first: its residuals are those of the least-squares fit up to rounding,
    # so residuals a million times above the tolerance below rule the product form out without
    # the solve (the common case, f="linear" under NDCG); otherwise the solve decides as before.
    centred = b - b.mean()
    slope = float(centred @ (fvals - fvals.mean())) / float(centred @ centred)
    spread = fvals - slope * b
    if np.sqrt(np.mean((spread - spread.mean()) ** 2)) > 1e-6 * (1.0 + np.abs(fvals).max()):
        return None
    return _solved_rule(fvals, b)


def _solved_rule(fvals: np.ndarray, b: np.ndarray) -> float | None:
    """The least-squares part of :func:`_sort_rule`: ``alpha`` of the fit ``fvals = alpha b +
    beta`` when it is positive and exact to rounding, else ``None``."""
    m = len(fvals)
    design = np.column_stack([b, np.ones(m)])
    (alpha, beta), *_ = np.linalg.lstsq(design, fvals, rcond=None)
    residual = np.abs(design @ np.array([alpha, beta]) - fvals).max()
    if alpha > 0 and residual <= 1e-12 * (1.0 + np.abs(fvals).max()):
        return float(alpha)
    return None
