"""Bipartite ranking with multivariate measures (UML Section 17.5) through Multilabel(loss=...)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from predtron import Predtron
from predtron.problems import Multilabel
from predtron.problems.base import Problem
from predtron.problems.bipartite import BipartiteMeasure
from predtron.testing import brute_force_oracle, brute_force_pred, check_problem

CASES = [
    ("f1", {}), ("fbeta", {"beta": 0.5}), ("fbeta", {"beta": 2.0}), ("balanced", {}),
    ("precision@k", {"k": 1}), ("precision@k", {"k": 3}), ("recall@k", {"k": 1}), ("recall@k", {"k": 2}),
    ("recall@k", {"k": 5}),
]
IDS = [f"{name}-{kw}" for name, kw in CASES]


def _all_labels(m):
    return [np.array(bits) for bits in itertools.product((0, 1), repeat=m)]


@pytest.mark.parametrize("name, kw", CASES, ids=IDS)
def test_contract(name, kw):
    check_problem(Multilabel(5, name, **kw), n_trials=60, seed=len(IDS))


@pytest.mark.parametrize("name, kw", CASES, ids=IDS)
def test_pred_and_oracle_against_all_2_to_the_m_vectors(name, kw):
    problem = Multilabel(5, name, **kw)
    rng = np.random.default_rng(7)
    for y in _all_labels(5):
        t = rng.standard_normal(5) * rng.choice([0.05, 1.0, 4.0])
        if rng.random() < 0.3:
            t = rng.integers(-1, 2, 5).astype(float)  # ties
        _, best = brute_force_pred(problem, t, y)
        assert problem.rep(problem.pred(t)) @ t == pytest.approx(best)
        _, phi = brute_force_oracle(problem, t, y)
        assert problem.objective(problem.oracle(t, y), t, y) == pytest.approx(phi, abs=1e-9)


def test_brute_force_enumerates_every_vector_and_respects_the_restriction():
    assert len(list(Multilabel(5, "f1").predictions())) == 32
    at_most = list(Multilabel(5, "recall@k", k=2).predictions())
    at_least = list(Multilabel(5, "precision@k", k=2).predictions())
    assert len(at_most) == 1 + 5 + 10 and all(v.sum() <= 2 for v in at_most)
    assert len(at_least) == 32 - 1 - 5 and all(v.sum() >= 2 for v in at_least)


@pytest.mark.parametrize("name, kw", [c for c in CASES if "@" in c[0]], ids=[i for i in IDS if "@" in i])
def test_restricted_predictions_respect_k(name, kw):
    problem = Multilabel(6, name, **kw)
    rng = np.random.default_rng(1)
    for _ in range(50):
        t = rng.standard_normal(6)
        y = rng.integers(0, 2, 6)
        for v in (problem.pred(t), problem.oracle(t, y), problem.correct(y)):
            n = v.sum()
            assert n <= kw["k"] if name == "recall@k" else n >= kw["k"]


def test_loss_formulas():
    y = np.array([1, 1, 1, 0, 0, 0])
    v = np.array([1, 1, 0, 1, 0, 0])  # a = 2, b = 1, c = 1, d = 2
    assert Multilabel(6, "f1").loss(v, y) == pytest.approx(1 - 4 / 6)
    assert Multilabel(6, "fbeta", beta=2.0).loss(v, y) == pytest.approx(1 - 5 * 2 / (5 * 2 + 1 + 4 * 1))
    assert Multilabel(6, "balanced").loss(v, y) == pytest.approx(1 - (2 / 3 + 2 / 3) / 2)
    assert Multilabel(6, "recall@k", k=3).loss(v, y) == pytest.approx(1 - 2 / 3)
    assert Multilabel(6, "precision@k", k=2).loss(v, y) == pytest.approx(1 - 2 / 3)
    # f1 is fbeta with beta = 1
    for s, t in itertools.product(_all_labels(4), repeat=2):
        assert Multilabel(4, "f1").loss(s, t) == pytest.approx(Multilabel(4, "fbeta", beta=1.0).loss(s, t))


def test_degenerate_conventions():
    none = np.zeros(4, dtype=int)
    some = np.array([1, 0, 0, 0])
    everything = np.ones(4, dtype=int)
    # no relevant label: predicting nothing is perfect, predicting anything is a total miss
    assert Multilabel(4, "f1").loss(none, none) == 0
    assert Multilabel(4, "f1").loss(some, none) == 1
    # nothing predicted while something is relevant: F1 = 0
    assert Multilabel(4, "f1").loss(none, some) == 1
    # balanced: the undefined rate is left out
    assert Multilabel(4, "balanced").loss(some, none) == pytest.approx(1 / 4)  # 1 - specificity
    assert Multilabel(4, "balanced").loss(some, everything) == pytest.approx(3 / 4)  # 1 - sensitivity
    # @k: no relevant label gives loss 0; the best reachable value is the reference
    assert Multilabel(4, "recall@k", k=2).loss(some, none) == 0
    assert Multilabel(4, "precision@k", k=2).loss(np.array([1, 1, 0, 0]), none) == 0
    assert Multilabel(4, "recall@k", k=2).loss(np.array([1, 1, 0, 0]), everything) == 0  # 2 of 4: best
    assert Multilabel(4, "precision@k", k=2).loss(np.array([1, 1, 0, 0]), some) == 0  # 1 of 2: best
    assert Multilabel(4, "recall@k", k=2).correct(everything).tolist() == [1, 1, 0, 0]
    assert Multilabel(4, "precision@k", k=2).correct(some).tolist() == [1, 1, 0, 0]


@pytest.mark.parametrize("name, kw", CASES, ids=IDS)
def test_loss_constants_match_enumeration(name, kw):
    problem = Multilabel(5, name, **kw)
    assert problem.c_L == pytest.approx(Problem.c_L.fget(problem))
    assert problem.C_L == pytest.approx(Problem.C_L.fget(problem))


@pytest.mark.parametrize("name, kw", CASES, ids=IDS)
def test_margin_by_definition(name, kw):
    problem = Multilabel(4, name, **{k: min(v, 3) if k == "k" else v for k, v in kw.items()})
    rng = np.random.default_rng(3)
    for y in _all_labels(4):
        t = rng.standard_normal(4)
        assert problem.margin(t, y) == pytest.approx(Problem.margin(problem, t, y))


def test_oracle_is_quadratic_not_exponential():
    problem = Multilabel(400, "f1")
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    t = rng.standard_normal(400)
    tilde = problem.oracle(t, y)
    # the (a, b) search is exact: no single flip improves the objective
    base = problem.objective(tilde, t, y)
    for j in range(0, 400, 37):
        flipped = tilde.copy()
        flipped[j] = 1 - flipped[j]
        assert problem.objective(flipped, t, y) <= base + 1e-9


def test_predtron_learns_f1():
    rng = np.random.default_rng(4)
    W = rng.standard_normal((6, 5))
    X = rng.standard_normal((150, 5))
    Y = (X @ W.T > 0.3).astype(int)
    model = Predtron(Multilabel(6, "f1")).fit(X, Y, epochs=5)
    assert model.mean_loss(X, Y) < 0.2


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: Multilabel(3, "fbeta", beta=0), r"beta must be finite and > 0"),
        (lambda: Multilabel(3, "f1", beta=2.0), r"beta applies only to loss='fbeta'"),
        (lambda: Multilabel(3, "hamming", k=1), r"k applies only to loss='precision@k' or 'recall@k'"),
        (lambda: Multilabel(3, "recall@k"), r"loss='recall@k' needs k"),
        (lambda: Multilabel(3, "recall@k", k=4), r"k must be at most n_labels=3; got k=4"),
        (lambda: Multilabel(3, "precision@k", k=0), r"k must be an integer >= 1"),
        (lambda: Multilabel(3, "precision@k", k=3), r"allows only the all-ones prediction"),
        (lambda: Multilabel(3, "auc"), r"loss must be one of .*got 'auc'"),
        (lambda: BipartiteMeasure("f1", 3, k=2), r"k applies only"),
        (lambda: Multilabel(20, "recall@k", k=2).margin(np.zeros(20), np.ones(20, dtype=int)),
         r"the recall@k margin is computed by enumeration, for n_labels <= 16"),
    ],
)
def test_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()
