"""Predtron and Predtron.LD: equivalences, Theorem 1, shared learner checks, validation."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import core_problems, separable_problems

from predtron import Predtron, PredtronLD, bounds
from predtron.data import make_separable
from predtron.problems import Binary, Multiclass, Multilabel, Ordinal
from predtron.testing import check_learner


def classic_perceptron_mistakes(X, Y, epochs=1):
    """The textbook perceptron (predict +1 on a tie), as an independent reference."""
    w = np.zeros(X.shape[1])
    mistakes = []
    for _ in range(epochs):
        for x, y in zip(X, Y, strict=True):
            guess = 1 if w @ x >= 0 else -1
            mistakes.append(guess != y)
            if guess != y:
                w += y * x
    return np.array(mistakes), w


def crammer_singer_mistakes(X, Y, k):
    """Crammer and Singer's multiclass perceptron (max-score update), as a reference."""
    W = np.zeros((k, X.shape[1]))
    mistakes = []
    for x, y in zip(X, Y, strict=True):
        scores = W @ x
        guess = int(np.argmax(scores))
        mistakes.append(guess != y)
        if guess != y:
            W[y] += x
            W[guess] -= x
    return np.array(mistakes), W


@pytest.mark.parametrize("eta", [0.01, 1.0, 30.0])
def test_binary_predtron_is_the_perceptron(eta):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 5))
    Y = np.where(X @ rng.standard_normal(5) + 0.3 * rng.standard_normal(300) > 0, 1, -1)
    model = Predtron(Binary(), eta=eta).fit(X, Y, epochs=3)
    mistakes, w = classic_perceptron_mistakes(X, Y, epochs=3)
    np.testing.assert_array_equal(model.loss_history_ > 0, mistakes)
    np.testing.assert_allclose(model.coef_[0], 2 * eta * w)


def test_multiclass_predtron_is_crammer_singer():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((400, 6))
    Y = np.argmax(X @ rng.standard_normal((6, 4)) + 0.5 * rng.standard_normal((400, 4)), axis=1)
    model = Predtron(Multiclass(4), eta=0.7).fit(X, Y)
    mistakes, W = crammer_singer_mistakes(X, Y, 4)
    np.testing.assert_array_equal(model.loss_history_ > 0, mistakes)
    np.testing.assert_allclose(model.coef_, 0.7 * W)


@pytest.mark.parametrize("problem", separable_problems(), ids=repr)
def test_theorem1_holds_on_separable_data(problem):
    data = make_separable(problem, 400, 6, margin=0.08, seed=2)
    eta = bounds.theorem1_eta(data.radius, problem.c_L)
    model = Predtron(problem, eta=eta).fit(data.X, data.Y, epochs=3)
    bound = bounds.predtron_bound(problem, data.radius, data.margin)
    assert model.loss_history_.sum() <= bound
    assert bounds.empirical_margin(problem, data.W_star, data.X, data.Y) == pytest.approx(data.margin)


@pytest.mark.parametrize("problem", separable_problems(), ids=repr)
def test_loss_driven_bounds_hold(problem):
    data = make_separable(problem, 300, 5, margin=0.08, seed=4)
    R, gamma = data.radius, data.margin
    by_prediction = PredtronLD(problem, eta=3.0, update="prediction").fit(data.X, data.Y, epochs=3)
    assert by_prediction.loss_history_.sum() <= bounds.loss_driven_bound(R, gamma, problem.C_L)
    by_oracle = PredtronLD(problem, eta=1 / (4 * R**2)).fit(data.X, data.Y, epochs=3)
    losses = by_oracle.loss_history_
    assert (losses**2).sum() <= bounds.loss_driven_squared_bound(R, gamma, problem.C_L)
    assert losses.sum() <= bounds.loss_driven_bound(R, gamma, problem.C_L, problem.c_L, update="oracle")


def test_prediction_update_does_not_depend_on_eta():
    problem = Ordinal(4)
    data = make_separable(problem, 200, 4, margin=0.05, seed=5)
    runs = [Predtron(problem, eta=eta, update="prediction").fit(data.X, data.Y).loss_history_
            for eta in (0.1, 10.0)]
    np.testing.assert_array_equal(*runs)


def test_loss_driven_scales_the_step():
    problem = Ordinal(4)
    x = np.array([1.0, 0.0])
    model = PredtronLD(problem, eta=1.0).partial_fit([x], [3])
    plain = Predtron(problem, eta=1.0).partial_fit([x], [3])
    assert model.loss_history_[0] == 3  # t = 0 predicts level 0
    np.testing.assert_allclose(model.coef_, 3 * plain.coef_)


@pytest.mark.parametrize("learner_class", [Predtron, PredtronLD])
@pytest.mark.parametrize("problem", core_problems(), ids=repr)
def test_shared_learner_checks(learner_class, problem):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((40, 3))
    Y = [problem.random_label(rng) for _ in range(40)]
    check_learner(lambda p: learner_class(p, eta=0.5), problem, X, Y)


def test_partial_fit_continues_and_history_grows():
    problem = Multiclass(3)
    data = make_separable(problem, 60, 4, margin=0.05, seed=6)
    model = Predtron(problem)
    model.partial_fit(data.X[:30], data.Y[:30]).partial_fit(data.X[30:], data.Y[30:])
    whole = Predtron(problem).fit(data.X, data.Y)
    np.testing.assert_array_equal(model.loss_history_, whole.loss_history_)
    np.testing.assert_allclose(model.coef_, whole.coef_)


