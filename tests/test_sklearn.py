"""The scikit-learn layer: model selection, pipelines, cloning, options (check_estimator: test_check_estimator.py)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import predtron.learners as learners_module
from predtron import KernelPredtron, Predtron, PredtronLD, PredtronLink
from predtron.baselines import MMP, PRank
from predtron.data import make_noisy
from predtron.links import PNormLink
from predtron.pa import CalibratedPA, PairedPA
from predtron.problems import Multiclass, Multilabel, SubsetRanking
from predtron.sklearn import (
    PredtronClassifier,
    PredtronMultilabelClassifier,
    PredtronOrdinalClassifier,
    PredtronRanker,
)


def _ranking_data(n_queries=40, seed=0):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(6)
    sizes = rng.integers(3, 9, n_queries)
    X = rng.standard_normal((sizes.sum(), 6))
    y = np.digitize(X @ w + 0.3 * rng.standard_normal(len(X)), [-0.5, 0.8])
    qid = np.repeat(np.arange(n_queries), sizes)
    return X, y, qid


def test_ranker_cross_validates_by_query_with_metadata_routing():
    X, y, qid = _ranking_data()
    with sklearn.config_context(enable_metadata_routing=True):
        ranker = PredtronRanker(random_state=0).set_fit_request(qid=True).set_score_request(qid=True)
        scores = cross_val_score(ranker, X, y, cv=GroupKFold(4), params={"qid": qid, "groups": qid})
    assert scores.shape == (4,) and np.all((scores > 0.5) & (scores <= 1.0))
    random = PredtronRanker(epochs=1, tol=None, eta=1.0).fit(X[:10], y[:10], qid=qid[:10])
    assert ranker.fit(X, y, qid=qid).score(X, y, qid=qid) > random.score(X, y, qid=qid)


def test_ranker_score_is_mean_ndcg_and_predict_is_one_score_per_row():
    X, y, qid = _ranking_data(seed=1)
    ranker = PredtronRanker(random_state=0).fit(X, y, qid=qid)
    scores = ranker.predict(X)
    assert scores.shape == (len(X),)
    perfect = PredtronRanker(k=3)
    perfect.fit(X, y, qid=qid)
    # a ranker that sorts every query by its true grades has NDCG 1
    perfect.learner_.coef_[:] = 0.0
    assert 0.0 <= ranker.score(X, y, qid=qid) <= 1.0
    with pytest.raises(ValueError, match="exactly one of qid"):
        ranker.score(X, y)


def test_grid_search_picks_the_best_step_size_because_score_is_higher_is_better():
    X, Y = make_noisy(Multiclass(3), 120, 5, noise=0.5, seed=0)
    search = GridSearchCV(PredtronClassifier(random_state=0, epochs=5), {"eta": [1e-4, 1.0]}, cv=3).fit(X, Y)
    means = search.cv_results_["mean_test_score"]
    assert search.best_index_ == int(np.argmax(means))
    assert search.best_score_ == pytest.approx(means.max())
    core = GridSearchCV(Predtron(Multiclass(3)), {"eta": [0.1, 1.0], "average": [False, True]}, cv=3).fit(X, Y)
    assert core.best_score_ <= 0  # the core learners' score is the negative mean loss


def test_pipeline_and_clone_on_core_learners():
    X, Y = make_noisy(Multilabel(4), 150, 6, noise=0.5, seed=1)
    pipe = make_pipeline(StandardScaler(), Predtron(Multilabel(4), average=True, shuffle=True, random_state=0))
    assert -0.5 < cross_val_score(pipe, X, np.asarray(Y), cv=3).mean() <= 0


@pytest.mark.parametrize("learner", [
    Predtron(Multiclass(3)), PredtronLD(Multiclass(3)), PredtronLink(Multiclass(3), link=PNormLink(1.5)),
    KernelPredtron(Multiclass(3), kernel="rbf", kernel_params={"gamma": 0.5}), PRank(3), MMP(3),
    PairedPA(), CalibratedPA(3),
], ids=lambda v: type(v).__name__)
def test_clone_and_nested_set_params_on_every_learner(learner):
    copy = clone(learner)
    assert type(copy) is type(learner) and copy.get_params(deep=False).keys() == learner.get_params(deep=False).keys()
    params = learner.get_params(deep=True)
    if "problem__n_classes" in params:
        copy.set_params(problem__n_classes=4)
        assert copy.problem.n_classes == 4 and copy.problem.loss_matrix().shape == (4, 4)
        assert learner.problem.n_classes == 3  # the clone owns its own problem
    if "link__r" in params:
        copy.set_params(link__r=1.8)
        assert copy.link.exponent((3, 4)) == 1.8
    with pytest.raises(ValueError, match="Invalid parameter"):
        copy.set_params(not_a_parameter=1)


def test_every_exported_learner_is_cloned_in_the_test_above():
    exported = {name for name in learners_module.__all__ if name.startswith("Predtron") or name == "KernelPredtron"}
    assert exported <= {"Predtron", "PredtronLD", "PredtronLink", "KernelPredtron"}


def test_problem_set_params_validates_and_keeps_the_old_state_on_error():
    problem = Multiclass(3)
    with pytest.raises(ValueError, match="n_classes must be an integer >= 2"):
        problem.set_params(n_classes=1)
    assert problem.n_classes == 3 and problem.loss_matrix().shape == (3, 3)
    ranking = SubsetRanking()
    ranking.set_params(f="inverse", k=5)
    assert ranking.get_params()["k"] == 5 and ranking.f == "inverse"


def test_dense_and_sparse_inputs_give_the_same_predictions():
    """Without standardization (which centres dense input but cannot centre sparse input without
    densifying it) the same data, dense or CSR, give the same model."""
    X, Y = make_noisy(Multiclass(4), 200, 8, noise=0.5, seed=2)
    X = np.where(np.abs(X) > 0.6, X, 0.0)
    for est in (PredtronClassifier(random_state=0, standardize=False),
                PredtronMultilabelClassifier(random_state=0, standardize=False)):
        target = Y if isinstance(est, PredtronClassifier) else (np.eye(4)[Y] > 0).astype(int)
        dense = clone(est).fit(X, target)
        sparse = clone(est).fit(sp.csr_matrix(X), target)
        np.testing.assert_array_equal(dense.predict(X), sparse.predict(sp.csr_matrix(X)))


def test_classifier_labels_of_any_values_and_costs():
    X, Y = make_noisy(Multiclass(3), 150, 5, noise=0.3, seed=3)
    names = np.array(["low", "mid", "high"])[Y]
    clf = PredtronClassifier(random_state=0).fit(X, names)
    assert set(clf.predict(X)) <= {"low", "mid", "high"} and list(clf.classes_) == ["high", "low", "mid"]
    costs = [[0, 1, 5], [1, 0, 1], [5, 1, 0]]
    costly = PredtronClassifier(random_state=0, cost_matrix=costs).fit(X, names)
    assert -5 <= costly.score(X, names) <= 0  # negative mean cost


def test_reject_option_abstains_where_the_classifier_is_unsure():
    X, y = make_noisy(Multiclass(2), 300, 5, noise=1.5, seed=4)
    y = np.asarray(y)
    plain = PredtronClassifier(random_state=0).fit(X, y)
    reject = PredtronClassifier(random_state=0, reject_cost=0.2, reject_label="?").fit(X, y)
    pred = reject.predict(X)
    abstained = pred == "?"
    assert 0 < abstained.sum() < len(y)
    assert np.mean(pred[~abstained].astype(int) != y[~abstained]) < np.mean(plain.predict(X) != y)
    assert reject.score(X, y) >= -np.mean(plain.predict(X) != y)  # abstaining pays on the training data
    with pytest.raises(ValueError, match="reject_cost must be in"):
        PredtronClassifier(reject_cost=1.5).fit(X, y)


def test_ordinal_classifier_returns_the_given_levels():
    X, Y = make_noisy(Multiclass(4), 200, 5, noise=0.3, seed=5)
    stars = np.array([1, 2, 3, 5])[Y]
    model = PredtronOrdinalClassifier(random_state=0).fit(X, stars)
    assert set(np.unique(model.predict(X))) <= {1, 2, 3, 5}
    assert model.score(X, stars) <= 0


def test_a_score_on_unseen_levels_or_labels_names_only_those_and_the_fitted_ones():
    X = np.arange(8.0).reshape(-1, 1)
    ordinal = PredtronOrdinalClassifier(epochs=2).fit(X, [0, 1, 2, 0, 1, 2, 0, 1])
    with pytest.raises(ValueError) as info:
        ordinal.score(X[:2], [9, 0])
    assert str(info.value) == "y holds 1 level not seen in fit: [9]; the levels seen in fit are [0, 1, 2]"
    with pytest.raises(ValueError, match=r"^y holds 40 levels not seen in fit: \[3, 4, 5, .*\.\.\.; the levels "
                                         r"seen in fit are \[0, 1, 2\]$") as info:
        ordinal.score(np.zeros((41, 1)), [*range(3, 43), 0])
    assert len(str(info.value)) < 160
    costs = 1.0 - np.eye(3)
    classifier = PredtronClassifier(epochs=2, cost_matrix=costs).fit(X, [0, 1, 2, 0, 1, 2, 0, 1])
    with pytest.raises(ValueError) as info:
        classifier.score(X[:3], [7, 1, 7])
    assert str(info.value) == "y holds 1 label not seen in fit: [7]; the labels seen in fit are [0, 1, 2]"


def test_early_stopping_and_eta_auto_are_recorded():
    X, Y = make_noisy(Multiclass(3), 200, 5, noise=0.2, seed=6)
    model = PredtronClassifier(random_state=0).fit(X, Y)
    assert 1 <= model.n_iter_ <= 50 and model.eta_ > 0
    fixed = PredtronClassifier(random_state=0, tol=None, epochs=7, eta=0.5).fit(X, Y)
    assert fixed.n_iter_ == 7 and fixed.eta_ == 0.5


def test_callback_sees_the_averaged_predictor():
    X, Y = make_noisy(Multiclass(3), 120, 5, noise=0.5, seed=7)
    seen = {}
    Predtron(Multiclass(3), average=True).fit(X, Y, epochs=3, callback=lambda m, e: seen.update({e: m.coef_.copy()}))
    for epoch in (1, 2, 3):
        np.testing.assert_allclose(seen[epoch], Predtron(Multiclass(3), average=True).fit(X, Y, epochs=epoch).coef_)


def test_multilabel_auto_step_depends_on_how_many_entries_are_nonzero():
    """With the Hamming loss, ``eta="auto"`` is Theorem 1's joint step times ``2 m`` for sparse
    rows and ``m / q`` (``q`` the label cardinality) for dense ones; the count is of entries, so
    the same 0/1 matrix stored dense or as CSR gets the same step.  Other losses keep the joint step."""
    import scipy.sparse as sp

    from predtron.problems import Multilabel
    from predtron.sklearn import theorem1_step

    rng = np.random.default_rng(0)
    X = (rng.random((40, 6)) < 0.3).astype(float)
    Y = (rng.random((40, 5)) < 0.4).astype(int)
    joint = theorem1_step(Multilabel(5, normalize=True), X, Y, True)
    sparse_rows = PredtronMultilabelClassifier(epochs=1, random_state=0).fit(X, Y)
    assert sparse_rows.eta_ == pytest.approx(2 * 5 * joint, rel=1e-12)
    as_csr = PredtronMultilabelClassifier(epochs=1, random_state=0).fit(sp.csr_matrix(X), Y)
    assert as_csr.eta_ == pytest.approx(sparse_rows.eta_, rel=1e-12)
    assert np.array_equal(as_csr.predict(sp.csr_matrix(X)), sparse_rows.predict(X))
    assert sparse_rows.scaler_.mean is not None and np.all(sparse_rows.scaler_.scale == 1.0)  # 0/1 kept

    dense = rng.normal(size=(40, 6))
    dense_rows = PredtronMultilabelClassifier(epochs=1, random_state=0).fit(dense, Y)
    scaled = dense_rows.scaler_(dense)
    q = Y.sum(axis=1).mean()
    assert dense_rows.eta_ == pytest.approx(5 / q * theorem1_step(Multilabel(5, normalize=True), scaled, Y, True),
                                            rel=1e-12)

    f1 = PredtronMultilabelClassifier(loss="f1", epochs=1, random_state=0).fit(X, Y)
    assert f1.eta_ == pytest.approx(theorem1_step(Multilabel(5, "f1"), X, Y, True), rel=1e-12)
    assert PredtronMultilabelClassifier(eta=0.25, epochs=1).fit(X, Y).eta_ == 0.25


def test_nonzero_fraction_and_the_step_factor_at_the_threshold():
    import scipy.sparse as sp

    from predtron.sklearn.multilabel import _hamming_step_factor, _nonzero_fraction

    half = np.array([[1.0, 0.0], [0.0, 2.0]])
    assert _nonzero_fraction(half) == 0.5 == _nonzero_fraction(sp.csr_matrix(half))
    assert _hamming_step_factor(half, 9, 4.5) == 18.0                  # half non-zero: sparse rows
    assert _hamming_step_factor(np.array([[1.0, 0.0], [3.0, 2.0]]), 9, 4.5) == 2.0
    explicit_zero = sp.csr_matrix((np.array([0.0, 1.0]), np.array([0, 1]), np.array([0, 2])), shape=(1, 2))
    assert _nonzero_fraction(explicit_zero) == 0.5                     # a stored zero is a zero
    assert _nonzero_fraction(np.zeros((0, 3))) == 1.0


def test_multilabel_tol_is_relative_to_the_first_pass():
    """The multilabel estimator's ``tol`` is a fraction of the first pass's loss: scaling the
    loss leaves the passes made unchanged, where an absolute ``tol`` would not."""
    from predtron.learners.stopping import EarlyStopping

    class Learner:
        n_rounds_, cumulative_loss_ = 0, 0.0

    def passes(rule, losses):
        learner = Learner()
        for epoch, loss in enumerate(losses, 1):
            learner.n_rounds_ += 10
            learner.cumulative_loss_ += 10 * loss
            if rule(learner, epoch):
                return epoch
        return len(losses)

    losses = [0.30, 0.20, 0.199, 0.1985, 0.198, 0.1979, 0.1978, 0.1977, 0.15, 0.1]
    for unit in (1.0, 1e-2, 1e-4):
        scaled = [unit * v for v in losses]
        assert passes(EarlyStopping(1e-2, 3, relative=True), scaled) == 5    # 3 passes within 0.003 of 0.199
    assert passes(EarlyStopping(1e-2, 3), losses) == 5
    assert passes(EarlyStopping(1e-2, 3), [1e-4 * v for v in losses]) == 4  # absolute: nothing counts
    rule = EarlyStopping(1e-2, 3, relative=True)
    passes(rule, losses[:2])
    again = EarlyStopping(1e-2, 3, relative=True).restore(rule.state())
    assert again.scale == rule.scale == pytest.approx(0.30) and again.state() == rule.state()
    assert PredtronMultilabelClassifier()._stopper().relative
    assert not PredtronClassifier()._stopper().relative


def test_the_layout_of_X_changes_no_bit():
    """A column-major X (what a pandas frame gives) fits the same model as the row-major one:
    the standardisation sums its statistics the same way for both."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 7)) * rng.uniform(0.5, 4.0, size=7) + rng.normal(size=7)
    y = (X @ rng.normal(size=(7, 3))).argmax(axis=1)
    a = PredtronClassifier(random_state=0, epochs=3).fit(np.ascontiguousarray(X), y)
    b = PredtronClassifier(random_state=0, epochs=3).fit(np.asfortranarray(X), y)
    assert np.array_equal(a.scaler_.mean, b.scaler_.mean) and np.array_equal(a.scaler_.scale, b.scaler_.scale)
    assert np.array_equal(a.learner_.coef_, b.learner_.coef_)


