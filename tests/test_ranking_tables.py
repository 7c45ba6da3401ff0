"""The per-size tables of the ranking problems: the sort rule's shortcut and the shared cache."""

from __future__ import annotations

import numpy as np
import pytest

from predtron.problems import SubsetRanking
from predtron.problems import ranking as ranking_module
from predtron.problems.ranking_measures import F_CHOICES, RankingLoss, discount, position_values


def _lstsq_rule(fvals, b):
    """The slow reference: the least-squares solve for every size."""
    m = len(fvals)
    if m == 1 or np.ptp(b) == 0:
        return 0.0
    design = np.column_stack([b, np.ones(m)])
    (alpha, beta), *_ = np.linalg.lstsq(design, fvals, rcond=None)
    residual = np.abs(design @ np.array([alpha, beta]) - fvals).max()
    if alpha > 0 and residual <= 1e-12 * (1.0 + np.abs(fvals).max()):
        return float(alpha)
    return None


CALLABLES = [lambda i: -np.log(i + 1), lambda i: 5.5 - i, lambda i: 3 / np.log2(1 + i) + 2]


@pytest.mark.parametrize("f", [*F_CHOICES, *CALLABLES])
@pytest.mark.parametrize("loss,k", [("ndcg", None), ("ndcg", 1), ("ndcg", 3), ("ndcg", 10),
                                    ("precision", 1), ("precision", 3), ("precision", 10)])
def test_sort_rule_equals_the_least_squares_reference(f, loss, k):
    weights = RankingLoss(loss, k)
    for m in range(1, 260):
        fvals = position_values(f, m)
        fvals = fvals / np.linalg.norm(fvals)
        b = weights._position_weights(m)
        assert ranking_module._sort_rule(fvals, b) == _lstsq_rule(fvals, b), (m, loss, k)


def test_tables_are_shared_by_problems_with_the_same_f_loss_and_cutoff():
    first, second = SubsetRanking(f="linear"), SubsetRanking(f="linear")
    a, b = first._sizes(17), second._sizes(17)
    assert all(x is y for x, y in zip(a, b, strict=True))
    assert not a[0].flags.writeable and not a[1].flags.writeable
    other = SubsetRanking(f="linear", k=5)._sizes(17)
    assert other[1] is not a[1] and not np.array_equal(other[1], a[1])
    assert SubsetRanking(f="discount")._sizes(17)[2] is not None
    assert a[2] is None


def test_callable_f_is_not_shared():
    problem, twin = SubsetRanking(f=lambda i: -i), SubsetRanking(f=lambda i: -2 * i)
    assert problem._sizes(6)[0] is not twin._sizes(6)[0]
    np.testing.assert_array_equal(problem._sizes(6)[0], twin._sizes(6)[0])  # both normalised


def test_compiled_spec_of_a_fresh_problem_equals_a_used_one():
    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 40, size=30)
    X = rng.standard_normal((int(sizes.sum()), 5))
    y = rng.integers(0, 3, size=len(X))
    from predtron import Predtron

    used = Predtron(SubsetRanking()).fit(X, y, group=sizes)
    ranking_module._SIZE_TABLES.clear()
    fresh = Predtron(SubsetRanking()).fit(X, y, group=sizes)
    np.testing.assert_array_equal(used._w, fresh._w)
    np.testing.assert_array_equal(used.loss_history_, fresh.loss_history_)


@pytest.mark.parametrize("f", list(F_CHOICES))
@pytest.mark.parametrize("loss,k", [("ndcg", None), ("ndcg", 1), ("ndcg", 2), ("ndcg", 3), ("ndcg", 7),
                                    ("ndcg", 10), ("ndcg", 100), ("precision", 1), ("precision", 2),
                                    ("precision", 3), ("precision", 10), ("precision", 100)])
def test_named_sort_rule_equals_the_computed_one(f, loss, k):
    """The case analysis of _named_sort_rule against _sort_rule (itself tested against the solve)."""
    weights = RankingLoss(loss, k)
    for m in [*range(1, 130), 200, 257, 500, 1000]:
        fvals = position_values(f, m)
        fvals = fvals / np.linalg.norm(fvals)
        b = weights._position_weights(m)
        assert ranking_module._named_sort_rule(f, weights, fvals, b) == ranking_module._sort_rule(fvals, b), (m, k)


@pytest.mark.parametrize("f", list(F_CHOICES))
@pytest.mark.parametrize("loss,k", [("ndcg", None), ("ndcg", 3), ("precision", 2)])
def test_named_tables_equal_the_checked_construction(f, loss, k):
    """The unchecked tables of a named f are bit for bit those of position_values and discount."""
    weights = RankingLoss(loss, k)
    for m in [1, 2, 3, 17, 118, 300]:
        fvals, b, alpha = ranking_module._named_entry(f, weights, m)
        expected = position_values(f, m)
        np.testing.assert_array_equal(fvals, expected / np.linalg.norm(expected))
        cut = m if k is None else min(k, m)
        want_b = np.zeros(m)
        want_b[:cut] = 1.0 if loss == "precision" else discount(np.arange(1, cut + 1))
        np.testing.assert_array_equal(b, want_b)
        assert alpha == ranking_module._sort_rule(fvals, b)
        assert not fvals.flags.writeable and not b.flags.writeable
