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
    with pytest.raises(ValueError, match="n_features must be an integer >= 3"):
        bounds.link_factor(2)
