"""Kendall tau, NDCG with the top-k discount and their hinge surrogates (UML Section 17.4)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from predtron.problems.ranking import sort_positions
from predtron.problems.ranking_losses import (
    brute_force_kendall_tau,
    brute_force_ndcg_hinge,
    kendall_tau_hinge,
    kendall_tau_hinge_gradient,
    kendall_tau_loss,
    ndcg_hinge,
    ndcg_hinge_argmax,
    ndcg_hinge_gradient,
    ndcg_topk_loss,
    topk_discount,
)


@pytest.mark.parametrize("r", [2, 3, 4, 5])
def test_kendall_tau_over_all_permutations(r):
    rng = np.random.default_rng(r)
    y = rng.permutation(r).astype(float)
    for perm in itertools.permutations(range(r)):
        y_pred = np.array(perm, dtype=float)
        loss = kendall_tau_loss(y_pred, y)
        assert loss == pytest.approx(brute_force_kendall_tau(y_pred, y))
        assert loss == pytest.approx(kendall_tau_loss(y, y_pred))  # symmetric
        # the pairwise hinge of any positive rescaling bounds it
        for c in (0.1, 1.0, 4.0):
            assert kendall_tau_hinge(c * y_pred, y) >= loss - 1e-12
    assert kendall_tau_loss(y, y) == 0 and kendall_tau_loss(-y, y) == 1


def test_kendall_tau_textbook_example_and_ties():
    y = np.array([2, 1, 6, -1, 0.5])
    # the textbook's pi(y) = (4, 3, 5, 1, 2) induces the same order as y
    assert kendall_tau_loss(np.array([4, 3, 5, 1, 2]), y) == 0
    # a pair tied in both vectors is concordant; tied in one only is discordant
    assert kendall_tau_loss([1.0, 1.0, 0.0], [2.0, 2.0, 0.0]) == 0
    assert kendall_tau_loss([1.0, 1.0, 0.0], [3.0, 2.0, 0.0]) == pytest.approx(1 / 3)


def test_kendall_hinge_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    for _ in range(20):
        s, y = rng.standard_normal(5), rng.integers(0, 3, 5).astype(float)
        g = kendall_tau_hinge_gradient(s, y)
        for i in range(5):
            e = np.zeros(5)
            e[i] = 1e-7
            numeric = (kendall_tau_hinge(s + e, y) - kendall_tau_hinge(s - e, y)) / 2e-7
            assert numeric == pytest.approx(g[i], abs=1e-5)


def test_topk_discount_is_the_textbooks():
    r, k = 6, 3
    textbook = {i: 1 / np.log2(r - i + 2) if i >= r - k + 1 else 0.0 for i in range(1, r + 1)}
    # the textbook's position i (r = top) is our 0-based position r - i
    assert np.allclose(topk_discount(r, k), [textbook[r - p] for p in range(r)])


@pytest.mark.parametrize("r, k", [(2, 1), (3, 2), (4, 4), (5, 2), (6, 3)])
def test_ndcg_hinge_against_all_permutations(r, k):
    rng = np.random.default_rng(10 * r + k)
    for trial in range(15):
        s = rng.standard_normal(r) * rng.choice([0.05, 1.0, 3.0])
        y = rng.integers(0, 4, r).astype(float) if trial % 2 else 2 * rng.random(r)
        _, value = brute_force_ndcg_hinge(s, y, k)
        assert ndcg_hinge(s, y, k) == pytest.approx(value, abs=1e-9)
        tilde = ndcg_hinge_argmax(s, y, k)
        assert ndcg_topk_loss(tilde, y, k) + (sort_positions(y) - tilde) @ s == pytest.approx(value, abs=1e-9)
        # the hinge bounds the NDCG@k loss of the ranking that sorts the scores
        assert ndcg_hinge(s, y, k) >= ndcg_topk_loss(sort_positions(s), y, k) - 1e-12


def test_ndcg_topk_loss_values_and_zero_relevance():
    y = np.array([3.0, 0.0, 1.0, 2.0])
    assert ndcg_topk_loss(sort_positions(y), y, 2) == 0
    # only the top 2 positions count: swapping the bottom two changes nothing
    sigma = sort_positions(y)
    swapped = sigma.copy()
    swapped[[1, 2]] = swapped[[2, 1]]
    assert ndcg_topk_loss(swapped, y, 2) == 0
    worst = np.array([3, 0, 2, 1])
    ideal = 3 + 2 / np.log2(3)
    assert ndcg_topk_loss(worst, y, 2) == pytest.approx(1 - (2 / np.log2(3)) / ideal)  # y = 0 on top, y = 2 second
    assert ndcg_topk_loss(np.array([1, 0, 2]), np.zeros(3), 2) == 0  # convention: nothing to rank


def test_ndcg_hinge_gradient_is_a_subgradient():
    rng = np.random.default_rng(1)
    for _ in range(20):
        s, y, k = rng.standard_normal(5), rng.integers(0, 3, 5).astype(float), 3
        g = ndcg_hinge_gradient(s, y, k)
        for _ in range(5):
            u = s + rng.standard_normal(5)
            assert ndcg_hinge(u, y, k) >= ndcg_hinge(s, y, k) + g @ (u - s) - 1e-9


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: kendall_tau_loss([1.0, 2.0], [1.0, 2.0, 3.0]), r"y_pred and y must be 1-D of one length"),
        (lambda: kendall_tau_hinge([1.0], [1.0]), r"a ranking needs at least 2 items; got 1"),
        (lambda: ndcg_topk_loss(np.array([0, 0, 1]), [1.0, 0.0, 2.0], 2), r"must be a permutation of 0..2"),
        (lambda: ndcg_topk_loss(np.array([0, 1]), [1.0, -1.0], 1), r"y must be nonnegative relevance for NDCG"),
        (lambda: ndcg_hinge([0.1, 0.2], [1.0, 0.0], 0), r"k must be an integer >= 1"),
        (lambda: topk_discount(0, 1), r"r must be an integer >= 1"),
        (lambda: kendall_tau_loss([np.nan, 1.0], [1.0, 2.0]), r"y_pred must contain only finite values"),
    ],
)
def test_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()
