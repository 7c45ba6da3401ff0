"""Ranking problems (Sections 4-5): every fast operation against enumeration of all m! rankings."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from predtron.learners.predtron import Predtron
from predtron.problems.base import Problem
from predtron.problems.multilabel_ranking import MultilabelRanking
from predtron.problems.ranking import (
    F_CHOICES,
    block_structure,
    discount,
    gain,
    lemma4_margin,
    pattern_margin,
    position_values,
    sort_positions,
)
from predtron.problems.subset_ranking import SubsetRanking
from predtron.testing import brute_force_ranking, check_learner, check_problem

F_ALL = [*F_CHOICES, lambda i: -np.sqrt(i)]
LOSS_CONFIGS = [
    {"loss": "ndcg"},
    {"loss": "ndcg", "k": 2},
    {"loss": "ndcg", "k": 3},
    {"loss": "ndcg", "gain": "linear"},
    {"loss": "ndcg", "k": 2, "gain": "linear"},
    {"loss": "precision", "k": 1},
    {"loss": "precision", "k": 2},
    {"loss": "precision", "k": 3},
]
LABELS = [
    np.array([0]), np.array([3]), np.array([1, 0]), np.array([0, 0]), np.array([2, 0, 1]),
    np.array([1, 1, 0]), np.array([0, 0, 0, 0]), np.array([2, 2, 1, 0]), np.array([0, 1, 0, 1]),
    np.array([3, 0, 1, 1, 2]), np.array([1, 0, 0, 0, 0]), np.array([2, 1, 1, 0, 2, 1]),
]


def _scores(problem, y, rng) -> np.ndarray:
    """Score vectors with ties, noise, compatible constructions and scaled correct reps."""
    m = len(y)
    rows = [rng.integers(-2, 3, size=m).astype(float), rng.standard_normal(m),
            0.01 * rng.standard_normal(m), 5 * problem.rep(problem.correct(y)) + rng.standard_normal(m),
            np.zeros(m)]
    if block_structure(problem.zero_loss_pattern(y)) is not None and not problem.zero_loss_pattern(y).all():
        rows.append(problem.separating_scores(y, 0.2, jitter=1.0, rng=rng))
        swapped = problem.separating_scores(y, 0.2, rng=rng)[::-1].copy()
        rows.append(swapped)
    return np.array(rows)


def _id(value) -> str:
    return value if isinstance(value, str) else "callable"


@pytest.mark.parametrize("f", F_ALL, ids=_id)
@pytest.mark.parametrize("config", LOSS_CONFIGS, ids=lambda c: "-".join(f"{v}" for v in c.values()))
def test_fast_operations_match_enumeration(f, config):
    """pred, oracle, surrogate, loss of sigma_y and margin against all m! rankings."""
    rng = np.random.default_rng(7)
    problem = SubsetRanking(f=f, **config)
    for y in LABELS:
        T = _scores(problem, y, rng)
        brute = brute_force_ranking(problem, T, y)
        assert problem.loss(problem.correct(y), y) == 0.0
        assert brute["losses"].min() == 0.0 and brute["losses"].max() <= 1.0
        for row, t in enumerate(T):
            sigma = problem.pred(t)
            assert problem.rep(sigma) @ t >= brute["pred_value"][row] - 1e-12
            tilde = problem.oracle(t, y)
            phi = brute["phi"][row]
            assert abs(problem.objective(tilde, t, y) - phi) <= 1e-9 * (1 + abs(phi))
            assert abs(problem.surrogate(t, y) - phi) <= 1e-9 * (1 + abs(phi))
            want = brute["margin"][row]
            got = problem.margin(t, y)
            assert got == want or abs(got - want) <= 1e-9, (y, t, got, want)
            fvals = problem.rep(np.arange(len(y)))
            general = pattern_margin(t, problem.zero_loss_pattern(y), fvals)
            assert general == want or abs(general - want) <= 1e-9


@pytest.mark.parametrize("config", LOSS_CONFIGS, ids=lambda c: "-".join(f"{v}" for v in c.values()))
def test_zero_loss_set_is_the_perfect_matchings_of_the_pattern(config):
    problem = SubsetRanking(**config)
    rng = np.random.default_rng(3)
    labels = LABELS + [rng.integers(0, 3, size=5) for _ in range(10)]
    for y in labels:
        allowed = problem.zero_loss_pattern(y)
        reached = np.zeros_like(allowed)
        for sigma in problem.predictions(y):
            zero = problem.loss(sigma, y) == 0
            assert zero == bool(allowed[np.arange(len(y)), sigma].all()), (y, sigma)
            if zero:
                reached[np.arange(len(y)), sigma] = True
        assert np.array_equal(reached, allowed), "the pattern must be tight"


@pytest.mark.parametrize("config", LOSS_CONFIGS[:3] + LOSS_CONFIGS[5:7],
                         ids=lambda c: "-".join(f"{v}" for v in c.values()))
def test_label_loss_range_matches_enumeration(config):
    problem = SubsetRanking(**config)
    for y in LABELS:
        losses = brute_force_ranking(problem, np.zeros(len(y)), y)["losses"]
        low, high = problem.label_loss_range(y)
        positive = losses[losses > 0]
        assert high == pytest.approx(losses.max(), abs=1e-12)
        if positive.size:
            assert low == pytest.approx(positive.min(), abs=1e-12)
        else:
            assert low == math.inf


@pytest.mark.parametrize("config", [{"loss": "ndcg"}, {"loss": "ndcg", "k": 2}, {"loss": "precision", "k": 2}],
                         ids=["ndcg", "ndcg@2", "p@2"])
def test_loss_bounds_match_the_loss_matrix(config):
    """c_L and C_L of Section 2.1 over {0..y_max}^m, against the enumerated loss matrix."""
    problem = MultilabelRanking(3, y_max=2, **config)
    matrix = problem.loss_matrix()
    assert problem.C_L == pytest.approx(matrix.max(), abs=1e-12)
    assert problem.c_L == pytest.approx(matrix[matrix > 0].min(), abs=1e-12)
    assert SubsetRanking(**config).loss_bounds(3, 2) == pytest.approx((problem.c_L, problem.C_L))
    Y = [np.array([1, 0, 0]), np.array([2, 1, 0])]
    low, high = SubsetRanking(**config).loss_bounds_for(Y)
    assert low >= problem.c_L - 1e-15 and high <= problem.C_L + 1e-15


def test_corollary5_lower_bound_on_c_L():
    """Corollary 5 rests on c_L >= 1 / (2^{Ymax+1} m^2 log2^2(2m)) for NDCG."""
    problem = SubsetRanking()
    for m, y_max in [(2, 1), (3, 3), (5, 2), (8, 1), (12, 2)]:
        c_L, C_L = problem.loss_bounds(m, y_max)
        assert c_L >= 1 / (2 ** (y_max + 1) * m**2 * math.log2(2 * m) ** 2)
        assert C_L < 1


@pytest.mark.parametrize("f", list(F_CHOICES), ids=str)
def test_lemma4_closed_form_matches_definition(f):
    rng = np.random.default_rng(11)
    ndcg = SubsetRanking(f=f)
    for y in LABELS:
        T = _scores(ndcg, y, rng)
        brute = brute_force_ranking(ndcg, T, y)["margin"]
        for t, want in zip(T, brute, strict=True):
            got = lemma4_margin(t, y, f)
            assert got == want or abs(got - want) <= 1e-9
            assert Problem.margin(ndcg, t, y) == pytest.approx(want, abs=1e-12) or want == math.inf


def test_lemma4_statement():
    """Compatible, strictly ordered block scores: gamma = min_j (T_j - T_{j+1}) (f(e_j) - f(e_j+1)) / Z."""
    y = np.array([0, 2, 1, 2, 0, 1])
    t = np.array([-1.0, 3.0, 0.5, 3.0, -1.0, 0.5])  # grade 2 -> 3, grade 1 -> 0.5, grade 0 -> -1
    for name in F_CHOICES:
        f = position_values(name, 6)
        Z = np.linalg.norm(f)
        expected = min((3.0 - 0.5) * (f[1] - f[2]), (0.5 + 1.0) * (f[3] - f[4])) / Z
        assert lemma4_margin(t, y, name) == pytest.approx(expected, rel=1e-12)
    tied = t.copy()
    tied[1] += 0.1  # scores no longer constant within grade 2: no positive margin
    assert lemma4_margin(tied, y, "linear") <= 0
    assert lemma4_margin(np.array([5.0]), np.array([1]), "linear") == math.inf
    assert lemma4_margin(np.array([1.0, 2.0]), np.array([1, 1]), "linear") == math.inf


@pytest.mark.parametrize("config", LOSS_CONFIGS, ids=lambda c: "-".join(f"{v}" for v in c.values()))
def test_check_problem_subset_ranking(config):
    rng = np.random.default_rng(0)
    labels = LABELS[:10] + [rng.integers(0, 3, size=4) for _ in range(6)]
    check_problem(SubsetRanking(f="inverse", **config), n_trials=25, labels=labels)


def test_check_problem_multilabel_ranking():
    check_problem(MultilabelRanking(4, f="square", y_max=2), n_trials=30)
    check_problem(MultilabelRanking(3, loss="precision", k=1), n_trials=20)


def test_precision_at_k_definition():
    problem = SubsetRanking(loss="precision", k=2)
    y = np.array([1, 1, 1, 0])
    assert problem.loss(np.array([0, 2, 3, 1]), y) == pytest.approx(0.5)  # one relevant in the top 2
    y = np.array([0, 0, 3, 0])  # one relevant item: normalised by min(k, r) = 1
    assert problem.loss(np.array([1, 2, 0, 3]), y) == 0.0
    assert problem.loss(np.array([0, 1, 3, 2]), y) == 1.0


def test_ndcg_value_by_hand():
    problem = SubsetRanking()
    y = np.array([2, 0, 1])
    dcg = 3 / math.log2(2) + 0 + 1 / math.log2(4)
    ideal = 3 / math.log2(2) + 1 / math.log2(3)
    assert problem.loss(np.array([0, 1, 2]), y) == pytest.approx(1 - dcg / ideal, rel=1e-12)
    linear = SubsetRanking(gain="linear")
    assert linear.loss(np.array([0, 1, 2]), y) == pytest.approx(
        1 - (2 + 0.5) / (2 + 1 / math.log2(3)), rel=1e-12)
    at1 = SubsetRanking(k=1)
    assert at1.loss(np.array([0, 2, 1]), y) == 0.0  # only the top position counts
    assert at1.loss(np.array([2, 0, 1]), y) == 1.0
    assert np.allclose(discount([1, 3]), [1.0, 0.5])
    assert np.allclose(gain([0, 1, 3]), [0, 1, 7])


def test_all_zero_relevance_has_no_loss_and_no_update():
    problem = SubsetRanking()
    y = np.zeros(4, dtype=int)
    t = np.array([0.3, -1.0, 2.0, 0.0])
    assert all(problem.loss(s, y) == 0.0 for s in problem.predictions(y))
    assert np.array_equal(problem.oracle(t, y), problem.pred(t))
    assert problem.margin(t, y) == math.inf
    X = [np.eye(4)[:, :3], np.ones((2, 3))]
    learner = Predtron(problem).fit(X, [y, np.zeros(2, dtype=int)])
    assert learner.n_updates_ == 0 and not learner.coef_.any()


def test_single_document_queries():
    problem = SubsetRanking()
    y = np.array([2])
    assert problem.pred(np.array([0.7])).tolist() == [0]
    assert problem.rep(np.array([0])).tolist() == [-1.0]
    assert problem.loss(np.array([0]), y) == 0.0
    assert problem.oracle(np.array([1.0]), y).tolist() == [0]
    assert problem.margin(np.array([1.0]), y) == math.inf
    X = [np.ones((1, 3)), np.array([[1.0, 0, 0], [0, 1, 0]])]
    learner = Predtron(problem).fit(X, [y, np.array([0, 1])], epochs=3)
    assert learner.predict(X)[1].tolist() == [1, 0]


def test_pred_tie_break_and_correct():
    assert sort_positions(np.array([1.0, 3.0, 1.0, 3.0])).tolist() == [2, 0, 3, 1]
    problem = SubsetRanking()
    assert problem.correct(np.array([0, 2, 0, 2])).tolist() == [2, 0, 3, 1]
    assert problem.label_for(np.array([2, 0, 1])).tolist() == [0, 2, 1]
    assert MultilabelRanking(4, y_max=2).label_for(np.array([3, 0, 2, 1])).tolist() == [0, 2, 0, 1]


def test_sort_oracle_exactness_and_modes():
    rng = np.random.default_rng(5)
    exact = SubsetRanking(f="discount", oracle="sort")
    assert exact.sort_exact(7)
    assert not SubsetRanking(f="linear").sort_exact(5)
    assert SubsetRanking(f="linear").sort_exact(2)  # two points: f is always affine in b
    assert not SubsetRanking(f="discount", k=3).sort_exact(6)
    for _ in range(20):
        m = int(rng.integers(2, 7))
        y, t = rng.integers(0, 4, size=m), rng.standard_normal(m) * rng.choice([0.1, 1, 10])
        phi = brute_force_ranking(exact, t, y)["phi"]
        for oracle in ("sort", "assignment", "auto"):
            problem = SubsetRanking(f="discount", oracle=oracle)
            assert problem.objective(problem.oracle(t, y), t, y) == pytest.approx(phi, abs=1e-9)
    with pytest.raises(ValueError, match="oracle='sort' is exact only"):
        SubsetRanking(f="linear", oracle="sort").oracle(np.zeros(4), np.array([1, 0, 2, 0]))


def test_large_query_oracle_is_fast_and_consistent():
    rng = np.random.default_rng(1)
    problem = SubsetRanking(f="inverse", k=10)
    y, t = rng.integers(0, 3, size=300), rng.standard_normal(300)
    tilde = problem.oracle(t, y)
    assert sorted(tilde.tolist()) == list(range(300))
    assert problem.surrogate(t, y) >= problem.loss(problem.pred(t), y)
    assert problem.margin(t, y) <= 0  # generic scores are not constant within a grade


def test_predtron_update_on_ranking_matches_corollary5_line9():
    problem = SubsetRanking(f="square")
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([0, 2, 1])
    learner = Predtron(problem, eta=0.5).fit([X], [y])
    tilde = problem.oracle(np.zeros(3), y)
    expected = -0.5 * X.T @ (problem.rep(tilde) - problem.rep(problem.correct(y)))
    assert np.allclose(learner.coef_, expected)


def test_check_learner_on_ranking_problems():
    rng = np.random.default_rng(2)
    X = [rng.standard_normal((int(rng.integers(1, 6)), 3)) for _ in range(8)]
    Y = [rng.integers(0, 3, size=len(x)) for x in X]
    check_learner(lambda p: Predtron(p, eta=0.3), SubsetRanking(f="inverse"), X, Y)
    Xv = rng.standard_normal((8, 5))
    Yv = [rng.integers(0, 2, size=4) for _ in range(8)]
    check_learner(lambda p: Predtron(p), MultilabelRanking(4, loss="precision", k=2), Xv, Yv)
    preds = Predtron(MultilabelRanking(4)).fit(Xv, Yv).predict(Xv)
    assert isinstance(preds, np.ndarray) and preds.shape == (8, 4)


# ------------------------------------------------------------------ validation
@pytest.mark.parametrize(("label", "message"), [
    (np.array([1, -1, 0]), "relevance grades >= 0"),
    (np.array([1.0, 0.5]), "integer relevance grades"),
    (np.array([1.0, np.nan]), "contains NaN"),
    (np.array([]), "non-empty 1-D"),
    (np.ones((2, 2)), "non-empty 1-D"),
    (np.array(["a", "b"]), "integer relevance grades"),
    (np.array([1, 2000]), "overflows"),
])
def test_bad_labels(label, message):
    with pytest.raises(ValueError, match=message):
        SubsetRanking().check_label(label)


def test_bad_multilabel_labels():
    problem = MultilabelRanking(3, y_max=2)
    with pytest.raises(ValueError, match="must have 3 relevance grades"):
        problem.check_label([1, 0])
    with pytest.raises(ValueError, match="<= y_max = 2"):
        problem.check_label([3, 0, 1])
    assert problem.check_label([2.0, 0, 1]).tolist() == [2, 0, 1]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"f": "cubic"}, "f must be one of"),
    ({"f": 3}, "f must be one of"),
    ({"f": lambda i: i}, "strictly decreasing"),
    ({"f": lambda i: np.ones(3)}, "shape"),
    ({"f": lambda i: np.where(i == 2, -np.inf, -i)}, "finite"),
    ({"loss": "map"}, "loss must be one of"),
    ({"loss": "precision"}, "needs a cut-off k"),
    ({"k": 0}, "k must be an integer >= 1"),
    ({"gain": "cubic"}, "gain must be one of"),
    ({"oracle": "greedy"}, "oracle must be one of"),
])
def test_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SubsetRanking(**kwargs)


def test_position_values_and_z():
    assert position_values("linear", 3).tolist() == [-1.0, -2.0, -3.0]
    assert np.allclose(position_values("power1.1", 2), [-1.0, -(2**1.1)])
    with pytest.raises(ValueError, match=r"f\(1\) must be non-zero"):
        SubsetRanking(f=lambda i: 1.0 - i).rep(np.array([0]))
    with pytest.raises(ValueError, match=r"strictly decreasing on the positions 1\.\.5"):
        position_values(lambda i: -np.minimum(i, 4), 5)


def test_bad_rankings_scores_and_pairs():
    problem = SubsetRanking()
    with pytest.raises(ValueError, match=r"permutation of 0\.\.m-1"):
        problem.rep(np.array([0, 0, 1]))
    with pytest.raises(ValueError, match=r"permutation of 0\.\.m-1"):
        problem.rep(np.array([0.5, 1.0]))
    assert problem.rep(np.array([1.0, 0.0])).tolist() == problem.rep(np.array([1, 0])).tolist()
    with pytest.raises(ValueError, match="sigma ranks 2 items but y has 3"):
        problem.loss(np.array([0, 1]), np.array([1, 0, 0]))
    with pytest.raises(ValueError, match=r"one score per item, shape \(3,\)"):
        problem.oracle(np.zeros(2), np.array([1, 0, 0]))
    with pytest.raises(ValueError, match="finite"):
        problem.margin(np.array([np.nan, 0, 0]), np.array([1, 0, 0]))
    with pytest.raises(ValueError, match=r"X\[1\] has 3 documents but Y\[1\] has 2 relevance grades"):
        Predtron(problem).fit([np.ones((2, 2)), np.ones((3, 2))], [np.array([1, 0]), np.array([1, 0])])
    with pytest.raises(ValueError, match=r"Y\[0\]: label must contain relevance grades >= 0"):
        Predtron(problem).fit([np.ones((2, 2))], [np.array([1, -2])])


def test_label_dependent_constants_raise_clearly():
    problem = SubsetRanking()
    with pytest.raises(ValueError, match="loss_bounds_for"):
        _ = problem.c_L
    with pytest.raises(ValueError, match="loss_bounds_for"):
        _ = problem.C_L
    with pytest.raises(ValueError, match="needs a label y"):
        problem.predictions()
    with pytest.raises(ValueError, match="no fixed number of documents"):
        problem.pred_default()
    with pytest.raises(ValueError, match="more than"):
        problem.loss_bounds(60, 6)
    with pytest.raises(ValueError, match="c_L is undefined"):
        problem.loss_bounds_for([np.zeros(3, dtype=int), np.array([4])])
    with pytest.raises(ValueError, match="c_L is undefined"):
        problem.loss_bounds(1, 3)
    with pytest.raises(ValueError, match="no scores have a positive margin"):
        SubsetRanking(loss="precision", k=1).separating_scores(np.array([1, 1, 0]), 0.1)


def test_random_labels_are_valid():
    rng = np.random.default_rng(0)
    problem = SubsetRanking()
    sizes = set()
    for _ in range(40):
        y = problem.check_label(problem.random_label(rng))
        sizes.add(len(y))
        assert y.max() <= 2
    assert sizes <= set(range(1, 7)) and len(sizes) > 3
    assert len(problem.random_label(rng, n_items=9, y_max=5)) == 9
    labels = list(MultilabelRanking(2, y_max=2).labels())
    assert len(labels) == 9 and all(len(y) == 2 for y in labels)
    assert sum(1 for _ in itertools.islice(MultilabelRanking(3).predictions(), 10)) == 6


def test_large_grades_are_refused_only_where_the_gain_overflows():
    """A linear gain (and precision) has no 2^y - 1 to overflow: grade 5000 is taken; the
    exponential gain refuses it, and any gain refuses a grade float64 cannot hold exactly."""
    from predtron import Predtron

    X, y = [np.array([[1.0, 0.0], [0.0, 1.0]])], [np.array([5000, 0])]
    linear = Predtron(SubsetRanking(gain="linear"), eta=1.0).fit(X, y)
    assert linear.coef_[0] >= linear.coef_[1]
    assert SubsetRanking(gain="linear").loss(np.array([1, 0]), y[0]) == pytest.approx(
        1 - 5000 / math.log2(3) / 5000, rel=1e-12)
    Predtron(SubsetRanking(loss="precision", k=1), eta=1.0).fit(X, y)
    with pytest.raises(ValueError, match="whose gain 2\\^y - 1 overflows"):
        Predtron(SubsetRanking()).fit(X, y)
    with pytest.raises(ValueError, match="beyond the integers float64 holds exactly"):
        Predtron(SubsetRanking(gain="linear")).fit(X, [np.array([2.0 ** 60, 0.0])])
