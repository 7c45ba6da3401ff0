"""What a fit learns before its passes, as statistics that merge exactly: :class:`FitStatistics`.

The estimators' scaler (``standardize=True``) and Theorem 1's step (``eta="auto"``) come from one
:class:`FitStatistics` by one rule, whether it was computed on a whole array, accumulated chunk by
chunk with :meth:`FitStatistics.update`, or merged from the shards of a cluster with
:meth:`FitStatistics.combine`.  Every sum in it is exact (:class:`predtron._exact.ExactSums`), so
the three give the same scaler and the same step bit for bit.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from predtron._exact import ExactSums
from predtron.bounds import squared_norms, theorem1_step_of

__all__ = ["FitStatistics"]


class FitStatistics:
    """Mergeable statistics of a training set: rows, feature moments, labels, squared norms, ``c_L``.

    Two phases, each of which can be fed a whole array, chunks or shards in any cut:

    1. :meth:`update` on the raw (validated) inputs and labels: the number of rows and features,
       the label values, and the scaler's moments (dense input: the exact per-feature sums of
       ``x`` and ``x**2``, their smallest and largest values and which features are 0/1
       indicators; sparse input: the largest ``|x|`` per feature).  :meth:`scaler` gives the
       estimators' scaler.
    2. :meth:`update_norms` on the scaled inputs: the exact sum of the squared norms (of the
       queries' document matrices, for ranking), the number of examples, the non-zero entries,
       for ranking, ``c_L`` of the grades (the smallest over the queries), and for a multilabel
       indicator target the rows and the labels on (:attr:`label_cardinality`).  :meth:`step`
       gives Theorem 1's step ``c_L / (4 R^2)`` with ``R^2`` the mean squared norm
       (:func:`~predtron.bounds.theorem1_step`).

    Parameters
    ----------
    standardize : bool, default True
        Whether the estimator scales its features (the moments are kept only then).
    fit_intercept : bool, default True
        Whether ``R^2`` counts the constant 1 of an intercept.

    Attributes
    ----------
    n_rows : int
        Rows seen by :meth:`update`.
    n_features : int or None
        Their number of columns.
    sparse : bool or None
        Whether the inputs were sparse (every part must agree).
    labels : ndarray or None
        The sorted distinct values of one-dimensional labels seen by :meth:`update`.
    n_examples : int
        Examples (queries, for ranking) seen by :meth:`update_norms`.
    c_L : float or None
        The smallest non-zero ranking loss of the grades seen (ranking only).
    label_rows, labels_on : int
        Rows of two-dimensional (multilabel indicator) targets seen by :meth:`update_norms`, and
        their entries that are on.
    """

    def __init__(self, *, standardize: bool = True, fit_intercept: bool = True):
        self.standardize = bool(standardize)
        self.fit_intercept = bool(fit_intercept)
        self.n_rows, self.n_features, self.sparse, self.labels = 0, None, None, None
        self._sums = self._squares = None
        self._max_abs = self._zero_one = self._has_one = self._has_zero = None
        self._min = self._max = None
        self.n_examples, self.n_nonzero, self.n_entries = 0, 0, 0
        self.label_rows, self.labels_on = 0, 0
        self._norms = ExactSums(1)
        self.ranking, self.c_L = False, None

    # ------------------------------------------------------------------ phase 1
    def update(self, X, y=None) -> FitStatistics:
        """Add a part of the (validated, float64) inputs ``X`` and, optionally, its labels ``y``."""
        sparse = sp.issparse(X)
        if self.n_features is None:
            self.n_features, self.sparse = int(X.shape[1]), sparse
        elif X.shape[1] != self.n_features or sparse != self.sparse:
            raise ValueError(f"X must have {self.n_features} {'sparse' if self.sparse else 'dense'} columns as the "
                             f"parts before it; got {X.shape[1]} {'sparse' if sparse else 'dense'} columns")
        self.n_rows += int(X.shape[0])
        if y is not None and np.ndim(y) == 1:
            values = np.unique(np.asarray(y))
            self.labels = values if self.labels is None else np.union1d(self.labels, values)
        if self.standardize:
            self._update_moments(X, sparse)
        return self

    def _update_moments(self, X, sparse: bool) -> None:
        p = self.n_features
        if sparse:
            top = np.asarray(abs(X).max(axis=0).todense()).ravel() if X.shape[0] else np.zeros(p)
            self._max_abs = top if self._max_abs is None else np.maximum(self._max_abs, top)
            return
        X = np.asarray(X, dtype=np.float64)
        if self._sums is None:
            self._sums, self._squares = ExactSums(p), ExactSums(p)
            self._zero_one, self._has_one, self._has_zero = np.ones(p, bool), np.zeros(p, bool), np.zeros(p, bool)
        self._sums.add(X)
        self._squares.add_squares(X)
        if X.shape[0]:
            low, high = X.min(axis=0), X.max(axis=0)
            self._min = low if self._min is None else np.minimum(self._min, low)
            self._max = high if self._max is None else np.maximum(self._max, high)
        one, zero = X == 1, X == 0
        self._zero_one &= np.all(one | zero, axis=0)
        self._has_one |= np.any(one, axis=0)
        self._has_zero |= np.any(zero, axis=0)

    @property
    def in_unit_interval(self) -> bool:
        """Whether the rows seen (with ``standardize``) are dense with every entry in ``[0, 1]`` and
        some entry strictly inside (not only 0/1 indicators): the smallest and largest value of
        every feature, and which features are indicators, decide it."""
        if self.sparse or self._min is None:
            return False
        return bool(np.all(self._min >= 0.0) and np.all(self._max <= 1.0) and not np.all(self._zero_one))

    def scaler(self, common_unit_scale: bool = False):
        """The estimators' scaler of the rows seen (``None`` without ``standardize``): sparse input,
        ``x / max |x|``; dense input, ``(x - mean) / std`` except 0/1 indicator features; a
        constant feature is centred and not scaled.  The mean and the variance are the exact
        ones, each rounded once.

        ``common_unit_scale`` (the multilabel estimator's rule): when the rows are dense in
        ``[0, 1]`` (:attr:`in_unit_interval`), every scaled feature is divided by ONE factor, the
        root mean of their variances, instead of its own standard deviation (the centring, the
        indicators and the constant features as above)."""
        if not self.standardize:
            return None
        if self.sparse:
            scale = self._max_abs if self._max_abs is not None else np.ones(self.n_features)
            return _Standardizer.from_moments(None, np.where(scale > 0, scale, 1.0))
        n = self.n_rows
        if n == 0:
            return _Standardizer.from_moments(np.zeros(self.n_features), np.ones(self.n_features))
        sums, squares = self._sums.fractions(), self._squares.fractions()
        mean = np.array([float(s / n) for s in sums])
        var = np.array([float(max(q / n - (s / n) ** 2, 0)) for s, q in zip(sums, squares, strict=True)])
        indicator = self._zero_one & self._has_one & self._has_zero
        scale = np.where(indicator, 1.0, np.sqrt(var))
        scaled = ~indicator & (var > 0)
        if common_unit_scale and self.in_unit_interval and scaled.any():
            scale = np.where(scaled, float(np.sqrt(np.mean(var[scaled]))), scale)
        return _Standardizer.from_moments(np.where(indicator, 0.0, mean), np.where(scale > 0, scale, 1.0))

    # ------------------------------------------------------------------ phase 2
    def update_norms(self, X, target=None, problem=None, offsets=None) -> FitStatistics:
        """Add a part of the SCALED inputs: squared norms, non-zero entries and, for ranking
        (``offsets``: the part's query offsets, whole queries), ``c_L`` of its grades ``target``
        under ``problem``; a two-dimensional ``target`` (a 0/1 indicator matrix) adds its rows and
        the labels on."""
        squares = squared_norms(X, offsets)
        self.n_examples += len(squares)
        self._norms.add(squares)
        stored = X.data if sp.issparse(X) else X
        self.n_nonzero += int(np.count_nonzero(stored))
        self.n_entries += int(X.shape[0]) * int(X.shape[1])
        if target is not None and offsets is None and np.ndim(target) == 2:
            on = target.count_nonzero() if sp.issparse(target) else np.count_nonzero(np.asarray(target))
            self.label_rows, self.labels_on = self.label_rows + int(np.shape(target)[0]), self.labels_on + int(on)
        if offsets is not None:
            self.ranking = True
            if problem is not None and len(offsets) > 1:
                try:
                    c_L = float(problem.grade_c_L(target, offsets))
                except ValueError:  # no query with a non-zero loss
                    c_L = None
                if c_L is not None:
                    self.c_L = c_L if self.c_L is None else min(self.c_L, c_L)
        return self

    @property
    def mean_squared_norm(self) -> float:
        """The exact mean of the squared norms seen by :meth:`update_norms`, rounded once."""
        return float(self._norms.means(self.n_examples)[0])

    @property
    def nonzero_fraction(self) -> float:
        """The fraction of the scaled entries that are not zero (1 for no entry)."""
        return 1.0 if self.n_entries == 0 else float(self.n_nonzero) / self.n_entries

    @property
    def label_cardinality(self) -> float:
        """The mean number of labels on per row of the indicator targets seen (0 for none), the
        exact ratio rounded once."""
        return 0.0 if self.label_rows == 0 else self.labels_on / self.label_rows

    def step(self, problem) -> float:
        """Theorem 1's step ``c_L / (4 R^2)`` (see :func:`~predtron.bounds.theorem1_step`): ``R^2`` the
        mean squared norm (plus 1 with an intercept), ``c_L`` the problem's (ranking: the grades')."""
        r2 = self.mean_squared_norm + (1.0 if self.fit_intercept else 0.0)
        if self.ranking:
            return 1.0 if self.c_L is None else theorem1_step_of(self.c_L, r2)
        return theorem1_step_of(problem.c_L, r2)

    # ------------------------------------------------------------------- merging
    def combine(self, other: FitStatistics) -> FitStatistics:
        """Merge the statistics of another part of the same training set into these (in place;
        returns ``self``).  The result does not depend on how the data were cut."""
        if (other.standardize, other.fit_intercept) != (self.standardize, self.fit_intercept):
            raise ValueError("other must be computed with the same standardize and fit_intercept")
        if other.n_features is None:
            pass  # only norms (phase 2)
        elif self.n_features is None:
            self.n_features, self.sparse = other.n_features, other.sparse
        elif (other.n_features, other.sparse) != (self.n_features, self.sparse):
            raise ValueError(f"every part must have {self.n_features} {'sparse' if self.sparse else 'dense'} columns; "
                             f"got {other.n_features} {'sparse' if other.sparse else 'dense'} columns")
        self.n_rows += other.n_rows
        if other.labels is not None:
            self.labels = other.labels if self.labels is None else np.union1d(self.labels, other.labels)
        if other._max_abs is not None:
            self._max_abs = other._max_abs if self._max_abs is None else np.maximum(self._max_abs, other._max_abs)
        if other._sums is not None:
            if self._sums is None:
                p = self.n_features
                self._sums, self._squares = ExactSums(p), ExactSums(p)
                self._zero_one, self._has_one, self._has_zero = np.ones(p, bool), np.zeros(p, bool), np.zeros(p, bool)
            self._sums.combine(other._sums)
            self._squares.combine(other._squares)
            self._zero_one &= other._zero_one
            self._has_one |= other._has_one
            self._has_zero |= other._has_zero
        if other._min is not None:
            self._min = other._min if self._min is None else np.minimum(self._min, other._min)
            self._max = other._max if self._max is None else np.maximum(self._max, other._max)
        self.n_examples += other.n_examples
        self._norms.combine(other._norms)
        self.n_nonzero += other.n_nonzero
        self.n_entries += other.n_entries
        self.label_rows += other.label_rows
        self.labels_on += other.labels_on
        self.ranking = self.ranking or other.ranking
        if other.c_L is not None:
            self.c_L = other.c_L if self.c_L is None else min(self.c_L, other.c_L)
        return self


class _Standardizer:
    """Per-feature scaling learned at fit, which leaves 0/1 features and sparsity alone.

    * Dense input: ``(x - mean) / std`` for every feature, except a feature whose training
      values are 0 and 1 (an indicator, such as a word's presence), which is left as it
      is: standardising a rare indicator of frequency ``p`` would turn its ``1`` into about
      ``1 / sqrt(p)`` (20 for a word in one document of 400), and such features would then
      dominate the input radius.
    * Sparse input: ``x / max |x|`` per feature (no centring, so the matrix stays sparse; the
      scale of scikit-learn's ``MaxAbsScaler``), which leaves 0/1 features unchanged.

    Constant features are centred (dense input) and left unscaled.  The statistics are those of
    :meth:`FitStatistics.scaler` (the exact mean and variance, each rounded once).
    """

    def __init__(self, X):
        fitted = FitStatistics(standardize=True).update(X).scaler()
        self.mean, self.scale = fitted.mean, fitted.scale

    @classmethod
    def from_moments(cls, mean, scale) -> _Standardizer:
        """The scaler with these statistics (``mean=None``: scale only, the sparse rule)."""
        out = cls.__new__(cls)
        out.mean, out.scale = mean, scale
        return out

    def __call__(self, X):
        # The statistics decide, not the layout of X: a scaler fitted on dense data centres
        # (densifying sparse input), one fitted on sparse data only scales.
        if self.mean is None:
            return sp.csr_matrix(X @ sp.diags(1.0 / self.scale)) if sp.issparse(X) else X / self.scale
        if sp.issparse(X):
            X = X.toarray()
        return (X - self.mean) / self.scale
