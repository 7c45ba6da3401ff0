"""Ranking data: flat <-> per-query conversion, separable and Figure-1 generators (loaders: test_loaders.py)."""

from __future__ import annotations

import numpy as np
import pytest

from predtron.bounds import empirical_margin
from predtron.data.ranking import (
    figure1_centres,
    figure1_labels,
    figure1_sparse_target,
    figure1_thresholds,
    flatten_queries,
    make_figure1_ranking,
    make_separable_ranking,
    split_queries,
)
from predtron.problems.binary import Binary
from predtron.problems.multilabel_ranking import MultilabelRanking
from predtron.problems.subset_ranking import SubsetRanking


# ------------------------------------------------------------------ flat layout
def _flat():
    X = np.arange(14, dtype=float).reshape(7, 2)
    y = np.array([0, 1, 2, 0, 0, 1, 3])
    return X, y


def test_split_by_group_and_by_qid_agree_and_round_trip():
    X, y = _flat()
    Xs, ys = split_queries(X, y, group=[3, 1, 3])
    Xq, yq = split_queries(X, y, qid=[7, 7, 7, 2, 5, 5, 5])
    assert [len(v) for v in ys] == [3, 1, 3]
    for a, b in zip(Xs + ys, Xq + yq, strict=True):
        assert np.array_equal(a, b)
    X2, y2, group = flatten_queries(Xs, ys)
    assert np.array_equal(X2, X) and np.array_equal(y2, y) and group.tolist() == [3, 1, 3]


def test_non_contiguous_qids_rejected_or_gathered():
    X, y = _flat()
    qid = [4, 4, 9, 4, 9, 1, 1]
    with pytest.raises(ValueError, match=r"rows of query 4 are not contiguous \(row 3 follows rows of other "
                                         r"queries\); sort the rows by query id first") as error:
        split_queries(X, y, qid=qid)
    assert "sort=True" not in str(error.value)  # fit and the estimators cannot pass it
    Xs, ys = split_queries(X, y, qid=qid, sort=True)
    assert [x[:, 0].tolist() for x in Xs] == [[0, 2, 6], [4, 8], [10, 12]]
    assert [v.tolist() for v in ys] == [[0, 1, 0], [2, 0], [1, 3]]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({}, "exactly one of qid"),
    ({"qid": [1] * 7, "group": [7]}, "exactly one of qid"),
    ({"group": [3, 3]}, r"group sizes sum to 6 but there are 7 rows; group = \[3, 3\] \(2 values\)"),
    ({"group": [3, 0, 4]}, r"group sizes must be >= 1; group\[1\] = 0"),
    ({"group": [3.5, 3.5]}, r"group sizes must be whole numbers; group\[0\] = 3.5"),
    ({"group": ["3", "4"]}, "integer group sizes"),
    ({"qid": [1, 2]}, "one query id per row"),
])
def test_split_bad_grouping(kwargs, message):
    X, y = _flat()
    with pytest.raises(ValueError, match=message):
        split_queries(X, y, **kwargs)


def test_split_accepts_integral_float_group_sizes():
    X, y = _flat()
    Xs, _ = split_queries(X, y, group=np.array([3.0, 1.0, 3.0]))  # np.loadtxt reads sizes as floats
    assert [len(x) for x in Xs] == [3, 1, 3]


def test_split_bad_values():
    X, y = _flat()
    with pytest.raises(ValueError, match="relevance grades >= 0"):
        split_queries(X, np.where(y == 3, -1, y), group=[7])
    with pytest.raises(ValueError, match="contains NaN"):
        split_queries(X, np.where(y == 3, np.nan, y), group=[7])
    with pytest.raises(ValueError, match="one relevance grade per row"):
        split_queries(X, y[:5], group=[7])
    bad = X.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="finite"):
        split_queries(bad, y, group=[7])
    with pytest.raises(ValueError, match="ragged"):
        split_queries([[1.0, 2.0], [3.0]], [0, 1], group=[2])
    with pytest.raises(ValueError, match="2-D"):
        split_queries(np.ones(7), y, group=[7])


