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
these.

Two layers.  The public methods above validate their arguments (scores of the right
shape and finite, labels and predictions of this problem) and raise ``ValueError`` naming
the argument.  Each calls an unchecked method of the same name with a leading underscore
(``_rep``, ``_pred``, ``_loss``, ``_correct``, ``_oracle``), which is what a subclass
implements and what the learners' hot loop calls on data it has validated once.  The
learners also use three batch operations, which subclasses vectorise and which default to
a loop over the per-instance methods: :meth:`Problem.check_labels` (validate all labels at
once), :meth:`Problem.batch_loss` (the loss of ``pred(t)`` for a block of score vectors)
and :meth:`Problem.batch_pred`.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from predtron._params import Parametrized
from predtron._validation import as_finite_array, as_label_array, check_each, check_n_labels, excerpt
from predtron.engine.spec import TIE_TOLERANCE, EngineSpec
from predtron.scoring import Inputs, LinearScoring

#: Largest prediction or label space that a method enumerating it may visit.
MAX_ENUMERATION = 1 << 20


class Problem(Parametrized, ABC):
    """Abstract prediction problem (Section 2).

    Subclasses implement ``_rep``, ``_pred``, ``_loss``, ``_correct``, ``_oracle`` and
    ``check_label`` (and ``check_prediction`` when predictions are not enumerable), and
    set ``scoring``.  Run :func:`predtron.testing.check_problem` on a new subclass: it
    compares the oracle with brute force.

    Attributes
    ----------
    scoring : LinearScoring
        How parameters and an input give the scores ``t``.
    """

    scoring: LinearScoring

    # ------------------------------------------------------------ to implement
    @abstractmethod
    def _rep(self, sigma) -> np.ndarray:
        """Unit-norm representation of a valid prediction (unchecked)."""

    @abstractmethod
    def _pred(self, t: np.ndarray):
        """``argmax_sigma <rep(sigma), t>`` for valid scores, deterministic ties (unchecked)."""

    @abstractmethod
    def _loss(self, sigma, y) -> float:
        """``L(sigma, y)`` for a valid prediction and label (unchecked)."""

    @abstractmethod
    def _correct(self, y):
        """A fixed member ``sigma_y`` of ``Sigma_y`` (unchecked)."""

    @abstractmethod
    def _oracle(self, t: np.ndarray, y):
        """Loss-augmented argmax of Algorithm 1, line 8, for valid scores and label (unchecked)."""

    @abstractmethod
    def check_label(self, y):
        """Validate a label and return it in canonical form, or raise ``ValueError``."""

    def check_prediction(self, sigma, y=None):
        """Validate a prediction (for the size of label ``y`` where sizes vary) and return it."""
        return self._check_prediction(sigma, None if y is None else self.check_label(y))

    def _check_prediction(self, sigma, y=None):
        """:meth:`check_prediction` for a valid ``y``; the default looks ``sigma`` up among
        :meth:`predictions`."""
        for candidate in self.predictions(y):
            try:
                if self.same(candidate, sigma):
                    return candidate
            except (TypeError, ValueError):
                break
        raise ValueError(f"sigma is not a prediction of {type(self).__name__}; got {excerpt(sigma)}")

    # ------------------------------------------------------- public, validated
    def rep(self, sigma) -> np.ndarray:
        """Unit-norm representation ``rep(sigma)`` (``pred^{-1}(sigma)`` in the paper)."""
        return self._rep(self._check_prediction(sigma))

    def pred(self, t):
        """``argmax_sigma <rep(sigma), t>``, eq. (1), with deterministic tie-breaking."""
        return self._pred(self._check_scores(t))

    def loss(self, sigma, y) -> float:
        """The loss ``L(sigma, y) >= 0``."""
        y = self.check_label(y)
        return float(self._loss(self._check_prediction(sigma, y), y))

    def correct(self, y):
        """A fixed member ``sigma_y`` of ``Sigma_y = {sigma : L(sigma, y) = 0}``."""
        return self._correct(self.check_label(y))

    def oracle(self, t, y):
        """Loss-augmented argmax, Algorithm 1 line 8.

        Returns a maximiser of ``L(sigma, y) - <rep(sigma_y) - rep(sigma), t>``.
        """
        y = self.check_label(y)
        return self._oracle(self._check_scores(t, y), y)

    def objective(self, sigma, t, y) -> float:
        """``L(sigma, y) - <rep(sigma_y) - rep(sigma), t>``, the term maximised in eq. (2)."""
        y = self.check_label(y)
        return self._objective(self._check_prediction(sigma, y), self._check_scores(t, y), y)

    def surrogate(self, t, y) -> float:
        """The convex surrogate ``phi(t, y)`` of eq. (2).

        ``phi >= 0`` (take ``sigma = sigma_y``) and ``phi(t, y) >= L(pred(t), y)``.
        """
        y = self.check_label(y)
        return self._surrogate(self._check_scores(t, y), y)

    def margin(self, t, y) -> float:
        """Margin of the scores ``t`` on ``y`` (Section 2.2).

        ``min <rep(sigma_y) - rep(sigma), t>`` over ``sigma_y`` in ``Sigma_y`` and ``sigma``
        outside it when every member of ``Sigma_y`` attains ``max <rep, t>`` (``t`` is
        compatible with ``y``); otherwise the same minimum capped at 0, since ``t`` then
        has no positive margin.
        """
        y = self.check_label(y)
        return self._margin(self._check_scores(t, y), y)

    def is_correct(self, sigma, y) -> bool:
        """Whether ``sigma`` is in ``Sigma_y``."""
        return self.loss(sigma, y) == 0

    # ------------------------------------------------------ unchecked, derived
    def _objective(self, sigma, t: np.ndarray, y) -> float:
        diff = self._rep(self._correct(y)) - self._rep(sigma)
        return float(self._loss(sigma, y) - diff @ t)

    def _surrogate(self, t: np.ndarray, y) -> float:
        return self._objective(self._oracle(t, y), t, y)

    def _direction(self, t: np.ndarray, y, sigma) -> np.ndarray:
        """``g = rep(sigma) - rep(sigma_y)``: the update of Algorithm 1 is ``W -= eta A_x^*(g)``."""
        return self._rep(sigma) - self._rep(self._correct(y))

    def _round(self, t: np.ndarray, y, use_oracle: bool) -> tuple[float, np.ndarray | None]:
        """One round of Algorithm 1 on the scores ``t``: the loss of ``pred(t)`` and, when it is
        not zero, the update direction ``g`` (lines 4-9); ``g`` is ``None`` on a zero loss.

        ``use_oracle`` puts the loss-augmented argmax in ``g``, otherwise the prediction.
        Subclasses may fuse the steps; the result must equal the steps done one by one.
        """
        sigma = self._pred(t)
        loss = float(self._loss(sigma, y))
        if loss == 0:
            return 0.0, None
        chosen = self._oracle(t, y) if use_oracle else sigma
        return loss, self._direction(t, y, chosen)

    def _margin(self, t: np.ndarray, y) -> float:
        """The margin by enumerating the predictions (small problems only)."""
        good, bad = [], []
        for sigma in self._enumerate(self.predictions(y), "predictions", self.n_predictions(y)):
            (good if self._loss(sigma, y) == 0 else bad).append(self._rep(sigma) @ t)
        if not bad:
            return np.inf
        gap = float(min(good) - max(bad))
        tol = TIE_TOLERANCE * (1.0 + float(np.max(np.abs(t), initial=0.0)))
        compatible = max(good) - min(good) <= tol
        return gap if compatible else min(gap, 0.0)

    # ------------------------------------------------------------------ batch
    def check_labels(self, Y, inputs: Inputs):
        """Validate one label per instance of ``inputs`` at once.

        Returns what the batch operations take: here an object array of canonical labels;
        subclasses return plain arrays (or a :class:`~predtron._ragged.Ragged`).
        """
        arr = as_label_array(Y, "Y")
        check_n_labels(arr, inputs.n)
        checked = check_each(arr, self.check_label, "Y")
        out = np.empty(len(checked), dtype=object)
        for i, y in enumerate(checked):
            out[i] = y
        return out

    def batch_loss(self, T, Y) -> np.ndarray:
        """``L(pred(t_i), y_i)`` for a block of scores and labels, bitwise equal to the scalar path.

        Trusted inside the package: ``T`` is an ``(n, d)`` float block of finite scores and ``Y``
        the labels as :meth:`prepare_labels` returns them; nothing is checked again.
        """
        return np.array([self._loss(self._pred(t), y) for t, y in zip(T, Y, strict=True)], dtype=float)

    def batch_pred(self, T):
        """``pred(t_i)`` for a block of scores (stacked as ``predict`` returns them).

        Trusted inside the package, as :meth:`batch_loss`: ``T`` is not checked again.
        """
        return self.stack(self._pred(t) for t in T)

    def _compiled_spec(self, labels) -> EngineSpec | None:
        """How the compiled engine (:mod:`predtron.engine`) runs this problem's rounds on the
        validated ``labels`` of one fit, or ``None`` (the NumPy block scan, exact for every
        problem).  Only the built-in problems whose round is a few lines of arithmetic have
        one; it is built once per fit.
        """
        return None

    # ------------------------------------------------------------ enumeration
    def predictions(self, y=None) -> Iterator:
        """Every prediction (for the size of label ``y`` where sizes vary).

        Only for testing and small instances; fast operations never enumerate.
        """
        return self._predictions(None if y is None else self.check_label(y))

    def _predictions(self, y=None) -> Iterator:
        raise TypeError(f"{type(self).__name__} does not enumerate its predictions")

    def labels(self) -> Iterator:
        """Every label, for small finite label spaces."""
        raise TypeError(f"{type(self).__name__} does not enumerate its labels")

    def n_predictions(self, y=None) -> int | None:
        """Size of the prediction space (for label ``y``), when known without enumerating."""
        return self._n_predictions(None if y is None else self.check_label(y))

    def _n_predictions(self, y=None) -> int | None:
        return None

    def _enumerate(self, items: Iterable, what: str, size: int | None = None) -> Iterator:
        """Iterate ``items``, refusing up front a space larger than :data:`MAX_ENUMERATION`."""
        if size is not None and size > MAX_ENUMERATION:
            raise ValueError(
                f"{type(self).__name__} would enumerate {size} {what}, more than {MAX_ENUMERATION}; this "
                "operation is for small instances (tests, brute force); use the problem's fast operations"
            )
        return iter(items)

    def random_label(self, rng: np.random.Generator):
        """A label drawn at random (used by :func:`predtron.testing.check_problem`)."""
        _check_rng(rng)
        labels = list(self.labels())
        return labels[int(rng.integers(len(labels)))]

    def label_for(self, sigma):
        """A label ``y`` with ``sigma`` in ``Sigma_y``, or ``None`` if there is none.

        Used by the data generators to label the prediction of a target ``W*``.
        """
        return self._label_for(self._check_prediction(sigma))

    def _label_for(self, sigma):
        """:meth:`label_for` of a valid prediction (default: the prediction read as a label)."""
        return self.check_label(sigma)

    # ----------------------------------------------------------------- derived
    def same(self, a, b) -> bool:
        """Whether two predictions are equal."""
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))

    def loss_matrix(self) -> np.ndarray:
        """The ``k x l`` loss matrix, by enumeration (small problems only)."""
        preds = list(self._enumerate(self.predictions(), "predictions", self.n_predictions()))
        labels = list(self._enumerate(self.labels(), "labels", self.n_labels_space()))
        if len(preds) * len(labels) > MAX_ENUMERATION:
            raise ValueError(
                f"the loss matrix of {type(self).__name__} has {len(preds)} x {len(labels)} entries, more "
                f"than {MAX_ENUMERATION}; use c_L and C_L, which are computed without it"
            )
        return np.array([[self._loss(s, y) for y in labels] for s in preds], dtype=float)

    def n_labels_space(self) -> int | None:
        """Size of the label space, when known without enumerating."""
        return None

    @property
    def c_L(self) -> float:
        """Smallest non-zero loss value ``c_L`` (Section 2.1)."""
        values = self.loss_matrix()
        return float(values[values > 0].min())

    @property
    def C_L(self) -> float:
        """Largest loss value ``C_L`` (Section 2.1)."""
        return float(self.loss_matrix().max())

    def score_shape(self, y=None) -> tuple[int, ...] | None:
        """Shape of a score vector (for label ``y`` where the number of items varies);
        ``None`` when any non-empty 1-D vector is valid (ranking without a label)."""
        return self._score_shape(None if y is None else self.check_label(y))

    def _score_shape(self, y=None) -> tuple[int, ...] | None:
        """:meth:`score_shape` for a valid ``y``."""
        return self._rep(self._correct(y) if y is not None else self.pred_default()).shape

    def check_scores(self, t, y=None) -> np.ndarray:
        """Validate a score vector for this problem (and the size of ``y`` where it varies)."""
        return self._check_scores(t, None if y is None else self.check_label(y))

    def _check_scores(self, t, y=None) -> np.ndarray:
        """:meth:`check_scores` for a valid ``y``."""
        t = as_finite_array(t, "t")
        expected = self._score_shape(y)
        if expected is None:
            if t.ndim != 1 or t.size == 0:
                raise ValueError(f"t must be a non-empty 1-D array of scores, one per item; got shape {t.shape}")
        elif t.shape != expected:
            raise ValueError(f"t must have shape {expected}; got {t.shape}")
        return t

    def pred_default(self):
        """Any one prediction (used to find the score dimension)."""
        return next(iter(self.predictions()))

    def stack(self, predictions: Iterable[Any]):
        """Stack per-instance predictions into the array ``predict`` returns (an empty stack
        keeps the shape of one prediction: ``(0, *shape)``)."""
        items = list(predictions)
        if not items:
            try:
                template = np.asarray(self.pred_default())
            except (TypeError, ValueError):
                return np.asarray(items)
            return np.zeros((0, *template.shape), dtype=template.dtype)
        return np.asarray(items)


