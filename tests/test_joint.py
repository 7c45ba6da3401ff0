"""Class-sensitive feature maps Psi(x, y) and the cost-sensitive multiclass problem (UML 17.2)."""

from __future__ import annotations

import numpy as np
import pytest

from predtron import Predtron
from predtron.problems import Multiclass
from predtron.problems.joint import JointMulticlass
from predtron.problems.psi import CallableMap, JointScoring, MultivectorMap, TfidfMap
from predtron.testing import check_problem

COST = [[0, 1, 3], [1, 0, 1], [3, 1, 0]]


def _data(seed=0, n=60, p=5, k=3):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((k, p))
    X = rng.standard_normal((n, p))
    return X, [int(v) for v in np.argmax(X @ W.T, axis=1)]


def _tfidf(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.poisson(1.0, size=(30, 8)).astype(float)
    Y = [int(v) for v in rng.integers(0, 3, 30)]
    return TfidfMap(3).fit(X, Y), X, Y


def _maps():
    tfidf, _, _ = _tfidf()
    return [
        (MultivectorMap(3), np.random.default_rng(1).standard_normal(4)),
        (tfidf, np.arange(8.0)),
        (CallableMap(lambda x, y: np.concatenate([x * (y + 1), [float(y == 2)]]), 3),
         np.array([1.0, -2.0])),
    ]


@pytest.mark.parametrize("feature_map, x", _maps(), ids=lambda v: type(v).__name__)
def test_scores_and_adjoint_match_the_psi_matrix(feature_map, x):
    scoring = JointScoring(feature_map)
    x = scoring.split([x])[0]
    w = np.random.default_rng(2).standard_normal(scoring.init_params(scoring.n_features(x)).shape)
    g = np.random.default_rng(3).standard_normal(3)
    psi = np.array([feature_map(x, y) for y in range(3)])
    assert np.allclose(scoring.scores(w, x), psi @ w)
    # the adjoint is sum_y g_y Psi(x, y), so <g, A(w)> = <A*(g), w>
    assert np.allclose(scoring.gradient(g, x), psi.T @ g)
    assert np.isclose(g @ scoring.scores(w, x), scoring.gradient(g, x) @ w)
    assert np.isclose(scoring.instance_norm(x), np.linalg.norm(psi, 2))


def test_multivector_psi_puts_x_in_block_y():
    x = np.array([1.0, 2.0])
    assert MultivectorMap(3)(x, 1).tolist() == [0, 0, 1, 2, 0, 0]


@pytest.mark.parametrize("loss", [None, COST])
def test_multivector_predtron_equals_multiclass_predtron(loss):
    X, Y = _data()
    joint = Predtron(JointMulticlass(MultivectorMap(3), loss=loss)).fit(X, Y, epochs=3)
    plain = Predtron(Multiclass(3, loss=loss)).fit(X, Y, epochs=3)
    assert np.allclose(joint.coef_.reshape(3, -1), plain.coef_)
    assert np.array_equal(joint.loss_history_, plain.loss_history_)
    assert np.array_equal(joint.predict(X), plain.predict(X))


def test_predtron_update_is_psi_difference():
    feature_map = CallableMap(lambda x, y: np.array([x[0] * (y == 0), x[0] * (y == 1), x[1] * y]), 2)
    model = Predtron(JointMulticlass(feature_map), eta=0.5).fit([[1.0, 2.0]], [1])
    # w = 0 predicts 0 (tie to the smallest); oracle picks 0, so w = 0.5 (Psi(x, 1) - Psi(x, 0))
    expected = 0.5 * (feature_map(np.array([1.0, 2.0]), 1) - feature_map(np.array([1.0, 2.0]), 0))
    assert np.allclose(model.coef_, expected)


@pytest.mark.parametrize("loss", [None, COST])
def test_joint_multiclass_contract(loss):
    check_problem(JointMulticlass(MultivectorMap(3), loss=loss))


def test_generalized_hinge_bounds_the_loss_and_matches_definition():
    problem = JointMulticlass(MultivectorMap(3), loss=COST)
    rng = np.random.default_rng(4)
    for _ in range(20):
        w, x, y = rng.standard_normal(12), rng.standard_normal(4), int(rng.integers(3))
        psi = np.array([problem.feature_map(x, c) for c in range(3)])
        direct = max(COST[c][y] + w @ (psi[c] - psi[y]) for c in range(3))
        value = problem.generalized_hinge(w, x, y)
        assert np.isclose(value, direct)
        assert value >= problem.loss(problem.pred(problem.scoring.scores(w, x)), y)


def test_binary_psi_gives_the_vanilla_hinge():
    # Psi(x, y) = y x / 2 with labels {-1, +1} encoded as classes 0 -> -1 and 1 -> +1
    problem = JointMulticlass(CallableMap(lambda x, c: (2 * c - 1) * x / 2, 2))
    rng = np.random.default_rng(5)
    for _ in range(20):
        w, x, c = rng.standard_normal(3), rng.standard_normal(3), int(rng.integers(2))
        y = 2 * c - 1
        assert np.isclose(problem.generalized_hinge(w, x, c), max(0.0, 1 - y * w @ x))


def test_tfidf_counts_documents_off_topic():
    X = np.array([[2, 0, 1], [0, 1, 1], [1, 0, 0], [0, 3, 1]], dtype=float)
    Y = [0, 1, 0, 1]
    docs = TfidfMap(2, smoothing=0.5).fit(X, Y)
    # word 0 appears in documents 0, 2 (topic 0): off topic 1 twice, off topic 0 never
    assert docs.df_.tolist() == [[0, 2, 2], [2, 0, 1]]
    occ = TfidfMap(2, count="occurrences", smoothing=0.5).fit(X, Y)
    assert occ.df_.tolist() == [[0, 4, 2], [3, 0, 1]]
    x = np.array([1.0, 2.0, 0.0])
    assert np.allclose(docs(x, 1), x * np.log(4.5 / (docs.df_[1] + 0.5)))
    assert docs(x, 0)[0] > docs(x, 1)[0]  # word 0 is rare outside topic 0


def test_tfidf_textbook_formula_and_zero_df():
    X = np.array([[0, 1], [1, 1], [1, 1]], dtype=float)
    with pytest.raises(ValueError, match=r"DF\(j=0, y=1\) = 0: word 0 never occurs outside topic 1"):
        TfidfMap(2, smoothing=0).fit(X, [0, 1, 1])
    fitted = TfidfMap(2, smoothing=0).fit(X, [0, 1, 0])
    assert np.allclose(fitted.idf_, np.log(3 / fitted.df_))


def test_tfidf_learns_topics():
    tfidf, X, Y = _tfidf()
    model = Predtron(JointMulticlass(tfidf)).fit(X, Y, epochs=2)
    assert model.coef_.shape == (8,)
    assert model.mean_loss(X, Y) <= 1.0


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: JointMulticlass("psi"), r"feature_map must be a predtron.problems.psi.FeatureMap"),
        (lambda: JointMulticlass(MultivectorMap(3), loss=np.ones((2, 2))), r"loss must be a \(3, 3\)"),
        (lambda: JointMulticlass(MultivectorMap(2), loss=[[1, 1], [1, 0]]),
         r"every column of loss needs a zero"),
        (lambda: MultivectorMap(1), r"n_classes must be an integer >= 2"),
        (lambda: TfidfMap(2, count="words"), r"count must be one of \['documents', 'occurrences'\]"),
        (lambda: TfidfMap(2, smoothing=-1), r"smoothing must be finite and >= 0"),
        (lambda: TfidfMap(2).fit(np.ones((2, 3)), [0]), r"X has 2 documents but Y has 1 topics"),
        (lambda: TfidfMap(2).fit(-np.ones((2, 3)), [0, 1]), r"must be non-negative"),
        (lambda: TfidfMap(2).fit(np.ones((2, 3)), [0, 2]), r"Y\[1\] must be an integer in 0..1"),
        (lambda: TfidfMap(2)(np.ones(3), 0), r"not fitted yet; call fit"),
        (lambda: CallableMap(3, 2), r"psi must be callable"),
        (lambda: CallableMap(lambda x, y: np.ones(y + 1), 2).matrix(np.ones(2)),
         r"psi\(x, y\) must return non-empty 1-D arrays of one length"),
        (lambda: MultivectorMap(3)(np.ones(2), 3), r"y must be an integer in 0..2"),
        (lambda: JointScoring(MultivectorMap(2)).split([np.ones((2, 2))]),
         r"X\[0\]: x must be a non-empty 1-D feature vector"),
        (lambda: JointScoring(MultivectorMap(2)).kernel_scores(None, [], [], np.ones(2)),
         r"kernels are not supported"),
    ],
)
def test_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_tfidf_rejects_wrong_vocabulary():
    tfidf, _, _ = _tfidf()
    with pytest.raises(ValueError, match=r"the 8 words the map was fitted on; got 3"):
        Predtron(JointMulticlass(tfidf)).fit(np.ones((2, 3)), [0, 1])