# ------------------------------------------------------------------ coef_ and intercept_
def _linear_cases():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((80, 5)) * [1.0, 10.0, 0.1, 3.0, 1.0] + [0.0, 5.0, -2.0, 0.0, 1.0]
    X[:, 4] = rng.integers(0, 2, 80)  # a 0/1 feature, left unscaled
    two = (X[:, 0] + 0.1 * X[:, 1] > 0.5).astype(int)
    three = np.digitize(X[:, 0] - 0.3 * X[:, 3], [-1.0, 1.0])
    labels = np.c_[two, X[:, 2] > -2.0, three == 1]
    return X, [
        (PredtronClassifier, {}, two, (1,)),
        (PredtronClassifier, {}, three, (3,)),
        (PredtronClassifier, {"cost_matrix": [[0, 1], [2, 0]]}, two, (2,)),
        (PredtronMultilabelClassifier, {}, labels.astype(int), (3,)),
        (PredtronOrdinalClassifier, {}, three, (3,)),
        (PredtronOrdinalClassifier, {}, two, (1,)),
    ]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("options", [{}, {"average": False}, {"standardize": False}, {"fit_intercept": False}],
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_coef_and_intercept_reproduce_decision_function_in_the_original_features(options, sparse):
    X, cases = _linear_cases()
    Xf = sp.csr_matrix(X) if sparse else X
    for cls, own, y, rows in cases:
        model = cls(random_state=0, epochs=5, **own, **options).fit(Xf, y)
        coef, intercept = model.coef_, model.intercept_
        assert coef.shape == (*rows, X.shape[1]) and intercept.shape == rows
        decision = model.decision_function(Xf)
        linear = X @ coef.T + intercept
        np.testing.assert_allclose(linear.ravel() if decision.ndim == 1 else linear, decision, rtol=1e-10, atol=1e-10)
        if options.get("fit_intercept") is False and (sparse or options.get("standardize") is False):
            assert not np.any(intercept)


@pytest.mark.parametrize("standardize", [True, False])
def test_ranker_coef_reproduces_its_scores(standardize):
    X, y, qid = _ranking_data(seed=2)
    X = X * [1, 5, 0.2, 1, 1, 3] + 2.0
    ranker = PredtronRanker(random_state=0, epochs=3, standardize=standardize).fit(X, y, qid=qid)
    assert ranker.coef_.shape == (X.shape[1],) and isinstance(ranker.intercept_, float)
    np.testing.assert_allclose(X @ ranker.coef_ + ranker.intercept_, ranker.predict(X), rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(ranker.decision_function(X), ranker.predict(X))
    if not standardize:
        assert ranker.intercept_ == 0.0


def test_coef_is_the_averaged_iterate_and_unfitted_estimators_have_none():
    X, cases = _linear_cases()
    _, _, y, _ = cases[1]
    model = PredtronClassifier(random_state=0, epochs=3, standardize=False).fit(X, y)
    np.testing.assert_array_equal(model.coef_, model.learner_.coef_)
    last = model.learner_._w[:, :-1]
    assert not np.allclose(model.coef_, last)  # the average, not the last iterate
    for cls in (PredtronClassifier, PredtronMultilabelClassifier, PredtronOrdinalClassifier, PredtronRanker):
        assert not hasattr(cls(), "coef_") and not hasattr(cls(), "intercept_")


def test_every_estimator_documents_decision_function_and_coef():
    for cls in (PredtronClassifier, PredtronMultilabelClassifier, PredtronOrdinalClassifier, PredtronRanker):
        assert "coef_" in cls.__doc__ and "intercept_" in cls.__doc__
        assert "X @ coef_" in cls.decision_function.__doc__


# ------------------------------------------------------------------ the silent cases, refused
def test_multilabel_classifier_refuses_a_one_dimensional_y():
    X, cases = _linear_cases()
    y = cases[1][2]
    for call in (lambda m: m.fit(X, y), lambda m: m.partial_fit(X, y, classes=[0, 1, 2])):
        with pytest.raises(ValueError, match=r"y must be a 2-D 0/1 indicator matrix of shape \(n_samples, n_labels\)"
                                             r".*got a 1-D array of shape \(80,\).*PredtronClassifier"):
            call(PredtronMultilabelClassifier())
    with pytest.raises(ValueError, match="Y must be a 0/1 indicator matrix"):
        PredtronMultilabelClassifier().fit(X, y.reshape(-1, 1))
    one = PredtronMultilabelClassifier(random_state=0, epochs=2).fit(X, (y == 1).reshape(-1, 1).astype(int))
    assert one.n_labels_ == 1 and one.predict(X).shape == (80, 1)


def test_ranker_refuses_a_query_split_across_partial_fit_calls():
    X, y, qid = _ranking_data(n_queries=6, seed=3)
    cut = int(np.flatnonzero(qid == 2)[1])  # inside query 2
    ranker = PredtronRanker(eta=1.0, standardize=False).partial_fit(X[:cut], y[:cut], qid=qid[:cut])
    with pytest.raises(ValueError, match=r"qid: the first query of this partial_fit call \(2\) continues the last "
                                         r"query of the previous call"):
        ranker.partial_fit(X[cut:], y[cut:], qid=qid[cut:])
    # cut at a query boundary: accepted, and the same model as one call
    edge = int(np.flatnonzero(qid == 3)[0])
    whole = PredtronRanker(eta=1.0, standardize=False, random_state=0).partial_fit(X, y, qid=qid)
    parts = PredtronRanker(eta=1.0, standardize=False, random_state=0).partial_fit(X[:edge], y[:edge], qid=qid[:edge])
    parts.partial_fit(X[edge:], y[edge:], qid=qid[edge:])
    np.testing.assert_array_equal(parts.coef_, whole.coef_)
    # the same query whole in two calls in a row is passed with group=
    rows = qid == 0
    again = PredtronRanker(eta=1.0).partial_fit(X[rows], y[rows], qid=qid[rows])
    again.partial_fit(X[rows], y[rows], group=[int(rows.sum())])


@pytest.mark.parametrize("core", [False, True], ids=["estimator", "core"])
@pytest.mark.parametrize("layout", [sp.csr_matrix, sp.csc_matrix, sp.coo_array])
def test_multilabel_fits_a_sparse_indicator_matrix_as_its_dense_twin(layout, core):
    """A sparse 0/1 indicator ``Y`` (what ``MultiLabelBinarizer(sparse_output=True)`` gives, and
    what ``score`` already took) is fitted as the same matrix dense, bit for bit; ``fit`` and
    ``partial_fit`` refused it with scikit-learn's "Unknown label type: unknown" (the estimator)
    or an ``IndexError`` (the core)."""
    from predtron._models.multilabel import MultilabelCore
    cls = MultilabelCore if core else PredtronMultilabelClassifier
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    Y = (X[:, :3] + 0.3 * rng.standard_normal((60, 3)) > 0).astype(int)
    sparse, dense = cls(random_state=0).fit(X, layout(Y)), cls(random_state=0).fit(X, Y)
    assert np.array_equal(sparse.coef_, dense.coef_) and np.array_equal(sparse.intercept_, dense.intercept_)
    streamed = cls().partial_fit(X[:30], layout(Y[:30])).partial_fit(X[30:], layout(Y[30:]))
    assert np.array_equal(streamed.coef_, cls().partial_fit(X[:30], Y[:30]).partial_fit(X[30:], Y[30:]).coef_)
    assert sparse.score(X, layout(Y)) == dense.score(X, Y)


@pytest.mark.parametrize("label", [np.array([7, 8]), [7, 8], (7,), {"a": 1}, b"unsure"],
                         ids=["array", "list", "tuple", "dict", "bytes"])
def test_reject_label_must_be_one_label(label):
    """``reject_label`` is what ``predict`` returns for an abstention: an array of two made ``fit``
    fail with NumPy's "operands could not be broadcast together", naming nothing; a list or a tuple
    was compared element-wise with the classes."""
    X = np.random.default_rng(0).standard_normal((40, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="reject_label must be one label, a number or a string"):
        PredtronClassifier(reject_cost=0.3, reject_label=label).fit(X, y)
    model = PredtronClassifier(reject_cost=0.3, reject_label=np.str_("unsure"), random_state=0).fit(X, y)
    assert model.predict(X).shape == (40,)


def _cores():
    from predtron._models.classifier import ClassifierCore
    from predtron._models.multilabel import MultilabelCore
    from predtron._models.ordinal import OrdinalCore
    from predtron._models.ranker import RankerCore
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    qid = {"qid": np.repeat(np.arange(12), 5)}
    return X, [(ClassifierCore, y, {}), (ClassifierCore(cost_matrix=1 - np.eye(3)), y, {}),
               (MultilabelCore, (X[:, :3] > 0).astype(int), {}), (OrdinalCore, y, {}), (RankerCore, y, qid)]


@pytest.mark.parametrize("case", range(5))
def test_the_cores_refuse_no_features_and_a_score_of_mismatched_labels_naming_them(case):
    """The estimators' cores (what the command line runs, without scikit-learn's validation) gave
    NumPy's errors: "cannot reshape array of size 0 into shape (0)" for ``X`` without a column,
    "operands could not be broadcast together" for ``score`` with fewer labels than rows."""
    X, cases = _cores()
    make, y, queries = cases[case]
    fresh = (lambda: clone(make)) if not isinstance(make, type) else make
    with pytest.raises(ValueError, match=r"X must have at least one feature \(column\); got shape \(60, 0\)"):
        fresh().fit(np.zeros((60, 0)), y, **queries)
    model = fresh().fit(X, y, **queries)
    with pytest.raises(ValueError, match="X and y must have the same number of examples; got 60 inputs and 5 labels"):
        model.score(X, y[:5], **queries)
    assert np.isfinite(model.score(X, y, **queries))


def test_a_refit_without_abstention_drops_the_threshold_of_the_fit_before():
    """``fit`` starts from scratch, so a model refitted after ``set_params(reject_cost=None)`` kept a
    stale ``threshold_`` of the earlier fit (scikit-learn's rule: the fitted attributes are those of
    the last fit)."""
    X = np.random.default_rng(0).standard_normal((40, 3))
    y = (X[:, 0] > 0).astype(int)
    model = PredtronClassifier(reject_cost=0.3, random_state=0).fit(X, y)
    assert hasattr(model, "threshold_")
    model.set_params(reject_cost=None).fit(X, y)
    assert not hasattr(model, "threshold_")


@pytest.mark.parametrize("classes, label", [(np.array([0, 1]), 0.5), (np.array(["no", "yes"]), "unsure"),
                                            (np.array(["no", "yes"]), -1), (np.array([2, 5]), -1)],
                         ids=["int-float", "str-str", "str-int", "int-int"])
def test_predict_with_abstention_has_one_dtype_whether_or_not_a_row_abstains(classes, label):
    """With ``reject_cost`` the dtype of ``predict`` depended on the rows given: the classes' dtype
    when none abstained, that of the classes and ``reject_label`` together (or object) when one
    did, so that two batches of the same model predicted arrays of different dtypes."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    model = PredtronClassifier(reject_cost=0.45, reject_label=label, random_state=0).fit(X, classes[(X[:, 0] > 0) * 1])
    answers = model.predict(X)
    sure = X[answers != label][:3]
    assert np.any(answers == label) and not np.any(model.predict(sure) == label)
    assert model.predict(sure).dtype == answers.dtype


def test_early_stopping_ends_after_passes_without_loss():
    """A loss is never negative, so once a pass has no loss no later pass improves.  The multilabel
    estimator's relative ``tol`` is ``tol`` times the first pass's loss: with a first pass without
    loss (every label always on, which the initial scores already predict) the required improvement
    was 0, every pass without loss counted as one, and the fit made all ``epochs`` passes; so did
    any estimator with ``tol=0``."""
    from predtron.learners.stopping import EarlyStopping
    X = np.random.default_rng(0).standard_normal((60, 4))
    on = PredtronMultilabelClassifier(random_state=0).fit(X, np.ones((60, 3), dtype=int))
    assert on.n_iter_ == 1 + on.n_iter_no_change
    for relative in (False, True):
        rule = EarlyStopping(0.0, 3, relative=relative)
        assert [rule.update(10 * k, 5.0) for k in range(1, 6)] == [False, False, False, False, True]  # loss, 0, 0, 0, 0
    rule = EarlyStopping(0.0, 3)  # with loss: an equal pass is no improvement only when the best is 0
    assert not any(rule.update(10 * k, 1.0 * k) for k in range(1, 10))


def test_the_multilabel_core_names_a_target_of_the_wrong_shape():
    """The core (what the command line runs) called a 3-D target "a 1-D array of shape (60, 2, 2)"
    and refused one without columns with "n_labels must be an integer >= 1" (a parameter the
    caller never gave)."""
    from predtron._models.multilabel import MultilabelCore
    X = np.random.default_rng(0).standard_normal((60, 4))
    with pytest.raises(ValueError, match=r"got a 3-D array of shape \(60, 2, 2\)"):
        MultilabelCore().fit(X, np.zeros((60, 2, 2), dtype=int))
    with pytest.raises(ValueError, match=r"y must have at least one label column; got shape \(60, 0\)"):
        MultilabelCore().fit(X, np.zeros((60, 0), dtype=int))


@pytest.mark.parametrize("loss_driven", [False, True])
@pytest.mark.parametrize("update", ["oracle", "prediction"])
def test_the_paper_settings_run_algorithm_1_as_the_learner_does(update, loss_driven):
    """The README's promise: with ``average=False, shuffle=False, fit_intercept=False,
    standardize=False, epochs=1`` (and a numeric ``eta``) every estimator is the generic learner of
    :mod:`predtron.learners` on its problem, bit for bit."""
    from predtron import Predtron, PredtronLD
    from predtron.problems import Binary, Ordinal
    rng = np.random.default_rng(1)
    X = rng.standard_normal((80, 5))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    Y = (X[:, :3] > 0).astype(int)
    qid = np.repeat(np.arange(16), 5)
    cls = PredtronLD if loss_driven else Predtron
    paper = dict(average=False, shuffle=False, standardize=False, epochs=1, tol=None, eta=0.7, update=update,
                 loss_driven=loss_driven)
    learner = lambda problem: cls(problem, eta=0.7, update=update)  # noqa: E731
    pairs = [
        (PredtronClassifier(fit_intercept=False, **paper).fit(X, y > 0),
         learner(Binary()).fit(X, np.where(y > 0, 1, -1))),
        (PredtronClassifier(fit_intercept=False, **paper).fit(X, y), learner(Multiclass(3)).fit(X, y)),
        (PredtronOrdinalClassifier(fit_intercept=False, **paper).fit(X, y).learner_, learner(Ordinal(3)).fit(X, y)),
        (PredtronMultilabelClassifier(fit_intercept=False, loss="subset", **paper).fit(X, Y),
         learner(Multilabel(3, "subset")).fit(X, Y)),
        (PredtronRanker(**paper).fit(X, y, qid=qid), learner(SubsetRanking(f="discount")).fit(X, y, qid=qid)),
    ]
    for estimator, reference in pairs:
        np.testing.assert_array_equal(estimator.coef_, reference.coef_)


def test_a_cost_matrix_set_after_fit_takes_effect_at_the_next_fit():
    """The classifier read ``cost_matrix`` at prediction time to decide whether its model was binary:
    after ``set_params(cost_matrix=...)`` on a fitted two-class model (one score column), ``predict``
    decoded the binary scores as class indices and answered ``classes_[1]`` for every row, and
    ``decision_function`` changed shape.  Predictions now come from the fitted model; the next fit
    uses the cost matrix."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    y = np.where(X[:, 0] > 0, "yes", "no")
    model = PredtronClassifier(random_state=0).fit(X, y)
    before, scores = model.predict(X), model.decision_function(X)
    model.set_params(cost_matrix=[[0, 1], [5, 0]])
    np.testing.assert_array_equal(model.predict(X), before)
    np.testing.assert_array_equal(model.decision_function(X), scores)
    model.fit(X, y)
    assert model.decision_function(X).shape == (60, 2)
    model.set_params(cost_matrix=None).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), before)


def test_an_ordered_categorical_whose_order_is_not_sorted_is_refused_by_the_ordinal_classifier():
    # The levels are the sorted labels: an ordered Categorical low < medium < high was learned as
    # high < low < medium (another problem), silently; now it is refused, naming both orders.
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 2))
    names = np.array(["low", "medium", "high"])[np.digitize(X[:, 0], [-0.5, 0.5])]
    ordered = pd.Categorical(names, categories=["low", "medium", "high"], ordered=True)
    model = PredtronOrdinalClassifier(random_state=0, epochs=3)
    for y in (ordered, pd.Series(ordered, index=np.arange(100, 160))):
        with pytest.raises(ValueError, match=r"y is an ordered pandas Categorical whose levels run "
                                             r"\['low', 'medium', 'high'\].*sorting the labels \(\['high', 'low', "
                                             r"'medium'\].*codes"):
            model.fit(X, y)
        with pytest.raises(ValueError, match="y is an ordered pandas Categorical"):
            clone(model).partial_fit(X, y, classes=["high", "low", "medium"])
    with pytest.raises(ValueError, match="classes is an ordered pandas Categorical"):
        clone(model).partial_fit(X, names, classes=pd.Categorical(["low", "medium", "high"], ordered=True,
                                                                   categories=["low", "medium", "high"]))
    # An order that is the sorted one, an unordered categorical and the codes are taken as before.
    sorted_order = pd.Categorical(names, categories=["high", "low", "medium"], ordered=True)
    assert clone(model).fit(X, sorted_order).classes_.tolist() == ["high", "low", "medium"]
    assert clone(model).fit(X, pd.Categorical(names)).classes_.tolist() == ["high", "low", "medium"]
    codes = clone(model).fit(X, ordered.codes)
    assert codes.classes_.tolist() == [0, 1, 2] and codes.score(X, ordered.codes) > -0.5


