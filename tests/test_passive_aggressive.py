"""Paired passive-aggressive updates (seed 004, Sections 4-5): every rule against the QP it solves."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize, minimize_scalar

from predtron.metrics import all_pairs_auc, all_pairs_auc_bound, auc, auc_bound
from predtron.pa import (
    RULES,
    CalibratedMultilabelPA,
    CalibratedPA,
    PairedPA,
    balanced_pairs,
    balanced_rounds,
    batch_dual_objective,
    batch_primal_objective,
    brute_force_batch_qp,
    dual_gradient,
    dual_step,
    hinge_losses,
    index_sets,
    kkt_violation,
    pa_update,
    primal_from_dual,
    step_bounds,
    step_size,
)


# --------------------------------------------------------------------- helpers
def random_batch(rng, k, d, balanced=True):
    X = rng.standard_normal((k, d))
    y = rng.choice([-1, 1], size=k)
    if balanced and k >= 2:
        y[0], y[1] = 1, -1
    return X, y, 0.5 * rng.standard_normal(d)


def scipy_box_qp(G, b, C):
    """``max_{0 <= a <= C} -1/2 a^T G a + b^T a`` by a generic solver (SLSQP), independent of predtron."""
    result = minimize(lambda a: 0.5 * a @ G @ a - b @ a, np.zeros(b.size), jac=lambda a: G @ a - b,
                      method="SLSQP", bounds=[(0.0, None if np.isinf(C) else C)] * b.size,
                      options={"ftol": 1e-14, "maxiter": 1000})
    assert result.success, result.message
    return result.x, -result.fun


def scipy_batch_qp(w_t, X, y, C, weights=None):
    """The batch problem through its dual box-QP: returns ``(w, optimal value)``."""
    c = np.ones(X.shape[0]) if weights is None else weights
    Z = (c * y)[:, None] * X
    alpha, value = scipy_box_qp(Z @ Z.T, c - Z @ w_t, C)
    return w_t + alpha @ Z, value


def scipy_aggregate(w_t, u, target, C):
    """PA-I on one aggregated constraint ``<w, u> >= target - xi``, ``xi >= 0``."""
    (beta,), _ = scipy_box_qp(np.array([[u @ u]]), np.array([target - w_t @ u]), C)
    return w_t + beta * u


CASES = [(seed, k, C) for seed in range(4) for k in (2, 3, 5) for C in (0.1, 1.0, 10.0)]


# ------------------------------------------------------------ PA-DCA = the QP
@pytest.mark.parametrize(("seed", "k", "C"), CASES)
def test_dca_solves_the_batch_qp(seed, k, C):
    rng = np.random.default_rng(seed)
    X, y, w_t = random_batch(rng, k, 3)
    weights = rng.uniform(0.3, 1.5, size=k) if seed % 2 else None
    result = pa_update(w_t, X, y, rule="dca", C=C, sample_weight=weights, tol=1e-12, max_iter=20_000)
    assert result.converged
    exact = brute_force_batch_qp(w_t, X, y, C, weights)
    w_scipy, value_scipy = scipy_batch_qp(w_t, X, y, C, weights)
    np.testing.assert_allclose(result.w, exact.w, atol=1e-8)
    np.testing.assert_allclose(result.w, w_scipy, atol=1e-5)
    primal = batch_primal_objective(result.w, w_t, X, y, C, weights)
    dual = batch_dual_objective(result.alpha, w_t, X, y, weights)
    assert primal == pytest.approx(exact.value, abs=1e-9)
    assert primal == pytest.approx(value_scipy, abs=1e-6)
    assert dual == pytest.approx(primal, abs=1e-9)  # zero duality gap at the optimum
    assert np.all((result.alpha >= 0) & (result.alpha <= C))
    np.testing.assert_allclose(primal_from_dual(result.alpha, w_t, X, y, weights), result.w, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_dca_hard_margin_meets_every_margin(seed):
    rng = np.random.default_rng(seed)
    X, y, w_t = random_batch(rng, 3, 5)  # k <= d: the hard-margin problem is feasible
    result = pa_update(w_t, X, y, rule="dca", C=np.inf, tol=1e-12, max_iter=50_000)
    assert result.converged
    assert np.all(y * (X @ result.w) >= 1 - 1e-9)
    np.testing.assert_allclose(result.w, brute_force_batch_qp(w_t, X, y, np.inf).w, atol=1e-8)


def test_dca_steps_increase_the_dual_and_keep_the_box():
    rng = np.random.default_rng(7)
    X, y, w_t = random_batch(rng, 5, 3)
    C = 0.7
    w, alpha = w_t.copy(), np.zeros(5)
    previous = batch_dual_objective(alpha, w_t, X, y)
    for sweep in range(30):
        for i in range(5):
            w, alpha, _ = dual_step(w, alpha, X, y, [i], C)
            value = batch_dual_objective(alpha, w_t, X, y)
            assert value >= previous - 1e-12, (sweep, i)
            assert np.all((alpha >= 0) & (alpha <= C))
            np.testing.assert_allclose(w, primal_from_dual(alpha, w_t, X, y), atol=1e-12)
            previous = value
    assert kkt_violation(w, alpha, X, y, C) < 1e-6
    assert previous == pytest.approx(brute_force_batch_qp(w_t, X, y, C).value, abs=1e-8)


def test_dca_reports_non_convergence():
    rng = np.random.default_rng(3)
    X, y, w_t = random_batch(rng, 5, 3)
    result = pa_update(w_t, X, y, rule="dca", C=10.0, tol=1e-12, max_iter=1)
    assert not result.converged
    assert result.n_steps == 5


# ------------------------------------------------- the clipped common step
@pytest.mark.parametrize("seed", range(12))
def test_clipped_step_maximises_the_dual_on_its_line(seed):
    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(2, 6))
    X, y, w_t = random_batch(rng, k, 3)
    C = float(rng.choice([0.2, 1.0, 5.0]))
    alpha = rng.uniform(0, C, size=k)
    alpha[rng.random(k) < 0.3] = 0.0
    alpha[rng.random(k) < 0.2] = C
    J = np.sort(rng.choice(k, size=int(rng.integers(1, k + 1)), replace=False))
    w = primal_from_dual(alpha, w_t, X, y)
    lower, upper = step_bounds(alpha, J, C)
    assert lower <= 0 <= upper

    def minus_dual(delta):
        moved = alpha.copy()
        moved[J] += delta
        return -batch_dual_objective(moved, w_t, X, y)

    before = -minus_dual(0.0)
    step = dual_step(w, alpha, X, y, J, C)
    assert lower <= step.delta <= upper
    assert step.delta == step_size(w, alpha, X, y, J, C)
    assert np.all((step.alpha >= 0) & (step.alpha <= C))
    after = batch_dual_objective(step.alpha, w_t, X, y)
    assert after >= before - 1e-12
    if upper > lower:
        best = minimize_scalar(minus_dual, bounds=(lower, upper), method="bounded", options={"xatol": 1e-12})
        assert after >= -best.fun - 1e-9
        assert step.delta == pytest.approx(best.x, abs=1e-5)
    np.testing.assert_allclose(step.w, primal_from_dual(step.alpha, w_t, X, y), atol=1e-12)


def test_step_uses_the_draft_formula_from_zero():
    rng = np.random.default_rng(5)
    X, y, w_t = random_batch(rng, 4, 3)
    J = [0, 2, 3]
    u = (y[J, None] * X[J]).sum(axis=0)
    vertex = (len(J) - w_t @ u) / (u @ u)
    assert step_size(w_t, np.zeros(4), X, y, J, 100.0) == pytest.approx(max(0.0, min(100.0, vertex)))
    assert step_size(w_t, np.zeros(4), X, y, J, 1e-3) == pytest.approx(max(0.0, min(1e-3, vertex)))


def test_degenerate_interval_gives_the_null_step():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([1, -1])
    alpha = np.array([0.0, 2.0])  # one variable at 0, the other at C: [L_b, U_b] = {0}
    assert step_bounds(alpha, [0, 1], 2.0) == (0.0, 0.0)
    w = primal_from_dual(alpha, np.zeros(2), X, y)
    step = dual_step(w, alpha, X, y, [0, 1], 2.0)
    assert step.delta == 0.0
    np.testing.assert_array_equal(step.alpha, alpha)


def test_zero_denominator_goes_to_the_upper_bound():
    x = np.array([1.0, 2.0])
    X, y = np.stack([x, x]), np.array([1, -1])  # x+ = x-: the samples cancel in u
    step = dual_step(np.zeros(2), np.zeros(2), X, y, [0, 1], 0.5)
    assert step.delta == 0.5
    np.testing.assert_array_equal(step.alpha, [0.5, 0.5])
    np.testing.assert_array_equal(step.w, [0.0, 0.0])
    assert batch_dual_objective(step.alpha, np.zeros(2), X, y) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="cancel"):
        dual_step(np.zeros(2), np.zeros(2), X, y, [0, 1], np.inf)
    with pytest.raises(ValueError, match="cancel"):
        pa_update(np.zeros(2), np.zeros((1, 2)), [1], rule="dca", C=np.inf)


def test_infeasible_alpha_is_rejected():
    with pytest.raises(ValueError, match=r"L_b = .* > U_b"):
        step_bounds([1.5, 0.2], [0, 1], 1.0)
    with pytest.raises(ValueError, match=r"box \[0, C\]"):
        dual_step(np.zeros(2), [1.5, 0.0], np.eye(2), [1, -1], [0], 1.0)


# ------------------------------------------ single-pass rules = their QPs
@pytest.mark.parametrize(("seed", "k", "C"), CASES)
@pytest.mark.parametrize("rule", ["auc", "correct_mistakes", "max_violators"])
def test_one_step_rules_solve_the_aggregated_pa_problem(seed, k, C, rule):
    """One common step from alpha = 0 is PA-I on x^J = sum_J y_j x_j with margin |J|."""
    rng = np.random.default_rng(seed)
    X, y, w_t = random_batch(rng, k, 3)
    result = pa_update(w_t, X, y, rule=rule, C=C)
    sets = index_sets(rule, w_t, X, y)
    if not sets:
        np.testing.assert_array_equal(result.w, w_t)
        assert result.n_steps == 0
        return
    (J,) = sets
    u = (y[J, None] * X[J]).sum(axis=0)
    np.testing.assert_allclose(result.w, scipy_aggregate(w_t, u, len(J), C), atol=1e-5)
    assert np.all(result.alpha[J] == result.alpha[J[0]])
    assert np.all(result.alpha[np.setdiff1d(np.arange(k), J)] == 0)
    assert 0 <= result.alpha[J[0]] <= C
    assert batch_dual_objective(result.alpha, w_t, X, y) >= 0.0


@pytest.mark.parametrize(("seed", "k", "C"), CASES)
def test_sequential_is_a_chain_of_single_sample_pa_problems(seed, k, C):
    rng = np.random.default_rng(seed)
    X, y, w_t = random_batch(rng, k, 3)
    result = pa_update(w_t, X, y, rule="sequential", C=C)
    w = w_t.copy()
    for i in range(k):
        w = scipy_aggregate(w, y[i] * X[i], 1.0, C)
    np.testing.assert_allclose(result.w, w, atol=1e-5)
    assert result.n_steps == k


def test_index_sets_follow_the_draft():
    X = np.array([[2.0, 0.0], [0.5, 0.0], [0.0, 1.0], [0.0, 3.0], [-1.0, 0.0]])
    y = np.array([1, 1, -1, -1, -1])
    w_t = np.array([1.0, 0.5])  # margins: 2, 0.5, -0.5, -1.5, 1 -> losses 0, 0.5, 1.5, 2.5, 0
    np.testing.assert_allclose(hinge_losses(w_t, X, y), [0, 0.5, 1.5, 2.5, 0])
    assert [J.tolist() for J in index_sets("correct_mistakes", w_t, X, y)] == [[1, 2, 3]]
    assert [J.tolist() for J in index_sets("max_violators", w_t, X, y)] == [[1, 3]]
    assert [J.tolist() for J in index_sets("auc", w_t, X, y)] == [[0, 1, 2, 3, 4]]
    assert [J.tolist() for J in index_sets("sequential", w_t, X, y)] == [[0], [1], [2], [3], [4]]
    assert index_sets("correct_mistakes", np.array([10.0, -10.0]), X[[0, 2]], y[[0, 2]]) == []
    with pytest.raises(ValueError, match="no fixed list"):
        index_sets("dca", w_t, X, y)


@pytest.mark.parametrize("seed", range(5))
def test_max_violators_is_auc_on_a_pair(seed):
    rng = np.random.default_rng(seed)
    X, y, w_t = random_batch(rng, 2, 4)
    a = pa_update(w_t, X, y, rule="auc", C=0.8)
    b = pa_update(w_t, X, y, rule="max_violators", C=0.8)
    np.testing.assert_array_equal(a.w, b.w)


# --------------------------------------------------- the draft's Theorem 6
@pytest.mark.parametrize("seed", range(6))
def test_uncapped_single_sample_steps_classify_their_sample(seed):
    rng = np.random.default_rng(seed)
    X, y, w = random_batch(rng, 4, 3)
    for i in range(4):
        before = y[i] * X[i] @ w
        w = pa_update(w, X[[i]], y[[i]], rule="sequential", C=np.inf).w
        assert y[i] * X[i] @ w == pytest.approx(max(1.0, before))


@pytest.mark.parametrize("seed", range(8))
def test_uncapped_common_step_meets_the_aggregate_margin(seed):
    rng = np.random.default_rng(seed)
    X, y, w_t = random_batch(rng, 2, 3)
    w_t *= 4.0  # some pairs already meet the aggregate margin, some do not
    result = pa_update(w_t, X, y, rule="auc", C=np.inf)
    before, after = (y * (X @ w_t)).sum(), (y * (X @ result.w)).sum()
    if before < 2:
        assert after == pytest.approx(2.0)  # <w, x+ - x-> = 2: the pair is ordered
        assert result.w @ X[0] > result.w @ X[1]
    else:  # passive: the vertex is negative and L_b = 0 clips it
        np.testing.assert_array_equal(result.w, w_t)


def test_uncapped_auc_step_need_not_classify_each_sample():
    """Counterexample to the per-sample reading of the draft's Theorem 6 for PA-AUC."""
    X, y = np.array([[1.0, 0.0], [3.0, 0.0]]), np.array([1, -1])
    result = pa_update(np.zeros(2), X, y, rule="auc", C=np.inf)
    np.testing.assert_allclose(result.w, [-1.0, 0.0])
    assert result.w @ X[0] < 0  # x+ is misclassified ...
    assert result.w @ X[0] - result.w @ X[1] == pytest.approx(2.0)  # ... but ranked above x-


