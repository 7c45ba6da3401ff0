"""Loss bounds of the paper and the quantities they are stated in (R, gamma).

Every bound is a function of plain numbers, so the book can put it next to a
measured cumulative loss; :func:`radius` and :func:`empirical_margin` measure ``R``
and ``gamma`` on a data set.

Every argument is validated under its own name, and a bound that does not fit in a
float64 (huge ``R``, tiny ``gamma``) is refused with a ``ValueError`` naming the
arguments instead of returning ``inf``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from predtron._exact import ExactSums
from predtron._validation import (
    as_finite_array,
    check_choice,
    check_int,
    check_matrix,
    check_positive,
    finite_result,
)
from predtron.learners.base import check_problem
from predtron.problems.base import Problem

NORMS = ("fro", "l1", "group")

#: Largest value of an integer argument of a bound (sizes of problems, numbers of features).
MAX_SIZE = 2**53


def _positive(value, name: str, **kwargs) -> np.float64:
    return np.float64(check_positive(value, name, **kwargs))


def _size(value, name: str, minimum: int) -> int:
    return check_int(value, name, minimum=minimum, maximum=MAX_SIZE)


def _finite(compute: Callable[[], float], **args) -> float:
    """Evaluate a bound in float64; a value that overflows is refused, naming the arguments."""
    return finite_result(compute, **args)


def radius(problem: Problem, X) -> float:
    """``R = max_tau ||X_tau||``, in the norm the problem's scoring uses (Theorem 1).

    For vector inputs this is the Euclidean norm; for ranking inputs the operator
    norm of the document matrix (Corollary 5).
    """
    check_problem(problem)
    inputs = problem.scoring.prepare(X)
    if inputs.n == 0:
        raise ValueError("X is empty; the radius of no input is not defined")
    return max(problem.scoring.instance_norm(inputs.instance(i)) for i in range(inputs.n))


def parameter_norm(W: np.ndarray, norm: str = "fro") -> float:
    """Norm of a parameter matrix: ``"fro"`` (Frobenius / l2), ``"l1"`` (entrywise) or
    ``"group"`` (the (2,1) group norm: sum of the l2 norms of the columns, Section 5)."""
    check_choice(norm, "norm", NORMS)
    W = as_finite_array(W, "W")
    if W.ndim not in (1, 2) or W.size == 0:
        raise ValueError(f"W must be a non-empty vector or matrix of parameters; got shape {W.shape}")
    if norm == "fro":
        return float(np.linalg.norm(W))
    if norm == "l1":
        return float(np.abs(W).sum())
    return float(np.linalg.norm(W if W.ndim > 1 else W[None, :], axis=0).sum())


def empirical_margin(problem: Problem, W: np.ndarray, X, Y, norm: str = "fro") -> float:
    """Margin ``gamma`` of ``W / ||W||`` on a data set (Section 2.2).

    The smallest margin over the examples of the scores of the normalised ``W``
    (``problem.margin``); positive exactly when the normalised ``W`` separates the data
    (``inf`` when no example has a wrong prediction to separate from).
    """
    check_problem(problem)
    scale = parameter_norm(W, norm)
    if scale == 0:
        raise ValueError("W is zero; the margin of the zero matrix is not defined")
    inputs = problem.scoring.prepare(X)
    if inputs.n == 0:
        raise ValueError("X is empty; the margin over no example is not defined")
    labels = problem.check_labels(Y, inputs)
    W = as_finite_array(W, "W") / scale
    expected = problem.scoring.param_shape(inputs.n_features)
    if W.shape != expected:
        raise ValueError(f"W must have shape {expected} for X with {inputs.n_features} features; got {W.shape}")
    return min(problem._margin(inputs.one_scores(W, i), labels[i]) for i in range(inputs.n))


def theorem1_step_of(c_L: float, r2: float) -> float:
    """``c_L / (4 r2)``: Theorem 1's step from ``c_L`` and the squared radius ``r2`` (1 when ``r2`` is
    not positive); the one formula behind :func:`theorem1_eta`, :func:`theorem1_step` and
    :meth:`predtron.sklearn.FitStatistics.step`."""
    return float(c_L / (4.0 * r2)) if r2 > 0 else 1.0


def theorem1_eta(R: float, c_L: float) -> float:
    """The step size ``eta = c_L / (4 R^2)`` of Theorem 1."""
    R, c_L = _positive(R, "R"), _positive(c_L, "c_L")
    return _finite(lambda: theorem1_step_of(c_L, R**2), R=R, c_L=c_L)


def squared_norms(X, offsets=None) -> np.ndarray:
    """``||x||^2`` of every row of a validated ``X`` (dense or CSR); with ``offsets`` (ranking),
    the squared Frobenius norm of every query's document matrix."""
    if sp.issparse(X):
        squares = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    else:
        squares = np.einsum("ij,ij->i", X, X)
    if offsets is not None:
        squares = np.add.reduceat(squares, offsets[:-1]) if len(squares) else squares
    return squares


