"""The exact oracle by relevance grades (``oracle="grades"``) against brute force and the dense assignment."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predtron.problems.multilabel_ranking import MultilabelRanking
from predtron.problems.ranking_grades import (
    MAX_BAND_STATES,
    _band_pass,
    _band_tables,
    band_states,
    choose_method,
    grades_argmax,
    oracle_costs,
    smallest_grades_size,
)
from predtron.problems.ranking_measures import assignment_argmax
from predtron.problems.subset_ranking import SubsetRanking
from predtron.testing import brute_force_ranking

F_ALL = ["linear", "inverse", "power1.1", "square", "discount", lambda i: -np.sqrt(i)]
LOSS_CONFIGS = [
    {}, {"k": 1}, {"k": 3}, {"gain": "linear"}, {"k": 2, "gain": "linear"},
    {"loss": "precision", "k": 1}, {"loss": "precision", "k": 3},
]


def _profits(problem, t, y):
    """``(t, w, fvals, b)`` of the oracle's profit ``t_i fvals_j - w_i b_j``, or None if ``I(y) = 0``."""
    m = len(y)
    fvals, b, _ = problem._sizes(m)
    v = problem.ranking_loss.item_values(y)
    ideal = problem.ranking_loss.ideal(v, b)
    if ideal == 0:
        return None
    return np.asarray(t, dtype=float), v / ideal, fvals, b


def _value(sigma, t, w, fvals, b) -> float:
    return float(t @ fvals[sigma] - w @ b[sigma])


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * (1.0 + abs(a) + abs(b))


# ------------------------------------------------------------------ brute force (m <= 7)
@st.composite
def small_instances(draw):
    m = draw(st.integers(1, 6))
    grades = draw(st.sampled_from([1, 2, 3, 4]))
    y = np.array(draw(st.lists(st.integers(0, grades), min_size=m, max_size=m)))
    t = np.array(draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.5]) | st.floats(-3, 3),
                               min_size=m, max_size=m)))
    f = draw(st.sampled_from(F_ALL))
    config = draw(st.sampled_from(LOSS_CONFIGS))
    return SubsetRanking(f=f, oracle="grades", **config), y, t


@settings(max_examples=200, deadline=None)
@given(small_instances())
def test_grades_oracle_matches_brute_force(case):
    problem, y, t = case
    phi = problem.objective(problem.oracle(t, y), t, y)
    assert abs(phi - brute_force_ranking(problem, t, y)["phi"]) <= 1e-9 * (1 + abs(phi))


@pytest.mark.parametrize(("f", "config"), list(zip(F_ALL + F_ALL[:1], LOSS_CONFIGS, strict=True)),
                         ids=lambda v: v if isinstance(v, str) else "sqrt" if callable(v) else str(v))
def test_grades_oracle_at_seven_items(f, config):
    """m = 7 with tied grades and tied scores, every loss, band widths 1 to 3."""
    rng = np.random.default_rng(7)
    problem = SubsetRanking(f=f, oracle="grades", **config)
    for y in (np.array([2, 0, 1, 0, 2, 1, 0]), np.array([3, 0, 2, 1, 0, 0, 1])):
        T = np.array([rng.integers(-1, 2, size=7).astype(float), rng.standard_normal(7), np.zeros(7)])
        phis = brute_force_ranking(problem, T, y)["phi"]
        for t, phi in zip(T, phis, strict=True):
            assert abs(problem.objective(problem.oracle(t, y), t, y) - phi) <= 1e-9 * (1 + abs(phi))
            args = _profits(problem, t, y)
            for width in (1, 2, 3):
                sigma = grades_argmax(*args, width=width)
                assert abs(problem.objective(sigma, t, y) - phi) <= 1e-9 * (1 + abs(phi))


def test_all_zero_relevance_and_single_class():
    problem = SubsetRanking(oracle="grades")
    t = np.array([0.3, -1.0, 2.0, 0.3])
    assert problem.oracle(t, np.zeros(4, dtype=int)).tolist() == [1, 3, 0, 2]
    # one class: the sort by score is exact, ties to the lower index
    info = grades_argmax(t, np.full(4, 0.5), np.array([4.0, 3, 2, 1]), np.array([1.0, 0.6, 0.5, 0.4]),
                         return_info=True)
    assert info.method == "sort" and info.sigma.tolist() == [1, 3, 0, 2]


