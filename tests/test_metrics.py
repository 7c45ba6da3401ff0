"""AUC, multiclass AUC and the mistake-rate bounds (seed 004, Section 5 and Appendix A)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predtron.metrics import (
    all_pairs_auc,
    all_pairs_auc_bound,
    auc,
    auc_bound,
    brute_force_auc,
    class_mistake_matrix,
    mistake_rates,
    multilabel_auc,
    one_vs_all_auc,
    pairwise_auc,
    pairwise_auc_matrix,
)

labelled_scores = st.integers(2, 30).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n).filter(lambda y: len(set(y)) == 2),
        st.lists(st.integers(-3, 3), min_size=n, max_size=n),  # small integers: many ties
    )
)


def enumerate_pairs(pos, neg):
    """Independent reference: the mean of 1[p > q] + 1/2 1[p = q] over all pairs."""
    p, q = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float(np.mean((p > q) + 0.5 * (p == q)))


# ----------------------------------------------------------------------- AUC
@settings(max_examples=150, deadline=None)
@given(labelled_scores)
def test_auc_equals_pair_enumeration(data):
    y, scores = np.array(data[0]), np.array(data[1], dtype=float)
    value = auc(y, scores)
    assert value == pytest.approx(brute_force_auc(y, scores), abs=1e-12)
    assert value == pytest.approx(enumerate_pairs(scores[y == 1], scores[y == -1]), abs=1e-12)
    assert value + auc(-y, scores) == pytest.approx(1.0)  # swapping the classes
    assert auc(y, 3 * scores + 1) == value  # invariant under increasing maps


@settings(max_examples=100, deadline=None)
@given(labelled_scores, st.floats(-3.5, 3.5))
def test_binary_bound_holds_for_every_threshold(data, threshold):
    y, scores = np.array(data[0]), np.array(data[1], dtype=float)
    e_pos, e_neg = mistake_rates(y, scores, threshold)
    assert e_pos == np.mean(scores[y == 1] < threshold)
    assert e_neg == np.mean(scores[y == -1] >= threshold)
    assert 1 - auc(y, scores) <= auc_bound(y, scores, threshold) + 1e-12
    # the draft's convention (a zero score is a mistake on both sides) is never tighter
    draft = np.mean(scores[y == 1] <= 0) + np.mean(scores[y == -1] >= 0)
    assert auc_bound(y, scores) <= draft


def test_auc_known_values_and_large_input():
    assert auc([1, -1], [0.3, 0.3]) == 0.5
    assert auc([1, 1, -1, -1], [4.0, 3.0, 2.0, 1.0]) == 1.0
    assert auc([1, 1, -1, -1], [1.0, 2.0, 3.0, 4.0]) == 0.0
    assert pairwise_auc([0.9, 0.5], [0.5, 0.1]) == 0.875
    rng = np.random.default_rng(0)
    y = np.where(rng.random(3000) < 0.2, 1, -1)
    scores = np.round(rng.standard_normal(3000) + 0.5 * y, 1)
    pos, neg = scores[y == 1], scores[y == -1]
    assert auc(y, scores) == pytest.approx(enumerate_pairs(pos, neg), abs=1e-12)


def test_bound_on_a_separated_and_a_reversed_score():
    y = np.array([1, 1, -1, -1, -1])
    good = np.array([2.0, 1.0, -1.0, -2.0, -0.5])
    assert auc(y, good) == 1.0 and auc_bound(y, good) == 0.0
    assert 1 - auc(y, -good) == 1.0 and auc_bound(y, -good) == 2.0


# ---------------------------------------------------------------- multiclass
def random_multiclass(rng, K, n):
    Y = np.concatenate([np.arange(K), rng.integers(0, K, size=n - K)])
    S = np.round(rng.standard_normal((n, K)) + 1.5 * np.eye(K)[Y], 1)
    return Y, S


@pytest.mark.parametrize("seed", range(10))
def test_multiclass_aucs_against_enumeration(seed):
    rng = np.random.default_rng(seed)
    K = int(rng.integers(2, 6))
    Y, S = random_multiclass(rng, K, 40)
    A = pairwise_auc_matrix(Y, S)
    for k in range(K):
        assert np.isnan(A[k, k])
        for l in range(K):
            if l != k:
                assert A[k, l] == pytest.approx(enumerate_pairs(S[Y == k, k], S[Y == l, k]))
    expected = np.mean([A[k, l] for k in range(K) for l in range(K) if l != k])
    assert all_pairs_auc(Y, S) == pytest.approx(expected)
    per_class = one_vs_all_auc(Y, S, average=False)
    for k in range(K):
        assert per_class[k] == pytest.approx(enumerate_pairs(S[Y == k, k], S[Y != k, k]))
    assert one_vs_all_auc(Y, S) == pytest.approx(per_class.mean())


@pytest.mark.parametrize("seed", range(10))
def test_all_pairs_bound_holds_and_matches_its_formula(seed):
    rng = np.random.default_rng(seed)
    K = int(rng.integers(2, 6))
    Y, S = random_multiclass(rng, K, 50)
    threshold = float(rng.choice([0.0, 0.5, -0.3]))
    E = class_mistake_matrix(Y, S, threshold=threshold)
    for k in range(K):
        assert E[k, k] == np.mean(S[Y == k, k] < threshold)
        for l in range(K):
            if l != k:
                assert E[k, l] == np.mean(S[Y == l, k] >= threshold)
    bound = all_pairs_auc_bound(Y, S, threshold=threshold)
    pairs = [E[k, k] + E[k, l] for k in range(K) for l in range(K) if l != k]
    assert bound == pytest.approx(np.mean(pairs))  # the two forms of eq. (2) agree
    assert 1 - all_pairs_auc(Y, S) <= bound + 1e-12
    A = pairwise_auc_matrix(Y, S)
    for k in range(K):  # the binary bound, pair by pair
        for l in range(K):
            if l != k:
                assert 1 - A[k, l] <= E[k, k] + E[k, l] + 1e-12


def test_multilabel_auc():
    rng = np.random.default_rng(1)
    Y = rng.integers(0, 2, size=(30, 4))
    Y[0], Y[1] = 1, 0
    S = rng.standard_normal((30, 4)) + Y
    per_label = multilabel_auc(Y, S, average=False)
    for k in range(4):
        assert per_label[k] == pytest.approx(enumerate_pairs(S[Y[:, k] == 1, k], S[Y[:, k] == 0, k]))
    assert multilabel_auc(Y, S) == pytest.approx(per_label.mean())


# ---------------------------------------------------------------- validation
def test_metric_errors():
    with pytest.raises(ValueError, match=r"y must hold at least one \+1 and one -1 label .*got 0 positives and 2 neg"):
        auc([-1, -1], [0.1, 0.2])
    with pytest.raises(ValueError, match="at least one score in pos_scores and in neg_scores; got 1 and 0"):
        pairwise_auc([1.0], [])
    with pytest.raises(ValueError, match="y must be a 1-D array of -1 and \\+1 labels"):
        auc([0, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match=r"scores must have one entry per label of y \(2\); got 3"):
        auc([1, -1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="scores must contain only finite values"):
        mistake_rates([1, -1], [np.nan, 0.2])
    with pytest.raises(ValueError, match="pos_scores must be a 1-D array"):
        pairwise_auc([[1.0]], [0.0])
    S = np.eye(3)
    with pytest.raises(ValueError, match="S must be a 2-D array"):
        all_pairs_auc([0, 1, 2], np.ones(3))
    with pytest.raises(ValueError, match=r"Y\[2\] must be an integer in 0\.\.2; got 3"):
        all_pairs_auc([0, 1, 3], S)
    with pytest.raises(ValueError, match=r"Y must hold every class 0\.\.2 .*classes \[2\] have no sample"):
        one_vs_all_auc([0, 1, 1], S)
    with pytest.raises(ValueError, match=r"S must have one column per class \(n_classes=4\); got 3"):
        pairwise_auc_matrix([0, 1, 2], S, n_classes=4)
    with pytest.raises(ValueError, match="n_classes must be an integer >= 2"):
        class_mistake_matrix([0, 1, 2], S, n_classes=1)
    with pytest.raises(ValueError, match="Y must be a 0/1 array with the shape of S"):
        multilabel_auc(np.ones((3, 2)), S)