@pytest.mark.parametrize("seed", range(6))
def test_capped_step_still_increases_the_aggregate_margin(seed):
    rng = np.random.default_rng(seed)
    X, y, w_t = random_batch(rng, 4, 3)
    for rule in ("auc", "correct_mistakes", "max_violators"):
        sets = index_sets(rule, w_t, X, y)
        result = pa_update(w_t, X, y, rule=rule, C=1e-3)
        for J in sets:
            u = (y[J, None] * X[J]).sum(axis=0)
            assert result.w @ u >= w_t @ u
            if w_t @ u < len(J):
                assert result.w @ u > w_t @ u


# -------------------------------------------------------------- the learners
def imbalanced_data(seed, n=300, d=4, frac_pos=0.1):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < frac_pos, 1, -1)
    X = rng.standard_normal((n, d)) + 1.2 * y[:, None] * np.eye(d)[0]
    return np.hstack([X, np.ones((n, 1))]), y


@pytest.mark.parametrize("rule", RULES)
def test_paired_pa_learns_an_imbalanced_problem(rule):
    X, y = imbalanced_data(0)
    model = PairedPA(rule=rule, C=0.05).fit(X, y, n_rounds=200, seed=1)
    scores = model.decision_function(X)
    assert auc(y, scores) > 0.85  # chance is 0.5; the Bayes AUC is about 0.95
    assert 1 - auc(y, scores) <= auc_bound(y, scores)
    assert model.n_rounds_ == 200 and model.loss_history_.shape == (200,)
    assert 0 < model.n_updates_ <= 200 and model.n_unconverged_ == 0
    assert model.mean_loss(X, y) == pytest.approx(np.mean(model.predict(X) != y))


