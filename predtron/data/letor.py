"""Loader of LETOR / svmlight ranking files with query ids (pure numpy).

Each line is ``<relevance> qid:<id> <feature>:<value> ... [# comment]``, e.g. the LETOR
4.0 MQ2008 files, whose comments read ``#docid = GX015-44-4118282 inc = 1 prob = 0.1``.
Feature indices are 1-based; features absent from a line are 0.
"""

from __future__ import annotations

import itertools
import os
from typing import NamedTuple

import numpy as np

from predtron._validation import check_int
from predtron.data.ranking import split_queries


class LetorData(NamedTuple):
    """A ranking data set, one entry per query in file order.

    Attributes
    ----------
    X : list of ndarray
        ``(m_q, p0)`` document matrices.
    Y : list of ndarray
        Integer relevance grades.
    qids : ndarray
        The query id of each entry (as written in the file).
    docids : list of list
        Per query, the ``docid`` of each document when the comment names one, else ``None``.
    """

    X: list
    Y: list
    qids: np.ndarray
    docids: list


def _docid(comment: str) -> str | None:
    tokens = comment.replace("=", " = ").split()
    for i, token in enumerate(tokens[:-2]):
        if token == "docid" and tokens[i + 1] == "=":
            return tokens[i + 2]
    return None


def load_letor(path, n_features: int | None = None) -> LetorData:
    """Read an svmlight file with ``qid:`` into per-query matrices and relevance arrays.

    Parameters
    ----------
    path : str or path-like
        The file (e.g. ``letor-mq2008-fold1/vali.txt``).
    n_features : int, optional
        Number of features ``p0``; default: the largest feature index in the file.  A
        larger index raises ``ValueError``.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist (the message names it).
    ValueError
        On a malformed line (the message gives its number), a non-integer or negative
        relevance, or a query whose lines are not contiguous.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"LETOR file not found: {path}")
    labels, qids, docids, rows, cols, vals = [], [], [], [], [], []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            body, _, comment = line.partition("#")
            tokens = body.split()
            if not tokens:
                continue
            if len(tokens) < 2 or not tokens[1].startswith("qid:"):
                raise ValueError(f"{path}, line {number}: expected '<relevance> qid:<id> <index>:<value> ...'; "
                                 f"got {line.strip()[:60]!r}")
            try:
                label = float(tokens[0])
            except ValueError:
                raise ValueError(f"{path}, line {number}: relevance {tokens[0]!r} is not a number") from None
            if not label.is_integer() or label < 0:
                raise ValueError(f"{path}, line {number}: relevance must be an integer >= 0; got {tokens[0]!r}")
            row = len(labels)
            labels.append(int(label))
            qids.append(tokens[1][4:])
            docids.append(_docid(comment))
            for token in tokens[2:]:
                index, sep, value = token.partition(":")
                try:
                    j, v = int(index), float(value)
                except ValueError:
                    j, v = -1, 0.0
                if not sep or j < 1 or not np.isfinite(v):
                    raise ValueError(f"{path}, line {number}: expected '<index>:<value>' with index >= 1 and a "
                                     f"finite value; got {token!r}")
                rows.append(row)
                cols.append(j - 1)
                vals.append(v)
    if not labels:
        raise ValueError(f"{path} contains no data lines")
    width = max(cols, default=-1) + 1
    if n_features is not None:
        n_features = check_int(n_features, "n_features", minimum=1)
        if width > n_features:
            raise ValueError(f"{path} has feature index {width} > n_features = {n_features}")
        width = n_features
    X = np.zeros((len(labels), width))
    X[np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)] = vals
    qid_array = np.array([int(q) if q.lstrip("-").isdigit() else q for q in qids])
    Xs, Ys = split_queries(X, np.array(labels, dtype=np.int64), qid=qid_array)
    starts = np.cumsum([0] + [len(y) for y in Ys])
    return LetorData(Xs, Ys, qid_array[starts[:-1]],
                     [docids[a:b] for a, b in itertools.pairwise(starts)])
