"""Algorithm 1 (Predtron) and its loss-driven variant Predtron.LD."""

from __future__ import annotations

from predtron.learners.base import PrimalLearner
from predtron.persistence import saveable


@saveable
class Predtron(PrimalLearner):
    """The Predtron: the perceptron for general prediction problems (Algorithm 1).

    ``W_1 = 0``; on a round with ``L(sigma_tau, y_tau) > 0`` it computes the
    loss-augmented argmax ``sigma~`` and sets
    ``W <- W - eta (rep(sigma~) - rep(sigma_y)) X^T`` (for ranking, ``w <- w - eta X^T
    (rep(sigma~) - rep(sigma_y))``, Corollary 5).  With ``eta = c_L / (4 R^2)`` and data
    separable with margin ``gamma``, Theorem 1 bounds the cumulative loss by
    ``4 R^2 C_L^2 / (c_L gamma^2)`` (:func:`predtron.bounds.theorem1_bound`).

    Parameters
    ----------
    problem : Problem
        Any problem of :mod:`predtron.problems`.
    eta : float, default 1.0
        Step size.
    update : {"oracle", "prediction"}, default "oracle"
        ``"oracle"`` is Algorithm 1; ``"prediction"`` puts the prediction itself in the
        update (perceptron-style).
    average : bool, default False
        Predict with the averaged iterate (averaged perceptron), kept lazily.
    shuffle : bool, default False
        ``fit`` visits the examples in a new random order at every pass.
    random_state : int, numpy Generator or None, default None
        Seed of the shuffling.
    fit_intercept : bool, default False
        Scores ``t = W x + b`` (vector inputs only; ranking scores are shift-invariant).
    record_losses : bool, default True
        Keep the per-round losses for ``loss_history_`` (totals are always kept).
        The defaults are Algorithm 1 exactly; the options and the exact block scan that
        runs the loop are described in :mod:`predtron.learners.base`.

    Attributes
    ----------
    coef_ : ndarray
        The parameters ``W`` used for prediction (``(d, p)`` for vector inputs, ``(p0,)``
        for ranking; the average of the iterates with ``average=True``).
    intercept_ : ndarray of shape (d,)
        The bias ``b`` (with ``fit_intercept=True`` only).
    loss_history_, n_rounds_, cumulative_loss_, n_mistakes_, n_updates_, n_features_in_
        See :class:`~predtron.learners.base.OnlineLearner`.

    Examples
    --------
    >>> import numpy as np
    >>> from predtron import Predtron
    >>> from predtron.problems import Binary
    >>> X = np.array([[1.0, 0.2], [-1.0, 0.1], [0.9, -0.3]]); Y = [1, -1, 1]
    >>> Predtron(Binary()).fit(X, Y, epochs=3).predict(X).tolist()
    [1, -1, 1]
    """



@saveable
class PredtronLD(Predtron):
    """Predtron.LD: the loss-driven Predtron (our derivation; the paper's appendix is unavailable).

    Identical to :class:`Predtron` except that the step on a mistake round is scaled by
    the loss just suffered: ``W <- W - eta L(sigma_tau, y_tau) (rep(sigma~) -
    rep(sigma_y)) X^T``.  Bounds (derived in the book's appendix):

    * with ``update="prediction"``, any ``eta``: ``sum L <= 4 R^2 C_L / gamma^2``;
    * with ``update="oracle"`` and ``eta = 1 / (4 R^2)``: ``sum L^2 <= 4 R^2 C_L^2 /
      gamma^2``, hence ``sum L <= 4 R^2 C_L^2 / (c_L gamma^2)``.

    See :func:`predtron.bounds.loss_driven_bound`.
    """

    _loss_driven_steps = True