def test_score_checks_a_cost_matrix_set_after_the_fit_against_the_fitted_classes():
    # score indexed set_params' cost_matrix by the fitted classes unchecked: a NumPy IndexError for a
    # smaller matrix, a NaN score for a NaN entry, and a silent score from the corner of a larger one.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    levels, binary = np.digitize(X[:, 0], [-1, 0, 1]), (X[:, 0] > 0).astype(int)
    four = PredtronClassifier(random_state=0, epochs=3).fit(X, levels)
    two = PredtronClassifier(random_state=0, epochs=3).fit(X, binary)
    cases = [
        (four, levels, [[0, 1], [1, 0]], r"cost_matrix must be \(4, 4\) for the 4 classes of the fit \(classes_\); "
                                         r"got shape \(2, 2\)"),
        (two, binary, 1 - np.eye(3), r"cost_matrix must be \(2, 2\) for the 2 classes of the fit \(classes_\); "
                                     r"got shape \(3, 3\)"),
        (four, levels, np.where(np.eye(4) > 0, 0.0, np.nan), "cost_matrix must contain only finite values"),
        (four, levels, "abc", "cost_matrix must be an array of real numbers"),
        (four, levels, np.eye(4) - 1, "cost_matrix must be non-negative"),
    ]
    for model, y, matrix, message in cases:
        with pytest.raises(ValueError, match=message):
            clone(model).fit(X, y).set_params(cost_matrix=matrix).score(X, y)
    # A valid matrix of the fitted classes scores the fitted model with it (as before).
    assert four.set_params(cost_matrix=1 - np.eye(4)).score(X, levels) == pytest.approx(
        four.set_params(cost_matrix=None).score(X, levels) - 1)


