"""Link functions for Predtron.Link (online mirror descent, Section 4 and Corollaries 6 and 8).

A link is the gradient of a convex potential ``psi`` on parameter matrices.  The
mirror-descent learner (:class:`~predtron.learners.link.PredtronLink`) keeps a dual
matrix ``Theta`` that receives the plain Predtron updates and predicts with
``W = grad psi*(Theta) = (grad psi)^{-1}(Theta)``; the paper's Section 4 writes this as
``w_{tau+1} = (grad psi)^{-1}(grad psi(w_tau) - r_tau)``.

Every link here has the form ``psi(W) = 1/2 ||W||^2`` for a norm, whose conjugate is
``psi*(Theta) = 1/2 ||Theta||_*^2`` with the dual norm (exponent ``s = r / (r - 1)``).
The maps below follow the paper's Section 4 and Corollaries 6 and 8; the group and
Schatten inverses are our derivation (the paper's appendix is not available):

* :class:`PNormLink`: ``psi(w) = 1/2 ||w||_r^2`` on all entries; ``grad psi(w)_i =
  sign(w_i) |w_i|^{r-1} / ||w||_r^{r-2}`` and its inverse is the same map with ``s``
  (the gradient of ``psi*(theta) = 1/2 ||theta||_s^2``).  ``r`` close to 1 suits an
  ``l_1`` margin (Corollary 6).
* :class:`GroupNormLink`: ``psi(W) = 1/2 ||W||_{2,r}^2``, the ``l_r`` norm of the
  Euclidean norms of the columns; ``grad psi(W)_g = ||W||_{2,r}^{2-r} ||W_g||_2^{r-2}
  W_g`` for column ``g`` (Corollary 8).
* :class:`SchattenLink`: ``psi(W) = 1/2 ||W||_{S_r}^2``, the ``l_r`` norm of the
  singular values; the map acts on the singular values and keeps the singular
  vectors (``r`` close to 1 approximates the trace norm).
* :class:`EuclideanLink`: ``psi = 1/2 ||W||_F^2``, the identity; with it Predtron.Link
  is plain Predtron.

All maps send zero to zero, are positively homogeneous of degree one and are exact
inverses of each other in exact arithmetic.  With ``r = 2`` every family reduces to
the identity, which the code returns as a plain copy so that Predtron.Link reproduces
Predtron bit for bit.

Default exponent: ``r = log p / (log p - 1)`` (Corollaries 6 and 8), where ``p``
counts what the norm sums over (entries, columns or singular values).  It is resolved
from the shape of the array each map is applied to, so a learner fixes it when it
first sees data and learns the parameter shape (:meth:`Link.exponent` reports it).  The formula lies in ``(1, 2]`` only
for ``p >= e^2`` (``p >= 8``); for ``p = 3..7`` it exceeds 2 (``psi`` would no longer
be strongly convex), for ``p = 2`` it is negative and for ``p = 1`` it is zero.  For
``p < e^2`` the default is therefore ``r = 2``, the value the formula itself reaches
at ``p = e^2``.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod

import numpy as np

from predtron._params import Parametrized
from predtron._validation import as_finite_array, excerpt


def default_exponent(p: int) -> float:
    """The exponent ``r = log p / (log p - 1)`` of Corollaries 6 and 8, or 2 for ``p < e^2``.

    Parameters
    ----------
    p : int
        Number of terms the norm sums over (entries, columns or singular values).

    Returns
    -------
    float
        ``log p / (log p - 1)`` when ``log p >= 2`` (a value in ``(1, 2]``), otherwise 2.
        Below ``p = e^2`` the formula leaves ``(1, 2]``: it is 0 for ``p = 1``, negative
        for ``p = 2`` and above 2 for ``p = 3..7`` (where ``1/2 ||.||_r^2`` is no longer
        strongly convex); ``r = 2`` is the value it takes at ``p = e^2``.
    """
    if isinstance(p, bool) or not isinstance(p, numbers.Integral) or p < 1:
        raise ValueError(f"p must be an integer >= 1 (a number of terms); got {p!r}")
    log_p = float(np.log(p))
    if log_p < 2.0:
        return 2.0
    return log_p / (log_p - 1.0)


def check_exponent(r, name: str = "r") -> float | None:
    """Validate a norm exponent: ``None`` (use the default) or a finite real ``r > 1``."""
    if r is None:
        return None
    if isinstance(r, (bool, np.bool_)) or not isinstance(r, numbers.Real):
        raise ValueError(f"{name} must be a real number > 1 or None; got {excerpt(r)}")
    try:
        r = float(r)
    except OverflowError:
        raise ValueError(f"{name} must be finite; got an integer too large for a float") from None
    if not np.isfinite(r) or r <= 1.0:
        raise ValueError(
            f"{name} must be finite and > 1 (psi = 1/2 ||.||_{name}^2 needs a norm with a "
            f"differentiable square); got {r!r}"
        )
    return r


def conjugate_exponent(r: float) -> float:
    """Hölder conjugate ``s = r / (r - 1)``, so that ``1/r + 1/s = 1``."""
    r = _exponent(r)
    return r / (r - 1.0)


def _exponent(r) -> float:
    if r is None:
        raise ValueError("r must be a real number > 1; got None")
    return check_exponent(r)


def _array(v, name: str) -> np.ndarray:
    """Any finite real array of at least one dimension (the maps are scaled: any magnitude works)."""
    v = as_finite_array(v, name, max_abs=None)
    if v.ndim == 0:
        raise ValueError(f"{name} must be an array (a vector or a matrix of parameters); got the scalar {v.item()!r}")
    return v


def _shape(shape) -> tuple[int, ...]:
    """A shape: a tuple of integers >= 0."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_)) and d >= 0 for d in shape):
        raise ValueError(f"shape must be a tuple of integers >= 0 (an array's shape); got {excerpt(shape)}")
    return tuple(int(d) for d in shape)


