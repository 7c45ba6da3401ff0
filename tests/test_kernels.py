"""Kernels (predtron.kernels) and the kernelized Predtron: dual == primal, budget, validation."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import core_problems, ranking_stream

from predtron.data.generators import make_noisy
from predtron.kernels import KernelFunction, get_kernel, linear_kernel, poly_kernel, rbf_kernel
from predtron.learners.kernel import KernelPredtron
from predtron.learners.predtron import Predtron, PredtronLD
from predtron.problems import Binary, BinaryReject, Multiclass, Multilabel, Ordinal
from predtron.scoring import DocumentScoring, VectorScoring
from predtron.testing import check_learner


def noisy_stream(problem, n=120, p=5, seed=0):
    """A non-separable stream (many updates, so the comparisons see many rounds)."""
    return make_noisy(problem, n, p, noise=0.8, seed=seed)



def xor_data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (3 * n, 2))
    X = X[np.min(np.abs(X), axis=1) > 0.15][:n]
    return X, np.where(X[:, 0] * X[:, 1] > 0, 1, -1)


# -------------------------------------------------------------- the kernels
def test_named_kernels_match_their_formulas():
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    dots = np.array([[a @ b for b in B] for a in A])
    sq = np.array([[np.sum((a - b) ** 2) for b in B] for a in A])
    np.testing.assert_allclose(get_kernel("linear")(A, B), dots, rtol=1e-12)
    np.testing.assert_allclose(get_kernel("rbf", gamma=0.7)(A, B), np.exp(-0.7 * sq), rtol=1e-12)
    np.testing.assert_allclose(get_kernel("rbf")(A, B), np.exp(-sq / 3), rtol=1e-12)  # 1 / n_features
    np.testing.assert_allclose(
        get_kernel("poly", degree=2, gamma=0.5, coef0=2.0)(A, B), (0.5 * dots + 2.0) ** 2, rtol=1e-12)
    np.testing.assert_allclose(get_kernel("poly")(A, B), (dots / 3 + 1.0) ** 3, rtol=1e-12)
    np.testing.assert_allclose(linear_kernel(A, B), dots, rtol=1e-12)
    np.testing.assert_allclose(rbf_kernel(A, A, gamma=1.0).diagonal(), 1.0)
    np.testing.assert_allclose(poly_kernel(A, B, degree=1, gamma=1.0, coef0=0.0), dots, rtol=1e-12)


def test_callable_kernel_with_and_without_parameters():
    def scaled(A, B, scale=1.0):
        return scale * (A @ B.T)

    A = np.random.default_rng(1).standard_normal((3, 2))
    np.testing.assert_allclose(get_kernel(scaled)(A, A), A @ A.T)
    np.testing.assert_allclose(get_kernel(scaled, scale=2.0)(A, A), 2 * A @ A.T)
    k = get_kernel("rbf", gamma=2.0)
    assert get_kernel(k) is k
    assert repr(k) == "KernelFunction('rbf', gamma=2.0)"


@pytest.mark.parametrize(
    ("spec", "params", "message"),
    [
        ("gaussian", {}, r"kernel must be one of \['linear', 'poly', 'rbf'\] or a callable k\(A, B\); "
                         r"got 'gaussian'"),
        (3, {}, r"kernel must be one of .* or a callable k\(A, B\); got int"),
        (None, {}, r"kernel must be one of .*; got NoneType"),
        ("linear", {"gamma": 1.0}, r"kernel 'linear' takes the parameters \[\]; got unexpected \['gamma'\]"),
        ("rbf", {"degree": 2}, r"kernel 'rbf' takes the parameters \['gamma'\]; got unexpected \['degree'\]"),
        ("rbf", {"gamma": -1.0}, r"gamma must be finite and > 0; got -1.0"),
        ("rbf", {"gamma": 0}, r"gamma must be finite and > 0; got 0"),
        ("poly", {"degree": 0}, r"degree must be an integer >= 1; got 0"),
        ("poly", {"degree": 2.5}, r"degree must be an integer >= 1; got 2.5"),
        ("poly", {"coef0": -1.0}, r"coef0 must be finite and >= 0; got -1.0"),
    ],
)
def test_bad_kernel_specs(spec, params, message):
    with pytest.raises(ValueError, match=message):
        get_kernel(spec, **params)


def test_kernel_function_checks_inputs_and_outputs():
    k = get_kernel("linear")
    with pytest.raises(ValueError, match=r"A and B must have the same number of features \(columns\); "
                                         r"got A with 3 and B with 4"):
        k(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"A must be a 2-D array of shape \(n_samples, n_features\); got an array "
                                         r"with shape \(3,\)"):
        k(np.ones(3), np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"A must contain only finite values"):
        k(np.array([[np.nan]]), np.ones((1, 1)))
    wrong = get_kernel(lambda A, B: A @ B.T @ np.ones((len(B), 1)))
    with pytest.raises(ValueError, match=r"kernel function '<lambda>' must return a Gram matrix of shape \(2, 3\)"):
        wrong(np.ones((2, 2)), np.ones((3, 2)))
    nan = get_kernel(lambda A, B: np.full((len(A), len(B)), np.nan))
    with pytest.raises(ValueError, match=r"Gram matrix of the kernel function '<lambda>' must contain only finite"):
        nan(np.ones((2, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"kernel is already a KernelFunction; got extra parameters \['gamma'\]"):
        get_kernel(KernelFunction(linear_kernel, {}, "linear"), gamma=1.0)


def test_kernel_scores_of_both_scorings_equal_the_primal_scores():
    # sum_i A_{x_i}^*(c_i) evaluated with the linear kernel equals A_x of the summed parameters
    rng = np.random.default_rng(2)
    vector = VectorScoring(3)
    xs, cs = list(rng.standard_normal((4, 5))), list(rng.standard_normal((4, 3)))
    W = sum(vector.gradient(c, x) for x, c in zip(xs, cs, strict=True))
    x = rng.standard_normal(5)
    np.testing.assert_allclose(vector.kernel_scores(get_kernel("linear"), xs, cs, x), W @ x, rtol=1e-12)
    np.testing.assert_array_equal(vector.kernel_scores(get_kernel("linear"), [], [], x), np.zeros(3))
    docs = DocumentScoring()
    Xs = [rng.standard_normal((m, 5)) for m in (1, 3, 6)]
    gs = [rng.standard_normal(len(X)) for X in Xs]
    w = sum(docs.gradient(g, X) for X, g in zip(Xs, gs, strict=True))
    X = rng.standard_normal((4, 5))
    np.testing.assert_allclose(docs.kernel_scores(get_kernel("linear"), Xs, gs, X), X @ w, rtol=1e-12)


# ------------------------------------------------------- dual == primal
# (the error-set loss is 0 for the all-ones prediction of W = 0, so it would never update)
EQUIVALENCE_PROBLEMS = [
    Binary(), Binary(cost_pos=2.0, cost_neg=0.5), BinaryReject(0.4, 0.3), Multiclass(4),
    Ordinal(5), Multilabel(4, "hamming"), Multilabel(3, "subset"),
]


@pytest.mark.parametrize("problem", EQUIVALENCE_PROBLEMS, ids=repr)
@pytest.mark.parametrize("update", ["oracle", "prediction"])
def test_linear_kernel_predicts_exactly_like_the_primal_predtron(problem, update):
    X, Y = noisy_stream(problem)
    for loss_driven, reference in ((False, Predtron), (True, PredtronLD)):
        dual = KernelPredtron(problem, kernel="linear", eta=0.3, update=update, loss_driven=loss_driven)
        dual.fit(X, Y, epochs=2)
        primal = reference(problem, eta=0.3, update=update).fit(X, Y, epochs=2)
        assert primal.n_updates_ > 10
        np.testing.assert_array_equal(dual.loss_history_, primal.loss_history_)
        assert dual.n_updates_ == primal.n_updates_
        np.testing.assert_allclose(dual.decision_function(X), primal.decision_function(X), rtol=0, atol=1e-9)
        np.testing.assert_array_equal(dual.predict(X), primal.predict(X))
        # the support expansion is the primal matrix: W = sum_i c_i x_i^T
        W = sum(np.outer(c, x) for x, c in zip(dual.support_, dual.dual_coef_, strict=True))
        np.testing.assert_allclose(W, primal.coef_, rtol=0, atol=1e-9)


SUBSET_RANKING_OPTIONS = [
    {}, {"f": "inverse"}, {"f": "square", "loss": "precision", "k": 2}, {"gain": "linear", "k": 3},
]


@pytest.mark.parametrize("options", SUBSET_RANKING_OPTIONS, ids=repr)
def test_linear_kernel_predicts_like_the_primal_on_subset_ranking(options):
    pytest.importorskip(
        "predtron.problems.subset_ranking",
        reason="predtron.problems.subset_ranking is not written yet (ranking part of issue 3)")
    from predtron.problems.subset_ranking import SubsetRanking

    problem = SubsetRanking(**options)
    X, Y = ranking_stream(n=40, p0=6, seed=3)
    for update in ("oracle", "prediction"):
        dual = KernelPredtron(problem, eta=0.5, update=update).fit(X, Y, epochs=2)
        primal = Predtron(problem, eta=0.5, update=update).fit(X, Y, epochs=2)
        assert primal.n_updates_ > 0
        np.testing.assert_array_equal(dual.loss_history_, primal.loss_history_)
        for a, b in zip(dual.decision_function(X), primal.decision_function(X), strict=True):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-9)
        w = sum(x.T @ c for x, c in zip(dual.support_, dual.dual_coef_, strict=True))
        np.testing.assert_allclose(w, primal.coef_, rtol=0, atol=1e-9)
    check_learner(lambda pr: KernelPredtron(pr, kernel="rbf", kernel_params={"gamma": 0.2}), problem, X, Y)
    check_learner(lambda pr: KernelPredtron(pr, budget=5, loss_driven=True), problem, X, Y)


def test_linear_kernel_predicts_like_the_primal_on_multilabel_ranking():
    pytest.importorskip(
        "predtron.problems.multilabel_ranking",
        reason="predtron.problems.multilabel_ranking is not written yet (ranking part of issue 3)")
    from predtron.problems.multilabel_ranking import MultilabelRanking

    for problem in (MultilabelRanking(4), MultilabelRanking(3, f="inverse", y_max=2)):
        X, Y = noisy_stream(problem, n=60)
        dual = KernelPredtron(problem, eta=0.5).fit(X, Y, epochs=2)
        primal = Predtron(problem, eta=0.5).fit(X, Y, epochs=2)
        assert primal.n_updates_ > 5
        np.testing.assert_array_equal(dual.loss_history_, primal.loss_history_)
        np.testing.assert_allclose(dual.decision_function(X), primal.decision_function(X), rtol=0, atol=1e-9)
        check_learner(lambda pr: KernelPredtron(pr, kernel="rbf", budget=10), problem, X[:30], Y[:30])


# ---------------------------------------------------------------- nonlinear
def test_rbf_kernel_learns_xor_that_the_linear_one_cannot():
    X, Y = xor_data()
    linear = KernelPredtron(Binary()).fit(X, Y, epochs=5)
    rbf = KernelPredtron(Binary(), kernel="rbf", kernel_params={"gamma": 2.0}).fit(X, Y, epochs=5)
    assert linear.mean_loss(X, Y) > 0.3  # no linear separator through the origin exists
    assert rbf.mean_loss(X, Y) < 0.05
    X_test, Y_test = xor_data(seed=1)
    assert rbf.mean_loss(X_test, Y_test) < 0.15 < linear.mean_loss(X_test, Y_test)


def test_poly_kernel_of_degree_two_learns_xor():
    X, Y = xor_data(seed=2)
    model = KernelPredtron(Binary(), kernel="poly", kernel_params={"degree": 2, "gamma": 1.0, "coef0": 0.0})
    assert model.fit(X, Y, epochs=5).mean_loss(X, Y) < 0.05  # x1 * x2 is a degree-2 feature


def test_callable_kernel_equals_the_named_one():
    X, Y = noisy_stream(Multiclass(3), n=80)
    named = KernelPredtron(Multiclass(3), kernel="poly",
                           kernel_params={"degree": 2, "gamma": 1.0, "coef0": 1.0}).fit(X, Y)
    mine = KernelPredtron(Multiclass(3), kernel=lambda A, B: (A @ B.T + 1.0) ** 2).fit(X, Y)
    np.testing.assert_array_equal(mine.loss_history_, named.loss_history_)
    np.testing.assert_allclose(mine.decision_function(X), named.decision_function(X), rtol=1e-12)


# ------------------------------------------------------------------- budget
def test_budget_bounds_the_support_and_keeps_the_newest_examples():
    X, Y = noisy_stream(Multiclass(4), n=400, seed=5)
    budget = 15
    model = KernelPredtron(Multiclass(4), kernel="rbf", budget=budget)
    for start in range(0, 400, 50):
        model.partial_fit(X[start:start + 50], Y[start:start + 50])
        assert model.n_support_ <= budget and len(model.dual_coef_) == model.n_support_
    assert model.n_updates_ > 3 * budget
    assert model.n_support_ == budget
    assert model.n_removed_ == model.n_updates_ - budget
    # removal rule: the oldest goes first, so the support is the inputs of the last updates
    mistakes = np.flatnonzero(model.loss_history_)[-budget:]
    for stored, index in zip(model.support_, mistakes, strict=True):
        np.testing.assert_array_equal(stored, X[index])
    # predictions still work and come from the stored expansion only
    K = get_kernel("rbf")(np.asarray(model.support_), X)
    np.testing.assert_allclose(model.decision_function(X), (np.asarray(model.dual_coef_).T @ K).T, rtol=1e-12)
    assert set(model.predict(X).tolist()) <= {0, 1, 2, 3}
    assert model.mean_loss(X, Y) < 0.75  # better than chance (0.75 for four balanced-ish classes)


def test_large_budget_changes_nothing():
    X, Y = noisy_stream(Multilabel(3), n=60)
    free = KernelPredtron(Multilabel(3), kernel="rbf").fit(X, Y)
    capped = KernelPredtron(Multilabel(3), kernel="rbf", budget=free.n_support_).fit(X, Y)
    np.testing.assert_array_equal(capped.loss_history_, free.loss_history_)
    assert capped.n_removed_ == 0


def test_support_is_a_copy_of_the_inputs():
    X, Y = noisy_stream(Binary(), n=30)
    model = KernelPredtron(Binary()).fit(X, Y)
    before = model.decision_function(X)
    X[:] = 0.0  # the caller reuses its buffer
    assert not np.allclose(model.decision_function(np.ones((1, 5))), 0.0)
    assert np.all(np.isfinite(before))


# -------------------------------------------------------- shared behaviour
KERNEL_FACTORIES = [
    lambda pr: KernelPredtron(pr, kernel="linear", eta=0.7),
    lambda pr: KernelPredtron(pr, kernel="rbf", kernel_params={"gamma": 0.5}, loss_driven=True),
    lambda pr: KernelPredtron(pr, kernel="poly", update="prediction", budget=8),
]


@pytest.mark.parametrize("problem", core_problems(), ids=repr)
@pytest.mark.parametrize("factory", range(len(KERNEL_FACTORIES)))
def test_shared_learner_checks(problem, factory):
    X, Y = noisy_stream(problem, n=40, seed=factory)
    check_learner(KERNEL_FACTORIES[factory], problem, X, Y)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"kernel": "gauss"}, r"kernel must be one of"),
        ({"kernel": "rbf", "kernel_params": {"gamma": -2.0}}, r"gamma must be finite and > 0"),
        ({"kernel_params": [1.0]}, r"kernel_params must be a dict of kernel parameters or None; got list"),
        ({"budget": 0}, r"budget must be None or an integer >= 1; got 0"),
        ({"budget": 2.5}, r"budget must be None or an integer >= 1; got 2.5"),
        ({"budget": True}, r"budget must be None or an integer >= 1; got True"),
        ({"loss_driven": 1}, r"loss_driven must be True or False; got 1"),
        ({"eta": -1.0}, r"eta must be finite and > 0"),
        ({"update": "mistake"}, r"update must be one of"),
    ],
)
def test_learner_validation_messages(params, message):
    X, Y = noisy_stream(Binary(), n=5)
    with pytest.raises(ValueError, match=message):
        KernelPredtron(Binary(), **params).fit(X, Y)


def test_unfitted_learner_refuses_to_report_its_support():
    model = KernelPredtron(Binary())
    for name in ("support_", "dual_coef_", "n_support_"):
        with pytest.raises(ValueError, match=r"this KernelPredtron is not fitted yet"):
            getattr(model, name)


def test_save_and_load_round_trip(tmp_path):
    from predtron import persistence

    problem = Multiclass(3)
    X, Y = noisy_stream(problem, n=120)
    model = KernelPredtron(problem, kernel="rbf", kernel_params={"gamma": 0.3}, budget=20).fit(X[:60], Y[:60])
    assert model.n_removed_ > 0
    again = persistence.load(persistence.save(model, tmp_path / "kernel"))
    assert type(again) is KernelPredtron and again.n_removed_ == model.n_removed_
    np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))
    model.partial_fit(X[60:], Y[60:])
    again.partial_fit(X[60:], Y[60:])
    np.testing.assert_array_equal(again.loss_history_, model.loss_history_)
    assert again.n_support_ == model.n_support_ == 20


def test_refit_restarts_the_support():
    X, Y = noisy_stream(Binary(), n=50)
    model = KernelPredtron(Binary(), budget=4).fit(X, Y)
    first = [s.copy() for s in model.support_]
    model.fit(X, Y)
    assert len(model.support_) == len(first)
    assert all(np.array_equal(a, b) for a, b in zip(first, model.support_, strict=True))
