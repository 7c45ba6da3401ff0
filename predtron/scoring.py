"""Linear score maps: how a parameter matrix turns an input into scores ``t``.

The paper writes the scores as ``t = W x`` (Section 2) for a vector input and as
``t = X w`` for subset ranking (Section 4, one row of ``X`` per document).  Both are
linear maps ``A_X`` from parameters to scores; an online update needs only the map
and its adjoint, ``W <- W - eta * A_X^*(g)`` with ``g = rep(sigma~) - rep(sigma_y)``
(Algorithm 1, line 9).  A problem owns one of these objects (``problem.scoring``), so
learners never need to know which setting they are in.

Learners work on a whole data set at once through :meth:`LinearScoring.prepare`, which
validates the input once and returns an :class:`Inputs` object: it scores a *block* of
instances with one matrix product (the exact block scan of the learners) and applies the
adjoint of one instance in place, touching only the non-zeros of sparse rows.

Intercept.  With ``intercept=True`` (vector inputs only) the parameters get one more
column and the scores are ``t = W x + b``: the map of the augmented input ``(x, 1)``.
Theorem 1 then holds for the augmented inputs, so ``R^2`` becomes ``R^2 + 1`` and the
margin is that of ``(W, b)`` jointly.  Ranking scores ``t = X w`` are shift-invariant (a
common bias changes no ranking), so document inputs refuse an intercept.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np
import scipy.sparse as sp

from predtron._ragged import Ragged, gather_index, offsets_of
from predtron._validation import MAX_DENSE_ENTRIES, as_finite_array, check_int, check_matrix, query_offsets

Kernel = Callable[[np.ndarray, np.ndarray], np.ndarray]


#: Largest temporary (entries) :func:`row_scores` builds at once.
_ROW_SCORES_CHUNK = 1 << 20


def _is_slice(rows) -> bool:
    return isinstance(rows, slice)


def row_dot(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``A @ x`` with every entry summed the same way, whatever the machine.

    The products ``A[i, j] x[j]`` are exact roundings and numpy adds each row's products by
    the same pairwise summation, so two equal rows of ``A`` score exactly the same and a tie
    stays a tie for the documented tie-break (lowest index) to decide.  A BLAS ``A @ x``
    does not promise this: its kernels add the terms of different rows in different orders
    (vector blocks, tail loops, chosen by the CPU), so equal rows can score a rounding
    error apart and the winner of a tie then depends on the CPU and the BLAS.  Used for the
    scores a round decides on (one instance at a time).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[0.1, 0.7, 0.2], [0.3, 0.3, 0.3], [0.1, 0.7, 0.2]])
    >>> t = row_dot(W, np.array([0.3, -1.1, 2.9]))
    >>> bool(t[0] == t[2])
    True
    """
    return np.multiply(A, x).sum(axis=-1)


