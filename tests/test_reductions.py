"""One-vs-all and all-pairs reductions (UML Section 17.1)."""

from __future__ import annotations

import numpy as np
import pytest

from predtron import Predtron
from predtron.problems import Binary
from predtron.reductions import AllPairs, OneVsAll


class LeastSquares:
    """A non-predtron binary learner: ridge regression on +-1 targets."""

    def fit(self, X, y):
        X1 = np.column_stack([X, np.ones(len(X))])
        self.w = np.linalg.solve(X1.T @ X1 + 1e-6 * np.eye(X1.shape[1]), X1.T @ y)
        return self

    def decision_function(self, X):
        return np.column_stack([X, np.ones(len(X))]) @ self.w


class Fixed:
    """A learner whose scores are given column j of X (to test the decision rules)."""

    def __init__(self, column):
        self.column = column

    def fit(self, X, y):
        return self

    def decision_function(self, X):
        return X[:, self.column]


def _blobs(seed=0, k=4, n=30):
    """Blobs at the corners of a simplex: every class is linearly separable from the rest."""
    rng = np.random.default_rng(seed)
    centres = 3 * np.eye(k)
    Y = np.repeat(np.arange(k), n)
    X = centres[Y] + 0.3 * rng.standard_normal((k * n, k))
    return np.column_stack([X, np.ones(len(X))]), Y


def test_one_vs_all_equals_independent_perceptrons():
    X, Y = _blobs()
    ova = OneVsAll(lambda: Predtron(Binary()), fit_params={"epochs": 3}).fit(X, Y)
    for c, h in zip(ova.classes_, ova.estimators_, strict=True):
        alone = Predtron(Binary()).fit(X, np.where(Y == c, 1, -1), epochs=3)
        assert np.allclose(h.coef_, alone.coef_)
    scores = np.column_stack([
        Predtron(Binary()).fit(X, np.where(Y == c, 1, -1), epochs=3).decision_function(X)[:, 0]
        for c in ova.classes_])
    assert np.allclose(ova.decision_function(X), scores)
    assert np.array_equal(ova.predict(X), np.argmax(scores, axis=1))


def test_all_pairs_trains_on_the_two_classes_only():
    X, Y = _blobs(k=3)
    ap = AllPairs(lambda: Predtron(Binary()), fit_params={"epochs": 3}).fit(X, Y)
    assert sorted(ap.estimators_) == [(0, 1), (0, 2), (1, 2)]
    keep = (Y == 0) | (Y == 2)
    alone = Predtron(Binary()).fit(X[keep], np.where(Y[keep] == 0, 1, -1), epochs=3)
    assert np.allclose(ap.estimators_[(0, 2)].coef_, alone.coef_)


@pytest.mark.parametrize("reduction", [OneVsAll, AllPairs])
@pytest.mark.parametrize("factory", [lambda: Predtron(Binary()), LeastSquares], ids=["predtron", "lsq"])
def test_reductions_learn_separated_blobs(reduction, factory):
    X, Y = _blobs(seed=1)
    params = {"epochs": 10} if factory is not LeastSquares else None
    model = reduction(factory, fit_params=params).fit(X, Y)
    assert model.mean_loss(X, Y) == 0.0


def test_all_pairs_decision_rule_and_ties():
    # three classes; h_01, h_02, h_12 read columns 0, 1, 2 of X
    columns = iter([0, 1, 2])
    ap = AllPairs(lambda: Fixed(next(columns))).fit(np.zeros((3, 3)), [0, 1, 2])
    X = np.array([[1.0, 1.0, -1.0],    # 0 beats 1 and 2, 2 beats 1
                  [-1.0, 1.0, 1.0],    # 1 beats 0, 0 beats 2, 1 beats 2
                  [1.0, -1.0, 1.0],    # cycle 0 > 1 > 2 > 0: all tied, smallest class wins
                  [0.0, 0.0, 0.0]])    # no votes: tie, class 0
    votes = ap.decision_function(X)
    # class i gets +h_ij for j > i and -h_ji for j < i
    assert votes[0].tolist() == [2.0, -2.0, 0.0]
    assert votes[1].tolist() == [0.0, 2.0, -2.0]
    assert votes[2].tolist() == [0.0, 0.0, 0.0]
    assert ap.predict(X).tolist() == [0, 1, 0, 0]
    columns = iter([0, 1, 2])
    scored = AllPairs(lambda: Fixed(next(columns)), vote="score").fit(np.zeros((3, 3)), [0, 1, 2])
    assert scored.decision_function(np.array([[0.5, 3.0, -2.0]]))[0].tolist() == [3.5, -2.5, -1.0]


def test_one_vs_all_ties_go_to_the_first_class():
    columns = iter([0, 1, 2])
    ova = OneVsAll(lambda: Fixed(next(columns))).fit(np.zeros((3, 3)), ["b", "a", "c"])
    assert ova.classes_.tolist() == ["a", "b", "c"]
    assert ova.predict(np.array([[1.0, 1.0, 0.0], [0.0, 2.0, 3.0]])).tolist() == ["a", "c"]


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: OneVsAll(3).fit(np.zeros((2, 2)), [0, 1]), r"factory must be a callable"),
        (lambda: OneVsAll(lambda: 3).fit(np.zeros((2, 2)), [0, 1]),
         r"binary learner with fit and decision_function; int has no fit"),
        (lambda: OneVsAll(LeastSquares).fit(np.zeros((2, 2)), [0, 0]), r"at least 2 classes; got \[0\]"),
        (lambda: AllPairs(LeastSquares).fit(np.zeros(2), [0, 1]), r"X must be a 2-D array"),
        (lambda: AllPairs(LeastSquares).fit(np.zeros((2, 2)), [0, 1, 1]),
         r"same number of examples; got 2 inputs and 3 labels"),
        (lambda: AllPairs(LeastSquares, vote="max").fit(np.zeros((2, 2)), [0, 1]),
         r"vote must be one of \['score', 'sign'\]"),
        (lambda: OneVsAll(LeastSquares).predict(np.zeros((2, 2))), r"not fitted yet"),
        (lambda: OneVsAll(lambda: Fixed(slice(None))).fit(np.zeros((2, 2)), [0, 1]).predict(np.zeros((2, 2))),
         r"one finite score per example"),
    ],
)
def test_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()
