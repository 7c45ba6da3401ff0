"""Loss bounds of the paper and the quantities they are stated in (R, gamma).

Every bound is a function of plain numbers, so the book can put it next to a
measured cumulative loss; :func:`radius` and :func:`empirical_margin` measure ``R``
and ``gamma`` on a data set.
"""

from __future__ import annotations

import numpy as np

from predtron._validation import check_int, check_positive
from predtron.problems.base import Problem

NORMS = ("fro", "l1", "group")


def radius(problem: Problem, X) -> float:
    """``R = max_tau ||X_tau||``, in the norm the problem's scoring uses (Theorem 1).

    For vector inputs this is the Euclidean norm; for ranking inputs the operator
    norm of the document matrix (Corollary 5).
    """
    return max(problem.scoring.instance_norm(x) for x in problem.scoring.split(X))


def parameter_norm(W: np.ndarray, norm: str = "fro") -> float:
    """Norm of a parameter matrix: ``"fro"`` (Frobenius / l2), ``"l1"`` (entrywise) or
    ``"group"`` (the (2,1) group norm: sum of the l2 norms of the columns, Section 5)."""
    W = np.asarray(W, dtype=float)
    if norm == "fro":
        return float(np.linalg.norm(W))
    if norm == "l1":
        return float(np.abs(W).sum())
    if norm == "group":
        return float(np.linalg.norm(W.reshape(W.shape[0], -1) if W.ndim > 1 else W[:, None],
                                    axis=0).sum())
    raise ValueError(f"norm must be one of {list(NORMS)}; got {norm!r}")


def empirical_margin(problem: Problem, W: np.ndarray, X, Y, norm: str = "fro") -> float:
    """Margin ``gamma`` of ``W / ||W||`` on a data set (Section 2.2).

    The smallest margin over the examples of the scores of the normalised ``W``
    (``problem.margin``); positive exactly when the normalised ``W`` separates the data.
    """
    scale = parameter_norm(W, norm)
    if scale == 0:
        raise ValueError("W is zero; the margin of the zero matrix is not defined")
    W = np.asarray(W, dtype=float) / scale
    xs = problem.scoring.split(X)
    if len(xs) != len(Y):
        raise ValueError(f"X and Y must have the same length; got {len(xs)} and {len(Y)}")
    return min(problem.margin(problem.scoring.scores(W, x), problem.check_label(y))
               for x, y in zip(xs, Y, strict=True))


def theorem1_eta(R: float, c_L: float) -> float:
    """The step size ``eta = c_L / (4 R^2)`` of Theorem 1."""
    return check_positive(c_L, "c_L") / (4 * check_positive(R, "R") ** 2)


def theorem1_bound(R: float, gamma: float, c_L: float, C_L: float, eta: float | None = None) -> float:
    """Theorem 1: ``sum_tau L <= 4 R^2 C_L^2 / (c_L gamma^2)`` for separable data.

    With ``eta`` given, the bound of the same proof for that step size,
    ``C_L^2 / (2 eta gamma^2 (1 - 2 eta R^2 / c_L))``, valid for ``eta < c_L / (2 R^2)``;
    it equals the headline bound at ``eta = c_L / (4 R^2)``.
    """
    R, gamma = check_positive(R, "R"), check_positive(gamma, "gamma")
    c_L, C_L = check_positive(c_L, "c_L"), check_positive(C_L, "C_L")
    if eta is None:
        return 4 * R**2 * C_L**2 / (c_L * gamma**2)
    eta = check_positive(eta, "eta")
    shrink = 1 - 2 * eta * R**2 / c_L
    if shrink <= 0:
        raise ValueError(f"the bound needs eta < c_L / (2 R^2) = {c_L / (2 * R**2)!r}; got {eta!r}")
    return C_L**2 / (2 * eta * gamma**2 * shrink)


def predtron_bound(problem: Problem, R: float, gamma: float) -> float:
    """Theorem 1 with the problem's own ``c_L`` and ``C_L``."""
    return theorem1_bound(R, gamma, problem.c_L, problem.C_L)