def pnorm(v: np.ndarray, r: float) -> float:
    """``||v||_r`` over all entries, computed without overflow or underflow."""
    return _pnorm(_array(v, "v"), _exponent(r))


def _pnorm(v: np.ndarray, r: float) -> float:
    a = np.abs(np.ravel(v))
    top = float(a.max()) if a.size else 0.0
    if top == 0.0:
        return 0.0
    if r == 2.0:
        return float(np.linalg.norm(a))
    return top * float(np.sum((a / top) ** r)) ** (1.0 / r)


def pnorm_map(v: np.ndarray, r: float) -> np.ndarray:
    """Gradient of ``1/2 ||v||_r^2``: ``sign(v_i) |v_i|^{r-1} ||v||_r^{2-r}`` (zero at zero).

    The entries are divided by ``max |v_i|`` before taking powers, so the result is
    accurate for very large and very small inputs.  For ``r = 2`` a copy of ``v``.
    """
    return _pnorm_map(_array(v, "v"), _exponent(r))


def _pnorm_map(v: np.ndarray, r: float) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    if r == 2.0:
        return v.copy()
    a = np.abs(v)
    top = float(a.max()) if a.size else 0.0
    if top == 0.0:
        return np.zeros_like(v)
    u = a / top
    norm_u = float(np.sum(u ** r)) ** (1.0 / r)
    return np.sign(v) * top * u ** (r - 1.0) * norm_u ** (2.0 - r)