def test_paired_pa_round_is_pa_update_and_fit_is_reproducible():
    X, y = imbalanced_data(1, n=40)
    model = PairedPA(rule="correct_mistakes", C=0.3)
    model.partial_fit(X[:2], y[:2]).partial_fit(X[2:5], y[2:5])
    w = pa_update(np.zeros(X.shape[1]), X[:2], y[:2], rule="correct_mistakes", C=0.3).w
    w = pa_update(w, X[2:5], y[2:5], rule="correct_mistakes", C=0.3).w
    np.testing.assert_allclose(model.coef_, w)
    a = PairedPA().fit(X, y, n_rounds=30, seed=4).coef_
    b = PairedPA().fit(X, y, n_rounds=30, seed=4).coef_
    np.testing.assert_array_equal(a, b)
    pairs = balanced_pairs(y, 30, seed=4)
    c = PairedPA()
    for p in pairs:
        c.partial_fit(X[p], y[p])
    np.testing.assert_allclose(c.coef_, a)


def test_paired_pa_loss_history_is_the_batch_hinge_loss():
    X, y = imbalanced_data(2, n=20)
    model = PairedPA(C=0.2).partial_fit(X[:3], y[:3])
    w1 = model.coef_.copy()
    model.partial_fit(X[3:6], y[3:6])
    assert model.loss_history_[0] == pytest.approx(3.0)  # w = 0: every hinge loss is 1
    assert model.loss_history_[1] == pytest.approx(hinge_losses(w1, X[3:6], y[3:6]).sum())