# ------------------------------------------------------------------ the certificate itself
@pytest.mark.parametrize("width", [1, 2])
def test_certificate_never_accepts_a_suboptimal_reference(width):
    """Run one band pass from every class sequence of small instances: whenever the pass
    certifies (band best not above the reference, or a best path strictly inside the band),
    the certified sequence is optimal, and some references are rejected."""
    rng = np.random.default_rng(11)
    problem = SubsetRanking(f="linear")
    accepted = rejected = 0
    for _ in range(6):
        y = rng.integers(0, 3, size=6)
        if len(np.unique(y)) < 2:
            continue
        t, w, fvals, b = _profits(problem, rng.integers(-2, 3, size=6).astype(float), y)
        wv, cls = np.unique(w, return_inverse=True)
        order = np.lexsort((-t, cls))
        counts = np.bincount(cls)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        best = _value(assignment_argmax(np.outer(t, fvals) - np.outer(w, b)), t, w, fvals, b)
        for seq in set(itertools.permutations(cls.tolist())):
            seq = np.array(seq)
            _, band_best, ref_value, touches = _band_pass(seq, counts, starts, t[order], wv, fvals, b, width)
            items = np.empty(6, dtype=np.int64)
            items[np.argsort(seq, kind="stable")] = order
            assert _close(ref_value, float(t[items] @ fvals - w[items] @ b))
            assert band_best >= ref_value - 1e-12
            if band_best <= ref_value + 1e-12:
                accepted += 1
                assert _close(ref_value, best)
            else:
                rejected += 1
                if not touches:
                    accepted += 1
                    assert _close(band_best, best)
    assert accepted > 0 and rejected > 0


def test_band_tables():
    assert [band_states(G, 1) for G in (2, 3, 4, 5)] == [3, 7, 19, 51]
    assert [band_states(G, 2) for G in (2, 3, 4, 5)] == [5, 19, 85, 381]
    for G, W in [(2, 1), (3, 2), (4, 1)]:
        tables = _band_tables(G, W)
        D, pred = tables.offsets, tables.pred
        K = len(D)
        assert K == band_states(G, W) and not D[0].any() and (D.sum(1) == 0).all()
        assert (np.abs(D) <= W).all() and len({tuple(r) for r in D.tolist()}) == K
        eye = np.eye(G, dtype=int)
        for s, g, k in itertools.product(range(G), range(G), range(K)):
            want = D[k] - eye[g] + eye[s]
            if np.abs(want).max() <= W:
                assert D[pred[s, g, k]].tolist() == want.tolist()
            else:
                assert pred[s, g, k] == K
            assert tables.pred_lists[s][k][g] == pred[s, g, k]
            assert D[k, g] == tables.pick[g, k] - g * (2 * W + 1) - W == tables.pick_lists[k][g] - g * (2 * W + 1) - W


def test_fallback_to_the_assignment_is_exact():
    """With one band pass of width 1 a non-optimal reference cannot be certified; the
    dense assignment then gives the answer."""
    problem = SubsetRanking(f="linear")
    fallbacks = 0
    for seed in range(120):
        rng = np.random.default_rng(seed)
        y = rng.integers(0, 3, size=12)
        args = _profits(problem, rng.integers(-2, 3, size=12).astype(float), y)
        if args is None:
            continue
        info = grades_argmax(*args, width=1, max_passes=1, return_info=True)
        best = _value(assignment_argmax(np.outer(args[0], args[2]) - np.outer(args[1], args[3])), *args)
        assert _close(_value(info.sigma, *args), best)
        fallbacks += info.method == "assignment"
    assert fallbacks > 0


def test_many_grades_use_the_assignment():
    rng = np.random.default_rng(4)
    m, G = 40, 12
    assert band_states(G, 1) > MAX_BAND_STATES
    problem = SubsetRanking(f="inverse", gain="linear")
    args = _profits(problem, rng.standard_normal(m), np.arange(m) % G)
    info = grades_argmax(*args, return_info=True)
    assert info.method == "assignment" and info.classes == G
    assert oracle_costs(m, G)["grades"] == np.inf and choose_method(10_000, G) == "assignment"


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"w must have 3 entries \(one per item of t\)"):
        grades_argmax(np.zeros(3), np.zeros(2), np.arange(3.0)[::-1], np.ones(3))
    with pytest.raises(ValueError, match=r"fvals must be non-increasing; got fvals\[1\] = 1.0 < fvals\[2\] = 2.0"):
        grades_argmax(np.zeros(3), np.array([0, 1.0, 0]), np.array([3.0, 1.0, 2.0]), np.array([1, 0.5, 0]))
    with pytest.raises(ValueError, match=r"t must contain only finite values; found 1 NaN or infinite \(first at"):
        grades_argmax(np.array([0, np.nan, 1]), np.zeros(3), np.arange(3.0)[::-1], np.ones(3))
    with pytest.raises(ValueError, match="width must be an integer >= 1"):
        grades_argmax(np.zeros(3), np.array([0, 1.0, 0]), np.arange(3.0)[::-1], np.array([1, 0.5, 0]), width=0)
    with pytest.raises(ValueError, match="oracle must be one of"):
        SubsetRanking(oracle="hungarian")


