"""Kernels for the kernelized Predtron (Section 2: ``t(X) = sum_i g_i k(X_i, X)``).

A kernel here is a function ``k(A, B)`` of two 2-D arrays with the same number of
columns that returns the Gram matrix ``K[i, j] = k(A[i], B[j])``.  Rows are input
vectors (for ranking, single documents).  :func:`get_kernel` turns a name (``"linear"``,
``"rbf"``, ``"poly"``) with parameters, or any callable, into a validated
:class:`KernelFunction`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from predtron._validation import as_finite_array, check_int, check_matrix, check_positive, excerpt

#: Parameters each named kernel accepts.
KERNEL_PARAMS: dict[str, tuple[str, ...]] = {
    "linear": (),
    "rbf": ("gamma",),
    "poly": ("degree", "gamma", "coef0"),
}


def _resolve_gamma(gamma: float | None, n_features: int) -> float:
    return 1.0 / max(n_features, 1) if gamma is None else gamma


def _pair(A, B) -> tuple[np.ndarray, np.ndarray]:
    """Two 2-D arrays of rows with the same number of features."""
    A = check_matrix(A, "A")
    B = check_matrix(B, "B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"A and B must have the same number of features (columns); got A with {A.shape[1]} and "
                         f"B with {B.shape[1]}")
    return A, B


def _finite_gram(K: np.ndarray, name: str) -> np.ndarray:
    if not np.all(np.isfinite(K)):
        raise ValueError(f"the {name} kernel of A and B overflows float64; rescale A and B (or lower gamma, "
                         "coef0 or degree)")
    return K


def linear_kernel(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``k(a, b) = <a, b>``; the kernelized Predtron then equals the primal one."""
    return _finite_gram(_linear(*_pair(A, B)), "linear")


def rbf_kernel(A: np.ndarray, B: np.ndarray, gamma: float | None = None) -> np.ndarray:
    """``k(a, b) = exp(-gamma ||a - b||^2)``; ``gamma=None`` means ``1 / n_features``."""
    params = _check_named_params("rbf", {"gamma": gamma})
    return _finite_gram(_rbf(*_pair(A, B), **params), "rbf")


def poly_kernel(A: np.ndarray, B: np.ndarray, degree: int = 3, gamma: float | None = None,
                coef0: float = 1.0) -> np.ndarray:
    """``k(a, b) = (gamma <a, b> + coef0)^degree``; ``gamma=None`` means ``1 / n_features``."""
    params = _check_named_params("poly", {"degree": degree, "gamma": gamma, "coef0": coef0})
    return _finite_gram(_poly(*_pair(A, B), **params), "poly")