def test_paired_pa_params_and_reset():
    model = PairedPA(rule="dca", C=2.0)
    assert model.get_params() == {"rule": "dca", "C": 2.0, "tol": 1e-10, "max_iter": 1000}
    assert repr(model) == "PairedPA(C=2.0, rule='dca')"
    assert model.set_params(C=3.0).C == 3.0
    with pytest.raises(ValueError, match="Invalid parameter 'eta' for estimator"):
        model.set_params(eta=1.0)
    X, y = imbalanced_data(0, n=30)
    model.fit(X, y, n_rounds=5)
    model.reset()
    with pytest.raises(ValueError, match="not fitted yet"):
        model.predict(X)


def test_paired_pa_errors():
    X, y = imbalanced_data(0, n=30)
    with pytest.raises(ValueError, match="rule must be one of"):
        PairedPA(rule="pegasos").fit(X, y)
    with pytest.raises(ValueError, match="C must be a real number > 0"):
        PairedPA(C=0.0).fit(X, y)
    with pytest.raises(ValueError, match="tol must be finite and > 0"):
        PairedPA(tol=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="max_iter must be an integer >= 1"):
        PairedPA(max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="y must contain only -1 and \\+1"):
        PairedPA().fit(X, np.where(y > 0, 1, 0))
    with pytest.raises(ValueError, match="needs both classes; got 0 positive"):
        PairedPA().fit(X, -np.ones(30))
    with pytest.raises(ValueError, match="n_rounds must be an integer >= 1"):
        PairedPA().fit(X, y, n_rounds=0)
    model = PairedPA().fit(X, y, n_rounds=3)
    with pytest.raises(ValueError, match="X has 2 features, but this learner was fitted with 5"):
        model.predict(X[:, :2])
    with pytest.raises(ValueError, match="X has 2 features"):
        model.partial_fit(X[:2, :2], y[:2])
    with pytest.raises(ValueError, match="X must be a 2-D array"):
        model.decision_function(X[0])
    with pytest.raises(ValueError, match="not fitted yet"):
        PairedPA().decision_function(X)


