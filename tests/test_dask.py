"""predtron.dask: iterative parameter mixing on a real distributed.LocalCluster (127.0.0.1)."""

from __future__ import annotations

import itertools
import json
import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from predtron import Predtron  # noqa: E402
from predtron.bounds import theorem1_bound, theorem1_eta  # noqa: E402
from predtron.cli import main  # noqa: E402
from predtron.dask import (  # noqa: E402
    DaskPredtronClassifier,
    DaskPredtronMultilabelClassifier,
    DaskPredtronOrdinalClassifier,
    DaskPredtronRanker,
    mixing_weights,
)
from predtron.dask.mixing import PASS_KEY  # noqa: E402
from predtron.data import load_letor, load_svmlight, make_separable  # noqa: E402
from predtron.persistence import load, save  # noqa: E402
from predtron.problems import Binary, Multiclass  # noqa: E402
from predtron.sklearn import (  # noqa: E402
    PredtronClassifier,
    PredtronMultilabelClassifier,
    PredtronOrdinalClassifier,
    PredtronRanker,
)


@pytest.fixture(scope="module")
def client():
    # in-process workers talk over inproc:// (no socket at all)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as c:
        yield c


def _data(seed=0, n=400, p=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 3.0, size=p) + rng.normal(size=p)
    scores = X @ rng.normal(size=(p, 3))
    return X, scores


def _state(model):
    """Every learned array and number of a local estimator, for exact comparison (not the columns' names, which
    a fit on a DataFrame records and a fit on the arrays the frame holds does not; nor the dtype of
    the classes, float for labels read from a file and int for an array of the same labels: the values are
    compared)."""
    scalars, arrays = model._get_state()
    scalars.pop("feature_names_in_", None)
    scalars.pop("classes_dtype", None)
    return scalars, {k: np.asarray(v) for k, v in arrays.items()}


def _assert_same(a, b):
    sa, aa = _state(a)
    sb, ab = _state(b)
    assert sa == sb
    assert aa.keys() == ab.keys()
    for key in aa:
        assert np.array_equal(aa[key], ab[key]), key
    assert getattr(a, "n_iter_", None) == getattr(b, "n_iter_", None) or not (hasattr(a, "n_iter_") and
                                                                            hasattr(b, "n_iter_"))


def _cases():
    X, scores = _data()
    binary = np.where(scores[:, 0] > 0, "yes", "no")
    multiclass = np.argmax(scores, axis=1) * 10
    ordinal = np.digitize(scores[:, 0], [-1.0, 0.0, 1.0])
    multilabel = (scores > 0.3).astype(int)
    group = np.full(40, 10)
    grades = np.clip(np.round(scores[:, 0]), 0, 2).astype(int)
    return [
        (PredtronClassifier, DaskPredtronClassifier, X, binary, {}),
        (PredtronClassifier, DaskPredtronClassifier, X, multiclass, {}),
        (PredtronOrdinalClassifier, DaskPredtronOrdinalClassifier, X, ordinal, {}),
        (PredtronMultilabelClassifier, DaskPredtronMultilabelClassifier, X, multilabel, {}),
        (PredtronRanker, DaskPredtronRanker, X, grades, {"group": group}),
    ]


@pytest.mark.parametrize("case", range(5), ids=["binary", "multiclass", "ordinal", "multilabel", "ranker"])
def test_one_shard_is_the_serial_fit_bit_for_bit(client, case):
    local_cls, dask_cls, X, y, split = _cases()[case]
    params = {"random_state": 7, "epochs": 12}
    serial = local_cls(**params).fit(X, y, **split)
    chunks = (X.shape[0], X.shape[1])
    model = dask_cls(**params, client=client).fit(da.from_array(X, chunks=chunks),
                                                  da.from_array(y, chunks=(X.shape[0], *y.shape[1:])), **split)
    assert model.n_shards_ == 1
    local = model.to_local()
    assert type(local) is local_cls
    _assert_same(local, serial)
    assert np.array_equal(local.predict(X), serial.predict(X))


def test_several_shards_learn_and_predict_by_partition(client):
    _, dask_cls, X, y, _ = _cases()[1]
    Xd, yd = da.from_array(X, chunks=(100, 6)), da.from_array(y, chunks=100)
    model = dask_cls(random_state=1, epochs=10, tol=None, mixing="loss", client=client).fit(Xd, yd)
    assert model.n_shards_ == 4 and model.shard_losses_.shape == (10, 4)
    np.testing.assert_allclose(model.mixing_weights_.sum(axis=1), 1.0)
    local = model.to_local()
    assert local.score(X, y) > 0.8
    predicted = model.predict(da.from_array(X, chunks=(150, 6)))
    assert isinstance(predicted, da.Array)
    assert np.array_equal(predicted.compute(), local.predict(X))
    assert np.array_equal(model.decision_function(Xd).compute(), local.decision_function(X))
    # the same shards and seed give the same model (shards are fixed by the data, not by the workers)
    again = dask_cls(random_state=1, epochs=10, tol=None, mixing="loss", client=client).fit(Xd, yd)
    _assert_same(again.to_local(), local)


def test_to_local_round_trip(client, tmp_path):
    _, dask_cls, X, y, _ = _cases()[2]
    model = dask_cls(random_state=3, epochs=5, client=client).fit(da.from_array(X, chunks=(200, 6)),
                                                                  da.from_array(y, chunks=200))
    local = model.to_local()
    assert local.get_params() == {k: v for k, v in model.get_params().items()
                                  if k not in ("client", "mixing", "mixing_rounds")}
    path = save(local, tmp_path / "model.npz")
    loaded = load(path)
    _assert_same(loaded, local)
    assert np.array_equal(loaded.predict(X), model.predict(da.from_array(X, chunks=(50, 6))).compute())
    assert model.to_local() is not model.to_local()  # a copy each time


@pytest.mark.parametrize("mixing", ["uniform", "loss"])
def test_mixing_respects_theorem1_for_the_mixed_loss(client, mixing):
    data = make_separable(Binary(), 600, 5, margin=0.25, seed=4)
    eta = theorem1_eta(data.radius, 1.0)
    model = DaskPredtronClassifier(eta=eta, epochs=40, tol=None, average=False, fit_intercept=False,
                                   standardize=False, random_state=0, mixing=mixing, client=client)
    model.fit(da.from_array(data.X, chunks=(150, 5)), da.from_array(np.asarray(data.Y), chunks=150))
    weighted = float(np.sum(model.mixing_weights_ * model.shard_losses_))
    bound = theorem1_bound(data.radius, data.margin, 1.0, 1.0)
    assert 0 < weighted <= bound
    assert model.shard_losses_[-1].sum() == 0  # converged: the mixed W separates every shard
    assert model.to_local().score(data.X, data.Y) == 1.0


