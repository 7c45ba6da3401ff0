"""Reader of svmlight / LibSVM text files (the LETOR layout included), validated line by line.

Each non-blank line is one example::

    <label> [qid:<int>] <index>:<value> <index>:<value> ... [# comment]

Indices are 1-based by default (``zero_based=True`` for 0-based files, e.g. those written for
LightGBM's command line), strictly increasing along a line; absent features are 0.  Text after
``#`` is a comment; LETOR files put the document id there (``#docid = GX015-44-4118282 ...``).
Files may be gzip- or bz2-compressed (recognised by their first bytes).

The numbers are parsed by scikit-learn's compiled reader,
:func:`sklearn.datasets.load_svmlight_file`.  It reports neither the file nor the line of a
fault and accepts NaN and infinity, so this module adds

* one cheap pass over the lines (before the parse) that maps each example to its line number and
  collects the ``qid:`` values and the document ids (scikit-learn's own ``query_id=True``
  grows its query array one element at a time, quadratic in the number of lines);
* on any failure of the parse, or when the parsed arrays break a rule (a non-finite value, a
  feature index above the limit), a re-scan that finds the first offending line and raises a
  ``ValueError`` naming the file, the line number, the rule and a short excerpt.  Good files
  pay nothing for it.

Absurd feature indices are refused before any dense matrix is allocated: the largest index must
not exceed ``n_features`` when it is given, else ``max_features`` (default
:data:`MAX_FEATURES`); a dense result is moreover limited to
``MAX_DENSE_ENTRIES`` (``predtron._validation``) values (pass ``sparse=True`` beyond that).
"""

from __future__ import annotations

import math
import re
from array import array
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from predtron._validation import check_int
from predtron.data.opening import (
    DECOMPRESSION_ERRORS,
    check_dense_size,
    check_file,
    open_binary,
    show,
    where,
)

#: Default ``max_features``: the largest feature index accepted when ``n_features`` is not given.
MAX_FEATURES = 1_000_000

#: A dense result whose width comes from the file (``n_features`` not given) is refused when it would
#: hold more than this many values (128 MiB of float64) of which under :data:`DENSE_MIN_FILL` are
#: given: the mark of a stray large index (``900000:1`` in a 200-row file would take gigabytes).
DENSE_CHECK_ENTRIES = 2**24

#: See :data:`DENSE_CHECK_ENTRIES`.
DENSE_MIN_FILL = 0.05

#: The largest index scikit-learn's reader can hold (a C ``int``); ``max_features=None`` means this.
_PARSER_LIMIT = 2**31 - 1

_DOCID = re.compile(rb"docid\s*=\s*(\S+)")
_INT64 = (-(2**63), 2**63 - 1)


class SvmlightData(NamedTuple):
    """The contents of an svmlight file, one row per example, in file order.

    Attributes
    ----------
    X : ndarray or scipy.sparse.csr_matrix of shape (n_rows, n_features)
        The features (CSR with ``sparse=True``; explicit zeros are not stored).
    y : ndarray of shape (n_rows,)
        The labels as written (float64).
    qid : ndarray of int64, shape (n_rows,), or None
        The ``qid:`` of each row, or ``None`` when the file has none.
    docids : ndarray of object, shape (n_rows,), or None
        The ``docid`` named in each row's comment (``None`` where a comment names none), or
        ``None`` when no comment in the file names one.
    lines : ndarray of int64, shape (n_rows,)
        The line number (1-based) of each row in the file, for messages about a row.
    """

    X: np.ndarray | sp.csr_matrix
    y: np.ndarray
    qid: np.ndarray | None
    docids: np.ndarray | None
    lines: np.ndarray


