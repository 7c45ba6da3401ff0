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

from predtron._history import LossTrace
from predtron._state import State, trace_state
from predtron._validation import as_finite_array, check_bool, check_int, check_positive
from predtron.learners.base import OnlineLearner, _check_finite_scores, check_problem
from predtron.problems.base import Problem


def _restore_rng(saved) -> np.random.Generator:
    """A PCG64 generator from its saved ``bit_generator.state`` (the structure is checked first)."""
    ok = (isinstance(saved, dict) and saved.get("bit_generator") == "PCG64" and isinstance(saved.get("state"), dict)
          and all(isinstance(saved["state"].get(k), int) and not isinstance(saved["state"].get(k), bool)
                  and 0 <= saved["state"][k] < 2**128 for k in ("state", "inc"))
          and saved.get("has_uint32") in (0, 1) and isinstance(saved.get("uinteger"), int)
          and not isinstance(saved.get("uinteger"), bool) and 0 <= saved["uinteger"] < 2**32)
    if not ok:
        raise ValueError("state entry 'rng' must be the state of a PCG64 generator (numpy.random.default_rng)")
    rng = np.random.default_rng()
    rng.bit_generator.state = saved
    return rng


#: Smallest regularisation accepted.
MIN_LAM = 1e-100


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
    problem = check_problem(problem)
    inputs = problem.scoring.prepare(X)
    labels = problem.check_labels(Y, inputs)
    params = as_finite_array(params, "params")
    expected = problem.scoring.param_shape(inputs.n_features)
    if params.shape != expected:
        raise ValueError(f"params must have shape {expected} for inputs X of {inputs.n_features} features; got "
                         f"{params.shape}")
    return np.array([problem._surrogate(inputs.one_scores(params, i), labels[i]) for i in range(inputs.n)])


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

    # Fixed settings of the shared online machinery (SGD samples examples itself).
    eta = 1.0
    update = "oracle"
    shuffle = False
    random_state = None
    fit_intercept = False
    record_losses = True

    def __init__(self, problem: Problem, lam: float = 0.01, average: bool = True, seed: int = 0):
        self.problem = problem
        self.lam = lam
        self.average = average
        self.seed = seed

    def _validate_params(self) -> None:
        check_problem(self.problem)
        # lam >= 1e-100 keeps the iterates theta / (lam t) of finite inputs finite.
        check_positive(self.lam, "lam", minimum=MIN_LAM)
        check_bool(self.average, "average")
        check_int(self.seed, "seed", minimum=0)

    def _init_state(self, inputs) -> None:
        shape = self.problem.scoring.param_shape(inputs.n_features)
        self._theta = np.zeros(shape)
        self._w_sum = np.zeros(shape)
        self._rng = np.random.default_rng(self.seed)
        self._hinge = LossTrace(True)
        self.n_iter_ = 0
        self._params = self._theta.copy()
        self._coef_views(self._params)

    def _iterate_scores(self, inputs, rows):
        return inputs.scores(self._theta / (self.lam * max(self.n_iter_ - 1, 1)), rows)

    def _predictor_scores(self, inputs, rows):
        return inputs.scores(self._params, rows)

    def _apply(self, g, inputs, i, step, tau) -> None:
        inputs.add_adjoint(self._theta, g, i, -step)

    def _pass(self, inputs, labels, order, progress=None) -> None:
        """``n`` SGD steps, each on an example drawn uniformly from the data."""
        problem = self.problem
        for _ in range(inputs.n):
            self.n_iter_ += 1
            w = self._theta / (self.lam * max(self.n_iter_ - 1, 1))
            i = int(self._rng.integers(inputs.n))
            y = labels[i]
            t = inputs.one_scores(w, i)
            _check_finite_scores(t, self)
            self._trace.add(float(problem._loss(problem._pred(t), y)))
            tilde = problem._oracle(t, y)
            self._hinge.add(problem._objective(tilde, t, y))
            g = problem._direction(t, y, tilde)
            if np.any(g != 0):
                self._apply(g, inputs, i, 1.0, self.n_iter_)
                self.n_updates_ += 1
            self._w_sum += w
            if progress is not None:
                progress.update(1)

    def _finish_pass(self) -> None:
        if self.n_iter_ == 0:
            return
        last = self._theta / (self.lam * self.n_iter_)
        self._params = self._w_sum / self.n_iter_ if self.average else last
        self._coef_views(self._params)

    def _get_state(self) -> tuple[dict, dict]:
        scalars, arrays = super()._get_state()
        hinge_scalars, hinge_arrays = trace_state(self._hinge, "hinge")
        arrays.update(theta=self._theta, w_sum=self._w_sum, **hinge_arrays)
        scalars.update(n_iter_=int(self.n_iter_), rng=self._rng.bit_generator.state, **hinge_scalars)
        return scalars, arrays

    def _set_state(self, scalars: dict, arrays: dict) -> None:
        state = State.of(scalars, arrays)
        super()._set_state(state, arrays)
        shape = self._param_shape()
        self._theta = state.array("theta", shape)
        self._w_sum = state.array("w_sum", shape)
        self.n_iter_ = state.int("n_iter_")
        if self.n_iter_ != self._trace.n_rounds:
            raise ValueError(f"state entry 'n_iter_' ({self.n_iter_}) must equal the number of rounds "
                             f"({self._trace.n_rounds})")
        self._rng = _restore_rng(state.value("rng"))
        self._hinge = state.trace("hinge")
        if not self._hinge.record or self._hinge.n_rounds != self.n_iter_:
            raise ValueError("state entries hinge_* must record every one of the n_iter_ rounds")
        self._params = self._theta.copy()
        self._finish_pass()

    def partial_fit(self, X, Y, *, qid=None, group=None) -> SGDSVM:
        """``len(X)`` more SGD steps, each on an example drawn uniformly from ``(X, Y)``
        (``qid``/``group``: flat ranking input, as in the other learners)."""
        return super().partial_fit(X, Y, qid=qid, group=group)

    def fit(self, X, Y, epochs: int = 1, verbose: bool = False, *, qid=None, group=None,
            callback=None) -> SGDSVM:
        """Start from ``theta = 0`` and make ``T = epochs * len(X)`` SGD steps (``qid``,
        ``group``, ``callback`` as in the other learners' ``fit``)."""
        return super().fit(X, Y, epochs=epochs, verbose=verbose, qid=qid, group=group, callback=callback)

    @property
    def hinge_history_(self) -> np.ndarray:
        """The generalized hinge of the example drawn at each step, under ``w_t``."""
        self._check_fitted()
        return self._hinge.history()

    def objective(self, X, Y) -> float:
        """``(lambda / 2) ||w||^2 + mean generalized hinge`` at the output parameters."""
        self._check_fitted()
        hinge = generalized_hinge(self.problem, self.coef_, X, Y)
        return float(0.5 * self.lam * np.sum(self.coef_ ** 2) + hinge.mean())
