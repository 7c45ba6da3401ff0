"""The protocol of the subset-ranking simulations (Section 6): settings, runs, per-query statistics.

An experiment is a list of *settings* (one dict each: which learner, which
representation ``f``, how much data, which generator parameters, which step size and
how many passes) run over several seeds.  A seed fixes the target ``w*``, the training
and test queries and their row shuffles (:func:`~predtron.data.ranking.make_figure1_ranking`);
every setting of one seed that shares the generator parameters sees the same test queries
and nested training sets (the first ``n`` training queries).

Each run reports statistics of the per-query test losses ``L_NDCG(pred(X w), y)``:

* ``mean`` -- the mean loss over the test queries (what ``mean_loss`` returns);
* ``median`` -- the median per-query loss;
* ``perfect`` -- the share of test queries ranked with zero loss.

Only the learners' public API is used (``fit``, ``partial_fit``, ``decision_function``)
and the problem's ``pred`` and ``loss``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence

import numpy as np

from predtron._validation import (
    as_finite_array,
    check_bool,
    check_each,
    check_int,
    check_positive,
    check_size,
    excerpt,
)
from predtron.book.experiments._pandas import pd
from predtron.data.ranking import make_figure1_ranking
from predtron.learners.base import OnlineLearner
from predtron.learners.link import PredtronLink
from predtron.learners.predtron import Predtron
from predtron.links import PNormLink, check_exponent
from predtron.problems.ranking import RankingProblem
from predtron.problems.subset_ranking import SubsetRanking

STATISTICS = ("mean", "median", "perfect")
"""The per-query statistics every run reports."""

STATISTIC_NAMES = {
    "mean": "mean test loss",
    "median": "median per-query test loss",
    "perfect": "share of perfectly ranked test queries",
}

LEARNERS = ("l2", "l1", "untrained")
"""``"l2"``: the Predtron (Corollary 5); ``"l1"``: Predtron.Link with the p-norm link of
Corollary 6; ``"untrained"``: ``w = 0`` (scores all tied, the input order is kept)."""

DEFAULTS: dict = {
    "learner": "l2", "f": "linear", "n": 60, "m": 20, "p0": 30, "noise": 0.05,
    "sparsity": None, "eta": 1.0, "passes": 10, "n_test": 200, "r": None,
}
"""Every key a setting may have, with the value used when a setting leaves it out."""

_DATA_KEYS = ("m", "p0", "noise", "sparsity", "n_test")

#: Most seeds (and settings) one call runs: more is a mistake, not an experiment.
MAX_RUNS = 100_000


def _check_table(table, name: str, columns: Sequence[str] = (), numeric: Sequence[str] = ()):
    """A non-empty DataFrame with ``columns``, whose ``numeric`` columns hold finite numbers."""
    if not isinstance(table, pd.DataFrame):
        raise ValueError(f"{name} must be a pandas DataFrame; got {excerpt(table)}")
    if table.empty:
        raise ValueError(f"{name} must have at least one row; got an empty table")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{name} lacks the columns {missing}; got columns {list(table.columns)[:12]}")
    for column in numeric:
        values = table[column].to_numpy()
        if values.dtype.kind not in "iuf" or not np.all(np.isfinite(values.astype(float))):
            raise ValueError(f"{name} column {column!r} must hold finite numbers; got {excerpt(values)}")
    return table


def _check_iterable(values, name: str, what: str) -> list:
    """``values`` as a list: any iterable but a string, a mapping or a set, of at most :data:`MAX_RUNS`."""
    if isinstance(values, (str, bytes, Mapping, set, frozenset, Iterator)) or not isinstance(values, Iterable) or (
            isinstance(values, np.ndarray) and values.ndim != 1):
        raise ValueError(f"{name} must be a sequence of {what} (a list, a tuple, a range; not an iterator, which "
                         f"can be read only once); got {excerpt(values)}")
    if hasattr(values, "__len__") and len(values) > MAX_RUNS:
        raise ValueError(f"{name} has {len(values):,} entries, more than {MAX_RUNS:,}")
    return list(values)


def _check_columns(by, name: str) -> list[str]:
    """Column names: one string or a sequence of them (at least one)."""
    columns = [by] if isinstance(by, str) else _check_iterable(by, name, "column names")
    if not columns or not all(isinstance(c, str) for c in columns):
        raise ValueError(f"{name} must name at least one column (strings); got {excerpt(by)}")
    return columns


def _check_model(model, name: str = "model") -> OnlineLearner:
    if not isinstance(model, OnlineLearner) or not isinstance(model.problem, RankingProblem):
        raise ValueError(f"{name} must be a subset-ranking learner (e.g. make_learner('l2')); got {excerpt(model)}")
    return model


def make_learner(learner: str = "l2", f="linear", eta: float = 1.0, r: float | None = None):
    """A fresh subset-ranking learner with NDCG loss.

    Parameters
    ----------
    learner : {"l2", "l1"}
        ``"l2"``: ``Predtron(SubsetRanking(f=f), eta=eta)`` (l2 margin, Corollary 5);
        ``"l1"``: ``PredtronLink(SubsetRanking(f=f), link=PNormLink(r=r), eta=eta)``
        (l1 margin, Corollary 6; ``r=None`` resolves to ``log p0 / (log p0 - 1)``).
    f : str or callable
        The representation ``rep(sigma)_i = f(sigma(i)) / Z`` (Section 4).
    eta : float
        Step size.
    r : float, optional
        Exponent of the p-norm link (``"l1"`` only).

    Returns
    -------
    Predtron or PredtronLink
        An unfitted learner.
    """
    eta = check_positive(eta, "eta")
    if not isinstance(learner, str) or learner not in ("l2", "l1"):
        raise ValueError(f"learner must be 'l2' or 'l1' to build a learner; got {excerpt(learner)}")
    problem = SubsetRanking(f=f)
    if learner == "l2":
        if r is not None:
            raise ValueError(f"r is the p-norm link's exponent and applies to learner='l1' only; got r={r!r}")
        return Predtron(problem, eta=eta)
    if learner == "l1":
        return PredtronLink(problem, link=PNormLink(r=r), eta=eta)
    raise ValueError(f"learner must be 'l2' or 'l1' to build a learner; got {learner!r}")


def query_losses(model, X, Y) -> np.ndarray:
    """Per-query losses ``L(pred(t), y)`` of a fitted learner on ``(X, Y)``.

    Parameters
    ----------
    model : OnlineLearner
        A fitted subset-ranking learner.
    X, Y : lists
        Test queries (``(m, p0)`` matrices) and their relevance vectors.

    Returns
    -------
    ndarray of shape (len(X),)
    """
    problem = _check_model(model).problem
    _, labels = model._prepare(X, Y)
    scores = model.decision_function(X)
    return np.array([problem._loss(problem._pred(t), y) for t, y in zip(scores, labels, strict=True)], dtype=float)


def untrained_losses(Y, f="linear") -> np.ndarray:
    """Per-query losses of ``w = 0``: every score ties, so ``pred`` keeps the input order."""
    problem = SubsetRanking(f=f)
    labels = check_each(Y, problem.check_label, "Y")
    return np.array([problem._loss(problem._pred(np.zeros(len(y))), y) for y in labels], dtype=float)


def summarize_losses(losses) -> dict:
    """``{"mean", "median", "perfect"}`` of an array of per-query losses (see the module docstring)."""
    losses = as_finite_array(losses, "losses")
    if losses.ndim != 1 or losses.size == 0:
        raise ValueError(f"losses must be a non-empty 1-D array of per-query losses; got shape {losses.shape}")
    if np.any(losses < 0):
        raise ValueError(f"losses must be >= 0 (losses of rankings); got {excerpt(losses)}")
    return {"mean": float(losses.mean()), "median": float(np.median(losses)),
            "perfect": float(np.mean(losses == 0))}


def complete_setting(setting: Mapping) -> dict:
    """A setting with every key of :data:`DEFAULTS`, validated.

    Raises
    ------
    ValueError
        For an unknown key or a value out of range (naming the key).
    """
    if not isinstance(setting, Mapping):
        raise ValueError(f"setting must be a dict of keys among {sorted(DEFAULTS)}; got {excerpt(setting)}")
    unknown = sorted(set(setting) - set(DEFAULTS), key=repr)
    if unknown:
        raise ValueError(f"unknown setting keys {unknown}; expected keys among {sorted(DEFAULTS)}")
    s = {**DEFAULTS, **setting}
    if not isinstance(s["learner"], str) or s["learner"] not in LEARNERS:
        raise ValueError(f"learner must be one of {list(LEARNERS)}; got {excerpt(s['learner'])}")
    SubsetRanking(f=s["f"])  # checks f
    s["n"] = check_int(s["n"], "n", minimum=0)
    s["m"] = check_int(s["m"], "m", minimum=2)
    s["p0"] = check_int(s["p0"], "p0", minimum=1)
    s["noise"] = check_positive(s["noise"], "noise", allow_zero=True)
    s["eta"] = check_positive(s["eta"], "eta")
    s["passes"] = check_int(s["passes"], "passes", minimum=1)
    s["n_test"] = check_int(s["n_test"], "n_test", minimum=1)
    if s["sparsity"] is not None:
        s["sparsity"] = check_int(s["sparsity"], "sparsity", minimum=1)
    if s["r"] is not None:
        s["r"] = check_exponent(s["r"])
    check_size("the queries of a setting, (n_test + n) x m x p0", s["n_test"] + s["n"], s["m"], s["p0"])
    return s


def _check_seeds(seeds) -> list[int]:
    seeds = _check_iterable(seeds, "seeds", "integer seeds")
    if not seeds:
        raise ValueError("seeds must name at least one seed; got an empty sequence")
    return [check_int(seed, "seed", minimum=0) for seed in seeds]


def _checkpoints(model, X, Y, X_test, Y_test, passes: Sequence[int]) -> Iterator[tuple[int, np.ndarray]]:
    """Test losses after each number of passes in ``passes`` (sorted), from one run."""
    if len(passes) == 1:
        model.fit(X, Y, epochs=passes[0])
        yield passes[0], query_losses(model, X_test, Y_test)
        return
    done = 0
    for target in passes:
        for _ in range(target - done):
            model.partial_fit(X, Y)
        done = target
        yield target, query_losses(model, X_test, Y_test)


def run_settings(settings: Iterable[Mapping], seeds: Iterable[int] = range(8), *,
                 per_query: bool = False):
    """Run every setting for every seed and return one tidy table.

    Per seed and generator setting, one pool of ``n_test + max(n)`` queries is drawn
    (:func:`~predtron.data.ranking.make_figure1_ranking` with the setting's ``m``,
    ``p0``, ``noise``, ``sparsity`` and the seed); the first ``n_test`` queries are the
    test set and the next ``n`` the training set, so test queries do not depend on the
    other settings and training sets are nested.  Settings that differ only in
    ``passes`` share one run, evaluated after each number of passes (``partial_fit``;
    a single number of passes uses ``fit(..., epochs=passes)``, which is the same).
    ``n = 0`` or ``learner = "untrained"`` scores with ``w = 0``.

    Parameters
    ----------
    settings : iterable of dict
        Keys among :data:`DEFAULTS` (others take the default).
    seeds : iterable of int
        Seeds of the data.
    per_query : bool, default False
        Return one row per test query (column ``loss``) instead of one row per run with
        the statistics ``mean``, ``median``, ``perfect``.

    Returns
    -------
    pandas.DataFrame
        The setting's columns (``learner, f, n, m, p0, noise, sparsity, eta, passes,
        n_test, r``), ``seed``, then ``mean, median, perfect`` (or ``query, loss``).
    """
    settings = check_each(_check_iterable(settings, "settings", "dicts"), complete_setting, "settings")
    if not settings:
        raise ValueError("settings must contain at least one setting; got none")
    seeds = _check_seeds(seeds)
    per_query = check_bool(per_query, "per_query")
    results: dict[tuple[int, int], np.ndarray] = {}
    pool_size: dict[tuple, int] = defaultdict(int)
    for s in settings:
        key = tuple(s[k] for k in _DATA_KEYS)
        pool_size[key] = max(pool_size[key], s["n"])
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, s in enumerate(settings):
        groups[tuple((k, repr(v)) for k, v in s.items() if k != "passes")].append(i)
    for seed in seeds:
        pools = {}
        for key, n_max in pool_size.items():
            m, p0, noise, sparsity, n_test = key
            pools[key] = make_figure1_ranking(n_test + n_max, n_items=m, n_features=p0, noise=noise,
                                              sparsity=sparsity, seed=seed)
        for members in groups.values():
            s = settings[members[0]]
            data = pools[tuple(s[k] for k in _DATA_KEYS)]
            X_test, Y_test = data.X[:s["n_test"]], data.Y[:s["n_test"]]
            X, Y = data.X[s["n_test"]:s["n_test"] + s["n"]], data.Y[s["n_test"]:s["n_test"] + s["n"]]
            if s["learner"] == "untrained" or s["n"] == 0:
                losses = untrained_losses(Y_test, s["f"])
                for i in members:
                    results[i, seed] = losses
                continue
            model = make_learner(s["learner"], s["f"], s["eta"], s["r"])
            passes = sorted({settings[i]["passes"] for i in members})
            for done, losses in _checkpoints(model, X, Y, X_test, Y_test, passes):
                for i in members:
                    if settings[i]["passes"] == done:
                        results[i, seed] = losses
    rows = []
    for i, s in enumerate(settings):
        for seed in seeds:
            losses = results[i, seed]
            if per_query:
                rows.extend({**s, "seed": seed, "query": q, "loss": float(v)} for q, v in enumerate(losses))
            else:
                rows.append({**s, "seed": seed, **summarize_losses(losses)})
    return pd.DataFrame(rows)


def per_run(per_query_table):
    """Collapse a per-query table of :func:`run_settings` to one row per run (the statistics)."""
    _check_table(per_query_table, "per_query_table")
    if "loss" not in per_query_table.columns or "query" not in per_query_table.columns:
        raise ValueError("per_query_table must be a run_settings(..., per_query=True) table with columns "
                         f"'query' and 'loss'; got columns {list(per_query_table.columns)[:12]}")
    _check_table(per_query_table, "per_query_table", numeric=("loss",))
    keys = [c for c in per_query_table.columns if c not in ("query", "loss")]
    run = [repr(values) for values in per_query_table[keys].itertuples(index=False)]
    rows = []
    for _, part in per_query_table.groupby(pd.Series(run, index=per_query_table.index), sort=False):
        rows.append({**part.iloc[0][keys].to_dict(), **summarize_losses(part["loss"].to_numpy())})
    return pd.DataFrame(rows).astype({k: per_query_table[k].dtype for k in keys})


def round_significant(table, digits: int = 3):
    """A copy of ``table`` with every float column rounded to ``digits`` significant digits.

    Losses span many decades (``1e-9`` to ``0.5``), so rounding to decimals would erase
    the small ones; this keeps printed tables short and stable.
    """
    digits = check_int(digits, "digits", minimum=1, maximum=17)
    if not isinstance(table, pd.DataFrame):
        raise ValueError(f"table must be a pandas DataFrame; got {excerpt(table)}")
    out = table.copy()
    for column in out.columns:
        if out[column].dtype.kind == "f":
            out[column] = [float(f"{v:.{digits}g}") if np.isfinite(v) else v for v in out[column]]
    return out


def seed_summary(results, by: Sequence[str]):
    """Summaries over seeds of a :func:`run_settings` table, one row per group of ``by``.

    For ``mean`` and ``perfect``: the mean over seeds (with equal test sets, the mean over
    all test queries of all seeds); for ``median``: the median over seeds of the per-seed
    medians, so it is 0 when most seeds have a zero median.  Each has ``_low`` and
    ``_high`` columns, the smallest and largest seed.  ``zero_median_seeds`` counts the
    seeds whose median per-query loss is exactly 0, ``zero_mean_seeds`` those whose
    mean is, and ``n_seeds`` the seeds.

    Parameters
    ----------
    results : pandas.DataFrame
        Output of :func:`run_settings` (one row per run).
    by : list of str
        Columns identifying a point of a curve (e.g. ``["f", "n"]``).

    Returns
    -------
    pandas.DataFrame
    """
    by = _check_columns(by, "by")
    _check_table(results, "results")
    missing = [c for c in [*by, *STATISTICS, "seed"] if c not in results.columns]
    if missing:
        raise ValueError(f"results lack the columns {missing}; expected a run_settings table (per_query=False) "
                         f"grouped by columns named in by")
    _check_table(results, "results", numeric=STATISTICS)
    grouped = results.groupby(by, sort=False)
    out = grouped.agg(
        n_seeds=("seed", "nunique"),
        mean=("mean", "mean"), mean_low=("mean", "min"), mean_high=("mean", "max"),
        median=("median", "median"), median_low=("median", "min"), median_high=("median", "max"),
        perfect=("perfect", "mean"), perfect_low=("perfect", "min"), perfect_high=("perfect", "max"),
        zero_median_seeds=("median", lambda v: int(np.sum(v == 0))),
        zero_mean_seeds=("mean", lambda v: int(np.sum(v == 0))),
    )
    return out.reset_index()