def test_flatten_bad_input():
    with pytest.raises(ValueError, match="same number of features"):
        flatten_queries([np.ones((2, 3)), np.ones((1, 2))], [[0, 1], [1]])
    with pytest.raises(ValueError, match=r"Xs\[0\] has 2 documents but ys\[0\] has 3"):
        flatten_queries([np.ones((2, 3))], [[0, 1, 1]])
    with pytest.raises(ValueError, match="one entry per query"):
        flatten_queries([np.ones((2, 3))], [[0, 1], [1]])
    with pytest.raises(ValueError, match="X must be a list of 2-D arrays"):
        flatten_queries("abc", [[0]])


# ------------------------------------------------------------------ separable data
@pytest.mark.parametrize("problem", [SubsetRanking(), SubsetRanking(f="inverse", k=3),
                                     SubsetRanking(loss="precision", k=2)], ids=["ndcg", "ndcg@3", "p@2"])
def test_separable_subset_ranking(problem):
    data = make_separable_ranking(problem, 25, 6, margin=0.05, n_items=(1, 7), seed=3)
    assert data.margin >= 0.05
    assert empirical_margin(problem, data.W_star, data.X, data.Y) == pytest.approx(data.margin)
    assert np.linalg.norm(data.W_star) == pytest.approx(1.0)
    assert all(x.shape == (len(y), 6) for x, y in zip(data.X, data.Y, strict=True))
    again = make_separable_ranking(problem, 25, 6, margin=0.05, n_items=(1, 7), seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(data.X, again.X, strict=True))


def test_separable_multilabel_ranking():
    problem = MultilabelRanking(5, f="square", y_max=2)
    data = make_separable_ranking(problem, 30, 8, margin=0.1, seed=1)
    assert data.X.shape == (30, 8) and data.margin >= 0.1
    assert empirical_margin(problem, data.W_star, data.X, data.Y) == pytest.approx(data.margin)
    assert np.linalg.norm(data.W_star) == pytest.approx(1.0)


def test_separable_ranking_errors():
    with pytest.raises(ValueError, match="must be a ranking problem"):
        make_separable_ranking(Binary(), 3, 2, 0.1)
    with pytest.raises(ValueError, match="n_features >= n_labels = 5"):
        make_separable_ranking(MultilabelRanking(5), 3, 4, 0.1)
    with pytest.raises(ValueError, match="no separable label with a non-zero loss"):
        make_separable_ranking(SubsetRanking(), 3, 2, 0.1, n_items=1, max_tries=5)
    with pytest.raises(ValueError, match="low <= high"):
        make_separable_ranking(SubsetRanking(), 3, 2, 0.1, n_items=(5, 2))
    with pytest.raises(ValueError, match="margin must be finite and > 0"):
        make_separable_ranking(SubsetRanking(), 3, 2, 0.0)


# ------------------------------------------------------------------ Figure 1
def test_figure1_thresholds_bands_and_labels():
    zeta = figure1_thresholds(5)
    assert zeta[0] == np.inf and zeta[-1] == -np.inf
    assert np.allclose(zeta[1:-1], [1 / 2, 1 / 3, 1 / 4, 1 / 5])
    centres = figure1_centres(20)
    assert figure1_labels(centres, 20).tolist() == list(range(19, -1, -1))
    assert figure1_labels(np.array([0.5, 0.49, 1 / 3, 0.01, 10.0]), 20).tolist() == [19, 18, 18, 0, 19]
    assert figure1_labels(figure1_centres(2), 2).tolist() == [1, 0]


def test_figure1_dense():
    data = make_figure1_ranking(5, n_items=20, n_features=30, seed=4, shuffle=False)
    assert len(data.X) == 5 and data.X[0].shape == (20, 30)
    for x, y in zip(data.X, data.Y, strict=True):
        assert np.array_equal(y, figure1_labels(x @ data.w_star, 20))
    assert np.linalg.norm(data.w_star) == pytest.approx(1.0)
    assert np.array_equal(data.centres, figure1_centres(20))
    top = np.array([y[:10] for y in data.Y])
    assert np.array_equal(top, np.tile(np.arange(19, 9, -1), (5, 1)))  # upper bands are wide


