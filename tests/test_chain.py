"""The OCR-style chain (UML Section 17.3): Viterbi against all q^r sequences, learning, data."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from predtron import Predtron
from predtron.data.sequences import make_sequences
from predtron.learners.sgd import SGDSVM
from predtron.problems import Multiclass
from predtron.problems.chain import Chain, ChainScoring, viterbi
from predtron.testing import brute_force_oracle, brute_force_pred, check_problem

SIZES = [(2, 1), (2, 4), (3, 3), (4, 2)]


@pytest.mark.parametrize("q, r", SIZES)
def test_chain_contract(q, r):
    check_problem(Chain(q, r), n_trials=50, seed=q + r)


@pytest.mark.parametrize("q, r", SIZES)
def test_viterbi_and_oracle_match_all_sequences(q, r):
    problem = Chain(q, r)
    rng = np.random.default_rng(10 * q + r)
    for _ in range(25):
        t = rng.standard_normal(problem.rep(problem.pred_default()).shape)
        y = problem.random_label(rng)
        sigma, _ = brute_force_pred(problem, t)
        assert np.array_equal(problem.pred(t), sigma)
        tilde, phi = brute_force_oracle(problem, t, y)
        assert np.array_equal(problem.oracle(t, y), tilde)
        assert np.isclose(problem.surrogate(t, y), phi)


def test_viterbi_with_position_dependent_transitions():
    rng = np.random.default_rng(0)
    emission, transition = rng.standard_normal((4, 3)), rng.standard_normal((3, 3, 3))

    def total(s):
        return sum(emission[i, s[i]] for i in range(4)) + sum(transition[i - 1, s[i - 1], s[i]]
                                                             for i in range(1, 4))

    best = max(itertools.product(range(3), repeat=4), key=total)
    assert viterbi(emission, transition).tolist() == list(best)


def test_rep_is_the_normalised_textbook_psi():
    problem = Chain(3, 4)
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((5, 4)), np.array([0, 2, 2, 1])
    psi = problem.scoring.gradient(problem.rep(y), x) * np.sqrt(2 * 4 - 1)
    emission = np.zeros((3, 5))
    for s in range(4):
        emission[y[s]] += x[:, s]
    transition = np.zeros((3, 3))
    for s in range(1, 4):
        transition[y[s - 1], y[s]] += 1
    assert np.allclose(psi, np.concatenate([emission.ravel(), transition.ravel()]))


def test_chain_scoring_adjoint():
    scoring = ChainScoring(3, 4)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 4))
    w = rng.standard_normal(scoring.init_params(5).shape)
    g = rng.standard_normal(4 * 3 + 3 * 9)
    assert np.isclose(g @ scoring.scores(w, x), scoring.gradient(g, x) @ w)
    # ||A^* g|| <= R ||g||
    for _ in range(20):
        g = rng.standard_normal(g.shape)
        assert np.linalg.norm(scoring.gradient(g, x)) <= scoring.instance_norm(x) * np.linalg.norm(g) + 1e-9


def test_loss_and_constants():
    problem = Chain(3, 4)
    assert problem.loss(np.array([0, 1, 2, 0]), np.array([0, 1, 1, 1])) == 0.5
    assert problem.c_L == 0.25 and problem.C_L == 1.0


def test_sequences_are_seeded_and_shaped():
    a = make_sequences(20, 5, 3, 6, noise=0.4, seed=3)
    b = make_sequences(20, 5, 3, 6, noise=0.4, seed=3)
    assert a.X.shape == (20, 6, 5) and a.Y.shape == (20, 5)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.Y, b.Y)
    assert a.Y.min() >= 0 and a.Y.max() < 3
    assert np.allclose(a.transitions.sum(axis=1), 1.0)
    clean = make_sequences(5, 4, 3, 6, noise=0.0, seed=3)
    assert np.array_equal(clean.X[0][:, 2], clean.prototypes[clean.Y[0, 2]])


def test_structured_perceptron_and_sgd_learn_words():
    data = make_sequences(240, 5, 4, 8, noise=1.2, seed=0)
    train, test = slice(0, 160), slice(160, None)
    problem = Chain(4, 5)
    perceptron = Predtron(problem).fit(data.X[train], data.Y[train], epochs=5)
    svm = SGDSVM(problem, lam=1e-3).fit(data.X[train], data.Y[train], epochs=5)
    for model in (perceptron, svm):
        assert model.mean_loss(data.X[test], data.Y[test]) < 0.15


def test_transitions_help_under_heavy_noise():
    data = make_sequences(400, 6, 4, 6, noise=2.0, stickiness=6.0, seed=1)
    train, test = slice(0, 300), slice(300, None)
    chain = Predtron(Chain(4, 6)).fit(data.X[train], data.Y[train], epochs=5)

    def letters(X):
        return X.transpose(0, 2, 1).reshape(-1, X.shape[1])

    per_letter = Predtron(Multiclass(4)).fit(letters(data.X[train]), data.Y[train].ravel(), epochs=5)
    # mean 0-1 loss over letters = normalised Hamming loss over words
    alone = per_letter.mean_loss(letters(data.X[test]), data.Y[test].ravel())
    assert chain.mean_loss(data.X[test], data.Y[test]) < alone


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: Chain(1, 3), r"n_letters must be an integer >= 2"),
        (lambda: Chain(3, 0), r"length must be an integer >= 1"),
        (lambda: Chain(3, 2).check_label([0, 1, 2]), r"label must be an integer array of length 2"),
        (lambda: Chain(3, 2).check_label([0, 3]), r"label letters must be in 0..2"),
        (lambda: Chain(3, 2).check_label([0, 0.5]), r"label must hold integer letters"),
        (lambda: Predtron(Chain(3, 2)).fit(np.zeros((2, 4, 3)), [[0, 1], [1, 1]]),
         r"X\[0\] must be an \(n_pixels, 2\) matrix, one column per position; got shape \(4, 3\)"),
        (lambda: Predtron(Chain(3, 2)).fit("abc", [[0, 1]]), r"X must be a 3-D array or a list"),
        (lambda: ChainScoring(3, 2).kernel_scores(None, [], [], np.ones((2, 2))), r"kernels are not supported"),
        (lambda: make_sequences(5, 3, 1, 4), r"n_letters must be an integer >= 2"),
        (lambda: make_sequences(5, 3, 2, 4, noise=-1.0), r"noise must be finite and >= 0"),
    ],
)
def test_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()
