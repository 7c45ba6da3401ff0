"""Reader of svmlight / LibSVM text files (the LETOR layout included), validated line by line.

Each non-blank line is one example::

    <label> [qid:<int>] <index>:<value> <index>:<value> ... [# comment]

Indices are 1-based by default (``zero_based=True`` for 0-based files, e.g. those written for
LightGBM's command line), strictly increasing along a line; absent features are 0.  Text after
``#`` is a comment; LETOR files put the document id there (``#docid = GX015-44-4118282 ...``).
Files may be gzip- or bz2-compressed (recognised by their first bytes).

The numbers are parsed by the package's compiled parser (:mod:`predtron.data._svmlight_parse`,
the one the streaming readers use), which gives each example's line number and ``qid:`` and
refuses a malformed line with a ``ValueError`` naming the file, the line number, the rule
(:mod:`predtron.data._svmlight_rules`) and a short excerpt.  Its values equal scikit-learn's
:func:`sklearn.datasets.load_svmlight_file`, bit for bit (``tests/test_stream_fuzz.py``
compares them on random files), without importing scikit-learn (about a second of a command's
start).  The document ids are read from the comments by a pass that only counts the lines of
the blocks of the file that hold no ``docid``.

Absurd feature indices are refused before any dense matrix is allocated: the largest index must
not exceed ``n_features`` when it is given, else ``max_features`` (default
:data:`MAX_FEATURES`); a dense result is moreover limited to
``MAX_DENSE_ENTRIES`` (``predtron._validation``) values (pass ``sparse=True`` beyond that).
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from predtron._validation import check_int
from predtron.data._svmlight_parse import BLOCK_BYTES, _chunks, every_row
from predtron.data._svmlight_rules import _PARSER_LIMIT
from predtron.data.opening import DECOMPRESSION_ERRORS, check_dense_size, check_file, open_binary, where

#: Default ``max_features``: the largest feature index accepted when ``n_features`` is not given.
MAX_FEATURES = 1_000_000

#: A dense result whose width comes from the file (``n_features`` not given) is refused when it would
#: hold more than this many values (128 MiB of float64) of which under :data:`DENSE_MIN_FILL` are
#: given: the mark of a stray large index (``900000:1`` in a 200-row file would take gigabytes).
DENSE_CHECK_ENTRIES = 2**24

#: See :data:`DENSE_CHECK_ENTRIES`.
DENSE_MIN_FILL = 0.05

_DOCID = re.compile(rb"docid\s*=\s*(\S+)")

#: Examples per piece of the parse (the pieces are joined at the end).
_PIECE_ROWS = 1 << 16


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
    try:
        pieces = list(_chunks(path, _PIECE_ROWS, zero_based, n_features, max_features, every_row, None))
        lines = np.concatenate([piece["lines"] for piece in pieces])
        docids = _docids(path, lines)
    except DECOMPRESSION_ERRORS as exc:
        if isinstance(exc, FileNotFoundError | PermissionError):
            raise
        raise ValueError(f"{path} could not be read: {type(exc).__name__}: {exc}") from None
    raw = _joined(pieces)
    del pieces
    if n_features is None and raw["indices"].size == 0:
        raise ValueError(f"{path}: no line gives a feature value, so the number of features is "
                         "unknown; pass n_features")
    return SvmlightData(rows_matrix(path, raw, n_features, sparse, zero_based), raw["y"], raw.get("qid"), docids,
                        lines)


def rows_matrix(path, raw: dict, n_features: int | None, sparse: bool, zero_based: bool):
    """The feature matrix of parsed rows (``raw``: the parser's CSR arrays and line numbers): CSR
    without explicit zeros (``sparse``), or dense after the size check and, when the width comes
    from the rows (``n_features`` is ``None``: their largest index), the stray-index check.  The
    one rule of the loader and of every streamed chunk."""
    rows, indices = len(raw["lines"]), raw["indices"]
    width = n_features if n_features is not None else (int(indices.max()) + 1 if indices.size else 0)
    X = sp.csr_matrix((raw["values"], indices, raw["indptr"]), shape=(rows, width))
    if sparse:
        X.eliminate_zeros()
        return X
    check_dense_size(rows, width, path)
    if n_features is None:
        check_inferred_dense(path, X, raw["lines"], zero_based)
    return X.toarray()


def _joined(pieces: list[dict]) -> dict:
    """The raw rows of consecutive pieces of a parse as one piece (each piece's offsets start at 0)."""
    ends, offset = [np.zeros(1, dtype=np.int64)], 0
    for piece in pieces:
        ends.append(piece["indptr"][1:] + offset)
        offset += int(piece["indptr"][-1])
    joined = {name: np.concatenate([piece[name] for piece in pieces]) for name in pieces[0] if name != "indptr"}
    joined["indptr"] = np.concatenate(ends)
    return joined


def _docids(path, lines: np.ndarray) -> np.ndarray | None:
    """The ``docid`` named in the comment of each example's line (``lines``: their numbers), or
    ``None`` when no comment names one.  A block of the file without the word is only counted."""
    named: dict[int, str] = {}
    number, carry = 1, b""  # the number of the first line of carry + the next block
    with open_binary(path) as handle:
        while True:
            block = handle.read(BLOCK_BYTES)
            text = carry + block
            end = len(text) if not block else text.rfind(b"\n") + 1
            whole, carry = text[:end], text[end:]
            if b"docid" in whole:
                for offset, raw in enumerate(whole.split(b"\n")):
                    comment = raw.partition(b"#")[2]
                    match = _DOCID.search(comment) if comment else None
                    if match:
                        named[number + offset] = match.group(1).decode("utf-8", errors="replace")
            number += whole.count(b"\n")
            if not block:
                break
    if not named:
        return None
    return np.array([named.get(int(line)) for line in lines], dtype=object)
