"""The multiclass batch perceptron and the multiclass SVM by SGD (UML Sections 17.2.3-17.2.5)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

from predtron.data.generators import make_separable
from predtron.data.sequences import make_sequences
from predtron.learners.batch_perceptron import BatchPerceptron, NotSeparatedWarning
from predtron.learners.sgd import SGDSVM, generalized_hinge
from predtron.problems import Multiclass
from predtron.problems.chain import Chain
from predtron.problems.joint import JointMulticlass
from predtron.problems.psi import MultivectorMap

COST = [[0, 1, 2], [1, 0, 1], [2, 1, 0]]


def _separable(seed=0, n=80, p=4, margin=0.1):
    return make_separable(Multiclass(3), n, p, margin, seed=seed)


def test_batch_perceptron_separates_within_the_perceptron_bound():
    data = _separable()
    problem = JointMulticlass(MultivectorMap(3))
    model = BatchPerceptron(problem).fit(data.X, data.Y)
    assert model.converged_
    assert model.mean_loss(data.X, data.Y) == 0.0
    # no example is violated (ties included) at the end
    assert all(model.violation(t, y) is None for t, y in zip(model.decision_function(data.X), data.Y,
                                                              strict=True))
    assert model.n_updates_ <= (2 * data.radius / data.margin) ** 2
    # the last sweep made no update
    assert np.all(model.loss_history_[-len(data.Y):] == 0)


def test_batch_perceptron_counts_ties_as_violations():
    problem = JointMulticlass(MultivectorMap(3))
    model = BatchPerceptron(problem, max_epochs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotSeparatedWarning)
        model.fit([[1.0, 0.0]], [0])
    # w = 0 ties every class: the example is violated although pred(0) = 0 is right
    assert model.n_updates_ == 1
    assert model.loss_history_.tolist() == [0.0]
    assert not model.converged_


def test_batch_perceptron_flags_non_separable_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    Y = [int(v) for v in rng.integers(0, 3, 30)]
    with pytest.warns(NotSeparatedWarning, match=r"violated examples after max_epochs=4 sweeps"):
        model = BatchPerceptron(Multiclass(3), max_epochs=4).fit(X, Y)
    assert not model.converged_ and model.n_epochs_ == 4


@pytest.mark.parametrize("scale", [1e-6, 1e-12, 1e6])
def test_batch_perceptron_tolerance_is_relative_to_the_data(scale):
    # The tie tolerance follows the scores: data scaled down (or up) converge in the same sweeps
    # with the same updates, and no NotSeparatedWarning blames the data.
    data = make_separable(Multiclass(3), n_samples=40, n_features=4, margin=0.1, seed=0)
    reference = BatchPerceptron(Multiclass(3), max_epochs=50).fit(data.X, data.Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotSeparatedWarning)
        model = BatchPerceptron(Multiclass(3), max_epochs=50).fit(data.X * scale, data.Y)
    assert model.converged_ and reference.converged_
    assert (model.n_epochs_, model.n_updates_) == (reference.n_epochs_, reference.n_updates_)
    np.testing.assert_allclose(model.coef_, reference.coef_ * scale, rtol=1e-9)
    assert model.mean_loss(data.X * scale, data.Y) == 0.0


def test_batch_perceptron_warning_does_not_claim_non_separability():
    data = make_separable(Multiclass(3), n_samples=40, n_features=4, margin=0.05, seed=1)
    with pytest.warns(NotSeparatedWarning) as record:
        model = BatchPerceptron(Multiclass(3), max_epochs=1).fit(data.X, data.Y)
    message = str(record[0].message)
    # separable data that need more sweeps: the message says both causes are possible
    assert not model.converged_ and "may not be separable, or need more sweeps" in message


def test_batch_perceptron_on_a_chain():
    data = make_sequences(30, 4, 3, 6, noise=0.0, seed=2)
    model = BatchPerceptron(Chain(3, 4)).fit(data.X, data.Y)
    assert model.converged_ and model.mean_loss(data.X, data.Y) == 0.0


def _sgd_reference(X, Y, lam, T, seed, step):
    """SGD on F(w) = lam/2 ||w||^2 + mean generalized hinge, written as explicit gradient steps.

    ``w_1 = 0``; ``w_{t+1} = w_t - step(t) (lam w_t + v_t)`` with ``v_t`` the subgradient of
    the hinge of the drawn example (multivector construction, explicit Psi vectors).
    Returns the average of ``w_1..w_T`` and the last iterate ``w_{T+1}``.
    """
    k, n = 3, X.shape[1]

    def psi(x, y):
        out = np.zeros(k * n)
        out[y * n:(y + 1) * n] = x
        return out

    rng = np.random.default_rng(seed)
    w, ws = np.zeros(k * n), []
    for t in range(1, T + 1):
        ws.append(w)
        i = int(rng.integers(len(X)))
        values = [COST[c][Y[i]] + w @ (psi(X[i], c) - psi(X[i], Y[i])) for c in range(k)]
        c = int(np.argmax(values))
        v = psi(X[i], c) - psi(X[i], Y[i])
        w = w - step(t) * (lam * w + v)
    return np.mean(ws, axis=0), w


def _sgd_data():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((12, 3))
    Y = [int(v) for v in rng.integers(0, 3, 12)]
    return X, Y


def test_sgd_follows_the_textbook_updates():
    X, Y = _sgd_data()
    problem = JointMulticlass(MultivectorMap(3), loss=COST)
    model = SGDSVM(problem, lam=0.1, seed=4).fit(X, Y, epochs=3)
    last = SGDSVM(problem, lam=0.1, seed=4, average=False).fit(X, Y, epochs=3)
    assert model.n_iter_ == 36
    average, final = _sgd_reference(X, np.array(Y), 0.1, 36, 4, step=lambda t: 1 / (0.1 * t))
    assert np.allclose(model.coef_, average)
    assert np.allclose(last.coef_, final)


def test_sgd_step_is_one_over_lambda_t():
    """Erratum: the lazy form w_t = theta_t / (lambda t) is SGD with step 1 / (lambda (t + 1)).

    The strongly convex analysis (UML Theorem 14.11) takes eta_t = 1 / (lambda t); the learner
    must follow that step and not the shifted one, which gives different iterates here.
    """
    X, Y = _sgd_data()
    lam, T = 0.1, 36
    model = SGDSVM(JointMulticlass(MultivectorMap(3), loss=COST), lam=lam, seed=4).fit(X, Y, epochs=3)
    right, _ = _sgd_reference(X, np.array(Y), lam, T, 4, step=lambda t: 1 / (lam * t))
    shifted, _ = _sgd_reference(X, np.array(Y), lam, T, 4, step=lambda t: 1 / (lam * (t + 1)))
    assert np.abs(right - shifted).max() > 1e-3     # the two steps are distinguishable here
    assert np.allclose(model.coef_, right)
    assert not np.allclose(model.coef_, shifted)


def _svm_qp(problem, X, Y, lam):
    """The multiclass SVM objective solved exactly as a QP with slacks (SLSQP)."""
    d = 3 * X.shape[1]
    m = len(Y)
    psis = [np.array([problem.feature_map(x, c) for c in range(3)]) for x in X]

    def objective(z):
        return 0.5 * lam * z[:d] @ z[:d] + z[d:].mean()

    cons = []
    for i in range(m):
        for c in range(3):
            row = psis[i][c] - psis[i][Y[i]]
            cons.append({"type": "ineq", "fun": lambda z, i=i, c=c, row=row:
                         z[d + i] - COST[c][Y[i]] - row @ z[:d]})
    z0 = np.concatenate([np.zeros(d), 3 * np.ones(m)])
    result = minimize(objective, z0, constraints=cons, method="SLSQP", options={"maxiter": 500})
    return result.fun


def test_sgd_reaches_the_svm_optimum():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((25, 3))
    Y = [int(v) for v in np.argmax(X @ rng.standard_normal((3, 3)).T + 0.5 * rng.standard_normal((25, 3)),
                                   axis=1)]
    problem = JointMulticlass(MultivectorMap(3), loss=COST)
    lam = 0.1
    optimum = _svm_qp(problem, X, Y, lam)
    model = SGDSVM(problem, lam=lam).fit(X, Y, epochs=400)
    assert optimum <= model.objective(X, Y) <= optimum + 0.02
    last = SGDSVM(problem, lam=lam, average=False).fit(X, Y, epochs=400)
    assert last.objective(X, Y) >= optimum - 1e-6


def test_generalized_hinge_is_the_surrogate_and_bounds_the_loss():
    data = _separable(seed=3)
    problem = JointMulticlass(MultivectorMap(3), loss=COST)
    model = SGDSVM(problem, lam=0.05).fit(data.X, data.Y, epochs=5)
    hinge = generalized_hinge(problem, model.coef_, data.X, data.Y)
    losses = [problem.loss(p, y) for p, y in zip(model.predict(data.X), data.Y, strict=True)]
    assert np.all(hinge >= np.array(losses) - 1e-12)
    t = problem.scoring.scores(model.coef_, data.X[0])
    assert np.isclose(hinge[0], problem.surrogate(t, data.Y[0]))
    assert model.hinge_history_.shape == model.loss_history_.shape == (5 * len(data.Y),)
    assert np.all(model.hinge_history_ >= model.loss_history_ - 1e-12)


def test_sgd_partial_fit_continues():
    data = _separable(seed=4, n=20)
    a = SGDSVM(Multiclass(3), lam=0.1).fit(data.X, data.Y, epochs=2)
    b = SGDSVM(Multiclass(3), lam=0.1).fit(data.X, data.Y).partial_fit(data.X, data.Y)
    assert np.allclose(a.coef_, b.coef_) and a.n_iter_ == b.n_iter_ == 40


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: SGDSVM(Multiclass(3), lam=0).fit([[1.0]], [0]), r"lam must be finite and > 0"),
        (lambda: SGDSVM("svm").fit([[1.0]], [0]), r"problem must be a predtron.problems.Problem"),
        (lambda: SGDSVM(Multiclass(3), seed=-1).fit([[1.0]], [0]), r"seed must be an integer >= 0"),
        (lambda: SGDSVM(Multiclass(3)).predict([[1.0]]), r"not fitted yet"),
        (lambda: SGDSVM(Multiclass(3)).fit(np.zeros((0, 2)), []), r"X is empty"),
        (lambda: BatchPerceptron(Multiclass(3), max_epochs=0).fit([[1.0]], [0]),
         r"max_epochs must be an integer >= 1"),
        (lambda: BatchPerceptron(Multiclass(3)).fit([[1.0]], [3]), r"Y\[0\] must be an integer in 0..2"),
        (lambda: generalized_hinge(Multiclass(3), np.zeros((3, 1)), [[1.0]], [0, 1]),
         r"X and Y must have the same number of examples"),
    ],
)
def test_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_sgd_takes_flat_ranking_input_like_every_learner():
    """``group=``/``qid=`` (flat documents) give the same SGD steps as the per-query lists."""
    from predtron.problems import SubsetRanking

    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((7, 3)), np.array([2, 0, 1, 0, 1, 1, 0])
    lists = SGDSVM(SubsetRanking(), lam=0.1, seed=0).fit([X[:3], X[3:]], [y[:3], y[3:]], epochs=2)
    flat = SGDSVM(SubsetRanking(), lam=0.1, seed=0).fit(X, y, group=[3, 4], epochs=2)
    by_qid = SGDSVM(SubsetRanking(), lam=0.1, seed=0).fit(X, y, qid=[5, 5, 5, 9, 9, 9, 9], epochs=2)
    assert np.array_equal(flat.coef_, lists.coef_) and np.array_equal(by_qid.coef_, lists.coef_)
    more = SGDSVM(SubsetRanking(), lam=0.1, seed=0).partial_fit(X, y, group=[3, 4])
    assert more.n_iter_ == 2