def test_mixing_weights():
    assert np.array_equal(mixing_weights([1.0, 3.0], "loss"), [0.25, 0.75])
    assert np.array_equal(mixing_weights([0.0, 0.0], "loss"), [0.5, 0.5])
    assert np.array_equal(mixing_weights([5.0, 0.0, 1.0, 2.0], "uniform"), [0.25] * 4)
    with pytest.raises(ValueError, match="mixing"):
        mixing_weights([1.0], "median")


def test_a_partition_never_splits_a_query(client):
    _, dask_cls, X, y, split = _cases()[4]
    model = dask_cls(client=client, epochs=2)
    with pytest.raises(ValueError, match="partition 1 of X ends at row 105, inside query 10"):
        model.fit(da.from_array(X, chunks=(105, 6)), da.from_array(y, chunks=105), **split)
    qid = np.repeat(np.arange(40), 10)
    with pytest.raises(ValueError, match="partition 1 of X ends inside query 10"):
        model.fit(da.from_array(X, chunks=(105, 6)), da.from_array(y, chunks=105), qid=da.from_array(qid, chunks=105))
    # at query boundaries, group and qid give the same model
    a = dask_cls(client=client, epochs=3, random_state=0).fit(da.from_array(X, chunks=(100, 6)),
                                                               da.from_array(y, chunks=100), **split)
    b = dask_cls(client=client, epochs=3, random_state=0).fit(da.from_array(X, chunks=(100, 6)),
                                                               da.from_array(y, chunks=100),
                                                               qid=da.from_array(qid, chunks=100))
    _assert_same(a.to_local(), b.to_local())


def _write_svmlight(path, X, y, qid=None):
    with open(path, "w") as handle:
        for i, (row, label) in enumerate(zip(X, y, strict=True)):
            q = f" qid:{qid[i]}" if qid is not None else ""
            feats = " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(row) if v != 0)
            handle.write(f"{label}{q} {feats}\n")


def test_files_are_read_by_the_workers(client, tmp_path):
    _, _, X, scores = (None, None, *_data(1))
    X = np.round(X, 3)
    X[X < 0] = 0.0  # sparse rows
    y = np.argmax(scores, axis=1)
    paths = [tmp_path / "a.svm", tmp_path / "b.svm"]
    _write_svmlight(paths[0], X[:250], y[:250])
    _write_svmlight(paths[1], X[250:], y[250:])
    params = {"random_state": 2, "epochs": 6, "standardize": False}
    options = {"n_features": 6}
    from_files = DaskPredtronClassifier(**params, client=client).fit([str(p) for p in paths], file_options=options)
    from_arrays = DaskPredtronClassifier(**params, client=client).fit(da.from_array(X, chunks=((250, 150), 6)),
                                                                      da.from_array(y, chunks=((250, 150),)))
    _assert_same(from_files.to_local(), from_arrays.to_local())
    # one file: the serial fit on what load_svmlight reads
    one = DaskPredtronClassifier(random_state=2, epochs=6, client=client).fit([str(paths[0])], file_options=options)
    data = load_svmlight(paths[0], **options)
    _assert_same(one.to_local(), PredtronClassifier(random_state=2, epochs=6).fit(data.X, data.y))


def test_letor_files_for_the_ranker(client, tmp_path):
    X, scores = _data(3, n=200)
    grades = np.clip(np.round(scores[:, 0]), 0, 2).astype(int)
    qid = np.repeat(np.arange(20), 10)
    path = tmp_path / "train.letor"
    _write_svmlight(path, X, grades, qid)
    model = DaskPredtronRanker(random_state=0, epochs=4, client=client).fit([str(path)])
    data = load_letor(path)
    _assert_same(model.to_local(), PredtronRanker(random_state=0, epochs=4).fit(data.X, data.y, group=data.group))


def test_errors_name_the_argument(client):
    X, scores = _data()
    y = (scores[:, 0] > 0).astype(int)
    with pytest.raises(TypeError, match="X must be a dask array"):
        DaskPredtronClassifier(client=client).fit(X, y)
    with pytest.raises(ValueError, match="mixing"):
        DaskPredtronClassifier(client=client, mixing="max").fit(da.from_array(X), da.from_array(y))
    with pytest.raises(ValueError, match="y must have one label per row"):
        DaskPredtronClassifier(client=client).fit(da.from_array(X), da.from_array(y[:10]))
    with pytest.raises(ValueError, match="reject_cost"):
        DaskPredtronClassifier(client=client, reject_cost=0.3).fit(da.from_array(X), da.from_array(y))
    for rounds in (0, "3", 2.5, True):  # named as the parameter is, before any data are read
        with pytest.raises(ValueError, match="mixing_rounds must be an integer"):
            DaskPredtronClassifier(client=client, mixing_rounds=rounds).fit(da.from_array(X), da.from_array(y))


def test_command_line_on_a_cluster(client, tmp_path):
    X, scores = _data(5, n=300)
    y = np.argmax(scores, axis=1)
    train = tmp_path / "train.svm"
    _write_svmlight(train, np.round(X, 4), y)
    common = [str(train), "--task", "classify", "--seed", "3", "--quiet"]
    assert main(["fit", *common, "--model", str(tmp_path / "serial.npz")]) == 0
    assert main(["fit", *common, "--model", str(tmp_path / "one.npz"), "--scheduler", client.scheduler.address,
                 "--shards", "1"]) == 0
    _assert_same(load(tmp_path / "one.npz"), load(tmp_path / "serial.npz"))
    assert main(["fit", *common, "--model", str(tmp_path / "three.npz"), "--scheduler", client.scheduler.address,
                 "--shards", "3", "--mixing", "loss"]) == 0
    assert load(tmp_path / "three.npz").score(np.round(X, 4), y) > 0.7
    assert main(["fit", *common, "--model", str(tmp_path / "x.npz"), "--shards", "2"]) == 2  # (usage errors)
    assert main(["fit", *common, "--model", str(tmp_path / "x.npz"), "--classes", "0", "1", "2", "--workers",
                 "2"]) == 2
    assert not (tmp_path / "x.npz").exists()
    # one file streamed by one worker (one shard): the serial fit in file order
    in_order = [*common, "--no-shuffle", "--sparse"]
    assert main(["fit", *in_order, "--model", str(tmp_path / "serial-order.npz")]) == 0
    assert main(["fit", *in_order, "--model", str(tmp_path / "streamed.npz"), "--stream", "--chunk-rows", "70",
                 "--scheduler", client.scheduler.address]) == 0
    _assert_same(load(tmp_path / "streamed.npz"), load(tmp_path / "serial-order.npz"))
    # --sparse: the shards stay CSR on the workers (scaled, not centred), one shard is the serial fit
    sparse = [*common, "--sparse"]
    assert main(["fit", *sparse, "--model", str(tmp_path / "serial-csr.npz")]) == 0
    assert main(["fit", *sparse, "--model", str(tmp_path / "one-csr.npz"), "--scheduler", client.scheduler.address,
                 "--shards", "1"]) == 0
    _assert_same(load(tmp_path / "one-csr.npz"), load(tmp_path / "serial-csr.npz"))
    assert load(tmp_path / "one-csr.npz").scaler_.mean is None


