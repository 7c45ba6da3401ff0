"""The F-beta oracle (a binary search per number of predicted labels) against the count grid
it replaces and against brute force over all 2^m predictions; the scaler's indicator rule."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from predtron.problems import Multilabel
from predtron.problems.bipartite import BipartiteMeasure
from predtron.sklearn._scaling import _Standardizer


def _scores(rng, m, trial):
    if trial % 3 == 0:  # many exact ties
        return rng.integers(-2, 3, size=m) * 0.25
    return rng.normal(size=m) * 10.0 ** rng.integers(-3, 3)


@pytest.mark.parametrize("beta", [1.0, 0.5, 2.0, 3.7])
def test_fbeta_oracle_equals_the_count_grid(beta):
    rng = np.random.default_rng(int(beta * 10))
    for trial in range(400):
        m = int(rng.integers(1, 60))
        measure = BipartiteMeasure("fbeta", m, beta)
        t = _scores(rng, m, trial)
        y = (rng.random(m) < rng.random()).astype(np.int64)
        np.testing.assert_array_equal(measure.oracle(t, y), measure.oracle_grid(t, y))


@pytest.mark.parametrize("loss", ["f1", "fbeta"])
def test_fbeta_oracle_maximises_over_every_prediction(loss):
    rng = np.random.default_rng(3)
    for trial in range(60):
        m = int(rng.integers(1, 9))
        problem = Multilabel(m, loss, beta=2.0) if loss == "fbeta" else Multilabel(m, loss)
        t = _scores(rng, m, trial)
        y = rng.integers(0, 2, m)
        chosen = problem.oracle(t, y)
        rep_y = problem.rep(y)
        best = max(problem.loss(np.array(v), y) - (rep_y - problem.rep(np.array(v))) @ t
                   for v in itertools.product((0, 1), repeat=m))
        value = problem.loss(chosen, y) - (rep_y - problem.rep(chosen)) @ t
        assert value >= best - 1e-9 * (1 + abs(best))


def test_scaler_leaves_indicators_and_sparsity_alone():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(5, 3, 50), rng.random(50) < 0.05, np.zeros(50), np.ones(50)]).astype(float)
    X[0, 1] = 1.0
    scaler = _Standardizer(X)
    Z = scaler(X)
    np.testing.assert_array_equal(Z[:, 1], X[:, 1])            # 0/1 column untouched
    np.testing.assert_array_equal(Z[:, 2:], 0.0)                # constant columns centred
    assert abs(Z[:, 0].mean()) < 1e-12 and abs(Z[:, 0].std() - 1) < 1e-12
    S = sp.csr_matrix(np.column_stack([X[:, 1], 4 * X[:, 1] - 2 * (rng.random(50) < 0.1)]))
    sparse = _Standardizer(S)
    np.testing.assert_array_equal(sparse.scale, [1.0, np.abs(S[:, 1].toarray()).max()])
    assert sp.issparse(sparse(S)) and np.abs(sparse(S).toarray()).max() <= 1.0
