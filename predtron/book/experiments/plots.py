"""Figures of the Figure 1 chapter: the three statistics side by side, zeros drawn at a marked floor.

The functions take the tables of :func:`~predtron.book.experiments.protocol.seed_summary`
(one row per point, columns ``<statistic>``, ``<statistic>_low``, ``<statistic>_high``)
and draw the centre line with the spread over seeds shaded.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from predtron._validation import as_finite_array
from predtron.book.experiments.protocol import STATISTIC_NAMES, STATISTICS

SHORT_NAMES = {"mean": "mean loss", "median": "median per-query loss", "perfect": "share ranked perfectly"}


def floor_below(values) -> float:
    """A power of ten at least ten times below the smallest positive value (``1e-12`` if none).

    Used as the floor at which exact zeros are drawn on a log axis, so that no non-zero
    value can be mistaken for a zero.
    """
    values = as_finite_array(values, "values")
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"values must be a non-empty 1-D array; got shape {values.shape} (flatten it with .ravel())")
    positive = values[values > 0]
    if positive.size == 0:
        return 1e-12
    floor = 10.0 ** (math.floor(math.log10(float(positive.min()))) - 1)
    if floor == 0:
        raise ValueError(f"values holds {positive.min():g}, too small for a float64 floor ten times below it")
    return floor


def _raise_to_floor(values: np.ndarray, floor: float, name: str) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    bad = (values > 0) & (values < floor)
    if bad.any():
        raise ValueError(
            f"{name} has non-zero values below the floor {floor:g} (smallest {values[bad].min():g}); they "
            "would be drawn as zeros: lower the floor"
        )
    return np.where(values == 0, floor, values)


def plot_statistic(ax, summary, x: str, hue: str, statistic: str, *, log: bool = True,
                   floor: float | None = None, labels: Mapping | None = None,
                   styles: Mapping | None = None, order: Sequence | None = None):
    """One statistic against ``x``, one curve per value of ``hue``, spread over seeds shaded.

    Parameters
    ----------
    ax : matplotlib Axes
    summary : pandas.DataFrame
        A :func:`~predtron.book.experiments.protocol.seed_summary` table.
    x, hue : str
        Columns of the horizontal axis and of the curves.
    statistic : {"mean", "median", "perfect"}
    log : bool
        Logarithmic y axis; exact zeros are drawn at ``floor``, which is marked by a
        dotted line and labelled "0".
    floor : float, optional
        Where zeros are drawn (default :func:`floor_below` of the plotted values).
    labels, styles : mapping, optional
        Legend label and line keyword arguments per value of ``hue``.
    order : sequence, optional
        Values of ``hue`` to draw, in order (default: order of appearance).

    Returns
    -------
    Axes
    """
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {list(STATISTICS)}; got {statistic!r}")
    columns = [statistic, f"{statistic}_low", f"{statistic}_high"]
    missing = [c for c in [x, hue, *columns] if c not in summary.columns]
    if missing:
        raise ValueError(f"summary lacks the columns {missing}; expected a seed_summary table")
    labels, styles = labels or {}, styles or {}
    order = list(dict.fromkeys(summary[hue])) if order is None else list(order)
    if log and floor is None:
        floor = floor_below(summary[columns].to_numpy().ravel())
    for key in order:
        part = summary[summary[hue] == key].sort_values(x)
        centre, low, high = (part[c].to_numpy(dtype=float) for c in columns)
        if log:
            centre, low, high = (_raise_to_floor(v, floor, f"{statistic} of {key!r}") for v in (centre, low, high))
        (line,) = ax.plot(part[x], centre, marker="o", markersize=4, label=labels.get(key, str(key)),
                          **styles.get(key, {}))
        ax.fill_between(part[x], low, high, color=line.get_color(), alpha=0.2, linewidth=0)
    if log:
        ax.set_yscale("log")
        ax.axhline(floor, color="0.4", linestyle=":", linewidth=1)
        top = ax.get_ylim()[1]
        ax.set_ylim(floor / 3, top)
        ticks = [t for t in ax.get_yticks() if floor < t <= top]
        ax.set_yticks([floor, *ticks], labels=["0", *[f"$10^{{{round(math.log10(t))}}}$" for t in ticks]])
        ax.minorticks_off()
    else:
        ax.set_ylim(bottom=0)
    ax.set_title(SHORT_NAMES[statistic], fontsize=10)
    return ax


def statistics_figure(summary, x: str, hue: str, *, xlabel: str, statistics: Sequence[str] = STATISTICS,
                      log: Mapping | bool = True, floor: float | None = None, labels: Mapping | None = None,
                      styles: Mapping | None = None, order: Sequence | None = None, logx: bool = False,
                      size: tuple[float, float] = (7.0, 2.9)):
    """The statistics side by side (one axis each) with one shared legend above.

    Parameters
    ----------
    summary : pandas.DataFrame
        A :func:`~predtron.book.experiments.protocol.seed_summary` table.
    x, hue : str
        Columns of the horizontal axis and of the curves.
    xlabel : str
        Label of every horizontal axis.
    statistics : sequence
        Which statistics, left to right.
    log : bool or mapping
        Log y axis (zeros at a floor) for every statistic, or per statistic; the share of
        perfect queries is drawn on a linear axis unless the mapping says otherwise.
    floor : float, optional
        One floor for every log axis (default: :func:`floor_below` of all plotted
        losses, so the axes agree).
    labels, styles, order
        As in :func:`plot_statistic`.
    logx : bool
        Logarithmic x axis.
    size : (float, float)
        Figure size in inches (at most 7 wide for the book's column).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    if isinstance(log, bool):
        log = {s: (log and s != "perfect") for s in statistics}
    if floor is None:
        losses = [summary[[s, f"{s}_low", f"{s}_high"]].to_numpy() for s in statistics if log.get(s)]
        floor = floor_below(np.concatenate([v.ravel() for v in losses])) if losses else None
    fig, axes = plt.subplots(1, len(statistics), figsize=size, squeeze=False)
    for ax, statistic in zip(axes[0], statistics, strict=True):
        plot_statistic(ax, summary, x, hue, statistic, log=bool(log.get(statistic)), floor=floor,
                       labels=labels, styles=styles, order=order)
        ax.set_xlabel(xlabel)
        if logx:
            ax.set_xscale("log")
    handles, names = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, names, loc="upper center", ncol=len(names), frameon=False, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.88))
    return fig



