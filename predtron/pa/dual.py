"""The multi-sample passive-aggressive step: batch problem, its dual and the clipped dual step.

At round ``t`` the learner holds ``w_t`` and receives a batch ``(x_i, y_i)``, ``i = 1..k``,
with ``y_i`` in ``{-1, +1}``.  The paired passive-aggressive draft (seed 004, Section 4)
moves to the solution of

.. math::

    \\min_w \\tfrac12 \\|w - w_t\\|^2 + C \\sum_i c_i \\xi_i
    \\quad \\text{s.t.} \\quad y_i \\langle w, x_i \\rangle \\ge 1 - \\xi_i,\\ \\xi_i \\ge 0.

The draft has all slack weights ``c_i = 1``; the calibrated update of its Section 5 needs
``c_i = 1/(K-1)`` for the negatives, so the weights are a parameter here.  Writing
``z_i = c_i y_i x_i`` and ``alpha_i`` for the multiplier of constraint ``i`` divided by
``c_i`` (so that every ``alpha_i`` lives in the same box ``[0, C]``), the dual is

.. math::

    \\max_{\\alpha \\in [0, C]^k} D(\\alpha) = -\\tfrac12 \\Big\\|\\sum_i \\alpha_i z_i\\Big\\|^2
    + \\sum_i \\alpha_i (c_i - \\langle w_t, z_i \\rangle),
    \\qquad w(\\alpha) = w_t + \\sum_i \\alpha_i z_i .

(The draft prints the quadratic term with a plus sign; the dual of a minimisation is
concave, so the sign is minus.)  A *common step* adds the same ``delta`` to every
``alpha_j``, ``j`` in an index set ``J``.  Along that line ``D`` is the concave parabola
``delta (sum_J c_j - <w, u>) - delta^2 ||u||^2 / 2`` with ``u = sum_J z_j`` and ``w`` the
current primal point, so the best feasible step is its vertex clipped to the interval
``[L_b, U_b]`` that keeps every ``alpha_j`` in ``[0, C]`` (:func:`step_size`).
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from predtron._validation import as_finite_array, as_label_array, check_int, excerpt

#: Relative size of ``||u||^2`` below which the step direction counts as zero.
ZERO_DIRECTION = 1e-24


class DualStep(NamedTuple):
    """Result of one common dual step.

    Attributes
    ----------
    w : ndarray of shape (n_features,)
        The primal point ``w_t + sum_i alpha_i z_i`` after the step.
    alpha : ndarray of shape (k,)
        The dual variables after the step (each in ``[0, C]``).
    delta : float
        The step taken (``0`` when the interval ``[L_b, U_b]`` is ``{0}``).
    """

    w: np.ndarray
    alpha: np.ndarray
    delta: float


# ------------------------------------------------------------------- validation
def check_C(C) -> float:
    """Return ``C`` as a float after checking ``C > 0`` (``np.inf`` allowed: hard margin)."""
    if isinstance(C, (bool, np.bool_)) or not isinstance(C, numbers.Real):
        raise ValueError(f"C must be a real number > 0 (np.inf for the hard-margin step); got {excerpt(C)}")
    try:
        C = float(C)
    except OverflowError:
        raise ValueError("C must be a real number > 0; got an integer too large for a float") from None
    if np.isnan(C) or not C > 0:
        raise ValueError(f"C must be a real number > 0 (np.inf for the hard-margin step); got {C!r}")
    return C


def check_batch(X, y) -> tuple[np.ndarray, np.ndarray]:
    """Check a batch: ``X`` of shape ``(k, n_features)`` with ``k >= 1``, ``y`` of ``k`` labels +-1."""
    X = as_finite_array(X, "X")
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-D array (n_samples, n_features); got shape {X.shape}")
    y_arr = as_label_array(y, "y", booleans=False)
    if y_arr.shape != (X.shape[0],):
        raise ValueError(f"y must have one label per row of X, shape ({X.shape[0]},); got shape {y_arr.shape}")
    if y_arr.dtype.kind not in "iuf" or not np.all((y_arr == 1) | (y_arr == -1)):
        raise ValueError(f"y must contain only -1 and +1; got {excerpt(y_arr)}")
    return X, y_arr.astype(float)


def check_sample_weight(sample_weight, k: int) -> np.ndarray:
    """Slack weights ``c_i > 0`` (default all ones)."""
    k = check_int(k, "k", minimum=1)
    if sample_weight is None:
        return np.ones(k)
    c = as_finite_array(sample_weight, "sample_weight")
    if c.shape != (k,):
        raise ValueError(f"sample_weight must have shape ({k},); got shape {c.shape} (one weight per sample: k={k})")
    if not np.all(c > 0):
        raise ValueError(f"sample_weight must be > 0; got {c.tolist()!r}")
    return c


def check_w(w, n_features: int, name: str = "w") -> np.ndarray:
    """A weight vector of length ``n_features`` (copied)."""
    n_features = check_int(n_features, "n_features", minimum=1)
    w = as_finite_array(w, name)
    if w.shape != (n_features,):
        raise ValueError(f"{name} must have shape ({n_features},); got shape {w.shape} (one weight per feature of "
                         f"X: n_features={n_features})")
    return w.astype(float, copy=True)


def check_alpha(alpha, k: int, C: float) -> np.ndarray:
    """Dual variables of shape ``(k,)`` inside the box ``[0, C]`` (copied)."""
    k = check_int(k, "k", minimum=1)
    C = check_C(C)
    alpha = as_finite_array(alpha, "alpha")
    if alpha.shape != (k,):
        raise ValueError(f"alpha must have shape ({k},); got shape {alpha.shape} (k={k})")
    if np.any(alpha < 0) or np.any(alpha > C):
        raise ValueError(f"alpha must lie in the box [0, C] = [0, {C}]; got {alpha.tolist()!r}")
    return alpha.astype(float, copy=True)


def check_index_set(J, k: int, size_name: str = "k") -> np.ndarray:
    """A non-empty set of distinct indices in ``0..k-1`` (``size_name``: what sets ``k``, for messages)."""
    k = check_int(k, "k", minimum=1)
    J_arr = as_label_array(J, "J", booleans=False)
    if J_arr.dtype.kind == "f" and np.all(np.isfinite(J_arr)) and np.all(J_arr == np.round(J_arr)):
        J_arr = J_arr.astype(np.int64)
    if J_arr.ndim != 1 or J_arr.size == 0 or J_arr.dtype.kind not in "iu":
        raise ValueError(f"J must be a non-empty 1-D sequence of integer indices; got {excerpt(J_arr)}")
    if np.any(J_arr < 0) or np.any(J_arr >= k):
        raise ValueError(f"J must contain indices in 0..{k - 1}; got {excerpt(J_arr)} ({size_name}={k})")
    if np.unique(J_arr).size != J_arr.size:
        raise ValueError(f"J must not repeat an index; got {J_arr.tolist()!r}")
    return J_arr.astype(np.int64)


# ----------------------------------------------------------------- the problem
def signed_samples(X, y, sample_weight=None) -> np.ndarray:
    """The rows ``z_i = c_i y_i x_i`` the dual is written in."""
    X, y = check_batch(X, y)
    c = check_sample_weight(sample_weight, X.shape[0])
    return (c * y)[:, None] * X


def hinge_losses(w, X, y) -> np.ndarray:
    """``l_i = [1 - y_i <w, x_i>]_+`` for every sample of the batch."""
    X, y = check_batch(X, y)
    w = check_w(w, X.shape[1])
    return np.maximum(0.0, 1.0 - y * (X @ w))


def _decided_losses(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Hinge losses with those that floating point cannot tell from zero set to zero.

    A step puts samples exactly on their margin (``y_i <w, x_i> = 1``), and the computed
    loss of such a sample is a rounding error of either sign whose value depends on the
    order in which the BLAS of the machine sums ``<w, x_i>``.  Any summation order computes
    ``1 - y_i <w, x_i>`` within ``(d + 1) u (1 + sum_j |w_j x_ij|)`` of its exact value
    (``u`` the unit roundoff, ``d`` features), so a loss at most twice that counts as
    zero: the rules that choose samples by their losses then choose the same ones on
    every machine.
    """
    losses = np.maximum(0.0, 1.0 - y * (X @ w))
    noise = (X.shape[1] + 1) * np.finfo(np.float64).eps * (1.0 + np.abs(X) @ np.abs(w))
    losses[losses <= noise] = 0.0
    return losses