def mean_squared_norm(X, offsets=None) -> float:
    """The exact mean of :func:`squared_norms`, rounded once (0 for no row): the same value
    however the rows are cut into chunks or shards (:class:`predtron.sklearn.FitStatistics`)."""
    squares = squared_norms(X, offsets)
    return float(ExactSums(1).add(squares).means(len(squares))[0])


def theorem1_step(problem: Problem, X, labels, intercept: bool, offsets=None) -> float:
    """``c_L / (4 R^2)`` with ``R^2`` the MEAN squared instance norm (not Theorem 1's step, whose ``R``
    is the largest norm): the estimators' ``eta="auto"`` (times ``2m`` or ``sqrt(m)`` for the multilabel
    Hamming loss).

    Theorem 1 takes the largest norm ``R``; one outlying row then shrinks the step for every
    example, so the estimators use the mean of ``||x||^2`` (plus 1 for an intercept; for a
    query, the squared Frobenius norm of its document matrix, an upper bound of the squared
    operator norm), summed exactly (:func:`mean_squared_norm`).  ``c_L`` is the smallest
    non-zero loss (over the training labels for ranking,
    :meth:`~predtron.problems.ranking.RankingProblem.grade_c_L`: vectorised over the queries,
    equal to the per-query loop).  Falls back to 1 when every loss is zero.

    Called on validated data (the estimators' ``fit`` checks it once): ``X`` a float
    ``(N, p)`` array or CSR matrix, ``labels`` the problem's checked labels (for ranking the
    int64 grades of every document) and ``offsets`` the ``n_queries + 1`` row offsets of the
    queries (ranking) or ``None``.
    """
    r2 = mean_squared_norm(X, offsets) + (1.0 if intercept else 0.0)
    if offsets is not None:
        try:
            c_L = problem.grade_c_L(labels, offsets)
        except ValueError:
            return 1.0
    else:
        c_L = problem.c_L
    return theorem1_step_of(c_L, r2)


def theorem1_bound(R: float, gamma: float, c_L: float, C_L: float, eta: float | None = None) -> float:
    """Theorem 1: ``sum_tau L <= 4 R^2 C_L^2 / (c_L gamma^2)`` for separable data.

    With ``eta`` given, the bound of the same proof for that step size,
    ``C_L^2 / (2 eta gamma^2 (1 - 2 eta R^2 / c_L))``, valid for ``eta < c_L / (2 R^2)``;
    it equals the headline bound at ``eta = c_L / (4 R^2)``.
    """
    R, gamma = _positive(R, "R"), _positive(gamma, "gamma")
    c_L, C_L = _positive(c_L, "c_L"), _positive(C_L, "C_L")
    if eta is None:
        return _finite(lambda: 4 * R**2 * C_L**2 / (c_L * gamma**2), R=R, gamma=gamma, c_L=c_L, C_L=C_L)
    eta = _positive(eta, "eta")
    with np.errstate(all="ignore"):
        shrink = 1 - 2 * eta * R**2 / c_L
        largest = float(c_L / (2 * R**2))
    if not shrink > 0:
        raise ValueError(f"the bound needs eta < c_L / (2 R^2) = {largest!r}; got eta={float(eta)!r}")
    return _finite(lambda: C_L**2 / (2 * eta * gamma**2 * shrink), R=R, gamma=gamma, c_L=c_L, C_L=C_L, eta=eta)


