"""The multiclass SVM of UML Section 17.2.5, trained by stochastic gradient descent, for any problem.

The objective is regularised empirical risk with the generalized hinge loss,

    F(w) = (lambda / 2) ||w||^2 + (1/m) sum_i phi(A_{x_i}(w), y_i),
    phi(t, y) = max_sigma [ L(sigma, y) - <rep(sigma_y) - rep(sigma), t> ],

where ``phi`` is the Predtron surrogate eq. (2); with a class-sensitive feature map
(:class:`~predtron.problems.joint.JointMulticlass`) it is exactly the textbook's
``max_y' [Delta(y', y) + <w, Psi(x, y') - Psi(x, y)>]``.  A subgradient of ``phi`` at
``w`` is ``A_x^*(rep(sigma~) - rep(sigma_y))`` with ``sigma~`` the problem's oracle, so
the learner needs nothing but the problem's five operations: it works for multiclass,
chains, multilabel measures alike.

The textbook writes the regulariser as ``lambda ||w||^2``; we use ``(lambda / 2)
||w||^2``, the form of its SGD for regularised loss minimisation (UML Section 14.5.3),
whose analysis (UML Theorem 14.11) takes the step sizes ``eta_t = 1 / (lambda t)``
(``lambda`` here is twice the chapter-17 one).  Those steps give ``w_{t+1} = theta_{t+1} /
(lambda t)``; the lazy form ``w_t = theta_t / (lambda t)`` would be SGD with the shifted
steps ``1 / (lambda (t + 1))``.
"""

from __future__ import annotations

import numpy as np

from predtron._validation import check_int, check_positive
from predtron.learners.base import OnlineLearner
from predtron.problems.base import Problem


def generalized_hinge(problem: Problem, params: np.ndarray, X, Y) -> np.ndarray:
    """``phi(A_{x_i}(params), y_i)`` for every example: the generalized hinge loss (Section 17.2.4).

    Parameters
    ----------
    problem : Problem
        Any problem; its ``scoring`` turns ``params`` and an input into scores.
    params : ndarray
        Parameters in the layout of ``problem.scoring.init_params``.
    X, Y : array-like, sequence
        Inputs and labels.

    Returns
    -------
    ndarray of shape (n_samples,)
        Each value is ``>= L(pred(t), y) >= 0``.
    """
    xs = problem.scoring.split(X)
    if len(Y) != len(xs):
        raise ValueError(f"X and Y must have the same number of examples; got {len(xs)} and {len(Y)}")
    params = np.asarray(params, dtype=float)
    return np.array([problem.surrogate(problem.scoring.scores(params, x), problem.check_label(y))
                     for x, y in zip(xs, Y, strict=True)])


