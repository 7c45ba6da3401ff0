"""The rules of an svmlight / LibSVM line and the messages that name a fault (shared by the readers).

What a data line may hold (:func:`_line_problem`, the Python statement of the rules the compiled
parser of :mod:`predtron.data._svmlight_parse` applies), the limit on feature indices, and the
message for a damaged compressed file.  The format itself is described in
:mod:`predtron.data.svmlight`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from predtron.data.opening import DECOMPRESSION_ERRORS, show

#: The largest feature index the parser holds (its column indices are 32-bit); ``max_features=None``
#: means this.
_PARSER_LIMIT = 2**31 - 1

_INT64 = (-(2**63), 2**63 - 1)

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
