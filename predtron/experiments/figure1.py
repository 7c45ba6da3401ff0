"""Figure 1 of the paper (Section 6): one call per panel, the sensitivity studies, the margin study.

Every function takes the experiment's choices as keyword arguments (their defaults are
the choices of the book's chapter ``09_experiments``) and returns a tidy
:class:`pandas.DataFrame` built by :func:`~predtron.experiments.protocol.run_settings`,
so a panel can be rerun with other choices in one call::

    from predtron.experiments import panel_a, seed_summary
    runs = panel_a(noise=0.03, passes=20, seeds=range(4))
    seed_summary(runs, ["f", "n"])

The paper fixes the thresholds ``zeta_j = 1/j``, the grades, the NDCG loss and
``eta = 1``; it leaves open the document means, ``w*``, the noise, the test-set size,
the number of passes and of trials, and the statistic plotted.  The defaults below are
ours, stated in the chapter.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from predtron._validation import check_int, check_positive, check_size, excerpt, finite_result
from predtron.data.ranking import figure1_centres, make_figure1_ranking
from predtron.experiments._pandas import pd
from predtron.experiments.protocol import (
    LEARNERS,
    _check_columns,
    _check_iterable,
    _check_model,
    _check_seeds,
    _check_table,
    make_learner,
    run_settings,
)
from predtron.problems.ranking_measures import MAX_EXPONENTIAL_GRADE
from predtron.problems.subset_ranking import SubsetRanking

F_PAPER = ("inverse", "power1.1", "square")
"""The paper's three representations: ``f1(i) = 1/i``, ``f2(i) = -i^1.1``, ``f3(i) = -i^2``."""

F_LABELS = {
    "inverse": "$f_1(i) = 1/i$",
    "power1.1": "$f_2(i) = -i^{1.1}$",
    "square": "$f_3(i) = -i^2$",
    "linear": "$f(i) = -i$",
}

LEARNER_LABELS = {
    "l2": r"$\ell_2$ margin (Predtron)",
    "l1": r"$\ell_1$ margin (Predtron.Link)",
    "untrained": "untrained ($w = 0$)",
}

SEEDS = range(8)


#: Most documents per query of the Figure 1 helpers (grades ``m - 1 .. 0`` must have finite gains).
MAX_ITEMS = MAX_EXPONENTIAL_GRADE + 1


def _grid(values, name: str, minimum: int) -> list[int]:
    values = _check_iterable(values, name, "integers")
    if not values:
        raise ValueError(f"{name} must contain at least one value; got an empty grid")
    return [check_int(v, name, minimum=minimum) for v in values]


def _names(values, name: str, choices: Sequence[str] | None = None) -> list:
    """Names of representations (strings or callables, checked by ``SubsetRanking``) or of ``choices``."""
    values = [values] if isinstance(values, str) or callable(values) else _check_iterable(values, name, "names")
    if not values:
        raise ValueError(f"{name} must name at least one choice; got none")
    for value in values:
        if choices is not None:
            if not isinstance(value, str) or value not in choices:
                raise ValueError(f"{name} must hold names among {list(choices)}; got {excerpt(value)}")
        else:
            try:
                SubsetRanking(f=value)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{name} holds an invalid representation: {str(exc)[:200]}") from None
    return values