def test_a_killed_worker_changes_nothing():
    """A worker process killed while the shard passes run: Dask recomputes its shards and reruns
    its passes, and the model is the undisturbed one."""
    X, scores = _data(6, n=4000)
    y = np.argmax(scores, axis=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0") as cluster, distributed.Client(cluster) as c:
        def fit():
            Xd, yd = da.from_array(X, chunks=(1000, 6)), da.from_array(y, chunks=1000)
            return DaskPredtronClassifier(random_state=5, epochs=40, tol=None, client=c).fit(Xd, yd).to_local()

        undisturbed = fit()
        out, killed = {}, {}
        thread = threading.Thread(target=lambda: out.setdefault("model", fit()))
        thread.start()
        deadline = time.monotonic() + 60
        while thread.is_alive() and time.monotonic() < deadline and not killed:
            for address, keys in c.processing().items():
                epochs = [int(str(k).split("-")[-2]) for k in keys if str(k).startswith(PASS_KEY)]
                if epochs and max(epochs) >= 3:
                    pid = c.run(os.getpid, workers=[address])[address]
                    os.kill(pid, signal.SIGKILL)
                    killed.update(address=address, pid=pid, epoch=max(epochs))
                    break
            time.sleep(0.002)
        thread.join(120)
        assert killed, "no shard pass was seen running"
        assert killed["pid"] not in c.run(os.getpid).values()
    _assert_same(out["model"], undisturbed)


def test_partial_fit_in_a_given_order_is_a_shuffled_pass_of_fit():
    X, scores = _data(8, n=300)
    y = np.argmax(scores, axis=1)
    serial = Predtron(Multiclass(3), shuffle=True, random_state=4, average=True).fit(X, y, epochs=3)
    rng = np.random.default_rng(4)
    stepwise = Predtron(Multiclass(3), average=True)
    for _ in range(3):
        stepwise.partial_fit(X, y, order=rng.permutation(len(X)))
    assert np.array_equal(stepwise.coef_, serial.coef_)
    assert stepwise.cumulative_loss_ == serial.cumulative_loss_
    with pytest.raises(ValueError, match=r"order must be a permutation of 0\.\.299"):
        stepwise.partial_fit(X, y, order=np.zeros(300, dtype=int))


def test_arff_files_for_the_multilabel_classifier(client):
    from predtron.data import get_data_home, load_emotions

    path = get_data_home() / "mulan-emotions" / "emotions-train.arff.gz"
    model = DaskPredtronMultilabelClassifier(random_state=0, epochs=3, client=client)
    model.fit([str(path)], file_options={"n_labels": 6})
    data = load_emotions("train")
    _assert_same(model.to_local(), PredtronMultilabelClassifier(random_state=0, epochs=3).fit(data.X, data.Y))


def test_pooled_preprocessing_is_the_estimators_on_the_whole_data(client):
    """Several shards: the scaler and eta="auto" pooled from the shards are what the local
    estimator computes on all the data, bit for bit (exact statistics), for its rule of each (indicator
    features left alone, sparse input scaled by max |x|, the multilabel Hamming step)."""
    import scipy.sparse as sp

    from predtron.dask.cli import row_blocks

    X, scores = _data(9, n=300)
    X[:, 1] = (X[:, 1] > 0).astype(float)  # a 0/1 indicator
    X[:, 2] = 3.0  # a constant
    Y = (scores > 0.3).astype(int)
    serial = PredtronMultilabelClassifier(epochs=1).fit(X, Y)
    dask_model = DaskPredtronMultilabelClassifier(epochs=1, client=client).fit(
        da.from_array(X, chunks=(100, 6)), da.from_array(Y, chunks=(100, 3)))
    # exact statistics: the same scaler and step bit for bit, however the rows are cut
    assert np.array_equal(dask_model.model_.scaler_.mean, serial.scaler_.mean)
    assert np.array_equal(dask_model.model_.scaler_.scale, serial.scaler_.scale)
    assert dask_model.model_.scaler_.mean[1] == 0 and dask_model.model_.scaler_.scale[1] == 1
    assert dask_model.eta_ == serial.eta_
    csr = sp.csr_matrix(np.where(X > 0.5, X, 0.0))
    y = np.argmax(scores, axis=1)
    serial = PredtronClassifier(epochs=1).fit(csr, y)
    dask_model = DaskPredtronClassifier(epochs=1, client=client).fit(row_blocks(csr, [0, 120, 300]),
                                                                    da.from_array(y, chunks=((120, 180),)))
    assert dask_model.model_.scaler_.mean is None
    assert np.array_equal(dask_model.model_.scaler_.scale, serial.scaler_.scale)
    assert dask_model.eta_ == serial.eta_


def test_dask_dataframes_fit_as_the_arrays_they_hold(client):
    """A Dask dataframe (features) and series (labels, query ids) fit exactly as the Dask arrays
    of the same partitions: one partition is the serial fit; the ranker's qid series keeps its
    queries whole."""
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, scores = _data(seed=5)
    y = scores.argmax(axis=1)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    params = dict(epochs=3, random_state=0)
    one = DaskPredtronClassifier(**params, client=client).fit(dd.from_pandas(frame, npartitions=1),
                                                             dd.from_pandas(pd.Series(y), npartitions=1))
    _assert_same(one.to_local(), PredtronClassifier(**params).fit(frame, y))
    two = DaskPredtronClassifier(**params, client=client).fit(dd.from_pandas(frame, npartitions=2),
                                                             dd.from_pandas(pd.Series(y), npartitions=2))
    arrays = DaskPredtronClassifier(**params, client=client).fit(da.from_array(X, chunks=(200, X.shape[1])),
                                                                da.from_array(y, chunks=200))
    _assert_same(two.to_local(), arrays.to_local())
    assert np.array_equal(np.asarray(two.predict(dd.from_pandas(frame, npartitions=2))), arrays.to_local().predict(X))
    qid = np.repeat(np.arange(40), 10)
    grades = scores[:, 0].round().clip(0, 2).astype(int)
    ranker = DaskPredtronRanker(epochs=2, random_state=0, client=client).fit(
        dd.from_pandas(frame, npartitions=2), dd.from_pandas(pd.Series(grades), npartitions=2),
        qid=dd.from_pandas(pd.Series(qid), npartitions=2))
    same = DaskPredtronRanker(epochs=2, random_state=0, client=client).fit(
        da.from_array(X, chunks=(200, X.shape[1])), da.from_array(grades, chunks=200),
        qid=da.from_array(qid, chunks=200))
    _assert_same(ranker.to_local(), same.to_local())


def test_parity_with_lightgbm_dask_score_pickle_save(client, tmp_path):
    """score, decision_function only where the local estimator has one, pickling without the
    client, predtron.save and load."""
    import pickle

    _, dask_cls, X, y, _ = _cases()[1]
    Xd, yd = da.from_array(X, chunks=(100, 6)), da.from_array(y, chunks=100)
    model = dask_cls(random_state=1, epochs=4, client=client).fit(Xd, yd)
    local = model.to_local()
    assert abs(model.score(Xd, yd) - local.score(X, y)) < 1e-12
    assert model.score(X, y) == local.score(X, y)
    again = pickle.loads(pickle.dumps(model))
    assert again.client is None and np.array_equal(again.predict(X), model.predict(X))
    loaded = load(save(model, tmp_path / "dask.npz"))
    assert type(loaded) is dask_cls
    _assert_same(loaded.to_local(), local)
    assert np.array_equal(loaded.shard_losses_, model.shard_losses_)
    ranker = _cases()[4][1]
    assert not hasattr(ranker(), "decision_function")
    assert hasattr(model, "decision_function")


def test_labels_and_partitions_are_checked_as_the_local_estimator_checks_them(client):
    _, dask_cls, X, y, _ = _cases()[1]
    bad = y.astype(float)
    bad[250] = np.nan
    with pytest.raises(ValueError, match="y must not contain NaN or infinite values"):
        dask_cls(client=client).fit(da.from_array(X, chunks=(100, 6)), da.from_array(bad, chunks=100))
    with pytest.raises(ValueError, match="Unknown label type"):
        dask_cls(client=client).fit(da.from_array(X, chunks=(100, 6)),
                                    da.from_array(X[:, 0] * 1.001, chunks=100))
    # a zero-row partition is skipped: the fit equals the fit without it
    Xd = da.concatenate([da.from_array(X[:200], chunks=(200, 6)), da.from_array(X[:0], chunks=(0, 6)),
                         da.from_array(X[200:], chunks=(200, 6))])
    yd = da.concatenate([da.from_array(y[:200], chunks=200), da.from_array(y[:0], chunks=0),
                         da.from_array(y[200:], chunks=200)])
    with_empty = dask_cls(random_state=2, epochs=3, client=client).fit(Xd, yd)
    without = dask_cls(random_state=2, epochs=3, client=client).fit(da.from_array(X, chunks=(200, 6)),
                                                                    da.from_array(y, chunks=200))
    assert with_empty.n_shards_ == 2
    _assert_same(with_empty.to_local(), without.to_local())


def test_a_killed_cluster_fit_resumes_to_the_uninterrupted_model_bit_for_bit(client, tmp_path):
    _, dask_cls, X, y, _ = _cases()[1]
    Xd, yd = da.from_array(X, chunks=(100, 6)), da.from_array(y, chunks=100)
    params = {"random_state": 5, "epochs": 7, "tol": None, "mixing_rounds": 2, "client": client}
    whole = dask_cls(**params).fit(Xd, yd)

    class Killed(Exception):
        pass

    def kill(epoch):
        if epoch == 3:
            raise Killed

    with pytest.raises(Killed):
        dask_cls(**params).fit(Xd, yd, checkpoint=tmp_path, progress=kill)
    assert json.loads((tmp_path / "progress.json").read_text())["epoch"] == 3
    seen = []
    resumed = dask_cls(**params).fit(Xd, yd, checkpoint=tmp_path, resume=True, progress=seen.append)
    assert seen == [4, 5, 6, 7]
    _assert_same(resumed.to_local(), whole.to_local())
    assert np.array_equal(resumed.shard_losses_, whole.shard_losses_)
    with pytest.raises(ValueError, match="written by another fit"):
        dask_cls(**{**params, "epochs": 8}).fit(Xd, yd, checkpoint=tmp_path, resume=True)
    # other data of the same shape, scale and step (rows or columns permuted, labels changed) are refused too
    other_labels = y.copy()
    other_labels[:20] = np.roll(other_labels[:20], 1)
    for X2, y2 in ((X[::-1], y[::-1]), (X[:, ::-1], y), (X, other_labels)):
        with pytest.raises(ValueError, match=r"written by another fit \(it differs in: .*data\[0\]"):
            dask_cls(**params).fit(da.from_array(X2, chunks=Xd.chunks), da.from_array(y2, chunks=yd.chunks),
                                   checkpoint=tmp_path, resume=True)


def test_mixing_rounds_with_one_shard_are_the_serial_fit(client):
    local_cls, dask_cls, X, y, _ = _cases()[2]
    serial = local_cls(random_state=3, epochs=4).fit(X, y)
    model = dask_cls(random_state=3, epochs=4, mixing_rounds=3, client=client).fit(
        da.from_array(X, chunks=X.shape), da.from_array(y, chunks=len(y)))
    _assert_same(model.to_local(), serial)


def test_a_glob_of_files_is_fitted_where_the_files_are(client, tmp_path):
    from predtron.dask.cli import expand_paths, fit_files_on_cluster

    _, _, X, scores = (None, None, *_data(1))
    X = np.round(X, 3)
    X[X < 0] = 0.0
    y = np.argmax(scores, axis=1)
    bounds = [0, 100, 200, 300, 400]
    for i, (a, b) in enumerate(itertools.pairwise(bounds)):
        _write_svmlight(tmp_path / f"part-{i}.svm", X[a:b], y[a:b])
    params = {"random_state": 2, "epochs": 4, "standardize": False}
    files = expand_paths(str(tmp_path / "part-*.svm"))
    assert [Path(f).name for f in files] == [f"part-{i}.svm" for i in range(4)]
    local = fit_files_on_cluster("classify", str(tmp_path / "part-*.svm"), params, client=client,
                                 file_options={"n_features": 6})
    direct = DaskPredtronClassifier(**params, client=client).fit(files, file_options={"n_features": 6})
    _assert_same(local, direct.to_local())
    with pytest.raises(ValueError, match="matches no file"):
        expand_paths(str(tmp_path / "none-*.svm"))


def test_command_line_fits_several_files_on_the_workers(client, tmp_path):
    """``predtron fit A B --scheduler ...``: the workers read the files (one shard each); the model is
    the Dask estimator's fit on those files, a glob names the same files, and the mixed parameters
    are checkpointed after every epoch."""
    X, scores = _data(7, n=300)
    X = np.round(X, 3)
    y = np.argmax(scores, axis=1)
    paths = [tmp_path / "part-0.svm", tmp_path / "part-1.svm"]
    _write_svmlight(paths[0], X[:160], y[:160])
    _write_svmlight(paths[1], X[160:], y[160:])
    common = ["--task", "classify", "--seed", "2", "--epochs", "4", "--n-features", "6", "--quiet",
              "--scheduler", client.scheduler.address]
    assert main(["fit", *map(str, paths), *common, "--model", str(tmp_path / "files.npz"),
                 "--checkpoint", str(tmp_path / "ckpt")]) == 0
    library = DaskPredtronClassifier(random_state=2, epochs=4, client=client).fit(
        [str(p) for p in paths], file_options={"n_features": 6})
    _assert_same(load(tmp_path / "files.npz"), library.to_local())
    assert (tmp_path / "ckpt" / "progress.json").is_file()
    assert main(["fit", str(tmp_path / "part-*.svm"), *common, "--model", str(tmp_path / "glob.npz")]) == 0
    _assert_same(load(tmp_path / "glob.npz"), library.to_local())
    # several files need a cluster (a usage error); nothing is written
    assert main(["fit", *map(str, paths), "--task", "classify", "--model", str(tmp_path / "x.npz")]) == 2
    assert not (tmp_path / "x.npz").exists()


def test_files_of_different_widths_are_refused_naming_the_flag(client, tmp_path, capsys):
    """The Dask estimator asks for ``file_options={'n_features': ...}`` (its Python argument); the
    command line asks for ``--n-features N``, on one line."""
    X, scores = _data(8, n=60)
    y = np.argmax(scores, axis=1)
    paths = [tmp_path / "narrow.svm", tmp_path / "wide.svm"]
    _write_svmlight(paths[0], np.round(X[:30], 3), y[:30])
    _write_svmlight(paths[1], np.round(np.hstack([X[30:], np.ones((30, 1))]), 3), y[30:])
    with pytest.raises(ValueError, match=r"pass file_options=\{'n_features': \.\.\.\}"):
        DaskPredtronClassifier(client=client).fit([str(p) for p in paths])
    capsys.readouterr()
    assert main(["fit", *map(str, paths), "--task", "classify", "--quiet", "--scheduler", client.scheduler.address,
                 "--model", str(tmp_path / "m.npz")]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err == ("predtron fit: error: the files have different numbers of features ([6, 7]); pass --n-features N "
                   "to read them alike\n")
    assert not (tmp_path / "m.npz").exists()


def test_a_dataframe_fit_records_and_checks_column_names_as_the_local_estimator(client, tmp_path):
    """A Dask fit on a dask dataframe records its column names (``feature_names_in_``) as the local
    fit on the pandas frame does; ``to_local()``, a saved and loaded model, predictions and scores on
    a dask dataframe then refuse reordered columns as the local estimator does, and a refit on arrays
    forgets them."""
    import warnings

    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, scores = _data(seed=6, n=200, p=4)
    y = scores.argmax(axis=1)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    serial = PredtronClassifier(epochs=2, random_state=0).fit(frame, y)
    model = DaskPredtronClassifier(epochs=2, random_state=0, client=client).fit(
        dd.from_pandas(frame, npartitions=2), dd.from_pandas(pd.Series(y), npartitions=2))
    assert list(model.feature_names_in_) == list(serial.feature_names_in_) == ["a", "b", "c", "d"]
    local = model.to_local()
    assert list(local.feature_names_in_) == ["a", "b", "c", "d"]
    loaded = load(save(local, tmp_path / "local.npz"))
    again = load(save(model, tmp_path / "dask.npz"))
    assert list(again.feature_names_in_) == ["a", "b", "c", "d"]
    reordered = frame[["d", "c", "b", "a"]]
    for estimator in (serial, local, loaded, again.to_local()):
        with pytest.raises(ValueError, match="feature names"):
            estimator.predict(reordered)
    lazy = dd.from_pandas(reordered, npartitions=2)
    for call in (lambda: model.predict(lazy), lambda: model.decision_function(lazy),
                 lambda: model.score(lazy, dd.from_pandas(pd.Series(y), npartitions=2))):
        with pytest.raises(ValueError, match="feature names"):
            call()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the right columns: no warning, by partition or at the coordinator
        right = dd.from_pandas(frame, npartitions=2)
        assert np.array_equal(model.predict(right).compute(), local.predict(frame))
        assert abs(model.score(right, dd.from_pandas(pd.Series(y), npartitions=2)) - local.score(frame, y)) < 1e-12
    with pytest.warns(UserWarning, match="does not have valid feature names"):  # as the local estimator warns
        model.predict(da.from_array(X, chunks=(100, 4)))
    model.fit(da.from_array(X, chunks=(100, 4)), da.from_array(y, chunks=100))
    assert not hasattr(model, "feature_names_in_") and not hasattr(model.to_local(), "feature_names_in_")
    # a checkpoint of the frame's fit is not resumed with its columns reordered (same numbers, same scale sum)
    yd = dd.from_pandas(pd.Series(y), npartitions=2)
    DaskPredtronClassifier(epochs=1, random_state=0, client=client).fit(
        dd.from_pandas(frame, npartitions=2), yd, checkpoint=tmp_path / "ckpt")
    with pytest.raises(ValueError, match="feature_names"):
        DaskPredtronClassifier(epochs=2, random_state=0, client=client).fit(
            dd.from_pandas(reordered, npartitions=2), yd, checkpoint=tmp_path / "ckpt", resume=True)


def test_queries_cut_by_partitions_or_both_query_keywords_are_refused_as_the_local_ranker_refuses_them(client):
    """A query whose rows come back in a later partition, or continue across an empty partition,
    was fitted as two queries; qid and group together fitted by qid, group ignored.  Each is
    refused, with the local estimator's message where it has one."""
    _, dask_cls, X, y, split = _cases()[4]
    qid = np.repeat(np.arange(40), 10)
    back = qid.copy()
    back[300:310] = 0  # query 0's rows: 0..9 and 300..309
    with pytest.raises(ValueError, match="the rows of query 0 are not contiguous") as local_error:
        PredtronRanker(epochs=1).fit(X, y, qid=back)
    with pytest.raises(ValueError, match="the rows of query 0 are not contiguous") as dask_error:
        dask_cls(client=client, epochs=1).fit(da.from_array(X, chunks=(100, 6)), da.from_array(y, chunks=100),
                                              qid=da.from_array(back, chunks=100))
    assert str(dask_error.value) == str(local_error.value)
    rows = ((105, 0, 295),)  # query 10 continues after an empty partition
    with pytest.raises(ValueError, match=r"partition 1 of X ends inside query 10 \(it continues in partition 3\)"):
        dask_cls(client=client, epochs=1).fit(da.from_array(X, chunks=(rows[0], 6)), da.from_array(y, chunks=rows),
                                              qid=da.from_array(qid, chunks=rows))
    with pytest.raises(ValueError, match="give exactly one of qid"):
        dask_cls(client=client, epochs=1).fit(da.from_array(X, chunks=(100, 6)), da.from_array(y, chunks=100),
                                              qid=da.from_array(qid, chunks=100), **split)


def test_a_checkpoint_or_cache_path_that_is_a_file_is_refused_naming_the_argument(client, tmp_path):
    """``checkpoint=`` or ``cache=`` naming a file (an input, say) raised FileExistsError from mkdir,
    after the data were read; refused with a ValueError naming the argument, the file untouched."""
    _, dask_cls, X, y, _ = _cases()[1]
    path = tmp_path / "a.svm"
    _write_svmlight(path, np.round(X[:50], 3), y[:50])
    before = path.read_bytes()
    with pytest.raises(ValueError, match="checkpoint must be a folder"):
        dask_cls(client=client, epochs=1).fit(da.from_array(X, chunks=(200, 6)), da.from_array(y, chunks=200),
                                              checkpoint=path)
    with pytest.raises(ValueError, match="cache must be a folder"):
        dask_cls(client=client, epochs=1, shuffle=False).fit([str(path)], stream=True, cache=path)
    with pytest.raises(ValueError, match="resume=True needs checkpoint="):
        dask_cls(client=client, epochs=1).fit(da.from_array(X, chunks=(200, 6)), da.from_array(y, chunks=200),
                                              resume=True)
    assert path.read_bytes() == before


def test_clone_shares_the_client_and_scikit_learn_model_selection_runs(client):
    """scikit-learn's clone deep-copied the client= parameter and failed (TypeError: cannot pickle
    '_asyncio.Task'), so GridSearchCV and cross_val_score could not run with a client given.  The
    clone now has the same parameters and shares the client."""
    from sklearn.base import clone
    from sklearn.model_selection import cross_val_score

    _, dask_cls, X, y, _ = _cases()[0]
    model = dask_cls(client=client, epochs=2, random_state=0, mixing="loss")
    copy_ = clone(model)
    assert copy_.client is client and copy_ is not model
    assert copy_.get_params() == model.get_params()
    fitted = clone(model.fit(da.from_array(X, chunks=(200, 6)), da.from_array(y, chunks=200)))
    assert not hasattr(fitted, "model_") and model.client is client
    scores = cross_val_score(model, da.from_array(X, chunks=(100, 6)), da.from_array(y, chunks=100), cv=2)
    assert scores.shape == (2,) and np.all(scores > 0.5)


@pytest.mark.parametrize("case", [0, 2, 4], ids=["binary", "ordinal", "ranker"])
def test_a_column_vector_y_is_taken_as_the_local_estimator_takes_it(client, case):
    """A column vector y (n, 1) was refused by the Dask estimators ("y must be one label per row")
    while the local ones take it with scikit-learn's DataConversionWarning; now the same warning and
    the same model (one shard: the serial fit bit for bit)."""
    from sklearn.exceptions import DataConversionWarning

    local_cls, dask_cls, X, y, split = _cases()[case]
    params = {"random_state": 1, "epochs": 3}
    with pytest.warns(DataConversionWarning):
        serial = local_cls(**params).fit(X, y[:, None], **split)
    with pytest.warns(DataConversionWarning):
        model = dask_cls(**params, client=client).fit(da.from_array(X, chunks=X.shape),
                                                      da.from_array(y[:, None], chunks=(len(y), 1)), **split)
    _assert_same(model.to_local(), serial)


def test_fit_arguments_are_checked_before_any_work(client, tmp_path):
    """progress= that is not callable failed only after the first epoch (a raw "'int' object is not
    callable", the epoch's work lost), and a truthy string passed as resume= resumed.  Both are
    refused before the data are read, naming the argument."""
    _, dask_cls, X, y, _ = _cases()[1]
    Xd, yd = da.from_array(X, chunks=(200, 6)), da.from_array(y, chunks=200)
    with pytest.raises(ValueError, match="progress must be a callable"):
        dask_cls(client=client, epochs=1).fit(Xd, yd, progress=5)
    with pytest.raises(ValueError, match="resume must be True or False"):
        dask_cls(client=client, epochs=1).fit(Xd, yd, checkpoint=tmp_path, resume="no")
    with pytest.raises(ValueError, match="stream must be True or False"):
        dask_cls(client=client, epochs=1).fit(Xd, yd, stream="yes")


def test_labels_and_query_ids_of_unknown_or_wrong_length_are_aligned_or_refused(client):
    """y or qid with unknown partition sizes (a dask array filtered by a mask) were refused as
    "got nan" rows, or raised dask's "Chunks must be unchanging ..."; score with a y of the wrong
    length raised dask's "Chunks do not add up to shape".  Their sizes are now computed and a wrong
    length is refused naming the argument."""
    _, dask_cls, X, y, _ = _cases()[1]
    Xd, yd = da.from_array(X, chunks=(100, 6)), da.from_array(y, chunks=100)
    keep = Xd[:, 0] > -1e9  # every row, with partition sizes unknown
    model = dask_cls(random_state=0, epochs=2, client=client).fit(Xd, yd[keep])
    _assert_same(model.to_local(), dask_cls(random_state=0, epochs=2, client=client).fit(Xd, yd).to_local())
    assert model.score(Xd[keep], yd) == model.score(Xd, yd)
    with pytest.raises(ValueError, match=r"y must have one label per row of X \(400 rows\); got 350"):
        model.score(Xd, yd[:350])
    with pytest.raises(ValueError, match=r"qid must have one query id per row of X \(400 rows\); got 399"):
        DaskPredtronRanker(client=client, epochs=1).fit(Xd, yd, qid=da.from_array(np.arange(399), chunks=100))
    qid = np.repeat(np.arange(40), 10)
    ranker = DaskPredtronRanker(random_state=0, epochs=1, client=client)
    a = ranker.fit(Xd, yd % 3, qid=da.from_array(qid, chunks=100)[keep]).to_local()
    _assert_same(a, ranker.fit(Xd, yd % 3, qid=da.from_array(qid, chunks=100)).to_local())


def test_a_resumed_cluster_checkpoint_never_removes_other_files_of_its_folder(client, tmp_path):
    """On resume the mixing checkpoint removed every mixing-*.npz of its folder but its new state,
    unchecked: a user's mixing-final.npz was deleted.  Only its own states, mixing-{epoch}.npz, go."""
    _, dask_cls, X, y, _ = _cases()[1]
    Xd, yd = da.from_array(X, chunks=(200, 6)), da.from_array(y, chunks=200)
    params = {"random_state": 0, "epochs": 3, "tol": None, "client": client}

    def stop(epoch):
        if epoch == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        dask_cls(**params).fit(Xd, yd, checkpoint=tmp_path, progress=stop)
    (tmp_path / "mixing-final.npz").write_text("mine")
    dask_cls(**params).fit(Xd, yd, checkpoint=tmp_path, resume=True)
    assert (tmp_path / "mixing-final.npz").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mixing-3.npz", "mixing-final.npz", "progress.json"]


def test_the_mixing_loop_and_weights_refuse_what_they_cannot_mix():
    """iterative_parameter_mixing over no shards and mixing_weights of no losses raised
    ZeroDivisionError; epochs=0 said "start has already made 0 epochs of 0"; a start of another
    number of shards failed inside the learner's state; NaN or negative losses gave NaN or uniform
    weights silently.  Each is refused naming the argument."""
    from predtron.mixing import iterative_parameter_mixing, local_map

    X, scores = _data(n=40, p=3)
    y = np.where(scores[:, 0] > 0, 1, -1)
    prototype = Predtron(Binary(), eta=0.5)
    shards = [(X[:20], y[:20], {}), (X[20:], y[20:], {})]
    with pytest.raises(ValueError, match="shards must hold at least one shard"):
        iterative_parameter_mixing(local_map, prototype, [], 2)
    with pytest.raises(ValueError, match="epochs must be an integer >= 1"):
        iterative_parameter_mixing(local_map, prototype, shards, 0)
    start = iterative_parameter_mixing(local_map, prototype, shards, 1)
    with pytest.raises(ValueError, match="start was made on 2 shards; shards has 1"):
        iterative_parameter_mixing(local_map, prototype, shards[:1], 3, start=start)
    assert iterative_parameter_mixing(local_map, prototype, shards, 3, start=start).n_epochs == 3
    for losses in ([], [1.0, np.nan], [1.0, -2.0], [[1.0, 2.0]]):
        with pytest.raises(ValueError, match="losses must be one finite, non-negative loss per shard"):
            mixing_weights(losses, "loss")


def test_group_is_checked_by_the_local_rule_and_an_empty_first_partition_is_skipped(client):
    """The Dask ranker checked group= by rules of its own: an empty group raised IndexError, and an
    empty first partition was refused as ending "at row 0, inside query 0".  group is now checked
    by the local estimator's rule (its messages), and an empty first partition is skipped as any
    other empty partition."""
    _, dask_cls, X, y, split = _cases()[4]
    for group, match in (([], "group must be a non-empty 1-D array"), (np.full(39, 10), "group sizes sum to 390"),
                         ([10, 0, *[10] * 39], r"group\[1\] must be >= 1")):
        with pytest.raises(ValueError, match=match):
            dask_cls(client=client, epochs=1).fit(da.from_array(X, chunks=(200, 6)), da.from_array(y, chunks=200),
                                                  group=group)
    rows = ((0, 400),)
    model = dask_cls(client=client, epochs=2, random_state=0).fit(da.from_array(X, chunks=(rows[0], 6)),
                                                                  da.from_array(y, chunks=rows), **split)
    serial = PredtronRanker(epochs=2, random_state=0).fit(X, y, **split)
    assert model.n_shards_ == 1
    _assert_same(model.to_local(), serial)


@pytest.mark.parametrize("task", ["classify", "rank"])
def test_command_line_progress_of_an_in_memory_cluster_fit(client, tmp_path, capsys, task):
    """``fit FILE --workers N --progress`` (one file read by the command, shards sent to the workers)
    showed no bar at all: only the fits whose workers read their files passed a progress callable."""
    X, scores = _data(5, n=120)
    y = np.argmax(scores, axis=1)
    train = tmp_path / "train.svm"
    with train.open("w") as handle:
        for i, (row, label) in enumerate(zip(np.round(X, 4), y, strict=True)):
            features = " ".join(f"{j + 1}:{v}" for j, v in enumerate(row))
            handle.write(f"{label} qid:{i // 10} {features}\n")
    capsys.readouterr()
    assert main(["fit", str(train), "--task", task, "--model", str(tmp_path / "m.npz"), "--epochs", "3",
                 "--no-early-stopping", "--scheduler", client.scheduler.address, "--shards", "2", "--progress"]) == 0
    err = capsys.readouterr().err
    assert "mixing" in err and "3/3" in err, err


def test_command_line_cluster_fit_of_a_large_file_warns_nothing(client, tmp_path):
    """``fit FILE --workers N`` on a file of some 10 MB printed Dask's "Sending large graph of size 11 MiB
    ... Consider loading the data with Dask directly or using futures", advice no user of the
    command line can act on (the command reads the file and ships its shards, by design)."""
    import warnings

    from predtron.dask.cli import fit_on_cluster

    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 70))
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = fit_on_cluster("classify", X, y, None, {"epochs": 1, "random_state": 0},
                               scheduler=client.scheduler.address, shards=2)
    assert model.n_iter_ == 1
    assert not [w for w in caught if "large graph" in str(w.message)], [str(w.message)[:80] for w in caught]


