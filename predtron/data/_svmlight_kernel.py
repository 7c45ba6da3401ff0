"""The compiled svmlight line parser behind :mod:`predtron.data.stream` (numba over byte blocks).

:func:`parse_block` reads the complete lines of a block of bytes into CSR arrays.  It takes
the common syntax only -- ``<label> [qid:<int>] <index>:<value> ... [# comment]`` with
decimal numbers (``[+-]digits[.digits][(e|E)[+-]digits]``) and plain decimal indices -- and
stops with :data:`ODD` at the first line it does not take (a malformed line, or merely an
unusual spelling such as ``inf``, ``1_000`` or ``+3`` as an index).  The caller then reads
that block with the line-by-line Python reader, which either accepts the line exactly as the
loaders do or raises their message with the file and line; so this kernel decides nothing
about validity on its own.

Exact numbers.  A decimal ``m * 10^e`` with a mantissa ``m <= 2^53`` and ``|e| <= 22`` is
converted as one IEEE multiplication or division of two exactly representable numbers, which
is correctly rounded (Clinger's fast path), hence equal to Python's ``float`` (and to C's
``strtod``).  Any other number (more than 15-16 significant digits, a large exponent) is
recorded as *slow* and converted by the caller with ``float``, so every value is the
correctly rounded one.
"""

from __future__ import annotations

import numpy as np

try:
    import numba

    _jit = numba.njit(cache=True, nogil=True)
    AVAILABLE = True
except ImportError:  # pragma: no cover - numba is a dependency; the Python reader then does all the work
    AVAILABLE = False

    def _jit(function):
        return function

#: Status codes of :func:`parse_block`.
OK, ODD = 0, 1

#: ``slow_kind`` values: the slow number is the label of row ``slow_at`` or the value at
#: position ``slow_at`` of the CSR ``values``.
SLOW_LABEL, SLOW_VALUE = 0, 1

_POW10 = np.array([10.0**k for k in range(23)])
_TWO53 = 2**53


@_jit
def _is_space(c) -> bool:
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12 or c == 10


@_jit
def _number(buf, i, end, pow10):
    """Parse a decimal number at ``buf[i:end]`` (the whole token).

    Returns ``(ok, fast, value)``: ``ok`` False for a token that is not the common decimal
    syntax; ``fast`` False when the value must be converted by ``float`` (not exact here).
    """
    negative = False
    if i < end and (buf[i] == 45 or buf[i] == 43):
        negative = buf[i] == 45
        i += 1
    mantissa = np.uint64(0)
    digits = 0  # significant digits kept in the mantissa
    seen = 0  # digits seen at all
    exp10 = 0
    overflow = False
    while i < end and 48 <= buf[i] <= 57:
        d = buf[i] - 48
        seen += 1
        if digits > 0 or d != 0:
            if digits < 19:
                mantissa = mantissa * np.uint64(10) + np.uint64(d)
                digits += 1
            else:
                overflow = True
                exp10 += 1
        i += 1
    if i < end and buf[i] == 46:
        i += 1
        while i < end and 48 <= buf[i] <= 57:
            d = buf[i] - 48
            seen += 1
            if digits > 0 or d != 0:
                if digits < 19:
                    mantissa = mantissa * np.uint64(10) + np.uint64(d)
                    digits += 1
                    exp10 -= 1
                else:
                    overflow = True
            else:
                exp10 -= 1
            i += 1
    if seen == 0:
        return False, False, 0.0
    if i < end and (buf[i] == 101 or buf[i] == 69):
        i += 1
        eneg = False
        if i < end and (buf[i] == 45 or buf[i] == 43):
            eneg = buf[i] == 45
            i += 1
        edigits = 0
        e = 0
        while i < end and 48 <= buf[i] <= 57:
            if e < 100000:
                e = e * 10 + (buf[i] - 48)
            edigits += 1
            i += 1
        if edigits == 0:
            return False, False, 0.0
        exp10 += -e if eneg else e
    if i != end:
        return False, False, 0.0
    if mantissa == 0 and not overflow:
        return True, True, -0.0 if negative else 0.0
    if overflow or mantissa > np.uint64(_TWO53) or exp10 > 22 or exp10 < -22:
        return True, False, 0.0
    value = float(mantissa)
    if exp10 >= 0:
        value = value * pow10[exp10]
    else:
        value = value / pow10[-exp10]
    return True, True, -value if negative else value


@_jit
def _integer(buf, i, end, allow_sign):
    """A decimal integer token ``buf[i:end]`` of at most 18 digits: ``(ok, value)``."""
    negative = False
    if allow_sign and i < end and buf[i] == 45:
        negative = True
        i += 1
    if i >= end or end - i > 18:
        return False, 0
    value = 0
    while i < end:
        c = buf[i]
        if c < 48 or c > 57:
            return False, 0
        value = value * 10 + (c - 48)
        i += 1
    return True, -value if negative else value