class Link(Parametrized, ABC):
    """A mirror map ``grad psi`` between primal parameters ``W`` and dual parameters ``Theta``.

    Subclasses define the potential through a norm: ``psi(W) = 1/2 ||W||^2`` and
    ``psi*(Theta) = 1/2 ||Theta||_*^2`` (the dual norm).

    Parameters
    ----------
    r : float or None
        Exponent of the norm (``r > 1``), or ``None`` for the default of
        :func:`default_exponent` resolved from the array's shape.
    """

    def __init__(self, r: float | None = None):
        self.r = r
        self._r = check_exponent(r)

    # -------------------------------------------------------------- subclasses
    def n_terms(self, shape: tuple[int, ...]) -> int:
        """Number of terms ``p`` the norm sums over, for an array of this shape."""
        return self._n_terms(_shape(shape))

    @abstractmethod
    def _n_terms(self, shape: tuple[int, ...]) -> int:
        """:meth:`n_terms` of a valid shape."""

    @abstractmethod
    def _norm(self, W: np.ndarray, r: float) -> float:
        """The norm with exponent ``r`` (its dual is the same norm with ``s``)."""

    @abstractmethod
    def _map(self, W: np.ndarray, r: float) -> np.ndarray:
        """Gradient of ``1/2 ||W||^2`` for the norm with exponent ``r``."""

    def _check_shape(self, W: np.ndarray, name: str) -> None:
        """Reject shapes the norm is not defined on (default: any shape is fine)."""
        return None

    # ------------------------------------------------------------------ public
    def exponent(self, shape: tuple[int, ...]) -> float:
        """The exponent ``r`` used for arrays of ``shape`` (``self.r`` or the default)."""
        return self._exponent(_shape(shape))

    def _exponent(self, shape: tuple[int, ...]) -> float:
        if self._r is not None:
            return self._r
        return default_exponent(max(self._n_terms(shape), 1))

    def dual_exponent(self, shape: tuple[int, ...]) -> float:
        """The conjugate exponent ``s = r / (r - 1)`` used by :meth:`to_primal`."""
        return self._dual_exponent(_shape(shape))

    def _dual_exponent(self, shape: tuple[int, ...]) -> float:
        r = self._exponent(shape)
        return r / (r - 1.0)

    def _validated(self, W, name: str) -> np.ndarray:
        W = _array(W, name)
        self._check_shape(W, name)
        return W

    def psi(self, W) -> float:
        """The potential ``psi(W) = 1/2 ||W||^2``."""
        W = self._validated(W, "W")
        return _half_square(self._norm(W, self._exponent(W.shape)), "W")

    def psi_star(self, theta) -> float:
        """The convex conjugate ``psi*(Theta) = 1/2 ||Theta||_*^2`` (dual norm, exponent ``s``)."""
        theta = self._validated(theta, "theta")
        return _half_square(self._norm(theta, self._dual_exponent(theta.shape)), "theta")

    def to_dual(self, W) -> np.ndarray:
        """``grad psi(W)``: primal parameters to dual parameters."""
        W = self._validated(W, "W")
        return self._map(W, self._exponent(W.shape))

    def to_primal(self, theta) -> np.ndarray:
        """``grad psi*(Theta) = (grad psi)^{-1}(Theta)``: dual parameters to primal ones."""
        return self._to_primal(self._validated(theta, "theta"))

    def _to_primal(self, theta: np.ndarray) -> np.ndarray:
        """:meth:`to_primal` of a valid array (the learners' hot loop)."""
        return self._map(theta, self._dual_exponent(theta.shape))


def _half_square(norm: float, name: str) -> float:
    value = 0.5 * norm**2 if norm < 1e154 else np.inf
    if not np.isfinite(value):
        raise ValueError(f"1/2 ||{name}||^2 overflows float64 (the norm of {name} is {norm:.3g}); rescale {name}")
    return float(value)


class EuclideanLink(Link):
    """``psi(W) = 1/2 ||W||_F^2``: both maps are the identity (plain Predtron, Algorithm 1)."""

    def __init__(self):
        self._r = 2.0

    def _n_terms(self, shape):
        return int(np.prod(shape, dtype=np.int64))

    def _norm(self, W, r):
        a = np.abs(np.ravel(W))
        top = float(a.max()) if a.size else 0.0
        # scaled by the largest entry, so that squaring cannot overflow before the norm does
        return 0.0 if top == 0 else top * float(np.linalg.norm(a / top))

    def _map(self, W, r):
        return np.array(W, dtype=float, copy=True)


class PNormLink(Link):
    """``psi(w) = 1/2 ||w||_r^2`` over all entries of ``w`` (Section 4, Corollary 6).

    Parameters
    ----------
    r : float or None
        Exponent ``r > 1``.  ``None``: ``r = log p / (log p - 1)`` with ``p`` the number
        of entries (``r = 2`` when ``p < e^2``; see :func:`default_exponent`).  Values of
        ``r`` close to 1 make the learner adapt to an ``l_1`` margin.

    Examples
    --------
    >>> import numpy as np
    >>> link = PNormLink(r=1.5)
    >>> w = np.array([3.0, -1.0, 0.0])
    >>> bool(np.allclose(link.to_primal(link.to_dual(w)), w))
    True
    """

    def _n_terms(self, shape):
        return int(np.prod(shape, dtype=np.int64))

    def _norm(self, W, r):
        return _pnorm(W, r)

    def _map(self, W, r):
        return _pnorm_map(W, r)


def _as_columns(W: np.ndarray) -> np.ndarray:
    """A 1-D parameter ``w`` is a single row: each entry is its own column."""
    return W[None, :] if W.ndim == 1 else W


def _column_norms(M: np.ndarray) -> np.ndarray:
    """Euclidean norms of the columns, scaled first so that squaring cannot under- or overflow."""
    top = np.abs(M).max(axis=0) if M.size else np.zeros(M.shape[1])
    safe = np.where(top > 0, top, 1.0)
    return top * np.sqrt(np.sum((M / safe) ** 2, axis=0))