def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator (numpy.random.default_rng(seed)); got {excerpt(rng)}")
    return rng


def first_argmax(values: np.ndarray) -> int:
    """Index of the first maximum of a non-empty 1-D array of finite values, with the relative
    tolerance of :func:`first_argmax_trusted` (validated)."""
    values = as_finite_array(values, "values")
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"values must be a non-empty 1-D array; got shape {values.shape}")
    return first_argmax_trusted(values)


def first_argmax_rows(values: np.ndarray) -> np.ndarray:
    """:func:`first_argmax` of every row of a 2-D array (validated)."""
    values = as_finite_array(values, "values")
    if values.ndim != 2 or values.shape[1] == 0:
        raise ValueError(f"values must be a 2-D array with at least one column; got shape {values.shape}")
    return first_argmax_rows_trusted(values)


def first_argmax_trusted(values: np.ndarray) -> int:
    """Index of the first maximum, with a relative tolerance so rounding does not break ties.

    For callers that have already validated ``values`` (a non-empty 1-D array of finite
    values; :func:`first_argmax` is the validating entry point).  Used by ``pred`` of the
    finite problems and by the learners that predict a class by their largest score
    (:mod:`predtron.pa`, :mod:`predtron.reductions`).

    The first index whose value is within ``TIE_TOLERANCE`` times the largest magnitude of
    the maximum.  The tolerance is relative, so the choice is unchanged when all values
    are multiplied by a positive constant (``pred`` stays homogeneous).
    """
    values = np.asarray(values, dtype=float)
    top = values.max()
    tol = TIE_TOLERANCE * max(top, -values.min())
    return int((values >= top - tol).argmax())


