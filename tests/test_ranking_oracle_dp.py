"""The dynamic-programming oracle over grade counts (``oracle="dp"``) and its cost checks.

:func:`predtron.engine.grade_dp_argmax` is checked against brute force on small queries
and against the dense assignment on larger ones; :func:`predtron.engine.grade_dp_covers`
(the whole-data check of a compiled ranking pass) against the per-query cost functions.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predtron import engine
from predtron.problems.ranking_measures import assignment_argmax
from predtron.problems.subset_ranking import SubsetRanking
from predtron.testing import brute_force_ranking

F_ALL = ["linear", "inverse", "power1.1", "square", "discount"]
CONFIGS = [{}, {"k": 2}, {"gain": "linear"}, {"loss": "precision", "k": 2}]


def _profit_args(problem, t, y):
    fvals, b, _ = problem._sizes(len(y))
    v = problem.ranking_loss.item_values(y)
    ideal = problem.ranking_loss.ideal(v, b)
    return None if ideal == 0 else (np.asarray(t, dtype=float), v / ideal, fvals, b)


def _value(sigma, t, c, f, b) -> float:
    return float(t @ f[sigma] - c @ b[sigma])


@st.composite
def small_queries(draw):
    m = draw(st.integers(1, 6))
    top = draw(st.sampled_from([1, 2, 3]))
    y = np.array(draw(st.lists(st.integers(0, top), min_size=m, max_size=m)))
    t = np.array(draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0]) | st.floats(-3, 3), min_size=m, max_size=m)))
    problem = SubsetRanking(f=draw(st.sampled_from(F_ALL)), oracle="dp", **draw(st.sampled_from(CONFIGS)))
    return problem, y, t


@settings(max_examples=200, deadline=None)
@given(small_queries())
def test_dp_matches_brute_force(case):
    problem, y, t = case
    sigma = problem.oracle(t, y)
    assert sorted(sigma.tolist()) == list(range(len(y)))
    phi = problem.objective(sigma, t, y)
    assert abs(phi - brute_force_ranking(problem, t, y)["phi"]) <= 1e-9 * (1 + abs(phi))


@pytest.mark.parametrize("seed", range(12))
def test_dp_matches_the_assignment_optimum_on_larger_queries(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(8, 90))
    y = rng.choice(3, size=m, p=[0.7, 0.2, 0.1])  # MQ2008-like grade profile
    t = rng.integers(-3, 4, m).astype(float) if seed % 2 else rng.standard_normal(m)  # ties / no ties
    problem = SubsetRanking(f=F_ALL[seed % len(F_ALL)], oracle="dp")
    args = _profit_args(problem, t, y)
    if args is None:
        return
    sigma = engine.grade_dp_argmax(*args)
    best = _value(assignment_argmax(np.outer(args[0], args[2]) - np.outer(args[1], args[3])), *args)
    assert sorted(sigma.tolist()) == list(range(m))
    assert abs(_value(sigma, *args) - best) <= 1e-9 * (1 + abs(best))
    assert np.array_equal(sigma, engine.grade_dp_argmax(*args))  # deterministic


def test_dp_ties_keep_the_lower_index_first():
    """Equal scores within a grade: the stable order of the docstring (lower index first)."""
    t = np.zeros(4)
    c = np.array([0.0, 1.0, 0.0, 1.0])
    f = -np.arange(1.0, 5.0)
    b = np.ones(4)  # every ranking has the same loss term: the scores decide, all tied
    sigma = engine.grade_dp_argmax(t, c, f, b)
    assert sigma[0] < sigma[2] and sigma[1] < sigma[3]


def _states_by_formula(c) -> int:
    _, counts = np.unique(c, return_counts=True)
    return int(np.prod(counts + 1))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=40), st.booleans())
def test_cost_checks_agree(values, cheap):
    c = np.array(values, dtype=float)
    states = _states_by_formula(c)
    counted = engine.grade_dp_cost(c)[0]
    if states <= engine.MAX_DP_STATES:
        assert counted == states
    else:  # counting stops once the limit is passed
        assert engine.MAX_DP_STATES < counted <= states
    expected = states <= engine.MAX_DP_STATES and states * len(np.unique(c)) <= max(len(c) ** 3, 4096)
    assert engine.grade_dp_is_cheap(c) == expected
    # the batched check over several queries equals the per-query checks
    offsets = np.array([0, len(c) // 2, len(c)], dtype=np.int64)
    needed = np.array([True, True])
    per_query = [c[offsets[q]:offsets[q + 1]] for q in range(2)]
    want = all((engine.grade_dp_is_cheap(part) if cheap else engine.grade_dp_cost(part)[0]
                <= engine.MAX_DP_STATES) for part in per_query)
    assert engine.grade_dp_covers(c, offsets, needed, cheap) == want
    assert engine.grade_dp_covers(c, offsets, np.array([False, False]), cheap)


def test_too_many_states_are_refused_by_the_pass_check():
    c = np.repeat(np.arange(8.0), 6)  # 7^8 states, far above the limit
    assert engine.grade_dp_cost(c)[0] > engine.MAX_DP_STATES
    offsets = np.array([0, len(c)], dtype=np.int64)
    assert not engine.grade_dp_covers(c, offsets, np.array([True]), False)
    assert engine.grade_dp_covers(c, offsets, np.array([False]), False)