def predtron_bound(problem: Problem, R: float, gamma: float) -> float:
    """Theorem 1 with the problem's own ``c_L`` and ``C_L``: ``4 R^2 C_L^2 / (c_L gamma^2)``, for the
    Predtron with Theorem 1's step ``eta = c_L / (4 R^2)`` (:func:`theorem1_eta`); for another step
    use :func:`theorem1_bound` with ``eta``."""
    check_problem(problem)
    return theorem1_bound(R, gamma, problem.c_L, problem.C_L)


def corollary2_bound(R: float, gamma: float, cost_pos: float, cost_neg: float) -> float:
    """Corollary 2 (weighted binary loss): ``4 R^2 alpha_1^2 / (alpha_2 gamma^2)``,
    ``alpha_1 >= alpha_2`` the larger and smaller cost."""
    cost_pos, cost_neg = _positive(cost_pos, "cost_pos"), _positive(cost_neg, "cost_neg")
    R, gamma = _positive(R, "R"), _positive(gamma, "gamma")
    high, low = max(cost_pos, cost_neg), min(cost_pos, cost_neg)
    return _finite(lambda: 4 * R**2 * high**2 / (low * gamma**2), R=R, gamma=gamma, cost_pos=cost_pos,
                   cost_neg=cost_neg)


def ordinal_bound(R: float, gamma: float, n_levels: int) -> float:
    """Ordinal regression by the multiclass reduction: ``4 (l - 1)^2 R^2 / gamma^2``, for the
    multiclass Predtron with Theorem 1's step ``eta = c_L / (4 R^2) = 1 / (4 R^2)`` (``c_L = 1``,
    ``C_L = l - 1`` for the absolute loss)."""
    n_levels = _size(n_levels, "n_levels", 2)
    R, gamma = _positive(R, "R"), _positive(gamma, "gamma")
    return _finite(lambda: 4 * np.float64(n_levels - 1) ** 2 * R**2 / gamma**2, R=R, gamma=gamma,
                   n_levels=n_levels)


def _reject_costs(reject_cost_pos, reject_cost_neg) -> tuple[np.float64, np.float64]:
    """``(beta_1, beta_2)``, the larger and smaller abstention cost, each in ``(0, 1]``."""
    pos = _positive(reject_cost_pos, "reject_cost_pos", maximum=1.0)
    neg = _positive(reject_cost_neg, "reject_cost_neg", maximum=1.0)
    return max(pos, neg), min(pos, neg)


def reject_bound(R: float, gamma: float, reject_cost_pos: float, reject_cost_neg: float) -> float:
    """REJECT option, from Theorem 1 (``C_L = 1``, ``c_L = beta_2``): ``4 R^2 / (beta_2 gamma^2)``.

    This is the bound we can prove from Theorem 1; see :func:`reject_bound_paper` for
    the form printed in the paper.
    """
    b1, b2 = _reject_costs(reject_cost_pos, reject_cost_neg)
    R, gamma = _positive(R, "R"), _positive(gamma, "gamma")
    return _finite(lambda: 4 * R**2 / (b2 * gamma**2), R=R, gamma=gamma, reject_cost_pos=b1, reject_cost_neg=b2)


def reject_bound_paper(R: float, gamma: float, reject_cost_pos: float, reject_cost_neg: float) -> float:
    """The REJECT bound as printed in Section 3, ``4 R^2 beta_1^2 / (beta_2^2 gamma^2)``.

    Its proof (Appendix C.1) is not available to us; the book checks it empirically
    only.
    """
    b1, b2 = _reject_costs(reject_cost_pos, reject_cost_neg)
    R, gamma = _positive(R, "R"), _positive(gamma, "gamma")
    return _finite(lambda: 4 * R**2 * b1**2 / (b2**2 * gamma**2), R=R, gamma=gamma, reject_cost_pos=b1,
                   reject_cost_neg=b2)