# ------------------------------------------------------------------ larger instances against the assignment
@st.composite
def large_instances(draw):
    m = draw(st.integers(8, 160))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    G = draw(st.integers(1, 6))
    p = rng.dirichlet(np.ones(G) * draw(st.sampled_from([0.5, 2.0])))
    y = rng.choice(G, size=m, p=p)
    kind = draw(st.sampled_from(["ties", "tiny", "normal", "large", "zeros", "correct"]))
    f = draw(st.sampled_from(F_ALL))
    config = draw(st.sampled_from([*LOSS_CONFIGS, {"k": 10}, {"loss": "precision", "k": 10}]))
    problem = SubsetRanking(f=f, **config)
    t = {"ties": rng.integers(-3, 4, size=m).astype(float), "tiny": 1e-3 * rng.standard_normal(m),
         "normal": rng.standard_normal(m), "large": 100 * rng.standard_normal(m), "zeros": np.zeros(m),
         "correct": 3 * problem.rep(problem.correct(y)) + 0.01 * rng.standard_normal(m)}[kind]
    return problem, y, t


@settings(max_examples=60, deadline=None)
@given(large_instances())
def test_grades_matches_the_assignment_optimum(case):
    problem, y, t = case
    args = _profits(problem, t, y)
    if args is None:
        return
    best = _value(assignment_argmax(np.outer(args[0], args[2]) - np.outer(args[1], args[3])), *args)
    for width in (None, 1):
        sigma = grades_argmax(*args, width=width)
        assert sorted(sigma.tolist()) == list(range(len(y)))
        assert _close(_value(sigma, *args), best)
        assert np.array_equal(sigma, grades_argmax(*args, width=width))  # deterministic


@settings(max_examples=25, deadline=None)
@given(large_instances(), st.sampled_from([1, 2, 3]))
def test_auto_is_exact_and_deterministic(case, stretch):
    problem, y, t = case
    if stretch > 1:  # reach the sizes where "auto" picks the grades oracle
        y, t = np.tile(y, stretch), np.tile(t, stretch) + 1e-3 * np.arange(len(t) * stretch)
    params = problem.get_params() | {"oracle": "auto"}
    auto = SubsetRanking(**params)
    exact = SubsetRanking(**(params | {"oracle": "assignment"}))
    sigma = auto.oracle(t, y)
    assert np.array_equal(sigma, auto.oracle(t, y))
    assert _close(auto.objective(sigma, t, y), exact.objective(exact.oracle(t, y), t, y))


def test_auto_choice_follows_the_cost_model():
    small = smallest_grades_size()
    assert choose_method(small, 2) == "grades" and choose_method(small - 1, 2) == "assignment"
    assert choose_method(8, 3) == "assignment" and choose_method(1000, 3) == "grades"
    costs = oracle_costs(1000, 5)
    assert costs["grades"] < costs["assignment"] / 10
    # one class of grades dominates the cost: more classes never make the grades oracle cheaper
    assert all(oracle_costs(500, G)["grades"] <= oracle_costs(500, G + 1)["grades"] for G in range(2, 9))
    # the dispatch: "auto" returns exactly what the chosen method returns
    rng = np.random.default_rng(8)
    for m, method in [(8, "assignment"), (small - 1, "assignment"), (400, "grades")]:
        y, t = rng.integers(0, 3, size=m), rng.standard_normal(m)
        y[0] = 2
        assert choose_method(m, len(np.unique(y))) == method
        auto, chosen = SubsetRanking(f="inverse"), SubsetRanking(f="inverse", oracle=method)
        assert np.array_equal(auto.oracle(t, y), chosen.oracle(t, y))
    exact_sort = SubsetRanking(f="discount")  # the sort is exact: "auto" sorts at every size
    y, t = rng.integers(0, 3, size=400), rng.standard_normal(400)
    assert np.array_equal(exact_sort.oracle(t, y), SubsetRanking(f="discount", oracle="sort").oracle(t, y))


def test_grades_oracle_in_problems_and_learners():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, size=300)
    t = rng.standard_normal(300)
    for cls, kwargs in [(SubsetRanking, {}), (MultilabelRanking, {"n_labels": 300, "y_max": 2})]:
        problem = cls(f="power1.1", oracle="grades", **kwargs)
        other = cls(f="power1.1", oracle="assignment", **kwargs)
        assert _close(problem.surrogate(t, y), other.surrogate(t, y))
        assert problem.surrogate(t, y) >= problem.loss(problem.pred(t), y)