def panel_a(n_grid: Sequence[int] = (0, 10, 20, 30, 40, 50, 60, 80, 100), *, fs=F_PAPER, m: int = 20,
            p0: int = 30, noise: float = 0.05, eta: float = 1.0, passes: int = 10,
            seeds: Iterable[int] = SEEDS, n_test: int = 200, per_query: bool = False):
    """Panel (a): test loss against the number ``n`` of training queries, one curve per ``f``.

    The paper: ``m = 20``, ``p0 = 30``, ``n`` up to 100, ``f`` in ``{1/i, -i^1.1, -i^2}``,
    ``eta = 1``.  Dense generator (band-centred documents, unit Gaussian ``w*``).

    Parameters
    ----------
    n_grid : sequence of int
        Training-set sizes (``0``: the untrained learner).
    fs : sequence
        Representations (names of :class:`~predtron.problems.subset_ranking.SubsetRanking`
        or callables).
    m, p0 : int
        Documents per query and features.
    noise : float
        Standard deviation of the document noise (our choice; the paper gives none).
    eta : float
        Step size.
    passes : int
        Passes over the training queries.
    seeds : iterable of int
        One run per seed.
    n_test : int
        Test queries per seed.
    per_query : bool
        One row per test query instead of per run (see :func:`run_settings`).

    Returns
    -------
    pandas.DataFrame
        One row per (``f``, ``n``, seed) with ``mean``, ``median``, ``perfect``.
    """
    grid = _grid(n_grid, "n_grid", 0)
    settings = [{"learner": "l2", "f": f, "n": n, "m": m, "p0": p0, "noise": noise, "eta": eta,
                 "passes": passes, "n_test": n_test} for f in _names(fs, "fs") for n in grid]
    return run_settings(settings, seeds, per_query=per_query)


def panel_b(m_grid: Sequence[int] = (12, 14, 16, 18, 20, 22, 25), *, fs=F_PAPER, n: int = 30,
            p0: int = 30, noise: float = 0.05, eta: float = 1.0, passes: int = 10,
            seeds: Iterable[int] = SEEDS, n_test: int = 200, per_query: bool = False):
    """Panel (b): test loss against the number ``m`` of documents per query, one curve per ``f``.

    The paper: ``n = 30``, ``p0 = 30``, ``m`` from about 15 to 25.  Parameters as in
    :func:`panel_a`, with ``m_grid`` the values of ``m`` and ``n`` fixed.

    Returns
    -------
    pandas.DataFrame
        One row per (``f``, ``m``, seed).
    """
    grid = _grid(m_grid, "m_grid", 2)
    settings = [{"learner": "l2", "f": f, "n": n, "m": m, "p0": p0, "noise": noise, "eta": eta,
                 "passes": passes, "n_test": n_test} for f in _names(fs, "fs") for m in grid]
    return run_settings(settings, seeds, per_query=per_query)


def panel_c(p_grid: Sequence[int] = (100, 500, 1000, 2500), *, learners=("l2", "l1", "untrained"),
            f="linear", sparsity: int = 50, n: int = 50, m: int = 20, noise: float = 0.0,
            eta: float = 1.0, passes: int = 10, r: float | None = None, seeds: Iterable[int] = SEEDS,
            n_test: int = 100, per_query: bool = False):
    """Panel (c): l1 against l2 margin as the number ``p0`` of features grows (sparse ``w*``).

    The paper: ``s = 50`` relevant features, ``n = 50``, ``m = 20``, data in
    ``[-1, 1]^{p0}``, ``p0`` from about 500 to 2500; the l1-margin learner is
    Predtron.Link with ``psi = 1/2 ||w||_r^2``, ``r = log p0 / (log p0 - 1)``
    (Corollary 6).  Sparse generator: documents uniform on ``[-1, 1]^{p0}``, ``w*``
    with ``s`` entries ``+-0.5 / sqrt(s)``.

    Parameters
    ----------
    p_grid : sequence of int
        Numbers of features ``p0`` (each ``>= sparsity``).
    learners : sequence of {"l2", "l1", "untrained"}
        Which curves to run.
    f : str or callable
        Representation (the paper does not say; we use ``f(i) = -i``).
    sparsity : int
        ``s``, non-zero entries of ``w*``.
    n, m : int
        Training queries and documents per query.
    noise : float
        Score noise of the grades (``0``: the grades are an exact function of ``x``).
    eta : float
        Step size of both learners (the paper's ``1``; ``0.01`` gives both learners a
        lower loss and the l1 margin a larger advantage).
    passes : int
        Passes over the training queries.
    r : float, optional
        Exponent of the p-norm link (``None``: Corollary 6's ``log p0 / (log p0 - 1)``).
    seeds, n_test, per_query
        As in :func:`panel_a`.

    Returns
    -------
    pandas.DataFrame
        One row per (``learner``, ``p0``, seed).
    """
    grid = _grid(p_grid, "p_grid", 1)
    settings = []
    for learner in _names(learners, "learners", LEARNERS):
        for p0 in grid:
            setting = {"learner": learner, "f": f, "n": n, "m": m, "p0": p0, "noise": noise,
                       "sparsity": sparsity, "eta": eta, "passes": passes, "n_test": n_test}
            if learner == "l1":
                setting["r"] = r
            settings.append(setting)
    return run_settings(settings, seeds, per_query=per_query)