def check_flag(value, name: str) -> bool:
    """A Python or numpy bool (a truthy string such as ``'no'`` is refused)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r}")
    return bool(value)


class _Limit(NamedTuple):
    """The number of feature columns allowed and the argument that sets it (for messages)."""

    columns: int
    reason: str


def _limit(n_features: int | None, max_features: int | None) -> _Limit:
    if n_features is not None:
        return _Limit(n_features, f"n_features = {n_features}")
    if max_features is None:
        return _Limit(_PARSER_LIMIT, f"the reader's limit of {_PARSER_LIMIT} features")
    return _Limit(max_features, f"max_features = {max_features}, a guard against absurd indices "
                                "(pass n_features, or a larger max_features if the file really has "
                                "that many features)")


def _line_problem(body: bytes, zero_based: bool, limit: _Limit, qid_expected: bool | None) -> str | None:
    """What is wrong with one data line (its text before ``#``), or ``None`` if nothing is."""
    if b"\x00" in body:
        return "the line contains a NUL byte"
    tokens = body.split()
    try:
        label = float(tokens[0])
    except ValueError:
        return f"the label {show(tokens[0])} is not a number"
    if not math.isfinite(label):
        return f"the label is {show(tokens[0])}; labels must be finite numbers"
    features = tokens[1:]
    has_qid = bool(features) and features[0].startswith(b"qid")
    if qid_expected is not None and has_qid != qid_expected:
        return ("this line has no qid: but earlier lines do" if qid_expected else
                "this line has a qid: but earlier lines do not") + "; give every line a qid: or none"
    if has_qid:
        token = features.pop(0)
        try:
            if not token.startswith(b"qid:"):
                raise ValueError
            qid = int(token[4:])
        except ValueError:
            return f"expected qid:<integer> after the label; got {show(token)}"
        if not _INT64[0] <= qid <= _INT64[1]:
            return f"the query id {qid} does not fit in a 64-bit integer"
    first = 0 if zero_based else 1
    previous = first - 1
    for token in features:
        index, colon, value = token.partition(b":")
        if not colon:
            return f"expected <index>:<value>; got {show(token)}"
        try:
            j = int(index)
        except ValueError:
            if index.startswith(b"qid"):
                return f"{show(token)}: qid: must come right after the label"
            return f"the feature index {show(index)} in {show(token)} is not an integer"
        try:
            v = float(value)
        except ValueError:
            return f"the feature value {show(value)} in {show(token)} is not a number"
        if j < first:
            hint = "; pass zero_based=True for a file with 0-based indices" if j == 0 else ""
            return f"feature index {j} in {show(token)}: indices start at {first}{hint}"
        if j == previous:
            return f"feature index {j} appears twice; each feature may appear once per line"
        if j < previous:
            return f"feature index {j} comes after {previous}; indices must increase along a line"
        if j - first >= limit.columns:
            return f"feature index {j} is beyond {limit.reason}"
        if not math.isfinite(v):
            return f"feature {j} has the value {show(value)}; values must be finite numbers"
        previous = j
    return None


def check_inferred_dense(path, X: sp.csr_matrix, lines: np.ndarray, zero_based: bool) -> None:
    """Refuse a dense matrix as wide as ``X``'s largest index when that width is a stray index's doing.

    Called when the width comes from the file (no ``n_features``): above
    :data:`DENSE_CHECK_ENTRIES` values with under :data:`DENSE_MIN_FILL` of them given, the
    ``ValueError`` names the line and the index that set the width and the two ways on: a sparse
    result, or an explicit number of features (which also refuses the stray index, with its line).
    """
    rows, width = X.shape
    entries = rows * width
    if entries <= DENSE_CHECK_ENTRIES or X.nnz >= DENSE_MIN_FILL * entries:
        return
    at = int(np.argmax(X.indices))
    row = int(np.searchsorted(X.indptr, at, side="right")) - 1
    index = int(X.indices[at]) + (0 if zero_based else 1)
    raise ValueError(
        f"{where(path, int(lines[row]))}: feature index {index} makes a dense matrix of {rows} rows x {width} "
        f"features ({entries * 8 / 2**30:.1f} GiB) of which {X.nnz:,} values are given; read it as a sparse matrix "
        "(sparse=True, --sparse on the command line), or give the number of features (n_features, --n-features), "
        "which refuses any index beyond it")


def _raise_first_bad_line(path, zero_based: bool, limit: _Limit, cause: Exception | None = None):
    """Re-scan ``path`` and raise a ``ValueError`` for its first malformed line."""
    qid_expected = None
    with open_binary(path) as handle:
        for number, raw in enumerate(handle, start=1):
            body = raw.partition(b"#")[0]
            if not body.split():
                continue
            problem = _line_problem(body, zero_based, limit, qid_expected)
            if problem is not None:
                raise ValueError(f"{where(path, number)}: {problem}: {show(raw)}")
            rest = body.split(None, 2)
            qid_expected = len(rest) > 1 and rest[1].startswith(b"qid")
    detail = f" ({type(cause).__name__}: {cause})" if cause is not None else ""
    raise ValueError(f"{path} could not be read as an svmlight file{detail}")


def damaged_message(path, line: int, exc: BaseException) -> str:
    """The message for a compressed file that ends (or is damaged) after ``line`` lines were read."""
    if line == 0:
        return f"{path} could not be read: {type(exc).__name__}: {exc}"
    return (f"{path} could not be read after line {line}: the file ends or is damaged inside its compressed data "
            f"({type(exc).__name__}: {exc})")


def _lines(handle, path):
    """``(number, line)`` of a file being read; a damaged or truncated compressed file raises a
    ``ValueError`` naming the last line read."""
    number = 0
    lines = iter(handle)
    while True:
        try:
            raw = next(lines)
        except StopIteration:
            return
        except DECOMPRESSION_ERRORS as exc:
            if isinstance(exc, FileNotFoundError | PermissionError):
                raise
            raise ValueError(damaged_message(path, number, exc)) from None
        number += 1
        yield number, raw


class _Scan(NamedTuple):
    lines: np.ndarray
    qid: np.ndarray | None
    docids: np.ndarray | None
    ok: bool


def _scan(path) -> _Scan:
    """One pass over the lines: line number of each example, its ``qid:`` and its docid."""
    lines = array("q")
    qids: list[int] = []
    docids: list[str | None] = []
    named = False
    has_qid = None
    with open_binary(path) as handle:
        for number, raw in _lines(handle, path):
            body, _, comment = raw.partition(b"#")
            tokens = body.split(None, 2)
            if not tokens:
                continue
            if b"\x00" in body:
                return _Scan(lines, None, None, ok=False)
            here = len(tokens) > 1 and tokens[1].startswith(b"qid")  # scikit-learn's test, to agree with it
            if has_qid is None:
                has_qid = here
            if here != has_qid:
                return _Scan(lines, None, None, ok=False)
            if here:
                try:
                    if not tokens[1].startswith(b"qid:"):
                        raise ValueError
                    qid = int(tokens[1][4:])
                except ValueError:
                    return _Scan(lines, None, None, ok=False)
                if not _INT64[0] <= qid <= _INT64[1]:
                    return _Scan(lines, None, None, ok=False)
                qids.append(qid)
            match = _DOCID.search(comment) if comment else None
            docids.append(match.group(1).decode("utf-8", errors="replace") if match else None)
            named = named or match is not None
            lines.append(number)
    return _Scan(np.frombuffer(lines, dtype=np.int64).copy() if lines else np.zeros(0, dtype=np.int64),
                 np.array(qids, dtype=np.int64) if has_qid else None,
                 np.array(docids, dtype=object) if named else None, ok=True)


def _check_reader_options(path, sparse, zero_based, n_features, max_features):
    """The options the loader and the streaming reader share, checked (and the path resolved)."""
    path = check_file(path, "svmlight")
    sparse = check_flag(sparse, "sparse")
    zero_based = check_flag(zero_based, "zero_based")
    if n_features is not None:
        n_features = check_int(n_features, "n_features", minimum=1, maximum=_PARSER_LIMIT)
    if max_features is not None:
        max_features = check_int(max_features, "max_features", minimum=1, maximum=_PARSER_LIMIT)
    return path, sparse, zero_based, n_features, max_features


def load_svmlight(path, *, n_features: int | None = None, sparse: bool = False, zero_based: bool = False,
                  max_features: int | None = MAX_FEATURES) -> SvmlightData:
    """Read an svmlight / LibSVM file (optionally with ``qid:``) into the flat layout.

    Parameters
    ----------
    path : str or path-like
        The file; gzip and bz2 compression are recognised by content.
    n_features : int, optional
        Number of feature columns.  Default: the largest index in the file (pass it when
        a training and a test file must agree).  A larger index in the file is an error.
        Without it, a dense result made mostly empty by one large index (above
        :data:`DENSE_CHECK_ENTRIES` values, under :data:`DENSE_MIN_FILL` of them given) is
        refused, naming the line and the index: pass ``sparse=True`` or ``n_features``.
    sparse : bool, default False
        Return ``X`` as a :class:`scipy.sparse.csr_matrix` instead of a dense array.
    zero_based : bool, default False
        Whether feature indices start at 0 (LibSVM files for LightGBM) instead of 1
        (svmlight, LETOR).
    max_features : int or None, default :data:`MAX_FEATURES`
        Without ``n_features``, the largest number of features accepted: a guard that
        refuses an absurd index (say ``10000000000:1``) before anything is allocated.
        ``None`` allows up to ``2**31 - 1`` (the reader's own limit).

    Returns
    -------
    SvmlightData
        ``X``, ``y`` (float labels as written), ``qid`` (or ``None``), ``docids`` (or
        ``None``) and the line number of each row.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If a line is malformed (a non-number, a token without ``:``, a feature index below
        the first or beyond the limit, repeated or decreasing indices, NaN or infinity, a
        bad ``qid:``, ``qid:`` on some lines only, a NUL byte): the message names the file,
        the line number and the rule.  Also for an empty file, a damaged compressed file,
        or a dense matrix above the size limit.
    """
    path, sparse, zero_based, n_features, max_features = _check_reader_options(
        path, sparse, zero_based, n_features, max_features)
    limit = _limit(n_features, max_features)
    try:
        scan = _scan(path)
        if not scan.ok:
            _raise_first_bad_line(path, zero_based, limit)
        from sklearn.datasets import load_svmlight_file

        try:
            with open_binary(path) as handle:
                X, y = load_svmlight_file(handle, zero_based=zero_based, query_id=False)
        except MemoryError:
            raise
        except Exception as exc:  # ValueError, OverflowError, ...: no line number, so find the line
            _raise_first_bad_line(path, zero_based, limit, exc)
        X = sp.csr_matrix(X)
        if X.shape[0] != scan.lines.size:  # both passes skip the same lines; guard all the same
            raise ValueError(f"{path}: read {X.shape[0]} examples but counted {scan.lines.size} data lines")
        if X.shape[0] == 0:
            raise ValueError(f"{path} contains no data lines (only blank lines or comments)")
        if ((X.nnz and int(X.indices.max()) >= limit.columns) or not np.all(np.isfinite(X.data))
                or not np.all(np.isfinite(y))):
            _raise_first_bad_line(path, zero_based, limit)
    except DECOMPRESSION_ERRORS as exc:
        if isinstance(exc, FileNotFoundError | PermissionError):
            raise
        raise ValueError(f"{path} could not be read: {type(exc).__name__}: {exc}") from None
    inferred = n_features is None
    if n_features is None:
        if X.nnz == 0:
            raise ValueError(f"{path}: no line gives a feature value, so the number of features is "
                             "unknown; pass n_features")
        n_features = int(X.indices.max()) + 1
    X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))
    if sparse:
        X.eliminate_zeros()
    else:
        check_dense_size(X.shape[0], n_features, path)
        if inferred:
            check_inferred_dense(path, X, scan.lines, zero_based)
        X = X.toarray()
    return SvmlightData(X, np.asarray(y, dtype=np.float64).copy(), scan.qid, scan.docids, scan.lines)
