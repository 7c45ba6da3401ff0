"""Learning-to-rank files: LETOR / svmlight with ``qid:``, or LightGBM's layout with group sizes.

Two layouts are read (both by :func:`load_letor`):

* **LETOR / svm_rank / XGBoost**: every line carries ``qid:<id>`` after the relevance, e.g.
  ``2 qid:10 1:0.5 3:1.0 #docid = GX015-44-4118282``; a query's lines are contiguous.
* **LightGBM**: plain svmlight lines (no ``qid:``) plus group sizes, one integer per line, in a
  sidecar file named after the data file with ``.query`` appended (LightGBM's name; XGBoost's
  ``.group`` is also recognised), in a file given by ``group_file``, or in a ``group=`` array.

A file with ``qid:`` and sizes as well (given, or a sidecar beside it) is read only when they
agree (:func:`check_sizes_match_queries`, the one rule of the in-memory and streaming readers).

The result keeps the *flat* layout that LightGBM, XGBoost and scikit-learn use (one row per
document with a query id and group sizes); :meth:`LetorData.queries` gives the per-query lists
the learners take (see also :func:`~predtron.data.layout.split_queries`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from predtron._validation import check_int
from predtron.data.layout import check_group_sizes
from predtron.data.opening import DECOMPRESSION_ERRORS, check_file, excerpt, open_binary, show, where
from predtron.data.svmlight import MAX_FEATURES, check_flag, load_svmlight
from predtron.problems.ranking_measures import MAX_EXPONENTIAL_GRADE

#: Sidecar suffixes looked for next to a data file without ``qid:``, in this order.
SIDECAR_SUFFIXES = (".query", ".group")


class LetorData(NamedTuple):
    """A ranking data set in the flat layout: one row per document, queries contiguous, in file order.

    Attributes
    ----------
    X : ndarray or scipy.sparse.csr_matrix of shape (n_documents, n_features)
        Features of every document.
    y : ndarray of int64, shape (n_documents,)
        Relevance grades (integers ``>= 0``).
    qid : ndarray of int64, shape (n_documents,)
        The query id of each document: as written after ``qid:``, or, when the sizes come
        from ``group``, a sidecar or ``group_file``, the query's position ``0, 1, 2, ...``.
    group : ndarray of int64, shape (n_queries,)
        Documents per query, in file order (LightGBM's ``group``); they sum to ``n_documents``.
    docids : ndarray of object or None
        Per document, the ``docid`` its comment names (``None`` where none); ``None`` when no
        comment in the file names one.
    """

    X: np.ndarray | sp.csr_matrix
    y: np.ndarray
    qid: np.ndarray
    group: np.ndarray
    docids: np.ndarray | None

    @property
    def query_ids(self) -> np.ndarray:
        """The id of each query, in file order (``qid`` at the first row of each group)."""
        return self.qid[np.concatenate([[0], np.cumsum(self.group)[:-1]])]

    def queries(self, dense: bool = True) -> tuple[list, list[np.ndarray]]:
        """The per-query layout the learners take: ``(Xs, ys)``, one entry per query.

        Parameters
        ----------
        dense : bool, default True
            With a sparse ``X``, convert each query's block to a dense array (one query at a
            time, so the whole matrix is never dense at once); ``False`` keeps CSR blocks.
        """
        dense = check_flag(dense, "dense")
        ends = np.cumsum(self.group)
        starts = ends - self.group
        if sp.issparse(self.X):
            blocks = [self.X[a:b] for a, b in zip(starts, ends, strict=True)]
            Xs = [block.toarray() for block in blocks] if dense else blocks
        else:
            Xs = [self.X[a:b] for a, b in zip(starts, ends, strict=True)]
        return Xs, [self.y[a:b] for a, b in zip(starts, ends, strict=True)]


def read_group_file(path, n_rows: int | None = None) -> np.ndarray:
    """Read group sizes, one per line (LightGBM's ``.query`` / XGBoost's ``.group`` file).

    Blank lines are skipped; integral floats such as ``3.0`` or ``3.000e+00`` (as written by
    :func:`numpy.savetxt`) are accepted.  A line that is not a whole number ``>= 1`` raises a
    ``ValueError`` naming the file and the line; so do sizes that do not sum to ``n_rows``.
    """
    path = check_file(path, "group-size")
    if n_rows is not None:
        n_rows = check_int(n_rows, "n_rows", minimum=0)
    sizes: list[int] = []
    try:
        with open_binary(path) as handle:
            for number, raw in enumerate(handle, start=1):
                text = raw.strip()
                if not text:
                    continue
                try:
                    value = float(text)
                except ValueError:
                    raise ValueError(f"{where(path, number)}: expected one group size (a whole number "
                                     f">= 1) per line; got {show(raw)}") from None
                if not (value.is_integer() and 1 <= value <= 2**62):
                    raise ValueError(f"{where(path, number)}: a group size must be a whole number >= 1; "
                                     f"got {show(raw)}")
                sizes.append(int(value))
    except DECOMPRESSION_ERRORS as exc:
        if isinstance(exc, FileNotFoundError | PermissionError):
            raise
        raise ValueError(f"{path} could not be read: {type(exc).__name__}: {exc}") from None
    if not sizes:
        raise ValueError(f"{path} contains no group sizes")
    total = sum(sizes)
    if n_rows is not None and total != n_rows:
        raise ValueError(f"{path}: the group sizes sum to {total} but the data have {n_rows} rows (n_rows); "
                         f"sizes = {excerpt(sizes)}")
    return np.array(sizes, dtype=np.int64)


def find_sidecar(path) -> Path | None:
    """The group-size file LightGBM (``<file>.query``) or XGBoost (``<file>.group``) would use, if any."""
    if isinstance(path, (bytes, bytearray)):
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or path-like naming a data file; got {type(path).__name__}")
    path = Path(path)
    bases = [path]
    if path.suffix in (".gz", ".bz2"):
        bases.append(path.with_suffix(""))
    for base in bases:
        for suffix in SIDECAR_SUFFIXES:
            candidate = base.with_name(base.name + suffix)
            if candidate.is_file():
                return candidate
    return None


def _check_relevance(path, y: np.ndarray, lines: np.ndarray) -> np.ndarray:
    good = (y >= 0) & (y == np.round(y)) & (y <= MAX_EXPONENTIAL_GRADE)
    if not good.all():
        row = int(np.flatnonzero(~good)[0])
        value = y[row].item()
        value = int(value) if value.is_integer() and abs(value) < 2**53 else value  # 1e308 stays short
        rule = (f"at most {MAX_EXPONENTIAL_GRADE} (the gain 2^y - 1 of larger grades overflows)"
                if value > MAX_EXPONENTIAL_GRADE and float(value).is_integer() else "a whole number >= 0")
        raise ValueError(f"{where(path, int(lines[row]))}: the relevance grade {value!r} must be {rule}")
    return y.astype(np.int64)


def _runs(path, qid: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """Sizes of the runs of equal ``qid``; refuses a query whose lines are not contiguous."""
    starts = np.flatnonzero(np.concatenate([[True], qid[1:] != qid[:-1]]))
    runs = qid[starts]
    if np.unique(runs).size != runs.size:
        first: dict[int, int] = {}
        for start, q in zip(starts.tolist(), runs.tolist(), strict=True):
            if q in first:
                raise ValueError(
                    f"{where(path, int(lines[start]))}: query {q} continues here after lines of other "
                    f"queries (it starts at line {int(lines[first[q]])}); the lines of a query must be "
                    "contiguous: sort the file by qid, keeping the order within each query (e.g. "
                    "`sort -s -t: -k2,2n FILE`)"
                )
            first[q] = start
    return np.diff(np.append(starts, qid.size)).astype(np.int64)


def size_source(group_file) -> str:
    """How the messages of :func:`check_sizes_match_queries` name given group sizes: those of
    ``group_file`` (a sidecar or a given file), else those of the ``group`` argument."""
    return f"the group sizes in {group_file}" if group_file is not None else "the sizes in group"


def check_sizes_cover_rows(path, source: str, sizes: np.ndarray, n_rows: int) -> None:
    """Refuse given group sizes (of a file without ``qid:``) that do not add up to its ``n_rows``
    rows: the one message of :func:`load_letor` and of :func:`~predtron.data.stream.iter_letor`."""
    if int(np.sum(sizes)) != n_rows:
        raise ValueError(_sizes_against_rows(path, source, sizes, n_rows))


def _sizes_against_rows(path, source: str, sizes: np.ndarray, n_rows: int) -> str:
    """The message of :func:`check_sizes_cover_rows`."""
    return f"{source}: {len(sizes)} sizes summing to {int(np.sum(sizes))} do not match the {n_rows} rows of {path}"


def check_sizes_match_queries(path, source: str, sizes: np.ndarray, first: int, runs: np.ndarray, lines: np.ndarray,
                              complete: bool) -> None:
    """Refuse given group sizes that contradict the ``qid:`` fields of the file ``path``.

    The one rule of :func:`load_letor` (the whole file at once) and of
    :func:`~predtron.data.stream.iter_letor` (a chunk of whole queries at a time, then the end of
    the file): a file with ``qid:`` and given sizes (``group``, ``group_file`` or a sidecar found
    beside it) must have one query per size, of that size, in order.

    Parameters
    ----------
    path : path-like
        The data file (for the message).
    source : str
        The sizes in the message (:func:`size_source`).
    sizes : ndarray of int64
        All the given sizes.
    first : int
        The position in the file of the first query of ``runs``.
    runs : ndarray of int64
        The sizes of consecutive whole queries of the file (runs of equal ``qid``).
    lines : ndarray of int
        The line where each of ``runs`` starts.
    complete : bool
        ``runs`` end the file: sizes left over are refused too.

    Raises
    ------
    ValueError
        Naming the first query that differs (its position, line and sizes), or the numbers of
        queries when the sizes give fewer or more than the file has.
    """
    expected = sizes[first:first + runs.size]
    differ = np.flatnonzero(expected != runs[:expected.size])
    if differ.size:
        i = int(differ[0])
        found = int(runs[i])
        raise ValueError(f"{source} do not match the queries of {path} given by its qid: fields: query {first + i + 1} "
                         f"(from line {int(lines[i])}) has {found} line{'s' if found != 1 else ''}, where the sizes "
                         f"give {int(expected[i])}")
    if expected.size < runs.size:
        raise ValueError(f"{source} give {sizes.size} quer{'ies' if sizes.size != 1 else 'y'}, but {path} has more by "
                         f"its qid: fields (query {first + expected.size + 1} starts at line "
                         f"{int(lines[expected.size])})")
    if complete and first + runs.size < sizes.size:
        raise ValueError(f"{source} give {sizes.size} queries, but {path} has {first + runs.size} by its qid: fields")


def load_letor(path, *, group=None, group_file=None, n_features: int | None = None, sparse: bool = False,
               zero_based: bool = False, max_features: int | None = MAX_FEATURES) -> LetorData:
    """Read a learning-to-rank file into the flat layout, validated line by line.

    Parameters
    ----------
    path : str or path-like
        An svmlight file (plain, gzip or bz2), with ``qid:`` on every line or on none.
    group : array-like of ints, optional
        Documents per query, in file order (LightGBM's ``group``); for a file without
        ``qid:``.  Integral floats (``3.0``) are accepted.
    group_file : str or path-like, optional
        A file of group sizes, one per line, instead of ``group``.  When neither is given,
        ``<path>.query`` or ``<path>.group`` is used if it exists (:func:`find_sidecar`).
        With ``qid:`` in the file, given or found sizes must match its queries, one size
        per query in order (:func:`check_sizes_match_queries`, the rule of
        :func:`~predtron.data.stream.iter_letor` too); the queries are the ``qid:`` runs.
    n_features : int, optional
        Number of features (pass it so that a training and a test file agree).
    sparse : bool, default False
        Return ``X`` as a :class:`scipy.sparse.csr_matrix`.
    zero_based : bool, default False
        Feature indices start at 0 instead of 1 (LETOR and svmlight are 1-based).
    max_features : int or None
        Guard against absurd feature indices when ``n_features`` is not given (see
        :func:`~predtron.data.svmlight.load_svmlight`).

    Returns
    -------
    LetorData
        ``X``, ``y`` (int relevance), ``qid``, ``group`` and ``docids``; ``.queries()``
        gives per-query lists.

    Raises
    ------
    FileNotFoundError
        If ``path`` or ``group_file`` does not exist.
    ValueError
        For every malformed line (file and line number in the message; see
        :func:`~predtron.data.svmlight.load_svmlight`), a relevance grade that is not a
        whole number ``>= 0``, a query whose lines are not contiguous, group sizes that are
        not whole numbers ``>= 1`` or do not sum to the number of lines, sizes (given, or a
        sidecar beside the file) that contradict the file's ``qid:`` fields, and a file without
        ``qid:`` and without group sizes.

    Examples
    --------
    >>> data = load_letor("vali.txt")            # doctest: +SKIP
    >>> Xs, ys = data.queries()                  # doctest: +SKIP
    """
    if group is not None and group_file is not None:
        raise ValueError("give at most one of group (an array of sizes) and group_file (a path)")
    if isinstance(group, (str, bytes, os.PathLike)):
        raise TypeError(f"group takes an array of group sizes; pass a file of group sizes as group_file= "
                        f"(got group={group!r})")
    data = load_svmlight(path, n_features=n_features, sparse=sparse, zero_based=zero_based,
                         max_features=max_features)
    path = Path(path)
    n_rows = data.X.shape[0]
    y = _check_relevance(path, data.y, data.lines)
    if group_file is None and group is None:
        group_file = find_sidecar(path)  # with qid: too, where it must agree with them (as in iter_letor)
        if group_file is None and data.qid is None:
            raise ValueError(
                f"{path} has no qid: on its lines and no group sizes were given; pass group=[...] or "
                f"group_file=..., or put the sizes, one per line, in {path}.query"
            )
    if data.qid is None:
        if group_file is not None:
            sizes = read_group_file(group_file)
            check_sizes_cover_rows(path, size_source(group_file), sizes, n_rows)
        else:
            sizes = check_group_sizes(group, n_rows, name="group")
        return LetorData(data.X, y, np.repeat(np.arange(sizes.size, dtype=np.int64), sizes), sizes, data.docids)
    runs = _runs(path, data.qid, data.lines)
    if group_file is not None or group is not None:
        sizes = read_group_file(group_file) if group_file is not None else check_group_sizes(group, name="group")
        check_sizes_match_queries(path, size_source(group_file), sizes, 0, runs,
                                  data.lines[np.cumsum(runs) - runs], complete=True)
    return LetorData(data.X, y, data.qid, runs, data.docids)