def test_predictions_check_an_abstention_cost_or_label_set_after_the_fit():
    # predict and score read reject_cost and reject_label unchecked after a fit: a cost of 5 scored
    # abstentions at 5, a label that is a class made abstentions read as that class, a list or a
    # cost that is not a number raised NumPy's own errors.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = (X[:, 0] > 0).astype(int)
    model = PredtronClassifier(reject_cost=0.3, random_state=0, epochs=3).fit(X, y)
    cases = [
        ({"reject_cost": 5}, r"reject_cost must be in \(0, 1\).*got 5"),
        ({"reject_cost": "x"}, "reject_cost must be a real number; got 'x'"),
        ({"reject_label": 1}, "reject_label must differ from every class; 1 is a class of y"),
        ({"reject_label": [1, 2]}, r"reject_label must be one label.*got list: \[1, 2\]"),
        ({"reject_label": np.nan}, "reject_label must be a finite number or a string"),
    ]
    for params, message in cases:
        changed = copy.deepcopy(model).set_params(**params)
        for call in (lambda m: m.predict(X), lambda m: m.score(X, y)):
            with pytest.raises(ValueError, match=message):
                call(changed)
    # A valid label or cost set after the fit is used with the fitted threshold (as before).
    relabelled = copy.deepcopy(model).set_params(reject_label="unsure").predict(X)
    assert np.array_equal(relabelled == "unsure", model.predict(X) == -1)


