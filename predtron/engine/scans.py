"""Whole-array scans: finiteness with the largest magnitude, a running sum in order, exact column sums."""

from __future__ import annotations

import math

import numpy as np

from predtron.engine.jit import Tiered, jit, jit_inline

#: The bits of a float64 below its sign bit, and those of +inf (the smallest pattern, sign cleared, of an
#: infinity or a NaN: every NaN has the exponent of inf and a non-zero fraction).
_MAGNITUDE = np.uint64(0x7FFF_FFFF_FFFF_FFFF)
_INF_BITS = np.uint64(0x7FF0_0000_0000_0000)


@jit
def _finite_max_abs(values):
    bits = values.view(np.uint64)
    top = np.uint64(0)
    for i in range(bits.shape[0]):
        b = bits[i] & _MAGNITUDE
        top = b if b > top else top
    if top >= _INF_BITS:  # an infinity or a NaN
        return False, np.inf
    out = np.empty(1, dtype=np.uint64)
    out[0] = top
    return True, out.view(np.float64)[0]


def _finite_max_abs_numpy(values):
    if values.shape[0] == 0:
        return True, 0.0
    if not np.isfinite(values).all():
        return False, np.inf
    return True, float(np.max(np.abs(values)))


#: ``(all finite, largest magnitude)`` of a flat, C-contiguous float64 array in one pass, without
#: temporaries; the magnitude is ``inf`` when some entry is not finite (0 for no entry).
#: Compiled, it is one maximum over integers: with its sign bit cleared, a finite float64's bits
#: order as its magnitude does, and every infinity or NaN has bits at least those of ``+inf``;
#: so the largest pattern is the largest magnitude when it is below ``+inf``'s, and else some
#: entry is not finite.  An integer maximum vectorises (a float one with NaN rules does not):
#: about twice the speed of ``np.isfinite(values).all()``, which it replaces in every fit's
#: validation.  Budget: a few hundred million entries scanned by NumPy cost about one compilation.
finite_max_abs = Tiered(_finite_max_abs, _finite_max_abs_numpy, lambda values: values.shape[0], 3e8)


@jit
def _running_sum(start, values):
    total = start
    for i in range(values.shape[0]):
        total += values[i]
    return total


def _running_sum_numpy(start, values):
    # ``add.accumulate`` adds strictly left to right (unlike ``sum``, which adds pairwise)
    return float(np.add.accumulate(np.concatenate(([start], values)))[-1])


#: ``start + values[0] + values[1] + ...``, added one by one in order (what a loop of Python
#: ``+=`` gives, bit for bit).
running_sum = Tiered(_running_sum, _running_sum_numpy, lambda start, values: values.shape[0], 1e8)


# ------------------------------------------------------------------ exact sums, binned by exponent
#: Bits of the low half of a 53-bit mantissa ``M = hi * 2**26 + lo`` (``0 <= lo < 2**26``).
EXACT_HALF = 26
#: ``numpy.frexp`` exponents of finite float64 values lie in ``[-1073, 1024]``.
EXACT_MIN_EXPONENT, EXACT_MAX_EXPONENT = -1073, 1024


@jit_inline
def _mantissa(x, scratch, bits_of):
    """``(e, M)`` with ``x == M * 2**(e - 53)``: ``e`` the exponent of ``numpy.frexp(x)`` and ``M``
    the signed 53-bit integer ``m * 2**53`` of its fraction ``m`` (``(0, 0)`` for a zero); ``e`` is
    2000 for a value that is not finite."""
    scratch[0] = x
    b = bits_of[0]
    biased = (b >> 52) & 0x7FF
    fraction = b & 0xFFFFFFFFFFFFF
    if biased == 0x7FF:
        return 2000, 0
    if biased == 0:
        if fraction == 0:
            return 0, 0
        length = 0  # a subnormal: frexp normalises it
        t = fraction
        while t != 0:
            length += 1
            t >>= 1
        e = length - 1074
        m = fraction << (53 - length)
    else:
        e = biased - 1022
        m = fraction | (1 << 52)
    return e, (-m if b < 0 else m)


@jit_inline
def _dekker_square(a):
    """``(p, e)`` with ``p + e == a**2`` (Dekker's product; the same operations as
    ``predtron._exact.exact_square``, so the same two floats)."""
    c = 134217729.0 * a
    hi = c - (c - a)
    lo = a - hi
    p = a * a
    e = ((hi * hi - p) + 2.0 * hi * lo) + lo * lo
    return p, e