def batch_primal_objective(w, w_t, X, y, C: float, sample_weight=None) -> float:
    """``1/2 ||w - w_t||^2 + C sum_i c_i [1 - y_i <w, x_i>]_+`` (Section 4 of the draft).

    With ``C = inf`` the value is ``1/2 ||w - w_t||^2`` when every margin is at least
    one and ``inf`` otherwise (the hard-margin problem).
    """
    X, y = check_batch(X, y)
    C = check_C(C)
    c = check_sample_weight(sample_weight, X.shape[0])
    w = check_w(w, X.shape[1])
    w_t = check_w(w_t, X.shape[1], "w_t")
    slack = np.maximum(0.0, 1.0 - y * (X @ w))
    prox = 0.5 * float((w - w_t) @ (w - w_t))
    if np.isinf(C):
        return prox if np.all(slack <= 1e-12) else np.inf
    return prox + C * float(c @ slack)


def primal_from_dual(alpha, w_t, X, y, sample_weight=None) -> np.ndarray:
    """``w(alpha) = w_t + sum_i alpha_i c_i y_i x_i``."""
    Z = signed_samples(X, y, sample_weight)
    alpha = as_finite_array(alpha, "alpha")
    if alpha.shape != (Z.shape[0],):
        raise ValueError(f"alpha must have shape ({Z.shape[0]},); got shape {alpha.shape}")
    return check_w(w_t, Z.shape[1], "w_t") + alpha @ Z