def test_figure1_dense_scores_are_centres_plus_noise():
    data = make_figure1_ranking(400, n_items=6, n_features=10, noise=0.02, seed=8, shuffle=False)
    scores = np.array([x @ data.w_star for x in data.X])           # (400, 6), row i = document i
    residual = scores - figure1_centres(6)
    assert np.abs(residual.mean()) < 0.002
    assert residual.std() == pytest.approx(0.02, rel=0.05)
    # every grade occurs, and the grade histogram is one document per band on average
    counts = np.bincount(np.concatenate(data.Y), minlength=6)
    assert counts.min() > 0.8 * 400 and counts.sum() == 6 * 400


def test_figure1_sparse_target():
    w = figure1_sparse_target(300, 50, norm=0.5, rng=np.random.default_rng(1))
    nonzero = w[w != 0]
    assert len(nonzero) == 50
    np.testing.assert_allclose(np.abs(nonzero), 0.5 / np.sqrt(50))
    assert np.linalg.norm(w) == pytest.approx(0.5)
    assert 10 < (nonzero > 0).sum() < 40                          # both signs occur
    with pytest.raises(ValueError, match="sparsity must be <= n_features = 5"):
        figure1_sparse_target(5, 6)
    with pytest.raises(ValueError, match="norm must be finite and > 0"):
        figure1_sparse_target(5, 2, norm=0.0)


def test_figure1_sparse_documents_uniform_and_scores_at_the_stated_scale():
    from scipy import stats

    data = make_figure1_ranking(300, n_items=20, n_features=100, noise=0.0, sparsity=50, seed=4)
    assert len(data.X) == 300 and data.X[0].shape == (20, 100) and data.centres is None
    entries = np.concatenate([x.ravel() for x in data.X])
    assert entries.min() >= -1 and entries.max() <= 1
    assert stats.kstest(entries[:20_000], "uniform", args=(-1, 2)).pvalue > 1e-3
    assert entries.var() == pytest.approx(1 / 3, rel=0.01)
    assert np.count_nonzero(data.w_star) == 50
    assert np.linalg.norm(data.w_star) == pytest.approx(0.5)
    scores = np.concatenate([x @ data.w_star for x in data.X])
    assert abs(scores.mean()) < 0.01
    assert scores.std() == pytest.approx(0.5 / np.sqrt(3), rel=0.03)   # the docstring's scale
    for x, y in zip(data.X, data.Y, strict=True):                 # noise = 0: exact grades
        assert np.array_equal(y, figure1_labels(x @ data.w_star, 20))
    grades = np.concatenate(data.Y)
    counts = np.bincount(grades, minlength=20)
    assert counts.min() > 0                                       # every band is covered
    assert 0.03 < np.mean(grades == 19) < 0.055                   # ~4% above zeta_2 = 1/2
    assert 0.53 < np.mean(grades == 0) < 0.60                     # ~57% below zeta_20 = 1/20
    bigger = make_figure1_ranking(3, n_items=20, n_features=2000, noise=0.0, sparsity=50, seed=4,
                                  target_norm=1.0)
    assert np.linalg.norm(bigger.w_star) == pytest.approx(1.0)


def test_figure1_sparse_noise_perturbs_the_grades_only():
    clean = make_figure1_ranking(50, n_items=20, n_features=100, noise=0.0, sparsity=10, seed=2)
    noisy = make_figure1_ranking(50, n_items=20, n_features=100, noise=0.01, sparsity=10, seed=2)
    exact = [figure1_labels(x @ noisy.w_star, 20) for x in noisy.X]
    changed = np.mean([np.mean(a != b) for a, b in zip(exact, noisy.Y, strict=True)])
    assert 0.01 < changed < 0.5
    assert np.array_equal(clean.w_star, noisy.w_star)


