"""The exact block scan equals the per-example loop written from the definitions.

For every problem class, every mistake-driven learner and every option (averaging,
shuffling, intercept, sparse input, both update rules), ``fit`` must give the same loss
of every round, the same number of updates and the same parameters as
:func:`predtron.testing.reference_fit`; the plain iterate bitwise, the averaged one up to
rounding (the fast path keeps it lazily, the reference sums the iterates).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import not_ready_at_first, ranking_stream

from predtron import KernelPredtron, Predtron, PredtronLD, PredtronLink
from predtron.data import make_noisy
from predtron.data.layout import flatten_queries
from predtron.data.sequences import make_sequences
from predtron.links import PNormLink
from predtron.problems import (
    Binary,
    BinaryReject,
    Chain,
    General,
    JointMulticlass,
    Multiclass,
    Multilabel,
    MultilabelRanking,
    MultivectorMap,
    Ordinal,
    SubsetRanking,
)
from predtron.problems.multilabel import LOSSES
from predtron.testing import reference_fit

VECTOR_PROBLEMS = [
    Binary(),
    Binary(cost_pos=2.0, cost_neg=0.5),
    BinaryReject(0.4, 0.3),
    Multiclass(4),
    Multiclass(3, loss=[[0, 2, 1], [1, 0, 1], [3, 1, 0]]),
    Ordinal(5),
    General([[0, 1, 2], [1, 0, 1], [3, 2, 0]], np.random.default_rng(3).standard_normal((3, 4))),
    *[Multilabel(5, loss, k=2) if loss.endswith("@k") else Multilabel(5, loss) for loss in LOSSES],
    MultilabelRanking(4),
    MultilabelRanking(4, f="inverse", y_max=2),
    MultilabelRanking(5, loss="ndcg", k=2),
]
OTHER_PROBLEMS = [SubsetRanking(), SubsetRanking(f="discount"), SubsetRanking(f="square", k=2),
                  SubsetRanking(loss="precision", k=2), Chain(3, 3), JointMulticlass(MultivectorMap(3))]

LEARNERS = {
    "Predtron": lambda p, **o: Predtron(p, eta=0.7, **o),
    "PredtronLD": lambda p, **o: PredtronLD(p, eta=0.7, **o),
    "PredtronLink": lambda p, **o: PredtronLink(p, link=PNormLink(1.5), eta=0.7, **o),
    "KernelPredtron": lambda p, **o: KernelPredtron(p, kernel="rbf", kernel_params={"gamma": 0.3}, **o),
}


def _data(problem, n=40, seed=0):
    if isinstance(problem, SubsetRanking):
        return ranking_stream(n=n, p0=4, seed=seed)
    if isinstance(problem, Chain):
        data = make_sequences(n, problem.length, problem.n_letters, 4, noise=1.0, seed=seed)
        return list(data.X), list(data.Y)
    if isinstance(problem, JointMulticlass):
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((n, 4))
        return X, list(np.argmax(X[:, :3] + rng.standard_normal((n, 3)), axis=1))
    return make_noisy(problem, n, 4, noise=0.7, seed=seed)


def _check_same(learner, reference, X, averaged):
    np.testing.assert_array_equal(learner.loss_history_, reference.losses)
    assert learner.n_updates_ == reference.n_updates
    if reference.params is not None:
        full = learner._params
        if averaged:
            np.testing.assert_allclose(full, reference.params, rtol=1e-10, atol=1e-12)
        else:
            np.testing.assert_array_equal(full, reference.params)
    fast = learner.decision_function(X)
    slow = reference.scores(X)
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


OPTIONS = [
    {},
    {"average": True},
    {"shuffle": True, "random_state": 4},
    {"average": True, "shuffle": True, "random_state": 5, "fit_intercept": True},
    {"fit_intercept": True, "update": "prediction"},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "plain")
@pytest.mark.parametrize("name", sorted(LEARNERS))
@pytest.mark.parametrize("problem", VECTOR_PROBLEMS, ids=repr)
def test_fast_loop_equals_reference_on_vector_problems(problem, name, options):
    X, Y = _data(problem)
    learner = LEARNERS[name](problem, **options).fit(X, Y, epochs=3)
    reference = reference_fit(LEARNERS[name](problem, **options), X, Y, epochs=3)
    _check_same(learner, reference, X, options.get("average", False))


@pytest.mark.parametrize("options", [o for o in OPTIONS if not o.get("fit_intercept")],
                         ids=lambda o: ",".join(o) or "plain")
@pytest.mark.parametrize("name", sorted(LEARNERS))
@pytest.mark.parametrize("problem", OTHER_PROBLEMS, ids=repr)
def test_fast_loop_equals_reference_on_other_inputs(problem, name, options):
    if name == "KernelPredtron" and isinstance(problem, (Chain, JointMulticlass)):
        pytest.skip("kernels are not defined for chain and class-sensitive feature-map inputs")
    X, Y = _data(problem)
    learner = LEARNERS[name](problem, **options).fit(X, Y, epochs=3)
    reference = reference_fit(LEARNERS[name](problem, **options), X, Y, epochs=3)
    _check_same(learner, reference, X, options.get("average", False))


@pytest.mark.parametrize("options", OPTIONS[:4], ids=lambda o: ",".join(o) or "plain")
@pytest.mark.parametrize("name", ["Predtron", "PredtronLD", "PredtronLink"])
@pytest.mark.parametrize("problem", [Binary(), Multiclass(4), Multilabel(5), MultilabelRanking(4)], ids=repr)
def test_sparse_input_equals_dense(problem, name, options):
    X, Y = _data(problem, n=60, seed=1)
    X = np.where(np.abs(X) > 0.8, X, 0.0)  # about 40% non-zeros
    dense = LEARNERS[name](problem, **options).fit(X, Y, epochs=3)
    sparse = LEARNERS[name](problem, **options).fit(sp.csr_matrix(X), Y, epochs=3)
    np.testing.assert_array_equal(sparse.loss_history_, dense.loss_history_)
    np.testing.assert_allclose(sparse._params, dense._params, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))
    reference = reference_fit(LEARNERS[name](problem, **options), sp.csr_matrix(X), Y, epochs=3)
    _check_same(sparse, reference, sp.csr_matrix(X), options.get("average", False))


@pytest.mark.parametrize("average", [False, True])
def test_flat_sparse_ranking_equals_per_query_lists(average):
    Xs, ys = ranking_stream(n=50, p0=6, seed=3)
    Xs = [np.where(np.abs(x) > 0.7, x, 0.0) for x in Xs]
    X, y, group = flatten_queries(Xs, ys)
    per_query = Predtron(SubsetRanking(), average=average).fit(Xs, ys, epochs=2)
    flat = Predtron(SubsetRanking(), average=average).fit(sp.csr_matrix(X), y, epochs=2, group=group)
    np.testing.assert_array_equal(flat.loss_history_, per_query.loss_history_)
    np.testing.assert_allclose(flat.coef_, per_query.coef_, rtol=1e-12, atol=1e-12)
    preds = flat.predict(sp.csr_matrix(X), group=group)
    assert all(np.array_equal(a, b) for a, b in zip(preds, per_query.predict(Xs), strict=True))


def test_partial_fit_keeps_stream_order_and_continues_the_average():
    problem = Multiclass(3)
    X, Y = _data(problem, n=60)
    whole = Predtron(problem, average=True).fit(X, Y)
    parts = Predtron(problem, average=True)
    for start in range(0, 60, 17):
        parts.partial_fit(X[start:start + 17], Y[start:start + 17])
    np.testing.assert_array_equal(parts.loss_history_, whole.loss_history_)
    np.testing.assert_allclose(parts.coef_, whole.coef_, rtol=1e-12)


def test_shuffle_changes_the_order_but_is_reproducible():
    problem = Multiclass(3)
    X, Y = _data(problem, n=60)
    a = Predtron(problem, shuffle=True, random_state=0).fit(X, Y, epochs=2)
    b = Predtron(problem, shuffle=True, random_state=0).fit(X, Y, epochs=2)
    c = Predtron(problem, shuffle=True, random_state=1).fit(X, Y, epochs=2)
    plain = Predtron(problem).fit(X, Y, epochs=2)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.loss_history_, c.loss_history_)
    assert not np.array_equal(a.loss_history_, plain.loss_history_)


def test_intercept_is_the_constant_feature():
    """``fit_intercept=True`` is Algorithm 1 on the inputs augmented with a constant 1."""
    problem = Multiclass(3)
    X, Y = _data(problem, n=50)
    with_b = Predtron(problem, fit_intercept=True).fit(X, Y, epochs=2)
    augmented = Predtron(problem).fit(np.hstack([X, np.ones((50, 1))]), Y, epochs=2)
    np.testing.assert_array_equal(with_b.coef_, augmented.coef_[:, :-1])
    np.testing.assert_array_equal(with_b.intercept_, augmented.coef_[:, -1])
    np.testing.assert_array_equal(with_b.loss_history_, augmented.loss_history_)


def test_average_is_the_mean_of_the_iterates():
    """Written out: run partial_fit one example at a time and average ``W`` after each round."""
    problem = Multilabel(4)
    X, Y = _data(problem, n=30)
    plain = Predtron(problem)
    iterates = []
    for i in range(30):
        plain.partial_fit(X[i:i + 1], Y[i:i + 1])
        iterates.append(plain.coef_.copy())
    averaged = Predtron(problem, average=True).fit(X, Y)
    np.testing.assert_allclose(averaged.coef_, np.mean(iterates, axis=0), rtol=1e-12, atol=1e-14)


def test_kernel_support_counts_distinct_examples():
    problem = Multiclass(3)
    X, Y = _data(problem, n=40)
    model = KernelPredtron(problem, kernel="rbf").fit(X, Y, epochs=6)
    assert model.n_updates_ > model.n_support_  # later passes add to existing coefficients
    assert model.n_support_ <= 40
    assert len({x.tobytes() for x in model.support_}) == model.n_support_
    budgeted = KernelPredtron(problem, kernel="rbf", budget=5).fit(X, Y, epochs=6)
    assert budgeted.n_support_ == 5


def test_record_losses_off_keeps_totals_only():
    problem = Multiclass(3)
    X, Y = _data(problem, n=50)
    kept = Predtron(problem).fit(X, Y, epochs=2)
    lean = Predtron(problem, record_losses=False).fit(X, Y, epochs=2)
    np.testing.assert_array_equal(lean.coef_, kept.coef_)
    assert (lean.n_rounds_, lean.n_mistakes_) == (100, kept.n_mistakes_)
    assert lean.cumulative_loss_ == pytest.approx(kept.loss_history_.sum())
    assert not hasattr(lean, "loss_history_")
    with pytest.raises(AttributeError, match="record_losses=False"):
        _ = lean.loss_history_


COMPILED_PROBLEMS = [Binary(cost_pos=2.0, cost_neg=0.5), BinaryReject(0.4, 0.3),
                     Multiclass(3, loss=[[0, 2, 1], [1, 0, 1], [3, 1, 0]]),
                     Ordinal(5), Multilabel(5, "hamming"), Multilabel(5, "subset"), SubsetRanking(f="discount")]


@pytest.mark.parametrize("options", OPTIONS[:2] + OPTIONS[3:4], ids=lambda o: ",".join(o) or "plain")
@pytest.mark.parametrize("problem", COMPILED_PROBLEMS, ids=repr)
def test_numpy_block_scan_equals_reference_where_a_compiled_pass_exists(problem, options, monkeypatch):
    """The problems above normally run compiled; the NumPy block scan must stay exact for them too."""
    import predtron.learners.base as base

    monkeypatch.setattr(base, "USE_COMPILED", False)
    if isinstance(problem, SubsetRanking):
        options = {k: v for k, v in options.items() if k != "fit_intercept"}
    X, Y = _data(problem)
    learner = Predtron(problem, eta=0.7, **options).fit(X, Y, epochs=3)
    reference = reference_fit(Predtron(problem, eta=0.7, **options), X, Y, epochs=3)
    _check_same(learner, reference, X, options.get("average", False))


@pytest.mark.parametrize("problem", COMPILED_PROBLEMS, ids=repr)
def test_compiled_pass_runs_for_the_built_in_problems(problem, monkeypatch):
    """The compiled pass is taken (so the tests above exercise it) and gives the NumPy result."""
    import predtron.engine as compiled
    import predtron.learners.base as base

    if not compiled.AVAILABLE:
        pytest.skip("numba is not installed")
    calls = []
    original = compiled.run_pass
    monkeypatch.setattr(compiled, "run_pass", lambda *a, **k: calls.append(original(*a, **k)) or calls[-1])
    X, Y = _data(problem)
    fast = Predtron(problem, average=True).fit(X, Y, epochs=2)
    assert calls and all(result is not None for result in calls), "the compiled pass was not used"
    monkeypatch.setattr(base, "USE_COMPILED", False)
    slow = Predtron(problem, average=True).fit(X, Y, epochs=2)
    np.testing.assert_array_equal(fast.loss_history_, slow.loss_history_)
    np.testing.assert_allclose(fast.coef_, slow.coef_, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("problem", [*COMPILED_PROBLEMS, Multilabel(5, "f1")], ids=repr)
def test_a_scan_hands_the_rest_of_its_pass_to_the_kernel_once_it_is_ready(problem, monkeypatch):
    """A pass that began in NumPy (its kernel was still being compiled) hands the rounds still to
    come to the kernel as soon as it is ready: mid-pass, with the rounds played so far counted,
    and the fit is the one of the per-example loop."""
    import predtron.engine as compiled
    import predtron.learners.base as base

    if not compiled.AVAILABLE:
        pytest.skip("numba is not installed")
    handed = []
    monkeypatch.setattr(base, "HANDOVER_SECONDS", 0.0)  # ask before every block
    monkeypatch.setattr(compiled, "run_pass", not_ready_at_first(compiled.run_pass, 3, handed))
    if isinstance(problem, SubsetRanking):
        X, Y = _data(problem)
    else:
        X, Y = _data(problem, n=200)
    options = {"average": True, "shuffle": True, "random_state": 5}
    learner = Predtron(problem, eta=0.7, **options).fit(X, Y, epochs=3)
    n = len(Y)
    assert handed and all(0 < rest < n for rest, _ in handed), handed  # mid-pass, every pass
    assert all((tau0 + rest) % n == 0 for rest, tau0 in handed)  # the rounds before were counted
    reference = reference_fit(Predtron(problem, eta=0.7, **options), X, Y, epochs=3)
    _check_same(learner, reference, X, averaged=True)
