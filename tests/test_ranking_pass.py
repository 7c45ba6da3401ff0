"""The compiled ranking pass and its oracle without allocations: the stable sort, the grade
programme restricted to the states closed under dominance, its scratch protocol, and the
whole pass against the per-query reference loop on queries large enough to use them."""

from __future__ import annotations

import inspect

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from predtron import Predtron
from predtron.engine import grade_dp
from predtron.engine import ranking as ranking_engine
from predtron.problems import SubsetRanking
from predtron.problems.ranking_measures import assignment_argmax
from predtron.testing import reference_fit

#: The pass's helper (compiled into the kernel only: no Python entry point) behind one that has one.
_grade_order = numba.njit(ranking_engine._grade_order.py_func)

TIED = st.sampled_from([-1.0, -0.0, 0.0, 0.5, 1.0])


@settings(max_examples=300, deadline=None)
@given(st.lists(TIED | st.floats(-1e3, 1e3), max_size=90))
def test_sort_desc_is_the_stable_argsort_of_the_negated_keys(keys):
    keys = np.array(keys, dtype=float)
    m = len(keys)
    idx = np.full(m + 3, -7, dtype=np.int64)
    buf = np.empty(m + 3, dtype=np.int64)
    grade_dp.sort_desc(np.concatenate([keys, [5.0, -5.0, 0.0]]), m, idx, buf)  # entries past m are not read
    np.testing.assert_array_equal(idx[:m], np.argsort(-keys, kind="stable"))
    assert idx[m:].tolist() == [-7, -7, -7]


@st.composite
def monotone_queries(draw):
    """Non-increasing ``b`` (a discount with a flat tail or a step): the programme prunes."""
    m = draw(st.integers(1, 13))
    grades = draw(st.lists(st.integers(0, 3), min_size=m, max_size=m))
    t = draw(st.lists(TIED | st.floats(-3, 3), min_size=m, max_size=m))
    f = np.sort(np.array(draw(st.lists(st.floats(-2, 2), min_size=m, max_size=m, unique=True))))[::-1].copy()
    b = np.sort(np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]) | st.floats(0, 1),
                                       min_size=m, max_size=m))))[::-1].copy()
    return np.array(t), np.array(grades, dtype=float) / 3.0, f, b


def _value(sigma, t, c, f, b) -> float:
    return float(t @ f[sigma] - c @ b[sigma])


@settings(max_examples=300, deadline=None)
@given(monotone_queries())
def test_pruned_programme_twin_equals_the_kernel_and_the_assignment(case):
    t, c, f, b = case
    sigma = grade_dp._argmax(t, c, f, b)
    np.testing.assert_array_equal(grade_dp._argmax_numpy(t, c, f, b), sigma)
    assert sorted(sigma.tolist()) == list(range(len(t)))
    best = _value(assignment_argmax(np.outer(t, f) - np.outer(c, b)), t, c, f, b)
    assert abs(_value(sigma, t, c, f, b) - best) <= 1e-9 * (1 + abs(best))


