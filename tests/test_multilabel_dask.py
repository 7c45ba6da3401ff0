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


def test_the_target_is_the_local_fits_indicator_matrix(client):
    """The Dask multilabel classifier kept a path the local estimator dropped: a 1-D y was fitted as
    class labels (the local fit refuses it), and a single-column Y was squeezed into binary classes
    (the local fit learns one label, predicting a column).  It now takes the local target: 1-D
    refused with the local message, a single column one label, the serial fit bit for bit."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + 0.2 * rng.normal(size=120) > 0).astype(int)
    with pytest.raises(ValueError, match="y must be a 2-D 0/1 indicator matrix") as local_error:
        PredtronMultilabelClassifier().fit(X, y)
    with pytest.raises(ValueError, match="y must be a 2-D 0/1 indicator matrix") as dask_error:
        DaskPredtronMultilabelClassifier(client=client).fit(da.from_array(X, chunks=(120, 4)),
                                                            da.from_array(y, chunks=120))
    assert str(dask_error.value) == str(local_error.value)
    params = {"epochs": 3, "random_state": 0}
    serial = PredtronMultilabelClassifier(**params).fit(X, y[:, None])
    model = DaskPredtronMultilabelClassifier(**params, client=client).fit(da.from_array(X, chunks=(120, 4)),
                                                                         da.from_array(y[:, None], chunks=(120, 1)))
    local = model.to_local()
    assert local.multilabel_ and local.n_labels_ == 1
    assert np.array_equal(local.predict(X), serial.predict(X)) and local.predict(X).shape == (120, 1)
    assert np.array_equal(local.learner_.coef_, serial.learner_.coef_)