@jit_inline
def _widen(x, j, low, high, scratch, bits_of):
    """Widen column ``j``'s exponent range ``[low[j], high[j]]`` to hold ``x``; returns 1 if ``x``
    is not finite, else 0 (flags summed, not returned early: a loop without exits runs faster)."""
    e, m = _mantissa(x, scratch, bits_of)
    if m != 0:
        low[j] = min(low[j], e)
        high[j] = max(high[j], e)
    return 1 if e == 2000 else 0


@jit_inline
def _add_to_bin(x, j, start, low, his, los, scratch, bits_of):
    """Add the two halves of ``x``'s mantissa to its (column ``j``, exponent) bin."""
    e, m = _mantissa(x, scratch, bits_of)
    if m != 0:
        top = m >> EXACT_HALF  # floor(m / 2**26): ``lo`` below is in [0, 2**26)
        at = start[j] + e - low[j]
        his[at] += top
        los[at] += m - (top << EXACT_HALF)


@jit
def _exact_bins_by_exponent(V, square):
    n, width = V.shape
    scratch = np.empty(1, dtype=np.float64)
    bits_of = scratch.view(np.int64)
    low = np.full(width, 1 << 20, dtype=np.int64)
    high = np.full(width, -(1 << 20), dtype=np.int64)
    bad = 0
    # pass 1: each column's range of exponents, and whether every value is finite
    for i in range(n):
        for j in range(width):
            x = V[i, j]
            if square:
                p, e = _dekker_square(x)
                bad += _widen(p, j, low, high, scratch, bits_of) + _widen(e, j, low, high, scratch, bits_of)
            else:
                bad += _widen(x, j, low, high, scratch, bits_of)
    if bad:
        empty = np.zeros(0, dtype=np.int64)
        return False, empty, empty, empty, empty
    start = np.zeros(width + 1, dtype=np.int64)
    for j in range(width):
        start[j + 1] = start[j] + (high[j] - low[j] + 1 if high[j] >= low[j] else 0)
    his = np.zeros(start[width], dtype=np.int64)
    los = np.zeros(start[width], dtype=np.int64)
    # pass 2: every value's two halves added to its bin, as integers (exact below 2**36 values a bin)
    for i in range(n):
        for j in range(width):
            x = V[i, j]
            if square:
                p, e = _dekker_square(x)
                _add_to_bin(p, j, start, low, his, los, scratch, bits_of)
                _add_to_bin(e, j, start, low, his, los, scratch, bits_of)
            else:
                _add_to_bin(x, j, start, low, his, los, scratch, bits_of)
    used = 0
    for at in range(start[width]):
        if his[at] != 0 or los[at] != 0:
            used += 1
    columns = np.empty(used, dtype=np.int64)
    exponents = np.empty(used, dtype=np.int64)
    hi_out = np.empty(used, dtype=np.int64)
    lo_out = np.empty(used, dtype=np.int64)
    out = 0
    for j in range(width):
        for at in range(start[j], start[j + 1]):
            if his[at] != 0 or los[at] != 0:
                columns[out], exponents[out] = j, low[j] + at - start[j]
                hi_out[out], lo_out[out] = his[at], los[at]
                out += 1
    return True, columns, exponents, hi_out, lo_out


#: Rows of a block of :func:`_exact_levels` (a power of two): its sums of extracted parts stay exact.
EXACT_LOG_BLOCK = 10
#: Most extraction levels :func:`_exact_levels` runs before binning every value by its exponent.
EXACT_MAX_LEVELS = 8


