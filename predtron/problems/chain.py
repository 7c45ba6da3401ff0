"""Structured output prediction on a chain: the OCR example of UML Section 17.3.

An input is an ``n x r`` matrix (column ``s`` holds the ``n`` pixels of the ``s``-th
character image) and a label is a word ``y`` in ``[q]^r``.  The textbook's feature map
``Psi(x, y)`` in ``R^{n q + q^2}`` has an emission block (pixel ``i`` summed over the
positions holding letter ``j``) and a transition block (how often letter ``j`` follows
letter ``i``); both are sums over positions of local features, so

    <w, Psi(x, y)> = sum_s E[s, y_s] + sum_{s >= 1} T[y_{s-1}, y_s],

with ``E = (W_e x)^T`` (``W_e`` the ``q x n`` emission weights) and ``T`` the ``q x q``
transition weights.  In the framework the scores ``t`` collect these local scores (one
emission score per position and letter, one transition score per consecutive pair of
positions and pair of letters) and ``rep(y)`` is the indicator of the letters and
letter pairs used by ``y``, divided by ``sqrt(2 r - 1)`` for unit norm.  Then
``A_x^*(rep(y)) = Psi(x, y) / sqrt(2 r - 1)`` (the textbook divides by ``r`` instead: a
constant factor), and ``pred`` and the loss-augmented ``oracle`` are Viterbi's dynamic
programme, ``O(r q^2)`` instead of ``q^r``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from predtron._validation import (
    MAX_DENSE_ENTRIES,
    as_finite_array,
    as_label_array,
    check_each,
    check_int,
    check_n_labels,
    check_size,
    excerpt,
)
from predtron.problems.base import Problem, _check_rng
from predtron.scoring import LinearScoring


def viterbi(emission: np.ndarray, transition: np.ndarray) -> np.ndarray:
    """``argmax_y sum_s emission[s, y_s] + sum_{s >= 1} transition[s - 1, y_{s-1}, y_s]``.

    Parameters
    ----------
    emission : ndarray of shape (r, q)
    transition : ndarray of shape (r - 1, q, q)
        ``transition[s, a, b]`` scores letter ``a`` at position ``s`` followed by ``b``.

    Returns
    -------
    ndarray of shape (r,)
        A best sequence; ties go to the smallest letter (``np.argmax``), scanning from
        the last position backwards.
    """
    emission = as_finite_array(emission, "emission")
    if emission.ndim != 2 or emission.shape[0] == 0 or emission.shape[1] == 0:
        raise ValueError(f"emission must be a non-empty 2-D (r, q) array; got shape {emission.shape}")
    r, q = emission.shape
    transition = as_finite_array(transition, "transition")
    if transition.shape != (r - 1, q, q):
        raise ValueError(f"transition must have shape (r - 1, q, q) = {(r - 1, q, q)} for emission of shape "
                         f"{(r, q)}; got {transition.shape}")
    return _viterbi(emission, transition)


def _viterbi(emission: np.ndarray, transition: np.ndarray) -> np.ndarray:
    r, q = emission.shape
    best = emission[0].copy()
    back = np.zeros((r, q), dtype=np.int64)
    for s in range(1, r):
        cand = best[:, None] + transition[s - 1]
        back[s] = np.argmax(cand, axis=0)
        best = cand[back[s], np.arange(q)] + emission[s]
    path = np.zeros(r, dtype=np.int64)
    path[-1] = int(np.argmax(best))
    for s in range(r - 1, 0, -1):
        path[s - 1] = back[s, path[s]]
    return path


class ChainScoring(LinearScoring):
    """Local scores of a chain: ``w = (W_e, T)`` flattened, ``q n + q^2`` parameters.

    The scores are ``E = (W_e x)^T`` (``r x q``) followed by ``T`` repeated for each of
    the ``r - 1`` consecutive pairs.  The adjoint sums the emission part against the
    pixels and the transition part over positions, so ``A_x^*(indicators of y)`` is the
    textbook's ``Psi(x, y)`` (up to its ``1/r``).  ``R = max(||x||_op, sqrt(r - 1))``.

    Parameters
    ----------
    n_letters : int
        ``q``.
    length : int
        ``r``, the number of positions.
    """

    def __init__(self, n_letters: int, length: int):
        check_int(n_letters, "n_letters", minimum=2, maximum=MAX_DENSE_ENTRIES)
        check_int(length, "length", minimum=1, maximum=MAX_DENSE_ENTRIES)
        check_size("the scores of a chain (length x n_letters + (length - 1) x n_letters^2)",
                   length * n_letters + (length - 1) * n_letters**2)
        self.n_letters = n_letters
        self.length = length

    def split(self, X) -> list[np.ndarray]:
        if isinstance(X, np.ndarray) and X.ndim == 3:
            X = list(X)
        if not isinstance(X, Sequence) or isinstance(X, (str, bytes)):
            raise ValueError(
                f"X must be a 3-D array or a list of (n_pixels, {self.length}) matrices; got "
                f"{type(X).__name__}"
            )
        out = []
        for i, x in enumerate(X):
            x = as_finite_array(x, f"X[{i}]")
            if x.ndim != 2 or x.shape[1] != self.length or x.shape[0] == 0:
                raise ValueError(
                    f"X[{i}] must be an (n_pixels, {self.length}) matrix, one column per position; "
                    f"got shape {x.shape}"
                )
            out.append(x)
        return out

    def n_features(self, x: np.ndarray) -> int:
        return int(x.shape[0])

    def init_params(self, n_features: int) -> np.ndarray:
        return np.zeros(self.n_letters * n_features + self.n_letters ** 2)

    def _split_params(self, params: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        q = self.n_letters
        return params[: q * n].reshape(q, n), params[q * n:].reshape(q, q)

    def scores(self, params: np.ndarray, x: np.ndarray) -> np.ndarray:
        W_e, T = self._split_params(params, x.shape[0])
        emission = (W_e @ x).T
        transition = np.broadcast_to(T, (self.length - 1, *T.shape))
        return np.concatenate([emission.ravel(), transition.ravel()])

    def gradient(self, g: np.ndarray, x: np.ndarray) -> np.ndarray:
        q, r = self.n_letters, self.length
        g = np.asarray(g, dtype=float)
        g_e = g[: r * q].reshape(r, q)
        g_t = g[r * q:].reshape(r - 1, q, q)
        return np.concatenate([(x @ g_e).T.ravel(), g_t.sum(axis=0).ravel()])

    def instance_norm(self, x: np.ndarray) -> float:
        return max(float(np.linalg.norm(x, 2)), float(np.sqrt(self.length - 1)))

    def kernel_scores(self, kernel, support, coefs, x):
        raise ValueError(
            "kernels are not supported for chains (the transition block has no input); use a "
            "primal learner such as Predtron"
        )


class Chain(Problem):
    """The OCR-style chain of UML Section 17.3 with the normalised Hamming loss.

    Labels and predictions are integer arrays ``y`` of length ``r`` with letters
    ``0..q-1``; ``L(y', y) = (1/r) #{s : y'_s != y_s}``, so ``c_L = 1/r`` and ``C_L = 1``.

    Parameters
    ----------
    n_letters : int
        Alphabet size ``q >= 2``.
    length : int
        Word length ``r >= 1``.

    Notes
    -----
    ``pred`` is Viterbi on the local scores; the ``oracle`` is Viterbi after adding
    ``(1/r) 1[y'_s != y_s]`` to the (rescaled) emission scores, since the normalised
    Hamming loss is a sum over positions.  Both are ``O(r q^2)``.
    """

    def __init__(self, n_letters: int, length: int):
        self.n_letters = n_letters
        self.length = length
        check_int(n_letters, "n_letters", minimum=2, maximum=MAX_DENSE_ENTRIES)
        check_int(length, "length", minimum=1, maximum=MAX_DENSE_ENTRIES)
        check_size("the scores of Chain (length x n_letters + (length - 1) x n_letters^2)",
                   length * n_letters + (length - 1) * n_letters**2)
        self.scoring = ChainScoring(n_letters, length)
        self._norm = float(np.sqrt(2 * length - 1))

    # ------------------------------------------------------------------ basics
    def check_label(self, y, name: str = "label") -> np.ndarray:
        arr = as_label_array(y, name, booleans=False)
        if arr.shape != (self.length,):
            raise ValueError(
                f"{name} must be an integer array of length {self.length}; got shape {arr.shape}"
            )
        if arr.dtype.kind not in "iuf" or not np.all(np.isfinite(arr)) or not np.all(np.equal(np.mod(arr, 1), 0)):
            raise ValueError(f"{name} must hold integer letters; got {excerpt(arr)}")
        if arr.min() < 0 or arr.max() >= self.n_letters:
            raise ValueError(f"{name} letters must be in 0..{self.n_letters - 1}; got {excerpt(arr)}")
        return arr.astype(np.int64)

    def check_labels(self, Y, inputs) -> np.ndarray:
        arr = as_label_array(Y, "Y", booleans=False)
        check_n_labels(arr, inputs.n)
        return np.array(check_each(arr, self.check_label, "Y"), dtype=np.int64).reshape(len(arr), self.length)

    def _check_prediction(self, sigma, y=None) -> np.ndarray:
        return self.check_label(sigma, "sigma")

    def _split_scores(self, t) -> tuple[np.ndarray, np.ndarray]:
        q, r = self.n_letters, self.length
        t = np.asarray(t, dtype=float)
        return t[: r * q].reshape(r, q), t[r * q:].reshape(r - 1, q, q)

    def _rep(self, sigma) -> np.ndarray:
        sigma = np.asarray(sigma, dtype=np.int64)
        q, r = self.n_letters, self.length
        emission = np.zeros((r, q))
        emission[np.arange(r), sigma] = 1.0
        transition = np.zeros((r - 1, q, q))
        transition[np.arange(r - 1), sigma[:-1], sigma[1:]] = 1.0
        return np.concatenate([emission.ravel(), transition.ravel()]) / self._norm

    def _pred(self, t) -> np.ndarray:
        return _viterbi(*self._split_scores(t))

    def _loss(self, sigma, y) -> float:
        return float(np.count_nonzero(np.asarray(sigma) != np.asarray(y))) / self.length

    def _correct(self, y) -> np.ndarray:
        return np.asarray(y, dtype=np.int64)

    def _oracle(self, t, y) -> np.ndarray:
        emission, transition = self._split_scores(t)
        wrong = np.ones((self.length, self.n_letters)) / self.length
        wrong[np.arange(self.length), np.asarray(y)] = 0.0
        return _viterbi(emission / self._norm + wrong, transition / self._norm)

    def score_sequence(self, t, sigma) -> float:
        """``<rep(sigma), t>``, the score of one sequence (for checks and plots)."""
        return float(self.rep(sigma) @ self.check_scores(t))

    # ------------------------------------------------------------- enumeration
    def _predictions(self, y=None):
        return self._enumerate((np.array(s, dtype=np.int64)
                                for s in itertools.product(range(self.n_letters), repeat=self.length)),
                               "label sequences", self.n_predictions())

    def _n_predictions(self, y=None) -> int:
        return self.n_letters ** self.length

    def n_labels_space(self) -> int:
        return self.n_letters ** self.length

    def labels(self):
        return self.predictions()

    def random_label(self, rng):
        _check_rng(rng)
        return rng.integers(0, self.n_letters, self.length).astype(np.int64)

    def pred_default(self):
        return np.zeros(self.length, dtype=np.int64)

    @property
    def c_L(self) -> float:
        return 1.0 / self.length

    @property
    def C_L(self) -> float:
        return 1.0
