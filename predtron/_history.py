"""Losses of an online run, kept compactly.

A long stream must not cost memory per example.  :class:`LossTrace` keeps running totals
(rounds, cumulative loss, rounds with a non-zero loss) and, when recording, only the
rounds with a non-zero loss as two growing arrays (16 bytes per such round; a round with
zero loss costs nothing).  The full per-round history, zeros included, is rebuilt on
demand for plots such as the cumulative-loss curves of Theorem 1.
"""

from __future__ import annotations

import numpy as np

from predtron.engine import running_sum

#: Losses of one call of :meth:`LossTrace.extend` added in Python (the same additions, in the
#: same order, as :func:`predtron.engine.running_sum`, which takes more).
_SMALL = 256


class LossTrace:
    """Running totals and, optionally, the non-zero losses of every round.

    Parameters
    ----------
    record : bool
        Keep the rounds with a non-zero loss (needed for :meth:`history`).
    """

    __slots__ = ("_losses", "_rounds", "_size", "n_nonzero", "n_rounds", "record", "total")

    def __init__(self, record: bool = True):
        self.record = bool(record)
        self.n_rounds = 0
        self.total = 0.0
        self.n_nonzero = 0
        self._rounds = np.empty(16 if record else 0, dtype=np.int64)
        self._losses = np.empty(16 if record else 0, dtype=np.float64)
        self._size = 0

    def skip(self, count: int) -> None:
        """``count`` rounds with zero loss."""
        self.n_rounds += int(count)

    def add(self, loss: float) -> None:
        """One round with loss ``loss``."""
        self.n_rounds += 1
        if loss == 0:
            return
        self.total += loss
        self.n_nonzero += 1
        if self.record:
            if self._size == len(self._rounds):
                self._rounds = np.resize(self._rounds, 2 * self._size)
                self._losses = np.resize(self._losses, 2 * self._size)
            self._rounds[self._size] = self.n_rounds
            self._losses[self._size] = loss
            self._size += 1

    def extend(self, count: int, rounds: np.ndarray, losses: np.ndarray) -> None:
        """``count`` more rounds, with non-zero ``losses`` at the 1-based ``rounds`` among them
        (what a compiled pass returns); the same totals as ``add`` round by round."""
        start = self.n_rounds
        losses = np.asarray(losses, dtype=np.float64)
        if len(losses) <= _SMALL:  # the same left-to-right additions, without a kernel's dispatch
            total = float(self.total)
            for value in losses.tolist():
                total += value
            self.total = total
        else:
            self.total = float(running_sum(float(self.total), losses))
        self.n_nonzero += len(losses)
        self.n_rounds = start + int(count)
        if self.record and len(rounds):
            need = self._size + len(rounds)
            if need > len(self._rounds):
                size = max(need, 2 * len(self._rounds))
                self._rounds = np.resize(self._rounds, size)
                self._losses = np.resize(self._losses, size)
            self._rounds[self._size:need] = start + rounds
            self._losses[self._size:need] = losses
            self._size = need

    def nonzero(self) -> tuple[np.ndarray, np.ndarray]:
        """``(rounds, losses)`` of the rounds with a non-zero loss (rounds are 1-based)."""
        return self._rounds[: self._size].copy(), self._losses[: self._size].copy()

    def history(self) -> np.ndarray:
        """The loss of every round, in order (zeros included)."""
        if not self.record:
            raise AttributeError(
                "the per-round loss history was not kept (record_losses=False); the totals n_rounds_, "
                "cumulative_loss_ and n_mistakes_ are"
            )
        out = np.zeros(self.n_rounds)
        out[self._rounds[: self._size] - 1] = self._losses[: self._size]
        return out

    def mean_since(self, rounds: int, total: float) -> float:
        """Mean loss of the rounds after a snapshot ``(rounds, total)`` of the totals."""
        count = self.n_rounds - rounds
        return (self.total - total) / count if count else 0.0

    @classmethod
    def restore(cls, record: bool, n_rounds: int, total: float, n_nonzero: int,
                rounds: np.ndarray, losses: np.ndarray) -> LossTrace:
        """Rebuild a trace from its totals and non-zero rounds (persistence)."""
        trace = cls(record)
        trace.n_rounds, trace.total, trace.n_nonzero = int(n_rounds), float(total), int(n_nonzero)
        if record:
            trace._rounds = np.array(rounds, dtype=np.int64)
            trace._losses = np.array(losses, dtype=np.float64)
            trace._size = len(trace._rounds)
            if trace._size == 0:
                trace._rounds = np.empty(16, dtype=np.int64)
                trace._losses = np.empty(16, dtype=np.float64)
        return trace
