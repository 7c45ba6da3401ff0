"""Shared machinery of the online learners: validation, the online loop, history, scoring.

A learner consumes any :class:`~predtron.problems.Problem` through its five operations
and its ``scoring`` map; it never looks at which problem it has.  Subclasses decide
how parameters are stored and updated (primal matrix, mirror-descent dual, kernel
expansion) by implementing :meth:`OnlineLearner._scores` and :meth:`OnlineLearner._apply`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from predtron._estimator import Estimator
from predtron._validation import check_choice, check_each, check_positive
from predtron.problems.base import Problem

UPDATES = ("oracle", "prediction")


class OnlineLearner(Estimator, ABC):
    """Base class of the mistake-driven learners (Algorithm 1 and its variants).

    Parameters
    ----------
    problem : Problem
        The prediction problem.
    eta : float
        Step size ``eta > 0``.
    update : {"oracle", "prediction"}
        Which prediction enters the update on a mistake round: ``"oracle"`` uses the
        loss-augmented argmax ``sigma~`` (Algorithm 1, line 8); ``"prediction"`` uses the
        prediction ``sigma_tau`` itself (the classic perceptron-style variant, whose
        predictions do not depend on ``eta`` because ``W_1 = 0``).

    Attributes
    ----------
    loss_history_ : ndarray of shape (n_rounds,)
        Loss suffered in every online round, in order.
    n_updates_ : int
        Number of rounds with an update (rounds with non-zero loss).
    n_features_in_ : int
        Number of input features seen by the first call to ``partial_fit``.
    """

    #: Whether updates happen exactly on the rounds with a non-zero loss (Algorithm 1).
    mistake_driven: bool = True

    #: Names of the array attributes that hold the learned parameters (for :mod:`predtron.persistence`).
    _state_attributes: tuple[str, ...] = ()

    def __init__(self, problem: Problem, eta: float = 1.0, update: str = "oracle"):
        self.problem = problem
        self.eta = eta
        self.update = update

    # --------------------------------------------------------------- subclasses
    @abstractmethod
    def _init_state(self, n_features: int) -> None:
        """Create the learned state for inputs with ``n_features`` features."""

    @abstractmethod
    def _scores(self, x: np.ndarray) -> np.ndarray:
        """Scores ``t`` of one instance under the current parameters."""

    @abstractmethod
    def _apply(self, g: np.ndarray, x: np.ndarray, step: float) -> None:
        """Move the parameters by ``-step * A_x^*(g)``."""

    def _step_scale(self, loss: float) -> float:
        """Multiplier of ``eta`` on a mistake round (1 for Algorithm 1)."""
        return 1.0

    # ---------------------------------------------------------------- checking
    def _check_problem(self) -> None:
        if not isinstance(self.problem, Problem):
            raise ValueError(
                "problem must be a predtron.problems.Problem instance (e.g. Binary()); "
                f"got {type(self.problem).__name__}"
            )

    def _validate_params(self) -> None:
        self._check_problem()
        check_positive(self.eta, "eta")
        check_choice(self.update, "update", UPDATES)

    def _check_data(self, X, Y=None, qid=None, group=None) -> tuple[list[np.ndarray], list | None]:
        if qid is not None or group is not None:
            X, Y = self.problem.scoring.group_rows(X, Y, qid=qid, group=group)
        xs = self.problem.scoring.split(X)
        if hasattr(self, "n_features_in_"):
            for i, x in enumerate(xs):
                got = self.problem.scoring.n_features(x)
                if got != self.n_features_in_:
                    raise ValueError(
                        f"X[{i}] has {got} features, but this learner was fitted with "
                        f"{self.n_features_in_} features"
                    )
        if Y is None:
            return xs, None
        ys = check_each(Y, self.problem.check_label, "Y", len(xs))
        if hasattr(self.problem, "check_pair"):
            for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
                self.problem.check_pair(x, y, i)
        return xs, ys

    # -------------------------------------------------------------- online loop
    def partial_fit(self, X, Y, *, qid=None, group=None) -> OnlineLearner:
        """One online pass over ``(X, Y)`` in order (Algorithm 1, lines 2-14).

        Parameters
        ----------
        X : array-like
            Inputs in the form the problem's ``scoring`` takes (a 2-D array of shape
            ``(n_samples, n_features)``, or a list of per-instance matrices for ranking).
        Y : sequence
            One label per input, in the problem's label convention.
        qid, group : array-like, optional
            Ranking only: ``X`` is one flat ``(N, p0)`` matrix of documents and ``Y`` their
            ``(N,)`` relevance grades, with a query id per row (``qid``, as XGBoost) or the
            number of rows of each query (``group``, as LightGBM).
        """
        self._validate_params()
        xs, ys = self._check_data(X, Y, qid, group)
        if not hasattr(self, "n_features_in_"):
            if not xs:
                raise ValueError("X is empty; at least one example is needed to start learning")
            self.n_features_in_ = self.problem.scoring.n_features(xs[0])
            self._init_state(self.n_features_in_)
            self._losses: list[float] = []
            self.n_updates_ = 0
        for x, y in zip(xs, ys, strict=True):
            self._round(x, y)
        return self

    def _round(self, x: np.ndarray, y) -> None:
        problem = self.problem
        t = self._scores(x)
        sigma = problem.pred(t)
        loss = float(problem.loss(sigma, y))
        self._losses.append(loss)
        if loss > 0:
            chosen = problem.oracle(t, y) if self.update == "oracle" else sigma
            g = problem.rep(chosen) - problem.rep(problem.correct(y))
            self._apply(g, x, self.eta * self._step_scale(loss))
            self.n_updates_ += 1

    def fit(self, X, Y, epochs: int = 1, verbose: bool = False, *, qid=None, group=None) -> OnlineLearner:
        """Start from ``W_1 = 0`` and make ``epochs`` online passes over the data in order.

        Parameters
        ----------
        epochs : int
            Number of passes; the loss history covers all of them.
        verbose : bool
            Print one line per pass (loss suffered and updates) to stderr.
        qid, group : array-like, optional
            Flat ranking input, as in :meth:`partial_fit`.
        """
        if qid is not None or group is not None:
            X, Y = self.problem.scoring.group_rows(X, Y, qid=qid, group=group)
        return self._passes(X, Y, epochs, verbose)

    # ------------------------------------------------------------- prediction
    def decision_function(self, X, *, qid=None, group=None) -> np.ndarray | list:
        """Scores ``t`` for each input (an array, or a list when sizes differ)."""
        self._check_fitted()
        xs, _ = self._check_data(X, None, qid, group)
        scores = [self._scores(x) for x in xs]
        sizes = {s.shape for s in scores}
        return np.asarray(scores) if len(sizes) <= 1 else scores

    def predict(self, X, *, qid=None, group=None):
        """Predictions ``pred(t)`` for each input (``qid``/``group``: flat ranking input)."""
        self._check_fitted()
        xs, _ = self._check_data(X, None, qid, group)
        return self.problem.stack(self.problem.pred(self._scores(x)) for x in xs)

    def mean_loss(self, X, Y, *, qid=None, group=None) -> float:
        """Mean loss ``L(pred(t), y)`` on ``(X, Y)`` (lower is better; ``score`` is its negative)."""
        self._check_fitted()
        xs, ys = self._check_data(X, Y, qid, group)
        problem = self.problem
        losses = [problem.loss(problem.pred(self._scores(x)), y) for x, y in zip(xs, ys, strict=True)]
        return float(np.mean(losses))


class PrimalLearner(OnlineLearner):
    """An online learner whose parameters are one primal matrix ``coef_`` (``W``).

    ``W_1 = 0`` and an update moves ``W`` by ``-step * A_x^*(g)``; subclasses choose when
    to update and by how much.
    """

    _state_attributes = ("coef_",)

    def _init_state(self, n_features: int) -> None:
        self.coef_ = self.problem.scoring.init_params(n_features)

    def _scores(self, x: np.ndarray) -> np.ndarray:
        return self.problem.scoring.scores(self.coef_, x)

    def _apply(self, g: np.ndarray, x: np.ndarray, step: float) -> None:
        self.coef_ -= step * self.problem.scoring.gradient(g, x)
