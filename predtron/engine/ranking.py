"""Compiled pass of Algorithm 1 over queries of documents (subset ranking, Section 4).

The scores of a query are ``t = X_q w``; the prediction sorts them (ties within the relative
:data:`~predtron.engine.spec.TIE_TOLERANCE` to the lower document); the oracle is an exact
sort where the problem's ``f`` is an affine function of the position weights, else the
grade dynamic programme of :mod:`predtron.engine.grade_dp`.  The arithmetic is that of
:mod:`predtron.problems.ranking_batch` and ``RankingProblem._oracle``.
"""

from __future__ import annotations

import numpy as np

from predtron.engine.grade_dp import _argmax as _grade_dp_argmax
from predtron.engine.jit import jit
from predtron.engine.spec import TIE_TOLERANCE
from predtron.engine.vectors import _dot, finish


@jit
def _stable_order_desc(values, m):
    """Indices sorting ``values[:m]`` in decreasing order; ties keep index order."""
    keys = np.empty(m)
    for i in range(m):
        keys[i] = -values[i]
    return np.argsort(keys, kind="mergesort")


@jit
def _ranking_round(t, y, v, m, f, alpha, b, use_oracle, g, tmp):
    """Loss of ``pred(t)`` for one query and, when non-zero, ``g = rep(sigma~) - rep(sigma_y)``."""
    scale = 0.0
    for i in range(m):
        a = -t[i] if t[i] < 0 else t[i]
        if a > scale:
            scale = a
    unit = scale * TIE_TOLERANCE if scale > 0 else 1.0
    for i in range(m):
        tmp[i] = np.rint(t[i] / unit)
    order = _stable_order_desc(tmp, m)
    dcg = 0.0
    for pos in range(m):
        dcg += v[order[pos]] * b[pos]
    ideal_values = np.sort(v[:m])[::-1]
    ideal = 0.0
    for pos in range(m):
        ideal += ideal_values[pos] * b[pos]
    if ideal == 0:
        return 0.0
    loss = max(0.0, (ideal - dcg) / ideal)
    if loss == 0:
        return 0.0
    if use_oracle and np.isnan(alpha):  # no exact sort for this size: dynamic programming
        c = np.empty(m)
        for i in range(m):
            c[i] = v[i] / ideal
        positions = _grade_dp_argmax(t[:m].copy(), c, f, b[:m].copy())
        chosen_order = np.empty(m, dtype=np.int64)
        for i in range(m):
            chosen_order[positions[i]] = i
    elif use_oracle:
        for i in range(m):
            tmp[i] = t[i] if alpha == 0 else alpha * t[i] - v[i] / ideal
        chosen_order = _stable_order_desc(tmp, m)
    else:
        chosen_order = order
    for i in range(m):
        tmp[i] = y[i]
    correct_order = _stable_order_desc(tmp, m)
    for pos in range(m):
        g[chosen_order[pos]] = f[pos]
    for pos in range(m):
        g[correct_order[pos]] -= f[pos]
    return loss


@jit
def pass_documents(X, data, indices, indptr, p, offsets, order, w, u, y, v, f_flat, f_start, alphas, b, eta,
                   use_oracle, loss_driven, tau0):
    """One pass over the queries ``order`` of a flat document matrix (``t = X_q w``): the
    dense ``X`` or, when ``indptr`` is not empty, the CSR matrix ``(data, indices, indptr)``
    with ``p`` columns (the other form passed empty); returns what the vector passes do."""
    sparse = indptr.shape[0] > 0
    n = order.shape[0]
    width = 1
    for q in range(offsets.shape[0] - 1):
        width = max(width, offsets[q + 1] - offsets[q])
    t = np.zeros(width)
    g = np.zeros(width)
    tmp = np.zeros(width)
    adj = np.zeros(p if sparse else 0)
    rounds = np.zeros(n, dtype=np.int64)
    losses = np.zeros(n)
    mistakes = 0
    averaging = u.shape[0] > 0
    for r in range(n):
        q = order[r]
        a, e = offsets[q], offsets[q + 1]
        m = e - a
        for i in range(m):
            if sparse:
                acc = 0.0
                for k in range(indptr[a + i], indptr[a + i + 1]):
                    acc += data[k] * w[indices[k]]
                t[i] = acc
            else:
                t[i] = _dot(X[a + i], w, p)
            if not np.isfinite(t[i]):
                return finish(r, mistakes, rounds, losses, 1)
        fs = f_start[m]
        loss = _ranking_round(t, y[a:e], v[a:e], m, f_flat[fs:fs + m], alphas[m], b, use_oracle, g, tmp)
        if loss == 0:
            continue
        rounds[mistakes] = r + 1
        losses[mistakes] = loss
        mistakes += 1
        step = eta * (loss if loss_driven else 1.0)
        alpha = -step
        alpha_u = -step * (tau0 + r + 1)
        if sparse:
            # X_q^T g, accumulated per feature over the query's non-zeros, then applied once per feature
            for i in range(m):
                for k in range(indptr[a + i], indptr[a + i + 1]):
                    adj[indices[k]] += data[k] * g[i]
            for i in range(m):
                for k in range(indptr[a + i], indptr[a + i + 1]):
                    j = indices[k]
                    value = adj[j]
                    if value != 0:
                        w[j] += alpha * value
                        if averaging:
                            u[j] += alpha_u * value
                        adj[j] = 0.0
        else:
            for j in range(p):
                acc = 0.0
                for i in range(m):
                    acc += X[a + i, j] * g[i]
                w[j] += alpha * acc
                if averaging:
                    u[j] += alpha_u * acc
    return finish(n, mistakes, rounds, losses, 0)
