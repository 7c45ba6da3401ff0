"""The estimator core: exact mergeable statistics, the one sample order and the epoch driver."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

from predtron._estimator import EpochOrders, epoch_order, run_epochs
from predtron._exact import ExactSums
from predtron.bounds import theorem1_step
from predtron.mixing import iterative_parameter_mixing, local_map
from predtron.problems import Binary, SubsetRanking
from predtron.sklearn import FitStatistics, PredtronClassifier, PredtronMultilabelClassifier


def _data(sparse: bool):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(301, 7)) * np.array([1e-3, 1.0, 10.0, 1e4, 1.0, 1.0, 3.0]) + 50.0
    X[:, 4] = rng.integers(0, 2, size=301)  # an indicator
    X[:, 5] = 2.5  # a constant
    if sparse:
        X = sp.csr_matrix(np.where(rng.random(X.shape) < 0.3, X, 0.0))
    return X


def test_exact_sums_are_the_exact_sums_in_any_cut():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 3)) * 10.0 ** rng.integers(-200, 200, size=(500, 3))
    exact = [sum(Fraction(v) for v in X[:, j]) for j in range(3)]
    whole = ExactSums(3).add(X)
    cut = ExactSums(3).add(X[:17]).combine(ExactSums(3).add(X[17:400])).combine(ExactSums(3).add(X[400:]))
    assert whole.fractions() == exact == cut.fractions()


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_local_chunked_and_sharded_statistics_give_the_same_scaler_and_step_bit_for_bit(sparse):
    X = _data(sparse)
    problem = Binary()
    cuts = [0, 1, 90, 91, 250, 301]

    def full(parts):
        phase1 = [FitStatistics().update(X[a:b]) for a, b in parts]
        stats = phase1[0]
        for other in phase1[1:]:
            stats.combine(other)
        scaler = stats.scaler()
        for a, b in parts:
            stats.update_norms(scaler(X[a:b]))
        return scaler, stats.step(problem)

    local_scaler, local_step = full([(0, 301)])
    chunked = FitStatistics()  # a stream: one object updated chunk by chunk
    for a, b in itertools.pairwise(cuts):
        chunked.update(X[a:b])
    chunk_scaler = chunked.scaler()
    for a, b in itertools.pairwise(cuts):
        chunked.update_norms(chunk_scaler(X[a:b]))
    shard_scaler, shard_step = full(list(itertools.pairwise(cuts)))
    for scaler in (chunk_scaler, shard_scaler):
        assert np.array_equal(scaler.scale, local_scaler.scale)
        assert (scaler.mean is None) == (local_scaler.mean is None)
        if scaler.mean is not None:
            assert np.array_equal(scaler.mean, local_scaler.mean)
    assert chunked.step(problem) == local_step == shard_step
    # the estimator's fit uses exactly this rule
    model = PredtronClassifier(epochs=1).fit(X, np.arange(301) % 2)
    assert model.eta_ == local_step and np.array_equal(model.scaler_.scale, local_scaler.scale)
    if not sparse:
        assert local_scaler.mean[4] == 0 and local_scaler.scale[4] == 1  # the indicator is left alone
        assert local_scaler.scale[5] == 1  # the constant is not scaled
        np.testing.assert_allclose(local_scaler.mean, np.where(np.arange(7) == 4, 0, X.mean(axis=0)), rtol=1e-14)
        assert abs(local_scaler.scale[3] - X[:, 3].std()) <= 1e-9 * X[:, 3].std()


def _unit_multilabel_data():
    """Dense features in [0, 1] on different ranges, an indicator and a constant; three labels,
    the rows sorted so that every cut has its own label cardinality."""
    rng = np.random.default_rng(7)
    X = rng.random((301, 6)) * np.array([1.0, 0.5, 0.1, 0.02, 1.0, 1.0])
    X[:, 4] = rng.integers(0, 2, size=301)  # an indicator
    X[:, 5] = 0.25  # a constant
    Y = (X[:, :3] + 0.2 * rng.random((301, 3)) > np.array([0.5, 0.25, 0.06])).astype(int)
    order = np.argsort(-Y.sum(axis=1), kind="stable")
    return X[order], Y[order]


def test_multilabel_unit_interval_statistics_give_the_same_scaler_and_step_bit_for_bit():
    """The multilabel estimator's dense rules (one common scale for features in [0, 1], the
    Hamming step m / q with q the label cardinality) come from mergeable statistics: a whole
    array, chunks, shards, the streamed fit and partial_fit's first batch agree bit for bit."""
    from predtron.streaming import fit_passes

    X, Y = _unit_multilabel_data()
    cuts = [0, 1, 90, 91, 250, 301]
    assert len({Y[a:b].sum(axis=1).mean() for a, b in itertools.pairwise(cuts)}) > 1
    model = PredtronMultilabelClassifier(epochs=1, shuffle=False).fit(X, Y)
    problem = model.make_problem()

    def shards(parts):
        stats = FitStatistics()
        for a, b in parts:
            stats.combine(FitStatistics().update(X[a:b]))
        scaler = model.scaler_from(stats)
        for a, b in parts:
            stats.combine(FitStatistics().update_norms(scaler(X[a:b]), Y[a:b]))
        return scaler, stats

    whole_scaler, whole = shards([(0, 301)])
    assert whole.in_unit_interval and whole.label_cardinality == Y.sum() / 301
    scaled = whole_scaler.scale[:4]
    assert np.all(scaled == scaled[0]) and whole_scaler.scale[4] == whole_scaler.scale[5] == 1.0
    chunked = FitStatistics()
    for a, b in itertools.pairwise(cuts):
        chunked.update(X[a:b])
    chunk_scaler = model.scaler_from(chunked)
    for a, b in itertools.pairwise(cuts):
        chunked.update_norms(chunk_scaler(X[a:b]), Y[a:b])
    shard_scaler, sharded = shards(list(itertools.pairwise(cuts)))
    streamed = fit_passes(PredtronMultilabelClassifier(epochs=1, shuffle=False),
                          lambda epoch: [(X[a:b], Y[a:b], {}) for a, b in itertools.pairwise(cuts)], statistics=True)
    batch = PredtronMultilabelClassifier(epochs=1, shuffle=False).partial_fit(X, Y)
    for scaler in (chunk_scaler, shard_scaler, streamed.scaler_, batch.scaler_, model.scaler_):
        assert np.array_equal(scaler.scale, whole_scaler.scale) and np.array_equal(scaler.mean, whole_scaler.mean)
    step = model.step_from(whole, problem)
    assert model.step_from(chunked, problem) == model.step_from(sharded, problem) == step
    assert streamed.eta_ == batch.eta_ == model.eta_ == step
    np.testing.assert_array_equal(streamed.decision_function(X), model.decision_function(X))