def test_fit_verbose_reports_progress(capsys):
    data = make_separable(Binary(), 20, 3, margin=0.1, seed=0)
    Predtron(Binary()).fit(data.X, data.Y, epochs=2, verbose=True)
    err = capsys.readouterr().err
    assert "Predtron" in err and "40/40" in err and "epoch=2" in err  # a progress bar over both passes
    Predtron(Binary()).fit(data.X, data.Y, epochs=2)
    assert capsys.readouterr().err == ""


def test_get_set_params_and_repr():
    model = Predtron(Multiclass(3), eta=0.5)
    assert model.get_params()["eta"] == 0.5
    model.set_params(eta=2.0)
    assert model.eta == 2.0
    assert repr(model) == "Predtron(eta=2.0, problem=Multiclass(n_classes=3))"
    with pytest.raises(ValueError, match=r"Invalid parameter 'alpha' for estimator Predtron"):
        model.set_params(alpha=1)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda m: m.fit(np.zeros(3), [1, -1, 1]), r"X must be a 2-D array .* got an array with shape \(3,\)"),
        (lambda m: m.fit(np.zeros((3, 2)), [1, -1]), r"same number of examples; got 3 inputs and 2 labels"),
        (lambda m: m.fit([[0.0, np.nan], [1.0, 1.0]], [1, -1]), r"X must contain only finite values; found 1"),
        (lambda m: m.fit([[0.0, np.inf], [1.0, 1.0]], [1, -1]), r"found 1 NaN or infinite"),
        (lambda m: m.fit(np.zeros((2, 2)), [1, 0]), r"Y\[1\] must be -1 or \+1; got 0"),
        (lambda m: m.fit(np.zeros((0, 2)), []), r"X is empty"),
        (lambda m: m.fit([["a", "b"]], [1]), r"X must hold real numbers; got strings"),
        (lambda m: m.predict(np.zeros((2, 2))), r"not fitted yet; call fit or partial_fit first"),
        (lambda m: m.fit(np.zeros((2, 2)), [1, 1], epochs=0), r"epochs must be an integer >= 1; got 0"),
    ],
)
def test_input_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call(Predtron(Binary()))


def test_feature_count_change_is_refused():
    model = Predtron(Multilabel(3)).fit(np.ones((2, 4)), [[1, 0, 1], [0, 1, 1]])
    with pytest.raises(ValueError, match=r"X has 5 features, but this Predtron was fitted with 4 features"):
        model.partial_fit(np.ones((1, 5)), [[1, 1, 1]])
    with pytest.raises(ValueError, match=r"has 3 features"):
        model.predict(np.ones((1, 3)))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"eta": 0}, r"eta must be finite and > 0; got 0"),
        ({"eta": -1.0}, r"eta must be finite and > 0"),
        ({"update": "best"}, r"update must be one of \['oracle', 'prediction'\]; got 'best'"),
    ],
)
def test_parameter_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Predtron(Binary(), **kwargs).fit(np.ones((1, 2)), [1])


def test_problem_must_be_a_problem():
    with pytest.raises(ValueError, match=r"problem must be a predtron.problems.Problem instance .* got str"):
        Predtron("binary").fit(np.ones((1, 2)), [1])


# ------------------------------------------------------------------ one meaning of fit
def test_fit_inputs_is_fit_on_data_checked_once():
    from predtron.problems import SubsetRanking
    from predtron.scoring import DocumentInputs

    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 4))
    y = rng.integers(0, 3, size=30)
    group = np.array([5, 10, 7, 8])
    problem = SubsetRanking(k=3)
    learner = Predtron(problem, average=True, shuffle=True, random_state=1)
    reference = Predtron(problem, average=True, shuffle=True, random_state=1).fit(X, y, epochs=3, group=group)
    inputs = DocumentInputs(X, np.concatenate([[0], np.cumsum(group)]))
    learner.fit_inputs(inputs, problem.check_labels(y, inputs), epochs=3)
    np.testing.assert_array_equal(learner.coef_, reference.coef_)
    np.testing.assert_array_equal(learner.loss_history_, reference.loss_history_)
    with pytest.raises(TypeError, match=r"inputs must be a predtron\.scoring\.Inputs"):
        learner.fit_inputs(X, y)
    with pytest.raises(ValueError, match=r"inputs\.intercept=False must match fit_intercept=True"):
        Predtron(Binary(), fit_intercept=True).fit_inputs(inputs, y)


def test_every_fit_takes_epochs_verbose_and_callback():
    from predtron.baselines import PRank
    from predtron.learners import SGDSVM, BatchPerceptron

    data = make_separable(Ordinal(4), 40, 3, margin=0.1, seed=0)
    binary = make_separable(Binary(), 40, 3, margin=0.1, seed=0)
    stop_at_two = lambda learner, epoch: epoch == 2  # noqa: E731
    for model, X, Y in [(Predtron(Binary()), binary.X, binary.Y), (SGDSVM(Binary(), seed=0), binary.X, binary.Y),
                        (PRank(4), data.X, data.Y)]:
        fitted = model.fit(X, Y, 5, False, callback=stop_at_two)
        assert fitted.n_epochs_ == 2, type(model).__name__
        with pytest.raises(ValueError, match="callback must be a callable"):
            model.fit(X, Y, 2, callback=3)
    sweeps = BatchPerceptron(Binary()).fit(binary.X, binary.Y, 3, callback=stop_at_two)
    assert sweeps.n_epochs_ <= 2


def test_batch_perceptron_positional_verbose_is_deprecated(capsys):
    from predtron.learners import BatchPerceptron

    data = make_separable(Binary(), 20, 3, margin=0.1, seed=0)
    with pytest.warns(DeprecationWarning, match=r"the third argument of every fit is epochs"):
        model = BatchPerceptron(Binary()).fit(data.X, data.Y, True)
    assert model.converged_ and capsys.readouterr().err.startswith("sweep 1:")