def test_the_multilabel_classifier_refuses_label_sets_naming_the_indicator_matrix_it_takes():
    # Label sets ([[0, 2], [1]], or sets) were refused with the class labels' message, "y must hold
    # finite numbers or strings as classes": the wrong expectation for a multilabel target.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((3, 2))
    model = PredtronMultilabelClassifier(random_state=0, epochs=2)
    for y, found in (([[0, 2], [1], [2]], "rows of different lengths"), ([{0, 2}, {1}, {2}], "sets"),
                     (np.array([[0, 2], [1], [2]], dtype=object), "rows of different lengths")):
        for fit in (model.fit, model.partial_fit):
            with pytest.raises(ValueError, match=rf"y must be a 2-D 0/1 indicator matrix .*got label sets \({found}: "
                                                 r".*MultiLabelBinarizer\(\)\.fit_transform\(y\)"):
                fit(X, y)
    # An indicator matrix given as a list of equal rows is taken as before.
    assert model.fit(X, [[0, 1], [1, 0], [1, 1]]).n_labels_ == 2


def test_a_nan_in_a_sparse_x_is_named_by_its_row_and_column():
    # A NaN stored in a sparse X was reported "first at index 5", its place among the stored values,
    # which names no entry of X; a dense X names (row, column).
    X = np.zeros((4, 3))
    X[0, 0], X[1, 2], X[2, 1], X[3, 2] = 1.0, 2.0, np.nan, np.inf
    for matrix in (X, sp.csr_matrix(X), sp.csc_matrix(X), sp.coo_array(X)):
        with pytest.raises(ValueError, match=r"X must contain only finite values; found 2 NaN or infinite "
                                             r"\(first at index \(2, 1\)\)"):
            PredtronClassifier().fit(matrix, [0, 1, 0, 1])