def loss_driven_bound(R: float, gamma: float, C_L: float, c_L: float | None = None,
                      update: str = "prediction") -> float:
    """Bounds for Predtron.LD (our derivation, see the book's appendix).

    ``update="prediction"`` (any ``eta``): ``sum L <= 4 R^2 C_L / gamma^2``.
    ``update="oracle"`` (``eta = 1 / (4 R^2)``): ``sum L^2 <= 4 R^2 C_L^2 / gamma^2``,
    so ``sum L <= 4 R^2 C_L^2 / (c_L gamma^2)``; this needs ``c_L``.
    """
    check_choice(update, "update", ("prediction", "oracle"))
    R, gamma, C_L = _positive(R, "R"), _positive(gamma, "gamma"), _positive(C_L, "C_L")
    if update == "prediction":
        return _finite(lambda: 4 * R**2 * C_L / gamma**2, R=R, gamma=gamma, C_L=C_L)
    if c_L is None:
        raise ValueError("update='oracle' needs c_L (the smallest non-zero loss); got c_L=None")
    c_L = _positive(c_L, "c_L")
    return _finite(lambda: 4 * R**2 * C_L**2 / (c_L * gamma**2), R=R, gamma=gamma, C_L=C_L, c_L=c_L)


def loss_driven_squared_bound(R: float, gamma: float, C_L: float) -> float:
    """Predtron.LD with the oracle and ``eta = 1 / (4 R^2)``: ``sum L^2 <= 4 R^2 C_L^2 / gamma^2``."""
    R, gamma, C_L = _positive(R, "R"), _positive(gamma, "gamma"), _positive(C_L, "C_L")
    return _finite(lambda: 4 * R**2 * C_L**2 / gamma**2, R=R, gamma=gamma, C_L=C_L)


# ------------------------------------------------------------------ ranking (Sections 4-5)
def operator_norm_radius(X) -> float:
    """``R = max_tau ||X_tau||_op`` (largest singular value) over a list of query matrices (Corollary 5)."""
    return max(float(np.linalg.norm(x, 2)) for x in _queries(X))


def _queries(X) -> list[np.ndarray]:
    """The query matrices of ``X`` (a list of ``(m, p0)`` matrices of one width), at least one."""
    from predtron.scoring import DocumentScoring

    inputs = DocumentScoring().prepare(X)
    if inputs.n == 0:
        raise ValueError("X is empty; the radius of no query is not defined")
    return [inputs.instance(i) for i in range(inputs.n)]


def column_norm_radius(X) -> float:
    """``R = max_tau max_j ||X_tau[:, j]||_2``, the largest column norm of a query matrix (Corollary 6)."""
    return max(float(np.linalg.norm(x, axis=0).max()) for x in _queries(X))


def l2_radius(X) -> float:
    """``R = max_tau ||x_tau||_2`` over the rows of a 2-D input array (Corollary 7)."""
    return float(np.linalg.norm(check_matrix(X, "X", min_rows=1), axis=1).max())


def linf_radius(X) -> float:
    """``R = max_tau ||x_tau||_inf`` over the rows of a 2-D input array (Corollary 8)."""
    return float(np.abs(check_matrix(X, "X", min_rows=1)).max())


def _ranking_factor(R: float, gamma: float, n_items: int, y_max: int, items_name: str = "n_items") -> float:
    R, gamma = _positive(R, "R"), _positive(gamma, "gamma")
    m = _size(n_items, items_name, 1)
    y_max = check_int(y_max, "y_max", minimum=0, maximum=1000)
    return _finite(lambda: 2.0 ** (y_max + 3) * np.float64(m) ** 2 * np.log2(2.0 * m) ** 2 * R**2 / gamma**2,
                   R=R, gamma=gamma, **{items_name: m}, y_max=y_max)


def _log_dimension(p: int, name: str) -> float:
    return float(np.log(_size(p, name, 2)))


