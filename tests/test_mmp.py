"""MMP (Crammer and Singer, 2003): a worked example, its mistake bound, validation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predtron.baselines.mmp import (
    MMP,
    error_set,
    max_loss,
    mmp_bound,
    mmp_loss,
    mmp_margin,
    ranking_from_scores,
)


def _separable(seed: int, n: int = 150, k: int = 5, p: int = 6, margin: float = 0.05):
    """Unit-norm inputs labelled by the top labels of a unit-norm W*, kept above a margin."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((k, p))
    W /= np.linalg.norm(W)
    X, Y = [], []
    while len(X) < n:
        x = rng.standard_normal(p)
        x /= np.linalg.norm(x)
        t = W @ x
        n_rel = int(rng.integers(1, k))
        order = np.argsort(-t)
        if t[order[n_rel - 1]] - t[order[n_rel]] < margin:
            continue
        y = np.zeros(k, dtype=int)
        y[order[:n_rel]] = 1
        X.append(x)
        Y.append(y)
    return np.array(X), Y, W


def test_hand_worked_example():
    # k = 3, W = 0.
    # round 1: x = (1, 0), y = {0}: all scores 0, E = {(0,1), (0,2)}, L = 1, alpha = 1/2:
    #   tau = (1, -1/2, -1/2) -> W = [[1, 0], [-1/2, 0], [-1/2, 0]].
    # round 2: x = (0, 1), y = {1, 2}: t = (0, 0, 0), E = {(1,0), (2,0)}, alpha = 1/2:
    #   tau = (-1, 1/2, 1/2) -> W = [[1, -1], [-1/2, 1/2], [-1/2, 1/2]].
    # round 3: x = (1, 1), y = {0}: t = (0, 0, 0) -> E = {(0,1), (0,2)}, L = 1:
    #   tau = (1, -1/2, -1/2) -> W = [[2, 0], [-1, 0], [-1, 0]].
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    Y = [[1, 0, 0], [0, 1, 1], [1, 0, 0]]
    model = MMP(3).partial_fit(X, Y)
    np.testing.assert_allclose(model.coef_, [[2.0, 0.0], [-1.0, 0.0], [-1.0, 0.0]])
    np.testing.assert_array_equal(model.loss_history_, [1.0, 1.0, 1.0])
    assert model.n_updates_ == 3
    np.testing.assert_allclose(model.decision_function(X[:1]), [[2.0, -1.0, -1.0]])
    assert model.predict(X[:1]).tolist() == [[0, 1, 2]]
    # error-set-size loss scales the same step by |E| = 2 in every round
    big = MMP(3, loss="error_set_size").partial_fit(X, Y)
    np.testing.assert_array_equal(big.loss_history_, [2.0, 2.0, 2.0])
    np.testing.assert_allclose(big.coef_, 2 * model.coef_)


def test_error_set_and_losses():
    t = np.array([3.0, 1.0, 1.0, 0.0])
    y = np.array([0, 1, 0, 1])
    assert error_set(t, y) == [(1, 0), (1, 2), (3, 0), (3, 2)]
    assert mmp_loss(t, y) == 1.0
    assert mmp_loss(t, y, "error_set_size") == 4.0
    assert mmp_loss(np.array([2.0, 1.0]), np.array([1, 0])) == 0.0
    assert max_loss(5, "error_set_size") == 6.0 and max_loss(5) == 1.0
    assert ranking_from_scores(np.array([0.5, 2.0, 0.5, -1.0])).tolist() == [1, 0, 2, 3]


def test_trivial_labels_never_update():
    X = np.array([[1.0, 2.0], [0.5, -1.0]])
    model = MMP(3).fit(X, [[1, 1, 1], [0, 0, 0]], epochs=2)
    assert model.n_updates_ == 0
    assert not model.coef_.any()


@pytest.mark.parametrize("loss", ["is_error", "error_set_size"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_separable_data_finitely_many_mistakes(seed, loss):
    X, Y, W = _separable(seed)
    gamma = mmp_margin(W, X, Y)
    assert gamma >= 0.05
    model = MMP(5, loss=loss).fit(X, Y, epochs=60)
    history = model.loss_history_
    assert history.sum() <= mmp_bound(1.0, gamma, 5, loss)
    assert history[-len(Y):].sum() == 0  # the last pass is mistake-free
    assert model.mean_loss(X, Y) == 0.0


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_no_update_on_correct_rounds(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((15, 3))
    Y = rng.integers(0, 2, (15, 4))
    model = MMP(4)
    for x, y in zip(X, Y, strict=True):
        before = model.coef_.copy() if hasattr(model, "coef_") else np.zeros((4, 3))
        t = before @ x
        model.partial_fit(x[None, :], [y])
        if not error_set(t, y):
            np.testing.assert_array_equal(model.coef_, before)
        else:  # an update never moves the total of the prototypes (sum of tau is 0)
            np.testing.assert_allclose(model.coef_.sum(axis=0), before.sum(axis=0), atol=1e-12)


def test_validation_errors():
    X = np.ones((2, 3))
    with pytest.raises(ValueError, match="n_labels must be an integer >= 2"):
        MMP(1).fit(X, [[1], [0]])
    with pytest.raises(ValueError, match="loss must be one of"):
        MMP(3, loss="hamming").fit(X, [[1, 0, 0], [0, 1, 0]])
    with pytest.raises(ValueError, match="2-D array"):
        MMP(3).fit(np.ones(3), [[1, 0, 0]])
    with pytest.raises(ValueError, match="same number of examples"):
        MMP(3).fit(X, [[1, 0, 0]])
    with pytest.raises(ValueError, match=r"Y\[1\]: label must be a 0/1 array of length 3"):
        MMP(3).fit(X, [[1, 0, 0], [1, 0]])
    with pytest.raises(ValueError, match=r"Y\[0\]: label must contain only 0 and 1"):
        MMP(3).fit(X, [[2, 0, 0], [1, 0, 0]])
    with pytest.raises(ValueError, match="finite values"):
        MMP(3).fit(np.array([[np.nan, 0.0, 0.0]]), [[1, 0, 0]])
    with pytest.raises(ValueError, match="not fitted yet"):
        MMP(3).predict(X)
    model = MMP(3).fit(X, [[1, 0, 0], [0, 1, 0]])
    with pytest.raises(ValueError, match="has 2 features, but this MMP was fitted with 3"):
        model.predict(np.ones((1, 2)))
    with pytest.raises(ValueError, match="X is empty"):
        MMP(3).fit(np.ones((0, 3)), [])
    with pytest.raises(ValueError, match="Invalid parameter"):
        MMP(3).set_params(eta=1.0)
    with pytest.raises(ValueError, match="W is zero"):
        mmp_margin(np.zeros((3, 3)), X, [[1, 0, 0], [0, 1, 0]])
    with pytest.raises(ValueError, match=r"W must have shape \(n_labels, 3\)"):
        mmp_margin(np.ones((3, 2)), X, [[1, 0, 0], [0, 1, 0]])
    with pytest.raises(ValueError, match="gamma must be finite and > 0"):
        mmp_bound(1.0, 0.0, 3)