def corollary2_bound(R: float, gamma: float, cost_pos: float, cost_neg: float) -> float:
    """Corollary 2 (weighted binary loss): ``4 R^2 alpha_1^2 / (alpha_2 gamma^2)``,
    ``alpha_1 >= alpha_2`` the larger and smaller cost."""
    high, low = max(cost_pos, cost_neg), min(cost_pos, cost_neg)
    return theorem1_bound(R, gamma, low, high)


def ordinal_bound(R: float, gamma: float, n_levels: int) -> float:
    """Ordinal regression by the multiclass reduction: ``4 (l - 1)^2 R^2 / gamma^2``."""
    return theorem1_bound(R, gamma, 1.0, float(n_levels - 1))


def reject_bound(R: float, gamma: float, reject_cost_pos: float, reject_cost_neg: float) -> float:
    """REJECT option, from Theorem 1 (``C_L = 1``, ``c_L = beta_2``): ``4 R^2 / (beta_2 gamma^2)``.

    This is the bound we can prove from Theorem 1; see :func:`reject_bound_paper` for
    the form printed in the paper.
    """
    return theorem1_bound(R, gamma, min(reject_cost_pos, reject_cost_neg), 1.0)


def reject_bound_paper(R: float, gamma: float, reject_cost_pos: float, reject_cost_neg: float) -> float:
    """The REJECT bound as printed in Section 3, ``4 R^2 beta_1^2 / (beta_2^2 gamma^2)``.

    Its proof (Appendix C.1) is not available to us; the book checks it empirically
    only.
    """
    b1, b2 = max(reject_cost_pos, reject_cost_neg), min(reject_cost_pos, reject_cost_neg)
    return 4 * R**2 * b1**2 / (b2**2 * check_positive(gamma, "gamma") ** 2)


def loss_driven_bound(R: float, gamma: float, C_L: float, c_L: float | None = None,
                      update: str = "prediction") -> float:
    """Bounds for Predtron.LD (our derivation, see the book's appendix).

    ``update="prediction"`` (any ``eta``): ``sum L <= 4 R^2 C_L / gamma^2``.
    ``update="oracle"`` (``eta = 1 / (4 R^2)``): ``sum L^2 <= 4 R^2 C_L^2 / gamma^2``,
    so ``sum L <= 4 R^2 C_L^2 / (c_L gamma^2)``; this needs ``c_L``.
    """
    R, gamma, C_L = check_positive(R, "R"), check_positive(gamma, "gamma"), check_positive(C_L, "C_L")
    if update == "prediction":
        return 4 * R**2 * C_L / gamma**2
    if update == "oracle":
        if c_L is None:
            raise ValueError("update='oracle' needs c_L")
        return 4 * R**2 * C_L**2 / (check_positive(c_L, "c_L") * gamma**2)
    raise ValueError(f"update must be 'prediction' or 'oracle'; got {update!r}")


def loss_driven_squared_bound(R: float, gamma: float, C_L: float) -> float:
    """Predtron.LD with the oracle and ``eta = 1 / (4 R^2)``: ``sum L^2 <= 4 R^2 C_L^2 / gamma^2``."""
    return 4 * check_positive(R, "R") ** 2 * check_positive(C_L, "C_L") ** 2 / check_positive(
        gamma, "gamma") ** 2


# ------------------------------------------------------------------ ranking (Sections 4-5)
def operator_norm_radius(X) -> float:
    """``R = max_tau ||X_tau||_op`` (largest singular value) over a list of query matrices (Corollary 5)."""
    from predtron.scoring import DocumentScoring

    return max(float(np.linalg.norm(x, 2)) for x in DocumentScoring().split(X))


def column_norm_radius(X) -> float:
    """``R = max_tau max_j ||X_tau[:, j]||_2``, the largest column norm of a query matrix (Corollary 6)."""
    from predtron.scoring import DocumentScoring

    return max(float(np.linalg.norm(x, axis=0).max()) for x in DocumentScoring().split(X))