def batch_dual_objective(alpha, w_t, X, y, sample_weight=None) -> float:
    """``D(alpha) = -1/2 ||sum_i alpha_i z_i||^2 + sum_i alpha_i (c_i - <w_t, z_i>)``.

    Weak duality: ``D(alpha) <= batch_primal_objective(w, ...)`` for every ``alpha`` in
    ``[0, C]^k`` and every ``w``, with equality at the optimum.
    """
    X, y = check_batch(X, y)
    c = check_sample_weight(sample_weight, X.shape[0])
    Z = (c * y)[:, None] * X
    alpha = as_finite_array(alpha, "alpha")
    if alpha.shape != (X.shape[0],):
        raise ValueError(f"alpha must have shape ({X.shape[0]},); got shape {alpha.shape}")
    w_t = check_w(w_t, X.shape[1], "w_t")
    v = alpha @ Z
    return float(-0.5 * v @ v + alpha @ (c - Z @ w_t))


def dual_gradient(w, X, y, sample_weight=None) -> np.ndarray:
    """``dD/dalpha_i = c_i (1 - y_i <w, x_i>)`` at the primal point ``w = w(alpha)``."""
    X, y = check_batch(X, y)
    c = check_sample_weight(sample_weight, X.shape[0])
    w = check_w(w, X.shape[1])
    return c * (1.0 - y * (X @ w))


def kkt_violation(w, alpha, X, y, C: float, sample_weight=None) -> float:
    """Largest projected-gradient entry of the dual (0 exactly at the optimum)."""
    X, y = check_batch(X, y)
    C = check_C(C)
    c = check_sample_weight(sample_weight, X.shape[0])
    alpha = check_alpha(alpha, X.shape[0], C)
    w = check_w(w, X.shape[1])
    return _kkt_violation(w, alpha, (c * y)[:, None] * X, c, C)


# -------------------------------------------------------------------- the step
def step_bounds(alpha, J, C: float) -> tuple[float, float]:
    """The interval ``[L_b, U_b]`` of common steps keeping ``alpha_j`` in ``[0, C]`` for ``j`` in ``J``.

    ``L_b = max_J (-alpha_j)`` and ``U_b = min_J (C - alpha_j)``.  For a feasible
    ``alpha`` this gives ``L_b <= 0 <= U_b``: the interval always contains the null step,
    and it is ``{0}`` exactly when ``J`` holds one variable at ``0`` and another at ``C``.
    ``U_b < L_b`` would mean ``alpha`` left the box, which is rejected with a ValueError.
    """
    C = check_C(C)
    alpha_arr = as_finite_array(alpha, "alpha")
    if alpha_arr.ndim != 1 or alpha_arr.size == 0:
        raise ValueError(f"alpha must be a 1-D array with at least one entry; got shape {alpha_arr.shape}")
    J = check_index_set(J, alpha_arr.size, "len(alpha)")
    lower, upper = float(np.max(-alpha_arr[J])), float(np.min(C - alpha_arr[J]))
    if upper < lower or lower > 0 or upper < 0:
        raise ValueError(
            f"no common step keeps alpha in [0, C]: L_b = {lower} > U_b = {upper} or 0 is outside "
            f"[L_b, U_b]; alpha must lie in the box [0, {C}], got {alpha_arr.tolist()!r}"
        )
    return lower, upper


