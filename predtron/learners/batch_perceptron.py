"""The multiclass batch perceptron of UML Section 17.2.3, for any problem.

Starting from ``w = 0``, it looks for a training example that the current ``w`` does
not separate -- some wrong prediction scores at least as high as the correct one,
``<rep(sigma_y), t> <= <rep(sigma), t>`` -- and moves ``w`` by ``A_x^*(rep(sigma_y) -
rep(sigma))``: with the standard-basis representation of
:class:`~predtron.problems.joint.JointMulticlass` this is the textbook's
``w <- w + Psi(x_i, y_i) - Psi(x_i, y)``.  It stops when no example is violated.  If
the data are separable with margin ``gamma`` (in the framework's sense, Section 2.2)
and ``||A_x^*|| <= R``, the classical perceptron argument bounds the number of updates
by ``(2 R / gamma)^2`` -- the mistake bound of :class:`~predtron.learners.Predtron`
with ``update="prediction"``.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from predtron._validation import check_int
from predtron.learners.base import PrimalLearner
from predtron.problems.base import TIE_TOLERANCE, Problem


class NotSeparatedWarning(UserWarning):
    """The batch perceptron stopped at ``max_epochs`` with violated examples left."""


class BatchPerceptron(PrimalLearner):
    """Multiclass batch perceptron: sweep the data until no example is violated.

    An example ``(x, y)`` is *violated* when some prediction with positive loss scores
    at least as high as ``sigma_y``.  The violating prediction is found problem-agnostically
    as ``pred(t - eps rep(sigma_y))`` with ``eps`` at the tie tolerance, so ties count
    as violations (as in the textbook's ``<=``) and ``w = 0`` violates every example.

    Parameters
    ----------
    problem : Problem
        Any problem (its ``pred`` is the only search used).
    max_epochs : int, default 1000
        Stop after this many sweeps even if examples are still violated; then
        ``converged_`` is ``False`` and a :class:`NotSeparatedWarning` is issued.

    Attributes
    ----------
    coef_ : ndarray
        The parameters ``w``.
    converged_ : bool
        Whether the last sweep found no violated example (the data are separated).
    n_epochs_ : int
        Number of sweeps made (the last one has no update when ``converged_``).
    n_updates_ : int
        Total number of updates.
    loss_history_ : ndarray
        Loss ``L(pred(t), y)`` of every visited example, in order.
    """

    mistake_driven = False

    def __init__(self, problem: Problem, max_epochs: int = 1000):
        self.problem = problem
        self.max_epochs = max_epochs

    def _validate_params(self) -> None:
        self._check_problem()
        check_int(self.max_epochs, "max_epochs", minimum=1)


    def violation(self, t: np.ndarray, y):
        """A prediction with positive loss scoring at least ``<rep(sigma_y), t>``, or ``None``."""
        problem = self.problem
        rep_y = problem.rep(problem.correct(y))
        eps = 1e3 * TIE_TOLERANCE * (1.0 + float(np.max(np.abs(t), initial=0.0)))
        sigma = problem.pred(np.asarray(t, dtype=float) - eps * rep_y)
        return sigma if problem.loss(sigma, y) > 0 else None

    def _round(self, x: np.ndarray, y) -> None:
        problem = self.problem
        t = self._scores(x)
        self._losses.append(float(problem.loss(problem.pred(t), y)))
        sigma = self.violation(t, y)
        if sigma is not None:
            self._apply(problem.rep(sigma) - problem.rep(problem.correct(y)), x, 1.0)
            self.n_updates_ += 1
            self._sweep_updates += 1

    def partial_fit(self, X, Y) -> BatchPerceptron:
        """One sweep over ``(X, Y)`` in order, updating on every violated example."""
        self._sweep_updates = 0
        return super().partial_fit(X, Y)

    def fit(self, X, Y, verbose: bool = False) -> BatchPerceptron:
        """Start from ``w = 0`` and sweep until a sweep makes no update or ``max_epochs`` is reached."""
        self._validate_params()
        self.reset()
        self.converged_ = False
        self.n_epochs_ = 0
        for _ in range(self.max_epochs):
            self.partial_fit(X, Y)
            self.n_epochs_ += 1
            if verbose:
                print(f"sweep {self.n_epochs_}: {self._sweep_updates} updates", file=sys.stderr)
            if self._sweep_updates == 0:
                self.converged_ = True
                break
        if not self.converged_:
            warnings.warn(
                f"the batch perceptron still had violated examples after max_epochs={self.max_epochs} "
                "sweeps: the data may not be separable (converged_ is False)",
                NotSeparatedWarning, stacklevel=2,
            )
        return self
