"""The flat learning-to-rank layout and the per-query layout, and the conversions between them.

Learners take ranking data as a list of per-query document matrices and a list of
relevance arrays.  Libraries such as LightGBM and XGBoost take one ``(N, p0)`` matrix
with a relevance array and either query ids or group sizes; :func:`split_queries` and
:func:`flatten_queries` convert between the two.  The generators of ranking data are in
:mod:`predtron.data.ranking`.
"""

from __future__ import annotations

import numpy as np

from predtron._validation import (
    as_finite_array,
    as_label_array,
    check_bool,
    check_each,
    check_int,
    check_query_ids,
)
from predtron._validation import (
    excerpt as short,
)
from predtron.data.opening import excerpt
from predtron.problems.ranking import check_relevance
from predtron.scoring import DocumentScoring


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
