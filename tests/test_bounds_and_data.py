"""Bound formulas and the separable-data generator."""

from __future__ import annotations

import numpy as np
import pytest

from predtron import bounds
from predtron.data import make_separable
from predtron.problems import Binary, Multiclass, Multilabel


def test_theorem1_formulas():
    assert bounds.theorem1_bound(2.0, 0.5, 1.0, 3.0) == pytest.approx(4 * 4 * 9 / 0.25)
    assert bounds.theorem1_eta(2.0, 1.0) == pytest.approx(1 / 16)
    eta = bounds.theorem1_eta(2.0, 1.0)
    # the general-eta form equals the headline bound at the theorem's step size
    assert bounds.theorem1_bound(2.0, 0.5, 1.0, 3.0, eta=eta) == pytest.approx(
        bounds.theorem1_bound(2.0, 0.5, 1.0, 3.0))
    with pytest.raises(ValueError, match=r"needs eta < c_L / \(2 R\^2\)"):
        bounds.theorem1_bound(1.0, 1.0, 1.0, 1.0, eta=0.5)


def test_corollaries():
    assert bounds.corollary2_bound(1.0, 0.5, 2.0, 0.5) == pytest.approx(4 * 4 / (0.5 * 0.25))
    assert bounds.ordinal_bound(1.0, 0.5, 5) == pytest.approx(4 * 16 / 0.25)
    assert bounds.reject_bound(1.0, 0.5, 0.4, 0.2) == pytest.approx(4 / (0.2 * 0.25))
    assert bounds.reject_bound_paper(1.0, 0.5, 0.4, 0.2) == pytest.approx(4 * 0.16 / (0.04 * 0.25))
    assert bounds.loss_driven_bound(1.0, 0.5, 3.0) == pytest.approx(4 * 3 / 0.25)
    with pytest.raises(ValueError, match="needs c_L"):
        bounds.loss_driven_bound(1.0, 0.5, 3.0, update="oracle")
    with pytest.raises(ValueError, match="gamma must be finite and > 0"):
        bounds.theorem1_bound(1.0, 0.0, 1.0, 1.0)


def test_parameter_norms_and_margin_errors():
    W = np.array([[3.0, 0.0], [4.0, -1.0]])
    assert bounds.parameter_norm(W, "fro") == pytest.approx(np.sqrt(26))
    assert bounds.parameter_norm(W, "l1") == 8
    assert bounds.parameter_norm(W, "group") == pytest.approx(6)
    with pytest.raises(ValueError, match="norm must be one of"):
        bounds.parameter_norm(W, "nuclear")
    with pytest.raises(ValueError, match="W is zero"):
        bounds.empirical_margin(Binary(), np.zeros((1, 2)), np.ones((1, 2)), [1])


@pytest.mark.parametrize("problem", [Binary(), Multiclass(3), Multilabel(3)], ids=repr)
def test_generator_reaches_its_margin(problem):
    data = make_separable(problem, 50, 4, margin=0.1, radius=2.0, seed=9)
    assert data.margin >= 0.1
    assert np.allclose(np.linalg.norm(data.X, axis=1), 2.0)
    assert bounds.radius(problem, data.X) == pytest.approx(2.0)
    assert np.linalg.norm(data.W_star) == pytest.approx(1.0)
    again = make_separable(problem, 50, 4, margin=0.1, radius=2.0, seed=9)
    np.testing.assert_array_equal(data.X, again.X)


def test_generator_gives_up_clearly():
    with pytest.raises(ValueError, match=r"only \d+ of 10 inputs reached margin 5"):
        make_separable(Binary(), 10, 3, margin=5.0, max_draws=100)


def test_noisy_generator():
    from predtron.data import make_noisy
    from predtron.problems import SubsetRanking

    X, Y = make_noisy(Multiclass(3), 30, 4, noise=0.5, seed=1)
    assert X.shape == (30, 4) and len(Y) == 30 and set(Y) <= {0, 1, 2}
    again = make_noisy(Multiclass(3), 30, 4, noise=0.5, seed=1)
    np.testing.assert_array_equal(X, again[0])
    with pytest.raises(ValueError, match="make_noisy draws vector inputs"):
        make_noisy(SubsetRanking(), 3, 2)


def test_link_and_ndcg_helpers():
    p = 100
    factor = bounds.link_factor(p)
    assert factor == pytest.approx(np.e**2 * (np.log(p) - 1))
    assert factor <= 9 * np.log(p)             # the "9 log p" of Corollaries 6 and 8
    assert bounds.link_eta(2.0, 0.5, p) == pytest.approx(0.5 / (4 * factor * 4))
    assert bounds.link_bound(1.0, 0.5, 1.0, 2.0, p) == pytest.approx(factor * bounds.theorem1_bound(1.0, 0.5, 1.0, 2.0))
    # 4 / ndcg_loss_floor is the constant of Corollary 5 (with R = gamma = 1)
    assert 4 / bounds.ndcg_loss_floor(8, 2) == pytest.approx(bounds.corollary5_bound(1.0, 1.0, 8, 2))
    with pytest.raises(ValueError, match="n_features must be an integer >= 2"):
        bounds.link_factor(1)