SENSITIVITY_PARAMETERS = ("noise", "eta", "passes", "n", "m", "p0", "n_test")


def sensitivity(parameter: str, values: Sequence, *, fs=F_PAPER, n: int = 60, m: int = 20, p0: int = 30,
                noise: float = 0.05, eta: float = 1.0, passes: int = 10, seeds: Iterable[int] = SEEDS,
                n_test: int = 200, per_query: bool = False):
    """Vary one choice of panel (a)'s protocol alone, the others held at their values.

    Parameters
    ----------
    parameter : {"noise", "eta", "passes", "n", "m", "p0", "n_test"}
        The choice to vary.
    values : sequence
        Its values.
    fs, n, m, p0, noise, eta, passes, seeds, n_test, per_query
        The fixed protocol (default: panel (a) at ``n = 60``).

    Returns
    -------
    pandas.DataFrame
        As :func:`run_settings`, plus the columns ``parameter`` and ``value`` (the
        varied choice and its value).
    """
    if not isinstance(parameter, str) or parameter not in SENSITIVITY_PARAMETERS:
        raise ValueError(f"parameter must be one of {list(SENSITIVITY_PARAMETERS)}; got {excerpt(parameter)}")
    values = _check_iterable(values, "values", f"values of {parameter}")
    if not values:
        raise ValueError(f"values must give at least one value of {parameter}; got none")
    base = {"learner": "l2", "n": n, "m": m, "p0": p0, "noise": noise, "eta": eta, "passes": passes,
            "n_test": n_test}
    settings = [{**base, "f": f, parameter: v} for f in _names(fs, "fs") for v in values]
    out = run_settings(settings, seeds, per_query=per_query)
    out.insert(0, "value", out[parameter])
    out.insert(0, "parameter", parameter)
    return out


def smallest_nonzero_loss(m: int) -> float:
    """Smallest non-zero NDCG loss of a query with one document per grade ``m-1, ..., 0``.

    A mean over ``N`` test queries that is not zero is at least this value over ``N``;
    a curve far below it can only be exact zeros drawn at a floor.
    """
    m = check_int(m, "m", minimum=2, maximum=MAX_ITEMS)
    return SubsetRanking().label_loss_range(np.arange(m - 1, -1, -1))[0]


def centre_margin(f, m: int = 20) -> float:
    """Lemma 4's margin of the unit target ``w*`` on the noise-free query of the dense generator.

    Document ``i`` scores the centre of band ``i`` (one document per grade), so this is
    ``min_j (c_{j-1} - c_j) (f(j-1) - f(j)) / Z``: the margin of the data before noise,
    a function of ``f`` and ``m`` only.
    """
    m = check_int(m, "m", minimum=2, maximum=MAX_ITEMS)
    return float(SubsetRanking(f=f).margin(figure1_centres(m), np.arange(m - 1, -1, -1)))


def passes_to_separate(model, X, Y, max_passes: int) -> int | None:
    """Passes until one pass over ``(X, Y)`` suffers no loss (so ``w`` no longer changes).

    Returns ``None`` if that does not happen within ``max_passes`` passes.
    """
    model = _check_model(model)
    max_passes = check_int(max_passes, "max_passes", minimum=1)
    inputs, _ = model._prepare(X, Y, fitting=not hasattr(model, "n_features_in_"))
    if inputs.n == 0:
        raise ValueError("X is empty; at least one query is needed to separate")
    if not model.record_losses:
        raise ValueError("model must record its losses (record_losses=True) to count the passes")
    for k in range(1, max_passes + 1):
        model.partial_fit(X, Y)
        if not np.any(model.loss_history_[-inputs.n:]):
            return k
    return None