def test_command_line_summary_of_a_cluster_fit_of_one_file(client, tmp_path, capsys):
    """The summary of a cluster fit whose worker read one file said 'on 1 files'."""
    X, scores = _data(5, n=60)
    train = tmp_path / "train.svm"
    _write_svmlight(train, np.round(X, 4), np.argmax(scores, axis=1))
    capsys.readouterr()
    assert main(["fit", str(train), "--task", "classify", "--model", str(tmp_path / "m.npz"), "--epochs", "2",
                 "--stream", "--scheduler", client.scheduler.address]) == 0
    out = capsys.readouterr().out
    assert ": 1 file on a Dask cluster," in out, out


def test_command_line_mixing_rounds(client, tmp_path, capsys):
    """The Dask estimators' mixing_rounds had no option, though every estimator parameter has one (the
    README's promise): --mixing-rounds R sets it, for shards the command sends and files the workers
    read, and is refused without a cluster."""
    from predtron.cli import build_parser

    X, scores = _data(5, n=90)
    train = tmp_path / "train.svm"
    _write_svmlight(train, np.round(X, 4), np.argmax(scores, axis=1))
    common = ["fit", str(train), "--task", "classify", "--epochs", "2", "--quiet", "--scheduler",
              client.scheduler.address]
    for extra in ([], ["--stream"]):
        models = {}
        for rounds in ("1", "3"):
            path = tmp_path / f"m{rounds}{len(extra)}.npz"
            shards = [] if extra else ["--shards", "2"]  # (a file the worker streams is one shard)
            assert main([*common, "--model", str(path), *shards, "--mixing-rounds", rounds, *extra]) == 0
            models[rounds] = load(path)
        if not extra:  # two shards mixed once or three times per epoch: two models
            assert not np.array_equal(models["1"].coef_, models["3"].coef_)
    args = build_parser("fit").parse_args(["fit", "x", "--task", "classify", "--model", "m", "--mixing-rounds", "4"])
    assert args.mixing_rounds == 4
    capsys.readouterr()
    assert main(["fit", str(train), "--task", "classify", "--model", str(tmp_path / "x.npz"), "--mixing-rounds",
                 "2"]) == 2
    assert "--mixing-rounds applies to a fit on a Dask cluster" in capsys.readouterr().err


