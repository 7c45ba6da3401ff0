"""PRank (Crammer and Singer, 2001): a worked example, its proven properties, validation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predtron.baselines.prank import (
    PRank,
    make_ranked_data,
    multiclass_target,
    prank_bound,
    rank_margin,
)
from predtron.bounds import empirical_margin
from predtron.problems.ordinal import Ordinal


def test_hand_worked_example():
    # l = 3, w = 0, b = (0, 0).
    # round 1: x=(1,0), y=0: w.x=0, no threshold exceeds 0 -> predict 2 (loss 2);
    #   both thresholds are wrong (z = -1, -1): w -= 2 x, b += 1 -> w=(-2,0), b=(1,1).
    # round 2: x=(0,1), y=2: w.x=0 < b_0 -> predict 0 (loss 2); z = (+1,+1):
    #   w += 2 x, b -= 1 -> w=(-2,2), b=(0,0).
    # round 3: x=(1,1), y=1: w.x=0, predict 2 (loss 1); z = (+1,-1), both on the
    #   boundary: w moves by (1 - 1) x = 0, b = (-1, 1); now w.x=0 falls in level 1.
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    model = PRank(3).partial_fit(X, [0, 2, 1])
    np.testing.assert_array_equal(model.loss_history_, [2.0, 2.0, 1.0])
    np.testing.assert_array_equal(model.coef_, [-2.0, 2.0])
    np.testing.assert_array_equal(model.thresholds_, [-1.0, 1.0])
    assert model.n_updates_ == 3
    assert model.predict(X[2:]).tolist() == [1]
    np.testing.assert_array_equal(model.decision_function(X), [-2.0, 2.0, 0.0])


def test_prediction_is_first_level_whose_threshold_exceeds_the_score():
    model = PRank(4).partial_fit(np.array([[1.0]]), [3])
    model.coef_ = np.array([1.0])
    model.thresholds_ = np.array([-1.0, 0.0, 2.0])
    X = np.array([[-3.0], [-1.0], [-0.5], [0.0], [1.9], [2.0], [5.0]])
    assert model.predict(X).tolist() == [0, 1, 1, 2, 2, 3, 3]
    assert model.mean_loss(X, [0, 1, 1, 2, 2, 3, 3]) == 0.0
    assert model.mean_loss(X, [3, 1, 1, 2, 2, 3, 0]) == pytest.approx(6 / 7)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n_levels=st.integers(2, 6))
def test_thresholds_stay_ordered(seed, n_levels):
    # Crammer and Singer (2001), Lemma 1: starting from b = 0 the thresholds stay
    # non-decreasing after every update, on any data (here noisy, not separable).
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((40, 3)) * rng.choice([0.1, 1.0, 10.0])
    y = rng.integers(0, n_levels, 40)
    model = PRank(n_levels)
    for i in range(len(y)):
        model.partial_fit(X[i:i + 1], y[i:i + 1])
        assert np.all(np.diff(model.thresholds_) >= 0), model.thresholds_


@pytest.mark.parametrize(("n_levels", "seed"), [(2, 0), (3, 1), (5, 2)])
def test_mistake_bound_on_separable_data(n_levels, seed):
    data = make_ranked_data(200, 4, n_levels, gap=0.05, seed=seed)
    gamma = rank_margin(data.w_star, data.thresholds, data.X, data.y)
    assert gamma > 0
    R = float(np.linalg.norm(data.X, axis=1).max())
    model = PRank(n_levels).fit(data.X, data.y, epochs=30)
    assert model.loss_history_.sum() <= prank_bound(R, gamma, n_levels)
    # after enough passes the last pass is mistake-free (the bound is finite)
    assert model.loss_history_[-len(data.y):].sum() == 0
    assert model.mean_loss(data.X, data.y) == 0.0


def test_fit_restarts_and_is_deterministic():
    data = make_ranked_data(60, 3, 3, noise=0.2, seed=4)
    a = PRank(3).fit(data.X, data.y, epochs=2)
    first = a.predict(data.X).copy()
    assert a.loss_history_.shape == (120,)
    assert a.n_updates_ == int(np.count_nonzero(a.loss_history_))
    a.fit(data.X, data.y, epochs=2)
    np.testing.assert_array_equal(first, a.predict(data.X))
    np.testing.assert_array_equal(first, PRank(3).fit(data.X, data.y, epochs=2).predict(data.X))
    assert a.get_params() == {"n_levels": 3}
    assert repr(a) == "PRank(n_levels=3)"
    assert a.set_params(n_levels=4).n_levels == 4


def test_make_ranked_data_is_separable_in_both_senses():
    data = make_ranked_data(150, 4, 4, gap=0.04, seed=3)
    assert data.X.shape == (150, 4)
    np.testing.assert_array_equal(data.X[:, -1], 1.0)
    assert set(np.unique(data.y)) == {0, 1, 2, 3}
    assert np.all(np.diff(data.thresholds) > 0)
    assert rank_margin(data.w_star, data.thresholds, data.X, data.y) >= 0.04 / np.sqrt(
        1 + data.thresholds @ data.thresholds) - 1e-12
    W = multiclass_target(data.w_star, data.thresholds)
    assert np.linalg.norm(W) == pytest.approx(1.0)
    assert empirical_margin(Ordinal(4), W, data.X, list(data.y)) > 0


def test_noisy_data_is_not_separable():
    data = make_ranked_data(300, 3, 3, noise=0.3, seed=0)
    assert rank_margin(data.w_star, data.thresholds, data.X, data.y) < 0


def test_bound_formula():
    assert prank_bound(2.0, 0.5, 3) == pytest.approx(2 * 5 / 0.25)


# ----------------------------------------------------------------- validation
X2 = np.array([[1.0, 0.0], [0.0, 1.0]])


@pytest.mark.parametrize("n_levels", [1, 0, 2.5, "3", True])
def test_bad_n_levels(n_levels):
    model = PRank(n_levels)  # the constructor only stores it
    with pytest.raises(ValueError, match="n_levels must be an integer >= 2"):
        model.fit(X2, [0, 1])


@pytest.mark.parametrize(("y", "match"), [
    ([0, 3], r"y\[1\]: label must be an integer in 0..2; got 3"),
    ([-1, 0], r"y\[0\]: label must be an integer in 0..2; got -1"),
    ([0, 0.5], r"y\[1\]: label must be an integer in 0..2; got 0.5"),
])
def test_bad_labels(y, match):
    with pytest.raises(ValueError, match=match):
        PRank(3).fit(X2, y)


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"X must be a 2-D array .* got an array with shape \(2,\)"):
        PRank(3).fit([1.0, 2.0], [0, 1])
    with pytest.raises(ValueError, match="X must contain only finite values"):
        PRank(3).fit([[np.nan, 1.0]], [0])
    with pytest.raises(ValueError, match="X and y must have the same number of examples; got 2 inputs and 1"):
        PRank(3).fit(X2, [0])
    with pytest.raises(ValueError, match="X is empty"):
        PRank(3).fit(np.zeros((0, 2)), [])
    with pytest.raises(ValueError, match="epochs must be an integer >= 1"):
        PRank(3).fit(X2, [0, 1], epochs=0)


def test_feature_mismatch_and_unfitted():
    with pytest.raises(ValueError, match="not fitted yet"):
        PRank(3).predict(X2)
    with pytest.raises(ValueError, match="not fitted yet"):
        _ = PRank(3).loss_history_
    model = PRank(3).fit(X2, [0, 1])
    with pytest.raises(ValueError, match="X has 3 features, but this PRank was fitted with 2 features"):
        model.predict(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="Invalid parameter 'eta' for estimator"):
        model.set_params(eta=1.0)


def test_helper_validation():
    X = np.array([[1.0, 1.0]])
    with pytest.raises(ValueError, match="w must be a vector of length 2"):
        rank_margin([1.0], [0.0], X, [1])
    with pytest.raises(ValueError, match="thresholds must be a non-empty vector"):
        rank_margin([1.0, 0.0], [], X, [1])
    with pytest.raises(ValueError, match="X and y must have the same length"):
        rank_margin([1.0, 0.0], [0.0], X, [1, 0])
    with pytest.raises(ValueError, match="w and thresholds are all zero"):
        rank_margin([0.0, 0.0], [0.0], X, [1])
    with pytest.raises(ValueError, match="gamma must be finite and > 0"):
        prank_bound(1.0, 0.0, 3)
    with pytest.raises(ValueError, match="n_levels must be an integer >= 2"):
        prank_bound(1.0, 0.1, 1)
    with pytest.raises(ValueError, match=r"gap=0\.4 is too large for n_levels=5 levels"):
        make_ranked_data(10, 3, 5, gap=0.4)
    with pytest.raises(ValueError, match="n_features must be an integer >= 2"):
        make_ranked_data(10, 1, 3)
    with pytest.raises(ValueError, match="noise must be finite and >= 0"):
        make_ranked_data(10, 3, 3, noise=-1.0)
    with pytest.raises(ValueError, match=r"last entry .* is 0"):
        multiclass_target([1.0, 1.0], [0.0])
    with pytest.raises(ValueError, match="thresholds must be a non-empty increasing vector"):
        multiclass_target([1.0, 0.0], [0.5, 0.5])