def test_figure1_determinism_by_seed():
    for kwargs in ({}, {"sparsity": 15, "n_features": 200}):
        a = make_figure1_ranking(3, n_items=10, seed=4, **kwargs)
        b = make_figure1_ranking(3, n_items=10, seed=4, **kwargs)
        c = make_figure1_ranking(3, n_items=10, seed=5, **kwargs)
        assert all(np.array_equal(u, v) for u, v in zip(a.X + a.Y, b.X + b.Y, strict=True))
        assert np.array_equal(a.w_star, b.w_star)
        assert not np.array_equal(a.X[0], c.X[0]) and not np.array_equal(a.w_star, c.w_star)


def test_figure1_rows_are_shuffled_by_default():
    from predtron.problems import SubsetRanking

    plain = make_figure1_ranking(4, n_items=12, n_features=8, seed=2, shuffle=False)
    mixed = make_figure1_ranking(4, n_items=12, n_features=8, seed=2)
    problem = SubsetRanking()
    untrained = [problem.loss(problem.pred(np.zeros(12)), y) for y in plain.Y]
    assert max(untrained) < 1e-3            # unshuffled, the input order is the answer
    for x, y, x0, y0 in zip(mixed.X, mixed.Y, plain.X, plain.Y, strict=True):
        assert np.array_equal(np.sort(y), np.sort(y0)) and not np.array_equal(y, y0)
        assert np.array_equal(np.sort(x[:, 0]), np.sort(x0[:, 0]))  # same documents, new order
    assert np.mean([problem.loss(problem.pred(np.zeros(12)), y) for y in mixed.Y]) > 0.1


def test_figure1_errors():
    with pytest.raises(ValueError, match="sparsity must be <= n_features = 5"):
        make_figure1_ranking(2, n_features=5, sparsity=6)
    with pytest.raises(ValueError, match="n_items must be an integer >= 2"):
        make_figure1_ranking(2, n_items=1)
    with pytest.raises(ValueError, match="noise must be finite and >= 0"):
        make_figure1_ranking(2, noise=-1.0)
    with pytest.raises(ValueError, match="norm must be finite and > 0"):
        make_figure1_ranking(2, n_features=5, sparsity=2, target_norm=-1.0)


def test_learners_take_the_flat_layout():
    from predtron import Predtron
    from predtron.data import flatten_queries
    from predtron.problems import Binary, SubsetRanking

    rng = np.random.default_rng(0)
    Xs = [rng.standard_normal((m, 4)) for m in (3, 5, 1, 4)]
    ys = [rng.integers(0, 3, m) for m in (3, 5, 1, 4)]
    X, y, group = flatten_queries(Xs, ys)
    qid = np.repeat([10, 11, 12, 13], group)
    by_list = Predtron(SubsetRanking()).fit(Xs, ys, epochs=2)
    by_qid = Predtron(SubsetRanking()).fit(X, y, epochs=2, qid=qid)
    by_group = Predtron(SubsetRanking()).fit(X, y, epochs=2, group=[3, 5, 1, 4])
    np.testing.assert_array_equal(by_list.coef_, by_qid.coef_)
    np.testing.assert_array_equal(by_list.coef_, by_group.coef_)
    flat_predictions = by_qid.predict(X, qid=qid)
    assert all(np.array_equal(a, b) for a, b in zip(flat_predictions, by_list.predict(Xs), strict=True))
    assert by_group.mean_loss(X, y, group=[3, 5, 1, 4]) == by_list.mean_loss(Xs, ys)
    with pytest.raises(ValueError, match="qid and group describe ranking inputs"):
        Predtron(Binary()).fit(np.ones((2, 2)), [1, -1], qid=[0, 1])


def test_orthonormal_rows_of_the_multilabel_target_are_orthonormal_and_span_the_draw():
    from predtron.data.ranking import _orthonormal_rows

    rng = np.random.default_rng(0)
    for m, p in [(1, 3), (6, 10), (10, 10), (20, 300)]:
        A = rng.standard_normal((m, p))
        Q = _orthonormal_rows(A)
        np.testing.assert_allclose(Q @ Q.T, np.eye(m), atol=1e-13)
        np.testing.assert_allclose(A @ Q.T @ Q, A, atol=1e-12)  # same row space
        np.testing.assert_array_equal(_orthonormal_rows(A), Q)