class SGDSVM(OnlineLearner):
    """Regularised generalized-hinge minimisation by SGD (UML Sections 17.2.5 and 14.5.3).

    ``theta_1 = 0``; for ``t = 1..T``: ``w_t = theta_t / (lambda max(t - 1, 1))`` (so that
    ``w_{t+1} = w_t - (lambda w_t + v_t) / (lambda t)``, SGD with ``eta_t = 1 / (lambda t)``
    on ``F``); draw ``i`` uniformly;
    ``v_t = A_{x_i}^*(rep(sigma~) - rep(sigma_{y_i}))`` with ``sigma~ = oracle(A_{x_i}(w_t),
    y_i)``; ``theta_{t+1} = theta_t - v_t``.  The output is the average ``(1/T) sum_t w_t``
    (or the last iterate ``w_{T+1}`` with ``average=False``).  With ``||rep|| = 1`` and ``||A_x^*|| <=
    R`` the subgradients have norm ``<= 2 R``, and the textbook's analysis gives, for
    ``T >= B^2 rho^2 / eps^2``, expected excess generalized-hinge risk ``<= eps`` over
    ``||w|| <= B``.

    Parameters
    ----------
    problem : Problem
        Any problem of :mod:`predtron.problems`.
    lam : float, default 0.01
        ``lambda > 0``.
    average : bool, default True
        Output the averaged iterate (the textbook's) or the last one.
    seed : int, default 0
        Seed of the uniform draws of examples.

    Attributes
    ----------
    coef_ : ndarray
        The output parameters.
    n_iter_ : int
        ``T``, the number of SGD steps made.
    loss_history_ : ndarray of shape (T,)
        ``L(pred(t), y)`` of the example drawn at each step, under ``w_t``.
    hinge_history_ : ndarray of shape (T,)
        The generalized hinge of the example drawn at each step, under ``w_t``.
    n_updates_ : int
        Steps with a non-zero subgradient of the hinge.
    """

    mistake_driven = False

    def __init__(self, problem: Problem, lam: float = 0.01, average: bool = True, seed: int = 0):
        self.problem = problem
        self.lam = lam
        self.average = average
        self.seed = seed

    def _validate_params(self) -> None:
        self._check_problem()
        check_positive(self.lam, "lam")
        check_int(self.seed, "seed", minimum=0)

    def _init_state(self, n_features: int) -> None:
        self._theta = self.problem.scoring.init_params(n_features)
        self._w_sum = np.zeros_like(self._theta)
        self._rng = np.random.default_rng(self.seed)
        self._hinges: list[float] = []
        self.n_iter_ = 0
        self.coef_ = self._theta.copy()

    def _scores(self, x: np.ndarray) -> np.ndarray:
        return self.problem.scoring.scores(self.coef_, x)

    def _apply(self, g: np.ndarray, x: np.ndarray, step: float) -> None:
        self._theta -= step * self.problem.scoring.gradient(g, x)

    def partial_fit(self, X, Y) -> SGDSVM:
        """``len(X)`` more SGD steps, each on an example drawn uniformly from ``(X, Y)``."""
        self._validate_params()
        xs, ys = self._check_data(X, Y)
        if not xs:
            raise ValueError("X is empty; at least one example is needed to start learning")
        if not hasattr(self, "n_features_in_"):
            self.n_features_in_ = self.problem.scoring.n_features(xs[0])
            self._init_state(self.n_features_in_)
            self._losses = []
            self.n_updates_ = 0
        problem, scoring = self.problem, self.problem.scoring
        for _ in range(len(xs)):
            self.n_iter_ += 1
            w = self._theta / (self.lam * max(self.n_iter_ - 1, 1))
            i = int(self._rng.integers(len(xs)))
            x, y = xs[i], ys[i]
            t = scoring.scores(w, x)
            self._losses.append(float(problem.loss(problem.pred(t), y)))
            tilde = problem.oracle(t, y)
            self._hinges.append(problem.objective(tilde, t, y))
            g = problem.rep(tilde) - problem.rep(problem.correct(y))
            if np.any(g != 0):
                self._apply(g, x, 1.0)
                self.n_updates_ += 1
            self._w_sum += w
        last = self._theta / (self.lam * self.n_iter_)
        self.coef_ = self._w_sum / self.n_iter_ if self.average else last
        return self

    def fit(self, X, Y, epochs: int = 1, verbose: bool = False) -> SGDSVM:
        """Start from ``theta = 0`` and make ``T = epochs * len(X)`` SGD steps."""
        return super().fit(X, Y, epochs=epochs, verbose=verbose)

    @property
    def hinge_history_(self) -> np.ndarray:
        self._check_fitted()
        return np.asarray(self._hinges, dtype=float)

    def objective(self, X, Y) -> float:
        """``(lambda / 2) ||w||^2 + mean generalized hinge`` at the output parameters."""
        self._check_fitted()
        hinge = generalized_hinge(self.problem, self.coef_, X, Y)
        return float(0.5 * self.lam * np.sum(self.coef_ ** 2) + hinge.mean())
