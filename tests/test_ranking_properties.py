"""Property tests (hypothesis) of the ranking machinery against enumeration."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from predtron.problems.ranking import best_with_forced_pair, block_margin, block_structure, lemma4_margin
from predtron.problems.subset_ranking import SubsetRanking
from predtron.testing import brute_force_ranking

sizes = st.integers(min_value=1, max_value=5)


@st.composite
def instances(draw):
    m = draw(sizes)
    y = np.array(draw(st.lists(st.integers(0, 3), min_size=m, max_size=m)))
    t = np.array(draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.5]) | st.floats(-3, 3),
                               min_size=m, max_size=m)))
    f = draw(st.sampled_from(["linear", "inverse", "power1.1", "square", "discount"]))
    config = draw(st.sampled_from([{}, {"k": 1}, {"k": 2}, {"loss": "precision", "k": 2},
                                   {"gain": "linear"}, {"loss": "precision", "k": 1}]))
    return SubsetRanking(f=f, **config), y, t


@settings(max_examples=150, deadline=None)
@given(instances())
def test_oracle_and_margin_match_enumeration(case):
    problem, y, t = case
    brute = brute_force_ranking(problem, t, y)
    phi = problem.objective(problem.oracle(t, y), t, y)
    assert abs(phi - brute["phi"]) <= 1e-9 * (1 + abs(phi))
    assert problem.rep(problem.pred(t)) @ t >= brute["pred_value"] - 1e-12
    margin, want = problem.margin(t, y), brute["margin"]
    assert margin == want or abs(margin - want) <= 1e-9


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=1, max_size=5), st.data())
def test_best_with_forced_pair(scores, data):
    t = np.array(scores)
    m = len(t)
    fvals = np.sort(np.array(data.draw(st.lists(st.floats(-2, 2), min_size=m, max_size=m))))[::-1]
    got = best_with_forced_pair(t, fvals)
    want = np.full((m, m), -np.inf)
    for perm in itertools.permutations(range(m)):
        sigma = np.array(perm)
        value = fvals[sigma] @ t
        rows = np.arange(m)
        want[rows, sigma] = np.maximum(want[rows, sigma], value)
    assert np.allclose(got, want, atol=1e-9)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=5), st.data())
def test_lemma4_equals_block_margin_of_ndcg(grades, data):
    y = np.array(grades)
    t = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.0]), min_size=len(y), max_size=len(y))))
    problem = SubsetRanking(f="inverse")
    blocks = block_structure(problem.zero_loss_pattern(y))
    fvals = problem.rep(np.arange(len(y)))
    expected = block_margin(t, blocks, fvals)
    got = lemma4_margin(t, y, "inverse")
    assert got == expected or abs(got - expected) <= 1e-12


def _average_precision_by_definition(scores, grades) -> float:
    """AP of one query from the definition, in exact arithmetic: the documents by decreasing score, a
    tie to the lower document (exact ties only: the scores drawn here are whole numbers), relevant when
    the grade is positive; 1 without a relevant document."""
    from fractions import Fraction

    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    relevant = [grades[i] > 0 for i in order]
    if not any(relevant):
        return 1.0
    found, total = 0, Fraction(0)
    for position, hit in enumerate(relevant, start=1):
        if hit:
            found += 1
            total += Fraction(found, position)
    return float(total / sum(relevant))


@given(st.lists(st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 3)), min_size=1, max_size=8), min_size=1,
                max_size=6))
@settings(max_examples=200, deadline=None)
def test_average_precisions_equal_the_definition(queries):
    """``ranking_batch.average_precisions`` (the MAP of ``predtron evaluate``) equals AP computed from
    its definition for every query of a block, ties and queries without a relevant document included."""
    from predtron.problems.ranking_batch import average_precisions

    scores = np.array([float(s) for query in queries for s, _ in query])
    grades = np.array([g for query in queries for _, g in query])
    offsets = np.concatenate(([0], np.cumsum([len(query) for query in queries])))
    expected = [_average_precision_by_definition([s for s, _ in q], [g for _, g in q]) for q in queries]
    np.testing.assert_allclose(average_precisions(scores, grades, offsets), expected, rtol=1e-12, atol=0)


@given(st.lists(st.lists(st.tuples(st.sampled_from([-1.0, 0.0, 0.5, 2.5]) | st.floats(-3, 3), st.integers(0, 4)),
                         min_size=1, max_size=9), min_size=2, max_size=6),
       st.sampled_from([("ndcg", None), ("ndcg", 2), ("precision", 3)]))
@settings(max_examples=200, deadline=None)
def test_a_block_of_queries_gives_each_query_s_own_results_bit_for_bit(queries, measure):
    """The block scan locates mistakes with ``losses_of_scores`` on a block of queries; the round
    then scores one query alone, through the one-segment path of ``ranking_batch`` (no padding, a
    stable ``argsort`` for the ``lexsort``).  Both must give the same orders and bitwise the same
    losses, or a round would see a mistake that its block did not (or the reverse)."""
    from predtron.problems.ranking_batch import losses_of_scores, rankings, segment_sums, sort_segments
    from predtron.problems.ranking_measures import RankingLoss

    loss = RankingLoss(measure[0], k=measure[1])
    scores = np.array([s for query in queries for s, _ in query])
    grades = np.array([g for query in queries for _, g in query])
    offsets = np.concatenate(([0], np.cumsum([len(query) for query in queries]))).astype(np.int64)
    block_losses = losses_of_scores(loss, scores, grades, offsets)
    block_order = sort_segments(scores, offsets)
    block_ranks = rankings(scores, offsets)
    block_sums = segment_sums(scores, offsets)
    for q, (a, e) in enumerate(itertools.pairwise(offsets)):
        one = np.array([0, e - a])
        assert losses_of_scores(loss, scores[a:e], grades[a:e], one).tobytes() == block_losses[q:q + 1].tobytes()
        np.testing.assert_array_equal(sort_segments(scores[a:e], one) + a, block_order[a:e])
        np.testing.assert_array_equal(rankings(scores[a:e], one), block_ranks[a:e])
        assert segment_sums(scores[a:e], one).tobytes() == block_sums[q:q + 1].tobytes()


def test_scores_too_small_for_the_tie_grid_all_tie():
    """A query whose largest score is so small that ``TIE_TOLERANCE`` times it underflows to 0 (a
    subnormal score, found by the test above) divided by that zero: a RuntimeWarning, and keys of
    inf and NaN.  Its scores all tie now (item order), as the scores of a query at 0 do."""
    from predtron.problems.ranking_batch import losses_of_scores, rankings
    from predtron.problems.ranking_measures import RankingLoss

    offsets = np.array([0, 3, 5])
    scores = np.array([1e-313, 2e-313, -3e-313, -1.0, 2.0])
    np.testing.assert_array_equal(rankings(scores, offsets), [0, 1, 2, 1, 0])
    grades = np.array([0, 1, 0, 1, 0])
    np.testing.assert_array_equal(losses_of_scores(RankingLoss("ndcg"), scores, grades, offsets) > 0,
                                  [True, True])
