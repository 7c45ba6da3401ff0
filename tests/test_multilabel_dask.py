"""The Dask multilabel estimator gets the dense-row rules of the local one from the shards'
combined ``FitStatistics``: the label cardinality of the Hamming step and the common scale of
features in ``[0, 1]``, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from predtron.dask import DaskPredtronMultilabelClassifier  # noqa: E402
from predtron.sklearn import PredtronMultilabelClassifier  # noqa: E402


@pytest.fixture(scope="module")
def client():
    # in-process workers talk over inproc:// (no socket at all)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as c:
        yield c


def _unit_interval_data(seed: int = 0, n: int = 300):
    """Features in [0, 1] on different ranges; the rows sorted so that the first shard carries
    more labels per row than the others (its own cardinality is not the whole data's)."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 6)) * np.array([1.0, 0.6, 0.3, 0.1, 0.9, 0.5])
    Y = (X[:, :3] + 0.3 * rng.random((n, 3)) > np.array([0.5, 0.3, 0.2])).astype(int)
    order = np.argsort(-Y.sum(axis=1), kind="stable")
    return X[order], Y[order]


def test_pooled_scale_and_step_are_the_local_ones_on_the_whole_data(client):
    X, Y = _unit_interval_data()
    first = Y[:100].sum(axis=1).mean()
    assert abs(first - Y.sum(axis=1).mean()) > 0.3           # the first shard alone would give another step
    serial = PredtronMultilabelClassifier(epochs=1).fit(X, Y)
    assert len(np.unique(serial.scaler_.scale)) == 1         # the common scale of features in [0, 1]
    dask_model = DaskPredtronMultilabelClassifier(epochs=1, client=client).fit(
        da.from_array(X, chunks=(100, 6)), da.from_array(Y, chunks=(100, 3)))
    np.testing.assert_array_equal(dask_model.model_.scaler_.mean, serial.scaler_.mean)  # bit for bit
    np.testing.assert_array_equal(dask_model.model_.scaler_.scale, serial.scaler_.scale)
    assert dask_model.eta_ == serial.eta_


def test_one_shard_outside_the_unit_interval_keeps_per_feature_scales(client):
    X, Y = _unit_interval_data(1)
    X[250, 0] = 1.5                                            # one entry above 1, in the last shard
    serial = PredtronMultilabelClassifier(epochs=1).fit(X, Y)
    dask_model = DaskPredtronMultilabelClassifier(epochs=1, client=client).fit(
        da.from_array(X, chunks=(100, 6)), da.from_array(Y, chunks=(100, 3)))
    np.testing.assert_allclose(serial.scaler_.scale, X.std(axis=0), rtol=1e-12)
    np.testing.assert_array_equal(dask_model.model_.scaler_.scale, serial.scaler_.scale)
    assert dask_model.eta_ == serial.eta_