@pytest.mark.parametrize("seed", range(10))
def test_pruned_programme_is_optimal_on_mq2008_sized_queries(seed):
    """Queries of 60-120 items with three to five grades, scores with and without ties,
    b with and without a flat tail: the optimum of the dense assignment, and the twin's ranking."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(60, 121))
    top = 2 + seed % 3
    c = rng.choice(top + 1, size=m, p=np.r_[0.6, np.full(top, 0.4 / top)]).astype(float)
    t = rng.integers(-4, 5, m).astype(float) if seed % 2 else rng.standard_normal(m)
    f = -np.arange(1.0, m + 1) / m
    b = 1.0 / np.log2(np.arange(2.0, m + 2))
    if seed % 4 >= 2:
        b[10:] = 0.0  # NDCG@10: a flat tail, where equal scores tie
    sigma = grade_dp._argmax(t, c, f, b)
    best = _value(assignment_argmax(np.outer(t, f) - np.outer(c, b)), t, c, f, b)
    assert abs(_value(sigma, t, c, f, b) - best) <= 1e-9 * (1 + abs(best))
    np.testing.assert_array_equal(grade_dp._argmax_numpy(t, c, f, b), sigma)


def test_grade_dp_into_asks_for_larger_scratch_and_then_agrees():
    rng = np.random.default_rng(1)
    m = 40
    t, c = rng.standard_normal(m), rng.integers(0, 3, m).astype(float)
    f, b = -np.arange(1.0, m + 1), 1.0 / np.log2(np.arange(2.0, m + 2))
    n_ints, n_floats = grade_dp.scratch_sizes(m)
    ints, floats = np.zeros(n_ints, dtype=np.int64), np.zeros(n_floats)
    sigma = np.full(m, -1, dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)
    done, need_ints, need_floats, states = grade_dp.grade_dp_into(
        t, c, f, b, m, sigma, ints, floats, np.zeros(3), np.zeros(3, dtype=np.int8), none)
    assert not done and states == np.prod(np.bincount(c.astype(int)) + 1)
    assert (sigma == -1).all()  # nothing written
    ints = np.zeros(max(need_ints, n_ints), dtype=np.int64)
    floats = np.zeros(max(need_floats, n_floats))
    done, *_ = grade_dp.grade_dp_into(t, c, f, b, m, sigma, ints, floats, np.zeros(states),
                                      np.zeros(states, dtype=np.int8), none)
    assert done
    np.testing.assert_array_equal(sigma, grade_dp._argmax(t, c, f, b))
    # the order of the scores given by the caller (as the pass does) instead of sorted here
    given = np.full(m, -1, dtype=np.int64)
    done, *_ = grade_dp.grade_dp_into(t, c, f, b, m, given, ints, floats, np.zeros(states),
                                      np.zeros(states, dtype=np.int8), np.argsort(-t, kind="stable"))
    assert done
    np.testing.assert_array_equal(given, sigma)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3) | st.integers(0, 200), min_size=1, max_size=60), st.integers(0, 5))
def test_grade_order_is_the_stable_sort_of_the_negated_grades(grades, a):
    """Counting (grades up to 63) or sorting (larger grades): sigma_y of the pass."""
    y = np.concatenate([np.full(a, 9), grades]).astype(np.int64)
    m = len(grades)
    out, keys, buf = (np.zeros(m, dtype=np.int64), np.zeros(m), np.zeros(m, dtype=np.int64))
    tally = np.zeros(ranking_engine._FEW_GRADES + 1, dtype=np.int64)
    if not _grade_order(y, a, m, out, keys, tally):  # more grades: the kernel sorts them
        assert max(grades) > ranking_engine._FEW_GRADES
        grade_dp.sort_desc(keys, m, out, buf)
    np.testing.assert_array_equal(out, np.argsort(-np.array(grades), kind="stable"))


def _queries(seed, top_grade, step=1):
    """Queries of 1-70 documents (so the sorts merge and the programme prunes), grades from a
    noisy linear score (multiples of ``step``), a few duplicated documents (equal scores)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 71, size=18)
    X = rng.standard_normal((int(sizes.sum()), 6))
    X[5:9] = X[0]
    y = np.digitize(X @ rng.standard_normal(6) + rng.standard_normal(len(X)),
                    np.linspace(0.3, 2.0, top_grade)).astype(int) * step
    return X, y, sizes


PROBLEMS = [
    lambda: SubsetRanking(),
    lambda: SubsetRanking(oracle="dp"),
    lambda: SubsetRanking(k=5),
    lambda: SubsetRanking(f="discount"),
    lambda: SubsetRanking(f="square", gain="linear"),
    lambda: SubsetRanking(loss="precision", k=4),
    lambda: SubsetRanking(gain="linear", oracle="dp"),
]


def _assert_the_reference_s(fast, slow, average: bool) -> None:
    """The compiled fit ``fast`` played the rounds of the reference loop's ``slow``: the same losses and
    updates, and the same parameters (bit for bit, or to rounding for the average's sums)."""
    np.testing.assert_array_equal(fast.loss_history_, slow.losses)
    assert fast.n_updates_ == slow.n_updates
    if average:
        np.testing.assert_allclose(fast._params, slow.params, rtol=1e-10, atol=1e-12)
    else:
        np.testing.assert_array_equal(fast._params, slow.params)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("top_grade,step", [(2, 1), (4, 1), (4, 30)])  # grades up to 120: sigma_y sorted
@pytest.mark.parametrize("make", PROBLEMS, ids=lambda make: repr(make()))
def test_pass_equals_the_reference_loop_on_large_queries(make, top_grade, step, average, sparse):
    X, y, sizes = _queries(top_grade, top_grade, step)
    data = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0)) if sparse else X
    fast = Predtron(make(), average=average).fit(data, y, group=sizes, epochs=2)
    slow = reference_fit(Predtron(make(), average=average), data, y, group=sizes, epochs=2)
    _assert_the_reference_s(fast, slow, average)


