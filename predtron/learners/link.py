"""Predtron.Link (Algorithm 3): the Predtron as online mirror descent with a link function."""

from __future__ import annotations

import numpy as np

from predtron._state import State
from predtron._validation import check_bool
from predtron.learners.base import OnlineLearner
from predtron.links import Link, PNormLink
from predtron.problems.base import Problem


class PredtronLink(OnlineLearner):
    """Predtron.Link: Algorithm 1 run in the dual space of a link ``grad psi``.

    **Reconstructed.** The paper's Algorithm 3 is in its appendix, which is not
    available; this is our reconstruction as online mirror descent, consistent with
    the paper's Section 4, which replaces the update of Algorithm 1 (line 9) by
    ``w_{tau+1} = (grad psi)^{-1}(grad psi(w_tau) - r_tau)``.  The learner keeps the dual
    parameters ``Theta = grad psi(W)`` and applies exactly the Predtron update to them,

        ``Theta_1 = 0``;  on a round with ``L(sigma_tau, y_tau) > 0``:
        ``Theta <- Theta - step * A_{X_tau}^*(rep(sigma~) - rep(sigma_y))``,

    and predicts with ``W = grad psi*(Theta) = link.to_primal(Theta)``.  Since
    ``grad psi(W_tau) = Theta_tau``, this is the paper's update; storing ``Theta``
    avoids applying ``grad psi`` to a rounded ``W`` every round.  ``step`` is ``eta``
    (Algorithm 1) or, with ``loss_driven=True``, ``eta * L(sigma_tau, y_tau)`` (Predtron.LD
    with a link).  With :class:`~predtron.links.EuclideanLink` or ``PNormLink(r=2)`` the
    primal and dual coincide and the learner is :class:`~predtron.learners.predtron.Predtron`
    (or :class:`~predtron.learners.predtron.PredtronLD`) exactly.

    ``psi(W) = 1/2 ||W||_r^2`` with ``r = log p / (log p - 1)`` targets an ``l_1`` margin
    (Corollary 6, extra factor ``9 log p0`` in the bound) and ``psi(W) = 1/2
    ||W||_{2,r}^2`` a group ``(2,1)`` margin (Corollary 8, extra factor ``9 log p``).

    Parameters
    ----------
    problem : Problem
        Any problem of :mod:`predtron.problems`.
    link : Link, optional
        The link :mod:`predtron.links`; default ``PNormLink()`` (the ``l_1``-margin
        choice of Corollary 6, with ``r`` resolved from the number of parameters).
    eta : float, default 1.0
        Step size.
    update : {"oracle", "prediction"}, default "oracle"
        Which prediction enters the update (see
        :class:`~predtron.learners.base.OnlineLearner`).
    loss_driven : bool, default False
        Scale each step by the loss just suffered (Predtron.LD).

    Attributes
    ----------
    theta_ : ndarray
        Dual parameters ``Theta`` of the current iterate.
    coef_ : ndarray
        Primal parameters ``W = link.to_primal(theta_)`` used for prediction (with
        ``average=True``, the average of the primal iterates, kept lazily: the sum is
        brought up to date only on update rounds).
    r_ : float
        Exponent the link uses for parameters of this shape (``link.exponent``).
    loss_history_, n_updates_, n_features_in_
        See :class:`~predtron.learners.base.OnlineLearner`.

    Examples
    --------
    >>> import numpy as np
    >>> from predtron.learners.link import PredtronLink
    >>> from predtron.links import PNormLink
    >>> from predtron.problems import Binary
    >>> X = np.array([[1.0, 0.2], [-1.0, 0.1], [0.9, -0.3]]); Y = [1, -1, 1]
    >>> PredtronLink(Binary(), link=PNormLink(r=1.5)).fit(X, Y, epochs=3).predict(X).tolist()
    [1, -1, 1]
    """

    _state_attributes = ("_theta", "_acc")

    def __init__(self, problem: Problem, link: Link | None = None, eta: float = 1.0,
                 update: str = "oracle", loss_driven: bool = False, *, average: bool = False,
                 shuffle: bool = False, random_state=None, fit_intercept: bool = False,
                 record_losses: bool = True):
        super().__init__(problem, eta=eta, update=update, average=average, shuffle=shuffle,
                         random_state=random_state, fit_intercept=fit_intercept, record_losses=record_losses)
        self.link = link
        self.loss_driven = loss_driven

    def _link(self) -> Link:
        return PNormLink() if self.link is None else self.link

    def _validate_params(self) -> None:
        super()._validate_params()
        if self.link is not None and not isinstance(self.link, Link):
            raise ValueError(
                "link must be a predtron.links.Link instance (e.g. PNormLink(r=1.5)) or None; "
                f"got {type(self.link).__name__}"
            )
        check_bool(self.loss_driven, "loss_driven")

    def _init_state(self, inputs) -> None:
        shape = self.problem.scoring.param_shape(inputs.n_features, inputs.intercept)
        self._theta = inputs.zeros(shape)
        self._primal = self._link()._to_primal(self._theta)
        # Lazy average: _acc = sum of the iterates W_{tau+1} for tau <= _last.
        self._acc = np.zeros(shape) if self.average else None
        self._last = 0
        self._finish_pass()

    @property
    def theta_(self) -> np.ndarray:
        """Dual parameters ``Theta`` of the current iterate (same shape as the full primal ``W``)."""
        self._check_fitted()
        return self._theta

    @property
    def r_(self) -> float:
        """Exponent the link uses for parameters of this shape (``link.exponent``)."""
        self._check_fitted()
        return self._link()._exponent(self._theta.shape)

    def _iterate_scores(self, inputs, rows):
        return inputs.scores(self._primal, rows)

    def _iterate_one(self, inputs, i):
        return inputs.one_scores(self._primal, i)

    def _predictor_scores(self, inputs, rows):
        return inputs.scores(self._params, rows)

    def _apply(self, g, inputs, i, step, tau) -> None:
        if self._acc is not None:
            self._acc += (tau - 1 - self._last) * self._primal
        inputs.add_adjoint(self._theta, g, i, -step)
        self._primal = self._link()._to_primal(self._theta)
        if self._acc is not None:
            self._acc += self._primal
            self._last = tau

    def _finish_pass(self) -> None:
        T = self._trace.n_rounds
        if self._acc is not None and T > 0:
            self._params = (self._acc + (T - self._last) * self._primal) / T
        else:
            self._params = self._primal
        self._coef_views(self._params)

    def _step_scale(self, loss: float) -> float:
        return loss if self.loss_driven else 1.0

    def _get_state(self) -> tuple[dict, dict]:
        scalars, arrays = super()._get_state()
        arrays["theta"] = self._theta
        if self._acc is not None:
            arrays["acc"] = self._acc
        scalars["last"] = int(self._last)
        return scalars, arrays

    def _set_state(self, scalars: dict, arrays: dict) -> None:
        state = State.of(scalars, arrays)
        super()._set_state(state, arrays)
        shape = self._param_shape()
        self._theta = state.array("theta", shape)
        self._primal = self._link()._to_primal(self._theta)
        self._acc = state.array("acc", shape) if self.average else None
        self._last = state.int("last", maximum=self._trace.n_rounds)
        self._finish_pass()