def blobs(seed, sizes=(80, 40, 20, 10), d=3, spread=2.5):
    rng = np.random.default_rng(seed)
    centres = spread * rng.standard_normal((len(sizes), d))
    Y = np.repeat(np.arange(len(sizes)), sizes)
    X = centres[Y] + rng.standard_normal((Y.size, d))
    return np.hstack([X, np.ones((Y.size, 1))]), Y


def test_calibrated_round_is_the_drafts_update():
    """One sample per class: w^k += alpha_k x^k - 1/(K-1) sum_{l != k} alpha_l x^l."""
    rng = np.random.default_rng(0)
    K, d = 4, 3
    X, Y = rng.standard_normal((K, d)), np.arange(K)
    model = CalibratedPA(K, rule="correct_mistakes", C=0.5).partial_fit(X, Y)
    model.partial_fit(X + 0.1, Y)
    for k in range(K):
        y = np.where(Y == k, 1, -1)
        weights = np.where(Y == k, 1.0, 1.0 / (K - 1))
        first = pa_update(np.zeros(d), X, y, rule="correct_mistakes", C=0.5, sample_weight=weights)
        others = Y != k
        expected = first.alpha[k] * X[k] - (first.alpha[others] @ X[others]) / (K - 1)
        np.testing.assert_allclose(first.w, expected)
        second = pa_update(first.w, X + 0.1, y, rule="correct_mistakes", C=0.5, sample_weight=weights)
        np.testing.assert_allclose(model.coef_[k], second.w)


