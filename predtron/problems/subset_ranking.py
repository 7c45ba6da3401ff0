"""Subset ranking (Section 4): rank the ``m`` documents of a query with ``t = X w``."""

from __future__ import annotations

import numpy as np

from predtron._ragged import Ragged
from predtron._validation import MAX_DENSE_ENTRIES, as_finite_array, check_each, check_int, check_n_labels
from predtron.engine import EngineSpec, grade_dp_covers
from predtron.problems.base import _check_rng
from predtron.problems.ranking import MAX_EXPONENTIAL_GRADE, RankingProblem, check_relevance
from predtron.scoring import DocumentScoring


class SubsetRanking(RankingProblem):
    """Subset ranking: a query is a matrix ``X`` (one row per document), scores ``t = X w``.

    Predictions are rankings ``sigma`` (``sigma[i]`` = 0-based position of document
    ``i``), labels are integer relevance vectors ``y >= 0`` of the query's length, and
    ``rep(sigma)_i = f(sigma[i] + 1) / Z``.  Queries may have different numbers of
    documents; ``w`` is shared.  With the Predtron, line 9 of Algorithm 1 becomes
    ``w <- w - eta X^T (rep(sigma~) - rep(sigma_y))`` (Corollary 5).  See
    :mod:`predtron.problems.ranking` for the losses, the oracle (Lemma 3) and the margin
    (Lemma 4).

    Parameters
    ----------
    f : str or callable, default "linear"
        ``"linear"`` (``-i``), ``"inverse"`` (``1/i``), ``"power1.1"``, ``"square"``,
        ``"discount"`` or a strictly decreasing callable on 1-based positions.
    loss : {"ndcg", "precision"}, default "ndcg"
        ``1 - NDCG`` (NDCG@k with ``k``) or ``1 - precision@k`` (normalised by
        ``min(k, #relevant)``).
    k : int, optional
        Cut-off.
    gain : {"exponential", "linear"}, default "exponential"
        NDCG gain ``2^y - 1`` or ``y``.
    oracle : {"auto", "assignment", "sort"}, default "auto"
        See :class:`~predtron.problems.ranking.RankingProblem`.

    Notes
    -----
    * All-zero relevance (or no relevant document for precision): every ranking has
      loss 0, so the query never triggers an update.
    * ``c_L`` and ``C_L`` depend on the labels (the number of documents and the
      grades); they are not properties of this problem.  Use
      :meth:`loss_bounds_for` on the labels of a data set, or :meth:`loss_bounds` for
      every label in ``{0..y_max}^m``.

    Examples
    --------
    >>> import numpy as np
    >>> from predtron.problems.subset_ranking import SubsetRanking
    >>> problem = SubsetRanking()
    >>> problem.pred(np.array([0.2, 0.9, 0.5])).tolist()
    [2, 0, 1]
    >>> round(problem.loss(np.array([2, 0, 1]), np.array([0, 2, 1])), 6)
    0.0
    """

    def __init__(self, f="linear", loss: str = "ndcg", k: int | None = None,
                 gain: str = "exponential", oracle: str = "auto"):
        super().__init__(f=f, loss=loss, k=k, gain=gain, oracle=oracle)
        self.scoring = DocumentScoring()

    def check_label(self, y) -> np.ndarray:
        return check_relevance(y, "label", max_grade=self.ranking_loss.max_grade)

    def check_labels(self, Y, inputs) -> Ragged:
        """Relevance grades for the queries of ``inputs``: one array per query, or one flat
        array with a grade per document (the layout of ``qid``/``group`` input)."""
        offsets = inputs.offsets
        n_docs = int(offsets[-1])
        if Y is None:
            raise ValueError("Y must hold relevance grades; got None")
        flat_layout = not isinstance(Y, (list, tuple)) or (
            len(Y) == n_docs and all(np.ndim(y) == 0 for y in Y))
        if flat_layout:
            top = self.ranking_loss.max_grade
            grades = check_relevance(Y, "Y", max_grade=top) if n_docs else np.zeros(0, dtype=np.int64)
            if grades.shape != (n_docs,):
                raise ValueError(
                    f"Y must hold one relevance grade per document ({n_docs}) or one array per query "
                    f"({inputs.n}); got shape {grades.shape}"
                )
            return Ragged(grades, offsets)
        check_n_labels(Y, inputs.n)
        grades = check_each(Y, self.check_label, "Y")
        sizes = np.diff(offsets)
        for i, (y, m) in enumerate(zip(grades, sizes, strict=True)):
            if len(y) != m:
                raise ValueError(f"X[{i}] has {m} documents but Y[{i}] has {len(y)} relevance grades")
        return Ragged.from_list(grades) if grades else Ragged(np.zeros(0, dtype=np.int64), offsets)

    def check_pair(self, x: np.ndarray, y: np.ndarray, i: int) -> None:
        """Check that query ``i`` has one relevance grade per document."""
        i = check_int(i, "i", minimum=0)
        x = as_finite_array(x, f"x (X[{i}])")
        if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
            raise ValueError(f"X[{i}] (x) must be a 2-D (n_documents, n_features) matrix; got shape {x.shape}")
        y = self.check_label(y)
        if x.shape[0] != len(y):
            raise ValueError(
                f"X[{i}] (x) has {x.shape[0]} documents but Y[{i}] (y) has {len(y)} relevance grades"
            )

    def random_label(self, rng: np.random.Generator, n_items: int | None = None,
                     y_max: int = 2) -> np.ndarray:
        """Grades uniform on ``0..y_max`` for ``n_items`` documents (default: uniform on 1..6)."""
        _check_rng(rng)
        m = int(rng.integers(1, 7)) if n_items is None else check_int(n_items, "n_items", minimum=1,
                                                                       maximum=MAX_DENSE_ENTRIES)
        return rng.integers(0, check_int(y_max, "y_max", minimum=0, maximum=MAX_EXPONENTIAL_GRADE) + 1,
                            size=m).astype(np.int64)

    def _label_for(self, sigma) -> np.ndarray:
        """The relevance ``m - 1 - sigma``: all grades distinct, sorted by ``sigma``."""
        return (len(sigma) - 1 - sigma).astype(np.int64)

    def pred_default(self):
        raise ValueError("SubsetRanking has no fixed number of documents; pass a label y")

    def _compiled_spec(self, labels) -> EngineSpec | None:
        """The compiled pass covers queries whose oracle is an exact sort or the grade dynamic
        programme (``oracle="dp"`` with at most ``MAX_DP_STATES`` states, or ``"auto"`` where
        :func:`predtron.engine.grade_dp_is_cheap`)."""
        if not isinstance(labels, Ragged) or self.oracle_method not in ("auto", "dp") or len(labels) == 0:
            return None
        sizes = labels.sizes
        present = np.flatnonzero(np.bincount(sizes)).tolist()  # the query sizes, increasing
        top = present[-1]
        f_start = np.zeros(top + 1, dtype=np.int64)
        alphas = np.full(top + 1, np.nan)
        chunks, start = [], 0
        for m in present:
            fvals, _, alpha = self._sizes(m)
            f_start[m] = start
            if alpha is not None:
                alphas[m] = alpha
            chunks.append(fvals)
            start += m
        gains = self.ranking_loss._item_values(labels.values)  # check_labels checked the grades
        needed = np.isnan(alphas[sizes])  # queries whose size has no exact sort
        if needed.any() and not grade_dp_covers(gains, labels.offsets, needed, self.oracle_method == "auto"):
            return None  # some query's dynamic programme is too large (or, for "auto", too slow)
        return EngineSpec.ranking(labels.values, gains, np.concatenate(chunks), f_start, alphas,
                                  self.ranking_loss._position_weights(top).copy())

    def _score_shape(self, y=None) -> tuple[int, ...] | None:
        return None if y is None else (len(y),)

    def stack(self, predictions) -> list:
        """Rankings as a list (queries differ in size)."""
        return [np.asarray(p) for p in predictions]

    @property
    def c_L(self) -> float:
        raise ValueError(
            "SubsetRanking's loss values depend on the labels; use loss_bounds_for(Y) or "
            "loss_bounds(m, y_max) to get (c_L, C_L)"
        )

    @property
    def C_L(self) -> float:
        raise ValueError(
            "SubsetRanking's loss values depend on the labels; use loss_bounds_for(Y) or "
            "loss_bounds(m, y_max) to get (c_L, C_L)"
        )
