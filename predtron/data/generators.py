"""Seeded generators of linearly separable data with a target margin (Section 2.2)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from predtron._validation import (
    MAX_ABS_INPUT,
    MAX_DENSE_ENTRIES,
    check_int,
    check_positive,
    check_seed,
    check_size,
)
from predtron.learners.base import check_problem
from predtron.problems.base import Problem
from predtron.scoring import VectorScoring


class SeparableData(NamedTuple):
    """A separable data set with the quantities Theorem 1 is stated in.

    Attributes
    ----------
    X : ndarray
        Inputs.
    Y : list
        Labels.
    W_star : ndarray
        A unit-Frobenius-norm parameter with margin ``margin`` on every example.
    margin : float
        The smallest margin of ``W_star`` on the data (at least the requested one).
    radius : float
        ``R = max ||X_tau||``.
    """

    X: np.ndarray
    Y: list
    W_star: np.ndarray
    margin: float
    radius: float


def make_separable(problem: Problem, n_samples: int, n_features: int, margin: float,
                   radius: float = 1.0, seed: int = 0, max_draws: int = 200_000) -> SeparableData:
    """Draw a data set on which a random unit-norm ``W*`` has margin at least ``margin``.

    ``W*`` has i.i.d. Gaussian entries scaled to unit Frobenius norm; inputs are
    uniform on the sphere of radius ``radius``; each input is labelled with a label
    whose correct set contains ``pred(W* x)`` (``problem.label_for``) and kept only
    if ``W* x`` has margin ``>= margin`` on it (rejection sampling).

    Parameters
    ----------
    problem : Problem
        A problem with vector inputs (``t = W x``).
    n_samples, n_features : int
        Size of the data set.
    margin : float
        Target margin ``gamma > 0``; larger margins reject more draws.
    radius : float
        ``R``: every input has exactly this Euclidean norm.
    seed : int
        Seed of the draws.
    max_draws : int
        Give up (with an error naming the acceptance rate) after this many draws.
    """
    if not isinstance(check_problem(problem).scoring, VectorScoring):
        raise ValueError(
            "make_separable draws vector inputs (t = W x); this problem scores "
            f"{type(problem.scoring).__name__} inputs: use its own generator"
        )
    n_samples = check_int(n_samples, "n_samples", minimum=1, maximum=MAX_DENSE_ENTRIES)
    n_features = check_int(n_features, "n_features", minimum=1, maximum=MAX_DENSE_ENTRIES)
    check_size("n_samples x n_features", n_samples, n_features)
    margin = check_positive(margin, "margin", maximum=MAX_ABS_INPUT)
    radius = check_positive(radius, "radius", maximum=MAX_ABS_INPUT)
    max_draws = check_int(max_draws, "max_draws", minimum=1)
    rng = np.random.default_rng(check_seed(seed))
    W = rng.standard_normal((problem.scoring.dim, n_features))
    W /= np.linalg.norm(W)
    X, Y, margins, draws = [], [], [], 0
    while len(X) < n_samples:
        if draws >= max_draws:
            raise ValueError(
                f"only {len(X)} of {n_samples} inputs reached margin {margin:g} in {draws} draws "
                f"(n_samples={n_samples}, max_draws={max_draws}); ask for a smaller margin, a larger radius, fewer "
                "features or more draws"
            )
        x = rng.standard_normal(n_features)
        x *= radius / np.linalg.norm(x)
        draws += 1
        t = W @ x
        y = problem.label_for(problem.pred(t))
        if y is None:
            continue
        gamma = problem.margin(t, y)
        if gamma >= margin:
            X.append(x)
            Y.append(y)
            margins.append(gamma)
    return SeparableData(np.array(X), Y, W, float(min(margins)), radius)


def make_noisy(problem: Problem, n_samples: int, n_features: int, noise: float = 0.8,
               seed: int = 0) -> tuple[np.ndarray, list]:
    """A non-separable data set: labels of a random linear model with Gaussian score noise.

    Inputs are standard Gaussian; the label of ``x`` is ``label_for(pred(W x + noise))``
    with ``W`` standard Gaussian (a random label where no label fits).  Learners make
    many updates on such a stream, which makes it the usual input of equivalence tests.

    Parameters
    ----------
    problem : Problem
        A problem with vector inputs.
    n_samples, n_features : int
        Size of the data set.
    noise : float
        Standard deviation of the Gaussian noise added to each score.
    seed : int
        Seed of the draws.
    """
    if not isinstance(check_problem(problem).scoring, VectorScoring):
        raise ValueError(f"make_noisy draws vector inputs; this problem scores {type(problem.scoring).__name__} inputs")
    n_samples = check_int(n_samples, "n_samples", minimum=1, maximum=MAX_DENSE_ENTRIES)
    n_features = check_int(n_features, "n_features", minimum=1, maximum=MAX_DENSE_ENTRIES)
    check_size("n_samples x n_features", n_samples, n_features)
    noise = check_positive(noise, "noise", allow_zero=True, maximum=1e50)
    rng = np.random.default_rng(check_seed(seed))
    X = rng.standard_normal((n_samples, n_features))
    W = rng.standard_normal((problem.scoring.dim, n_features))
    scores = X @ W.T + noise * rng.standard_normal((n_samples, W.shape[0]))
    labels = [problem.label_for(problem.pred(t)) for t in scores]
    return X, [y if y is not None else problem.random_label(rng) for y in labels]
