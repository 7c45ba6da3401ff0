"""Corollaries 5-8 (ranking bounds), their radii, and Corollaries 5 and 7 on separable data."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from predtron.bounds import (
    column_norm_radius,
    corollary5_bound,
    corollary6_bound,
    corollary7_bound,
    corollary8_bound,
    l2_radius,
    linf_radius,
    operator_norm_radius,
    theorem1_bound,
    theorem1_eta,
)
from predtron.data.ranking import make_separable_ranking
from predtron.learners.predtron import Predtron
from predtron.problems.multilabel_ranking import MultilabelRanking
from predtron.problems.subset_ranking import SubsetRanking


def test_corollary_formulas():
    base = 2.0**5 * 16 * math.log2(8) ** 2 * 4.0 / 0.25
    assert corollary5_bound(2.0, 0.5, 4, 2) == pytest.approx(base)
    assert corollary7_bound(2.0, 0.5, 4, 2) == pytest.approx(base)
    assert corollary6_bound(2.0, 0.5, 4, 2, 100) == pytest.approx(9 * math.log(100) * base)
    assert corollary8_bound(2.0, 0.5, 4, 2, 20) == pytest.approx(9 * math.log(20) * base)


def test_radii():
    X = [np.array([[3.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 1.0], [1.0, 1.0], [0.0, 2.0]])]
    assert operator_norm_radius(X) == pytest.approx(max(3.0, np.linalg.norm(X[1], 2)))
    assert column_norm_radius(X) == pytest.approx(3.0)
    assert column_norm_radius([X[1]]) == pytest.approx(math.sqrt(6.0))
    V = np.array([[3.0, -4.0], [1.0, 0.5]])
    assert l2_radius(V) == pytest.approx(5.0)
    assert linf_radius(V) == pytest.approx(4.0)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: corollary5_bound(1.0, 0.0, 3, 1), "gamma must be finite and > 0"),
    (lambda: corollary5_bound(-1.0, 0.1, 3, 1), "R must be finite and > 0"),
    (lambda: corollary7_bound(1.0, 0.1, 0, 1), "n_labels must be an integer >= 1"),
    (lambda: corollary6_bound(1.0, 0.1, 3, 1, 1), "n_features must be an integer >= 2"),
    (lambda: corollary8_bound(1.0, 0.1, 3, -1, 10), "y_max must be an integer >= 0"),
    (lambda: operator_norm_radius([np.ones(3)]), "2-D"),
    (lambda: l2_radius(np.ones(3)), "2-D"),
])
def test_bound_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def _run_to_convergence(problem, data, max_epochs=200):
    """Predtron with Theorem 1's eta (c_L of the data), repeated passes until a pass has no loss."""
    c_L, C_L = problem.loss_bounds_for(data.Y)
    learner = Predtron(problem, eta=theorem1_eta(data.radius, c_L))
    for _ in range(max_epochs):
        before = len(learner.loss_history_) if hasattr(learner, "n_features_in_") else 0
        learner.partial_fit(data.X, data.Y)
        if learner.loss_history_[before:].sum() == 0:
            return learner, c_L, C_L
    raise AssertionError("Predtron did not separate separable data")


@pytest.mark.parametrize("f", ["linear", "inverse", "square"])
def test_corollary5_holds_on_separable_data(f):
    problem = SubsetRanking(f=f)
    data = make_separable_ranking(problem, 40, 6, margin=0.05, n_items=(2, 7), y_max=3, seed=2)
    learner, c_L, C_L = _run_to_convergence(problem, data)
    total = learner.loss_history_.sum()
    m = max(len(y) for y in data.Y)
    y_max = max(int(y.max()) for y in data.Y)
    R = operator_norm_radius(data.X)
    assert R == pytest.approx(data.radius)
    theorem = theorem1_bound(R, data.margin, c_L, C_L)
    assert total <= theorem <= corollary5_bound(R, data.margin, m, y_max)


def test_corollary7_holds_on_separable_data():
    problem = MultilabelRanking(5, f="power1.1", y_max=2)
    data = make_separable_ranking(problem, 40, 8, margin=0.1, noise=0.3, seed=5)
    learner, c_L, C_L = _run_to_convergence(problem, data)
    R = l2_radius(data.X)
    theorem = theorem1_bound(R, data.margin, c_L, C_L)
    assert learner.loss_history_.sum() <= theorem <= corollary7_bound(R, data.margin, 5, 2)
    assert c_L >= problem.c_L and C_L <= problem.C_L


# ------------------------------------------------------------------ Theorem 1's step on a data set
def _per_query_c_L(problem, grades, offsets) -> float:
    """The loop the estimators ran before: loss_bounds_for over one label per query."""
    return problem.loss_bounds_for([grades[a:b] for a, b in itertools.pairwise(offsets)])[0]


@pytest.mark.parametrize("options", [dict(), dict(k=3), dict(f="linear"), dict(f="inverse", k=2),
                                     dict(loss="precision", k=2), dict(gain="linear"), dict(f="square", k=1)])
@pytest.mark.parametrize("seed", range(4))
def test_grade_c_L_equals_the_per_query_loop(options, seed):
    """Bit for bit, on queries of 1 to 12 documents with ties, all-zero queries and shuffled grades."""
    rng = np.random.default_rng(seed)
    problem = SubsetRanking(**options)
    sizes = rng.integers(1, 13, size=80)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    grades = (rng.integers(0, 4, size=int(offsets[-1])) * (rng.random(int(offsets[-1])) < 0.6)).astype(np.int64)
    assert problem.grade_c_L(grades, offsets) == _per_query_c_L(problem, grades, offsets)


def test_grade_c_L_in_small_blocks(monkeypatch):
    import predtron.problems.ranking as ranking

    rng = np.random.default_rng(5)
    problem = SubsetRanking(k=4)
    sizes = rng.integers(5, 8, size=40)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    grades = rng.integers(0, 3, size=int(offsets[-1])).astype(np.int64)
    expected = _per_query_c_L(problem, grades, offsets)
    monkeypatch.setattr(ranking, "_GRADE_BLOCK", 1)  # one query per block
    assert problem.grade_c_L(grades, offsets) == expected


def test_grade_c_L_refuses_as_the_loop_does():
    problem = SubsetRanking()
    offsets = np.array([0, 2, 5])
    with pytest.raises(ValueError, match="no label in Y has a ranking with non-zero loss"):
        problem.grade_c_L(np.zeros(5, dtype=np.int64), offsets)
    with pytest.raises(ValueError, match="Y is empty"):
        problem.grade_c_L(np.zeros(0, dtype=np.int64), np.array([0]))


def test_theorem1_step_on_mq2008_equals_the_per_query_value():
    from predtron.bounds import theorem1_step
    from predtron.data import load_mq2008

    train = load_mq2008("train")
    problem = SubsetRanking(loss="ndcg", k=10)
    grades = np.asarray(train.y, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(train.group)])
    X = np.asarray(train.X.toarray() if hasattr(train.X, "toarray") else train.X, dtype=float)
    squares = np.add.reduceat(np.einsum("ij,ij->i", X, X), offsets[:-1])
    # the mean of the per-query squared norms, exact and rounded once (as the estimators' statistics)
    mean = float(sum(Fraction(float(v)) for v in squares) / len(squares))
    expected = _per_query_c_L(problem, grades, offsets) / (4.0 * mean)
    assert theorem1_step(problem, X, grades, False, offsets) == expected
    assert theorem1_step(problem, X, np.zeros_like(grades), False, offsets) == 1.0  # every loss zero