@st.composite
def tied_queries(draw):
    """Scores from a few values (many exact ties, no near ties) and b with flat stretches."""
    m = draw(st.integers(1, 12))
    grades = draw(st.lists(st.integers(0, 3), min_size=m, max_size=m))
    t = draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0]), min_size=m, max_size=m))
    f = -np.arange(1.0, m + 1) if draw(st.booleans()) else 1.0 / np.arange(1.0, m + 1)
    cut = draw(st.integers(1, m))
    b = np.where(np.arange(m) < cut, 1.0 / np.log2(np.arange(2.0, m + 2)), 0.0)
    if draw(st.booleans()):
        b = (np.arange(m) < cut).astype(float)  # precision@k: b is a step
    return np.array(t), np.array(grades, dtype=float), f, b


@settings(max_examples=400, deadline=None)
@given(tied_queries())
def test_pruning_keeps_the_ranking_of_the_full_programme(case):
    """Only states that no optimal path can use are skipped, and ties are broken as before:
    on exact ties (equal scores where b is flat) the ranking is the full programme's."""
    t, c, f, b = case
    full = grade_dp._argmax_numpy(t, c, f, b, prune=False)
    np.testing.assert_array_equal(grade_dp._argmax(t, c, f, b), full)
    np.testing.assert_array_equal(grade_dp._argmax_numpy(t, c, f, b), full)


def _growing_queries():
    """Queries whose grade programmes need more and more scratch, in the order of a pass: a few small
    ones first (mistakes before the first growth), then larger ones with three or four grades, up to
    tens of thousands of states (far more runs than :func:`~predtron.engine.grade_dp.scratch_sizes`
    of the largest query gives integers)."""
    rng = np.random.default_rng(7)
    sizes = np.array([6, 9, 14, 24, 40, 18, 56, 70, 33, 70])
    X = rng.standard_normal((int(sizes.sum()), 5))
    y = np.concatenate([rng.choice(4 if m > 30 else 3, size=m, p=[0.4, 0.3, 0.2, 0.1] if m > 30 else [0.5, 0.3, 0.2])
                        for m in sizes])
    return X, y, sizes


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("average", [False, True])
def test_pass_grows_the_programme_scratch_and_equals_the_reference_loop(monkeypatch, average, sparse):
    """The kernel allocates nothing: when a query's grade programme needs more scratch than it was
    handed, it stops before that query (status 2, the sizes in ``needs``), and ``run_pass`` grows
    the scratch and runs the rest of the pass (``tau0`` advanced, the rounds shifted).  Here the
    growth happens several times within a pass, after mistakes, for ``best``/``move`` and for the
    integer scratch; the fit is the reference loop's bit for bit (every round's loss, the updates,
    the weights or their average)."""
    from predtron.engine import run
    from predtron.engine.spec import Kind

    tier = run._PASSES[Kind.RANKING]
    kernel = tier.kernel
    names = list(inspect.signature(kernel.py_func).parameters)
    calls = []

    def spy(*args):
        result = kernel(*args)
        calls.append((result[2], *(args[names.index(name)].shape[0] for name in ("order", "ints", "best"))))
        return result

    monkeypatch.setattr(tier, "kernel", spy)
    X, y, sizes = _growing_queries()
    data = sp.csr_matrix(np.where(np.abs(X) > 0.3, X, 0.0)) if sparse else X
    fast = Predtron(SubsetRanking(oracle="dp"), average=average).fit(data, y, group=sizes, epochs=2)
    monkeypatch.setattr(tier, "kernel", kernel)
    slow = reference_fit(Predtron(SubsetRanking(oracle="dp"), average=average), data, y, group=sizes, epochs=2)
    _assert_the_reference_s(fast, slow, average)
    statuses = [status for status, *_ in calls]
    assert statuses.count(2) >= 4 and 1 not in statuses  # several growths in each of the two passes
    ints = [n_ints for *_, n_ints, _ in calls]
    assert max(ints) > min(ints) == grade_dp.scratch_sizes(int(sizes.max()))[0]  # the integers grew too
    # a call after a growth runs the rest of the pass: from a query after the first
    assert any(n_order < calls[0][1] for _, n_order, *_ in calls[1:])