def l2_radius(X) -> float:
    """``R = max_tau ||x_tau||_2`` over the rows of a 2-D input array (Corollary 7)."""
    from predtron.scoring import VectorScoring

    return max(float(np.linalg.norm(x)) for x in VectorScoring(1).split(X))


def linf_radius(X) -> float:
    """``R = max_tau ||x_tau||_inf`` over the rows of a 2-D input array (Corollary 8)."""
    from predtron.scoring import VectorScoring

    return max(float(np.abs(x).max()) for x in VectorScoring(1).split(X))


def _ranking_factor(R: float, gamma: float, n_items: int, y_max: int) -> float:
    R, gamma = check_positive(R, "R"), check_positive(gamma, "gamma")
    m = check_int(n_items, "n_items", minimum=1)
    y_max = check_int(y_max, "y_max", minimum=0)
    return 2.0 ** (y_max + 3) * m**2 * np.log2(2 * m) ** 2 * R**2 / gamma**2


def _log_dimension(p: int, name: str) -> float:
    p = check_int(p, name, minimum=2)
    return float(np.log(p))


def corollary5_bound(R: float, gamma: float, n_items: int, y_max: int) -> float:
    """Corollary 5 (subset ranking, NDCG): ``sum L <= 2^{Ymax+3} m^2 log2^2(2m) R^2 / gamma^2``.

    ``R`` bounds the operator norm of every query matrix (:func:`operator_norm_radius`),
    ``gamma`` is the margin of a unit-l2-norm ``w*`` (Lemma 4), ``m`` the largest number
    of documents in a query and ``Ymax`` the largest relevance grade.  It follows from
    Theorem 1 with ``C_L <= 1`` and ``c_L >= 1 / (2^{Ymax+1} m^2 log2^2(2m))``.
    """
    return _ranking_factor(R, gamma, n_items, y_max)


def corollary6_bound(R: float, gamma: float, n_items: int, y_max: int, n_features: int) -> float:
    """Corollary 6 (l1 margin, Predtron.Link with ``psi = 1/2 ||w||_r^2``): Corollary 5 times ``9 ln p0``.

    ``R = max_tau max_j ||X_tau[:, j]||_2`` (:func:`column_norm_radius`), ``gamma`` the
    margin of a unit-l1-norm ``w*``.  ``ln`` is the natural logarithm and ``p0 >= 2``.

    The bound holds for Predtron.Link with the exponent :func:`link_exponent` (the
    package's default): ``r = ln p0 / (ln p0 - 1)`` for ``p0 >= 8`` and ``r = 2`` below,
    because :func:`link_factor` is at most ``9 ln p0`` for every ``p0 >= 2``.  For
    ``p0 <= 7`` the paper's ``r = ln p0 / (ln p0 - 1)`` exceeds 2, ``1/2 ||w||_r^2`` is no
    longer strongly convex, and the paper's statement fails (the book gives a stream).
    """
    return 9.0 * _log_dimension(n_features, "n_features") * _ranking_factor(R, gamma, n_items, y_max)


def corollary7_bound(R: float, gamma: float, n_labels: int, y_max: int) -> float:
    """Corollary 7 (multilabel ranking, NDCG): ``2^{Ymax+3} m^2 log2^2(2m) R^2 / gamma^2`` with
    ``||x||_2 <= R`` (:func:`l2_radius`) and ``gamma`` the margin of a unit-Frobenius ``W*``."""
    return _ranking_factor(R, gamma, n_labels, y_max)


def corollary8_bound(R: float, gamma: float, n_labels: int, y_max: int, n_features: int) -> float:
    """Corollary 8 (group (2,1) margin, Predtron.Link with ``psi = 1/2 ||W||_{2,r}^2``): Corollary 7
    times ``9 ln p``, with ``||x||_inf <= R`` (:func:`linf_radius`), ``gamma`` the margin of a ``W*``
    of unit (2,1) norm and ``p >= 2`` features.

    As for :func:`corollary6_bound`, it holds with the exponent :func:`link_exponent`
    (``r = 2`` for ``p <= 7``), not with the paper's ``r = ln p / (ln p - 1) > 2`` there.
    """
    return 9.0 * _log_dimension(n_features, "n_features") * _ranking_factor(R, gamma, n_labels, y_max)