def test_an_ordered_categorical_dask_y_whose_order_is_not_sorted_is_refused_by_the_ordinal_fit():
    """A dask series of ordered categories low < medium < high was fitted with the levels sorted
    (high < low < medium), silently, as the local fit did: it is refused before the shards, naming both
    orders, with known and with unknown categories; the codes fit."""
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, _ = _data(7, n=60, p=2)
    names = np.array(["low", "medium", "high"])[np.digitize(X[:, 0], np.quantile(X[:, 0], [1 / 3, 2 / 3]))]
    y = pd.Series(pd.Categorical(names, categories=["low", "medium", "high"], ordered=True))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        Xd = dd.from_pandas(pd.DataFrame(X, columns=["a", "b"]), npartitions=2)
        known = dd.from_pandas(y, npartitions=2)
        for yd in (known, known.cat.as_unknown()):
            with pytest.raises(ValueError, match=r"y is an ordered pandas Categorical whose levels run \['low', "
                                                 r"'medium', 'high'\].*DaskPredtronOrdinalClassifier"):
                DaskPredtronOrdinalClassifier(random_state=0, epochs=2, client=c).fit(Xd, yd)
        codes = DaskPredtronOrdinalClassifier(random_state=0, epochs=2, client=c).fit(Xd, known.cat.codes)
        assert codes.classes_.tolist() == [0, 1, 2]