def test_a_complex_sparse_x_is_refused_showing_its_values():
    # A complex sparse X was refused as "got complex values (array of shape (0,) and dtype complex128: [])",
    # an empty array that is not what came.
    X = sp.csr_matrix(np.array([[1 + 2j, 0], [0, 3 + 0j]]))
    with pytest.raises(ValueError, match=r"X must hold real numbers \(Complex data not supported\); got a sparse "
                                         r"csr matrix of shape \(2, 2\) with complex values \(stored: .*1\.\+2\.j"):
        PredtronClassifier().fit(X, [0, 1])


@pytest.mark.parametrize("make, y", [
    (lambda: PredtronClassifier(random_state=0, epochs=2), lambda X: (X[:, 0] > 0).astype(int)),
    (lambda: PredtronOrdinalClassifier(random_state=0, epochs=2), lambda X: np.digitize(X[:, 0], [-1, 0, 1])),
    (lambda: PredtronMultilabelClassifier(random_state=0, epochs=2), lambda X: (X > 0).astype(int)),
])
def test_partial_fit_continues_the_fitted_intercept_after_set_params(make, y):
    # partial_fit continues the fitted learner with its own parameters (average, eta_, update...),
    # but built its inputs from the estimator's fit_intercept: set to False after a fit, the learner
    # kept predicting with its intercept and stopped updating it, a model of neither setting.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    target = y(X)
    kept = make().fit(X, target).partial_fit(X, target)
    changed = make().fit(X, target)
    changed.set_params(fit_intercept=False).partial_fit(X, target)
    assert np.array_equal(changed.decision_function(X), kept.decision_function(X))
    assert np.array_equal(changed.intercept_, kept.intercept_)
    # The next fit takes the new setting.
    assert changed.fit(X, target).learner_.fit_intercept is False


