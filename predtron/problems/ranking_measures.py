"""Ranking primitives of Sections 4 and 5: representations, losses and the Lemma 3 oracle.

A ranking of ``m`` items is an int array ``sigma`` with ``sigma[i]`` the 0-based position
of item ``i`` (0 = top).  The paper's positions are 1-based, so every formula below
evaluates ``f`` and the discount at ``sigma[i] + 1``.

Representation and decoding (Section 4)
---------------------------------------
``rep(sigma)_i = f(sigma[i] + 1) / Z`` with ``f`` strictly decreasing and
``Z = sqrt(sum_{i=1}^m f(i)^2)``, so ``||rep(sigma)||_2 = 1``.  Then

    <rep(sigma), t> = (1/Z) sum_i f(sigma[i] + 1) t_i,

which, by the rearrangement inequality, is largest when the largest score sits at the
top: ``pred(t)`` sorts ``t`` in decreasing order (ties: lower item index first).

Losses as sums over (item, position) pairs
------------------------------------------
Every loss here has the form ``L(sigma, y) = 1 - sum_i v_i b_{sigma[i]} / I(y)`` with

* item values ``v_i``: the gain ``G(y_i)`` (``2^{y_i} - 1``, or ``y_i`` with
  ``gain="linear"``) for NDCG, the indicator ``y_i > 0`` for precision;
* position weights ``b_j`` (``j`` 0-based), non-increasing: the discount
  ``D(j + 1) = 1 / log2(j + 2)`` for NDCG, ``D(j + 1) [j < k]`` for NDCG@k and
  ``[j < k]`` for precision@k;
* ``I(y) = sum_j s_j b_j`` with ``s`` the values ``v`` sorted decreasingly (the ideal
  DCG; for precision@k it is ``min(k, r)`` with ``r`` the number of relevant items).

Precision@k is therefore ``1 - (relevant items in the top k) / min(k, r)``: we divide by
``min(k, r)`` rather than by ``k`` so that some ranking has zero loss even when fewer
than ``k`` items are relevant (the framework of Section 2 needs ``Sigma_y`` non-empty).
If ``I(y) = 0`` (all relevance zero, or no relevant item) no ranking is better than
another; we set the loss to 0 for every ranking, so such a query never causes an update.

Loss-augmented argmax (Lemma 3)
-------------------------------
Dropping terms that do not depend on ``sigma``, the oracle maximises
``sum_i P[i, sigma[i]]`` with profit ``P[i, j] = f(j + 1) t_i / Z - v_i b_j / I(y)``, a
linear assignment problem (``scipy.optimize.linear_sum_assignment``, ``O(m^3)``).

When is a sort exact?  If the ``f`` values are an affine function of the position
weights, ``f(j + 1) = alpha b_j + beta`` with ``alpha > 0``, then
``P[i, j] = b_j (alpha t_i / Z - v_i / I(y)) + beta t_i / Z``; the last term sums to a
constant over all rankings, and what is left is a product ``a_i b_j``, which the
rearrangement inequality maximises by giving the largest ``a_i`` the largest ``b_j``:
sort ``a`` decreasingly (``O(m log m)``).  This is the case for ``f = "discount"``
(``f(i) = 1 / log2(1 + i)``) with the full NDCG.  In general the profit is a sum of two
products ``t_i f_j`` and ``v_i b_j`` and no single ordering of the items and of the
positions is optimal, so the assignment is needed.  :meth:`RankingProblem.sort_exact`
tests the affine relation numerically for a given ``m``.

The dense assignment does not use that ``v_i`` takes one value per relevance grade:
:mod:`predtron.problems.ranking_grades` does (``oracle="grades"``), exactly, in about
``m`` steps per pass of a dynamic programme instead of ``m^3``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from predtron._validation import (
    MAX_DENSE_ENTRIES,
    as_finite_array,
    as_label_array,
    check_choice,
    check_int,
    check_vector,
    excerpt,
)

#: Names of the built-in choices of ``f`` (Section 4): ``-i``, ``1/i``, ``-i^1.1``,
#: ``-i^2`` and the NDCG discount ``1/log2(1 + i)``.
F_CHOICES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "linear": lambda i: -i,
    "inverse": lambda i: 1.0 / i,
    "power1.1": lambda i: -(i**1.1),
    "square": lambda i: -(i**2),
    "discount": lambda i: 1.0 / np.log2(1.0 + i),
}
GAINS = ("exponential", "linear")
LOSSES = ("ndcg", "precision")

#: Largest exponential gain exponent (``2^y - 1`` must stay finite in float64).
MAX_EXPONENTIAL_GRADE = 1000
#: Largest grade of a linear gain (or of precision, which only asks ``y > 0``): ``2^53``, the
#: largest integer up to which every integer is exactly a float64.
MAX_LINEAR_GRADE = 2 ** 53



def _check_ranking(sigma, m: int, name: str = "sigma") -> np.ndarray:
    """A permutation of ``0..m-1`` given as positions (integral floats accepted)."""
    arr = as_label_array(sigma, name, booleans=False)
    if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
        arr = arr.astype(np.int64)
    if arr.shape != (m,) or arr.dtype.kind not in "iu" or not np.array_equal(np.sort(arr), np.arange(m)):
        raise ValueError(f"{name} must be a permutation of 0..{m - 1} (item positions); got {excerpt(arr)}")
    return arr.astype(np.int64)


# ---------------------------------------------------------------- elementary maps
def discount(positions) -> np.ndarray:
    """The NDCG discount ``D(i) = 1 / log2(1 + i)`` of 1-based positions ``i`` (Section 4)."""
    p = check_vector(positions, "positions")
    if np.any(p < 1):
        raise ValueError(f"positions must be 1-based (>= 1); got {excerpt(p)}")
    return _discount(p)


def _discount(p: np.ndarray) -> np.ndarray:
    """Unchecked :func:`discount` of float 1-based positions."""
    return 1.0 / np.log2(1.0 + p)


def gain(y, kind: str = "exponential") -> np.ndarray:
    """The gain ``G(y) = 2^y - 1`` (``kind="exponential"``, Section 4) or ``G(y) = y``."""
    check_choice(kind, "kind", GAINS)
    return _gain(check_relevance(y, "y") if kind == "exponential" else check_vector(y, "y"), kind)


def _gain(y, kind: str) -> np.ndarray:
    y = np.asarray(y, dtype=float)
    return np.expm1(y * np.log(2.0)) if kind == "exponential" else y.copy()


def position_values(f, m: int) -> np.ndarray:
    """``f(1), ..., f(m)``: ``f`` by name (see :data:`F_CHOICES`) or a callable on 1-based positions.

    Raises ``ValueError`` unless the values are finite and strictly decreasing, and
    not all zero (so that ``Z > 0``).
    """
    m = check_int(m, "m", minimum=1, maximum=MAX_DENSE_ENTRIES)
    if isinstance(f, str):
        func = F_CHOICES.get(f)
        if func is None:
            raise ValueError(f"f must be one of {sorted(F_CHOICES)} or a callable; got {f!r}")
    elif callable(f):
        func = f
    else:
        raise ValueError(f"f must be one of {sorted(F_CHOICES)} or a callable; got {f!r}")
    positions = np.arange(1, m + 1, dtype=float)
    try:
        values = np.asarray(func(positions), dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"f could not be evaluated on the positions 1..{m} ({exc})") from None
    if values.shape != (m,):
        raise ValueError(
            f"f must map the array of positions 1..{m} to an array of shape ({m},); got shape "
            f"{values.shape}"
        )
    if not np.all(np.isfinite(values)):
        raise ValueError(f"f must be finite on the positions 1..{m}; got {values.tolist()}")
    steps = np.diff(values)
    if np.any(steps >= 0):
        j = int(np.flatnonzero(steps >= 0)[0]) + 1
        raise ValueError(
            f"f must be strictly decreasing on the positions 1..{m}; got f({j}) = {values[j - 1]!r} "
            f"and f({j + 1}) = {values[j]!r}"
        )
    if not np.any(values):
        raise ValueError("f(1) must be non-zero for a single position (Z would be 0)")
    return values


def sort_positions(t) -> np.ndarray:
    """Positions that sort ``t`` decreasingly: ``sigma[i]`` = 0-based rank of item ``i``.

    Ties go to the lower item index first (a stable sort), so the result is
    deterministic.
    """
    return _sort_positions(check_vector(t, "t"))


def _sort_positions(t) -> np.ndarray:
    t = np.asarray(t)
    order = np.argsort(-t, kind="stable")
    sigma = np.empty(len(t), dtype=np.int64)
    sigma[order] = np.arange(len(t))
    return sigma


def assignment_argmax(profit: np.ndarray) -> np.ndarray:
    """A permutation ``sigma`` maximising ``sum_i profit[i, sigma[i]]`` (linear assignment)."""
    profit = as_finite_array(profit, "profit")
    if profit.ndim != 2 or profit.shape[0] != profit.shape[1] or profit.size == 0:
        raise ValueError(f"profit must be a non-empty square (m, m) matrix; got shape {profit.shape}")
    return _assignment_argmax(profit)


def _assignment_argmax(profit: np.ndarray) -> np.ndarray:
    # scipy.optimize is imported here, by the problems that assign (a fifth of a second that every
    # other fit, and the command line's start, would pay).
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(profit, maximize=True)
    sigma = np.empty(profit.shape[0], dtype=np.int64)
    sigma[rows] = cols
    return sigma


def check_relevance(y, name: str = "y", length: int | None = None, y_max: int | None = None,
                    max_grade: int = MAX_EXPONENTIAL_GRADE) -> np.ndarray:
    """Validate a relevance vector: 1-D, non-empty, integer-valued, ``0 <= y_i (<= y_max)``.

    Returns it as an ``int64`` array; floats such as ``2.0`` are accepted, ``2.5`` and NaN
    are not.  ``max_grade`` bounds the grades: :data:`MAX_EXPONENTIAL_GRADE` (the default)
    where the gain is ``2^y - 1``, :data:`MAX_LINEAR_GRADE` where it is ``y`` (see
    :attr:`RankingLoss.max_grade`).
    """
    if length is not None:
        length = check_int(length, "length", minimum=1)
    if y_max is not None:
        y_max = check_int(y_max, "y_max", minimum=0)
    arr = as_label_array(y, name, booleans=False)
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be an array of integer relevance grades; got {excerpt(arr)}")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of relevance grades; got shape {arr.shape}")
    if length is not None and arr.shape != (length,):
        raise ValueError(f"{name} must have {length} relevance grades (length={length}); got {arr.shape[0]}")
    if arr.dtype.kind == "f":
        if np.isnan(arr).any():
            raise ValueError(f"{name} contains NaN; relevance grades must be integers >= 0")
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            bad = arr[~(np.isfinite(arr) & (arr == np.round(arr)))][0]
            raise ValueError(f"{name} must contain integer relevance grades; got {bad.item()!r}")
    if np.any(arr < 0):
        raise ValueError(f"{name} must contain relevance grades >= 0; got {arr[arr < 0][0].item()!r}")
    if y_max is not None and np.any(arr > y_max):
        raise ValueError(f"{name} must contain relevance grades <= y_max = {y_max}; got {arr.max()}")
    if arr.max() > max_grade:  # before the cast: a float grade may exceed int64
        why = ("whose gain 2^y - 1 overflows" if max_grade <= MAX_EXPONENTIAL_GRADE
               else "beyond the integers float64 holds exactly")
        raise ValueError(f"{name} has a relevance grade {arr.max()} > {max_grade}, {why}; rescale the grades")
    return arr.astype(np.int64)


# ------------------------------------------------------------------- losses
#: ``(m, loss name, k) -> b`` of :meth:`RankingLoss._position_weights` (read-only arrays), shared
#: by the losses of the process; at most :data:`_MAX_WEIGHTS` entries.
_WEIGHTS: dict[tuple, np.ndarray] = {}
_MAX_WEIGHTS = 1 << 14


class RankingLoss:
    """A loss ``L(sigma, y) = 1 - sum_i v_i b_{sigma[i]} / I(y)`` (see the module notes).

    Parameters
    ----------
    name : {"ndcg", "precision"}
        NDCG (Section 4) or precision.
    k : int, optional
        Cut-off: NDCG@k counts positions ``< k`` only; precision@k needs it.  A ``k``
        larger than the number of items acts as ``k = m``.
    gain : {"exponential", "linear"}
        Gain of NDCG (ignored by precision, which only asks whether ``y > 0``).
    """

    def __init__(self, name: str = "ndcg", k: int | None = None, gain: str = "exponential"):
        self.name = check_choice(name, "loss", LOSSES)
        if k is not None:
            k = check_int(k, "k", minimum=1)
        if name == "precision" and k is None:
            raise ValueError("loss='precision' needs a cut-off k (precision@k); got k=None")
        self.k = k
        self.gain = check_choice(gain, "gain", GAINS)

    @property
    def max_grade(self) -> int:
        """The largest relevance grade this loss takes: only the exponential gain of NDCG
        overflows (beyond :data:`MAX_EXPONENTIAL_GRADE`)."""
        exponential = self.name == "ndcg" and self.gain == "exponential"
        return MAX_EXPONENTIAL_GRADE if exponential else MAX_LINEAR_GRADE

    def item_values(self, y: np.ndarray) -> np.ndarray:
        """``v``: the gains (NDCG) or the relevance indicators (precision)."""
        return self._item_values(check_relevance(y, "y", max_grade=self.max_grade))

    def _item_values(self, y: np.ndarray) -> np.ndarray:
        if self.name == "precision":
            return (np.asarray(y) > 0).astype(float)
        return _gain(y, self.gain)

    def position_weights(self, m: int) -> np.ndarray:
        """``b_j`` for 0-based positions ``j``, non-increasing."""
        return self._position_weights(check_int(m, "m", minimum=1, maximum=MAX_DENSE_ENTRIES)).copy()

    def _position_weights(self, m: int) -> np.ndarray:
        """Unchecked :meth:`position_weights`, cached per ``m`` (read-only: the online loop asks
        for them at every round) and shared by the losses of the process with the same name
        and cut-off, which is all they depend on (a new problem finds them built)."""
        key = (m, self.name, self.k)
        b = _WEIGHTS.get(key)
        if b is None:
            cut = m if self.k is None else min(self.k, m)
            b = np.zeros(m)
            b[:cut] = 1.0 if self.name == "precision" else _discount(np.arange(1, cut + 1, dtype=float))
            b.flags.writeable = False
            if len(_WEIGHTS) < _MAX_WEIGHTS:
                _WEIGHTS[key] = b
        return b

    def ideal(self, v: np.ndarray, b: np.ndarray) -> float:
        """``I(y) = sum_j s_j b_j`` (the ideal DCG, or ``min(k, r)`` for precision)."""
        v = check_vector(v, "v")
        return self._ideal(v, check_vector(b, "b", length=v.size, length_name="one weight per entry of v"))

    def _ideal(self, v: np.ndarray, b: np.ndarray) -> float:
        """Unchecked :meth:`ideal`, added left to right like every DCG of the package
        (:func:`predtron.problems.ranking_batch.segment_sums`)."""
        terms = np.sort(v)[::-1] * b
        return float(np.cumsum(terms)[-1]) if terms.size else 0.0

    def value(self, sigma: np.ndarray, y: np.ndarray) -> float:
        """``L(sigma, y)``; exactly 0 for every member of ``Sigma_y`` and when ``I(y) = 0``.

        The DCG is summed in position order, like the ideal, so that a zero-loss ranking
        gives bitwise the same sum and the loss is exactly 0.
        """
        y = check_relevance(y, "y", max_grade=self.max_grade)
        return self._value(_check_ranking(sigma, y.size, "sigma (one position per item of y)"), y)

    def _value(self, sigma: np.ndarray, y: np.ndarray) -> float:
        v = self._item_values(y)
        b = self._position_weights(len(v))
        ideal = self._ideal(v, b)
        if ideal == 0:
            return 0.0
        by_position = np.empty_like(v)
        by_position[sigma] = v
        dcg = float((by_position * b).sum())
        return max(0.0, (ideal - dcg) / ideal)

    def allowed(self, y: np.ndarray) -> np.ndarray:
        """``A[i, j]``: whether item ``i`` sits at position ``j`` in some zero-loss ranking.

        The positions split into runs of equal weight ``b_j`` (single positions where
        ``b`` strictly decreases, the tail beyond ``k``, the top ``k`` for precision).
        A ranking has zero loss iff each run holds the same multiset of values as the
        sorted values ``s`` on that run, so item ``i`` may sit in a run iff ``v_i``
        occurs among the run's values.  Zero-loss rankings are exactly the perfect
        matchings of ``A`` (checked by enumeration in the tests).
        """
        return self._allowed(check_relevance(y, "y", max_grade=self.max_grade))

    def _allowed(self, y: np.ndarray) -> np.ndarray:
        v = self._item_values(y)
        m = len(v)
        b = self._position_weights(m)
        if self._ideal(v, b) == 0:
            return np.ones((m, m), dtype=bool)
        s = np.sort(v)[::-1]
        allowed = np.zeros((m, m), dtype=bool)
        start = 0
        while start < m:
            stop = start + 1
            while stop < m and b[stop] == b[start]:
                stop += 1
            allowed[:, start:stop] = np.isin(v, s[start:stop])[:, None]
            start = stop
        return allowed

    def __repr__(self) -> str:
        return f"RankingLoss(name={self.name!r}, k={self.k!r}, gain={self.gain!r})"


# ------------------------------------------------------------------- margins