def test_a_cost_matrix_that_is_not_a_matrix_is_refused_by_the_dask_fit_as_by_the_local_fit():
    """A ragged cost_matrix raised NumPy's 'setting an array element with a sequence' from the Dask fit,
    and a string was 'got shape ()': the Dask fit now checks it with the local fit's check and messages."""
    X, scores = _data(8, n=60, p=3)
    y = np.argmax(scores[:, :2], axis=1)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        Xd, yd = da.from_array(X, chunks=(30, 3)), da.from_array(y, chunks=30)
        for matrix in ([[0, 1], [1]], "ab", [[0, np.nan], [1, 0]], [[0, 1, 1], [1, 0, 1], [1, 1, 0]]):
            with pytest.raises(ValueError) as local:
                PredtronClassifier(cost_matrix=matrix, epochs=2).fit(X, y)
            with pytest.raises(ValueError) as distributed_fit:
                DaskPredtronClassifier(cost_matrix=matrix, epochs=2, client=c).fit(Xd, yd)
            assert str(distributed_fit.value) == str(local.value)
            assert str(local.value).startswith("cost_matrix ")


def test_file_options_are_checked_before_any_file_is_read(tmp_path):
    """file_options that is not a dict raised Python's 'cannot convert dictionary update sequence element',
    and a key the reader does not take raised the reader's own TypeError from a worker: both are refused
    before any read, naming file_options and the reader's options."""
    path = tmp_path / "a.svm"
    path.write_text("1 1:0.5 3:1\n-1 2:1\n1 1:2\n-1 3:0.5\n")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        model = DaskPredtronClassifier(epochs=2, client=c)
        with pytest.raises(TypeError, match=r"file_options must be a dict of keyword arguments of "
                                            r"predtron\.data\.load_svmlight; got list: \[1\]"):
            model.fit([str(path)], file_options=[1])
        with pytest.raises(TypeError, match=r"file_options holds \['bogus'\], which predtron\.data\.load_svmlight "
                                            r"does not take; its options are \[.*'n_features'"):
            model.fit([str(path)], file_options={"bogus": 1})
        with pytest.raises(TypeError, match=r"which predtron\.data\.iter_svmlight does not take"):
            DaskPredtronClassifier(epochs=2, shuffle=False, client=c).fit([str(path)], file_options={"bogus": 1},
                                                                          stream=True)
        assert model.fit([str(path)], file_options={"n_features": 4, "chunk_rows": 2}).n_features_in_ == 4