def test_ranking_statistics_merge_c_L_over_shards():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    grades = rng.integers(0, 3, size=40)
    offsets = np.arange(0, 41, 10)
    problem = SubsetRanking(loss="ndcg")
    whole = FitStatistics(fit_intercept=False).update_norms(X, grades, problem, offsets)
    a = FitStatistics(fit_intercept=False).update_norms(X[:20], grades[:20], problem, offsets[:3])
    b = FitStatistics(fit_intercept=False).update_norms(X[20:], grades[20:], problem, offsets[2:] - 20)
    assert a.combine(b).step(problem) == whole.step(problem) == theorem1_step(problem, X, grades, False, offsets)


def test_epoch_order_is_the_order_of_fit_and_of_the_sequence():
    orders = EpochOrders(3)
    rng = np.random.default_rng(3)
    for epoch in range(1, 5):
        expected = rng.permutation(11)
        assert np.array_equal(epoch_order(3, epoch, 11), expected)
        assert np.array_equal(orders.order(epoch, 11), expected)
    with pytest.raises(ValueError, match="epoch must be after"):
        orders.order(2, 11)
    child = np.random.default_rng(3).spawn(2)[1]
    assert np.array_equal(epoch_order(3, 1, 11, shard=2), child.permutation(11))


def test_run_epochs_hooks_and_stop():
    seen = []
    last, stopped = run_epochs(lambda e: seen.append(("pass", e)), 5, first=2, stop=lambda e: e == 3,
                               after=(lambda e: seen.append(("after", e)),))
    assert (last, stopped) == (3, True)
    assert seen == [("pass", 2), ("after", 2), ("pass", 3), ("after", 3)]
    assert run_epochs(lambda e: True, 4) == (1, True)


def test_mixing_over_a_local_map_with_one_shard_is_the_serial_fit():
    X = _data(False)[:, :4]
    y = np.where(X[:, 1] > 50.0, 1, -1)
    serial = PredtronClassifier(standardize=False, eta=0.1, random_state=4, epochs=4, tol=None).fit(X, y)
    prototype = serial.core_learner(serial.make_problem())
    result = iterative_parameter_mixing(local_map, prototype, [(X, y, {})], 4, shuffle=True,
                                        random_state=prototype.random_state)
    learner = prototype.set_state(result.scalars, result.arrays)
    assert np.array_equal(learner.coef_, serial.learner_.coef_)


def test_sample_weight_has_one_rule():
    """The estimators check ``sample_weight`` at their boundary by the learners' rule
    (``learners.base.check_sample_weight``, "one per row of X") and hand the weights on unchecked by
    any other rule."""
    from predtron._models import checks
    from predtron.learners.base import check_sample_weight
    from predtron.sklearn import PredtronClassifier

    assert not hasattr(checks, "check_sample_weight")
    assert np.array_equal(check_sample_weight(2.0, 3), [2.0, 2.0, 2.0])
    assert check_sample_weight([1, 0, 3], 3).dtype == np.float64
    X, y = np.arange(6.0).reshape(3, 2), [0, 1, 0]
    for bad, error, message in (([1.0, -1.0, 1.0], ValueError, "finite non-negative"),
                                ([1.0, np.nan, 1.0], ValueError, "finite non-negative"),
                                ([1.0, 1.0], ValueError, r"shape \(3,\) \(one weight per row of X\)"),
                                (["a", "b", "c"], TypeError, "real numbers, not text")):
        with pytest.raises(error, match=f"sample_weight must .*{message}"):
            PredtronClassifier().fit(X, y, sample_weight=bad)


def test_a_learners_fit_visits_the_examples_in_epoch_order():
    from predtron import Predtron

    X = _data(False)[:, :4] - 50.0
    y = np.where(X[:, 1] > 0, 1, -1)
    fitted = Predtron(Binary(), eta=0.3, shuffle=True, random_state=8).fit(X, y, epochs=3)
    manual = Predtron(Binary(), eta=0.3)
    for epoch in range(1, 4):
        manual.partial_fit(X, y, order=epoch_order(8, epoch, len(y)))
    assert np.array_equal(fitted.coef_, manual.coef_)
    generator = np.random.default_rng(8)
    again = Predtron(Binary(), eta=0.3, shuffle=True, random_state=generator).fit(X, y, epochs=3)
    assert np.array_equal(again.coef_, fitted.coef_)  # the generator's state is the seed; it is not consumed