def test_calibrated_pa_learns_imbalanced_classes_and_the_bound_holds():
    X, Y = blobs(0)
    model = CalibratedPA(4, C=0.5).fit(X, Y, n_rounds=150, seed=2)
    S = model.decision_function(X)
    assert S.shape == (X.shape[0], 4)
    assert all_pairs_auc(Y, S) > 0.9
    assert 1 - all_pairs_auc(Y, S) <= all_pairs_auc_bound(Y, S)
    assert model.mean_loss(X, Y) < 0.3
    assert model.predict(X).dtype == np.int64


def test_calibrated_pa_errors():
    X, Y = blobs(1, sizes=(5, 5, 5))
    with pytest.raises(ValueError, match="n_classes must be an integer >= 2"):
        CalibratedPA(1).fit(X, Y)
    with pytest.raises(ValueError, match=r"Y\[0\]: label must be an integer in 0..1"):
        CalibratedPA(2).fit(X, Y[::-1])
    with pytest.raises(ValueError, match="classes \\[3\\] have no sample"):
        CalibratedPA(4).fit(X, Y)
    with pytest.raises(ValueError, match="same number of examples; got 15 inputs and 3 labels"):
        CalibratedPA(3).fit(X, Y[:3])
    with pytest.raises(ValueError, match="X is empty"):
        CalibratedPA(3).partial_fit(X[:0], [])


