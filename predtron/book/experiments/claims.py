"""The paper's claims about Figure 1 (Section 6), each checked against our runs under a stated reading.

The paper states its claims in words and on log axes; it does not say which statistic
its curves show.  Each row of :func:`claims_table` pairs one claim with one reading of
it (an operational test on our tables) and says whether our runs satisfy it, with the
numbers.  Several readings of the same claim are separate rows, so a claim that holds
under one statistic and fails under another shows both.
"""

from __future__ import annotations

import numpy as np

from predtron.book.experiments._pandas import pd
from predtron.book.experiments.protocol import seed_summary

_F_SHORT = {"inverse": "f1", "power1.1": "f2", "square": "f3", "linear": "f(i)=-i"}


def _short(f) -> str:
    return _F_SHORT.get(f, str(f))


def _at(summary, column: str, value, f) -> pd.Series:
    rows = summary[(summary[column] == value) & (summary["f"] == f)]
    if len(rows) != 1:
        raise ValueError(f"the panel has no single point f={f!r}, {column}={value!r}; run it on a grid "
                         f"that contains {column}={value!r}")
    return rows.iloc[0]


def _correlation(x, y) -> float:
    """Pearson correlation, 0 when either side is constant (no trend)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if np.std(x) == 0 or np.std(y) == 0:
        return 0.0
    return float(np.corrcoef(x, y)[0, 1])


def _largest_zero_median(summary, column: str, f, share: float):
    rows = summary[(summary["f"] == f) & (summary["zero_median_seeds"] >= share * summary["n_seeds"])]
    return None if rows.empty else rows[column].max()


def claims_table(a, b, c, *, n_zero: int = 60, n_last: int = 100, zero_level: float = 1e-8,
                 p0_range: tuple[int, int] = (500, 2500), growth_ratio: float = 2.0,
                 fs=("inverse", "power1.1", "square")):
    """One row per (claim of the paper, our reading of it), with the numbers and the verdict.

    Parameters
    ----------
    a, b, c : pandas.DataFrame
        Per-run tables of :func:`~predtron.book.experiments.figure1.panel_a`, ``panel_b`` and
        ``panel_c`` (``panel_c`` with the learners ``"l1"``, ``"l2"`` and
        ``"untrained"``).
    n_zero : int
        Training size at which the paper says ``f2`` and ``f3`` are almost at zero (60).
    n_last : int
        Largest training size of panel (a) (100).
    zero_level : float
        What "almost zero" means for a mean loss (the paper's axis reaches ``1e-10``).
    p0_range : (int, int)
        The paper's range of ``p0`` in panel (c); both ends must be on the grid.
    growth_ratio : float
        "Grows slowly" against "grows significantly": the l2 loss must rise by at least
        this factor more than the l1 loss over ``p0_range``.
    fs : sequence
        ``(f1, f2, f3)``: the representation the paper finds worse, then the two better.

    Returns
    -------
    pandas.DataFrame
        Columns ``panel``, ``claim`` (the paper's, in our words), ``reading`` (how we
        test it), ``measured`` and ``reproduced`` (bool).
    """
    f1, f2, f3 = fs
    sa = seed_summary(a, ["f", "n"])
    sb = seed_summary(b, ["f", "m"])
    sc = seed_summary(c, ["learner", "p0"])
    rows = []

    def add(panel, claim, reading, measured, held):
        rows.append({"panel": panel, "claim": claim, "reading": reading, "measured": measured,
                     "reproduced": bool(held)})

    # ----------------------------------------------------------------- panel (a)
    near_zero = f"f2 and f3 reach almost zero loss (1e-10 on the plot) by n = {n_zero}"
    p2, p3 = _at(sa, "n", n_zero, f2), _at(sa, "n", n_zero, f3)
    add("(a)", near_zero, f"mean test loss below {zero_level:.0e} at n = {n_zero}",
        f"f2 {p2['mean']:.1e}, f3 {p3['mean']:.1e}", max(p2["mean"], p3["mean"]) < zero_level)
    zero_seeds = (f"zero median in f2 {p2['zero_median_seeds']}/{p2['n_seeds']}, "
                  f"f3 {p3['zero_median_seeds']}/{p3['n_seeds']} seeds")
    add("(a)", near_zero, f"median per-query loss exactly 0 at n = {n_zero} in at least half of the seeds "
        "(the plotted median over seeds sits at the floor)", zero_seeds,
        all(p["zero_median_seeds"] >= 0.5 * p["n_seeds"] for p in (p2, p3)))
    add("(a)", near_zero, f"median per-query loss exactly 0 at n = {n_zero} in every seed", zero_seeds,
        all(p["zero_median_seeds"] == p["n_seeds"] for p in (p2, p3)))
    q1, q2, q3 = (_at(sa, "n", n_last, f) for f in (f1, f2, f3))
    large = f"f1 still has a large loss at n = {n_last}"
    add("(a)", large, f"f1's mean test loss at n = {n_last} at least 5x f2's and f3's",
        f"f1 {q1['mean']:.1e}, f2 {q2['mean']:.1e}, f3 {q3['mean']:.1e}",
        q1["mean"] >= 5 * max(q2["mean"], q3["mean"]))
    add("(a)", large, f"f1's median per-query loss non-zero in every seed at n = {n_last}, "
        "and its share of perfect queries below half of f2's and f3's",
        f"zero median in f1 {q1['zero_median_seeds']}/{q1['n_seeds']} seeds; perfect: "
        f"f1 {q1['perfect']:.2f}, f2 {q2['perfect']:.2f}, f3 {q3['perfect']:.2f}",
        q1["zero_median_seeds"] == 0 and q1["perfect"] < 0.5 * min(q2["perfect"], q3["perfect"]))
    # ----------------------------------------------------------------- panel (b)
    m_lo, m_hi = sb["m"].min(), sb["m"].max()
    grows = "the loss grows with m for every f"
    ratios = {f: _at(sb, "m", m_hi, f)["mean"] / _at(sb, "m", m_lo, f)["mean"] for f in fs}
    add("(b)", grows, f"mean test loss larger at m = {m_hi} than at m = {m_lo}, for every f",
        ", ".join(f"{_short(f)} x{v:.2f}" for f, v in ratios.items()), all(v > 1 for v in ratios.values()))
    share = {f: (_at(sb, "m", m_lo, f)["perfect"], _at(sb, "m", m_hi, f)["perfect"]) for f in fs}
    trend = {f: _correlation(sb[sb["f"] == f]["m"], sb[sb["f"] == f]["perfect"]) for f in fs}
    add("(b)", grows, f"share of perfectly ranked queries lower at m = {m_hi} than at m = {m_lo} "
        "and falling with m (negative correlation), for every f",
        ", ".join(f"{_short(f)} {lo:.2f} -> {hi:.2f} (r = {trend[f]:.2f})" for f, (lo, hi) in share.items()),
        all(hi < lo and trend[f] < 0 for f, (lo, hi) in share.items()))
    largest = {f: _largest_zero_median(sb, "m", f, 0.5) for f in fs}
    shown = ", ".join(f"{_short(f)} {'none' if v is None else int(v)}" for f, v in largest.items())
    l1 = -1 if largest[f1] is None else largest[f1]
    add("(b)", "f2 and f3 give zero-loss rankings up to larger m than f1",
        "largest m with a zero median per-query loss in at least half of the seeds",
        shown, all(largest[f] is not None and largest[f] > l1 for f in (f2, f3)))
    # ----------------------------------------------------------------- panel (c)
    lo, hi = p0_range

    def c_at(learner, p0):
        rows_ = sc[(sc["learner"] == learner) & (sc["p0"] == p0)]
        if len(rows_) != 1:
            raise ValueError(f"panel (c) has no single point learner={learner!r}, p0={p0}; run it on a grid "
                             f"that contains p0={p0}")
        return rows_.iloc[0]

    rise2 = c_at("l2", hi)["mean"] - c_at("l2", lo)["mean"]
    rise1 = c_at("l1", hi)["mean"] - c_at("l1", lo)["mean"]
    add("(c)", "as p0 grows the l1-margin loss rises slightly, the l2-margin loss significantly",
        f"from p0 = {lo} to {hi}, the l2 mean loss rises at least {growth_ratio:g}x as much as the l1 loss",
        f"l2 {c_at('l2', lo)['mean']:.3f} -> {c_at('l2', hi)['mean']:.3f}, "
        f"l1 {c_at('l1', lo)['mean']:.3f} -> {c_at('l1', hi)['mean']:.3f}",
        rise2 > 0 and rise2 >= growth_ratio * max(rise1, 0.0))
    in_range = sorted(p for p in sc["p0"].unique() if lo <= p <= hi)
    below = [c_at("l1", p)["mean"] < c_at("l2", p)["mean"] for p in in_range]
    add("(c)", "the l1-margin Predtron is more accurate than the l2 one",
        f"l1 mean loss below l2's at every p0 of the grid in [{lo}, {hi}]",
        f"below at {sum(below)} of {len(below)} values of p0", all(below))
    untrained = c_at("untrained", hi)["mean"]
    add("(c)", "the l1-margin Predtron still learns at the largest p0",
        f"l1 mean loss at p0 = {hi} below half the untrained loss",
        f"l1 {c_at('l1', hi)['mean']:.3f}, untrained {untrained:.3f}", c_at("l1", hi)["mean"] < 0.5 * untrained)
    return pd.DataFrame(rows)