def margin_study(fs=F_PAPER, *, m: int = 20, n: int = 30, p0: int = 30, noise: float = 0.02,
                 eta: float = 1.0, max_passes: int = 250, seeds: Iterable[int] = SEEDS):
    """Lemma 4's margin for each ``f`` against the passes the Predtron needs to separate the training set.

    For every seed and ``f``: the margin of the band centres (:func:`centre_margin`),
    the smallest Lemma-4 margin of ``w*`` over the actual training queries (negative as
    soon as a query has two documents with the same grade but different scores, since
    Lemma 4 requires the scores to be compatible with ``y``), the number of such
    queries, and the passes of the Predtron (``eta``, from ``w = 0``) until a pass with
    zero training loss.

    ``tie_constraints`` counts, over the training queries, ``m`` minus the number of
    distinct grades: the linear constraints "documents of one grade score equally" that
    any ``w`` with a positive Lemma-4 margin must meet.  For documents in general
    position (Gaussian noise), more than ``p0`` of them leave only ``w = 0``, so no
    ``w`` has a positive margin on the training set.

    Returns
    -------
    pandas.DataFrame
        Columns ``seed, f, centre_margin, target_margin, tied_queries, tie_constraints,
        passes`` (``NaN`` if not separated within ``max_passes``), ``separated``,
        ``updates``.
    """
    n = check_int(n, "n", minimum=1)
    m = check_int(m, "m", minimum=2, maximum=MAX_ITEMS)
    p0 = check_int(p0, "p0", minimum=1)
    check_size("the training queries of a seed, n x m x p0", n, m, p0)
    eta = check_positive(eta, "eta")
    max_passes = check_int(max_passes, "max_passes", minimum=1)
    fs = _names(fs, "fs")
    rows = []
    for seed in _check_seeds(seeds):
        data = make_figure1_ranking(n, n_items=m, n_features=p0, noise=noise, seed=seed)
        tied = sum(len(np.unique(y)) < len(y) for y in data.Y)
        constraints = sum(len(y) - len(np.unique(y)) for y in data.Y)
        for f in fs:
            problem = SubsetRanking(f=f)
            target = min(problem.margin(x @ data.w_star, y) for x, y in zip(data.X, data.Y, strict=True))
            model = make_learner("l2", f, eta)
            k = passes_to_separate(model, data.X, data.Y, max_passes)
            rows.append({"seed": seed, "f": f, "centre_margin": centre_margin(f, m),
                         "target_margin": float(target), "tied_queries": int(tied),
                         "tie_constraints": int(constraints),
                         "passes": np.nan if k is None else float(k), "separated": k is not None,
                         "updates": int(model.n_updates_)})
    return pd.DataFrame(rows)


PROTOCOL_ROWS = (
    ("representation f", ("fs", "f")),
    ("learners", ("learners",)),
    ("training queries n", ("n_grid", "n")),
    ("documents per query m", ("m_grid", "m")),
    ("features p0", ("p_grid", "p0")),
    ("relevant features s", ("sparsity",)),
    ("noise", ("noise",)),
    ("step size eta", ("eta",)),
    ("passes", ("passes",)),
    ("test queries", ("n_test",)),
    ("seeds", ("seeds",)),
)
"""Rows of :func:`protocol_table`: a label and the keyword arguments it shows (the first present)."""


def protocol_table(panels: Mapping[str, tuple]) -> object:
    """The choices of each panel side by side: one column per panel, one row per choice.

    Parameters
    ----------
    panels : mapping
        ``{name: (function, kwargs)}``, e.g. ``{"(a)": (panel_a, settings)}``: the panel
        function and the keyword arguments it is called with.  Arguments left out show
        the function's default; a panel without a ``learners`` argument runs the
        Predtron (``"l2"``).

    Returns
    -------
    pandas.DataFrame
    """
    def show(value):
        if isinstance(value, range):
            return f"{len(value)} ({value.start}..{value.stop - 1})"
        if isinstance(value, (list, tuple)):
            return ", ".join(str(v) for v in value)
        return "" if value is None else str(value)

    columns = {}
    for name, (function, kwargs) in panels.items():
        unknown = sorted(set(kwargs) - set(inspect.signature(function).parameters))
        if unknown:
            raise ValueError(f"panel {name!r}: {function.__name__} takes no arguments {unknown}")
        defaults = {k: p.default for k, p in inspect.signature(function).parameters.items()
                    if p.default is not inspect.Parameter.empty}
        choices = {"learners": ("l2",), **defaults, **kwargs}
        column = []
        for _, keys in PROTOCOL_ROWS:
            key = next((k for k in keys if k in choices), None)
            column.append("" if key is None else show(choices[key]))
        columns[name] = column
    return pd.DataFrame(columns, index=[label for label, _ in PROTOCOL_ROWS])