def test_k_and_beta_of_the_multilabel_classifier_are_checked_whatever_the_loss():
    # k and beta had no checker: a k or beta that is not a number was kept silently by a fit whose loss
    # does not read it (and surfaced, or not, at a later set_params(loss=...)).
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3))
    Y = (X > 0).astype(int)
    for params, message in (({"k": "zz"}, "k must be an integer >= 1; got 'zz'"),
                            ({"k": 0}, "k must be an integer >= 1; got 0"),
                            ({"beta": "zz"}, "beta must be a real number; got 'zz'"),
                            ({"beta": -1.0}, r"beta must be finite and > 0; got -1\.0")):
        for loss in ("hamming", "f1"):
            model = PredtronMultilabelClassifier(loss=loss, epochs=2, **params)
            for call in (lambda m: m.fit(X, Y), lambda m: m.partial_fit(X, Y)):
                with pytest.raises(ValueError, match=message):
                    call(clone(model))
    # Valid values a loss does not read are accepted, as before.
    assert PredtronMultilabelClassifier(loss="hamming", k=2, beta=0.5, epochs=2).fit(X, Y).n_labels_ == 3


def test_a_relevance_grade_refused_by_the_ranker_is_shown_as_the_number_it_is():
    # The refused grade was shown as its NumPy repr, "got np.float64(1.5)", "got np.int64(-1)": the value
    # the user gave is 1.5 or -1.
    X = np.arange(8.0).reshape(4, 2)
    ranker = PredtronRanker(epochs=2)
    for y, message in (([0, 1.5, 1, 0], r"must contain integer relevance grades; got 1\.5$"),
                       ([0, -1, 1, 0], "must contain relevance grades >= 0; got -1$")):
        with pytest.raises(ValueError, match=message):
            ranker.fit(X, y, group=[2, 2])