def corollary5_bound(R: float, gamma: float, n_items: int, y_max: int) -> float:
    """Corollary 5 (subset ranking, NDCG): ``sum L <= 2^{Ymax+3} m^2 log2^2(2m) R^2 / gamma^2``.

    ``R`` bounds the operator norm of every query matrix (:func:`operator_norm_radius`),
    ``gamma`` is the margin of a unit-l2-norm ``w*`` (Lemma 4), ``m`` the largest number
    of documents in a query and ``Ymax`` the largest relevance grade.  It follows from
    Theorem 1 with ``C_L <= 1`` and ``c_L >= 1 / (2^{Ymax+1} m^2 log2^2(2m))``, and holds for
    the Predtron with Theorem 1's step ``eta = c_L / (4 R^2)`` (:func:`theorem1_eta`); the
    paper omits the step, but the bound is not free of it: for another ``eta`` the proof
    gives :func:`theorem1_bound` with ``eta``, which is larger.  That a small step can make the
    loss exceed the step-free bound is shown in the book for a cost-sensitive multiclass stream
    (chapter 4), not for rankings.
    """
    return _ranking_factor(R, gamma, n_items, y_max)


def corollary6_bound(R: float, gamma: float, n_items: int, y_max: int, n_features: int) -> float:
    """Corollary 6 (l1 margin, Predtron.Link with ``psi = 1/2 ||w||_r^2``): Corollary 5 times ``9 ln p0``.

    ``R = max_tau max_j ||X_tau[:, j]||_2`` (:func:`column_norm_radius`), ``gamma`` the
    margin of a unit-l1-norm ``w*``.  ``ln`` is the natural logarithm and ``p0 >= 2``.

    The bound holds for Predtron.Link with the step :func:`link_eta` and the exponent
    :func:`link_exponent` (the package's default): ``r = ln p0 / (ln p0 - 1)`` for
    ``p0 >= 8`` and ``r = 2`` below, because :func:`link_factor` is at most ``9 ln p0`` for
    every ``p0 >= 2``.  For ``p0 <= 7`` the paper's ``r = ln p0 / (ln p0 - 1)`` leaves
    ``(1, 2]`` (it exceeds 2 for ``p0 = 3..7``, is negative for ``p0 = 2`` and zero for
    ``p0 = 1``), ``1/2 ||w||_r^2`` is not strongly convex, and the paper's statement fails
    (the book gives a stream).
    """
    log_p = _log_dimension(n_features, "n_features")
    factor = _ranking_factor(R, gamma, n_items, y_max)
    return _finite(lambda: 9.0 * log_p * factor, R=R, gamma=gamma, n_features=n_features)


def corollary7_bound(R: float, gamma: float, n_labels: int, y_max: int) -> float:
    """Corollary 7 (multilabel ranking, NDCG): ``2^{Ymax+3} m^2 log2^2(2m) R^2 / gamma^2`` with
    ``||x||_2 <= R`` (:func:`l2_radius`) and ``gamma`` the margin of a unit-Frobenius ``W*``,
    for the Predtron with Theorem 1's step ``eta = c_L / (4 R^2)`` (as :func:`corollary5_bound`)."""
    return _ranking_factor(R, gamma, n_labels, y_max, "n_labels")


def corollary8_bound(R: float, gamma: float, n_labels: int, y_max: int, n_features: int) -> float:
    """Corollary 8 (group (2,1) margin, Predtron.Link with ``psi = 1/2 ||W||_{2,r}^2``): Corollary 7
    times ``9 ln p``, with ``||x||_inf <= R`` (:func:`linf_radius`), ``gamma`` the margin of a ``W*``
    of unit (2,1) norm and ``p >= 2`` features.

    As for :func:`corollary6_bound`, it holds with the step :func:`link_eta` and the exponent
    :func:`link_exponent` (``r = 2`` for ``p <= 7``), not with the paper's
    ``r = ln p / (ln p - 1)`` there, which is outside ``(1, 2]`` for every ``p <= 7``.
    """
    log_p = _log_dimension(n_features, "n_features")
    factor = _ranking_factor(R, gamma, n_labels, y_max, "n_labels")
    return _finite(lambda: 9.0 * log_p * factor, R=R, gamma=gamma, n_features=n_features)