def plot_loss_ecdf(ax, per_query, hue: str = "f", *, floor: float | None = None, labels: Mapping | None = None,
                   order: Sequence | None = None):
    """Share of test queries with loss at most ``x``, pooled over seeds, one curve per ``hue``.

    Exact zeros are drawn at ``floor`` (marked "0"), so the height of a curve at the
    floor is the share of perfectly ranked queries and the mean, median and quantiles of
    each curve can be read off the same picture.
    """
    labels = labels or {}
    order = list(dict.fromkeys(per_query[hue])) if order is None else list(order)
    if floor is None:
        floor = floor_below(per_query["loss"].to_numpy())
    for key in order:
        losses = np.sort(_raise_to_floor(per_query.loc[per_query[hue] == key, "loss"].to_numpy(), floor,
                                         f"losses of {key!r}"))
        share = np.arange(1, len(losses) + 1) / len(losses)
        ax.step(losses, share, where="post", label=labels.get(key, str(key)))
    ax.set_xscale("log")
    ax.axvline(floor, color="0.4", linestyle=":", linewidth=1)
    right = ax.get_xlim()[1]
    ax.set_xlim(floor / 3, right)
    ticks = [t for t in ax.get_xticks() if floor < t <= right]
    ax.set_xticks([floor, *ticks], labels=["0", *[f"$10^{{{round(math.log10(t))}}}$" for t in ticks]])
    ax.minorticks_off()
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("per-query test loss")
    ax.set_ylabel("share of test queries with loss $\\leq x$")
    ax.legend(loc="lower right", fontsize=10)
    return ax


def plot_margin_passes(ax, study, *, max_passes: int, labels: Mapping | None = None):
    """Passes to separate the training set against Lemma 4's margin, one marker per seed.

    ``study`` is a :func:`~predtron.book.experiments.figure1.margin_study` table.  Runs that
    did not separate within ``max_passes`` are drawn as open triangles at ``max_passes``
    (a dotted line); the large marker is the median over seeds (at the cap when most
    runs did not separate).
    """
    labels = labels or {}
    rng = np.random.default_rng(0)  # horizontal jitter so that seeds do not hide each other
    for f, part in study.groupby("f", sort=False):
        x = float(part["centre_margin"].iloc[0])
        passes = part["passes"].to_numpy(dtype=float)
        done = np.isfinite(passes)
        jitter = x * np.exp(0.08 * rng.standard_normal(len(part)))
        (line,) = ax.plot(jitter[done], passes[done], "o", alpha=0.6, label=labels.get(f, str(f)))
        ax.plot(jitter[~done], np.full((~done).sum(), max_passes), "^", mfc="none", color=line.get_color())
        median = float(np.median(np.where(done, passes, max_passes)))
        ax.plot([x], [median], "s", markersize=10, color=line.get_color(), mec="k")
    ax.axhline(max_passes, color="0.4", linestyle=":", linewidth=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("Lemma 4 margin of $w^\\star$ on the noise-free query")
    ax.set_ylabel("passes to separate the training set")
    ax.legend(fontsize=10, loc="lower left")
    return ax


__all__ = ["SHORT_NAMES", "STATISTIC_NAMES", "floor_below", "plot_loss_ecdf", "plot_margin_passes", "plot_statistic",
           "statistics_figure"]
