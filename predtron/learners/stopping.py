"""Early stopping of a multi-pass fit on the online loss (scikit-learn's ``tol`` / ``n_iter_no_change``)."""

from __future__ import annotations

import numpy as np

from predtron._validation import check_int, check_positive

__all__ = ["EarlyStopping"]


class EarlyStopping:
    """Stop once the mean loss of a pass has not improved on the best pass by ``tol`` for
    ``patience`` passes in a row (scikit-learn's ``tol`` / ``n_iter_no_change``).

    With ``relative=True`` the required improvement is ``tol`` times the mean loss of the
    first pass the rule sees, so the rule does not depend on the units of the loss (the
    normalised Hamming loss of text with rare labels is some twenty times smaller than that
    of dense data with frequent ones, and no absolute ``tol`` suits both).

    The mean loss of a pass is read from the learner's running totals (``n_rounds_``,
    ``cumulative_loss_``); :meth:`state` and :meth:`restore` carry the rule across a
    checkpoint.
    """

    def __init__(self, tol: float, patience: int, relative: bool = False):
        self.tol = check_positive(tol, "tol", allow_zero=True)
        self.patience = check_int(patience, "n_iter_no_change", minimum=1)
        self.relative = bool(relative)
        self.best, self.stall, self.rounds, self.total = np.inf, 0, 0, 0.0
        self.scale = None if self.relative else 1.0

    def __call__(self, learner, epoch: int | None = None) -> bool:
        """Record the pass just made by ``learner``; whether to stop."""
        return self.update(learner.n_rounds_, learner.cumulative_loss_)

    def update(self, n_rounds: int, cumulative_loss: float) -> bool:
        """Record a pass from the fit's running totals (rounds and cumulative loss so far, as
        ``learner.n_rounds_`` and ``learner.cumulative_loss_``); whether to stop.  For drivers
        whose totals are not a learner's (iterative parameter mixing)."""
        rounds, total = n_rounds, cumulative_loss
        mean = (total - self.total) / max(rounds - self.rounds, 1)
        self.rounds, self.total = rounds, total
        if self.scale is None:  # relative: the first pass sets the unit of the loss
            self.scale = float(mean)
        # A loss is never negative: after a pass without loss no pass can improve, whatever ``tol``
        # (with ``tol=0``, or a relative ``tol`` whose first pass had no loss, a run of passes
        # without loss would otherwise count as improvements and make every pass of ``epochs``).
        stalled = mean > self.best - self.tol * self.scale or self.best <= 0
        self.stall = self.stall + 1 if stalled else 0
        self.best = min(self.best, mean)
        return bool(self.stall >= self.patience)

    def state(self) -> dict:
        """The rule's running values as JSON (for a checkpoint)."""
        return {"best": None if not np.isfinite(self.best) else float(self.best), "stall": self.stall,
                "rounds": int(self.rounds), "total": float(self.total), "scale": self.scale}

    @staticmethod
    def state_problem(state) -> str | None:
        """What is wrong with ``state`` as a checkpoint's record of :meth:`state`, or ``None``.

        ``best`` and ``scale`` are finite numbers or null, ``total`` a finite number, ``stall``
        and ``rounds`` whole numbers ``>= 0`` (a hand-edited value such as ``Infinity``, ``-1``
        or ``1.5`` would otherwise fail in :meth:`restore` or make the rule count wrongly).

        Examples
        --------
        >>> EarlyStopping.state_problem({"best": None, "stall": 1, "rounds": 30, "total": 2.5, "scale": 1.0}) is None
        True
        >>> EarlyStopping.state_problem({"best": None, "stall": 1.5, "rounds": 30, "total": 2.5})
        "'stall' must be a whole number >= 0; got 1.5"
        """
        if not isinstance(state, dict):
            return f"it must be the stopping rule's state (best, stall, rounds, total); got {str(state)[:80]}"
        for key in ("best", "stall", "rounds", "total", "scale"):
            if key not in state:
                if key == "scale":  # a checkpoint written before the relative rule has none
                    continue
                return f"it has no {key!r}"
            value = state[key]
            if key in ("stall", "rounds"):
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    return f"{key!r} must be a whole number >= 0; got {str(value)[:40]}"
            elif not ((value is None and key != "total") or (isinstance(value, int | float)
                                                             and not isinstance(value, bool) and np.isfinite(value))):
                what = "a finite number" if key == "total" else "a finite number or null"
                return f"{key!r} must be {what}; got {str(value)[:40]}"
        return None

    def restore(self, state: dict) -> EarlyStopping:
        """Continue from :meth:`state` (a checkpoint's); returns the rule itself."""
        self.best = np.inf if state["best"] is None else float(state["best"])
        self.stall, self.rounds, self.total = int(state["stall"]), int(state["rounds"]), float(state["total"])
        if state.get("scale") is not None:  # a checkpoint written before the relative rule has none
            self.scale = float(state["scale"])
        return self