def ndcg_loss_floor(n_items: int, y_max: int) -> float:
    """Lower bound ``1 / (2^{Ymax+1} m^2 log2^2(2m))`` on the smallest non-zero NDCG loss.

    This is the ``c_L`` that Corollaries 5 and 7 use implicitly (our reading of their
    constant ``2^{Ymax+3} m^2 log2^2(2m) = 4 / c_L`` with ``C_L <= 1``); the book checks
    it against the exact ``c_L`` by enumeration for small ``m``.
    """
    m = _size(n_items, "n_items", 1)
    y_max = check_int(y_max, "y_max", minimum=0, maximum=1000)
    value = 1.0 / (2.0 ** (y_max + 1) * float(m) ** 2 * np.log2(2.0 * m) ** 2)
    if value == 0:
        raise ValueError(f"the floor underflows to 0 in float64 for n_items={m}, y_max={y_max}")
    return value


def link_exponent(n_features: int) -> float:
    """The norm exponent ``r`` of Predtron.Link with an ``l_1`` or group margin.

    ``r = ln p / (ln p - 1)`` (Corollaries 6 and 8) when ``p >= 8``, and ``r = 2`` for
    ``p <= 7``: below ``p = e^2`` the paper's formula leaves ``(1, 2]`` (``r > 2`` for
    ``p = 3..7``, ``r < 0`` for ``p = 2``), where ``1/2 ||.||_r^2`` is not strongly convex
    and no bound of this kind holds.  This is
    :func:`predtron.links.default_exponent`, the exponent ``PNormLink()`` and
    ``GroupNormLink()`` use when none is given.
    """
    from predtron.links import default_exponent

    return default_exponent(_size(n_features, "n_features", 2))


def link_factor(n_features: int) -> float:
    """``p^{2/s} / (r - 1)``: the price of the ``l_1`` (or group) geometry in Predtron.Link.

    Our reconstruction (the paper's appendix is unavailable): with ``r`` from
    :func:`link_exponent` and ``s = r / (r - 1)``, ``psi = 1/2 ||.||_r^2`` is
    ``(r - 1)``-strongly convex with respect to ``||.||_r`` and an update of dual
    (``l_inf``-type) size ``2R`` has ``||.||_s <= 2 R p^{1/s}``, so Theorem 1's bound is
    multiplied by this factor.  It is ``e^2 (ln p - 1)`` for ``p >= 8`` and ``p`` for
    ``p <= 7`` (where ``r = 2``), and at most ``9 ln p`` for every ``p >= 2`` (the factor of
    Corollaries 6 and 8).  The formula ``e^2 (ln p - 1)`` alone is wrong below ``p = 8``:
    it assumes the exponent ``ln p / (ln p - 1)``, which is outside ``(1, 2]`` there.
    """
    r = link_exponent(n_features)
    s = r / (r - 1.0)
    return _finite(lambda: np.float64(n_features) ** (2.0 / s) / (r - 1.0), n_features=n_features)


def link_eta(R: float, c_L: float, n_features: int) -> float:
    """Step size of Predtron.Link with an ``l_1`` / group margin: ``c_L / (4 F R^2)``, ``F = link_factor(p)``.

    ``F = e^2 (ln p - 1)`` for ``p >= 8`` and ``F = p`` below (see :func:`link_factor`).
    """
    R, c_L = _positive(R, "R"), _positive(c_L, "c_L")
    factor = link_factor(n_features)
    return _finite(lambda: c_L / (4 * factor * R**2), R=R, c_L=c_L, n_features=n_features)


def link_bound(R: float, gamma: float, c_L: float, C_L: float, n_features: int) -> float:
    """Theorem 1 in the ``l_1`` geometry: ``link_factor(p) * 4 R^2 C_L^2 / (c_L gamma^2)``.

    ``R`` bounds the dual (``l_inf``-type) norm of the inputs and ``gamma`` is the
    margin of a unit ``l_1`` (or group) norm target; it holds for Predtron.Link with the
    exponent :func:`link_exponent` and the step :func:`link_eta` (the book's appendix).
    """
    factor = link_factor(n_features)
    bound = theorem1_bound(R, gamma, c_L, C_L)
    return _finite(lambda: factor * bound, R=R, gamma=gamma, n_features=n_features)
