"""Plot helpers shared by the book's chapters (matplotlib).

Each function draws on a given ``Axes`` and returns it, so notebooks compose figures
without copying plotting code.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def plot_cumulative_loss(ax, losses, bound: float | None = None, label: str = "cumulative loss",
                         bound_label: str = "bound", color=None):
    """Cumulative loss ``sum_{s <= tau} L_s`` against the round ``tau``, with a bound line."""
    losses = np.asarray(losses, dtype=float)
    rounds = np.arange(1, len(losses) + 1)
    (line,) = ax.plot(rounds, np.cumsum(losses), label=label, color=color)
    if bound is not None:
        ax.axhline(bound, linestyle="--", color=line.get_color(), alpha=0.7, label=bound_label)
    ax.set_xlabel("round $\\tau$")
    ax.set_ylabel("cumulative loss")
    ax.legend()
    return ax


def plot_mean_band(ax, x, runs, label: str, color=None, band: str = "minmax", marker="o"):
    """Mean over runs (rows of ``runs``) against ``x``, with the spread shaded.

    ``band`` is ``"minmax"`` (smallest to largest run) or ``"std"`` (one standard
    deviation either side).
    """
    runs = np.atleast_2d(np.asarray(runs, dtype=float))
    mean = runs.mean(axis=0)
    if band == "minmax":
        low, high = runs.min(axis=0), runs.max(axis=0)
    elif band == "std":
        low, high = mean - runs.std(axis=0), mean + runs.std(axis=0)
    else:
        raise ValueError(f"band must be 'minmax' or 'std'; got {band!r}")
    (line,) = ax.plot(x, mean, marker=marker, label=label, color=color)
    ax.fill_between(x, low, high, color=line.get_color(), alpha=0.2)
    ax.legend()
    return ax


def plot_timings(ax, sizes: Sequence[float], seconds: Sequence[float], label: str, marker="o"):
    """Running time against problem size on log-log axes (for timing figures, never text)."""
    ax.loglog(sizes, seconds, marker=marker, label=label)
    ax.set_xlabel("size")
    ax.set_ylabel("seconds")
    ax.legend()
    return ax
