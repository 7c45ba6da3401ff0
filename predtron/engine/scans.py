"""Whole-array scans: finiteness with the largest magnitude, and a running sum in order."""

from __future__ import annotations

import numpy as np

from predtron.engine.jit import Tiered, jit, jit_sum


@jit_sum
def _finite_max_abs(values):
    top = 0.0
    poison = 0.0
    for i in range(values.shape[0]):
        v = values[i]
        poison += v * 0.0
        a = -v if v < 0 else v
        top = a if a > top else top
    if poison != 0.0:  # NaN (the only value a sum of zeros, NaNs and nothing else can differ by)
        return False, np.inf
    return True, top


def _finite_max_abs_numpy(values):
    if values.shape[0] == 0:
        return True, 0.0
    if not np.isfinite(values).all():
        return False, np.inf
    return True, float(np.max(np.abs(values)))


#: ``(all finite, largest magnitude)`` of a flat float64 array in one pass, without
#: temporaries; the magnitude is ``inf`` when some entry is not finite (0 for no entry).
#: Compiled, finiteness is read from ``sum_i 0 * v_i``, which is 0 exactly when every entry is
#: finite (``0 * nan`` and ``0 * inf`` are NaN, and NaN survives any order of the additions,
#: so reassociating the sum for SIMD changes nothing); NaN never wins the ``>`` of the maximum.
#: Budget: a few hundred million entries scanned by NumPy cost about one compilation.
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
