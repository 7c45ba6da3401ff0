"""The problem abstraction of Section 2 of the paper.

A problem fixes a finite prediction space ``[k]``, a label space ``[l]``, a loss
``L(sigma, y) >= 0`` with at least one zero in every column (``Sigma_y`` is never
empty), a unit-norm representation ``rep(sigma)`` of every prediction, and a linear
score map (``scoring``) from parameters to scores ``t``.  Everything a learner needs
follows from five operations:

* ``rep(sigma)`` -- the representation, ``||rep(sigma)||_2 = 1``;
* ``pred(t)`` -- maximum-similarity decoding, eq. (1);
* ``loss(sigma, y)`` -- ``L(sigma, y)``;
* ``correct(y)`` -- a fixed member ``sigma_y`` of ``Sigma_y``;
* ``oracle(t, y)`` -- a maximiser of ``L(sigma, y) - <rep(sigma_y) - rep(sigma), t>``,
  the loss-augmented argmax of Algorithm 1, line 8.

The surrogate ``phi(t, y)`` of eq. (2) and the margin of Section 2.2 are derived from
these.  Subclasses override the generic (enumerating) versions with fast ones.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from predtron._validation import as_finite_array
from predtron.scoring import LinearScoring

#: Relative tolerance used when comparing scores for ties.
TIE_TOLERANCE = 1e-12


class Problem(ABC):
    """Abstract prediction problem (Section 2).

    Attributes
    ----------
    scoring : LinearScoring
        How parameters and an input give the scores ``t``.
    """

    scoring: LinearScoring

    # ------------------------------------------------------------------ required
    @abstractmethod
    def rep(self, sigma) -> np.ndarray:
        """Unit-norm representation ``rep(sigma)`` (``pred^{-1}(sigma)`` in the paper)."""

    @abstractmethod
    def pred(self, t: np.ndarray):
        """``argmax_sigma <rep(sigma), t>``, eq. (1), with deterministic tie-breaking."""

    @abstractmethod
    def loss(self, sigma, y) -> float:
        """The loss ``L(sigma, y) >= 0``."""

    @abstractmethod
    def correct(self, y):
        """A fixed member ``sigma_y`` of ``Sigma_y = {sigma : L(sigma, y) = 0}``."""

    @abstractmethod
    def oracle(self, t: np.ndarray, y):
        """Loss-augmented argmax, Algorithm 1 line 8.

        Returns a maximiser of ``L(sigma, y) - <rep(sigma_y) - rep(sigma), t>``.
        """

    @abstractmethod
    def check_label(self, y):
        """Validate a label and return it in canonical form, or raise ``ValueError``."""

    # ------------------------------------------------------------ enumeration
    def predictions(self, y=None) -> Iterator:
        """Every prediction (for the size of label ``y`` where sizes vary).

        Only for testing and small instances; fast operations never enumerate.
        """
        raise TypeError(f"{type(self).__name__} does not enumerate its predictions")

    def labels(self) -> Iterator:
        """Every label, for small finite label spaces."""
        raise TypeError(f"{type(self).__name__} does not enumerate its labels")

    def random_label(self, rng: np.random.Generator):
        """A label drawn at random (used by :func:`predtron.testing.check_problem`)."""
        labels = list(self.labels())
        return labels[int(rng.integers(len(labels)))]

    def label_for(self, sigma):
        """A label ``y`` with ``sigma`` in ``Sigma_y``, or ``None`` if there is none.

        Used by the data generators to label the prediction of a target ``W*``.
        """
        return self.check_label(sigma)

    # ----------------------------------------------------------------- derived
    def same(self, a, b) -> bool:
        """Whether two predictions are equal."""
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))

    def objective(self, sigma, t: np.ndarray, y) -> float:
        """``L(sigma, y) - <rep(sigma_y) - rep(sigma), t>``, the term maximised in eq. (2)."""
        diff = self.rep(self.correct(y)) - self.rep(sigma)
        return float(self.loss(sigma, y) - diff @ t)

    def surrogate(self, t: np.ndarray, y) -> float:
        """The convex surrogate ``phi(t, y)`` of eq. (2).

        ``phi >= 0`` (take ``sigma = sigma_y``) and ``phi(t, y) >= L(pred(t), y)``.
        """
        t = np.asarray(t, dtype=float)
        return self.objective(self.oracle(t, y), t, y)

    def is_correct(self, sigma, y) -> bool:
        """Whether ``sigma`` is in ``Sigma_y``."""
        return self.loss(sigma, y) == 0

    def margin(self, t: np.ndarray, y) -> float:
        """Margin of the scores ``t`` on ``y`` (Section 2.2), by enumeration.

        Returns ``min <rep(sigma_y) - rep(sigma), t>`` over ``sigma_y`` in ``Sigma_y`` and
        ``sigma`` outside it when every member of ``Sigma_y`` attains ``max <rep, t>``
        (``t`` is compatible with ``y``); otherwise the same minimum capped at 0, since
        ``t`` then has no positive margin.
        """
        t = np.asarray(t, dtype=float)
        good, bad = [], []
        for sigma in self.predictions(y):
            (good if self.is_correct(sigma, y) else bad).append(self.rep(sigma) @ t)
        if not bad:
            return np.inf
        gap = float(min(good) - max(bad))
        tol = TIE_TOLERANCE * (1.0 + float(np.max(np.abs(t), initial=0.0)))
        compatible = max(good) - min(good) <= tol
        return gap if compatible else min(gap, 0.0)

    def loss_matrix(self) -> np.ndarray:
        """The ``k x l`` loss matrix, by enumeration (small problems only)."""
        preds = list(self.predictions())
        return np.array([[self.loss(s, y) for y in self.labels()] for s in preds], dtype=float)

    @property
    def c_L(self) -> float:
        """Smallest non-zero loss value ``c_L`` (Section 2.1)."""
        values = self.loss_matrix()
        return float(values[values > 0].min())

    @property
    def C_L(self) -> float:
        """Largest loss value ``C_L`` (Section 2.1)."""
        return float(self.loss_matrix().max())

    def check_scores(self, t, y=None) -> np.ndarray:
        """Validate a score vector for this problem (and the size of ``y`` where it varies)."""
        t = as_finite_array(t, "t")
        expected = self.rep(self.correct(y) if y is not None else self.pred_default()).shape
        if t.shape != expected:
            raise ValueError(f"t must have shape {expected}; got {t.shape}")
        return t

    def pred_default(self):
        """Any one prediction (used to find the score dimension)."""
        return next(iter(self.predictions()))

    def stack(self, predictions: Iterable[Any]):
        """Stack per-instance predictions into the array ``predict`` returns."""
        return np.asarray(list(predictions))

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({params})"

    def get_params(self) -> dict:
        """Constructor parameters (used by ``repr`` and by learners' ``get_params``)."""
        return {}


def first_argmax(values: np.ndarray) -> int:
    """Index of the first maximum, with a relative tolerance so rounding does not break ties.

    The tolerance is relative to the largest magnitude, so the choice is unchanged when
    all values are multiplied by a positive constant (``pred`` stays homogeneous).
    """
    values = np.asarray(values, dtype=float)
    top = values.max()
    tol = TIE_TOLERANCE * float(np.abs(values).max())
    return int(np.flatnonzero(values >= top - tol)[0])


class FiniteProblem(Problem):
    """A problem given by an explicit list of predictions with a representation matrix.

    Subclasses set ``self._reps`` (``k x d``, unit rows) and ``self._preds`` (the ``k``
    prediction values in order) and implement ``loss`` over indices.  ``pred`` and
    ``oracle`` enumerate the ``k`` predictions, which is exact and ``O(k d)``.
    """

    _reps: np.ndarray
    _preds: list

    def _index(self, sigma) -> int:
        for i, p in enumerate(self._preds):
            if p == sigma:
                return i
        raise ValueError(f"prediction must be one of {self._preds}; got {sigma!r}")

    def rep(self, sigma) -> np.ndarray:
        return self._reps[self._index(sigma)]

    def pred(self, t):
        return self._preds[first_argmax(self._reps @ np.asarray(t, dtype=float))]

    def _loss_column(self, y) -> np.ndarray:
        return np.array([self.loss(s, y) for s in self._preds], dtype=float)

    def oracle(self, t, y):
        t = np.asarray(t, dtype=float)
        base = self.rep(self.correct(y)) @ t
        values = self._loss_column(y) - (base - self._reps @ t)
        return self._preds[first_argmax(values)]

    def predictions(self, y=None):
        return iter(self._preds)

    def pred_default(self):
        return self._preds[0]