def _checked_step(w, alpha, X, y, J, C, sample_weight):
    """Validate the arguments of one dual step; return them with the signed rows ``c_j y_j x_j``."""
    X, y = check_batch(X, y)
    C = check_C(C)
    c = check_sample_weight(sample_weight, X.shape[0])
    alpha = check_alpha(alpha, X.shape[0], C)
    J = check_index_set(J, X.shape[0])
    w = check_w(w, X.shape[1])
    return w, alpha, (c * y)[:, None] * X, c, J, C


def step_size(w, alpha, X, y, J, C: float, sample_weight=None) -> float:
    """The clipped common step ``delta = max(L_b, min(U_b, (sum_J c_j - <w, u>) / ||u||^2))``.

    ``u = sum_{j in J} c_j y_j x_j`` and ``w = w(alpha)`` is the *current* primal point
    (the draft writes ``w_t``, which is the same thing only when ``alpha = 0``).  When
    ``u = 0`` (e.g. ``J = {x+, x-}`` with ``x+ = x-``) the dual is linear along the line
    with slope ``sum_J c_j > 0``, so the step goes to ``U_b``; with ``C = inf`` that step
    is unbounded (the hard-margin problem is infeasible) and a ValueError is raised.
    """
    w, alpha, signed, c, J, C = _checked_step(w, alpha, X, y, J, C, sample_weight)
    return _step_size(w, alpha, signed, c, J, C)


def dual_step(w, alpha, X, y, J, C: float, sample_weight=None) -> DualStep:
    """Take the clipped common step on ``J``: ``alpha_J += delta``, ``w += delta u``.

    Returns a :class:`DualStep`.  The dual objective never decreases (the step maximises
    it along the line within the box) and ``alpha`` stays in ``[0, C]``.
    """
    w, alpha, signed, c, J, C = _checked_step(w, alpha, X, y, J, C, sample_weight)
    delta = _step_size(w, alpha, signed, c, J, C)
    _apply(w, alpha, signed, J, delta, C)
    return DualStep(w, alpha, delta)


# ------------------------------------------------------ unchecked inner versions
def _bounds(alpha: np.ndarray, J: np.ndarray, C: float) -> tuple[float, float]:
    return float(np.max(-alpha[J])), float(np.min(C - alpha[J]))


def _step_size(w: np.ndarray, alpha: np.ndarray, Z: np.ndarray, c: np.ndarray, J: np.ndarray,
               C: float) -> float:
    lower, upper = _bounds(alpha, J, C)
    if upper < lower:  # only reachable if alpha left the box through rounding
        return 0.0
    u = Z[J].sum(axis=0)
    slope = float(c[J].sum() - w @ u)
    curvature = float(u @ u)
    scale = float(np.einsum("ij,ij->", Z[J], Z[J]))
    if curvature <= ZERO_DIRECTION * scale:
        if slope > 0:
            if np.isinf(upper):
                raise ValueError(
                    "the samples of J cancel (sum_J c_j y_j x_j = 0), so the hard-margin step "
                    "(C = inf) is unbounded: no w meets their margins; use a finite C"
                )
            return upper
        return lower if slope < 0 else 0.0
    return float(min(upper, max(lower, slope / curvature)))


def _apply(w: np.ndarray, alpha: np.ndarray, Z: np.ndarray, J: np.ndarray, delta: float,
           C: float) -> None:
    if delta == 0.0:
        return
    w += delta * Z[J].sum(axis=0)
    alpha[J] = np.clip(alpha[J] + delta, 0.0, C)


def _kkt_violation(w: np.ndarray, alpha: np.ndarray, Z: np.ndarray, c: np.ndarray, C: float) -> float:
    grad = c - Z @ w
    projected = np.where(alpha <= 0, np.maximum(grad, 0.0), np.where(alpha >= C, np.minimum(grad, 0.0), grad))
    return float(np.max(np.abs(projected)))