def ndcg_loss_floor(n_items: int, y_max: int) -> float:
    """Lower bound ``1 / (2^{Ymax+1} m^2 log2^2(2m))`` on the smallest non-zero NDCG loss.

    This is the ``c_L`` that Corollaries 5 and 7 use implicitly (our reading of their
    constant ``2^{Ymax+3} m^2 log2^2(2m) = 4 / c_L`` with ``C_L <= 1``); the book checks
    it against the exact ``c_L`` by enumeration for small ``m``.
    """
    m = check_positive(n_items, "n_items")
    return 1.0 / (2 ** (y_max + 1) * m**2 * np.log2(2 * m) ** 2)


def link_exponent(n_features: int) -> float:
    """The norm exponent ``r`` of Predtron.Link with an ``l_1`` or group margin.

    ``r = ln p / (ln p - 1)`` (Corollaries 6 and 8) when ``p >= 8``, and ``r = 2`` for
    ``p <= 7``: below ``p = e^2`` the paper's formula gives ``r > 2``, for which
    ``1/2 ||.||_r^2`` is not strongly convex and no bound of this kind holds.  This is
    :func:`predtron.links.default_exponent`, the exponent ``PNormLink()`` and
    ``GroupNormLink()`` use when none is given.
    """
    from predtron.links import default_exponent

    return default_exponent(check_int(n_features, "n_features", minimum=2))


def link_factor(n_features: int) -> float:
    """``p^{2/s} / (r - 1)``: the price of the ``l_1`` (or group) geometry in Predtron.Link.

    Our reconstruction (the paper's appendix is unavailable): with ``r`` from
    :func:`link_exponent` and ``s = r / (r - 1)``, ``psi = 1/2 ||.||_r^2`` is
    ``(r - 1)``-strongly convex with respect to ``||.||_r`` and an update of dual
    (``l_inf``-type) size ``2R`` has ``||.||_s <= 2 R p^{1/s}``, so Theorem 1's bound is
    multiplied by this factor.  It is ``e^2 (ln p - 1)`` for ``p >= 8`` and ``p`` for
    ``p <= 7`` (where ``r = 2``), and at most ``9 ln p`` for every ``p >= 2`` (the factor of
    Corollaries 6 and 8).  The formula ``e^2 (ln p - 1)`` alone is wrong below ``p = 8``:
    it assumes the exponent ``ln p / (ln p - 1)``, which exceeds 2 there.
    """
    r = link_exponent(n_features)
    s = r / (r - 1.0)
    return float(n_features ** (2.0 / s) / (r - 1.0))


def link_eta(R: float, c_L: float, n_features: int) -> float:
    """Step size of Predtron.Link with an ``l_1`` / group margin: ``c_L / (4 F R^2)``, ``F = link_factor(p)``.

    ``F = e^2 (ln p - 1)`` for ``p >= 8`` and ``F = p`` below (see :func:`link_factor`).
    """
    return check_positive(c_L, "c_L") / (4 * link_factor(n_features) * check_positive(R, "R") ** 2)


def link_bound(R: float, gamma: float, c_L: float, C_L: float, n_features: int) -> float:
    """Theorem 1 in the ``l_1`` geometry: ``link_factor(p) * 4 R^2 C_L^2 / (c_L gamma^2)``.

    ``R`` bounds the dual (``l_inf``-type) norm of the inputs and ``gamma`` is the
    margin of a unit ``l_1`` (or group) norm target; it holds for Predtron.Link with the
    exponent :func:`link_exponent` and the step :func:`link_eta` (the book's appendix).
    """
    return link_factor(n_features) * theorem1_bound(R, gamma, c_L, C_L)
