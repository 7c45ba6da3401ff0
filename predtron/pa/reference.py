"""Exact reference solution of the batch passive-aggressive problem by active-set enumeration.

For tests and the book only: it tries every assignment of the ``k`` dual variables to
"at 0", "at C" or "free" (``3^k`` cases, ``2^k`` when ``C = inf``), solves the
stationarity equations of the free ones and keeps the assignment that satisfies the
KKT conditions of the dual box-QP of :mod:`predtron.pa.dual`.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from predtron._validation import check_positive
from predtron.pa.dual import check_batch, check_C, check_sample_weight, check_w

#: Largest batch :func:`brute_force_batch_qp` accepts.
MAX_BRUTE_FORCE_SAMPLES = 8


class QPSolution(NamedTuple):
    """Solution of the batch problem: primal point, dual variables, optimal value."""

    w: np.ndarray
    alpha: np.ndarray
    value: float


def brute_force_batch_qp(w_t, X, y, C: float, sample_weight=None, tol: float = 1e-9) -> QPSolution:
    """Solve ``min_w 1/2 ||w - w_t||^2 + C sum_i c_i xi_i`` exactly through its dual.

    Returns the :class:`QPSolution` of the KKT point with the largest dual value (the
    primal ``w`` is unique; ``alpha`` need not be when the samples are dependent).

    Parameters
    ----------
    w_t, X, y, C, sample_weight
        As in :func:`predtron.pa.rules.pa_update`; at most ``MAX_BRUTE_FORCE_SAMPLES`` samples.
    tol : float
        Tolerance of the KKT checks.
    """
    X, y = check_batch(X, y)
    C = check_C(C)
    tol = check_positive(tol, "tol", maximum=1.0)
    k = X.shape[0]
    if k > MAX_BRUTE_FORCE_SAMPLES:
        raise ValueError(f"brute force enumerates 3^k cases; k must be <= {MAX_BRUTE_FORCE_SAMPLES}, got {k}")
    c = check_sample_weight(sample_weight, k)
    w_t = check_w(w_t, X.shape[1], "w_t")
    Z = (c * y)[:, None] * X
    G = Z @ Z.T
    b = c - Z @ w_t
    states = ("low", "free") if np.isinf(C) else ("low", "high", "free")
    with np.errstate(over="ignore", invalid="ignore"):  # huge C: the checks below fail on inf/nan, as they should
        return _enumerate(states, k, C, G, b, Z, w_t, tol)


def _enumerate(states, k: int, C: float, G: np.ndarray, b: np.ndarray, Z: np.ndarray, w_t: np.ndarray,
               tol: float) -> QPSolution:
    best: QPSolution | None = None
    for assignment in itertools.product(states, repeat=k):
        alpha = np.zeros(k)
        high = np.array([s == "high" for s in assignment])
        free = np.array([s == "free" for s in assignment])
        alpha[high] = C
        if free.any():
            rhs = b[free] - G[np.ix_(free, ~free)] @ alpha[~free]
            if not np.all(np.isfinite(rhs)):  # a huge C overflowed: no KKT point of this pattern in float64
                continue
            sol, *_ = np.linalg.lstsq(G[np.ix_(free, free)], rhs, rcond=None)
            alpha[free] = sol
        scale = tol * (1.0 + np.abs(alpha).max() + np.abs(b).max())
        if np.any(alpha < -scale) or np.any(alpha > C + scale):
            continue
        grad = b - G @ alpha
        ok_free = np.all(np.abs(grad[free]) <= scale * (1 + np.abs(G).max()))
        ok_low = np.all(grad[np.array([s == "low" for s in assignment])] <= scale)
        ok_high = np.all(grad[high] >= -scale)
        if not (ok_free and ok_low and ok_high):
            continue
        alpha = np.clip(alpha, 0.0, C)
        value = float(-0.5 * alpha @ G @ alpha + alpha @ b)
        if best is None or value > best.value:
            best = QPSolution(w_t + alpha @ Z, alpha, value)
    if best is None:
        raise ValueError(f"no KKT point found within tol={tol!r}: with C = inf the hard-margin problem is "
                         "infeasible; otherwise raise tol")
    return best
