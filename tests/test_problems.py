"""Every core problem satisfies the Section 2 contract, and bad input is refused clearly."""

from __future__ import annotations

import numpy as np
import pytest

from predtron.problems import REJECT, Binary, BinaryReject, General, Multiclass, Multilabel, Ordinal
from predtron.testing import brute_force_oracle, check_problem


def test_contract(problem):
    check_problem(problem, n_trials=150, seed=1)


@pytest.mark.parametrize("loss", ["hamming", "subset", "errorset"])
@pytest.mark.parametrize("m", [2, 3, 6, 8])
def test_multilabel_oracle_matches_brute_force(loss, m):
    problem = Multilabel(m, loss)
    rng = np.random.default_rng(m)
    for _ in range(40):
        y = problem.random_label(rng)
        t = rng.standard_normal(m) * rng.choice([0.1, 1.0, 4.0])
        _, phi = brute_force_oracle(problem, t, y)
        assert problem.surrogate(t, y) == pytest.approx(phi, abs=1e-9)


def test_multilabel_losses_by_hand():
    y = np.array([1, 1, 0, 0])
    sigma = np.array([1, 0, 1, 1])
    assert Multilabel(4, "hamming").loss(sigma, y) == 3
    assert Multilabel(4, "hamming", normalize=True).loss(sigma, y) == 0.75
    assert Multilabel(4, "subset").loss(sigma, y) == 1
    assert Multilabel(4, "errorset").loss(sigma, y) == 2  # one missed x two false alarms
    assert Multilabel(4, "errorset").loss(np.array([1, 1, 1, 1]), y) == 0


def test_multiclass_surrogate_is_crammer_singer_hinge():
    problem = Multiclass(5)
    rng = np.random.default_rng(0)
    for _ in range(50):
        t, y = rng.standard_normal(5), int(rng.integers(5))
        hinge = max(0.0, 1 + max(np.delete(t, y)) - t[y])
        assert problem.surrogate(t, y) == pytest.approx(hinge)


def test_binary_reject_decodes_abstention():
    problem = BinaryReject(0.3, 0.3)
    assert problem.pred(np.array([1.0, 1.0])) == REJECT
    assert problem.pred(np.array([1.0, -1.0])) == 1
    assert problem.pred(np.array([-1.0, 1.0])) == -1
    assert problem.loss(REJECT, 1) == 0.3


def test_ties_are_deterministic():
    assert Binary().pred(np.array([0.0])) == 1
    assert Multiclass(3).pred(np.array([1.0, 2.0, 2.0])) == 1
    assert Multilabel(3).pred(np.zeros(3)).tolist() == [1, 1, 1]


def test_constants():
    assert (Binary(2.0, 0.5).c_L, Binary(2.0, 0.5).C_L) == (0.5, 2.0)
    assert (Ordinal(5).c_L, Ordinal(5).C_L) == (1.0, 4.0)
    assert Multilabel(5, "errorset").C_L == 6.0
    assert Multilabel(4, "hamming").C_L == 4.0
    assert (BinaryReject(0.4, 0.2).c_L, BinaryReject(0.4, 0.2).C_L) == (0.2, 1.0)
    problem = Multilabel(3, "errorset")
    matrix = problem.loss_matrix()
    assert (matrix[matrix > 0].min(), matrix.max()) == (problem.c_L, problem.C_L)


