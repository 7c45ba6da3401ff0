"""scikit-learn-style plumbing shared by every learner of the package.

Constructor parameters are stored as given (``get_params`` reads them back from the
signature), learned state ends in ``_``, ``reset`` forgets it, and ``fit`` is a number
of ``partial_fit`` passes with optional progress lines.
"""

from __future__ import annotations

import inspect
import sys

import numpy as np

from predtron._validation import check_int


class Estimator:
    """Parameters, fitted-state bookkeeping and the multi-pass ``fit`` loop."""

    def get_params(self, deep: bool = True) -> dict:
        """Constructor parameters, as in scikit-learn."""
        names = [p for p in inspect.signature(type(self).__init__).parameters if p != "self"]
        return {name: getattr(self, name) for name in names}

    def set_params(self, **params):
        """Set constructor parameters, as in scikit-learn."""
        valid = self.get_params()
        for key, value in params.items():
            if key not in valid:
                raise ValueError(f"unknown parameter {key!r}; valid parameters are {sorted(valid)}")
            setattr(self, key, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def reset(self):
        """Forget everything learned (every attribute ending in ``_``)."""
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]:
            delattr(self, name)
        return self

    def score(self, X, Y, **kwargs) -> float:
        """Negative mean loss on ``(X, Y)``: higher is better, as scikit-learn's model
        selection expects (``mean_loss`` gives the loss itself)."""
        return -self.mean_loss(X, Y, **kwargs)

    def _check_fitted(self) -> None:
        if not hasattr(self, "n_features_in_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call fit or partial_fit first")

    @property
    def loss_history_(self) -> np.ndarray:
        """Loss suffered in each online round so far."""
        self._check_fitted()
        return np.asarray(self._losses, dtype=float)

    def fit(self, X, Y, epochs: int = 1, verbose: bool = False):
        """Start from scratch and make ``epochs`` online passes over the data in order.

        Parameters
        ----------
        epochs : int
            Number of passes; ``loss_history_`` covers all of them.
        verbose : bool
            Print one line per pass (mean loss and updates) to stderr.
        """
        return self._passes(X, Y, epochs, verbose)

    def _passes(self, X, Y, epochs: int, verbose: bool, **fit_params):
        """Restart, then make ``epochs`` calls of ``partial_fit``; print a line per pass if asked."""
        epochs = check_int(epochs, "epochs", minimum=1)
        self.reset()
        for epoch in range(epochs):
            before = len(getattr(self, "_losses", []))
            updates = getattr(self, "n_updates_", 0)
            self.partial_fit(X, Y, **fit_params)
            if verbose:
                print(
                    f"epoch {epoch + 1}/{epochs}: mean loss {np.mean(self._losses[before:]):.4f}, "
                    f"{self.n_updates_ - updates} updates",
                    file=sys.stderr,
                )
        return self
