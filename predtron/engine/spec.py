"""The contract between a problem and the compiled engine: :class:`Kind` and :class:`EngineSpec`.

A problem whose round (Algorithm 1, lines 4-8: predict, suffer the loss, pick the update
direction) is a few lines of arithmetic describes it to the engine with an
:class:`EngineSpec`, built by one of the named constructors below from the problem's own
parameters (its loss matrix, costs, representation scale, ranking tables) and the
validated labels of one fit.  The engine reads nothing else: it never looks at the
problem's class, and it runs one small kernel per :class:`Kind`.  A problem without a spec
(``Problem._compiled_spec`` returns ``None``) runs on the NumPy block scan, which is exact
for every problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

#: Relative tolerance within which two scores are a tie (the one definition, read by the
#: problems' NumPy rounds and by the compiled kernels alike): values within
#: ``TIE_TOLERANCE`` times the largest magnitude of the maximum count as maximal, and ties go
#: to the lowest index.
TIE_TOLERANCE = 1e-12


class Kind(IntEnum):
    """Which round a compiled pass runs; each kind has its own kernel."""

    #: ``pred(t) = sign(t_0)`` (``+1`` at 0); costs ``(alpha_+, alpha_-)`` (Section 3).
    BINARY = 1
    #: ``pred(t)`` = first argmax of ``k`` scores; loss matrix ``L[pred, label]`` (Section 3).
    MULTICLASS = 2
    #: Finite prediction space with explicit representations: ``pred(t)`` = first argmax of
    #: ``<rep(s), t>``; loss matrix ``L[pred, label]`` (Section 2).
    FINITE = 3
    #: Multilabel with ``rep(sigma) = (2 sigma - 1) / sqrt(m)``, Hamming loss (Section 3).
    HAMMING = 4
    #: Multilabel as :attr:`HAMMING`, subset (0-1) loss.
    SUBSET = 5
    #: Multilabel as :attr:`HAMMING`, F-beta loss (``1 - F_beta``; F1 at ``beta = 1``).
    FBETA = 6
    #: Subset ranking over a query's documents, ``t = X_q w`` (Section 4): the oracle is an
    #: exact sort, or the grade dynamic programme of :mod:`predtron.engine.grade_dp`.
    RANKING = 10


# Empty arrays: the values of the fields a spec's kind does not read.
def _no_vector() -> np.ndarray:
    return np.zeros(0)


def _no_matrix() -> np.ndarray:
    return np.zeros((0, 0))


def _no_indices() -> np.ndarray:
    return np.zeros(0, dtype=np.int64)


def _floats(values, ndim: int) -> np.ndarray:
    out = np.ascontiguousarray(values, dtype=np.float64)
    if out.ndim != ndim:
        raise ValueError(f"expected a {ndim}-d float array; got shape {out.shape}")
    return out


def _ints(values, ndim: int) -> np.ndarray:
    out = np.ascontiguousarray(values, dtype=np.int64)
    if out.ndim != ndim:
        raise ValueError(f"expected a {ndim}-d integer array; got shape {out.shape}")
    return out


@dataclass(frozen=True, eq=False)
class EngineSpec:
    """What the compiled engine needs to run one problem's rounds on the labels of one fit.

    Built once per fit (``labels`` are that fit's validated labels) by the named
    constructors, which fix dtypes and memory layout once, so a pass converts nothing.
    Fields a kind does not read keep their empty defaults.

    Attributes
    ----------
    kind : Kind
        The round to run.
    labels : ndarray of int64
        ``(n, 1)`` class or label-column index per instance (``+-1`` for :attr:`Kind.BINARY`),
        ``(n, m)`` 0/1 rows for the multilabel kinds, the flat relevance grades of all
        documents for :attr:`Kind.RANKING`.
    loss_matrix : ndarray of float, shape (n_predictions, n_labels)
        ``L[pred, label]`` (:attr:`Kind.MULTICLASS`, :attr:`Kind.FINITE`).
    correct : ndarray of int64, shape (n_labels,)
        Index of the prediction whose loss on each label is zero (the ``sigma_y`` of the update).
    reps : ndarray of float, shape (n_predictions, d)
        ``rep(sigma)`` of every prediction (:attr:`Kind.FINITE`).
    costs : tuple of float
        ``(alpha_+, alpha_-)`` (:attr:`Kind.BINARY`): the loss of a mistake on ``+1``, on ``-1``.
    scale, unit, normalize : float, float, bool
        Multilabel: ``1 / sqrt(m)`` of the representation, the loss of one wrong label
        (``1 / m`` normalised, else 1), and whether the Hamming loss is divided by ``m``.
    coef, beta2 : float
        F-beta: the weight ``2 / sqrt(m)`` of the scores in the loss-augmented argmax, and
        ``beta^2``.
    gains, f_table, f_start, alphas, position_weights : ndarray
        Ranking: the item values ``v`` of every document; every query size's ``f`` values
        concatenated, with size ``m`` at ``f_start[m]``; the sort oracle's ``alpha`` per size
        (NaN where no sort is exact, so the dynamic programme runs); the loss's position
        weights ``b``.
    """

    kind: Kind
    labels: np.ndarray
    loss_matrix: np.ndarray = field(default_factory=_no_matrix)
    correct: np.ndarray = field(default_factory=_no_indices)
    reps: np.ndarray = field(default_factory=_no_matrix)
    costs: tuple[float, float] = (0.0, 0.0)
    scale: float = 0.0
    unit: float = 0.0
    normalize: bool = False
    coef: float = 0.0
    beta2: float = 0.0
    gains: np.ndarray = field(default_factory=_no_vector)
    f_table: np.ndarray = field(default_factory=_no_vector)
    f_start: np.ndarray = field(default_factory=_no_indices)
    alphas: np.ndarray = field(default_factory=_no_vector)
    position_weights: np.ndarray = field(default_factory=_no_vector)

    @property
    def documents(self) -> bool:
        """Whether the pass runs over queries of documents (else over vector instances)."""
        return self.kind == Kind.RANKING

    @classmethod
    def binary(cls, labels, cost_pos: float, cost_neg: float) -> EngineSpec:
        """:attr:`Kind.BINARY` for labels ``+-1``."""
        return cls(Kind.BINARY, _ints(labels, 1).reshape(-1, 1), costs=(float(cost_pos), float(cost_neg)))

    @classmethod
    def multiclass(cls, labels, loss_matrix, correct) -> EngineSpec:
        """:attr:`Kind.MULTICLASS` for class indices ``labels``."""
        return cls(Kind.MULTICLASS, _ints(labels, 1).reshape(-1, 1), loss_matrix=_floats(loss_matrix, 2),
                   correct=_ints(correct, 1))

    @classmethod
    def finite(cls, columns, reps, loss_matrix, correct) -> EngineSpec:
        """:attr:`Kind.FINITE` for label columns ``columns`` of ``loss_matrix``."""
        return cls(Kind.FINITE, _ints(columns, 1).reshape(-1, 1), loss_matrix=_floats(loss_matrix, 2),
                   correct=_ints(correct, 1), reps=_floats(reps, 2))

    @classmethod
    def multilabel(cls, rows, subset: bool, scale: float, normalize: bool) -> EngineSpec:
        """:attr:`Kind.SUBSET` (``subset``) or :attr:`Kind.HAMMING` for 0/1 label ``rows``."""
        rows = _ints(rows, 2)
        unit = 1.0 / rows.shape[1] if normalize else 1.0
        return cls(Kind.SUBSET if subset else Kind.HAMMING, rows, scale=float(scale), unit=unit,
                   normalize=bool(normalize))

    @classmethod
    def fbeta(cls, rows, scale: float, coef: float, beta2: float) -> EngineSpec:
        """:attr:`Kind.FBETA` for 0/1 label ``rows``."""
        return cls(Kind.FBETA, _ints(rows, 2), scale=float(scale), coef=float(coef), beta2=float(beta2))

    @classmethod
    def ranking(cls, grades, gains, f_table, f_start, alphas, position_weights) -> EngineSpec:
        """:attr:`Kind.RANKING` for the flat relevance ``grades`` of every document."""
        return cls(Kind.RANKING, _ints(grades, 1), gains=_floats(gains, 1), f_table=_floats(f_table, 1),
                   f_start=_ints(f_start, 1), alphas=_floats(alphas, 1),
                   position_weights=_floats(position_weights, 1))
