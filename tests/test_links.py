"""Links (predtron.links) and Predtron.Link: inverses, gradients, conjugates, reductions."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import core_problems, ranking_stream
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from predtron.data.generators import make_noisy
from predtron.learners.link import PredtronLink
from predtron.learners.predtron import Predtron, PredtronLD
from predtron.links import (
    EuclideanLink,
    GroupNormLink,
    Link,
    PNormLink,
    SchattenLink,
    default_exponent,
)
from predtron.problems import Binary, Multiclass, Multilabel
from predtron.testing import check_learner

LINK_CLASSES = [PNormLink, GroupNormLink, SchattenLink]
EXPONENTS = [1.05, 1.3, 1.5, 2.0, 3.0, None]
SHAPES = [(1,), (7,), (1, 9), (3, 5), (5, 3), (12, 40)]


def all_links():
    return [cls(r) for cls in LINK_CLASSES for r in EXPONENTS] + [EuclideanLink()]


def numerical_gradient(f, W, h=1e-6):
    grad = np.zeros_like(W)
    for idx in np.ndindex(W.shape):
        E = np.zeros_like(W)
        E[idx] = h
        grad[idx] = (f(W + E) - f(W - E)) / (2 * h)
    return grad


# ----------------------------------------------------------------- the maps
@pytest.mark.parametrize("link", all_links(), ids=repr)
@pytest.mark.parametrize("shape", SHAPES)
def test_round_trips(link, shape):
    rng = np.random.default_rng(len(shape) * 100 + shape[-1])
    for scale in (1.0, 1e-150, 1e150):
        W = scale * rng.standard_normal(shape)
        np.testing.assert_allclose(link.to_primal(link.to_dual(W)), W, rtol=1e-9, atol=0)
        theta = W
        if isinstance(link, SchattenLink) and len(shape) == 2 and link.exponent(shape) < 1.1:
            # to_primal raises the singular values to the power s - 1 = 20: a ratio above
            # ~6 between them falls below double precision (the primal is numerically low
            # rank, as the trace-norm link intends), so the way back is tested on a matrix
            # whose singular values lie within a factor 2.
            U, _, Vt = np.linalg.svd(W, full_matrices=False)
            theta = scale * (U * np.linspace(2.0, 1.0, U.shape[1])[None, :]) @ Vt
        # the SVD is accurate relative to the largest entry, not entry by entry
        atol = 1e-10 * np.abs(theta).max() if isinstance(link, SchattenLink) else 0.0
        np.testing.assert_allclose(link.to_dual(link.to_primal(theta)), theta, rtol=1e-9, atol=atol)


@settings(max_examples=80, deadline=None)
@given(
    W=arrays(np.float64, array_shapes(min_dims=1, max_dims=2, max_side=5),
             elements=st.one_of(st.just(0.0), st.floats(-1e6, 1e6, allow_subnormal=False))),
    r=st.floats(1.1, 4.0),
    cls=st.sampled_from([PNormLink, GroupNormLink]),
)
def test_round_trip_property_with_zeros_and_mixed_magnitudes(W, r, cls):
    link = cls(r)
    back = link.to_primal(link.to_dual(W))
    scale = float(np.abs(W).max()) if W.size else 0.0
    np.testing.assert_allclose(back, W, rtol=1e-9, atol=1e-12 * scale)
    assert np.all(back[W == 0] == 0)  # exact zeros (whole zero groups for the group link) stay zero
    assert link.to_dual(W).shape == W.shape


def test_trace_norm_link_makes_the_primal_low_rank():
    rng = np.random.default_rng(8)
    theta = rng.standard_normal((6, 9))
    sv = np.linalg.svd(SchattenLink(1.05).to_primal(theta), compute_uv=False)
    ratios = sv / sv[0]
    expected = (np.linalg.svd(theta, compute_uv=False) / np.linalg.norm(theta, 2)) ** 20
    np.testing.assert_allclose(ratios[:2], expected[:2], rtol=1e-8)
    assert ratios[-1] < 1e-6


@pytest.mark.parametrize("link", all_links(), ids=repr)
@pytest.mark.parametrize("shape", [(6,), (3, 4)])
def test_to_dual_is_grad_psi_and_to_primal_is_grad_psi_star(link, shape):
    rng = np.random.default_rng(7)
    W = rng.standard_normal(shape)
    np.testing.assert_allclose(link.to_dual(W), numerical_gradient(link.psi, W), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(
        link.to_primal(W), numerical_gradient(link.psi_star, W), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("link", all_links(), ids=repr)
@pytest.mark.parametrize("shape", [(5,), (4, 6)])
def test_fenchel_young_equality_and_norm_preservation(link, shape):
    # For psi = 1/2 ||.||^2: psi*(grad psi(W)) = psi(W) and psi + psi* = <W, grad psi(W)>.
    W = np.random.default_rng(11).standard_normal(shape)
    theta = link.to_dual(W)
    assert link.psi_star(theta) == pytest.approx(link.psi(W), rel=1e-10)
    assert link.psi(W) + link.psi_star(theta) == pytest.approx(float(np.sum(W * theta)), rel=1e-10)


@pytest.mark.parametrize("link", all_links(), ids=repr)
def test_maps_are_positively_homogeneous(link):
    W = np.random.default_rng(5).standard_normal((3, 8))
    np.testing.assert_allclose(link.to_dual(3.5 * W), 3.5 * link.to_dual(W), rtol=1e-12)
    np.testing.assert_allclose(link.to_primal(0.2 * W), 0.2 * link.to_primal(W), rtol=1e-12)


@pytest.mark.parametrize("link", all_links(), ids=repr)
@pytest.mark.parametrize("shape", SHAPES)
def test_zero_maps_to_zero(link, shape):
    zero = np.zeros(shape)
    for out in (link.to_dual(zero), link.to_primal(zero)):
        assert out.shape == shape
        assert np.all(out == 0)
    assert link.psi(zero) == 0 and link.psi_star(zero) == 0


@pytest.mark.parametrize("r", [1.2, 1.7, 2.6])
def test_pnorm_map_matches_the_paper_formula(r):
    w = np.random.default_rng(2).standard_normal(9)
    w[3] = 0.0
    norm = np.sum(np.abs(w) ** r) ** (1 / r)
    expected = np.sign(w) * np.abs(w) ** (r - 1) / norm ** (r - 2)
    np.testing.assert_allclose(PNormLink(r).to_dual(w), expected, rtol=1e-12)
    s = r / (r - 1)
    norm_s = np.sum(np.abs(w) ** s) ** (1 / s)
    expected_inv = np.sign(w) * np.abs(w) ** (s - 1) / norm_s ** (s - 2)
    np.testing.assert_allclose(PNormLink(r).to_primal(w), expected_inv, rtol=1e-12)
    assert PNormLink(r).to_dual(w)[3] == 0


@pytest.mark.parametrize("r", [1.2, 1.7, 2.6])
def test_group_map_matches_the_paper_formula_and_keeps_zero_columns(r):
    W = np.random.default_rng(4).standard_normal((3, 6))
    W[:, 2] = 0.0
    cols = np.linalg.norm(W, axis=0)
    total = np.sum(cols ** r) ** (1 / r)
    expected = np.zeros_like(W)
    nz = cols > 0
    expected[:, nz] = total ** (2 - r) * cols[nz] ** (r - 2) * W[:, nz]
    got = GroupNormLink(r).to_dual(W)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert np.all(got[:, 2] == 0)
    # directions of the columns are kept
    np.testing.assert_allclose(got[:, 0] / np.linalg.norm(got[:, 0]), W[:, 0] / cols[0], rtol=1e-12)


def test_group_link_on_a_vector_is_the_pnorm_link():
    w = np.random.default_rng(9).standard_normal(20)
    np.testing.assert_allclose(GroupNormLink(1.4).to_dual(w), PNormLink(1.4).to_dual(w), rtol=1e-12)
    assert GroupNormLink().exponent((20,)) == PNormLink().exponent((20,))


def test_schatten_map_acts_on_singular_values():
    rng = np.random.default_rng(6)
    W = rng.standard_normal((4, 7))
    U, sv, Vt = np.linalg.svd(W, full_matrices=False)
    got = SchattenLink(1.5).to_dual(W)
    np.testing.assert_allclose(np.linalg.svd(got, compute_uv=False), PNormLink(1.5).to_dual(sv), rtol=1e-10)
    np.testing.assert_allclose(got, (U * PNormLink(1.5).to_dual(sv)) @ Vt, rtol=1e-10, atol=1e-13)
    # a rank-one matrix has a single non-zero singular value: the map is the identity on it
    R1 = np.outer(rng.standard_normal(3), rng.standard_normal(5))
    np.testing.assert_allclose(SchattenLink(1.2).to_dual(R1), R1, rtol=1e-10, atol=1e-14)
    # a vector is one row: its only singular value is its l2 norm
    w = rng.standard_normal(6)
    np.testing.assert_array_equal(SchattenLink(1.2).to_dual(w), w)


@pytest.mark.parametrize("link", [PNormLink(2), GroupNormLink(2.0), SchattenLink(2), EuclideanLink()], ids=repr)
def test_r_equal_two_is_the_identity_bit_for_bit(link):
    W = np.random.default_rng(1).standard_normal((3, 5))
    assert np.array_equal(link.to_dual(W), W) and np.array_equal(link.to_primal(W), W)
    assert link.to_dual(W) is not W


# ------------------------------------------------------------- the exponent
def test_default_exponent_formula_and_small_p_fallback():
    for p in range(1, 8):  # p < e^2: the formula is not in (1, 2]
        assert default_exponent(p) == 2.0
    for p in (8, 30, 1000, 10**6):
        expected = np.log(p) / (np.log(p) - 1)
        assert default_exponent(p) == pytest.approx(expected)
        assert 1 < default_exponent(p) <= 2
    assert default_exponent(1000) < default_exponent(30)  # more terms: closer to l1


def test_default_exponent_counts_the_right_terms():
    shape = (4, 100)
    assert PNormLink().exponent(shape) == default_exponent(400)
    assert GroupNormLink().exponent(shape) == default_exponent(100)
    assert SchattenLink().exponent(shape) == 2.0  # only 4 singular values
    assert SchattenLink().exponent((50, 60)) == default_exponent(50)
    assert PNormLink(1.25).exponent(shape) == 1.25
    assert PNormLink(1.25).dual_exponent(shape) == pytest.approx(5.0)
    assert EuclideanLink().exponent(shape) == 2.0


@pytest.mark.parametrize("cls", [*LINK_CLASSES])
@pytest.mark.parametrize("r", [1, 1.0, 0.5, -2, float("inf"), float("nan")])
def test_bad_exponent_is_rejected(cls, r):
    with pytest.raises(ValueError, match=r"r must be finite and > 1"):
        cls(r)


@pytest.mark.parametrize("r", ["2", True, [2]])
def test_non_numeric_exponent_is_rejected(r):
    with pytest.raises(ValueError, match=r"r must be a real number > 1 or None"):
        PNormLink(r)


def test_bad_p_for_default_exponent():
    with pytest.raises(ValueError, match=r"p must be an integer >= 1"):
        default_exponent(0)


@pytest.mark.parametrize("cls", [GroupNormLink, SchattenLink])
def test_matrix_links_reject_three_dimensional_arrays(cls):
    with pytest.raises(ValueError, match=r"acts on a 1-D vector or a 2-D matrix; got W with shape \(2, 2, 2\)"):
        cls(1.5).to_dual(np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match=r"got theta with shape"):
        cls(1.5).to_primal(np.ones((2, 2, 2)))


def test_links_reject_non_finite_input():
    with pytest.raises(ValueError, match=r"W must contain only finite values"):
        PNormLink(1.5).to_dual([1.0, np.nan])
    with pytest.raises(ValueError, match=r"theta must contain only finite values"):
        PNormLink(1.5).to_primal([1.0, np.inf])


def test_link_repr_and_params():
    assert repr(PNormLink(1.5)) == "PNormLink(r=1.5)"
    assert repr(EuclideanLink()) == "EuclideanLink()"
    assert GroupNormLink().get_params() == {"r": None}
    assert isinstance(SchattenLink(), Link)


# --------------------------------------------------------------- the learner
def noisy_stream(problem, n=150, p=6, seed=0):
    """A non-separable stream (many updates, so the comparisons see many rounds)."""
    return make_noisy(problem, n, p, noise=0.8, seed=seed)


REDUCTION_PROBLEMS = [Binary(), Multiclass(4), Multilabel(4, "hamming"), Multilabel(3, "subset")]
IDENTITY_LINKS = [EuclideanLink(), PNormLink(r=2), GroupNormLink(r=2), SchattenLink(r=2)]


@pytest.mark.parametrize("problem", REDUCTION_PROBLEMS, ids=repr)
@pytest.mark.parametrize("link", IDENTITY_LINKS, ids=repr)
@pytest.mark.parametrize("update", ["oracle", "prediction"])
def test_identity_links_reproduce_predtron_exactly(problem, link, update):
    X, Y = noisy_stream(problem)
    for loss_driven, reference in ((False, Predtron), (True, PredtronLD)):
        ours = PredtronLink(problem, link=link, eta=0.3, update=update, loss_driven=loss_driven)
        ours.fit(X, Y, epochs=2)
        theirs = reference(problem, eta=0.3, update=update).fit(X, Y, epochs=2)
        assert ours.n_updates_ > 10
        assert np.array_equal(ours.coef_, theirs.coef_)
        assert np.array_equal(ours.loss_history_, theirs.loss_history_)
        assert np.array_equal(ours.theta_, theirs.coef_)


def test_default_link_is_pnorm_with_resolved_exponent():
    problem = Multiclass(3)
    X, Y = noisy_stream(problem, p=40)
    model = PredtronLink(problem).fit(X, Y)
    assert model.link is None
    assert model.r_ == pytest.approx(default_exponent(3 * 40))
    np.testing.assert_allclose(model.coef_, PNormLink().to_primal(model.theta_))
    # few parameters: the default falls back to r = 2, i.e. plain Predtron
    small = PredtronLink(Binary()).fit(*noisy_stream(Binary(), p=5))
    assert small.r_ == 2.0
    ref = Predtron(Binary()).fit(*noisy_stream(Binary(), p=5))
    assert np.array_equal(small.coef_, ref.coef_)


@pytest.mark.parametrize("link", [PNormLink(1.3), GroupNormLink(1.5), SchattenLink(1.2)], ids=repr)
def test_primal_is_the_link_of_the_dual_sum_of_updates(link):
    problem = Multiclass(4)
    X, Y = noisy_stream(problem, p=8, seed=3)
    model = PredtronLink(problem, link=link, eta=0.5).fit(X, Y)
    np.testing.assert_allclose(model.coef_, link.to_primal(model.theta_), rtol=1e-12)
    np.testing.assert_allclose(link.to_dual(model.coef_), model.theta_, rtol=1e-9, atol=1e-12)
    # Theta is the plain sum of the Predtron steps: replay them with the learner's own predictions
    theta = np.zeros_like(model.theta_)
    for x, y in zip(X, Y, strict=True):
        t = link.to_primal(theta) @ x
        if problem.loss(problem.pred(t), y) > 0:
            g = problem.rep(problem.oracle(t, y)) - problem.rep(problem.correct(y))
            theta -= 0.5 * np.outer(g, x)
    np.testing.assert_allclose(model.theta_, theta, rtol=1e-12, atol=1e-12)


def test_l1_link_beats_euclidean_on_a_sparse_target():
    # Section 6, experiment (c) in miniature: many features, a 3-sparse separator.
    rng = np.random.default_rng(0)
    p, n = 400, 300
    w = np.zeros(p)
    w[:3] = [1.0, -1.0, 1.0]
    X = rng.uniform(-1, 1, (n, p))
    margin = X @ w
    keep = np.abs(margin) > 0.3
    X, Y = X[keep], np.where(margin[keep] > 0, 1, -1)
    l1 = PredtronLink(Binary(), link=PNormLink()).fit(X, Y)
    l2 = Predtron(Binary()).fit(X, Y)
    assert l1.loss_history_.sum() < l2.loss_history_.sum()


def link_learner_factories():
    return [
        lambda pr: PredtronLink(pr, link=PNormLink(1.5), eta=0.7),
        lambda pr: PredtronLink(pr, link=GroupNormLink(), loss_driven=True),
        lambda pr: PredtronLink(pr, link=SchattenLink(1.3), update="prediction"),
    ]


@pytest.mark.parametrize("problem", core_problems(), ids=repr)
@pytest.mark.parametrize("factory", range(3))
def test_shared_learner_checks(problem, factory):
    X, Y = noisy_stream(problem, n=40, p=5, seed=factory)
    check_learner(link_learner_factories()[factory], problem, X, Y)


def test_shared_learner_checks_on_subset_ranking():
    pytest.importorskip(
        "predtron.problems.subset_ranking",
        reason="predtron.problems.subset_ranking is not written yet (ranking part of issue 3)")
    from predtron.problems.subset_ranking import SubsetRanking

    X, Y = ranking_stream(n=25, p0=6, seed=1)
    problem = SubsetRanking()
    for factory in link_learner_factories():
        check_learner(factory, problem, X, Y)
    # r = 2 reproduces Predtron on ranking too (w is a vector: groups are its entries)
    for link in IDENTITY_LINKS:
        ours = PredtronLink(problem, link=link, eta=0.5).fit(X, Y, epochs=2)
        ref = Predtron(problem, eta=0.5).fit(X, Y, epochs=2)
        assert np.array_equal(ours.coef_, ref.coef_)
        assert np.array_equal(ours.loss_history_, ref.loss_history_)


def test_identity_links_and_checks_on_multilabel_ranking():
    pytest.importorskip(
        "predtron.problems.multilabel_ranking",
        reason="predtron.problems.multilabel_ranking is not written yet (ranking part of issue 3)")
    from predtron.problems.multilabel_ranking import MultilabelRanking

    for problem in (MultilabelRanking(4), MultilabelRanking(3, f="inverse", y_max=2)):
        X, Y = noisy_stream(problem, n=60, p=5, seed=4)
        for link in IDENTITY_LINKS:
            ours = PredtronLink(problem, link=link, eta=0.5, loss_driven=True).fit(X, Y, epochs=2)
            ref = PredtronLD(problem, eta=0.5).fit(X, Y, epochs=2)
            assert ref.n_updates_ > 5
            assert np.array_equal(ours.coef_, ref.coef_)
            assert np.array_equal(ours.loss_history_, ref.loss_history_)
        for factory in link_learner_factories():
            check_learner(factory, problem, X[:30], Y[:30])


def test_sparse_targets_on_rankings_favour_the_l1_and_group_links():
    # Corollaries 6 and 8 in miniature: 3 relevant features out of 300.
    for name in ("multilabel_ranking", "subset_ranking"):
        pytest.importorskip(f"predtron.problems.{name}", reason="ranking problems not written yet")
    from predtron.problems.multilabel_ranking import MultilabelRanking
    from predtron.problems.subset_ranking import SubsetRanking

    rng = np.random.default_rng(0)
    p = 300
    problem = MultilabelRanking(4)
    W = np.zeros((4, p))
    W[:, :3] = rng.standard_normal((4, 3))
    X = rng.uniform(-1, 1, (300, p))
    Y = [problem.label_for(problem.pred(t)) for t in X @ W.T]
    group = PredtronLink(problem, link=GroupNormLink()).fit(X, Y)
    assert group.r_ == pytest.approx(default_exponent(p))
    assert group.loss_history_.sum() < Predtron(problem).fit(X, Y).loss_history_.sum()

    ranking = SubsetRanking()
    w = np.zeros(p)
    w[:3] = [1.0, -1.0, 1.0]
    queries = [rng.uniform(-1, 1, (6, p)) for _ in range(100)]
    relevance = [np.digitize(q @ w, [-0.5, 0.5]) for q in queries]
    l1 = PredtronLink(ranking, link=PNormLink()).fit(queries, relevance)
    assert l1.loss_history_.sum() < Predtron(ranking).fit(queries, relevance).loss_history_.sum()



def test_save_and_load_round_trip(tmp_path):
    from predtron import persistence

    problem = Multiclass(3)
    X, Y = noisy_stream(problem, n=80, p=12)
    model = PredtronLink(problem, eta=0.4, loss_driven=True).fit(X[:40], Y[:40])
    again = persistence.load(persistence.save(model, tmp_path / "link"))
    assert type(again) is PredtronLink and again.r_ == model.r_
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    model.partial_fit(X[40:], Y[40:])
    again.partial_fit(X[40:], Y[40:])
    np.testing.assert_array_equal(again.coef_, model.coef_)
    np.testing.assert_array_equal(again.loss_history_, model.loss_history_)


def test_learner_validation_messages():
    X, Y = noisy_stream(Binary(), n=5)
    with pytest.raises(ValueError, match=r"link must be a predtron.links.Link instance .* got str"):
        PredtronLink(Binary(), link="pnorm").fit(X, Y)
    with pytest.raises(ValueError, match=r"loss_driven must be True or False; got 'yes'"):
        PredtronLink(Binary(), loss_driven="yes").fit(X, Y)
    with pytest.raises(ValueError, match=r"eta must be finite and > 0"):
        PredtronLink(Binary(), eta=0).fit(X, Y)
    with pytest.raises(ValueError, match=r"is not fitted yet"):
        PredtronLink(Binary()).predict(X)