@jit
def _exact_levels(V, square):
    """See :data:`exact_bins`: the sums by extraction levels, else by exponent bins."""
    n, width = V.shape
    # pass 1: each column's largest biased exponent and smallest one of a non-zero value (vectorised)
    top = np.zeros(width, dtype=np.int64)
    bottom = np.full(width, 4095, dtype=np.int64)
    bits = np.empty(2 * width, dtype=np.float64)
    bits_of = bits.view(np.int64)
    for i in range(n):
        if square:
            for j in range(width):
                x = V[i, j]
                c = 134217729.0 * x
                hi = c - (c - x)
                lo = x - hi
                p = x * x
                bits[j] = p
                bits[width + j] = ((hi * hi - p) + 2.0 * hi * lo) + lo * lo
            for j in range(width):
                b, b2 = bits_of[j], bits_of[width + j]
                biased, biased2 = (b >> 52) & 0x7FF, (b2 >> 52) & 0x7FF
                top[j] = max(top[j], max(biased, biased2))
                bottom[j] = min(bottom[j], min(biased if (b & 0x7FFFFFFFFFFFFFFF) != 0 else 4095,
                                               biased2 if (b2 & 0x7FFFFFFFFFFFFFFF) != 0 else 4095))
        else:
            for j in range(width):
                bits[j] = V[i, j]
            for j in range(width):
                b = bits_of[j]
                biased = (b >> 52) & 0x7FF
                top[j] = max(top[j], biased)
                bottom[j] = min(bottom[j], biased if (b & 0x7FFFFFFFFFFFFFFF) != 0 else 4095)
    empty = np.zeros(0, dtype=np.int64)
    for j in range(width):
        if top[j] == 0x7FF:
            return False, empty, empty, empty, empty  # not finite: the caller's NumPy twin decides
    # the levels: sigma_0 = 2**k_0 above every block sum of a column, each next level 53 - log - 2 bits lower
    log = EXACT_LOG_BLOCK + (1 if square else 0)
    step = 53 - log - 2
    first = np.zeros(width, dtype=np.int64)
    levels = 0
    feasible = True
    for j in range(width):
        if bottom[j] == 4095:
            first[j] = 0  # only zeros
            continue
        first[j] = top[j] - 1022 + log + 2
        unit = bottom[j] - 1022 - 53  # the exponent of the smallest unit in the last place
        count = 1
        while first[j] - (count - 1) * step - 53 >= unit:
            count += 1
        levels = max(levels, count)
        if bottom[j] == 0 or first[j] > 1020 or first[j] - (count - 1) * step < -1022:
            feasible = False
    if not feasible or levels > EXACT_MAX_LEVELS:
        return _exact_bins_by_exponent(V, square)
    sigma = np.zeros((max(levels, 1), width))
    for j in range(width):
        for level in range(levels):
            k = max(first[j] - level * step, -1022)  # below a column's last level only zeros remain
            sigma[level, j] = math.ldexp(1.0, k)
    sums = np.zeros((max(levels, 1), width))
    acc_hi = np.zeros((max(levels, 1), width), dtype=np.int64)
    acc_lo = np.zeros((max(levels, 1), width), dtype=np.int64)
    rest = np.empty(width)
    rest2 = np.empty(width)
    block = 1 << EXACT_LOG_BLOCK
    for begin in range(0, n, block):
        for i in range(begin, min(n, begin + block)):
            if square:
                for j in range(width):
                    x = V[i, j]
                    c = 134217729.0 * x
                    hi = c - (c - x)
                    lo = x - hi
                    p = x * x
                    rest[j] = p
                    rest2[j] = ((hi * hi - p) + 2.0 * hi * lo) + lo * lo
            else:
                for j in range(width):
                    rest[j] = V[i, j]
            for level in range(levels):
                for j in range(width):
                    s = sigma[level, j]
                    q = (s + rest[j]) - s  # exact (Sterbenz); rest - q is the addition's rounding error
                    sums[level, j] += q
                    rest[j] -= q
                if square:
                    for j in range(width):
                        s = sigma[level, j]
                        q = (s + rest2[j]) - s
                        sums[level, j] += q
                        rest2[j] -= q
        # fold the block's exact sums into integers in units of 2**(k - 53)
        for level in range(levels):
            for j in range(width):
                total = sums[level, j]
                if total != 0.0:
                    k = max(first[j] - level * step, -1022)
                    units = np.int64(math.ldexp(total, 53 - k))  # an integer below 2**53: exact
                    high = units >> EXACT_HALF
                    acc_hi[level, j] += high
                    acc_lo[level, j] += units - (high << EXACT_HALF)
                    sums[level, j] = 0.0
    used = 0
    for level in range(levels):
        for j in range(width):
            if acc_hi[level, j] != 0 or acc_lo[level, j] != 0:
                used += 1
    columns = np.empty(used, dtype=np.int64)
    exponents = np.empty(used, dtype=np.int64)
    hi_out = np.empty(used, dtype=np.int64)
    lo_out = np.empty(used, dtype=np.int64)
    out = 0
    for j in range(width):
        for level in range(levels):
            if acc_hi[level, j] != 0 or acc_lo[level, j] != 0:
                columns[out], exponents[out] = j, max(first[j] - level * step, -1022)
                hi_out[out], lo_out[out] = acc_hi[level, j], acc_lo[level, j]
                out += 1
    return True, columns, exponents, hi_out, lo_out


