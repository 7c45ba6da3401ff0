"""The kernelized Predtron: Algorithm 1 in dual form, with an optional budget."""

from __future__ import annotations

import numbers
from collections import deque

import numpy as np

from predtron.kernels import KernelFunction, get_kernel
from predtron.learners.base import OnlineLearner
from predtron.problems.base import Problem


class KernelPredtron(OnlineLearner):
    """Algorithm 1 in dual form: the parameters are a weighted sum of past inputs.

    Starting from ``W_1 = 0``, every update of Algorithm 1 adds ``-step * A_{X_i}^*(g_i)``
    with ``g_i = rep(sigma~_i) - rep(sigma_{y_i})`` (line 9), so after the updates on
    inputs ``X_1, X_2, ...`` the parameters are ``W = sum_i A_{X_i}^*(c_i)`` with
    ``c_i = -step_i g_i``, and the scores of a new input are

        ``t(X) = A_X(W) = sum_i c_i k(X_i, X)``   (Section 2: the algorithm kernelizes),

    where inner products of inputs are replaced by a kernel ``k``.  For vector inputs
    (``t = W x``) ``t(x) = sum_i c_i k(x_i, x)``; for ranking inputs (``t = X w``, one row
    per document) the kernel compares documents, ``t(X)_j = sum_i sum_a c_{i,a} k(X_{i,a},
    X_j)``.  The problem's :meth:`~predtron.scoring.LinearScoring.kernel_scores` does
    this sum, so the learner never looks at which problem it has.  With the linear
    kernel it predicts exactly like :class:`~predtron.learners.predtron.Predtron`
    (up to floating-point rounding of the scores).

    Budget: with ``budget=B`` at most ``B`` support examples are stored; when an update
    would store example ``B + 1``, the **oldest** stored example and its coefficient are
    removed first (the removal rule of the Forgetron of Dekel, Shalev-Shwartz and
    Singer, without its shrinking step).  Memory and the cost of a prediction are then
    ``O(B)`` however long the stream.  Theorem 1's bound is for the unbudgeted learner
    only.  Updates whose ``g`` is exactly zero store nothing.

    Parameters
    ----------
    problem : Problem
        Any problem of :mod:`predtron.problems`.
    kernel : {"linear", "rbf", "poly"} or callable, default "linear"
        See :func:`predtron.kernels.get_kernel`.
    eta : float, default 1.0
        Step size.
    update : {"oracle", "prediction"}, default "oracle"
        Which prediction enters the update (see
        :class:`~predtron.learners.base.OnlineLearner`).
    loss_driven : bool, default False
        Scale each step by the loss just suffered (Predtron.LD).
    budget : int, optional
        Largest number of stored support examples (``>= 1``); ``None`` for no limit.
    kernel_params : dict, optional
        Parameters of the kernel (e.g. ``{"gamma": 0.5}`` for ``"rbf"``).

    Attributes
    ----------
    support_ : list of ndarray
        Stored inputs ``X_i``, oldest first.
    dual_coef_ : list of ndarray
        Their coefficients ``c_i = -step_i g_i`` (each of the shape of ``rep``).
    n_support_ : int
        ``len(support_)``.
    n_removed_ : int
        Number of support examples removed by the budget.
    kernel_ : KernelFunction
        The resolved kernel.
    loss_history_, n_updates_, n_features_in_
        See :class:`~predtron.learners.base.OnlineLearner`.

    Notes
    -----
    :mod:`predtron.persistence` can store the support of vector inputs with a named
    kernel; ranking supports (one matrix per query) are ragged and a callable kernel
    is code, so those learners cannot be saved.

    Examples
    --------
    >>> import numpy as np
    >>> from predtron.learners.kernel import KernelPredtron
    >>> from predtron.problems import Binary
    >>> X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]); Y = [1, 1, -1, -1]
    >>> model = KernelPredtron(Binary(), kernel="rbf", kernel_params={"gamma": 1.0})
    >>> model.fit(X, Y, epochs=3).predict(X).tolist()
    [1, 1, -1, -1]
    """

    def __init__(self, problem: Problem, kernel="linear", eta: float = 1.0, update: str = "oracle",
                 loss_driven: bool = False, budget: int | None = None, kernel_params: dict | None = None):
        super().__init__(problem, eta=eta, update=update)
        self.kernel = kernel
        self.loss_driven = loss_driven
        self.budget = budget
        self.kernel_params = kernel_params

    def _resolve_kernel(self) -> KernelFunction:
        if self.kernel_params is not None and not isinstance(self.kernel_params, dict):
            raise ValueError(
                f"kernel_params must be a dict of kernel parameters or None; got "
                f"{type(self.kernel_params).__name__}"
            )
        return get_kernel(self.kernel, **(self.kernel_params or {}))

    def _validate_params(self) -> None:
        super()._validate_params()
        if not isinstance(self.loss_driven, (bool, np.bool_)):
            raise ValueError(f"loss_driven must be True or False; got {self.loss_driven!r}")
        if self.budget is not None and (
            isinstance(self.budget, bool) or not isinstance(self.budget, numbers.Integral)
            or self.budget < 1
        ):
            raise ValueError(f"budget must be None or an integer >= 1; got {self.budget!r}")
        self._resolve_kernel()

    #: Learned state for :mod:`predtron.persistence` (vector inputs; ranking support is ragged).
    _state_attributes = ("support_", "dual_coef_", "n_removed_")

    def _maxlen(self) -> int | None:
        return None if self.budget is None else int(self.budget)

    def _init_state(self, n_features: int) -> None:
        self._kernel = self._resolve_kernel()
        self._support: deque[np.ndarray] = deque(maxlen=self._maxlen())
        self._coefs: deque[np.ndarray] = deque(maxlen=self._maxlen())
        self._n_removed = 0

    def _scores(self, x: np.ndarray) -> np.ndarray:
        return self.problem.scoring.kernel_scores(self.kernel_, list(self._support), list(self._coefs), x)

    def _apply(self, g: np.ndarray, x: np.ndarray, step: float) -> None:
        if not np.any(g):
            return
        if self._support.maxlen is not None and len(self._support) == self._support.maxlen:
            self._n_removed += 1  # the deques drop their oldest entry on append
        self._support.append(np.array(x, dtype=float, copy=True))
        self._coefs.append(-step * np.asarray(g, dtype=float))

    def _step_scale(self, loss: float) -> float:
        return loss if self.loss_driven else 1.0

    @property
    def kernel_(self) -> KernelFunction:
        """The resolved kernel (:class:`~predtron.kernels.KernelFunction`)."""
        self._check_fitted()
        if getattr(self, "_kernel", None) is None:
            self._kernel = self._resolve_kernel()
        return self._kernel

    @property
    def support_(self) -> list[np.ndarray]:
        """Stored support inputs, oldest first."""
        self._check_fitted()
        return list(self._support)

    @support_.setter
    def support_(self, value) -> None:
        self._support = deque((np.array(v, dtype=float) for v in value), maxlen=self._maxlen())

    @property
    def dual_coef_(self) -> list[np.ndarray]:
        """Coefficients of the stored support inputs, in the same order."""
        self._check_fitted()
        return list(self._coefs)

    @dual_coef_.setter
    def dual_coef_(self, value) -> None:
        self._coefs = deque((np.array(v, dtype=float) for v in value), maxlen=self._maxlen())

    @property
    def n_removed_(self) -> int:
        """Number of support examples removed by the budget."""
        self._check_fitted()
        return self._n_removed

    @n_removed_.setter
    def n_removed_(self, value) -> None:
        self._n_removed = int(value)

    @property
    def n_support_(self) -> int:
        """Number of stored support inputs."""
        self._check_fitted()
        return len(self._support)