# Unchecked versions (inputs validated by the caller); overflow gives inf, never a warning.
def _linear(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        return A @ B.T


def _rbf(A: np.ndarray, B: np.ndarray, gamma: float | None = None) -> np.ndarray:
    gamma = _resolve_gamma(gamma, A.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):
        sq = (A * A).sum(axis=1)[:, None] + (B * B).sum(axis=1)[None, :] - 2.0 * (A @ B.T)
        return np.exp(-gamma * np.maximum(sq, 0.0))


def _poly(A: np.ndarray, B: np.ndarray, degree: int = 3, gamma: float | None = None, coef0: float = 1.0) -> np.ndarray:
    gamma = _resolve_gamma(gamma, A.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):
        return (gamma * (A @ B.T) + coef0) ** degree


_NAMED: dict[str, Callable[..., np.ndarray]] = {
    "linear": _linear,
    "rbf": _rbf,
    "poly": _poly,
}


def _check_named_params(name: str, params: dict) -> dict:
    allowed = KERNEL_PARAMS[name]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(
            f"kernel {name!r} takes the parameters {list(allowed)}; got unexpected {unknown}"
        )
    out = {k: v for k, v in params.items() if not (k == "gamma" and v is None)}
    if out.get("gamma") is not None:
        out["gamma"] = check_positive(out["gamma"], "gamma")
    if "degree" in out:
        out["degree"] = check_int(out["degree"], "degree", minimum=1)
    if "coef0" in out:
        out["coef0"] = check_positive(out["coef0"], "coef0", allow_zero=True)
    return out


class KernelFunction:
    """A validated kernel: ``kernel(A, B)`` returns the ``(len(A), len(B))`` Gram matrix.

    Parameters
    ----------
    function : callable
        ``function(A, B, **params)`` computing the Gram matrix of the rows of ``A`` and ``B``.
    params : dict
        Keyword parameters passed on every call.
    name : str
        Name shown in messages and ``repr``.
    """

    def __init__(self, function: Callable[..., np.ndarray], params: dict, name: str):
        if not callable(function):
            raise ValueError(f"function must be callable as function(A, B, **params); got {excerpt(function)}")
        if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
            raise ValueError(f"params must be a dict of keyword parameters of the kernel; got {excerpt(params)}")
        if not isinstance(name, str):
            raise ValueError(f"name must be a string; got {excerpt(name)}")
        self.function = function
        self.params = dict(params)
        self.name = name

    def __repr__(self) -> str:
        args = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"KernelFunction({self.name!r}{args})"

    def __call__(self, A, B) -> np.ndarray:
        A, B = _pair(A, B)
        try:
            K = self.function(A, B, **self.params)
        except (TypeError, ValueError) as exc:
            if self.function in _NAMED.values():
                raise
            raise type(exc)(f"the kernel function {self.name!r} (with params {self.params}) failed: {exc}") from exc
        K = as_finite_array(K, f"the Gram matrix of the kernel function {self.name!r}", max_abs=None) \
            if self.function not in _NAMED.values() else np.asarray(K, dtype=float)
        if K.shape != (A.shape[0], B.shape[0]):
            raise ValueError(
                f"the kernel function {self.name!r} must return a Gram matrix of shape "
                f"{(A.shape[0], B.shape[0])} for A and B of shapes {A.shape} and {B.shape}; "
                f"got shape {K.shape}"
            )
        return _finite_gram(K, repr(self.name))


def get_kernel(spec, **params) -> KernelFunction:
    """Resolve a kernel specification into a :class:`KernelFunction`.

    Parameters
    ----------
    spec : {"linear", "rbf", "poly"} or callable or KernelFunction
        * ``"linear"``: ``<a, b>`` (no parameters);
        * ``"rbf"``: ``exp(-gamma ||a - b||^2)`` with ``gamma > 0`` (default
          ``1 / n_features``);
        * ``"poly"``: ``(gamma <a, b> + coef0)^degree`` with ``degree >= 1`` (default 3),
          ``gamma > 0`` (default ``1 / n_features``) and ``coef0 >= 0`` (default 1);
        * a callable ``k(A, B, **params)`` returning the Gram matrix of the rows of ``A``
          and ``B`` (it should be positive semi-definite; its output shape and
          finiteness are checked on every call);
        * an existing :class:`KernelFunction` (returned unchanged; no ``params``).
    **params
        Parameters of the kernel.

    Raises
    ------
    ValueError
        For an unknown name, a parameter the kernel does not take, or an invalid value.

    Examples
    --------
    >>> import numpy as np
    >>> k = get_kernel("rbf", gamma=0.5)
    >>> k(np.zeros((1, 2)), np.ones((1, 2))).round(4).tolist()
    [[0.3679]]
    """
    if isinstance(spec, KernelFunction):
        if params:
            raise ValueError(
                f"kernel is already a KernelFunction; got extra parameters {sorted(params)}"
            )
        return spec
    if isinstance(spec, str):
        if spec not in _NAMED:
            raise ValueError(
                f"kernel must be one of {sorted(_NAMED)} or a callable k(A, B); got {spec!r}"
            )
        return KernelFunction(_NAMED[spec], _check_named_params(spec, params), spec)
    if callable(spec):
        name = getattr(spec, "__name__", type(spec).__name__)
        return KernelFunction(spec, params, name)
    raise ValueError(
        f"kernel must be one of {sorted(_NAMED)} or a callable k(A, B); got {type(spec).__name__}"
    )