def first_argmax_rows_trusted(values: np.ndarray) -> np.ndarray:
    """:func:`first_argmax_trusted` of every row of a 2-D array (the same arithmetic, vectorised).

    For callers that have already validated ``values``; :func:`first_argmax_rows` validates.
    """
    top = values.max(axis=1)
    tol = TIE_TOLERANCE * np.maximum(top, -values.min(axis=1))
    return (values >= (top - tol)[:, None]).argmax(axis=1)


class FiniteProblem(Problem):
    """A problem given by an explicit list of predictions with a representation matrix.

    Subclasses set ``self._reps`` (``k x d``, unit rows), ``self._preds`` (the ``k``
    prediction values in order), ``self._label_values`` (the ``l`` labels in order) and
    ``self._L`` (the ``k x l`` loss matrix).  ``pred`` and ``oracle`` enumerate the ``k``
    predictions, which is exact and ``O(k d)``; the batch operations look losses up in
    ``_L``.
    """

    _reps: np.ndarray
    _preds: list
    _label_values: list
    _L: np.ndarray

    def _index(self, sigma) -> int:
        if isinstance(sigma, np.ndarray) and sigma.ndim == 0:
            sigma = sigma.item()
        # Only real numbers (not booleans, not arrays: an array of one element would compare
        # equal element-wise) can name a prediction.
        if isinstance(sigma, numbers.Real) and not isinstance(sigma, (bool, np.bool_)):
            for i, p in enumerate(self._preds):
                if p == sigma:
                    return i
        raise ValueError(f"prediction must be one of {self._preds}; got {excerpt(sigma)}")

    def _label_index(self, y) -> int:
        return self._label_values.index(y)

    def _check_prediction(self, sigma, y=None):
        return self._preds[self._index(sigma)]

    def _rep(self, sigma) -> np.ndarray:
        return self._reps[self._index(sigma)]

    def _pred(self, t):
        return self._preds[first_argmax_trusted(self._reps @ np.asarray(t, dtype=float))]

    def _loss(self, sigma, y) -> float:
        return float(self._L[self._index(sigma), self._label_index(y)])

    def _oracle(self, t, y):
        t = np.asarray(t, dtype=float)
        base = self._rep(self._correct(y)) @ t
        values = self._L[:, self._label_index(y)] - (base - self._reps @ t)
        return self._preds[first_argmax_trusted(values)]

    def _label_columns(self, Y: np.ndarray) -> np.ndarray:
        lookup = {v: j for j, v in enumerate(self._label_values)}
        return np.array([lookup[y] for y in Y.tolist()], dtype=np.int64)

    def _batch_pred_index(self, T: np.ndarray) -> np.ndarray:
        T = np.asarray(T, dtype=float)
        return first_argmax_rows_trusted(T @ self._reps.T)

    def batch_loss(self, T, Y) -> np.ndarray:
        return self._L[self._batch_pred_index(T), self._label_columns(np.asarray(Y))]

    def batch_pred(self, T):
        index = self._batch_pred_index(T)
        return np.asarray(self._preds)[index]

    def _compiled_spec(self, labels) -> EngineSpec:
        correct = [self._index(self._correct(v)) for v in self._label_values]
        return EngineSpec.finite(self._label_columns(np.asarray(labels)), self._reps, self._L, correct)

    def _predictions(self, y=None):
        return iter(self._preds)

    def labels(self):
        return iter(self._label_values)

    def _n_predictions(self, y=None) -> int:
        return len(self._preds)

    def n_labels_space(self) -> int:
        return len(self._label_values)

    def loss_matrix(self) -> np.ndarray:
        return self._L.copy()

    def pred_default(self):
        return self._preds[0]
