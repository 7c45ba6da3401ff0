"""The F-beta loss of a multilabel prediction and its loss-augmented argmax (Section 3).

Used by the multilabel pass (:mod:`predtron.engine.vectors`, kind ``FBETA``) and by
:meth:`predtron.problems.bipartite.BipartiteMeasure.oracle`.
"""

from __future__ import annotations

import numpy as np

from predtron.engine.jit import jit
from predtron.engine.spec import TIE_TOLERANCE


@jit
def fbeta_loss(a, b, P, beta2):
    """``1 - F_beta`` of ``a`` true and ``b`` false positives against ``P`` relevant labels, as
    :meth:`predtron.problems.bipartite.BipartiteMeasure.loss_counts` computes it (0 when
    nothing is relevant and nothing predicted)."""
    w = 1.0 + beta2
    af = float(a)
    den = w * af + float(b) + beta2 * (float(P) - af)
    return 1.0 - w * af / den if den > 0 else 0.0


@jit
def _fbeta_value(a, b, P, beta2, coef, top_pos, top_neg):
    return fbeta_loss(a, b, P, beta2) + coef * (top_pos[a] + top_neg[b])


@jit
def fbeta_oracle(t, y, coef, beta2):
    """Loss-augmented argmax of the F-beta loss: ``v`` maximising ``L(v, y) + coef * sum_{v_i=1} t_i``.

    The loss depends on ``v`` through ``a`` (relevant labels switched on) and ``n = a + b``
    (labels switched on), and linearly in ``a`` for fixed ``n`` (its denominator is
    ``n + beta^2 P``); the score part is best with the ``a`` relevant and ``b`` irrelevant
    labels of largest ``t``.  With both sorted, the value is concave in ``a`` for fixed ``n``
    (a linear term plus two prefix sums of decreasing values), so a binary search finds the
    best ``a`` of every ``n``: ``O(m log m)`` instead of the ``O(m^2)`` grid of every
    ``(a, b)``.  Ties are broken as the grid does (values within ``1e-12 (1 + |top|)`` of the
    top tie; the smallest ``a``, then the smallest ``b``; labels in stable sorted order).
    """
    m = t.shape[0]
    P = 0
    for j in range(m):
        P += y[j]
    N = m - P
    pos = np.empty(P, dtype=np.int64)
    neg = np.empty(N, dtype=np.int64)
    ip, ineg = 0, 0
    for j in range(m):
        if y[j] == 1:
            pos[ip] = j
            ip += 1
        else:
            neg[ineg] = j
            ineg += 1
    pos = pos[np.argsort(-t[pos], kind="mergesort")]
    neg = neg[np.argsort(-t[neg], kind="mergesort")]
    top_pos = np.zeros(P + 1)
    top_neg = np.zeros(N + 1)
    acc = 0.0
    for i in range(P):
        acc += t[pos[i]]
        top_pos[i + 1] = acc
    acc = 0.0
    for i in range(N):
        acc += t[neg[i]]
        top_neg[i + 1] = acc
    best_a = np.empty(m + 1, dtype=np.int64)
    top = -np.inf
    for n in range(m + 1):
        lo, hi = max(0, n - N), min(n, P)
        while lo < hi:  # first a whose successor does not improve: the smallest argmax
            mid = (lo + hi) // 2
            if _fbeta_value(mid + 1, n - mid - 1, P, beta2, coef, top_pos, top_neg) > \
                    _fbeta_value(mid, n - mid, P, beta2, coef, top_pos, top_neg):
                lo = mid + 1
            else:
                hi = mid
        best_a[n] = lo
        value = _fbeta_value(lo, n - lo, P, beta2, coef, top_pos, top_neg)
        if value > top:
            top = value
    threshold = top - TIE_TOLERANCE * (1.0 + abs(top))
    chosen_a, chosen_b = m + 1, m + 1
    for n in range(m + 1):
        a = best_a[n]
        if _fbeta_value(a, n - a, P, beta2, coef, top_pos, top_neg) < threshold:
            continue
        low = max(0, n - N)
        while a > low and _fbeta_value(a - 1, n - a + 1, P, beta2, coef, top_pos, top_neg) >= threshold:
            a -= 1
        if a < chosen_a or (a == chosen_a and n - a < chosen_b):
            chosen_a, chosen_b = a, n - a
    v = np.zeros(m, dtype=np.int64)
    for i in range(chosen_a):
        v[pos[i]] = 1
    for i in range(chosen_b):
        v[neg[i]] = 1
    return v
