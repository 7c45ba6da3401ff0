"""predtron.book.experiments: the Figure 1 protocol, panels, claims and figures, on tiny grids."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from predtron import Predtron, PredtronLink
from predtron.book.experiments import (
    centre_margin,
    claims_table,
    complete_setting,
    floor_below,
    loss_distribution,
    make_learner,
    margin_study,
    panel_a,
    panel_b,
    panel_c,
    passes_to_separate,
    per_run,
    plot_loss_ecdf,
    plot_margin_passes,
    protocol_table,
    query_losses,
    round_significant,
    run_settings,
    seed_summary,
    sensitivity,
    smallest_nonzero_loss,
    statistics_figure,
    summarize_losses,
    theorem1_step,
    untrained_losses,
)
from predtron.data.ranking import make_figure1_ranking
from predtron.problems import SubsetRanking

TINY = {"m": 6, "p0": 5, "n_test": 5}


# ------------------------------------------------------------------ protocol
def test_summarize_losses():
    assert summarize_losses([0.0, 0.0, 0.3, 0.1]) == {"mean": 0.1, "median": 0.05, "perfect": 0.5}
    with pytest.raises(ValueError, match="non-empty 1-D array"):
        summarize_losses([])


def test_make_learner():
    assert type(make_learner("l2", "square", eta=0.5)) is Predtron
    link = make_learner("l1", r=1.5)
    assert type(link) is PredtronLink and link.link.r == 1.5
    with pytest.raises(ValueError, match="learner must be 'l2' or 'l1'"):
        make_learner("untrained")
    with pytest.raises(ValueError, match="applies to learner='l1' only"):
        make_learner("l2", r=1.5)
    with pytest.raises(ValueError, match="eta must be finite and > 0"):
        make_learner("l2", eta=0.0)


def test_query_losses_agree_with_mean_loss_and_untrained_is_w_zero():
    data = make_figure1_ranking(12, n_items=6, n_features=5, noise=0.05, seed=1)
    model = make_learner("l2", "inverse").fit(data.X[:8], data.Y[:8], epochs=2)
    losses = query_losses(model, data.X[8:], data.Y[8:])
    assert losses.shape == (4,) and losses.mean() == pytest.approx(model.mean_loss(data.X[8:], data.Y[8:]))
    zero = make_learner("l2").partial_fit(data.X[:1], [np.zeros(6, dtype=int)])  # no update: w stays 0
    np.testing.assert_allclose(untrained_losses(data.Y[8:]), query_losses(zero, data.X[8:], data.Y[8:]))


def test_complete_setting_validates():
    assert complete_setting({"n": 3})["passes"] == 10
    with pytest.raises(ValueError, match=r"unknown setting keys \['epochs'\]"):
        complete_setting({"epochs": 3})
    with pytest.raises(ValueError, match="learner must be one of"):
        complete_setting({"learner": "l3"})
    with pytest.raises(ValueError, match="n must be an integer >= 0"):
        complete_setting({"n": -1})
    with pytest.raises(ValueError, match="passes must be an integer >= 1"):
        complete_setting({"passes": 0})
    with pytest.raises(ValueError, match="at least one setting"):
        run_settings([], seeds=[0])
    with pytest.raises(ValueError, match="at least one seed"):
        run_settings([{"n": 1}], seeds=[])


def test_run_settings_tidy_and_independent_of_the_other_settings():
    alone = run_settings([{**TINY, "n": 4}], seeds=[0, 1])
    more = run_settings([{**TINY, "n": 4}, {**TINY, "n": 9}, {**TINY, "n": 0}], seeds=[0, 1])
    assert list(alone.columns[-4:]) == ["seed", "mean", "median", "perfect"]
    assert len(more) == 6 and more["seed"].tolist() == [0, 1] * 3
    pd.testing.assert_frame_equal(alone, more.iloc[:2].reset_index(drop=True))
    # the same run by hand: test queries first, then the training queries
    data = make_figure1_ranking(5 + 4, n_items=6, n_features=5, noise=0.05, seed=1)
    model = Predtron(SubsetRanking(), eta=1.0).fit(data.X[5:], data.Y[5:], epochs=10)
    assert alone["mean"].iloc[1] == pytest.approx(model.mean_loss(data.X[:5], data.Y[:5]))
    # n = 0 is the untrained learner on the same test queries
    assert more["mean"].iloc[5] == pytest.approx(untrained_losses(data.Y[:5]).mean())


def test_passes_checkpoints_equal_separate_fits():
    grid = [{**TINY, "n": 6, "f": "inverse", "passes": k} for k in (1, 3, 4)]
    together = run_settings(grid, seeds=[2])
    for k, row in zip((1, 3, 4), together.itertuples(), strict=True):
        alone = run_settings([{**TINY, "n": 6, "f": "inverse", "passes": k}], seeds=[2])
        assert row.mean == alone["mean"].iloc[0] and row.median == alone["median"].iloc[0]


def test_per_query_table_collapses_to_the_summary():
    settings = [{**TINY, "n": 3, "f": "square"}, {**TINY, "n": 0}]
    queries = run_settings(settings, seeds=[0, 3], per_query=True)
    assert len(queries) == 2 * 2 * 5 and set(queries["query"]) == set(range(5))
    pd.testing.assert_frame_equal(per_run(queries), run_settings(settings, seeds=[0, 3]))
    with pytest.raises(ValueError, match="'query' and 'loss'"):
        per_run(run_settings(settings, seeds=[0]))


def test_seed_summary_statistics():
    runs = pd.DataFrame({"f": ["a"] * 4 + ["b"] * 4, "seed": list(range(4)) * 2,
                         "mean": [1e-4, 2e-4, 3e-4, 6e-4, 0.0, 0.0, 1e-6, 0.0],
                         "median": [0.0, 0.0, 0.0, 4e-6, 0.0, 0.0, 0.0, 0.0],
                         "perfect": [0.5, 0.6, 0.7, 0.2, 1.0, 1.0, 0.9, 1.0]})
    s = seed_summary(runs, ["f"]).set_index("f")
    assert s.loc["a", "mean"] == pytest.approx(3e-4) and s.loc["a", "mean_high"] == 6e-4
    assert s.loc["a", "median"] == 0.0 and s.loc["a", "zero_median_seeds"] == 3
    assert s.loc["b", "zero_mean_seeds"] == 3 and s.loc["b", "perfect_low"] == 0.9
    assert (s["n_seeds"] == 4).all()
    with pytest.raises(ValueError, match=r"lack the columns \['g'\]"):
        seed_summary(runs, ["g"])


def test_round_significant():
    table = pd.DataFrame({"x": [1.23456e-7, 0.123456, np.nan], "k": [1, 2, 3]})
    out = round_significant(table, 3)
    assert out["x"].iloc[0] == 1.23e-7 and out["x"].iloc[1] == 0.123 and np.isnan(out["x"].iloc[2])
    assert out["k"].tolist() == [1, 2, 3] and table["x"].iloc[0] == 1.23456e-7


# ------------------------------------------------------------------ panels
def test_panels_on_tiny_grids():
    a = panel_a((0, 3), fs=("inverse", "square"), m=6, p0=5, seeds=[0, 1], n_test=4)
    assert len(a) == 2 * 2 * 2 and set(a["n"]) == {0, 3} and set(a["f"]) == {"inverse", "square"}
    b = panel_b((5, 6), fs=("inverse",), n=3, p0=5, seeds=[0, 1], n_test=4)
    assert len(b) == 4 and set(b["m"]) == {5, 6}
    # the same setting reached from either panel is the same run
    same_a = a[(a["n"] == 3) & (a["f"] == "inverse")]["mean"].to_numpy()
    same_b = b[b["m"] == 6]["mean"].to_numpy()
    np.testing.assert_array_equal(same_a, same_b)
    c = panel_c((60, 120), sparsity=5, n=4, m=6, seeds=[0], n_test=3)
    assert set(c["learner"]) == {"l2", "l1", "untrained"} and len(c) == 6
    assert (c["sparsity"] == 5).all() and (c["noise"] == 0).all()
    untrained = c[c["learner"] == "untrained"]["mean"].to_numpy()
    trained = c[c["learner"] != "untrained"]["mean"].to_numpy()
    assert untrained.min() > 0 and trained.shape == (4,)
    c15 = panel_c((60,), learners=("l1",), sparsity=5, n=4, m=6, seeds=[0], n_test=3, r=1.5)
    assert c15["r"].iloc[0] == 1.5
    with pytest.raises(ValueError, match="n_grid must contain at least one value"):
        panel_a(())
    with pytest.raises(ValueError, match="fs must name at least one choice"):
        panel_b((5,), fs=())


def test_sensitivity_varies_one_choice():
    out = sensitivity("noise", [0.0, 0.1], fs=("square",), n=3, m=6, p0=5, seeds=[0], n_test=4)
    assert out["parameter"].unique().tolist() == ["noise"] and out["value"].tolist() == [0.0, 0.1]
    assert (out["n"] == 3).all() and (out["eta"] == 1.0).all()
    passes = sensitivity("passes", [1, 2], fs=("square",), n=3, m=6, p0=5, seeds=[0], n_test=4)
    assert passes["passes"].tolist() == [1, 2]
    with pytest.raises(ValueError, match="parameter must be one of"):
        sensitivity("gamma", [1])
    with pytest.raises(ValueError, match="at least one value of eta"):
        sensitivity("eta", [])


def test_eta_and_input_scale_act_only_through_their_product():
    data = make_figure1_ranking(25, n_items=8, n_features=6, noise=0.05, seed=3)
    X, Y, X_test = data.X[:20], data.Y[:20], data.X[20:]
    a = Predtron(SubsetRanking(f="inverse"), eta=4.0).fit(X, Y, epochs=3)
    b = Predtron(SubsetRanking(f="inverse"), eta=1.0).fit([2 * x for x in X], Y, epochs=3)
    np.testing.assert_array_equal(a.coef_, 2 * b.coef_)
    assert all(np.array_equal(p, q) for p, q in zip(a.predict(X_test), b.predict([2 * x for x in X_test]),
                                                    strict=True))


# ------------------------------------------------------------------ margins, losses
def test_centre_margin_orders_the_representations_as_lemma4_says():
    margins = {f: centre_margin(f, 20) for f in ("inverse", "power1.1", "square")}
    assert 0 < margins["inverse"] < margins["power1.1"] < margins["square"]
    # two documents: the margin is (c1 - c2) (f(1) - f(2)) / Z with Z = ||(f(1), f(2))||
    assert centre_margin("linear", 2) == pytest.approx(0.5 * 1 / np.sqrt(5))


def test_smallest_nonzero_loss_is_the_brute_force_minimum():
    from itertools import permutations

    problem = SubsetRanking()
    y = np.arange(4, -1, -1)
    brute = min(v for v in (problem.loss(np.array(s), y) for s in permutations(range(5))) if v > 0)
    assert smallest_nonzero_loss(5) == pytest.approx(brute)
    assert smallest_nonzero_loss(25) < smallest_nonzero_loss(20) < smallest_nonzero_loss(12) < 1e-5


def test_passes_to_separate_and_margin_study():
    data = make_figure1_ranking(6, n_items=6, n_features=5, noise=1e-4, seed=0)
    assert passes_to_separate(make_learner("l2", "square"), data.X, data.Y, 50) == 2
    noisy = make_figure1_ranking(40, n_items=12, n_features=5, noise=0.05, seed=0)
    assert passes_to_separate(make_learner("l2", "inverse"), noisy.X, noisy.Y, 1) is None
    study = margin_study(("inverse", "square"), m=6, n=5, p0=5, noise=1e-4, max_passes=20, seeds=[0, 1])
    assert len(study) == 4 and study["separated"].all() and (study["tied_queries"] == 0).all()
    assert (study["target_margin"] > 0).all()                      # no ties: w* has a positive margin
    tied = margin_study(("square",), m=12, n=10, p0=5, noise=0.05, max_passes=2, seeds=[0])
    assert tied["tied_queries"].iloc[0] > 0 and tied["target_margin"].iloc[0] < 0
    again = make_figure1_ranking(10, n_items=12, n_features=5, noise=0.05, seed=0)
    assert tied["tie_constraints"].iloc[0] == sum(12 - len(np.unique(y)) for y in again.Y)
    assert (study["tie_constraints"] == 0).all()


def test_theorem1_step():
    data = make_figure1_ranking(5, n_items=4, n_features=3, noise=0.05, seed=0)
    c_L = SubsetRanking().loss_bounds_for(data.Y)[0]
    R = max(np.linalg.norm(x, 2) for x in data.X)
    assert theorem1_step(data.X, data.Y) == pytest.approx(c_L / (4 * R**2))


def test_loss_distribution():
    table = pd.DataFrame({"f": ["a"] * 4 + ["b"] * 2, "loss": [0.0, 0.0, 0.1, 0.3, 0.2, 0.2]})
    out = loss_distribution(table, quantiles=(0.5,), tail=0.25).set_index("f")
    assert out.loc["a", "perfect"] == 0.5 and out.loc["a", "q50"] == pytest.approx(0.05)
    assert out.loc["a", "tail_share"] == pytest.approx(0.75) and out.loc["b", "tail_share"] == 0.5
    with pytest.raises(ValueError, match="must lie in"):
        loss_distribution(table, tail=1.5)


# ------------------------------------------------------------------ claims
def _claim_frames(good: bool):
    """Hand-made panel tables on which every claim holds (good) or the (a)/(b) claims fail."""
    rows_a = []
    for seed in range(4):
        for f, level in (("inverse", 1e-4), ("power1.1", 1e-6), ("square", 1e-6)):
            for n in (60, 100):
                zero = f != "inverse" and good
                rows_a.append({"f": f, "n": n, "seed": seed, "mean": 1e-11 if zero else level,
                               "median": 0.0 if zero else 1e-5, "perfect": 0.8 if zero else 0.1})
    rows_b = []
    for seed in range(4):
        for f in ("inverse", "power1.1", "square"):
            for m in (12, 20, 25):
                zero = f != "inverse" and m <= 20
                rows_b.append({"f": f, "m": m, "seed": seed, "mean": 1e-4 * (m if good else 1),
                               "median": 0.0 if zero else 1e-6,
                               "perfect": (0.9 - 0.02 * m) if good else 0.5})
    rows_c = []
    for seed in range(4):
        for p0 in (100, 500, 2500):
            rows_c += [{"learner": "l2", "p0": p0, "seed": seed, "mean": 0.1 + p0 / 10_000},
                       {"learner": "l1", "p0": p0, "seed": seed, "mean": 0.05 + p0 / 100_000},
                       {"learner": "untrained", "p0": p0, "seed": seed, "mean": 0.5}]
    for row in rows_c:
        row.update(median=row["mean"], perfect=0.0)
    return pd.DataFrame(rows_a), pd.DataFrame(rows_b), pd.DataFrame(rows_c)


def test_claims_table_verdicts():
    table = claims_table(*_claim_frames(good=True))
    assert list(table.columns) == ["panel", "claim", "reading", "measured", "reproduced"]
    assert table["reproduced"].all() and len(table) == 11
    assert table["panel"].tolist() == ["(a)"] * 5 + ["(b)"] * 3 + ["(c)"] * 3
    bad = claims_table(*_claim_frames(good=False))
    assert bad["reproduced"].tolist() == [False, False, False, True, False, False, False, True, True, True, True]
    assert "f2 4/4" in table["measured"].iloc[1]
    a, b, c = _claim_frames(good=True)
    most = a.copy()
    most.loc[(most["f"] == "square") & (most["n"] == 60) & (most["seed"] == 0), "median"] = 1e-9
    verdicts = claims_table(most, b, c)["reproduced"].tolist()
    assert verdicts[1] and not verdicts[2]                         # 3 of 4 seeds: most, not every
    c_flat = c.copy()
    c_flat.loc[c_flat["learner"] == "l2", "mean"] = 0.06
    assert claims_table(a, b, c_flat)["reproduced"].tolist()[8:10] == [False, False]


def test_claims_table_needs_the_grid_points():
    a, b, c = _claim_frames(good=True)
    with pytest.raises(ValueError, match="no single point f='inverse', n=100"):
        claims_table(a[a["n"] != 100], b, c)
    with pytest.raises(ValueError, match="contains p0=2500"):
        claims_table(a, b, c[c["p0"] != 2500])


# ------------------------------------------------------------------ figures and tables
def test_floor_below():
    assert floor_below([0.0, 3e-9, 0.2]) == pytest.approx(1e-10)
    assert floor_below([0.0]) == 1e-12


def test_statistics_figure_draws_zeros_at_the_floor():
    runs = pd.DataFrame({"f": ["a"] * 4, "n": [1, 1, 2, 2], "seed": [0, 1, 0, 1],
                         "mean": [1e-3, 2e-3, 1e-5, 3e-5], "median": [1e-4, 1e-4, 0.0, 0.0],
                         "perfect": [0.1, 0.2, 0.6, 0.7]})
    fig = statistics_figure(seed_summary(runs, ["f", "n"]), "n", "f", xlabel="n", floor=1e-8)
    axes = fig.axes
    assert [ax.get_yscale() for ax in axes] == ["log", "log", "linear"]
    np.testing.assert_allclose(axes[1].get_lines()[0].get_ydata(), [1e-4, 1e-8])
    assert axes[1].get_yticklabels()[0].get_text() == "0"
    assert fig.get_size_inches()[0] <= 7
    plt.close(fig)
    with pytest.raises(ValueError, match="below the floor"):
        statistics_figure(seed_summary(runs, ["f", "n"]), "n", "f", xlabel="n", floor=1e-3)
    plt.close("all")


def test_ecdf_and_margin_plots():
    table = pd.DataFrame({"f": ["a"] * 4, "loss": [0.0, 0.0, 1e-6, 1e-3]})
    fig, ax = plt.subplots()
    plot_loss_ecdf(ax, table, floor=1e-9)
    x, y = ax.get_lines()[0].get_data()
    np.testing.assert_allclose(x, [1e-9, 1e-9, 1e-6, 1e-3])
    np.testing.assert_allclose(y, [0.25, 0.5, 0.75, 1.0])
    plt.close(fig)
    study = pd.DataFrame({"f": ["a", "a", "b"], "centre_margin": [1e-5, 1e-5, 1e-4],
                          "passes": [np.nan, 40.0, 3.0]})
    fig, ax = plt.subplots()
    plot_margin_passes(ax, study, max_passes=300)
    assert ax.get_xscale() == "log" and len(ax.get_legend().get_texts()) == 2
    plt.close(fig)


def test_protocol_table():
    table = protocol_table({"a": (panel_a, {"seeds": range(8), "fs": ("inverse", "square")}),
                            "c": (panel_c, {"eta": 0.5})})
    assert table.loc["seeds", "a"] == "8 (0..7)" and table.loc["step size eta", "c"] == "0.5"
    assert table.loc["representation f", "a"] == "inverse, square" and table.loc["representation f", "c"] == "linear"
    assert table.loc["training queries n", "a"] == "0, 10, 20, 30, 40, 50, 60, 80, 100"
    assert table.loc["learners", "a"] == "l2" and table.loc["learners", "c"] == "l2, l1, untrained"
    assert table.loc["relevant features s", "a"] == "" and table.loc["relevant features s", "c"] == "50"
    with pytest.raises(ValueError, match=r"panel 'a': panel_a takes no arguments \['sparsity'\]"):
        protocol_table({"a": (panel_a, {"sparsity": 3})})
