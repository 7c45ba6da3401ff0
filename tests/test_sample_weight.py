"""Per-example weights of the online learners and the estimators (``sample_weight``).

The weighted block scan is compared with a per-example loop written here from the definition
in :mod:`predtron.learners.base` (a round of weight ``w`` suffers ``w L`` and steps ``eta w``
times Algorithm 1's update; a weight 0 is no round), and the documented consequences are
checked: a zero weight changes nothing, weights of one are the unweighted fit bit for bit, a
weight scales its update, an integer weight is the example repeated where the copies would all
update alike (and not otherwise), and every malformed weight is refused naming the argument.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import not_ready_at_first, ranking_stream

import predtron.learners.base as base
from predtron import KernelPredtron, Predtron, PredtronLD, PredtronLink
from predtron.data import make_noisy
from predtron.data.layout import flatten_queries
from predtron.links import PNormLink
from predtron.problems import Binary, Multiclass, Multilabel, Ordinal, SubsetRanking
from predtron.sklearn import (
    PredtronClassifier,
    PredtronMultilabelClassifier,
    PredtronOrdinalClassifier,
    PredtronRanker,
)

PROBLEMS = [Binary(), Multiclass(4), Multiclass(3, loss=[[0, 2, 1], [1, 0, 1], [3, 1, 0]]), Ordinal(5),
            Multilabel(5), Multilabel(4, "f1"), SubsetRanking(f="discount")]


def _data(problem, n=40, seed=0):
    if isinstance(problem, SubsetRanking):
        return ranking_stream(n=n, p0=4, seed=seed)
    return make_noisy(problem, n, 4, noise=0.7, seed=seed)


def _weights(n, seed=0):
    """Weights with zeros, fractions and integers."""
    rng = np.random.default_rng(seed)
    w = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0, 0.25], size=n)
    w[0] = 1.5
    return w


def _weighted_reference(learner, X, Y, weights, epochs=1, order_seed=None):
    """The per-example loop with weights, from the definitions (primal learners)."""
    problem = learner.problem
    inputs = problem.scoring.prepare(X, intercept=bool(learner.fit_intercept))
    labels = problem.check_labels(Y, inputs)
    W = inputs.zeros(problem.scoring.param_shape(inputs.n_features, inputs.intercept))
    total, rounds, losses = np.zeros_like(W), 0, []
    rng = np.random.default_rng(order_seed) if order_seed is not None else None
    for _ in range(epochs):
        order = rng.permutation(inputs.n) if rng is not None else range(inputs.n)
        for i in order:
            w = float(weights[i])
            if w == 0:
                continue
            t = inputs.one_scores(W, int(i))
            loss = float(problem._loss(problem._pred(t), labels[i]))
            losses.append(w * loss)
            if loss > 0:
                chosen = problem._oracle(t, labels[i]) if learner.update == "oracle" else problem._pred(t)
                g = problem._direction(t, labels[i], chosen)
                scale = loss if isinstance(learner, PredtronLD) else 1.0
                inputs.add_adjoint(W, g, int(i), -learner.eta * w * scale)
            rounds += 1
            total += W
    return np.array(losses), (total / rounds if learner.average else W)


@pytest.mark.parametrize("options", [{}, {"average": True}, {"update": "prediction", "fit_intercept": True},
                                     {"average": True, "fit_intercept": True}], ids=lambda o: ",".join(o) or "plain")
@pytest.mark.parametrize("cls", [Predtron, PredtronLD])
@pytest.mark.parametrize("problem", PROBLEMS, ids=repr)
def test_weighted_block_scan_equals_the_weighted_per_example_loop(problem, cls, options):
    if isinstance(problem, SubsetRanking) and options.get("fit_intercept"):
        pytest.skip("ranking scores have no intercept")
    X, Y = _data(problem)
    weights = _weights(len(Y))
    learner = cls(problem, eta=0.7, **options).fit(X, Y, epochs=3, sample_weight=weights)
    losses, params = _weighted_reference(cls(problem, eta=0.7, **options), X, Y, weights, epochs=3)
    np.testing.assert_allclose(learner.loss_history_, losses, rtol=1e-12, atol=0)
    assert learner.n_rounds_ == 3 * np.count_nonzero(weights)
    if options.get("average"):
        np.testing.assert_allclose(learner._params, params, rtol=1e-10, atol=1e-12)
    else:
        np.testing.assert_array_equal(learner._params, params)


def _copy(learner):
    state = {"w": learner._w.copy(), "u": None if learner._u is None else learner._u.copy(),
             "rounds": learner.n_rounds_, "loss": learner.cumulative_loss_, "updates": learner.n_updates_}
    return state


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("problem", PROBLEMS, ids=repr)
def test_a_zero_weight_is_the_example_removed(problem, average):
    X, Y = _data(problem)
    weights = _weights(len(Y), seed=1)
    keep = np.flatnonzero(weights > 0)
    Xk = [X[i] for i in keep] if isinstance(X, list) else X[keep]
    Yk = [Y[i] for i in keep]
    weighted = Predtron(problem, eta=0.7, average=average).fit(X, Y, epochs=2, sample_weight=weights)
    removed = Predtron(problem, eta=0.7, average=average).fit(Xk, Yk, epochs=2, sample_weight=weights[keep])
    np.testing.assert_array_equal(weighted._params, removed._params)
    np.testing.assert_array_equal(weighted.loss_history_, removed.loss_history_)


@pytest.mark.parametrize("cls", [Predtron, PredtronLD])
@pytest.mark.parametrize("average", [False, True])
def test_a_batch_of_zero_weights_leaves_the_model_unchanged(cls, average):
    problem = Multiclass(4)
    X, Y = _data(problem, n=60)
    learner = cls(problem, eta=0.7, average=average).partial_fit(X[:30], Y[:30])
    before, params = _copy(learner), learner._params.copy()
    learner.partial_fit(X[30:], Y[30:], sample_weight=np.zeros(30))
    after = _copy(learner)
    np.testing.assert_array_equal(after["w"], before["w"])
    if average:
        np.testing.assert_array_equal(after["u"], before["u"])
    assert (after["rounds"], after["loss"], after["updates"]) == (before["rounds"], before["loss"], before["updates"])
    np.testing.assert_array_equal(learner._params, params)
    np.testing.assert_array_equal(learner.coef_, params)


@pytest.mark.parametrize("make", [
    lambda p: Predtron(p, eta=0.7, average=True, shuffle=True, random_state=3),
    lambda p: PredtronLink(p, link=PNormLink(1.5), eta=0.7),
    lambda p: KernelPredtron(p, kernel="rbf", kernel_params={"gamma": 0.3}),
], ids=["Predtron", "PredtronLink", "KernelPredtron"])
@pytest.mark.parametrize("problem", [Binary(), Multilabel(5), SubsetRanking()], ids=repr)
def test_weights_of_one_are_the_unweighted_fit_bit_for_bit(problem, make, monkeypatch):
    X, Y = _data(problem)
    plain = make(problem).fit(X, Y, epochs=2)
    ones = make(problem).fit(X, Y, epochs=2, sample_weight=np.ones(len(Y)))
    np.testing.assert_array_equal(ones.loss_history_, plain.loss_history_)
    for a, b in zip(ones.decision_function(X), plain.decision_function(X), strict=True):
        np.testing.assert_array_equal(a, b)
    monkeypatch.setattr(base, "USE_COMPILED", False)  # and the NumPy scan alike
    numpy = make(problem).fit(X, Y, epochs=2)
    np.testing.assert_array_equal(ones.loss_history_, numpy.loss_history_)


@pytest.mark.parametrize("cls", [Predtron, PredtronLD])
@pytest.mark.parametrize("problem", [Binary(), Multiclass(3), Multilabel(4), SubsetRanking()], ids=repr)
def test_a_weight_scales_the_loss_and_the_update_of_its_round(problem, cls):
    X, Y = _data(problem, n=5, seed=2)
    x, y = X[:1], Y[:1]
    one = cls(problem, eta=0.3).fit(x, y)
    assert one.n_updates_ == 1
    scaled = cls(problem, eta=0.3).fit(x, y, sample_weight=[2.5])
    np.testing.assert_allclose(scaled._w, 2.5 * one._w, rtol=1e-15, atol=0)
    np.testing.assert_allclose(scaled.loss_history_, 2.5 * one.loss_history_, rtol=1e-15)
    assert scaled.cumulative_loss_ == pytest.approx(2.5 * one.cumulative_loss_)


def test_an_integer_weight_is_the_example_repeated_where_every_copy_updates_alike():
    """Binary: the first example drives the second's score far to the wrong side, so its three
    copies all err with the same update, and weight 3 is the three copies; a fresh second example
    is fit by its first copy, and weight 3 then overshoots where the copies stop."""
    X = np.array([[-10.0, 0.0], [1.0, 0.5]])
    Y = [-1, -1]  # pred(0) is +1: the first example errs and sets W = (10, 0)
    for update in ("oracle", "prediction"):
        copies = Predtron(Binary(), eta=0.5, update=update).fit(X[[0, 1, 1, 1]], [-1, -1, -1, -1])
        weighted = Predtron(Binary(), eta=0.5, update=update).fit(X, Y, sample_weight=[1, 3])
        assert copies.n_updates_ == 4
        np.testing.assert_allclose(weighted._w, copies._w, rtol=1e-15)
        assert weighted.cumulative_loss_ == copies.cumulative_loss_ == 4.0
    copies = Predtron(Binary(), eta=0.5).fit(X[[1, 1, 1]], [-1, -1, -1])
    weighted = Predtron(Binary(), eta=0.5).fit(X[[1]], [-1], sample_weight=[3])
    assert copies.n_updates_ == 1  # the first copy fits it: the other two make no update
    np.testing.assert_allclose(weighted._w, 3 * copies._w)


def test_weights_per_query_for_flat_ranking_input():
    X, Y = ranking_stream(n=12, p0=3, seed=4)
    flat, grades, group = flatten_queries(X, Y)
    weights = _weights(12, seed=3)
    listed = Predtron(SubsetRanking(), eta=0.5).fit(X, Y, sample_weight=weights)
    flat_fit = Predtron(SubsetRanking(), eta=0.5).fit(flat, grades, group=group, sample_weight=weights)
    np.testing.assert_array_equal(flat_fit._w, listed._w)
    with pytest.raises(ValueError, match=r"sample_weight must have shape \(12,\) \(one weight per query\)"):
        Predtron(SubsetRanking()).fit(flat, grades, group=group, sample_weight=np.ones(len(grades)))


@pytest.mark.parametrize("weights, error, match", [
    (np.ones(3), ValueError, r"sample_weight must have shape \(8,\)"),
    (np.ones((8, 2)), ValueError, r"sample_weight must have shape \(8,\)"),
    ([1, 1, 1, -1, 1, 1, 1, 1], ValueError, "sample_weight must hold finite non-negative numbers; got .*-1"),
    ([1, 1, 1, np.nan, 1, 1, 1, 1], ValueError, "sample_weight must hold finite non-negative"),
    ([1, 1, 1, np.inf, 1, 1, 1, 1], ValueError, "sample_weight must hold finite non-negative"),
    (np.zeros(8), ValueError, "sample_weight must hold at least one positive weight"),
    ("heavy", TypeError, "sample_weight must be an array of 8 non-negative numbers"),
    ([True] * 8, TypeError, "sample_weight must hold real numbers, not booleans"),
    (np.ones(8) + 1j, TypeError, "sample_weight must hold real numbers, not complex numbers"),  # not the real part
    (["1", "2", "1", "1", "1", "1", "1", "1"], TypeError, "sample_weight must hold real numbers, not text"),
])
def test_malformed_weights_are_refused_naming_the_argument(weights, error, match):
    X, Y = _data(Multiclass(3), n=8)
    with pytest.raises(error, match=match):
        Predtron(Multiclass(3)).fit(X, Y, sample_weight=weights)


def test_a_scalar_weight_is_every_examples_weight():
    X, Y = _data(Multiclass(3), n=20)
    a = Predtron(Multiclass(3), update="prediction").fit(X, Y, sample_weight=2.0)
    b = Predtron(Multiclass(3), update="prediction").fit(X, Y, sample_weight=np.full(20, 2.0))
    np.testing.assert_array_equal(a._w, b._w)
    # the prediction update from W = 0: a common factor scales W, the predictions are the same
    c = Predtron(Multiclass(3), update="prediction").fit(X, Y)
    np.testing.assert_allclose(a._w, 2.0 * c._w)


def test_sparse_weighted_input_equals_dense():
    X, Y = _data(Multilabel(5), n=50)
    X = np.where(np.abs(X) > 0.8, X, 0.0)
    w = _weights(50)
    dense = Predtron(Multilabel(5), average=True).fit(X, Y, epochs=2, sample_weight=w)
    sparse = Predtron(Multilabel(5), average=True).fit(sp.csr_matrix(X), Y, epochs=2, sample_weight=w)
    np.testing.assert_array_equal(dense.loss_history_, sparse.loss_history_)
    np.testing.assert_allclose(dense._params, sparse._params, rtol=1e-12, atol=1e-14)


# ------------------------------------------------------------------ the estimators
def _estimator_cases():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((60, 4))
    two = (X[:, 0] > 0).astype(int)
    three = np.digitize(X[:, 1], [-0.5, 0.5])
    return X, [(PredtronClassifier, two), (PredtronClassifier, three), (PredtronOrdinalClassifier, three),
               (PredtronMultilabelClassifier, np.c_[two, three == 1].astype(int))]


PLAIN = {"standardize": False, "eta": 0.5, "shuffle": False, "tol": None, "epochs": 2}


def test_estimators_weights_of_one_change_nothing_and_weights_scale_the_steps():
    X, cases = _estimator_cases()
    for cls, y in cases:
        plain = cls(**PLAIN).fit(X, y)
        ones = cls(**PLAIN).fit(X, y, sample_weight=np.ones(len(X)))
        np.testing.assert_array_equal(ones.coef_, plain.coef_)
        np.testing.assert_array_equal(ones.intercept_, plain.intercept_)
        weights = np.where(np.arange(len(X)) % 3 == 0, 2.0, 0.5)
        weighted = cls(**PLAIN).fit(X, y, sample_weight=weights)
        reference = cls(**PLAIN).fit(X, y).learner_
        reference = type(reference)(reference.problem, eta=0.5, average=True, fit_intercept=True)
        _, params = _weighted_reference(reference, X, _target(weighted, y), weights, epochs=2)
        np.testing.assert_allclose(weighted.learner_._params, params, rtol=1e-10, atol=1e-12)


def _target(model, y):
    problem = model.learner_.problem
    if isinstance(problem, Binary):
        return np.where(np.searchsorted(model.classes_, y) == 1, 1, -1)
    if isinstance(problem, Multilabel):
        return y
    return np.searchsorted(model.classes_, y)


def test_estimators_zero_weight_is_the_row_removed_and_a_zero_batch_changes_nothing():
    X, cases = _estimator_cases()
    weights = np.where(np.arange(len(X)) % 4 == 1, 0.0, 1.0)
    keep = weights > 0
    for cls, y in cases:
        weighted = cls(**PLAIN).fit(X, y, sample_weight=weights)
        removed = cls(**PLAIN).fit(X[keep], y[keep])
        np.testing.assert_array_equal(weighted.coef_, removed.coef_)
        classes = None if cls is PredtronMultilabelClassifier else np.unique(y)
        stream = cls(**PLAIN).partial_fit(X[:30], y[:30], classes=classes)
        coef, intercept = stream.coef_, stream.intercept_
        stream.partial_fit(X[30:], y[30:], sample_weight=np.zeros(30))
        np.testing.assert_array_equal(stream.coef_, coef)
        np.testing.assert_array_equal(stream.intercept_, intercept)


def test_estimators_refuse_malformed_weights_naming_the_argument():
    X, cases = _estimator_cases()
    for cls, y in cases:
        with pytest.raises(ValueError, match=r"sample_weight must have shape \(60,\) \(one weight per row of X\)"):
            cls().fit(X, y, sample_weight=np.ones(59))
        with pytest.raises(ValueError, match="sample_weight must hold finite non-negative numbers"):
            cls().fit(X, y, sample_weight=-np.ones(60))
        with pytest.raises(ValueError, match="sample_weight must hold at least one positive weight"):
            cls().fit(X, y, sample_weight=np.zeros(60))
        for weights in (np.ones(60) + 0.5j, ["2"] * 60):  # the real part, or text, were taken silently
            with pytest.raises((TypeError, ValueError), match=r"sample_weight must .*real numbers"):
                cls().fit(X, y, sample_weight=weights)


def test_ranker_weights_are_per_query():
    X, Y = ranking_stream(n=10, p0=3, seed=5)
    flat, grades, group = flatten_queries(X, Y)
    per_query = _weights(10, seed=6)
    rows = np.repeat(per_query, group)
    options = {"standardize": False, "eta": 0.5, "shuffle": False, "tol": None, "epochs": 2}
    ranker = PredtronRanker(**options).fit(flat, grades, group=group, sample_weight=rows)
    learner = Predtron(SubsetRanking(f="discount"), eta=0.5, average=True).fit(X, Y, epochs=2, sample_weight=per_query)
    np.testing.assert_array_equal(ranker.learner_._params, learner._params)
    uneven = rows.copy()
    query = int(np.flatnonzero(group > 1)[0])
    uneven[int(group[:query].sum()) + 1] += 1.0  # the second row of a query of several rows
    with pytest.raises(ValueError, match="sample_weight must be equal on the rows of a query"):
        PredtronRanker().fit(flat, grades, group=group, sample_weight=uneven)


@pytest.mark.parametrize("problem", [Binary(), Multiclass(3), Multilabel(3, "subset")], ids=repr)
def test_theorem1_holds_for_the_weighted_loss_with_the_weighted_radius(problem):
    """The module notes' weighted Theorem 1: ``sum w L`` is below Theorem 1's bound with
    ``R_w^2 = max w ||x||^2`` at the steps the proof covers, for the weights of the run."""
    from predtron.bounds import theorem1_bound
    from predtron.data import make_separable

    data = make_separable(problem, 150, 4, margin=0.2, seed=1)
    weights = np.random.default_rng(2).uniform(0.0, 3.0, 150)
    R_w = float(np.sqrt(np.max(weights * np.sum(np.asarray(data.X) ** 2, axis=1))))
    c_L, C_L = problem.c_L, problem.C_L
    for eta in (c_L / (4 * R_w**2), c_L / (3 * R_w**2)):
        learner = Predtron(problem, eta=eta).fit(data.X, data.Y, epochs=20, sample_weight=weights)
        assert learner.n_updates_ > 0
        assert learner.cumulative_loss_ <= theorem1_bound(R_w, data.margin, c_L, C_L, eta)


@pytest.mark.parametrize("problem", [Multiclass(4), SubsetRanking()], ids=repr)
def test_weighted_partial_fit_over_chunks_is_the_weighted_fit(problem):
    X, Y = _data(problem, n=60)
    weights = _weights(60, seed=4)
    whole = Predtron(problem, eta=0.7, average=True).fit(X, Y, epochs=2, sample_weight=weights)
    chunks = Predtron(problem, eta=0.7, average=True)
    for _ in range(2):
        for start in range(0, 60, 25):
            part = slice(start, start + 25)
            chunks.partial_fit(X[part], Y[part], sample_weight=weights[part])
    np.testing.assert_array_equal(chunks._params, whole._params)
    np.testing.assert_array_equal(chunks.loss_history_, whole.loss_history_)


_SCORED = {
    "accuracy": lambda: PredtronClassifier(random_state=0),
    "cost": lambda: PredtronClassifier(random_state=0, cost_matrix=[[0, 1, 1], [1, 0, 1], [4, 1, 0]]),
    "abstention": lambda: PredtronClassifier(random_state=0, reject_cost=0.3),
    "ordinal": lambda: PredtronOrdinalClassifier(random_state=0),
    "multilabel": lambda: PredtronMultilabelClassifier(random_state=0),
}


@pytest.mark.parametrize("name", sorted(_SCORED))
@pytest.mark.parametrize("weights, error, match", [
    (np.ones(3), ValueError, r"sample_weight must have shape \(30,\)"),
    (np.full(30, np.nan), ValueError, "sample_weight must hold finite non-negative numbers"),
    (-np.ones(30), ValueError, "sample_weight must hold finite non-negative numbers"),
    (np.zeros(30), ValueError, "sample_weight must hold at least one positive weight"),
    ("abc", TypeError, "sample_weight must be an array of 30"),
])
def test_score_refuses_malformed_weights_naming_the_argument(name, weights, error, match):
    """``score``'s weights are checked as ``fit``'s: a wrong length, a NaN, a negative weight or no
    positive weight was a ``TypeError`` of NumPy's ("Axis must be specified"), a NaN score, a
    silently accepted negative weight or a ``ZeroDivisionError`` on the cost, abstention, ordinal
    and multilabel paths."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    target = (X > 0).astype(int) if name == "multilabel" else y
    model = _SCORED[name]().fit(X, target)
    with pytest.raises(error, match=match):
        model.score(X, target, sample_weight=weights)
    weights = np.arange(30.0)
    assert np.isfinite(model.score(X, target, sample_weight=weights))