def _check_matrix(W: np.ndarray, name: str, link: str) -> None:
    if W.ndim not in (1, 2):
        raise ValueError(
            f"{link} acts on a 1-D vector or a 2-D matrix; got {name} with shape {W.shape}"
        )


class GroupNormLink(Link):
    """``psi(W) = 1/2 ||W||_{2,r}^2``: the ``l_r`` norm of the column norms (Corollary 8).

    Column ``g`` of ``W`` (the weights of input feature ``g`` for ``t = W x``) is one
    group.  The map applies :func:`pnorm_map` to the vector of column norms and keeps
    each column's direction, which is the formula ``grad psi(W)_g = ||W||_{2,r}^{2-r}
    ||W_g||_2^{r-2} W_g`` (zero columns stay zero).  A 1-D ``w`` is treated as one row,
    so every entry is a group and the link equals :class:`PNormLink`.

    Parameters
    ----------
    r : float or None
        Exponent ``r > 1``.  ``None``: ``r = log p / (log p - 1)`` with ``p`` the number
        of columns (``r = 2`` when ``p < e^2``; see :func:`default_exponent`).
    """

    def _n_terms(self, shape):
        return int(shape[-1]) if shape else 1

    def _check_shape(self, W, name):
        _check_matrix(W, name, "GroupNormLink")

    def _norm(self, W, r):
        return _pnorm(_column_norms(_as_columns(W)), r)

    def _map(self, W, r):
        if r == 2.0:
            return np.array(W, dtype=float, copy=True)
        M = _as_columns(W)
        norms = _column_norms(M)
        new = _pnorm_map(norms, r)
        scale = np.zeros_like(norms)
        nonzero = norms > 0
        scale[nonzero] = new[nonzero] / norms[nonzero]
        return (M * scale[None, :]).reshape(W.shape)


def _clean_singular_values(sv: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Set singular values below the rank tolerance ``max(shape) * eps * sv_max`` to zero.

    They are rounding noise of the SVD (a rank-deficient matrix has exact zeros there),
    and for ``r < 2`` the map ``x -> x^{r-1}`` would blow them up.
    """
    cut = max(shape) * np.finfo(float).eps * (float(sv[0]) if sv.size else 0.0)
    return np.where(sv > cut, sv, 0.0)


class SchattenLink(Link):
    """``psi(W) = 1/2 ||W||_{S_r}^2``, the ``l_r`` norm of the singular values.

    With ``W = U diag(sv) V^T`` (thin SVD) the map is ``U diag(pnorm_map(sv, r)) V^T``:
    a unitarily invariant potential has its gradient on the same singular vectors.
    Singular values below the rank tolerance ``max(shape) * eps * sv_max`` (rounding
    noise of the SVD) are treated as zero, so rank-deficient matrices keep their rank;
    the matrix is divided by its largest entry before the SVD (the map is positively
    homogeneous), so very large and very small matrices are handled accurately.
    ``r`` close to 1 approximates the trace norm (low-rank ``W``).  A 1-D ``w`` is a
    single row, whose only singular value is ``||w||_2``, so the link is then Euclidean.

    Parameters
    ----------
    r : float or None
        Exponent ``r > 1``.  ``None``: ``r = log q / (log q - 1)`` with ``q =
        min(shape)`` the number of singular values (``r = 2`` when ``q < e^2``; see
        :func:`default_exponent`).
    """

    def _n_terms(self, shape):
        return int(min(shape)) if len(shape) == 2 else 1

    def _check_shape(self, W, name):
        _check_matrix(W, name, "SchattenLink")

    def _norm(self, W, r):
        if W.ndim == 1 or W.size == 0:
            return float(np.linalg.norm(W))
        top = float(np.abs(W).max())
        if top == 0.0:
            return 0.0
        sv = np.linalg.svd(W / top, compute_uv=False)
        return top * _pnorm(_clean_singular_values(sv, W.shape), r)

    def _map(self, W, r):
        if r == 2.0 or W.ndim == 1 or W.size == 0:
            return np.array(W, dtype=float, copy=True)
        top = float(np.abs(W).max())
        if top == 0.0:
            return np.zeros_like(W)
        U, sv, Vt = np.linalg.svd(W / top, full_matrices=False)
        return top * ((U * _pnorm_map(_clean_singular_values(sv, W.shape), r)[None, :]) @ Vt)