@_jit
def parse_block(buf, pos, eof, max_rows, first, limit, qid_mode, line, rows, nnz, n_slow, labels, indptr, indices,
                values, qids, lines, starts, slow_at, slow_kind, slow_start, slow_end, pow10):
    """Parse the complete lines of ``buf[pos:]`` (the last, unterminated one only if ``eof``).

    Stops after ``max_rows`` examples.  ``first`` is the first feature index (0 or 1),
    ``limit`` the number of columns allowed, ``qid_mode`` -1 (not known yet), 0 (no line has
    ``qid:``) or 1 (every line has); ``line`` is the number of the line at ``pos``; ``rows``,
    ``nnz`` and ``n_slow`` are how much of the output arrays is already filled (``indptr[rows]``
    is set).

    Returns ``(status, rows, nnz, n_slow, next_pos, next_line, qid_mode)``: with
    :data:`ODD`, ``next_pos``/``next_line`` locate the line not taken and nothing of it is
    in the arrays.
    """
    n = buf.size
    while pos < n and rows < max_rows:
        stop = pos
        while stop < n and buf[stop] != 10:
            stop += 1
        if stop == n and not eof:
            break
        body_end = pos
        while body_end < stop and buf[body_end] != 35:
            body_end += 1
        i = pos
        while i < body_end and _is_space(buf[i]):
            i += 1
        if i == body_end:  # blank or comment line
            pos = stop + 1
            line += 1
            continue
        # label
        j = i
        while j < body_end and not _is_space(buf[j]):
            if buf[j] == 0:
                return ODD, rows, nnz, n_slow, pos, line, qid_mode
            j += 1
        ok, fast, value = _number(buf, i, j, pow10)
        if not ok:
            return ODD, rows, nnz, n_slow, pos, line, qid_mode
        row_slow = n_slow
        if not fast:
            slow_at[n_slow] = rows
            slow_kind[n_slow] = SLOW_LABEL
            slow_start[n_slow] = i
            slow_end[n_slow] = j
            n_slow += 1
        labels[rows] = value
        row_nnz = nnz
        i = j
        while i < body_end and _is_space(buf[i]):
            i += 1
        # qid (scikit-learn's test: the second token starts with 'qid')
        here = 0
        if i + 3 <= body_end and buf[i] == 113 and buf[i + 1] == 105 and buf[i + 2] == 100:
            here = 1
        if qid_mode >= 0 and here != qid_mode:
            return ODD, rows, row_nnz, row_slow, pos, line, qid_mode
        if here == 1:
            j = i
            while j < body_end and not _is_space(buf[j]):
                j += 1
            if j - i < 5 or buf[i + 3] != 58:
                return ODD, rows, row_nnz, row_slow, pos, line, qid_mode
            ok, q = _integer(buf, i + 4, j, True)
            if not ok:
                return ODD, rows, row_nnz, row_slow, pos, line, qid_mode
            qids[rows] = q
            i = j
        previous = first - 1
        while True:
            while i < body_end and _is_space(buf[i]):
                i += 1
            if i >= body_end:
                break
            j = i
            colon = -1
            while j < body_end and not _is_space(buf[j]):
                if buf[j] == 58 and colon < 0:
                    colon = j
                elif buf[j] == 0:
                    return ODD, rows, row_nnz, row_slow, pos, line, qid_mode
                j += 1
            if colon < 0:
                return ODD, rows, row_nnz, row_slow, pos, line, qid_mode
            ok, index = _integer(buf, i, colon, False)
            if not ok or index <= previous or index - first >= limit:
                return ODD, rows, row_nnz, row_slow, pos, line, qid_mode
            ok, fast, value = _number(buf, colon + 1, j, pow10)
            if not ok:
                return ODD, rows, row_nnz, row_slow, pos, line, qid_mode
            if not fast:
                slow_at[n_slow] = nnz
                slow_kind[n_slow] = SLOW_VALUE
                slow_start[n_slow] = colon + 1
                slow_end[n_slow] = j
                n_slow += 1
            indices[nnz] = index - first
            values[nnz] = value
            nnz += 1
            previous = index
            i = j
        if qid_mode < 0:
            qid_mode = here
        lines[rows] = line
        starts[rows] = pos
        rows += 1
        indptr[rows] = nnz
        pos = stop + 1
        line += 1
    return OK, rows, nnz, n_slow, min(pos, n), line, qid_mode


__all__ = ["AVAILABLE", "ODD", "OK", "SLOW_LABEL", "SLOW_VALUE", "parse_block"]
