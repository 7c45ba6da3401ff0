"""The dense-row defaults of :class:`~predtron.sklearn.PredtronMultilabelClassifier`: the Hamming
step ``m / q`` times Theorem 1's joint step and one common scale for features in ``[0, 1]``,
each computed by hand on a small example."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from predtron import persistence
from predtron.sklearn import FitStatistics, PredtronMultilabelClassifier
from predtron.sklearn.multilabel import _hamming_step_factor


def _in_unit_interval(X) -> bool:
    return FitStatistics().update(X).in_unit_interval

#: 4 rows, 3 labels: 1 + 2 + 0 + 2 labels on, cardinality q = 5/4.
Y = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0], [1, 0, 1]])


def test_dense_step_is_the_joint_step_times_m_over_the_label_cardinality():
    """Squared norms 4.25, 2, 4.25, 10: mean 5.125, plus 1 for the intercept, R^2 = 6.125; the
    joint step is (1/3) / (4 R^2) = 1/73.5 and the factor m / q = 3 / 1.25 = 2.4."""
    X = np.array([[0.5, 2.0], [1.0, 1.0], [2.0, 0.5], [1.0, 3.0]])
    model = PredtronMultilabelClassifier(standardize=False, epochs=1, random_state=0).fit(X, Y)
    assert model.eta_ == pytest.approx(2.4 / 73.5, rel=1e-12)
    assert _hamming_step_factor(X, 3, 1.25) == pytest.approx(2.4, rel=1e-15)


def test_dense_step_factor_is_at_most_the_sparse_rows_factor():
    """A cardinality below 1/2 counts as 1/2: the factor is then 2 m, the sparse rows' factor
    (and a target with no label on at all does not divide by zero)."""
    no_label = PredtronMultilabelClassifier(standardize=False, epochs=1).fit(
        np.array([[0.5, 2.0], [1.0, 1.0], [2.0, 0.5], [1.0, 3.0]]), np.zeros((4, 3), dtype=int))
    assert no_label.eta_ == pytest.approx(6.0 / 73.5, rel=1e-12)
    X = np.array([[0.5, 2.0], [1.0, 1.0], [2.0, 0.5], [1.0, 3.0]])
    one_label = np.array([[1, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]])  # q = 1/4
    assert _hamming_step_factor(X, 3, one_label.sum(axis=1).mean()) == 6.0
    assert _hamming_step_factor(X, 3, 0.0) == 6.0
    assert _hamming_step_factor(sp.csr_matrix(np.eye(4, 2)), 3, 1.25) == 6.0     # sparse rows: 2 m whatever q


def test_features_in_the_unit_interval_share_one_scale():
    """Columns: std 0.1414 (0.02 variance), std 0.1 (0.01), a constant, a 0/1 indicator.  The two
    varying columns are centred and divided by sqrt((0.02 + 0.01) / 2); the constant is centred,
    the indicator left alone, as the per-feature standardiser does."""
    X = np.array([[0.0, 0.1, 0.5, 1.0],
                  [0.2, 0.3, 0.5, 0.0],
                  [0.4, 0.1, 0.5, 1.0],
                  [0.2, 0.3, 0.5, 0.0]])
    model = PredtronMultilabelClassifier(epochs=1, random_state=0).fit(X, Y)
    common = np.sqrt(0.015)
    np.testing.assert_allclose(model.scaler_.scale, [common, common, 1.0, 1.0], rtol=1e-12)
    np.testing.assert_allclose(model.scaler_.mean, [0.2, 0.2, 0.5, 0.0], rtol=1e-12)
    np.testing.assert_allclose(model.scaler_(X)[:, 0], np.array([-0.2, 0.0, 0.2, 0.0]) / common, rtol=1e-12)


def test_features_outside_the_unit_interval_keep_their_own_scales():
    """One entry above 1 (or below 0), or a sparse matrix, and every feature is scaled on its own."""
    X = np.array([[0.0, 0.1], [0.2, 0.3], [0.4, 0.1], [0.2, 1.3]])
    model = PredtronMultilabelClassifier(epochs=1, random_state=0).fit(X, Y)
    np.testing.assert_allclose(model.scaler_.scale, X.std(axis=0), rtol=1e-12)
    assert not _in_unit_interval(X) and not _in_unit_interval(-X / 2)
    assert not _in_unit_interval(sp.csr_matrix(X / 2))
    assert not _in_unit_interval(np.array([[0.0, 1.0], [1.0, 0.0]]))   # indicators only
    assert _in_unit_interval(X / 2)


def test_common_scale_round_trips_through_a_saved_file(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.random((60, 5)) * np.array([1.0, 0.5, 0.1, 0.02, 1.0])
    target = (X[:, :3] > np.array([0.5, 0.25, 0.05])).astype(int)
    model = PredtronMultilabelClassifier(epochs=3, random_state=0).fit(X, target)
    assert len(np.unique(model.scaler_.scale)) == 1
    loaded = persistence.load(persistence.save(model, tmp_path / "model.npz"))
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