COMPILED_PROBLEMS = [Binary(cost_pos=2.0, cost_neg=0.5), Multiclass(3, loss=[[0, 2, 1], [1, 0, 1], [3, 1, 0]]),
                     Ordinal(5), Multilabel(5), Multilabel(4, "f1"), SubsetRanking(f="discount")]


def _recording_run_pass(monkeypatch) -> list:
    """Patch the engine's entry point to record what each pass returned (``None``: not compiled)."""
    import predtron.engine as engine

    calls: list = []
    original = engine.run_pass
    monkeypatch.setattr(engine, "run_pass", lambda *a, **k: calls.append(original(*a, **k)) or calls[-1])
    return calls


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("options", [{}, {"average": True, "shuffle": True, "random_state": 4},
                                     {"update": "prediction", "fit_intercept": True}],
                         ids=lambda o: ",".join(o) or "plain")
@pytest.mark.parametrize("cls", [Predtron, PredtronLD])
@pytest.mark.parametrize("problem", COMPILED_PROBLEMS, ids=repr)
def test_a_weighted_fit_runs_compiled_and_equals_the_weighted_numpy_scan(problem, cls, options, sparse, monkeypatch):
    """Weighted passes run the compiled kernels (zeros, fractions and integers among the weights;
    every option; dense and CSR rows), with the NumPy scan's result."""
    ranking = isinstance(problem, SubsetRanking)
    if ranking and (sparse or options.get("fit_intercept")):
        pytest.skip("ranking input here: dense queries without an intercept")
    X, Y = _data(problem, n=60)
    X = sp.csr_matrix(X) if sparse else X
    weights = _weights(len(Y), seed=3)
    calls = _recording_run_pass(monkeypatch)
    fast = cls(problem, eta=0.7, **options).fit(X, Y, epochs=3, sample_weight=weights)
    assert calls and all(result is not None for result in calls), "the weighted pass did not run compiled"
    monkeypatch.setattr(base, "USE_COMPILED", False)
    slow = cls(problem, eta=0.7, **options).fit(X, Y, epochs=3, sample_weight=weights)
    np.testing.assert_array_equal(fast.loss_history_, slow.loss_history_)
    assert (fast.n_rounds_, fast.n_updates_) == (slow.n_rounds_, slow.n_updates_) == (
        3 * np.count_nonzero(weights), slow.n_updates_)
    np.testing.assert_allclose(fast._params, slow._params, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("problem", [Multiclass(3), Multilabel(5), SubsetRanking()], ids=repr)
def test_a_weighted_scan_hands_the_rest_of_its_pass_to_the_kernel(problem, monkeypatch):
    """A weighted pass that began in NumPy (its kernel was being compiled) hands the rest of the
    pass, weights and all, to the kernel once it is ready: the fit is the weighted per-example loop's."""
    import predtron.engine as engine

    handed = []
    monkeypatch.setattr(base, "HANDOVER_SECONDS", 0.0)  # ask before every block
    monkeypatch.setattr(engine, "run_pass", not_ready_at_first(engine.run_pass, 2, handed))
    X, Y = _data(problem, n=80)
    weights = _weights(len(Y), seed=4)
    learner = Predtron(problem, eta=0.7, average=True).fit(X, Y, epochs=3, sample_weight=weights)
    # mid-pass, the rounds still to come counted without the instances of weight 0
    assert handed and all(0 < rest < np.count_nonzero(weights) for rest, _ in handed), handed
    losses, params = _weighted_reference(Predtron(problem, eta=0.7, average=True), X, Y, weights, epochs=3)
    np.testing.assert_allclose(learner.loss_history_, losses, rtol=1e-12, atol=0)
    np.testing.assert_allclose(learner._params, params, rtol=1e-10, atol=1e-12)


def test_the_rankers_score_takes_sample_weight_equal_within_a_query():
    """``PredtronRanker.score`` takes ``sample_weight`` as ``fit`` does (one per row, equal on the rows of
    a query): a query of weight 2 counts as the query given twice, weight 0 leaves it out, unit weights
    change nothing, and weights that differ within a query are refused naming the query."""
    from predtron.sklearn import PredtronRanker

    rng = np.random.default_rng(0)
    X, y, group = rng.normal(size=(30, 4)), rng.integers(0, 3, size=30), [5] * 6
    ranker = PredtronRanker(random_state=0).fit(X, y, group=group)
    per_query = np.array([1, 2, 0, 1, 3, 1])
    copies = np.concatenate([np.arange(5 * q, 5 * q + 5) for q in np.repeat(np.arange(6), per_query)])
    weighted = ranker.score(X, y, group=group, sample_weight=np.repeat(per_query, 5).astype(float))
    assert weighted == pytest.approx(ranker.score(X[copies], y[copies], group=[5] * (len(copies) // 5)), rel=1e-12)
    assert ranker.score(X, y, group=group, sample_weight=np.ones(30)) == ranker.score(X, y, group=group)
    with pytest.raises(ValueError, match="sample_weight must be equal on the rows of a query"):
        ranker.score(X, y, group=group, sample_weight=np.arange(30.0))
    with pytest.raises(ValueError, match="sample_weight must hold at least one positive weight"):
        ranker.score(X, y, group=group, sample_weight=np.zeros(30))
