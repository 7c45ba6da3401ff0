"""Plot helpers shared by the book's chapters (matplotlib).

Each function draws on a given ``Axes`` and returns it, so notebooks compose figures
without copying plotting code.  :func:`use_book_style` sizes figures and fonts for the
book's text column (figures at most 7 in wide, text at least 10 pt).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Matplotlib settings of the book: a single panel is 6 x 3.5 in, every text >= 10 pt.
BOOK_STYLE = {
    "figure.figsize": (6.0, 3.5),
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 10,
    "figure.titlesize": 11,
    "figure.constrained_layout.use": True,
}


def use_book_style() -> None:
    """Apply :data:`BOOK_STYLE` to matplotlib's defaults (call once, in a chapter's first cell)."""
    import matplotlib as mpl

    mpl.rcParams.update(BOOK_STYLE)


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


def plot_loss_matrix(ax, matrix, row_labels: Sequence[str], col_labels: Sequence[str],
                     title: str | None = None, cmap: str = "Blues"):
    """A ``k x l`` loss matrix as an annotated heat map (predictions down, labels across).

    Zero entries (the correct predictions ``Sigma_y`` of each label, Section 2.1) are
    printed in bold so every column visibly has one.
    """
    matrix = np.asarray(matrix, dtype=float)
    if matrix.shape != (len(row_labels), len(col_labels)):
        raise ValueError(
            f"matrix has shape {matrix.shape} but {len(row_labels)} row labels and "
            f"{len(col_labels)} column labels were given"
        )
    top = float(matrix.max()) if matrix.size else 1.0
    ax.imshow(matrix, cmap=cmap, vmin=0, vmax=top if top > 0 else 1.0, aspect="auto")
    for (i, j), value in np.ndenumerate(matrix):
        ax.text(j, i, f"{value:g}", ha="center", va="center", fontsize=10,
                fontweight="bold" if value == 0 else "normal",
                color="white" if value > 0.6 * top else "black")
    ax.set_xticks(range(len(col_labels)), labels=list(col_labels))
    ax.set_yticks(range(len(row_labels)), labels=list(row_labels))
    ax.set_xlabel("label $y$")
    ax.set_ylabel("prediction $\\sigma$")
    if title:
        ax.set_title(title)
    return ax


def plot_tradeoff(ax, costs, abstention, error, reference: float | None = None,
                  reference_label: str = "error without abstaining"):
    """Abstention rate and error rate on the accepted examples against the reject cost.

    For the REJECT option of Section 3: as abstaining gets cheaper the classifier
    abstains more and errs less on what it does not abstain on.  ``reference`` draws
    the error rate of a classifier that never abstains.
    """
    ax.plot(costs, abstention, marker="o", label="abstention rate")
    ax.plot(costs, error, marker="s", label="error rate on accepted examples")
    if reference is not None:
        ax.axhline(reference, linestyle="--", color="gray", label=reference_label)
    ax.set_xlabel("reject cost $\\beta$")
    ax.set_ylabel("rate on the test set")
    ax.legend()
    return ax


def plot_mean_bands(ax, x, runs_by_label: dict, floor: float | None = None, log: bool = False,
                    band: str = "minmax"):
    """Several :func:`plot_mean_band` curves on one axis, one per entry of ``runs_by_label``.

    ``runs_by_label`` maps a legend label to an array of shape ``(n_runs, len(x))``.
    With ``floor`` every value is raised to at least ``floor`` before averaging, so a
    log axis can show runs whose loss is exactly zero (they are drawn at ``floor``);
    ``log=True`` sets a logarithmic y axis.
    """
    if floor is not None and floor <= 0:
        raise ValueError(f"floor must be > 0 (it is drawn on a log axis); got {floor!r}")
    for label, runs in runs_by_label.items():
        runs = np.atleast_2d(np.asarray(runs, dtype=float))
        if runs.shape[1] != len(x):
            raise ValueError(
                f"runs for {label!r} have {runs.shape[1]} columns but x has {len(x)} points"
            )
        if floor is not None:
            runs = np.maximum(runs, floor)
        plot_mean_band(ax, x, runs, label=label, band=band)
    if log:
        ax.set_yscale("log")
    return ax
