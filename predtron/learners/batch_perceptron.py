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

from predtron._estimator import check_epoch_args
from predtron._state import State
from predtron._validation import check_int
from predtron.learners.base import PrimalLearner, _check_finite_scores, check_problem
from predtron.persistence import saveable
from predtron.problems.base import TIE_TOLERANCE, Problem


class NotSeparatedWarning(UserWarning):
    """The batch perceptron stopped at ``max_epochs`` with violated examples left."""


@saveable
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

    # Fixed settings of the shared online machinery: plain iterate, no intercept, stream order.
    eta = 1.0
    update = "prediction"
    average = False
    shuffle = False
    random_state = None
    fit_intercept = False
    record_losses = True

    def __init__(self, problem: Problem, max_epochs: int = 1000):
        self.problem = problem
        self.max_epochs = max_epochs

    def _validate_params(self) -> None:
        check_problem(self.problem)
        check_int(self.max_epochs, "max_epochs", minimum=1)

    def violation(self, t, y):
        """A prediction with positive loss scoring at least ``<rep(sigma_y), t>``, or ``None``."""
        y = self.problem.check_label(y)
        return self._violation(self.problem.check_scores(t, y), y)

    def _violation(self, t: np.ndarray, y):
        problem = self.problem
        rep_y = problem._rep(problem._correct(y))
        scale = float(np.max(np.abs(t), initial=0.0))
        # Shift the correct representation down by a tolerance relative to the scores, so
        # that ties count as violations whatever the scale of the data (at t = 0 every
        # prediction ties, and any positive shift finds a violating one).
        eps = 1e3 * TIE_TOLERANCE * scale if scale > 0 else 1.0
        sigma = problem._pred(np.asarray(t, dtype=float) - eps * rep_y)
        return sigma if problem._loss(sigma, y) > 0 else None

    def _pass(self, inputs, labels, order, progress=None) -> None:
        problem = self.problem
        for r in range(inputs.n):
            t = inputs.one_scores(self._w, r)
            _check_finite_scores(t, self)
            y = labels[r]
            self._trace.add(float(problem._loss(problem._pred(t), y)))
            sigma = self._violation(t, y)
            if sigma is not None:
                inputs.add_adjoint(self._w, problem._direction(t, y, sigma), r, -1.0)
                self.n_updates_ += 1
                self._sweep_updates += 1
            if progress is not None:
                progress.update(1)

    def _get_state(self) -> tuple[dict, dict]:
        scalars, arrays = super()._get_state()
        scalars.update(converged_=bool(getattr(self, "converged_", False)),
                       n_epochs_=int(getattr(self, "n_epochs_", 0)))
        return scalars, arrays

    def _set_state(self, scalars: dict, arrays: dict) -> None:
        state = State.of(scalars, arrays)
        super()._set_state(state, arrays)
        self.converged_ = state.bool("converged_")
        self.n_epochs_ = state.int("n_epochs_")

    def partial_fit(self, X, Y) -> BatchPerceptron:
        """One sweep over ``(X, Y)`` in order, updating on every violated example."""
        self._sweep_updates = 0
        return super().partial_fit(X, Y)

    def fit(self, X, Y, epochs: int | None = None, verbose: bool = False, *, callback=None) -> BatchPerceptron:
        """Start from ``w = 0`` and sweep until a sweep makes no update or ``epochs`` sweeps are made.

        Parameters
        ----------
        epochs : int, optional
            Most sweeps (default ``max_epochs``).
        verbose : bool
            Print the number of updates of every sweep to stderr.
        callback : callable, optional
            ``callback(learner, epoch)`` after every sweep; ``True`` stops (as every ``fit``).
        """
        if isinstance(epochs, (bool, np.bool_)):  # the signature before epochs: fit(X, Y, verbose)
            warnings.warn("BatchPerceptron.fit(X, Y, verbose) with verbose as the third positional argument is "
                          "deprecated: the third argument of every fit is epochs; pass verbose=True by keyword",
                          DeprecationWarning, stacklevel=2)
            epochs, verbose = None, bool(epochs)
        self._validate_params()
        epochs, verbose, callback = check_epoch_args(int(self.max_epochs) if epochs is None else epochs, verbose,
                                                     callback)
        self.reset()
        inputs, labels = self._prepare(X, Y, fitting=True)
        if inputs.n == 0:
            raise ValueError("X is empty; at least one example is needed to learn")
        self._start(inputs)
        self.converged_ = False
        self.n_epochs_ = 0

        def sweep(epoch: int) -> bool:
            self._sweep_updates = 0
            self._pass(inputs, labels, None)
            if verbose:
                print(f"sweep {epoch}: {self._sweep_updates} updates", file=sys.stderr)
            self.converged_ = self._sweep_updates == 0
            return self.converged_

        self._run_epochs(epochs, sweep, callback=callback)
        self._finish_pass()
        if not self.converged_ and self.n_epochs_ == epochs:  # not stopped early by the callback
            limit = f"max_epochs={self.max_epochs}" if epochs == self.max_epochs else f"epochs={epochs}"
            warnings.warn(
                f"the batch perceptron still had violated examples after {limit} "
                "sweeps: the data are not separated by the current w (they may not be separable, or "
                "need more sweeps); converged_ is False",
                NotSeparatedWarning, stacklevel=2,
            )
        return self