def test_margin_definitions():
    assert Binary().margin(np.array([0.5]), 1) == 1.0
    assert Binary().margin(np.array([0.5]), -1) == -1.0
    assert Multiclass(3).margin(np.array([3.0, 1.0, 0.5]), 0) == 2.0
    # a_j = 2 s_j t_j / sqrt(m): min over non-empty error sets
    assert Multilabel(4).margin(np.array([1.0, 2.0, -1.0, -3.0]), np.array([1, 1, 0, 0])) == 1.0
    # errorset: several zero-loss predictions with different scores, so no positive margin
    assert Multilabel(3, "errorset").margin(np.array([1.0, -1.0, -1.0]), np.array([1, 0, 0])) <= 0


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Binary(cost_pos=0), r"cost_pos must be finite and > 0; got 0"),
        (lambda: Binary(cost_neg=float("nan")), r"cost_neg must be finite and > 0"),
        (lambda: Binary(cost_pos="1"), r"cost_pos must be a real number; got '1'"),
        (lambda: BinaryReject(1.5, 0.2), r"reject_cost_pos must be in \(0, 1\]"),
        (lambda: BinaryReject(0.5, 0), r"reject_cost_neg must be finite and > 0"),
        (lambda: Multiclass(1), r"n_classes must be an integer >= 2; got 1"),
        (lambda: Multiclass(3, loss=np.ones((2, 2))), r"loss must be a \(3, 3\) matrix .* got shape \(2, 2\)"),
        (lambda: Multiclass(2, loss=[[0, -1], [1, 0]]), r"must be non-negative; entry \[0, 1\] is -1"),
        (lambda: Multiclass(2, loss=[[0, 1], [1, 1]]), r"column 1 has none"),
        (lambda: Multiclass(2, loss=[[0, np.inf], [1, 0]]), r"only finite values"),
        (lambda: Ordinal(1), r"n_levels must be an integer >= 2"),
        (lambda: Multilabel(0), r"n_labels must be an integer >= 1"),
        (lambda: Multilabel(3, "jaccard"), r"loss must be one of .*got 'jaccard'"),
        (lambda: Multilabel(3, "subset", normalize=True), r"normalize=True applies only"),
        (lambda: Multilabel(1, "errorset"), r"needs n_labels >= 2"),
        (lambda: General([[0, 1], [1, 0]], [[1.0, 0.0]]), r"reps must be .* with k=2 rows"),
        (lambda: General([[0, 1], [1, 0]], [[1.0, 0.0], [0.0, 0.0]]), r"reps row 1 is zero"),
        (lambda: General([[0, 1], [1, 0]], [[1.0, 0.0], [2.0, 0.0]]), r"rows 0 and 1 point the same way"),
        (lambda: General([[0, 0], [0, 0]], np.eye(2)), r"all zeros"),
        (lambda: General([0, 1], np.eye(2)), r"2-D \(n_predictions, n_labels\) matrix"),
    ],
)
def test_constructor_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize(
    ("problem", "label", "message"),
    [
        (Binary(), 0, r"label must be -1 or \+1; got 0"),
        (Binary(), True, r"label must be -1 or \+1; got True"),
        (BinaryReject(0.5, 0.5), 2, r"label must be -1 or \+1; got 2"),
        (Multiclass(3), 3, r"label must be an integer in 0..2; got 3"),
        (Multiclass(3), 1.5, r"label must be an integer in 0..2; got 1.5"),
        (Multiclass(3), "a", r"label must be an integer in 0..2; got 'a'"),
        (Multilabel(3), [1, 0], r"label must be a 0/1 array of length 3; got shape \(2,\)"),
        (Multilabel(3), [1, 0, 2], r"label must contain only 0 and 1; got \[1, 0, 2\]"),
    ],
)
def test_label_errors(problem, label, message):
    with pytest.raises(ValueError, match=message):
        problem.check_label(label)


def test_check_scores_shape():
    with pytest.raises(ValueError, match=r"t must have shape \(3,\); got \(2,\)"):
        Multiclass(3).check_scores(np.zeros(2))
    with pytest.raises(ValueError, match="only finite values"):
        Multiclass(3).check_scores([0.0, np.nan, 1.0])


def test_one_hot_representations_are_built_not_checked(monkeypatch):
    """``Multiclass(k)`` and ``Ordinal(k)`` represent prediction ``i`` by the ``i``-th basis vector:
    unit and distinct by construction.  They ran ``check_reps``, which compares every pair of rows
    (``O(k^3)`` for ``k`` rows of ``k`` entries): ``predtron fit --classes`` with 5,001 classes took
    547 s for a 3-row file.  A user's ``General`` representations are still checked."""
    from predtron.problems import general as general_module

    checked = general_module.check_reps(np.eye(7), 7)
    np.testing.assert_array_equal(checked, np.eye(7))  # the check leaves the basis as it is

    def refuse(*args, **kwargs):
        raise AssertionError("check_reps ran on a representation built by the problem")

    monkeypatch.setattr(general_module, "check_reps", refuse)
    for problem in (Multiclass(7), Ordinal(7)):
        np.testing.assert_array_equal(problem._reps, checked)
    with pytest.raises(AssertionError, match="check_reps ran"):
        General(1.0 - np.eye(3), np.eye(3))