@pytest.mark.parametrize("y", [[0, 1, 2, 0, 1, "a"], ["0", "1", "2", "0", "1", "2"], [0, 1, 2, 0, 1, np.nan],
                               [0, 1, 2, 0, 1, np.inf]], ids=["mixed", "text", "nan", "inf"])
def test_the_ranker_refuses_what_is_no_relevance_grade_as_such(y):
    """A ranker's ``y`` holds relevance grades: text, or a mix of text and numbers, is refused as not
    grades (the message spoke of classes, "numbers or strings as classes"), and a NaN or an infinite
    grade is shown."""
    X = np.random.default_rng(0).normal(size=(6, 3))
    expected = r"y must hold relevance grades \(finite numbers, one per row of X\); got"
    with pytest.raises(ValueError, match=expected) as info:
        PredtronRanker().fit(X, y, group=[3, 3])
    assert "class" not in str(info.value)


def test_the_ranker_takes_grades_held_in_an_object_array():
    X = np.random.default_rng(0).normal(size=(6, 3))
    grades = np.array([0, 1, 2, 0, 1, 2], dtype=object)
    fitted = PredtronRanker(random_state=0).fit(X, grades, group=[3, 3])
    as_ints = PredtronRanker(random_state=0).fit(X, grades.astype(int), group=[3, 3])
    np.testing.assert_array_equal(fitted.coef_, as_ints.coef_)