def row_scores(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``X @ W.T`` for dense ``X`` with every entry summed as :func:`row_dot` sums it.

    Equal rows of ``W`` give equal columns and equal rows of ``X`` equal rows, on any
    machine; the work is done in chunks of rows so that the products never take more than
    about a million entries.
    """
    X, W = np.asarray(X, dtype=float), np.asarray(W, dtype=float)
    out = np.empty((X.shape[0], W.shape[0]))
    step = max(1, _ROW_SCORES_CHUNK // max(1, W.size))
    for lo in range(0, X.shape[0], step):
        out[lo:lo + step] = row_dot(W[None, :, :], X[lo:lo + step, None, :])
    return out


#: Rows :func:`column_order_dot` scores together (a block of a few megabytes stays in the cache
#: while its columns are added one by one).
_COLUMN_ORDER_ROWS = 4096


def column_order_dot(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``A @ x`` for a dense ``A``, each row's products added one at a time in column order,
    starting from ``+0.0``.

    That is the sum scipy's CSR product makes of a row's non-zeros (adding a zero product
    to a sum leaves it as it is, and ``+0.0`` plus ``-0.0`` is ``+0.0``), and it does not
    depend on which other rows are scored with it.  So a row scores the same, bit for bit,
    dense or sparse, alone or in a chunk of any size; a BLAS ``A @ x`` sums in blocks
    chosen by the CPU and the matrix's shape, so a streamed prediction written in chunks
    could differ from the in-memory one in the last digit.  Used by ``PredtronRanker.predict``,
    whose scores the command line writes with every digit (the block scan of a fit keeps BLAS:
    its scores only locate a mistake, and this loop of one NumPy call per column costs more on
    a small query).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> A = np.array([[0.1, 0.0, 0.7, 0.2], [0.0, 0.0, 0.0, 0.0]])
    >>> x = np.array([0.3, -1.1, 2.9, -0.4])
    >>> bool(np.array_equal(column_order_dot(A, x), sp.csr_matrix(A) @ x))
    True
    """
    out = np.zeros(A.shape[0])
    for lo in range(0, A.shape[0], _COLUMN_ORDER_ROWS):
        block, acc = A[lo:lo + _COLUMN_ORDER_ROWS], out[lo:lo + _COLUMN_ORDER_ROWS]
        for j in range(A.shape[1]):
            acc += block[:, j] * x[j]
    return out


class Inputs(ABC):
    """A validated data set as a learner sees it: ``n`` instances sharing one score map.

    Attributes
    ----------
    n : int
        Number of instances (examples, or queries for ranking).
    n_features : int
        Number of input features (the parameters are sized by it).
    intercept : bool
        Whether the parameters carry a bias column (``t = W x + b``).
    """

    n: int
    n_features: int
    intercept: bool = False
    sparse: bool = False

    @abstractmethod
    def scores(self, params: np.ndarray, rows):
        """Scores of the instances ``rows`` (a slice or an index array): an ``(b, d)`` array,
        a :class:`~predtron._ragged.Ragged` for ranking, or a list."""

    @abstractmethod
    def one_scores(self, params: np.ndarray, i: int) -> np.ndarray:
        """Scores ``t = A_{x_i}(params)`` of one instance."""

    @abstractmethod
    def add_adjoint(self, params: np.ndarray, g: np.ndarray, i: int, alpha: float) -> None:
        """``params += alpha * A_{x_i}^*(g)`` in place (sparse rows touch only their non-zeros)."""

    def adjoint(self, g: np.ndarray, i: int, shape: tuple[int, ...]) -> np.ndarray:
        """``A_{x_i}^*(g)`` as a dense array of the parameters' ``shape``."""
        out = np.zeros(shape)
        self.add_adjoint(out, g, i, 1.0)
        return out

    @abstractmethod
    def instance(self, i: int) -> np.ndarray:
        """Instance ``i`` as a dense array (a row, or the query's document matrix)."""

    def zeros(self, shape: tuple[int, ...]) -> np.ndarray:
        """Zero parameters in the memory layout this input scores fastest with."""
        return np.zeros(shape)

    def kernel_scores(self, kernel: Kernel, support: np.ndarray, coefs: np.ndarray, rows) :
        """Scores of ``rows`` under the kernel expansion with ``support`` rows and ``coefs``."""
        raise ValueError(f"kernels are not supported for {type(self).__name__}; use a primal learner")

    def rows_of(self, rows) -> np.ndarray:
        """``rows`` as an index array."""
        return np.arange(self.n)[rows] if _is_slice(rows) else np.asarray(rows, dtype=np.int64)


class VectorInputs(Inputs):
    """Rows of a dense array or of a CSR matrix, scored by ``t = W x (+ b)``."""

    def __init__(self, X, dim: int, intercept: bool = False):
        self.X = X
        self.sparse = sp.issparse(X)
        self.n, self.n_features = X.shape
        self.dim = dim
        self.intercept = intercept

    def _row(self, i: int):
        if self.sparse:
            lo, hi = self.X.indptr[i], self.X.indptr[i + 1]
            return self.X.indices[lo:hi], self.X.data[lo:hi]
        return None, self.X[i]

    def scores(self, params, rows):
        block = self.X[rows]
        if self.intercept:
            T = np.asarray(block @ params[:, :-1].T)
            T += params[:, -1]
            return T
        return np.asarray(block @ params.T)

    def one_scores(self, params, i):
        # The scores a round decides on: equal rows of W score equally on any machine.
        idx, vals = self._row(i)
        W = params[:, :-1] if self.intercept else params
        t = row_dot(W[:, idx], vals) if self.sparse else row_dot(W, vals)
        return t + params[:, -1] if self.intercept else t

    def add_adjoint(self, params, g, i, alpha):
        idx, vals = self._row(i)
        if self.sparse:
            params[:, idx] += alpha * np.outer(g, vals)
        elif self.intercept:
            params[:, :-1] += alpha * np.outer(g, vals)
        else:
            params += alpha * np.outer(g, vals)
        if self.intercept:
            params[:, -1] += alpha * g

    def instance(self, i):
        if self.sparse:
            return self.X[i].toarray()[0]
        return self.X[i]

    def zeros(self, shape):
        # Sparse rows: column-major W, so X @ W.T needs no copy (scipy copies a non-contiguous
        # dense operand) and a row's non-zero j touches one contiguous column W[:, j].  Dense
        # rows: row-major W, so each score is a contiguous dot product.
        return np.zeros(shape, order="F" if self.sparse else "C")

    def kernel_scores(self, kernel, support, coefs, rows):
        if self.sparse:
            raise ValueError("X must be dense for KernelPredtron (kernels compare dense rows); pass X.toarray() "
                             "or use Predtron, which takes sparse input")
        K = kernel(self.X[rows], support)
        if self.intercept:
            K = K + 1.0
        return K @ coefs


class DocumentInputs(Inputs):
    """Queries stored flat: an ``(N, p0)`` dense array or CSR matrix with query ``offsets``."""

    def __init__(self, X, offsets: np.ndarray):
        self.X = X
        self.sparse = sp.issparse(X)
        self.offsets = offsets
        self.n = len(offsets) - 1
        self.n_features = X.shape[1]

    def _docs(self, rows):
        if _is_slice(rows):
            start, stop, _ = rows.indices(self.n)
            stop = max(stop, start)
            lo = self.offsets[start]
            return self.X[lo:self.offsets[stop]], self.offsets[start:stop + 1] - lo
        rows = np.asarray(rows, dtype=np.int64)
        sizes = self.offsets[rows + 1] - self.offsets[rows]
        return self.X[gather_index(self.offsets, rows)], offsets_of(sizes)

    def scores(self, params, rows):
        docs, offsets = self._docs(rows)
        return Ragged(np.asarray(docs @ params).ravel(), offsets)

    def one_scores(self, params, i):
        docs = self.X[self.offsets[i]:self.offsets[i + 1]]
        if self.sparse:  # scipy sums each document's non-zeros in order: equal documents tie
            return np.asarray(docs @ params).ravel()
        return row_dot(docs, params)  # equal documents score equally on any machine

    def add_adjoint(self, params, g, i, alpha):
        docs = self.X[self.offsets[i]:self.offsets[i + 1]]
        if self.sparse:  # scipy adds the documents' terms of each feature in document order
            adjoint = np.asarray(docs.T @ g).ravel()
        else:  # X^T g added document by document, the order the compiled pass follows
            adjoint = np.cumsum(docs * g[:, None], axis=0)[-1]
        params += alpha * adjoint

    def instance(self, i):
        docs = self.X[self.offsets[i]:self.offsets[i + 1]]
        return docs.toarray() if self.sparse else docs

    def kernel_scores(self, kernel, support, coefs, rows):
        if self.sparse:
            raise ValueError("X must be dense for KernelPredtron (kernels compare dense rows); pass dense "
                             "document matrices or use Predtron, which takes sparse input")
        docs, offsets = self._docs(rows)
        return Ragged(kernel(docs, support) @ coefs, offsets)


class ListInputs(Inputs):
    """Instances of any form, scored one at a time by the scoring's own map (the generic path)."""

    def __init__(self, items: list, scoring: LinearScoring):
        self.items = items
        self.scoring = scoring
        self.n = len(items)
        self.n_features = scoring.n_features(items[0]) if items else 0
        for i, x in enumerate(items[1:], start=1):
            if scoring.n_features(x) != self.n_features:  # checked up front, not in a matrix product
                raise ValueError(f"X[{i}] has {scoring.n_features(x)} features but X[0] has {self.n_features}; "
                                 "every instance must have the same number of features")

    def scores(self, params, rows):
        out = [self.scoring.scores(params, self.items[r]) for r in self.rows_of(rows)]
        shapes = {t.shape for t in out}
        return np.array(out) if len(shapes) == 1 else out

    def one_scores(self, params, i):
        return self.scoring.scores(params, self.items[i])

    def add_adjoint(self, params, g, i, alpha):
        params += alpha * self.scoring.gradient(g, self.items[i])

    def instance(self, i):
        return self.items[i]


class LinearScoring(ABC):
    """A linear map ``A_X`` from parameters to scores, with its adjoint."""

    #: Whether a bias column may be added (``t = W x + b``).
    supports_intercept: bool = False

    @abstractmethod
    def split(self, X) -> list[np.ndarray]:
        """Validate a batch of inputs and return one array per instance."""

    def prepare(self, X, *, qid=None, group=None, intercept: bool = False) -> Inputs:
        """Validate a whole data set once and return it as :class:`Inputs` (generic: a list)."""
        if qid is not None or group is not None:
            self.group_rows(X)
        if intercept:
            raise ValueError(f"fit_intercept=True is not supported for {type(self).__name__} inputs")
        return ListInputs(self.split(X), self)

    def group_rows(self, X, Y=None, qid=None, group=None):
        """Split a flat one-row-per-item layout into instances (ranking inputs only)."""
        raise ValueError(
            f"qid and group describe ranking inputs (one row per document); this problem takes "
            f"{type(self).__name__} inputs, one row per example"
        )

    @abstractmethod
    def n_features(self, x: np.ndarray) -> int:
        """Number of input features of one instance (what the parameters are sized by)."""

    @abstractmethod
    def init_params(self, n_features: int) -> np.ndarray:
        """The zero parameter ``W_1 = 0`` (Algorithm 1, line 1)."""

    def param_shape(self, n_features: int, intercept: bool = False) -> tuple[int, ...]:
        """Shape of the parameters for ``n_features`` features (one more column with an intercept)."""
        shape = self.init_params(n_features).shape
        return (*shape[:-1], shape[-1] + 1) if intercept else shape

    @abstractmethod
    def scores(self, params: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``t = A_x(params)``."""

    @abstractmethod
    def gradient(self, g: np.ndarray, x: np.ndarray) -> np.ndarray:
        """The adjoint ``A_x^*(g)``: the gradient of ``<g, A_x(params)>`` in ``params``."""

    @abstractmethod
    def instance_norm(self, x: np.ndarray) -> float:
        """The norm ``R`` of one instance for which ``||A_x^*(g)||_F <= R ||g||_2``."""

    @abstractmethod
    def kernel_scores(
        self, kernel: Kernel, support: list[np.ndarray], coefs: list[np.ndarray], x: np.ndarray
    ) -> np.ndarray:
        """Scores of ``x`` under ``sum_i A_{x_i}^*(g_i)`` in the feature space of ``kernel``."""


class VectorScoring(LinearScoring):
    """``t = W x`` with ``W`` of shape ``(dim, p)`` (Section 2).

    Parameters
    ----------
    dim : int
        Dimension ``d`` of the representation space.
    """

    supports_intercept = True

    def __init__(self, dim: int):
        self.dim = check_int(dim, "dim", minimum=1, maximum=MAX_DENSE_ENTRIES)

    def split(self, X) -> list[np.ndarray]:
        return list(check_matrix(X, "X"))

    def prepare(self, X, *, qid=None, group=None, intercept: bool = False) -> VectorInputs:
        if qid is not None or group is not None:
            self.group_rows(X)
        return VectorInputs(check_matrix(X, "X", accept_sparse=True), self.dim, intercept)

    def n_features(self, x: np.ndarray) -> int:
        return int(x.shape[0])

    def init_params(self, n_features: int) -> np.ndarray:
        return np.zeros((self.dim, n_features))

    def scores(self, params: np.ndarray, x: np.ndarray) -> np.ndarray:
        return params @ x

    def gradient(self, g: np.ndarray, x: np.ndarray) -> np.ndarray:
        return np.outer(g, x)

    def instance_norm(self, x: np.ndarray) -> float:
        return float(np.linalg.norm(x))

    def kernel_scores(self, kernel, support, coefs, x):
        if not len(support):
            return np.zeros(self.dim)
        k = kernel(np.asarray(support), x[None, :])[:, 0]
        return np.asarray(coefs).T @ k


def _document_matrices(X) -> list:
    if isinstance(X, np.ndarray) and X.ndim == 3:
        return list(X)
    if not isinstance(X, Sequence) or isinstance(X, (str, bytes)):
        raise ValueError(
            "X must be a list of 2-D arrays, one (n_items, n_features) matrix per instance, or a flat "
            f"(n_documents, n_features) matrix with qid= or group=; got {type(X).__name__}"
        )
    return list(X)


class DocumentScoring(LinearScoring):
    """``t = X w`` with one row of ``X`` per item and ``w`` shared by all items (Section 4).

    The number of items ``m`` may differ between instances; ``w`` has one entry per feature.
    """

    def split(self, X) -> list[np.ndarray]:
        out = []
        for i, x in enumerate(_document_matrices(X)):
            x = as_finite_array(x, f"X[{i}]")
            if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
                raise ValueError(
                    f"X[{i}] must be a 2-D (n_items, n_features) matrix with at least one item and one "
                    f"feature; got shape {x.shape}"
                )
            out.append(x)
        return out

    def prepare(self, X, *, qid=None, group=None, intercept: bool = False) -> DocumentInputs:
        if intercept:
            raise ValueError(
                "fit_intercept=True does not apply to ranking inputs: scores t = X w are shift-invariant "
                "(a common bias changes no ranking); use fit_intercept=False"
            )
        if qid is not None or group is not None:
            flat = check_matrix(X, "X", accept_sparse=True)
            return DocumentInputs(flat, query_offsets(flat.shape[0], qid=qid, group=group))
        queries = self.split(X)
        widths = {x.shape[1] for x in queries}
        if len(widths) > 1:
            raise ValueError(f"every query of X must have the same number of features; got {sorted(widths)}")
        if not queries:
            return DocumentInputs(np.zeros((0, 0)), np.zeros(1, dtype=np.int64))
        flat = check_matrix(np.concatenate(queries), "X")
        return DocumentInputs(flat, offsets_of(np.array([len(x) for x in queries])))

    def n_features(self, x: np.ndarray) -> int:
        return int(x.shape[1])

    def init_params(self, n_features: int) -> np.ndarray:
        return np.zeros(n_features)

    def scores(self, params: np.ndarray, x: np.ndarray) -> np.ndarray:
        return x @ params

    def gradient(self, g: np.ndarray, x: np.ndarray) -> np.ndarray:
        return x.T @ g

    def instance_norm(self, x: np.ndarray) -> float:
        return float(np.linalg.norm(x, 2)) if x.size else 0.0

    def kernel_scores(self, kernel, support, coefs, x):
        if not len(support):
            return np.zeros(x.shape[0])
        rows = np.concatenate(support, axis=0)
        weights = np.concatenate(coefs)
        return kernel(x, rows) @ weights