def _exact_bins_numpy(V, square):
    """The NumPy twin of :func:`_exact_levels` (and what every call with a value that is not finite
    runs): each value's mantissa halves counted into float64 tables per (column, exponent), exact
    while a bin holds fewer than ``2**26`` values, merged as integers every ``2**25`` rows."""
    width = V.shape[1]
    parts = _dekker_square_numpy(V) if square else (V,)
    size = width * 2110  # (column, exponent + 1080) bins
    keys, his, los = [], [], []
    for part in parts:
        if size > 1 << 22:  # too many bins to count: the bins present are found by sorting
            for begin in range(0, part.shape[0], 1 << 25):
                hi, lo, key = _halves_numpy(part[begin:begin + (1 << 25)])
                found, inverse = np.unique(key, return_inverse=True)
                keys.append(found.astype(np.int64))
                his.append(np.bincount(inverse, weights=hi, minlength=len(found)).astype(np.int64))
                los.append(np.bincount(inverse, weights=lo, minlength=len(found)).astype(np.int64))
            continue
        rows = max(1, min(1 << 25, (1 << 18) // width))  # blocks whose temporaries stay in the cache
        for outer in range(0, part.shape[0], 1 << 25):
            hs, ls = np.zeros(size), np.zeros(size)
            for begin in range(outer, min(part.shape[0], outer + (1 << 25)), rows):
                hi, lo, key = _halves_numpy(part[begin:begin + rows])
                hs += np.bincount(key, weights=hi, minlength=size)
                ls += np.bincount(key, weights=lo, minlength=size)
            used = np.flatnonzero((hs != 0) | (ls != 0))
            keys.append(used.astype(np.int64))
            his.append(hs[used].astype(np.int64))
            los.append(ls[used].astype(np.int64))
    empty = np.zeros(0, dtype=np.int64)
    key, inverse = np.unique(np.concatenate([empty, *keys]), return_inverse=True)
    hi, lo = np.zeros(len(key), dtype=np.int64), np.zeros(len(key), dtype=np.int64)
    np.add.at(hi, inverse, np.concatenate([empty, *his]))
    np.add.at(lo, inverse, np.concatenate([empty, *los]))
    keep = (hi != 0) | (lo != 0)
    key, hi, lo = key[keep], hi[keep], lo[keep]
    return True, key // 2110, key % 2110 - 1080, hi, lo


def _halves_numpy(V):
    """``(hi, lo, key)``: ``m * 2**53 = hi * 2**26 + lo`` for ``(m, e) = frexp(V)``, as exact floats,
    and each value's bin ``column * 2110 + e + 1080``."""
    m, e = np.frexp(V)
    hi = np.floor(m * 134217728.0)  # 2**27
    lo = m * 9007199254740992.0 - hi * 67108864.0  # 2**53, 2**26
    key = np.add(e, (np.arange(V.shape[1], dtype=np.intp) * 2110 + 1080)[None, :], dtype=np.intp)
    return hi.ravel(), lo.ravel(), key.ravel()


def _dekker_square_numpy(V):
    c = 134217729.0 * V
    hi = c - (c - V)
    lo = V - hi
    p = V * V
    return p, ((hi * hi - p) + 2.0 * hi * lo) + lo * lo


_EXACT_LEVELS = Tiered(_exact_levels, _exact_bins_numpy, lambda V, square: V.size * (3 if square else 1), 3e8)


def exact_bins(V: np.ndarray, square: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The exact column sums of ``V`` (or, with ``square``, of its exact squares ``p + e``, Dekker's
    product as ``predtron._exact.exact_square`` computes it) as integers per binary exponent.

    Returns ``(columns, exponents, hi, lo)`` (int64): column ``j``'s sum is the sum over its entries
    of ``(hi * 2**26 + lo) * 2**(exponent - 53)``, with ``exponent`` in ``[-1073, 1024]``.  Which
    entries there are depends on the path taken; the sums they make never do.

    Compiled, the values are summed exactly in float64 by extraction (Rump, Ogita and Oishi's
    ``ExtractScalar``): with ``sigma = 2**k`` above every block sum of a column,
    ``q = (sigma + x) - sigma`` is exact and a multiple of ``2**(k - 53)``, so the sums of the ``q``
    of a block of ``2**10`` rows are exact in any order, and ``x - q`` (the addition's rounding error,
    also exact) goes to the next level, ``53 - 12`` bits lower; a column needs a few levels (the bits
    between its largest value and its smallest unit in the last place); each block's sums are folded
    into integers.  A column whose range needs more than :data:`EXACT_MAX_LEVELS` levels, or holds
    subnormal or huge values, has every value binned by its exponent instead.  With a value that is
    not finite (or without the compiled kernel) the NumPy twin runs, the bins of ``numpy.frexp``
    counted with ``bincount``; its result for such values has no meaning (the callers check
    finiteness first).
    """
    V = np.ascontiguousarray(V, dtype=np.float64)
    done = _EXACT_LEVELS(V, bool(square))
    if not done[0]:
        done = _exact_bins_numpy(V, bool(square))
    return done[1], done[2], done[3], done[4]
