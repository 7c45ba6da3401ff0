"""The compiled svmlight line parser behind :mod:`predtron.data.stream` (numba over byte blocks).

The kernel runs under the engine's compile policy (:mod:`predtron.engine.jit`, ``PREDTRON_JIT``):
:data:`parse_block` is a :class:`~predtron.engine.jit.Tiered` pair whose twin hands every line to
the Python reader, which gives the same rows and messages (see below), so a first small read in a
fresh environment never waits for numba.

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

from predtron.engine.jit import AVAILABLE, Tiered, jit

_jit = jit

#: Status codes of :func:`parse_block`: done, a line for the Python reader, output arrays full.
OK, ODD, FULL = 0, 1, 2

#: ``slow_kind`` values: the slow number is the label of row ``slow_at`` or the value at
#: position ``slow_at`` of the CSR ``values``.
SLOW_LABEL, SLOW_VALUE = 0, 1

_POW10 = np.array([10.0**k for k in range(23)])
_TWO53 = 2**53


@_jit
def _is_space(c) -> bool:
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@_jit
def _ends_token(c) -> bool:
    """Whether byte ``c`` ends a token (whitespace, a newline or a comment's ``#``)."""
    return c == 32 or c == 10 or c == 9 or c == 35 or c == 13 or c == 11 or c == 12


@_jit
def _digits(buf, i):
    """The decimal digits at ``buf[i:]``: ``(value, end)`` (``value`` wraps beyond 18 digits)."""
    value = 0
    while True:
        d = np.int64(buf[i]) - 48
        if d < 0 or d > 9:
            return value, i
        value = value * 10 + d
        i += 1


@_jit
def _number(buf, i, pow10):
    """Parse a decimal number starting at ``buf[i]`` and running to the end of its token.

    The caller guarantees a newline at or after ``i`` in ``buf`` (every loop stops there, so no
    byte is read past it).  Returns ``(ok, fast, value, end)``: ``ok`` False for a token that is
    not the common decimal syntax; ``fast`` False when the value must be converted by ``float``
    (more than 18 digits, a mantissa beyond ``2^53`` or a power of ten beyond 22: not exact here);
    ``end`` the position after the token.
    """
    c = buf[i]
    negative = c == 45
    if c == 45 or c == 43:
        i += 1
    start = i
    mantissa, i = _digits(buf, i)
    digits = i - start
    exp10 = 0
    if buf[i] == 46:
        i += 1
        fraction = i
        while True:
            d = np.int64(buf[i]) - 48
            if d < 0 or d > 9:
                break
            mantissa = mantissa * 10 + d
            i += 1
        exp10 = fraction - i
        digits += i - fraction
    if digits == 0:
        return False, False, 0.0, i
    c = buf[i]
    if c == 101 or c == 69:
        i += 1
        c = buf[i]
        eneg = c == 45
        if c == 45 or c == 43:
            i += 1
        first = i
        e = 0
        while True:
            d = np.int64(buf[i]) - 48
            if d < 0 or d > 9:
                break
            if e < 100000:
                e = e * 10 + d
            i += 1
        if i == first:
            return False, False, 0.0, i
        exp10 += -e if eneg else e
    if not _ends_token(buf[i]):
        return False, False, 0.0, i
    if digits > 18:
        return True, False, 0.0, i
    if mantissa == 0:
        return True, True, -0.0 if negative else 0.0, i
    if mantissa > _TWO53 or exp10 > 22 or exp10 < -22:
        return True, False, 0.0, i
    value = float(mantissa)
    if exp10 >= 0:
        value = value * pow10[exp10]
    else:
        value = value / pow10[-exp10]
    return True, True, -value if negative else value, i


@_jit
def _parse_block(buf, pos, eof, max_rows, first, limit, qid_mode, line, rows, nnz, n_slow, labels, indptr, indices,
                values, qids, lines, starts, slow_at, slow_kind, slow_start, slow_end, pow10):
    """Parse the complete lines of ``buf[pos:]`` into CSR rows.

    Stops after ``max_rows`` examples in all.  ``first`` is the first feature index (0 or 1),
    ``limit`` the number of columns allowed, ``qid_mode`` -1 (not known yet), 0 (no line has
    ``qid:``) or 1 (every line has); ``line`` is the number of the line at ``pos``; ``rows``,
    ``nnz`` and ``n_slow`` are how much of the output arrays is already filled (``indptr[rows]``
    is set).  One pass over the bytes: tokens are parsed where they stand.  Only the bytes up to
    the last newline are read token by token (so no loop tests the buffer's end); a last line
    without a newline (``eof``) is left to the caller as :data:`ODD`.

    Returns ``(status, rows, nnz, n_slow, next_pos, next_line, qid_mode)``: with
    :data:`ODD` (or :data:`FULL`: no room left in ``indices``/``values`` or the slow arrays),
    ``next_pos``/``next_line`` locate the line not taken and nothing of it is in the arrays.
    """
    n = buf.size
    end = n
    while end > pos and buf[end - 1] != 10:
        end -= 1
    capacity = indices.size
    slots = slow_at.size
    while pos < end and rows < max_rows:
        i = pos
        c = buf[i]
        while _is_space(c):
            i += 1
            c = buf[i]
        if c == 10 or c == 35:  # blank or comment line
            while buf[i] != 10:
                i += 1
            pos = i + 1
            line += 1
            continue
        row_nnz = nnz
        row_slow = n_slow
        token = i
        ok, fast, label, i = _number(buf, i, pow10)
        if not ok:
            return ODD, rows, nnz, n_slow, pos, line, qid_mode
        if not fast:
            if n_slow >= slots:
                return FULL, rows, nnz, n_slow, pos, line, qid_mode
            slow_at[n_slow] = rows
            slow_kind[n_slow] = SLOW_LABEL
            slow_start[n_slow] = token
            slow_end[n_slow] = i
            n_slow += 1
        while _is_space(buf[i]):
            i += 1
        here = 1 if buf[i] == 113 and buf[i + 1] == 105 and buf[i + 2] == 100 else 0
        if qid_mode >= 0 and here != qid_mode:
            return ODD, rows, row_nnz, row_slow, pos, line, qid_mode
        q = 0
        if here == 1:
            if buf[i + 3] != 58:
                return ODD, rows, row_nnz, row_slow, pos, line, qid_mode
            i += 4
            negative = buf[i] == 45
            if negative:
                i += 1
            start = i
            q, i = _digits(buf, i)
            if i == start or i - start > 18 or not _ends_token(buf[i]):
                return ODD, rows, row_nnz, row_slow, pos, line, qid_mode
            if negative:
                q = -q
        previous = first - 1
        status = OK
        while True:
            c = buf[i]
            while _is_space(c):
                i += 1
                c = buf[i]
            if c == 10 or c == 35:
                break
            start = i
            index, i = _digits(buf, i)
            if i == start or i - start > 18 or buf[i] != 58 or index <= previous or index - first >= limit:
                status = ODD
                break
            t = i + 1
            ok, fast, value, i = _number(buf, t, pow10)
            if not ok:
                status = ODD
                break
            if nnz >= capacity:
                status = FULL
                break
            if not fast:
                if n_slow >= slots:
                    status = FULL
                    break
                slow_at[n_slow] = nnz
                slow_kind[n_slow] = SLOW_VALUE
                slow_start[n_slow] = t
                slow_end[n_slow] = i
                n_slow += 1
            indices[nnz] = index - first
            values[nnz] = value
            nnz += 1
            previous = index
        if status != OK:
            return status, rows, row_nnz, row_slow, pos, line, qid_mode
        while buf[i] != 10:  # a comment runs to the line's end
            i += 1
        if qid_mode < 0:
            qid_mode = here
        labels[rows] = label
        qids[rows] = q
        lines[rows] = line
        starts[rows] = pos
        rows += 1
        indptr[rows] = nnz
        pos = i + 1
        line += 1
    if rows < max_rows and pos >= end and end < n and eof:  # a last line without its newline
        return ODD, rows, nnz, n_slow, pos, line, qid_mode
    return OK, rows, nnz, n_slow, pos, line, qid_mode


@_jit
def _last_index(buf, start, end):
    """The feature index of the last ``index:value`` token in ``buf[start:end]`` (a line's text before
    any comment), or -1 when that token is not one (then the caller scans the whole line)."""
    i = end
    while i > start and _is_space(buf[i - 1]):
        i -= 1
    stop = i
    while i > start and not _is_space(buf[i - 1]):
        i -= 1
    index = 0
    j = i
    while j < stop and 48 <= buf[j] <= 57:
        if j - i < 18:
            index = index * 10 + (np.int64(buf[j]) - 48)
        else:
            index = np.int64(2**62)  # beyond any reader's limit
        j += 1
    if j == i or j >= stop or buf[j] != 58:
        return -1
    return index


_ONES = np.uint64(0x0101010101010101)
_HIGHS = np.uint64(0x8080808080808080)


@_jit
def _find(buf, words, i, first, second):
    """The first position from ``i`` holding byte ``first`` or ``second``; ``buf`` ends with
    ``first`` (a newline), and ``words`` is ``buf`` read eight bytes at a time, so that the
    search tests a word per step (a word holds a byte ``b`` when ``w ^ b * ones`` has a zero
    byte: ``(x - ones) & ~x & highs`` is non-zero exactly then)."""
    while i & 7:
        c = buf[i]
        if c == first or c == second:
            return i
        i += 1
    k = i >> 3
    a = _ONES * np.uint64(first)
    b = _ONES * np.uint64(second)
    while k < words.size:
        w = words[k]
        x = w ^ a
        y = w ^ b
        if ((x - _ONES) & ~x | (y - _ONES) & ~y) & _HIGHS:
            break
        k += 1
    i = k << 3
    while True:
        c = buf[i]
        if c == first or c == second:
            return i
        i += 1


@_jit
def _scan_block(buf, words, labels, odd, pow10):
    """The labels (fast spellings) and the largest feature index of the lines of ``buf``, which
    ends with a newline (``words``: its bytes eight at a time, see :func:`_find`).

    Writes each data line's label to ``labels`` (NaN where the label is not a fast decimal; the
    line's start then goes to ``odd``) and returns ``(rows, n_odd, largest, lines)``: ``largest``
    is the largest last ``index:`` of a line (-1 when no line gives a feature; an index of more
    than 18 digits counts as ``2**62``), ``lines`` the number of lines.  Indices increase along a
    valid line, so only each line's label and last token are read: the bytes in between are only
    searched, a word at a time, for the line's end (or its comment)."""
    n = buf.size
    rows = 0
    n_odd = 0
    largest = -1
    lines = 0
    pos = 0
    while pos < n:
        i = pos
        while _is_space(buf[i]):
            i += 1
        if buf[i] == 10 or buf[i] == 35:
            pos = _find(buf, words, i, 10, 10) + 1
            lines += 1
            continue
        ok, fast, value, i = _number(buf, i, pow10)
        if ok and fast:
            labels[rows] = value
        else:
            labels[rows] = np.nan
            odd[n_odd] = pos
            n_odd += 1
        rows += 1
        end = _find(buf, words, i, 10, 35)
        index = _last_index(buf, i, end)
        if index < 0:  # an unusual last token (a qid: alone, a malformed line): every token is looked at
            t = i
            while t < end:
                while t < end and _is_space(buf[t]):
                    t += 1
                u = t
                while u < end and not _is_space(buf[u]):
                    u += 1
                candidate = _last_index(buf, t, u)
                if candidate > index:
                    index = candidate
                t = u
        if index > largest:
            largest = index
        if buf[end] != 10:
            end = _find(buf, words, end, 10, 10)
        pos = end + 1
        lines += 1
    return rows, n_odd, largest, lines


def _parse_block_twin(buf, pos, eof, max_rows, first, limit, qid_mode, line, rows, nnz, n_slow, labels, indptr, indices,
                      values, qids, lines, starts, slow_at, slow_kind, slow_start, slow_end, pow10):
    """The NumPy-side twin of :func:`parse_block`: takes no line, so that the caller reads every line
    with its line-by-line Python reader (the reader that decides for the kernel on any unusual line,
    hence the same rows, values and messages)."""
    return ODD, rows, nnz, n_slow, pos, line, qid_mode


def _lines_of_block(buf, pos, eof, max_rows, first, limit, qid_mode, line, rows, nnz, n_slow, labels, *rest) -> int:
    """The work of one call, in lines: the rows the caller made room for."""
    return labels.size


#: Lines read by the Python reader in one process after which the kernel is compiled: about one
#: compilation's cost (measured on a loaded 2-core machine: compiling :func:`_parse_block` took 10.8 s,
#: the Python reader 97 microseconds per line of 20 features).
BUDGET_LINES = 100_000

#: :func:`_parse_block` under the engine's compile policy (:mod:`predtron.engine.jit`): the compiled
#: kernel when it is ready (compiled in this process or in numba's disk cache), when
#: ``PREDTRON_JIT=always``, or once :data:`BUDGET_LINES` lines went through the Python reader; never
#: with ``PREDTRON_JIT=never``.  The caller asks :meth:`~predtron.engine.jit.Tiered.compiled` once
#: per block and then calls ``parse_block.kernel`` or ``parse_block.twin`` for the whole block.
parse_block = Tiered(_parse_block, _parse_block_twin, _lines_of_block, BUDGET_LINES)



def _scan_block_twin(buf, words, labels, odd, pow10):
    """The Python twin of :func:`_scan_block`: every label is left to the caller (NaN, its line in
    ``odd``), which converts it as it converts the kernel's unusual labels; the same largest index."""
    rows = n_odd = 0
    largest = -1
    pos = 0
    for raw in bytes(buf).split(b"\n"):
        tokens = raw.partition(b"#")[0].split()
        if tokens:
            labels[rows] = np.nan
            odd[n_odd] = pos
            n_odd += 1
            rows += 1
            for word in tokens[1:]:
                index, colon, _ = word.partition(b":")
                if colon and index.isdigit() and index.isascii():
                    largest = max(largest, int(index) if len(index) <= 18 else 2**62)
        pos += len(raw) + 1
    return rows, n_odd, largest, buf.size and int(np.count_nonzero(buf == 10))


#: Bytes scanned by the Python twin after which :func:`_scan_block` is compiled (measured as above:
#: compiling it took 6.3 s, the twin 160 ns per byte).
BUDGET_SCAN_BYTES = 40_000_000

#: :func:`_scan_block` under the engine's compile policy (work counted in bytes).
scan_block = Tiered(_scan_block, _scan_block_twin, lambda buf, *rest: buf.size, BUDGET_SCAN_BYTES)

__all__ = ["AVAILABLE", "BUDGET_LINES", "BUDGET_SCAN_BYTES", "FULL", "ODD", "OK", "SLOW_LABEL", "SLOW_VALUE",
           "parse_block", "scan_block"]
