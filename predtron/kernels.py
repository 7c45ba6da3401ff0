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

from predtron._validation import as_finite_array, check_int, check_positive

#: Parameters each named kernel accepts.
KERNEL_PARAMS: dict[str, tuple[str, ...]] = {
    "linear": (),
    "rbf": ("gamma",),
    "poly": ("degree", "gamma", "coef0"),
}


def _resolve_gamma(gamma: float | None, n_features: int) -> float:
    return 1.0 / max(n_features, 1) if gamma is None else gamma


def linear_kernel(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``k(a, b) = <a, b>``; the kernelized Predtron then equals the primal one."""
    return A @ B.T


def rbf_kernel(A: np.ndarray, B: np.ndarray, gamma: float | None = None) -> np.ndarray:
    """``k(a, b) = exp(-gamma ||a - b||^2)``; ``gamma=None`` means ``1 / n_features``."""
    gamma = _resolve_gamma(gamma, A.shape[1])
    sq = (A * A).sum(axis=1)[:, None] + (B * B).sum(axis=1)[None, :] - 2.0 * (A @ B.T)
    return np.exp(-gamma * np.maximum(sq, 0.0))


def poly_kernel(A: np.ndarray, B: np.ndarray, degree: int = 3, gamma: float | None = None,
                coef0: float = 1.0) -> np.ndarray:
    """``k(a, b) = (gamma <a, b> + coef0)^degree``; ``gamma=None`` means ``1 / n_features``."""
    gamma = _resolve_gamma(gamma, A.shape[1])
    return (gamma * (A @ B.T) + coef0) ** degree


_NAMED: dict[str, Callable[..., np.ndarray]] = {
    "linear": linear_kernel,
    "rbf": rbf_kernel,
    "poly": poly_kernel,
}


def _check_named_params(name: str, params: dict) -> dict:
    allowed = KERNEL_PARAMS[name]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(
            f"kernel {name!r} takes the parameters {list(allowed)}; got unexpected {unknown}"
        )
    out = dict(params)
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
        self.function = function
        self.params = dict(params)
        self.name = name

    def __repr__(self) -> str:
        args = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"KernelFunction({self.name!r}{args})"

    def __call__(self, A, B) -> np.ndarray:
        A = as_finite_array(A, "A")
        B = as_finite_array(B, "B")
        if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
            raise ValueError(
                "a kernel takes two 2-D arrays of rows with the same number of features; got "
                f"shapes {A.shape} and {B.shape}"
            )
        K = np.asarray(self.function(A, B, **self.params), dtype=float)
        if K.shape != (A.shape[0], B.shape[0]):
            raise ValueError(
                f"kernel {self.name!r} must return a Gram matrix of shape "
                f"{(A.shape[0], B.shape[0])} for inputs of shapes {A.shape} and {B.shape}; "
                f"got shape {K.shape}"
            )
        if not np.all(np.isfinite(K)):
            raise ValueError(f"kernel {self.name!r} returned NaN or infinite values")
        return K


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
