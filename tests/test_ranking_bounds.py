"""Corollaries 5-8 (ranking bounds), their radii, and Corollaries 5 and 7 on separable data."""

from __future__ import annotations

import math

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