@pytest.mark.parametrize("p", [2, 3, 5, 7, 8, 9, 20, 100, 10**6])
def test_link_factor_matches_the_exponent(p):
    # Erratum: e^2 (ln p - 1) assumes r = ln p / (ln p - 1), which exceeds 2 for p <= 7;
    # there the exponent is 2 and the factor is p.  Both are at most 9 ln p.
    r = bounds.link_exponent(p)
    factor = bounds.link_factor(p)
    if p <= 7:
        assert r == 2.0 and factor == pytest.approx(p)
    else:
        assert 1 < r <= 2 and factor == pytest.approx(np.e**2 * (np.log(p) - 1))
    assert factor <= 9 * np.log(p)
    assert bounds.link_eta(1.0, 1.0, p) == pytest.approx(1 / (4 * factor))


def _greedy_adversary(learner, n_rounds, margin=0.1):
    """Binary stream with w* = e_1 (classical margin ``margin``) and ||x||_inf <= 1: each
    round forces a mistake, choosing among x in {margin*y} x {-1, 0, 1}^2 the one that
    leaves the irrelevant weights largest against the relevant one."""
    grid = [-1.0, 0.0, 1.0]
    candidates = [(y, np.array([margin * y, a, b])) for y in (1, -1) for a in grid for b in grid]
    X, Y = [], []
    for _ in range(n_rounds):
        w = learner.coef_[0] if hasattr(learner, "coef_") else np.zeros(3)
        best = None
        for y, x in candidates:
            if (1 if w @ x >= 0 else -1) == y:
                continue
            after = w + 2 * learner.eta * y * x          # the update on a mistake (r = 2)
            value = np.abs(after[1:]).sum() - margin * after[0]
            if best is None or value > best[0]:
                best = (value, y, x)
        if best is None:
            break
        learner.partial_fit(best[2][None, :], [best[1]])
        X.append(best[2])
        Y.append(best[1])
    return np.array(X), Y


def test_link_bound_holds_where_the_old_factor_failed():
    from predtron.learners.link import PredtronLink
    from predtron.links import PNormLink

    p = 3
    learner = PredtronLink(Binary(), link=PNormLink(), eta=bounds.link_eta(1.0, 1.0, p))
    X, Y = _greedy_adversary(learner, 400)
    gamma = bounds.empirical_margin(Binary(), np.eye(p)[:1], X, Y, norm="l1")
    mistakes = learner.loss_history_.sum()
    old_bound = np.e**2 * (np.log(p) - 1) * 4 / gamma**2       # the formula before the erratum
    assert learner.r_ == 2.0 and gamma == pytest.approx(0.2)
    assert old_bound < mistakes <= bounds.link_bound(1.0, gamma, 1.0, 1.0, p)


def test_paper_exponent_below_eight_keeps_erring_on_a_two_document_stream():
    from predtron.learners.link import PredtronLink
    from predtron.links import PNormLink
    from predtron.problems.subset_ranking import SubsetRanking

    problem, p0, delta, c, n = SubsetRanking(f="linear"), 3, 1 / 1.6, 1.0, 1500
    # irrelevant features alternate in sign (first half size), the relevant one is second
    signs = np.r_[0.5, np.where(np.arange(1, n) % 2, -1.0, 1.0)]
    X = [np.vstack([-d / 2, d / 2]) for d in (np.array([delta, s * c, s * c]) for s in signs)]
    Y = [np.array([0, 1])] * n
    c_L = problem.loss_bounds_for(Y)[0]
    R = bounds.column_norm_radius(X)
    paper_r = np.log(p0) / (np.log(p0) - 1)
    paper_eta = c_L / (4 * np.e**2 * (np.log(p0) - 1) * R**2)
    paper = PredtronLink(problem, link=PNormLink(r=paper_r), eta=paper_eta).fit(X, Y)
    assert paper_r > 2 and np.all(paper.loss_history_ > 0)       # a mistake in every round
    ours = PredtronLink(problem, link=PNormLink(), eta=bounds.link_eta(R, c_L, p0)).fit(X, Y)
    gamma = bounds.empirical_margin(problem, np.eye(p0)[0], X, Y, norm="l1")
    assert ours.r_ == 2.0 and ours.loss_history_[n // 2:].sum() == 0
    assert ours.loss_history_.sum() <= bounds.corollary6_bound(R, gamma, 2, 1, p0)
