"""Ranking data: the flat learning-to-rank layout, separable generators, the Figure-1 generator.

Learners take ranking data as a list of per-query document matrices and a list of
relevance arrays.  Libraries such as LightGBM and XGBoost take one ``(N, p0)`` matrix
with a relevance array and either query ids or group sizes; :func:`split_queries` and
:func:`flatten_queries` convert between the two.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from predtron._validation import (
    MAX_ABS_INPUT,
    MAX_DENSE_ENTRIES,
    as_finite_array,
    check_bool,
    check_each,
    check_generator,
    check_int,
    check_positive,
    check_query_ids,
    check_seed,
    check_size,
)
from predtron._validation import (
    excerpt as short,
)
from predtron.data._files import excerpt
from predtron.data.generators import SeparableData
from predtron.problems.ranking import MAX_EXPONENTIAL_GRADE, RankingProblem, check_relevance
from predtron.problems.ranking_margin import _block_structure
from predtron.scoring import DocumentScoring, VectorScoring, row_dot


# ---------------------------------------------------------------- flat <-> per query
def check_group_sizes(group, n_rows: int | None = None, name: str = "group") -> np.ndarray:
    """Validate group sizes (rows per query, in order: LightGBM's ``group``); return them as int64.

    Integral floats such as ``3.0`` (what :func:`numpy.loadtxt` returns) are accepted; ``2.5``,
    NaN, booleans, strings, sizes below 1 and, when ``n_rows`` is given, sizes that do not sum
    to ``n_rows`` are refused.  Messages show a short excerpt of the sizes, never all of them.
    """
    try:
        sizes = np.asarray(group)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-D array of group sizes; could not convert it ({exc})") from None
    if n_rows is not None:
        n_rows = check_int(n_rows, "n_rows", minimum=0)
    if isinstance(group, (list, tuple)) and any(isinstance(v, (bool, np.bool_)) for v in group):
        sizes = np.asarray(group, dtype=bool) if all(isinstance(v, (bool, np.bool_)) for v in group) else \
            np.asarray(group, dtype=object)  # a bool among numbers: refused below, not read as 0/1
    if sizes.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be an array of integer group sizes; got dtype {sizes.dtype}")
    if sizes.ndim != 1 or sizes.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of group sizes; got shape {sizes.shape}")
    bad = ~(np.isfinite(sizes) & (sizes == np.round(sizes))) if sizes.dtype.kind == "f" else np.zeros(sizes.size, bool)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} sizes must be whole numbers; {name}[{i}] = {sizes[i].item()!r} in {excerpt(sizes)}")
    ceiling = 2**62 if n_rows is None else n_rows
    bad = (sizes < 1) | (sizes > ceiling)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        rule = ">= 1" if sizes[i] < 1 else f"<= the number of rows ({ceiling})"
        raise ValueError(f"{name} sizes must be {rule}; {name}[{i}] = {sizes[i].item()!r} in {excerpt(sizes)}")
    sizes = sizes.astype(np.int64)
    total = sum(sizes.tolist())
    if n_rows is not None and total != n_rows:
        raise ValueError(f"{name} sizes sum to {total} but there are {n_rows} rows; {name} = {excerpt(sizes)}")
    return sizes


def _matrix(X, name: str) -> np.ndarray:
    if isinstance(X, (list, tuple)) and X and isinstance(X[0], (list, tuple, np.ndarray)):
        lengths = {len(row) for row in X}
        if len(lengths) > 1:
            raise ValueError(f"{name} is ragged: its rows have lengths {sorted(lengths)}; expected one "
                             "length (the number of features)")
    X = as_finite_array(X, name)
    if X.ndim != 2 or X.shape[1] == 0:
        raise ValueError(f"{name} must be a 2-D (n_documents, n_features) array with at least one feature; got "
                         f"shape {X.shape}")
    return X


def split_queries(X, y, qid=None, group=None, sort: bool = False) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Split the flat layout (one row per document) into per-query matrices and relevance arrays.

    Parameters
    ----------
    X : array-like of shape (N, p0)
        All documents.
    y : array-like of shape (N,)
        Integer relevance grades ``>= 0``.
    qid : array-like of shape (N,), optional
        Query id of each row (XGBoost's ``qid``).  A query's rows must be contiguous
        unless ``sort=True``.
    group : array-like of ints, optional
        Number of rows of each query, in order (LightGBM's ``group``); they must sum to
        ``N`` (integral floats such as ``3.0`` are accepted, see
        :func:`check_group_sizes`).  Give exactly one of ``qid`` and ``group``.
    sort : bool, default False
        With ``qid``: gather each query's rows in order of first appearance (stable)
        instead of rejecting queries whose rows are not contiguous.

    Returns
    -------
    Xs, ys : lists
        One ``(m_q, p0)`` matrix and one ``(m_q,)`` int relevance array per query.
    """
    X = _matrix(X, "X")
    n = X.shape[0]
    sort = check_bool(sort, "sort")
    rel = check_relevance(y, "y")
    if rel.shape != (n,):
        raise ValueError(f"y must have one relevance grade per row of X ({n}); got {rel.shape[0]}")
    if (qid is None) == (group is None):
        raise ValueError("give exactly one of qid (a query id per row) and group (rows per query)")
    if group is not None:
        sizes = check_group_sizes(group, n)
        cuts = np.cumsum(sizes)[:-1]
        return list(np.split(X, cuts)), list(np.split(rel, cuts))
    if not sort:  # each query's rows must be contiguous: the shared check names the first broken query
        offsets = check_query_ids(qid, n)
        return list(np.split(X, offsets[1:-1])), list(np.split(rel, offsets[1:-1]))
    qid = _sortable_ids(qid, n)
    starts = np.flatnonzero(np.concatenate([[True], qid[1:] != qid[:-1]]))
    runs = qid[starts]
    _, first = np.unique(runs, return_index=True)
    if len(first) != len(runs):
        if not sort:
            seen: set = set()
            for q in runs.tolist():
                if q in seen:
                    rows = np.flatnonzero(qid == q)
                    gap = int(rows[np.flatnonzero(np.diff(rows) > 1)[0] + 1])
                    raise ValueError(
                        f"the rows of query {q!r} are not contiguous (row {gap} follows rows of other "
                        "queries); sort the rows by query id first, keeping their order within a "
                        "query: order = np.argsort(qid, kind='stable'), then index X, y and qid "
                        "with order"
                    )
                seen.add(q)
        _, first_rows, inverse = np.unique(qid, return_index=True, return_inverse=True)
        order = np.argsort(np.argsort(first_rows))[inverse]  # query number by first appearance
        rows = np.argsort(order, kind="stable")
        X, rel, qid = X[rows], rel[rows], qid[rows]
        starts = np.flatnonzero(np.concatenate([[True], qid[1:] != qid[:-1]]))
    return list(np.split(X, starts[1:])), list(np.split(rel, starts[1:]))


def _sortable_ids(qid, n: int) -> np.ndarray:
    """Query ids that can be sorted: finite numbers, or strings (not a mix), one per row."""
    from predtron._validation import as_label_array

    ids = as_label_array(qid, "qid")
    if ids.shape != (n,):
        raise ValueError(f"qid must have one query id per row of X ({n}); got shape {ids.shape}")
    if ids.dtype.kind in "cmMV" or (ids.dtype.kind == "f" and not np.all(np.isfinite(ids))):
        raise ValueError(f"qid must hold finite numbers or strings; got {short(ids)}")
    if ids.dtype.kind == "O":
        values = ids.tolist()
        if not (all(isinstance(q, str) for q in values) or all(
                isinstance(q, (int, float, np.integer, np.floating)) and not isinstance(q, bool) and np.isfinite(q)
                for q in values)):
            raise ValueError(f"qid must hold finite numbers or strings (not a mix, not None); got {short(ids)}")
        ids = np.asarray(values)
    return ids


def flatten_queries(Xs, ys) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The inverse of :func:`split_queries`: ``(X, y, group)`` from per-query lists."""
    ys = check_each(ys, lambda y: y, "ys")
    Xs = DocumentScoring().split(Xs)
    if len(ys) != len(Xs):
        raise ValueError(f"Xs and ys must have one entry per query; got {len(Xs)} and {len(ys)}")
    widths = {x.shape[1] for x in Xs}
    if len(widths) > 1:
        raise ValueError(f"every query of Xs must have the same number of features; got {sorted(widths)}")
    rels = []
    for i, (x, y) in enumerate(zip(Xs, ys, strict=True)):
        rel = check_relevance(y, f"ys[{i}]")
        if len(rel) != x.shape[0]:
            raise ValueError(f"Xs[{i}] has {x.shape[0]} documents but ys[{i}] has {len(rel)} grades")
        rels.append(rel)
    group = np.array([x.shape[0] for x in Xs], dtype=np.int64)
    return np.concatenate(Xs), np.concatenate(rels), group


# ---------------------------------------------------------------- separable data
def _largest_items(n_items) -> int:
    """The largest number of documents ``n_items`` (a number or a ``(low, high)`` pair) allows."""
    if isinstance(n_items, (tuple, list)):
        if len(n_items) != 2:
            raise ValueError(f"n_items must be a number or a (low, high) pair; got {short(n_items)}")
        lo, hi = (check_int(v, "n_items", minimum=1, maximum=MAX_DENSE_ENTRIES) for v in n_items)
        if lo > hi:
            raise ValueError(f"n_items=(low, high) needs low <= high; got {n_items}")
        return hi
    return check_int(n_items, "n_items", minimum=1, maximum=MAX_DENSE_ENTRIES)


def _n_items(n_items, rng: np.random.Generator) -> int:
    if isinstance(n_items, (tuple, list)):
        lo, hi = (int(v) for v in n_items)
        return int(rng.integers(lo, hi + 1))
    return int(n_items)


def _orthonormal_rows(A: np.ndarray) -> np.ndarray:
    """Orthonormal rows spanning the rows of ``A`` (full row rank), by Gram-Schmidt applied twice.

    Every product is summed by :func:`predtron.scoring.row_dot`, so the rows are the same
    bits on every CPU and BLAS (LAPACK's QR is not), and so are the data built from them.
    """
    Q = np.array(A, dtype=float)
    for i in range(Q.shape[0]):
        for _ in range(2):  # the second pass removes what rounding left of the earlier rows
            Q[i] -= row_dot(Q[:i].T, row_dot(Q[:i], Q[i]))
        Q[i] /= np.sqrt(row_dot(Q[i], Q[i]))
    return Q


def make_separable_ranking(problem: RankingProblem, n_samples: int, n_features: int, margin: float,
                           n_items=(3, 8), y_max: int = 2, noise: float = 1.0, jitter: float = 0.5,
                           seed: int = 0, max_tries: int = 1000) -> SeparableData:
    """Ranking data on which a random unit-norm ``W*`` has margin at least ``margin``.

    The subset-ranking ``w*`` is a standard Gaussian vector scaled to unit l2 norm.

    For each example a label ``y`` is drawn (grades uniform on ``0..y_max``; for
    multilabel ranking ``y_max`` is the problem's), target scores with margin
    ``margin`` on ``y`` are built by Lemma 4 (``problem.separating_scores``: constant
    within a grade, with the smallest allowed drop at each grade boundary times a random
    factor in ``[1, 1 + jitter)``), and an input whose scores under ``W*`` are exactly
    these targets is built:

    * subset ranking (``t = X w``): ``X`` = Gaussian noise with its component along
      ``w*`` replaced, ``X = N - (N w*) w*^T + t w*^T``;
    * multilabel ranking (``t = W x``): ``W*`` has orthonormal rows scaled by
      ``1 / sqrt(m)`` (unit Frobenius norm, every singular value equal, so inputs stay
      small), and ``x = W*^+ t + (I - W*^+ W*) n`` with Gaussian ``n`` (needs
      ``n_features >= n_labels``).

    Labels whose zero-loss rankings cannot be separated (NDCG@k or precision@k with a
    grade straddling the cut-off) and labels on which every ranking has zero loss are
    drawn again, up to ``max_tries`` times per example.

    Parameters
    ----------
    problem : RankingProblem
        A :class:`~predtron.problems.subset_ranking.SubsetRanking` or
        :class:`~predtron.problems.multilabel_ranking.MultilabelRanking`.
    n_samples, n_features : int
        Number of examples, and ``p0`` (subset ranking) or ``p`` (multilabel ranking).
    margin : float
        Target margin ``gamma > 0``.
    n_items : int or (int, int)
        Documents per query (subset ranking only): a number, or a range drawn uniformly.
    y_max : int
        Largest grade (subset ranking only).
    noise : float
        Standard deviation of the Gaussian noise.
    jitter : float
        Spread of the grade gaps above the minimum.
    seed : int
        Seed of all draws.

    Returns
    -------
    SeparableData
        ``X`` (list of matrices, or an ``(n, p)`` array), ``Y``, ``W_star``, the exact
        smallest margin of ``W_star`` (``problem.margin``) and ``R`` (operator norm or
        Euclidean norm, ``problem.scoring.instance_norm``).
    """
    if not isinstance(problem, RankingProblem):
        raise ValueError(f"problem must be a ranking problem; got {type(problem).__name__}")
    n_samples = check_int(n_samples, "n_samples", minimum=1, maximum=MAX_DENSE_ENTRIES)
    n_features = check_int(n_features, "n_features", minimum=1, maximum=MAX_DENSE_ENTRIES)
    largest = _largest_items(n_items) if not isinstance(problem.scoring, VectorScoring) else problem.scoring.dim
    check_size("n_samples x n_items x n_features", n_samples, largest, n_features)
    margin = check_positive(margin, "margin", maximum=1e50)
    noise = check_positive(noise, "noise", allow_zero=True, maximum=1e50)
    jitter = check_positive(jitter, "jitter", allow_zero=True, maximum=1e50)
    max_tries = check_int(max_tries, "max_tries", minimum=1)
    y_max = check_int(y_max, "y_max", minimum=1, maximum=MAX_EXPONENTIAL_GRADE)
    rng = np.random.default_rng(check_seed(seed))
    vector = isinstance(problem.scoring, VectorScoring)
    if vector:
        m_fixed = problem.scoring.dim
        if n_features < m_fixed:
            raise ValueError(f"multilabel ranking needs n_features >= n_labels = {m_fixed}; got {n_features}")
        Q = _orthonormal_rows(rng.standard_normal((n_features, m_fixed)).T)
        W = Q / np.sqrt(m_fixed)  # orthonormal rows scaled to unit Frobenius norm
    else:
        W = rng.standard_normal(n_features)
        W /= np.sqrt(row_dot(W, W))
    X, Y, margins = [], [], []
    for _ in range(n_samples):
        for _ in range(max_tries):
            y = (problem.random_label(rng) if vector
                 else rng.integers(0, y_max + 1, size=_n_items(n_items, rng)))
            allowed = problem.ranking_loss._allowed(y)
            # labels whose zero-loss rankings are not "sort each grade into its block" have no
            # separating scores: draw another one
            separable = not allowed.all() and _block_structure(allowed) is not None
            t = problem.separating_scores(y, margin, jitter=jitter, rng=rng) if separable else None
            if t is not None:
                break
        else:
            raise ValueError(
                f"no separable label with a non-zero loss found in max_tries={max_tries} draws; "
                "use loss='ndcg' or other n_items / y_max"
            )
        if vector:
            # W x = t for x = pinv(W) t = sqrt(m) Q^T t, plus noise projected on the null space of W
            z = rng.standard_normal(n_features)
            x = np.sqrt(m_fixed) * row_dot(Q.T, t) + noise * (z - row_dot(Q.T, row_dot(Q, z)))
        else:
            N = noise * rng.standard_normal((len(y), n_features))
            x = N - np.outer(row_dot(N, W), W) + np.outer(t, W)
        X.append(x)
        Y.append(np.asarray(y, dtype=np.int64))
        margins.append(problem.margin(problem.scoring.scores(W, x), y))
    radius = max(problem.scoring.instance_norm(x) for x in X)
    return SeparableData(np.array(X) if vector else X, Y, W, float(min(margins)), radius)


# ---------------------------------------------------------------- Figure 1
class Figure1Data(NamedTuple):
    """Data of the paper's synthetic experiment (Section 6, Figure 1).

    Attributes
    ----------
    X : list of ndarray
        One ``(m, p0)`` document matrix per query.
    Y : list of ndarray
        Relevance ``y(i) = m - j`` for documents whose score falls in band ``j``.
    w_star : ndarray
        The target ``w*``.
    thresholds : ndarray
        ``zeta_1 = +inf, zeta_j = 1/j (2 <= j <= m), zeta_{m+1} = -inf``.
    centres : ndarray or None
        Dense variant: the score ``<mu_i, w*>`` each document ``i`` is placed at.  The
        sparse variant draws documents uniformly and has no centres (``None``).
    """

    X: list
    Y: list
    w_star: np.ndarray
    thresholds: np.ndarray
    centres: np.ndarray | None


def figure1_thresholds(n_items: int) -> np.ndarray:
    """``zeta_1 = +inf``, ``zeta_j = 1/j`` for ``2 <= j <= m``, ``zeta_{m+1} = -inf`` (Section 6)."""
    m = check_int(n_items, "n_items", minimum=2, maximum=MAX_DENSE_ENTRIES)
    return np.concatenate([[np.inf], 1.0 / np.arange(2, m + 1), [-np.inf]])


def figure1_centres(n_items: int) -> np.ndarray:
    """The score each document is centred at: the middle of band ``i`` for document ``i``.

    Band ``j`` is ``[zeta_{j+1}, zeta_j]``.  The outer bands are unbounded, so document 1
    is put half a band-2 width above ``1/2`` and document ``m`` half a band-``(m-1)``
    width below ``1/m`` (our choice; the paper does not give the means).
    """
    m = check_int(n_items, "n_items", minimum=2, maximum=MAX_DENSE_ENTRIES)
    zeta = figure1_thresholds(m)
    centres = np.empty(m)
    inner = np.arange(2, m)  # bands 2..m-1, 1-based
    centres[1:-1] = (zeta[inner - 1] + zeta[inner]) / 2
    if m == 2:
        centres[:] = [0.75, 0.25]
        return centres
    centres[0] = zeta[1] + (zeta[1] - zeta[2]) / 2
    centres[-1] = zeta[m - 1] - (zeta[m - 2] - zeta[m - 1]) / 2
    return centres


def figure1_labels(scores: np.ndarray, n_items: int) -> np.ndarray:
    """``y(i) = m - j`` iff ``zeta_{j+1} <= score_i <= zeta_j`` (a score on a threshold takes the upper band)."""
    zeta = figure1_thresholds(n_items)
    scores = as_finite_array(scores, "scores")
    if scores.ndim != 1 or scores.size == 0:
        raise ValueError(f"scores must be a non-empty 1-D array, one per document; got shape {scores.shape}")
    descending = -zeta[1:-1]  # -1/2, -1/3, ..., increasing
    band = np.searchsorted(descending, -scores, side="left") + 1
    return (n_items - band).astype(np.int64)


def figure1_sparse_target(n_features: int, sparsity: int, norm: float = 0.5,
                          rng: np.random.Generator | None = None) -> np.ndarray:
    """The sparse target of panel (c): ``sparsity`` entries ``+-norm / sqrt(sparsity)``, the rest 0.

    The support is uniform among the ``n_features`` coordinates and the signs are fair
    coin flips, so ``||w*||_2 = norm`` and ``||w*||_1 = norm * sqrt(sparsity)``.
    """
    p0 = check_int(n_features, "n_features", minimum=1, maximum=MAX_DENSE_ENTRIES)
    s = check_int(sparsity, "sparsity", minimum=1)
    if s > p0:
        raise ValueError(f"sparsity must be <= n_features = {p0}; got {s}")
    norm = check_positive(norm, "norm", maximum=MAX_ABS_INPUT)
    rng = check_generator(rng) if rng is not None else np.random.default_rng(0)
    w = np.zeros(p0)
    support = rng.choice(p0, size=s, replace=False)
    w[support] = rng.choice([-1.0, 1.0], size=s) * (norm / np.sqrt(s))
    return w


def make_figure1_ranking(n_samples: int, n_items: int = 20, n_features: int = 30, noise: float = 1e-3,
                         sparsity: int | None = None, seed: int = 0, shuffle: bool = True,
                         target_norm: float = 0.5) -> Figure1Data:
    """The synthetic data of Figure 1 (Section 6), with the choices the paper leaves open.

    Given by the paper: queries ``X_tau`` in ``R^{m x p0}``, a target ``w*``, the
    thresholds ``zeta_j = 1/j`` and the labels ``y(i) = m - j`` for scores in band ``j``
    (:func:`figure1_labels`); for panels (a) and (b) independent spherical Gaussian rows
    centred at means ``mu_i``; for panel (c) documents in ``[-1, 1]^{p0}`` and a sparse
    ``w*``.

    Our choices (not in the paper):

    * **dense** ``w*`` (panels a, b; ``sparsity=None``): standard Gaussian, scaled to
      unit l2 norm; ``mu_i = c_i w*`` with ``c_i`` the centre of band ``i``
      (:func:`figure1_centres`), so that document ``i`` falls in band ``i``; each row
      is ``mu_i + noise * N(0, I)``, so the score ``<x_i, w*>`` is ``c_i`` plus
      Gaussian noise of standard deviation ``noise``.  The default ``noise = 1e-3`` is
      about 0.4 of the narrowest band's width for ``m = 20`` (``1/380``), so the lower
      documents sometimes swap bands (ties and swaps in ``y``).
    * **sparse** ``w*`` (panel c; ``sparsity = s``): every entry of every document is
      drawn independently and uniformly on ``[-1, 1]``; ``w*`` has ``s`` non-zero
      entries ``+-target_norm / sqrt(s)`` at random coordinates
      (:func:`figure1_sparse_target`), so ``||w*||_2 = target_norm``.  **Score scale:**
      since an entry uniform on ``[-1, 1]`` has variance ``1/3``, the score
      ``<x, w*>`` has mean 0 and standard deviation ``target_norm / sqrt(3)`` (0.29
      for the default 0.5), whatever ``p0`` and ``s``; it is nearly Gaussian for
      ``s`` of about 10 or more.  With ``m = 20`` about 4% of the documents score above
      ``zeta_2 = 1/2`` (top grade), about 57% below ``zeta_m = 1/20`` (grade 0) and
      the rest spread over the narrow bands in between, so every grade occurs in a
      few hundred queries.  ``noise`` here perturbs the score that decides the grade
      (``y = labels(<x, w*> + noise * N(0, 1))``); with ``noise = 0`` the grades are
      an exact function of ``x`` and ``w*`` separates every query.

    Parameters
    ----------
    n_samples : int
        Number of queries.
    n_items : int
        ``m``, documents per query (``>= 2``).
    n_features : int
        ``p0``.
    noise : float
        Standard deviation of the score noise (dense: of every feature of a row;
        sparse: of the score used for the grade).
    sparsity : int, optional
        Number of non-zero entries of ``w*`` (panel c); ``None`` for a dense ``w*``.
    seed : int
        Seed of all draws (``w*`` included).
    shuffle : bool, default True
        Permute the rows of every query (with a second generator seeded ``10_000 +
        seed``).  Unshuffled, a dense query has document ``i`` in row ``i`` and in band
        ``i``, so the input order alone is a near-perfect ranking: an untrained
        learner, whose tied scores keep the input order, would look perfect.  (Sparse
        rows are exchangeable, so shuffling them changes nothing in distribution.)
    target_norm : float, default 0.5
        Sparse variant only: ``||w*||_2``, which sets the score scale.

    Returns
    -------
    Figure1Data
        The queries, their grades, ``w*``, the thresholds and (dense only) the centres.

    Examples
    --------
    >>> data = make_figure1_ranking(3, n_items=20, n_features=500, noise=0.0, sparsity=50, seed=1)
    >>> data.X[0].shape, int((data.w_star != 0).sum()), round(float(np.linalg.norm(data.w_star)), 3)
    ((20, 500), 50, 0.5)
    """
    n_samples = check_int(n_samples, "n_samples", minimum=1, maximum=MAX_DENSE_ENTRIES)
    m = check_int(n_items, "n_items", minimum=2, maximum=MAX_DENSE_ENTRIES)
    p0 = check_int(n_features, "n_features", minimum=1, maximum=MAX_DENSE_ENTRIES)
    check_size("n_samples x n_items x n_features", n_samples, m, p0)
    noise = check_positive(noise, "noise", allow_zero=True, maximum=1e50)
    seed = check_seed(seed)
    shuffle = check_bool(shuffle, "shuffle")
    rng = np.random.default_rng(seed)
    X, Y = [], []
    if sparsity is None:
        centres = figure1_centres(m)
        w = rng.standard_normal(p0)
        w /= np.linalg.norm(w)
        for _ in range(n_samples):
            x = np.outer(centres, w) + noise * rng.standard_normal((m, p0))
            X.append(x)
            Y.append(figure1_labels(x @ w, m))
    else:
        centres = None
        w = figure1_sparse_target(p0, sparsity, target_norm, rng)
        for _ in range(n_samples):
            x = rng.uniform(-1.0, 1.0, size=(m, p0))
            score = x @ w
            if noise > 0:
                score = score + noise * rng.standard_normal(m)
            X.append(x)
            Y.append(figure1_labels(score, m))
    if shuffle:
        order = np.random.default_rng(10_000 + seed)
        perms = [order.permutation(m) for _ in X]
        X = [x[q] for x, q in zip(X, perms, strict=True)]
        Y = [y[q] for y, q in zip(Y, perms, strict=True)]
    return Figure1Data(X, Y, w, figure1_thresholds(m), centres)