def multilabel_data(seed, n=200, d=5, L=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    U = rng.standard_normal((L, d))
    Y = (X @ U.T + 0.3 * rng.standard_normal((n, L)) > 0.5).astype(int)
    return np.hstack([X, np.ones((n, 1))]), Y


def test_calibrated_multilabel_pa():
    X, Y = multilabel_data(0)
    model = CalibratedMultilabelPA(3, C=0.5).fit(X, Y, n_rounds=150, seed=0)
    pred = model.predict(X)
    assert pred.shape == Y.shape and set(np.unique(pred)) <= {0, 1}
    assert model.mean_loss(X, Y) == pytest.approx(np.mean(pred != Y))
    assert model.mean_loss(X, Y) < 0.2
    S = model.decision_function(X)
    for k in range(3):
        yk = np.where(Y[:, k] == 1, 1, -1)
        assert 1 - auc(yk, S[:, k]) <= auc_bound(yk, S[:, k])
    with pytest.raises(ValueError, match=r"Y\[0\]: label must be a 0/1 array of length 3"):
        model.partial_fit(X[:1], [[1, 0]])
    with pytest.raises(ValueError, match=r"Y must hold a positive sample .*labels \[2\] have none"):
        CalibratedMultilabelPA(3).fit(X, Y * np.array([1, 1, 0]))
    with pytest.raises(ValueError, match="n_labels must be an integer >= 1"):
        CalibratedMultilabelPA(0).fit(X, Y)
    with pytest.raises(ValueError, match="same number of examples; got 200 inputs and 3 labels"):
        CalibratedMultilabelPA(3).fit(X, Y[:3])


def test_balanced_streams():
    y = np.array([1, -1, -1, -1, 1, -1])
    pairs = balanced_pairs(y, 50, seed=3)
    assert pairs.shape == (50, 2)
    assert np.all(y[pairs[:, 0]] == 1) and np.all(y[pairs[:, 1]] == -1)
    np.testing.assert_array_equal(pairs, balanced_pairs(y, 50, seed=3))
    rounds = balanced_rounds([[0, 1], [2], [3, 4, 5]], 10, seed=0)
    assert rounds.shape == (10, 3)
    assert set(rounds[:, 1]) == {2} and set(rounds[:, 2]) <= {3, 4, 5}
    with pytest.raises(ValueError, match=r"groups\[1\] must be a non-empty 1-D array"):
        balanced_rounds([[0], []], 3)
    with pytest.raises(ValueError, match="at least one group"):
        balanced_rounds([], 3)


# ---------------------------------------------------------------- validation
def test_dual_function_errors():
    X, y = np.eye(2), np.array([1, -1])
    w = np.zeros(2)
    with pytest.raises(ValueError, match="X must be a non-empty 2-D array"):
        pa_update(w, np.zeros((0, 2)), [])
    with pytest.raises(ValueError, match="y must have one label per row of X"):
        pa_update(w, X, [1])
    with pytest.raises(ValueError, match="y must contain only -1 and \\+1"):
        pa_update(w, X, [1, 0])
    with pytest.raises(ValueError, match="w_t must have shape \\(2,\\)"):
        pa_update(np.zeros(3), X, y)
    with pytest.raises(ValueError, match="C must be a real number > 0"):
        pa_update(w, X, y, C=-1.0)
    with pytest.raises(ValueError, match="C must be a real number > 0"):
        pa_update(w, X, y, C=float("nan"))
    with pytest.raises(ValueError, match="C must be a real number > 0"):
        pa_update(w, X, y, C=True)
    with pytest.raises(ValueError, match="rule must be one of"):
        pa_update(w, X, y, rule="perceptron")
    with pytest.raises(ValueError, match="sample_weight must be > 0"):
        pa_update(w, X, y, sample_weight=[1.0, 0.0])
    with pytest.raises(ValueError, match="sample_weight must have shape \\(2,\\)"):
        pa_update(w, X, y, sample_weight=[1.0])
    with pytest.raises(ValueError, match="X must contain only finite values"):
        pa_update(w, [[np.nan, 0.0], [0.0, 1.0]], y)
    with pytest.raises(ValueError, match="J must be a non-empty 1-D sequence"):
        dual_step(w, np.zeros(2), X, y, [], 1.0)
    with pytest.raises(ValueError, match=r"J must contain indices in 0\.\.1"):
        step_size(w, np.zeros(2), X, y, [2], 1.0)
    with pytest.raises(ValueError, match="J must not repeat an index"):
        step_size(w, np.zeros(2), X, y, [0, 0], 1.0)
    with pytest.raises(ValueError, match="alpha must have shape \\(2,\\)"):
        dual_step(w, np.zeros(3), X, y, [0], 1.0)
    with pytest.raises(ValueError, match="alpha must have shape \\(2,\\)"):
        batch_dual_objective(np.zeros(3), w, X, y)
    with pytest.raises(ValueError, match="alpha must have shape \\(2,\\)"):
        primal_from_dual(np.zeros(3), w, X, y)
    with pytest.raises(ValueError, match="alpha must be a 1-D array"):
        step_bounds(np.zeros((2, 2)), [0], 1.0)
    with pytest.raises(ValueError, match="k must be <= 8"):
        brute_force_batch_qp(np.zeros(2), np.ones((9, 2)), np.ones(9), 1.0)
    with pytest.raises(ValueError, match="no KKT point"):
        brute_force_batch_qp(np.zeros(1), np.ones((2, 1)), [1, -1], np.inf)


def test_objectives_and_gradient():
    X, y = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([1, -1])
    w_t, w = np.zeros(2), np.array([0.5, 0.0])
    assert batch_primal_objective(w, w_t, X, y, 2.0) == pytest.approx(0.125 + 2.0 * (0.5 + 1.0))
    assert batch_primal_objective(w, w_t, X, y, np.inf) == np.inf
    assert batch_primal_objective(np.array([1.0, -0.5]), w_t, X, y, np.inf) == pytest.approx(0.625)
    np.testing.assert_allclose(dual_gradient(w, X, y), [0.5, 1.0])
    assert kkt_violation(w_t, np.zeros(2), X, y, 1.0) == pytest.approx(1.0)


def test_samples_a_step_puts_on_their_margin_have_no_loss_in_any_summation_order():
    """Rounding noise of <w, x> does not decide which samples the rules step on."""
    rng = np.random.default_rng(7)
    raw_positive = 0
    for _ in range(300):
        d = int(rng.integers(2, 60))
        X = rng.standard_normal((2, d))
        y = np.array([1, -1])
        w_t = rng.standard_normal(d) / 10
        # a hard-margin step on sample 0 alone puts it exactly on its margin (in exact arithmetic)
        w = pa_update(w_t, X[[0]], y[[0]], rule="auc", C=np.inf).w
        order = rng.permutation(d)  # another order of the features: another rounding of <w, x>
        for X_seen, w_seen in ((X, w), (X[:, order], w[order])):
            raw_positive += int(hinge_losses(w_seen, X_seen, y)[0] > 0)
            sets = index_sets("correct_mistakes", w_seen, X_seen, y)
            assert [J.tolist() for J in sets] in ([[1]], [])
            if hinge_losses(w_seen, X_seen, y)[1] > 1e-9:
                assert [J.tolist() for J in sets] == [[1]]
    assert raw_positive > 0  # the plain loss of a sample on its margin is often a rounding error > 0
    # a loss just above the rounding error of its computation still counts
    X, y = np.array([[1.0, 0.0]]), np.array([1])
    assert [J.tolist() for J in index_sets("correct_mistakes", np.array([1 - 1e-12, 0.0]), X, y)] == [[0]]