def theorem1_step(X, Y, f="linear") -> float:
    """Theorem 1's step size ``eta = c_L / (4 R^2)`` on a training set.

    ``c_L`` is the smallest non-zero NDCG loss over the labels of ``Y``
    (``SubsetRanking.loss_bounds_for``) and ``R`` the largest operator norm of the
    queries (Corollary 5's radius).
    """
    problem = SubsetRanking(f=f)
    inputs = problem.scoring.prepare(X)
    labels = problem.check_labels(Y, inputs)
    if inputs.n == 0:
        raise ValueError("X is empty; Theorem 1's step needs at least one query")
    c_L = problem.loss_bounds_for(labels)[0]
    radius = max(np.linalg.norm(inputs.instance(i), 2) for i in range(inputs.n))
    if radius == 0:
        raise ValueError("X has only zero documents: the radius R is 0 and Theorem 1's step is undefined")
    return finite_result(lambda: c_L / (4.0 * radius**2), c_L=c_L, R=radius)


def loss_distribution(per_query, by: Sequence[str] = ("f",), quantiles: Sequence[float] = (0.5, 0.75, 0.9, 0.99),
                      tail: float = 0.05):
    """Statistics of the per-query losses pooled over seeds, one row per group of ``by``.

    Columns: ``perfect`` (share of zero losses), ``mean``, the ``quantiles`` (``q50``,
    ...), and ``tail_share``: the share of the total loss carried by the worst ``tail``
    of the queries (how much one statistic, the mean, depends on a few queries).

    Parameters
    ----------
    per_query : pandas.DataFrame
        A :func:`run_settings` table with ``per_query=True``.
    by : sequence of str
        Grouping columns.
    quantiles : sequence of float
        Quantiles to report, in ``(0, 1)``.
    tail : float
        Fraction of the worst queries for ``tail_share``.

    Returns
    -------
    pandas.DataFrame
    """
    by = _check_columns(by, "by")
    _check_table(per_query, "per_query")
    if "loss" not in per_query.columns:
        raise ValueError("per_query must be a run_settings(..., per_query=True) table with a 'loss' column")
    missing = [c for c in by if c not in per_query.columns]
    if missing:
        raise ValueError(f"by names columns {missing} that per_query lacks; got columns {list(per_query.columns)[:12]}")
    _check_table(per_query, "per_query", numeric=("loss",))
    tail = check_positive(tail, "tail")
    if not tail < 1:
        raise ValueError(f"tail must lie in (0, 1); got {tail!r}")
    quantiles = [check_positive(q, "quantiles") for q in _check_iterable(quantiles, "quantiles", "numbers")]
    if not quantiles or not all(q < 1 for q in quantiles):
        raise ValueError(f"quantiles must be at least one number in (0, 1); got {excerpt(quantiles)}")
    rows = []
    for key, part in per_query.groupby(list(by), sort=False):
        losses = np.sort(part["loss"].to_numpy())[::-1]
        worst = max(1, round(tail * len(losses)))
        total = losses.sum()
        row = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        row.update({"queries": len(losses), "perfect": float(np.mean(losses == 0)), "mean": float(losses.mean())})
        row.update({f"q{round(100 * q)}": float(np.quantile(losses, q)) for q in quantiles})
        row["tail_share"] = float(losses[:worst].sum() / total) if total > 0 else 0.0
        rows.append(row)
    return pd.DataFrame(rows)
