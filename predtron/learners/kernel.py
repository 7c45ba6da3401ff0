"""The kernelized Predtron: Algorithm 1 in dual form, with an optional budget."""

from __future__ import annotations

import numpy as np

from predtron._state import State
from predtron._validation import check_bool, check_int
from predtron.kernels import KernelFunction, get_kernel
from predtron.learners.base import OnlineLearner
from predtron.persistence import saveable
from predtron.problems.base import Problem
from predtron.scoring import DocumentInputs, DocumentScoring


@saveable
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

    Support examples.  The expansion is stored per *distinct* example: an update on an
    input already in the expansion adds to its coefficient (two equal inputs have the same
    kernel values, so merging them is exact), and ``n_support_`` counts distinct inputs.
    Over several passes the expansion therefore grows with the number of distinct inputs
    that ever caused an update, not with the number of updates.

    Budget: with ``budget=B`` at most ``B`` distinct support examples are stored; when an
    update would store example ``B + 1``, the **oldest** stored example and its coefficient
    are removed first (the removal rule of the Forgetron of Dekel, Shalev-Shwartz and
    Singer, without its shrinking step).  Memory and the cost of a prediction are then
    ``O(B)`` however long the stream.  Theorem 1's bound is for the unbudgeted learner
    only.  Updates whose ``g`` is exactly zero store nothing.

    Averaging works in the dual: the averaged iterate is the expansion with every
    coefficient ``c_i`` replaced by ``c_i + (c_i - s_i) / T``, where ``s_i`` sums each
    change of ``c_i`` times its round (the primal rule of
    :class:`~predtron.learners.base.PrimalLearner`, coefficient by coefficient).  With a
    budget the average is that of the stored expansion (a removed example leaves both).
    ``fit_intercept=True`` adds the constant feature: the kernel becomes ``k(x, x') + 1``.

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
        Largest number of stored distinct support examples (``>= 1``); ``None`` for no limit.
    kernel_params : dict, optional
        Parameters of the kernel (e.g. ``{"gamma": 0.5}`` for ``"rbf"``).
    average, shuffle, random_state, fit_intercept, record_losses
        As in :class:`~predtron.learners.base.OnlineLearner`.

    Attributes
    ----------
    support_ : list of ndarray
        Stored distinct inputs ``X_i``, oldest first.
    dual_coef_ : list of ndarray
        Their coefficients ``c_i`` (each of the shape of ``rep``; the averaged ones with
        ``average=True``).
    n_support_ : int
        Number of stored distinct inputs.
    n_removed_ : int
        Number of support examples removed by the budget.
    kernel_ : KernelFunction
        The resolved kernel.
    loss_history_, n_updates_, n_features_in_
        See :class:`~predtron.learners.base.OnlineLearner`.

    Examples
    --------
    >>> import numpy as np
    >>> from predtron.learners.kernel import KernelPredtron
    >>> from predtron.problems import Binary
    >>> X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]]); Y = [1, 1, -1, -1]
    >>> model = KernelPredtron(Binary(), kernel="rbf", kernel_params={"gamma": 1.0})
    >>> model.fit(X, Y, epochs=3).predict(X).tolist()
    [1, 1, -1, -1]
    >>> model.n_support_ <= 4
    True
    """

    def __init__(self, problem: Problem, kernel="linear", eta: float = 1.0, update: str = "oracle",
                 loss_driven: bool = False, budget: int | None = None, kernel_params: dict | None = None, *,
                 average: bool = False, shuffle: bool = False, random_state=None, fit_intercept: bool = False,
                 record_losses: bool = True):
        super().__init__(problem, eta=eta, update=update, average=average, shuffle=shuffle,
                         random_state=random_state, fit_intercept=fit_intercept, record_losses=record_losses)
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
        get_kernel(self.kernel)  # a bad kernel is named as such
        if not self.kernel_params:
            return get_kernel(self.kernel)
        try:
            return get_kernel(self.kernel, **self.kernel_params)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"kernel_params: {exc}") from None

    def _validate_params(self) -> None:
        super()._validate_params()
        check_bool(self.loss_driven, "loss_driven")
        if self.budget is not None:
            try:
                check_int(self.budget, "budget", minimum=1)
            except ValueError:
                raise ValueError(f"budget must be None or an integer >= 1; got {self.budget!r}") from None
        self._resolve_kernel()

    _state_attributes = ("_rows", "_coefs", "_weighted", "_spans")

    def _init_state(self, inputs) -> None:
        self._kernel = self._resolve_kernel()
        self._documents = isinstance(inputs, DocumentInputs)
        self._support = SupportSet(inputs.n_features, self._coef_width(inputs), self.budget)
        self._finish_pass()

    def _prepare(self, X, *args, **kwargs):
        inputs, labels = super()._prepare(X, *args, **kwargs)
        if getattr(inputs, "sparse", False):  # refused up front, even without a row to score
            raise ValueError("X must be dense for KernelPredtron (kernels compare dense rows); pass X.toarray() "
                             "or use Predtron, which takes sparse input")
        return inputs, labels

    def _coef_width(self, inputs) -> int:
        return 1 if isinstance(inputs, DocumentInputs) else self.problem.scoring.dim

    def _iterate_scores(self, inputs, rows):
        support = self._support
        return self._expansion_scores(inputs, rows, support.rows, support.coefs)

    def _predictor_scores(self, inputs, rows):
        return self._expansion_scores(inputs, rows, self._support.rows, self._pred_coefs)

    def _expansion_scores(self, inputs, rows, support_rows, coefs):
        if len(support_rows) == 0:  # W = 0
            return inputs.scores(np.zeros(self.problem.scoring.param_shape(inputs.n_features, inputs.intercept)),
                                 rows)
        scores = inputs.kernel_scores(self.kernel_, support_rows, coefs, rows)
        if hasattr(scores, "offsets"):  # ranking: one coefficient per document
            scores.values = np.asarray(scores.values).reshape(-1)
        return scores

    def _apply(self, g, inputs, i, step, tau) -> None:
        if not np.any(g):
            return
        coefs = -step * np.asarray(g, dtype=float)
        coefs = coefs.reshape(-1, 1) if self._documents else coefs.reshape(1, -1)
        x = np.atleast_2d(inputs.instance(i))
        self._support.add(x, coefs, tau)

    def _finish_pass(self) -> None:
        T = self._trace.n_rounds
        support = self._support
        if self.average and T > 0:
            self._pred_coefs = support.coefs + (support.coefs - support.weighted) / T
        else:
            self._pred_coefs = support.coefs

    def _step_scale(self, loss: float) -> float:
        return loss if self.loss_driven else 1.0

    def _get_state(self) -> tuple[dict, dict]:
        scalars, arrays = super()._get_state()
        support = self._support
        arrays.update(rows=support.rows, coefs=support.coefs, weighted=support.weighted,
                      spans=np.array(support.spans, dtype=np.int64).reshape(-1, 2))
        scalars.update(documents=bool(self._documents), n_removed=int(support.n_removed))
        return scalars, arrays

    def _set_state(self, scalars: dict, arrays: dict) -> None:
        state = State.of(scalars, arrays)
        super()._set_state(state, arrays)
        self._kernel = self._resolve_kernel()
        self._documents = state.bool("documents")
        if self._documents != isinstance(self.problem.scoring, DocumentScoring):
            raise ValueError(f"state entry 'documents' ({self._documents}) disagrees with the problem "
                             f"{type(self.problem).__name__}")
        width = 1 if self._documents else self.problem.scoring.dim
        rows = state.array("rows", (None, self.n_features_in_))
        coefs = state.array("coefs", (len(rows), width))
        weighted = state.array("weighted", (len(rows), width))
        spans = state.array("spans", (None, 2), kind="i")
        stops = np.concatenate([[0], spans[:, 1]])
        if (len(spans) and (np.any(spans[:, 0] != stops[:-1]) or np.any(spans[:, 1] <= spans[:, 0]))) \
                or stops[-1] != len(rows) or (not self._documents and np.any(spans[:, 1] - spans[:, 0] != 1)):
            raise ValueError("state array 'spans' must cut the rows into consecutive non-empty examples (one row "
                             "each for vector inputs)")
        if self.budget is not None and len(spans) > self.budget:
            raise ValueError(f"state array 'spans' holds {len(spans)} support examples, more than budget={self.budget}")
        self._support = SupportSet.restore(rows, coefs, weighted, spans.tolist(), self.budget, state.int("n_removed"))
        if len(set(self._support._keys)) != len(spans):
            raise ValueError("state array 'rows' stores one support example twice")
        self._finish_pass()

    @property
    def kernel_(self) -> KernelFunction:
        """The resolved kernel (:class:`~predtron.kernels.KernelFunction`)."""
        self._check_fitted()
        if getattr(self, "_kernel", None) is None:
            self._kernel = self._resolve_kernel()
        return self._kernel

    @property
    def support_(self) -> list[np.ndarray]:
        """Stored distinct support inputs, oldest first (rows, or document matrices for ranking)."""
        self._check_fitted()
        return self._support.examples(squeeze=not self._documents)

    @property
    def dual_coef_(self) -> list[np.ndarray]:
        """Coefficients of the stored support inputs (averaged with ``average=True``), in the same order."""
        self._check_fitted()
        return self._support.split(self._pred_coefs, squeeze=True)

    @property
    def n_removed_(self) -> int:
        """Number of support examples removed by the budget."""
        self._check_fitted()
        return self._support.n_removed

    @property
    def n_support_(self) -> int:
        """Number of stored distinct support inputs."""
        self._check_fitted()
        return len(self._support)


class SupportSet:
    """Distinct support examples of a kernel expansion, stored as contiguous rows.

    Each example is one row (vector inputs) or several (a query's documents) of ``rows``,
    with one coefficient row per input row in ``coefs`` and, for averaging, the
    round-weighted sum of its changes in ``weighted``.  Examples are found by the bytes of
    their input, so an update on a stored example adds to its coefficients.  The arrays
    grow by doubling, so storing ``n`` rows costs ``O(n)`` copies in all.

    Parameters
    ----------
    n_features : int
        Width of an input row.
    width : int
        Width of a coefficient row (the score dimension ``d``, or 1 for documents).
    budget : int or None
        Largest number of distinct examples; the oldest is removed first.
    """

    def __init__(self, n_features: int, width: int, budget: int | None):
        self._rows = np.zeros((8, n_features))
        self._coefs = np.zeros((8, width))
        self._weighted = np.zeros((8, width))
        self._n = 0
        self.spans: list[list[int]] = []  # [start, stop) of each example, oldest first
        self._keys: list[bytes] = []
        self._index: dict[bytes, int] = {}  # key -> position in spans
        self.budget = budget
        self.n_removed = 0

    @property
    def rows(self) -> np.ndarray:
        return self._rows[: self._n]

    @property
    def coefs(self) -> np.ndarray:
        return self._coefs[: self._n]

    @property
    def weighted(self) -> np.ndarray:
        return self._weighted[: self._n]

    def __len__(self) -> int:
        return len(self.spans)

    @staticmethod
    def _key(x: np.ndarray) -> bytes:
        x = np.ascontiguousarray(x, dtype=np.float64)
        return repr(x.shape).encode() + x.tobytes()

    def _grow(self, extra: int) -> None:
        need = self._n + extra
        if need > len(self._rows):
            size = max(need, 2 * len(self._rows))
            self._rows = np.resize(self._rows, (size, self._rows.shape[1]))
            self._coefs = np.resize(self._coefs, (size, self._coefs.shape[1]))
            self._weighted = np.resize(self._weighted, (size, self._weighted.shape[1]))

    def add(self, x: np.ndarray, coefs: np.ndarray, tau: int) -> None:
        """Add ``coefs`` to example ``x`` (storing it first if new) at round ``tau``."""
        key = self._key(x)
        slot = self._index.get(key)
        if slot is None:
            if self.budget is not None and len(self.spans) >= self.budget:
                self._remove_oldest()
            self._grow(len(x))
            start, stop = self._n, self._n + len(x)
            self._rows[start:stop] = x
            self._coefs[start:stop] = 0.0
            self._weighted[start:stop] = 0.0
            self._n = stop
            self.spans.append([start, stop])
            self._keys.append(key)
            slot = len(self.spans) - 1
            self._index[key] = slot
        start, stop = self.spans[slot]
        self._coefs[start:stop] += coefs
        self._weighted[start:stop] += tau * coefs

    def _remove_oldest(self) -> None:
        size = self.spans[0][1] - self.spans[0][0]
        for array in (self._rows, self._coefs, self._weighted):
            array[: self._n - size] = array[size: self._n]
        self._n -= size
        self.spans = [[a - size, b - size] for a, b in self.spans[1:]]
        self._keys = self._keys[1:]
        self._index = {key: slot for slot, key in enumerate(self._keys)}
        self.n_removed += 1

    @classmethod
    def restore(cls, rows: np.ndarray, coefs: np.ndarray, weighted: np.ndarray, spans: list[list[int]],
                budget: int | None, n_removed: int) -> SupportSet:
        """Rebuild a support set from its arrays (persistence)."""
        support = cls(rows.shape[1], coefs.shape[1], budget)
        support._grow(len(rows))
        support._rows[: len(rows)] = rows
        support._coefs[: len(rows)] = coefs
        support._weighted[: len(rows)] = weighted
        support._n = len(rows)
        support.spans = [list(span) for span in spans]
        support._keys = [cls._key(rows[a:b]) for a, b in spans]
        support._index = {key: slot for slot, key in enumerate(support._keys)}
        support.n_removed = n_removed
        return support

    def examples(self, squeeze: bool) -> list[np.ndarray]:
        """The stored inputs, oldest first (rows squeezed to vectors for vector inputs)."""
        return self.split(self.rows, squeeze)

    def split(self, values: np.ndarray, squeeze: bool) -> list[np.ndarray]:
        """``values`` (one row per input row) cut into the stored examples."""
        parts = [np.array(values[a:b]) for a, b in self.spans]
        if squeeze:
            return [p[0] if len(p) == 1 else p.ravel() for p in parts]
        return parts
