"""scikit-learn plumbing shared by every learner of the package.

Every learner is a scikit-learn estimator (``sklearn.base.BaseEstimator``): constructor
parameters are stored as given and validated at fit, ``get_params``/``set_params`` work
with nested names such as ``problem__n_classes``, ``clone`` works, learned state ends in
``_``, and ``score`` is higher-is-better (the negative mean loss; ``mean_loss`` gives the
loss itself).  Losses of the online rounds are kept in a :class:`~predtron._history.LossTrace`.
"""

from __future__ import annotations

import sys

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from predtron._history import LossTrace
from predtron._validation import check_bool, check_int


class Estimator(BaseEstimator):
    """Parameters, fitted-state bookkeeping and the epoch loop every learner's ``fit`` runs."""

    def reset(self):
        """Forget everything learned (every attribute ending in ``_``, and the private state)."""
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]:
            delattr(self, name)
        for name in ("_trace",):
            vars(self).pop(name, None)
        return self

    def _check_fitted(self) -> None:
        if not hasattr(self, "n_features_in_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit or partial_fit first")

    def score(self, X, *args, **kwargs) -> float:
        """Negative mean loss on ``(X, Y)``: higher is better, as scikit-learn's model
        selection expects (``mean_loss`` gives the loss itself; the labels are passed on under
        the name ``mean_loss`` gives them, ``Y`` or ``y``)."""
        return -self.mean_loss(X, *args, **kwargs)

    # ----------------------------------------------------------- loss record
    def _new_trace(self, record: bool = True) -> None:
        self._trace = LossTrace(record)

    @property
    def loss_history_(self) -> np.ndarray:
        """Loss suffered in each online round so far (zeros included)."""
        self._check_fitted()
        return self._trace.history()

    @property
    def n_rounds_(self) -> int:
        """Number of online rounds so far."""
        self._check_fitted()
        return self._trace.n_rounds

    @property
    def cumulative_loss_(self) -> float:
        """Sum of the losses suffered so far (the left side of the paper's mistake bounds)."""
        self._check_fitted()
        return self._trace.total

    @property
    def n_mistakes_(self) -> int:
        """Number of rounds with a non-zero loss."""
        self._check_fitted()
        return self._trace.n_nonzero

    def fit(self, X, Y, epochs: int = 1, verbose: bool = False, *, callback=None):
        """Start from scratch and make ``epochs`` online passes over the data in order.

        Parameters
        ----------
        epochs : int
            Number of passes; ``loss_history_`` covers all of them.
        verbose : bool
            Print one line per pass (mean loss and updates) to stderr.
        callback : callable, optional
            Called as ``callback(learner, epoch)`` after every pass; returning ``True`` stops
            (see :meth:`_run_epochs`).
        """
        epochs, verbose, callback = check_epoch_args(epochs, verbose, callback)
        self.reset()
        self._run_epochs(epochs, self._reported(lambda epoch: self.partial_fit(X, Y), epochs, verbose),
                         callback=callback)
        return self

    def _reported(self, one_pass, epochs: int, verbose: bool):
        """``one_pass`` printing, when ``verbose``, one line per pass to stderr: its mean loss and
        its number of updates."""
        if not verbose:
            return one_pass

        def reported(epoch: int):
            trace = getattr(self, "_trace", None)
            before = (trace.n_rounds, trace.total) if trace is not None else (0, 0.0)
            updates = getattr(self, "n_updates_", 0)
            done = one_pass(epoch)
            print(f"epoch {epoch}/{epochs}: mean loss {self._trace.mean_since(*before):.4f}, "
                  f"{self.n_updates_ - updates} updates", file=sys.stderr)
            return done

        return reported

    def _run_epochs(self, epochs: int, one_pass, *, callback=None) -> None:
        """The epoch loop of every learner of the package (one meaning of ``fit``).

        Calls ``one_pass(epoch)`` for ``epoch = 1, ..., epochs``; after each pass ``n_epochs_``
        counts the passes made and ``callback(self, epoch)`` (when given) may return ``True``
        to stop there (early stopping).  ``one_pass`` returning ``True`` stops too (a learner's
        own convergence: the batch perceptron's sweep without an update).  The arguments are
        trusted (:func:`check_epoch_args` checked them at the public ``fit``).
        """
        for epoch in range(1, epochs + 1):
            done = one_pass(epoch)
            self.n_epochs_ = epoch
            if done is True or (callback is not None and callback(self, epoch) is True):
                break


def check_epoch_args(epochs, verbose, callback, *, minimum: int = 1) -> tuple[int, bool, object]:
    """The arguments every ``fit`` of the package shares, checked: ``epochs`` (passes, an int
    ``>= 1``), ``verbose`` (a bool) and ``callback`` (``callback(learner, epoch)`` or ``None``)."""
    epochs = check_int(epochs, "epochs", minimum=minimum)
    verbose = check_bool(verbose, "verbose")
    if callback is not None and not callable(callback):
        raise ValueError(f"callback must be a callable callback(learner, epoch) or None; got "
                         f"{type(callback).__name__}")
    return epochs, verbose, callback
