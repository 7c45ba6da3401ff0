"""Brute-force references and shared checks for problems and learners.

Everything here enumerates the prediction space, so it is for small instances and
tests only.  :func:`check_problem` is the contract every problem must satisfy; run it
on your own :class:`~predtron.problems.Problem` subclass before trusting it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from predtron._validation import as_finite_array, check_int, check_seed, excerpt
from predtron.problems.base import Problem

#: Largest ``n_trials`` of :func:`check_problem` (each trial enumerates every prediction).
MAX_TRIALS = 100_000


def _problem(problem) -> Problem:
    if not isinstance(problem, Problem):
        raise ValueError(f"problem must be a predtron.problems.Problem instance (e.g. Binary()); got "
                         f"{excerpt(problem)}")
    return problem


def _enumerable(problem: Problem, t, y):
    """``(t, y)`` checked for brute force over ``problem.predictions(y)``."""
    y = None if y is None else problem.check_label(y)
    return problem.check_scores(t, y), y


def brute_force_pred(problem: Problem, t: np.ndarray, y=None):
    """``argmax_sigma <rep(sigma), t>`` by enumeration; returns ``(sigma, value)``."""
    t, y = _enumerable(_problem(problem), t, y)
    best, best_value = None, -np.inf
    for sigma in problem.predictions(y):
        value = float(problem.rep(sigma) @ t)
        if value > best_value:
            best, best_value = sigma, value
    return best, best_value


def brute_force_oracle(problem: Problem, t: np.ndarray, y):
    """Loss-augmented argmax by enumeration; returns ``(sigma~, phi(t, y))``."""
    problem = _problem(problem)
    if y is None:
        raise ValueError("y is required: the oracle maximises the loss against a label; got None")
    t, y = _enumerable(problem, t, y)
    best, best_value = None, -np.inf
    for sigma in problem.predictions(y):
        value = problem.objective(sigma, t, y)
        if value > best_value:
            best, best_value = sigma, value
    return best, best_value


def _tol(*values: float) -> float:
    return 1e-9 * (1.0 + max(abs(v) for v in values))


def _random_scores(problem: Problem, y, rng: np.random.Generator) -> np.ndarray:
    d = problem.rep(problem.correct(y)).shape
    kind = rng.integers(4)
    if kind == 0:  # integer scores: plenty of ties
        return rng.integers(-2, 3, size=d).astype(float)
    if kind == 1:  # tiny scores: the loss term dominates
        return 0.01 * rng.standard_normal(d)
    if kind == 2:  # a scaled correct representation plus noise
        return 3 * problem.rep(problem.correct(y)) + rng.standard_normal(d)
    return rng.standard_normal(d) * rng.choice([0.3, 1.0, 5.0])


def check_problem(problem: Problem, n_trials: int = 60, seed: int = 0, labels=None) -> None:
    """Assert the contract of Section 2 on random scores and labels.

    Checks, for random ``(t, y)`` (including tied and tiny scores):

    * every ``rep(sigma)`` has unit norm and ``pred(rep(sigma)) = sigma``;
    * ``pred(t)`` maximises ``<rep(sigma), t>`` (value equal to brute force) and
      ``pred(c t) = pred(t)`` for ``c > 0`` (homogeneity);
    * ``L(correct(y), y) = 0`` and every loss is ``>= 0``;
    * the fast ``oracle`` attains the brute-force maximum of eq. (2), and ``surrogate``
      equals it;
    * ``surrogate(t, y) >= L(pred(t), y) >= 0``, ``surrogate(0, y) = max_sigma L(sigma,
      y)``, and ``surrogate(c rep(sigma_y), y) = 0`` for ``c`` large enough.

    Parameters
    ----------
    problem : Problem
        A problem small enough to enumerate.
    n_trials : int
        Number of random ``(t, y)`` pairs.
    seed : int
        Seed of the random draws.
    labels : list, optional
        Labels to draw from (default: ``problem.random_label``).
    """
    problem = _problem(problem)
    n_trials = check_int(n_trials, "n_trials", minimum=0, maximum=MAX_TRIALS)
    rng = np.random.default_rng(check_seed(seed))
    if labels is not None:
        if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__") or not hasattr(labels, "__getitem__"):
            raise ValueError(f"labels must be a sequence of labels of the problem; got {excerpt(labels)}")
        for i in range(len(labels)):
            try:
                problem.check_label(labels[i])
            except (TypeError, ValueError) as exc:
                raise ValueError(f"labels[{i}] is not a label of the problem: {str(exc)[:200]}") from None
    draw = (lambda: labels[int(rng.integers(len(labels)))]) if labels else (
        lambda: problem.random_label(rng))
    checked_reps = set()
    for _ in range(n_trials):
        y = problem.check_label(draw())
        sigma_y = problem.correct(y)
        preds = list(problem.predictions(y))
        key = len(preds)
        assert problem.loss(sigma_y, y) == 0, f"correct({y!r}) has non-zero loss"
        if key not in checked_reps:
            checked_reps.add(key)
            for sigma in preds:
                r = problem.rep(sigma)
                assert abs(np.linalg.norm(r) - 1) < 1e-9, f"rep({sigma!r}) is not unit norm"
                assert problem.same(problem.pred(r), sigma), f"pred(rep({sigma!r})) != {sigma!r}"
        losses = [problem.loss(s, y) for s in preds]
        assert min(losses) >= 0, "a loss value is negative"

        t = _random_scores(problem, y, rng)
        sigma = problem.pred(t)
        _, best = brute_force_pred(problem, t, y)
        got = float(problem.rep(sigma) @ t)
        assert got >= best - _tol(best), f"pred({t}) = {sigma!r} is not a maximiser"
        for c in (0.5, 7.0):
            assert problem.same(problem.pred(c * t), sigma), "pred is not homogeneous"

        tilde = problem.oracle(t, y)
        _, phi = brute_force_oracle(problem, t, y)
        value = problem.objective(tilde, t, y)
        assert abs(value - phi) <= _tol(phi), (
            f"oracle value {value} != brute force {phi} for t={t}, y={y!r}")
        surrogate = problem.surrogate(t, y)
        assert abs(surrogate - phi) <= _tol(phi), "surrogate disagrees with brute force"
        assert surrogate >= problem.loss(sigma, y) - _tol(surrogate) >= -_tol(surrogate), (
            "surrogate is below the loss of pred(t)")

        zero = np.zeros_like(t)
        assert abs(problem.surrogate(zero, y) - max(losses)) <= _tol(max(losses)), (
            "surrogate(0, y) should be the largest loss")
        rep_y = problem.rep(sigma_y)
        gaps = [1.0 - problem.rep(s) @ rep_y for s in preds if not problem.same(s, sigma_y)]
        if gaps:
            c = (max(losses) + 1.0) / max(min(gaps), 1e-12)
            assert problem.surrogate(c * rep_y, y) <= _tol(c), (
                "surrogate of a far-scaled correct representation should be 0")


def check_learner(make_learner, problem: Problem, X, Y, fit_params: dict | None = None) -> None:
    """Shared behaviour of every learner class on one problem and data set.

    ``make_learner(problem)`` must return an unfitted learner and ``fit_params`` are
    passed to ``fit`` (default: two passes).  Checks that fitting records one loss per
    visited example, that a mistake-driven learner (``mistake_driven = True``) updates
    exactly on the rounds with a loss, that ``fit`` restarts from zero and is
    deterministic, that ``predict``, ``decision_function`` and ``score`` agree, and that
    ``fit`` leaves the constructor parameters alone.
    """
    problem = _problem(problem)
    if not callable(make_learner):
        raise ValueError(f"make_learner must be a callable returning a learner; got {excerpt(make_learner)}")
    fit_params = {"epochs": 2} if fit_params is None else fit_params
    if not isinstance(fit_params, dict) or not all(isinstance(k, str) for k in fit_params):
        raise ValueError(f"fit_params must be a dict of keyword arguments of fit; got {excerpt(fit_params)}")
    learner = make_learner(problem)
    if not (hasattr(learner, "fit") and hasattr(learner, "get_params")):
        raise ValueError(f"make_learner(problem) must return a learner; got {excerpt(learner)}")
    params = learner.get_params()
    learner.fit(X, Y, **fit_params)
    assert learner.get_params() == params, "fit must not change constructor parameters"
    n = len(Y)
    history = learner.loss_history_
    assert history.size >= n and history.size % n == 0, "one loss per visited example"
    assert np.all(history >= 0)
    assert 0 <= learner.n_updates_ <= history.size
    if getattr(learner, "mistake_driven", False):
        assert learner.n_updates_ == int(np.count_nonzero(history)), "updates exactly on mistakes"
    first = learner.predict(X)
    again = make_learner(problem).fit(X, Y, **fit_params).predict(X)
    assert _equal(first, again), "fit is not deterministic"
    learner.fit(X, Y, **fit_params)
    assert _equal(first, learner.predict(X)), "fit must restart from scratch"
    scores = learner.decision_function(X)
    preds = [problem.pred(t) for t in scores]
    assert all(problem.same(a, b) for a, b in zip(preds, first, strict=True))
    mean = np.mean([problem.loss(p, problem.check_label(y)) for p, y in zip(preds, Y, strict=True)])
    assert abs(learner.mean_loss(X, Y) - mean) < 1e-12


def _equal(a, b) -> bool:
    if isinstance(a, list) or isinstance(b, list):
        return len(a) == len(b) and all(np.array_equal(u, v) for u, v in zip(a, b, strict=True))
    return bool(np.array_equal(a, b))


def brute_force_ranking(problem: Problem, t: np.ndarray, y) -> dict:
    """Everything about one ranking instance by enumerating its ``m!`` rankings (``m <= 8``).

    Uses ``problem.predictions(y)``, ``rep`` and ``loss`` only, so it checks the fast
    ranking operations against the definitions of Section 2.  ``t`` is one score vector
    or a 2-D array of them (one per row; the per-score entries are then arrays).
    Returns a dict with the rankings (``"rankings"``, shape ``(m!, m)``), their losses
    (``"losses"``), the best value of ``<rep(sigma), t>`` (``"pred_value"``), the largest
    objective of eq. (2) (``"phi"``) and the margin by its definition (``"margin"``, with
    the compatibility convention of :meth:`~predtron.problems.base.Problem.margin`).
    """
    y = _problem(problem).check_label(y)
    if len(y) > 8:
        raise ValueError(f"brute_force_ranking enumerates m! rankings, for m <= 8; got m = {len(y)}")
    T = as_finite_array(t, "t")
    single = T.ndim == 1
    T = np.atleast_2d(T)
    if T.ndim != 2 or T.shape[1] != len(y):
        raise ValueError(f"t must be one score per item of y ({len(y)}) or a 2-D array of such rows; got shape "
                         f"{np.shape(t)}")
    rankings = np.array(list(problem.predictions(y)))
    reps = np.array([problem.rep(s) for s in rankings])
    losses = np.array([problem.loss(s, y) for s in rankings])
    values = reps @ T.T  # (m!, n_scores)
    base = problem.rep(problem.correct(y)) @ T.T
    phi = np.max(losses[:, None] - (base[None, :] - values), axis=0)
    good, bad = values[losses == 0], values[losses > 0]
    if bad.size == 0:
        margin = np.full(len(T), np.inf)
    else:
        gap = good.min(axis=0) - bad.max(axis=0)
        tol = 1e-12 * (1.0 + np.max(np.abs(T), axis=1, initial=0.0))
        compatible = good.max(axis=0) - good.min(axis=0) <= tol
        margin = np.where(compatible, gap, np.minimum(gap, 0.0))
    out = {"rankings": rankings, "losses": losses, "pred_value": values.max(axis=0), "phi": phi,
           "margin": margin}
    if single:
        out.update({key: float(out[key][0]) for key in ("pred_value", "phi", "margin")})
    return out


# ------------------------------------------------------------ the reference online loop
class Reference(NamedTuple):
    """What :func:`reference_fit` computes from the definitions.

    Attributes
    ----------
    losses : ndarray
        The loss of every round, in order.
    n_updates : int
        Rounds with an update.
    params : ndarray or None
        Predictor parameters in the learner's full layout (intercept as the last column):
        the last iterate, or the average of the iterates after every round with
        ``average=True``.  ``None`` for kernel learners (see ``scores``).
    scores : callable
        ``scores(X, **split)``: the predictor's scores on new inputs (a list per instance
        for ranking).
    """

    losses: np.ndarray
    n_updates: int
    params: np.ndarray | None
    scores: object


def reference_fit(learner, X, Y, epochs: int = 1, *, qid=None, group=None) -> Reference:
    """Fit ``learner``'s configuration with the per-example loop written from the definitions.

    This is the slow reference for the exact block scan of
    :mod:`predtron.learners.base`: one round at a time, scores computed for that instance
    alone, ``pred``, the loss, and on a non-zero loss the oracle and the update of
    Algorithm 1 (scaled by the loss for the loss-driven variants, through the link for
    Predtron.Link).  The average is the explicit mean of the predictor after every round,
    shuffling draws a permutation per pass from ``random_state`` as ``fit`` does, and the
    kernel expansion keeps one term per update (no merging), removing the oldest distinct
    input when a budget is exceeded.  ``learner`` itself is not modified.
    """
    from predtron._validation import check_random_state
    from predtron.learners.base import OnlineLearner
    from predtron.learners.kernel import KernelPredtron
    from predtron.learners.link import PredtronLink

    if not isinstance(learner, OnlineLearner):
        raise ValueError(f"learner must be a predtron online learner (e.g. Predtron(Binary())); got {excerpt(learner)}")
    learner._validate_params()
    epochs = check_int(epochs, "epochs", minimum=1)
    problem = learner.problem
    inputs = problem.scoring.prepare(X, qid=qid, group=group, intercept=bool(learner.fit_intercept))
    labels = problem.check_labels(Y, inputs)
    if inputs.n == 0:
        raise ValueError("X is empty; at least one example is needed to learn")
    shape = problem.scoring.param_shape(inputs.n_features, inputs.intercept)
    kernel = isinstance(learner, KernelPredtron)
    link = learner._link() if isinstance(learner, PredtronLink) else None
    loss_driven = bool(getattr(learner, "loss_driven", False)) or type(learner).__name__ == "PredtronLD"
    rng = check_random_state(learner.random_state) if learner.shuffle else None

    theta = inputs.zeros(shape)        # the iterate (dual for a link, primal otherwise)
    terms: list[tuple[np.ndarray, np.ndarray, int]] = []   # kernel: (x, c, round)
    kfun = learner._resolve_kernel() if kernel else None

    def primal() -> np.ndarray:
        return link.to_primal(theta) if link is not None else theta

    documents = type(inputs).__name__ == "DocumentInputs"

    def kernel_scores(x, expansion) -> np.ndarray:
        """``t(x) = sum_i c_i k(x_i, x)`` term by term (documents: ``sum_i k(X, X_i) c_i``)."""
        if documents:
            t = np.zeros(x.shape[0])
            for support, coef, _ in expansion:
                t = t + kfun(x, support) @ coef
            return t
        t = np.zeros(problem.scoring.dim)
        for support, coef, _ in expansion:
            value = float(kfun(support, x[None, :])[0, 0]) + (1.0 if inputs.intercept else 0.0)
            t = t + coef * value
        return t

    def one_scores(i: int) -> np.ndarray:
        if not kernel:
            return inputs.one_scores(primal(), i)
        x = inputs.instance(i)
        return kernel_scores(x, terms)

    losses, n_updates, total = [], 0, np.zeros(shape)
    for _ in range(int(epochs)):
        order = rng.permutation(inputs.n) if rng is not None else np.arange(inputs.n)
        for i in order:
            i = int(i)
            y = labels[i]
            t = one_scores(i)
            loss = float(problem._loss(problem._pred(t), y))
            losses.append(loss)
            if loss > 0:
                chosen = problem._oracle(t, y) if learner.update == "oracle" else problem._pred(t)
                g = problem._direction(t, y, chosen)
                step = learner.eta * (loss if loss_driven else 1.0)
                if kernel:
                    if np.any(g):
                        _reference_store(terms, inputs.instance(i), -step * g, len(losses), learner.budget)
                else:
                    inputs.add_adjoint(theta, g, i, -step)
                n_updates += 1
            if not kernel:
                total += primal()
    T = len(losses)
    if kernel:
        def weight(tau: int) -> float:
            return (T - tau + 1) / T if learner.average else 1.0

        expansion = [(np.atleast_2d(x), c * weight(tau), tau) for x, c, tau in terms]

        def scores(X_new, **split):
            new = problem.scoring.prepare(X_new, intercept=inputs.intercept, **split)
            return [kernel_scores(new.instance(i), expansion) for i in range(new.n)]

        return Reference(np.array(losses), n_updates, None, scores)
    params = total / T if learner.average else primal().copy()

    def scores(X_new, **split):
        new = problem.scoring.prepare(X_new, intercept=inputs.intercept, **split)
        return [new.one_scores(params, i) for i in range(new.n)]

    return Reference(np.array(losses), n_updates, params, scores)


def _reference_store(terms: list, x: np.ndarray, coef: np.ndarray, tau: int, budget) -> None:
    """Append one expansion term; with a budget, drop every term of the oldest distinct input first."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    distinct: list[bytes] = []
    for support, _, _ in terms:
        key = support.tobytes() + repr(support.shape).encode()
        if key not in distinct:
            distinct.append(key)
    key = x.tobytes() + repr(x.shape).encode()
    if budget is not None and key not in distinct and len(distinct) >= budget:
        oldest = distinct[0]
        terms[:] = [term for term in terms if term[0].tobytes() + repr(term[0].shape).encode() != oldest]
    terms.append((x, coef, tau))
