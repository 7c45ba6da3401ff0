"""Streamed fits: ``partial_fit`` of the estimators, ``predtron fit --stream``, checkpoints and resume.

A fit streamed over chunks (read from files on disk) must equal the in-memory fit with the same
options, bit for bit, for one and several epochs; a fit killed after an epoch and resumed from its
checkpoint must equal the uninterrupted fit bit for bit; a truncated file must end the command
with its file and line and leave an existing model untouched.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import predtron.cli_stream as cli_stream
from predtron import load
from predtron.cli import main
from predtron.data import load_letor
from predtron.sklearn import (
    PredtronClassifier,
    PredtronMultilabelClassifier,
    PredtronOrdinalClassifier,
    PredtronRanker,
)

ROOT = Path(__file__).resolve().parents[1]
VALI = ROOT / "predtron" / "data" / "files" / "letor-mq2008-fold1" / "vali.txt.gz"
PLAIN = {"standardize": False, "eta": 0.5, "shuffle": False, "tol": None}


def same_model(a, b, epochs_counted: bool = True) -> None:
    """Two fitted estimators hold the same state, bit for bit (``epochs_counted=False``: but for the
    learner's count of ``fit`` epochs, which ``partial_fit`` alone does not keep)."""
    sa, aa = a._get_state()
    sb, ab = b._get_state()
    if not epochs_counted:
        sa["learner"].pop("n_epochs_")
    assert sa == sb
    assert aa.keys() == ab.keys()
    for key in aa:
        a_bytes, b_bytes = np.ascontiguousarray(aa[key]), np.ascontiguousarray(ab[key])
        assert a_bytes.dtype == b_bytes.dtype and a_bytes.tobytes() == b_bytes.tobytes(), key


def same_files(a: Path, b: Path) -> None:
    same_model(load(a), load(b))


# ------------------------------------------------------------------ partial_fit
def _data(sparse: bool):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((240, 6))
    X[rng.random(X.shape) < 0.5] = 0.0
    return (sp.csr_matrix(X) if sparse else X), rng


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("epochs", [1, 3])
@pytest.mark.parametrize("average", [False, True])
def test_partial_fit_over_chunks_equals_fit(sparse, epochs, average):
    X, rng = _data(sparse)
    y = rng.integers(0, 3, 240)
    Y = (rng.random((240, 4)) < 0.3).astype(int)
    group = np.full(12, 20)
    cases = [(PredtronClassifier, y, {"classes": [0, 1, 2]}, {}),
             (PredtronOrdinalClassifier, y, {"classes": [0, 1, 2]}, {}),
             (PredtronMultilabelClassifier, Y, {}, {}),
             (PredtronRanker, y, {}, {"group": group})]
    for cls, target, first, split in cases:
        options = {**PLAIN, "epochs": epochs, "average": average}
        whole = cls(**options).fit(X, target, **split)
        streamed = cls(**options)
        for _ in range(epochs):
            for start in range(0, 240, 60):
                keywords = dict(first) if not hasattr(streamed, "learner_") else {}
                if split:
                    keywords["group"] = group[start // 20:(start + 60) // 20]
                streamed.partial_fit(X[start:start + 60], target[start:start + 60], **keywords)
        same_model(whole, streamed, epochs_counted=False)
        assert np.array_equal(whole.predict(X), streamed.predict(X))


def test_partial_fit_freezes_scaling_and_step_from_the_first_batch():
    X, rng = _data(False)
    y = rng.integers(0, 2, 240)
    model = PredtronClassifier(shuffle=False).partial_fit(X[:100], y[:100], classes=[0, 1])
    scale, eta = model.scaler_.scale.copy(), model.eta_
    model.partial_fit(X[100:] * 10.0, y[100:])
    assert np.array_equal(model.scaler_.scale, scale) and model.eta_ == eta
    reference = PredtronClassifier(shuffle=False, epochs=1, tol=None).fit(X[:100], y[:100])
    assert np.array_equal(reference.scaler_.scale, scale) and reference.eta_ == eta


def test_partial_fit_conventions_and_errors():
    X, rng = _data(False)
    y = rng.integers(0, 3, 240)
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        PredtronClassifier().partial_fit(X, y)
    model = PredtronClassifier().partial_fit(X[:10], y[:10], classes=[0, 1, 2, 3])  # classes not all in the batch
    assert model.classes_.tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match=r"y holds labels not in classes_"):
        model.partial_fit(X[:10], np.full(10, 7))
    with pytest.raises(ValueError, match="classes must equal the classes of the first call"):
        model.partial_fit(X[:10], y[:10], classes=[0, 1])
    with pytest.raises(ValueError, match="X has 3 features"):
        model.partial_fit(X[:10, :3], y[:10])
    with pytest.raises(ValueError, match="reject_cost"):
        PredtronClassifier(reject_cost=0.3).partial_fit(X, y, classes=[0, 1, 2])
    Y = (rng.random((240, 4)) < 0.3).astype(int)
    multi = PredtronMultilabelClassifier().partial_fit(X[:50], Y[:50])
    assert multi.n_labels_ == 4
    with pytest.raises(ValueError, match="4 label columns"):
        multi.partial_fit(X[:50], Y[:50, :3])
    fitted = PredtronOrdinalClassifier(epochs=2).fit(X, y)  # fit, then continue with partial_fit
    fitted.partial_fit(X[:20], y[:20])
    assert fitted.learner_.n_rounds_ == 2 * 240 + 20


# ------------------------------------------------------------------ the command line
def _svm(tmp_path, n=600, classes=3, name="train.svm", seed=0):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((classes, 8))
    lines = []
    for _ in range(n):
        x = np.round(rng.standard_normal(8), 4)
        label = int(np.argmax(W @ x + 0.3 * rng.standard_normal(classes)))
        lines.append(f"{label} " + " ".join(f"{j + 1}:{v}" for j, v in enumerate(x) if v != 0))
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


ALGORITHM_1 = ["--no-average", "--no-shuffle", "--no-standardize", "--no-intercept", "--eta", "1"]


@pytest.mark.parametrize("task", ["classify", "ordinal"])
@pytest.mark.parametrize("extra", [["--epochs", "1"], ["--epochs", "3", "--average", "--intercept"]])
def test_fit_stream_equals_the_in_memory_fit(tmp_path, capsys, task, extra):
    path = _svm(tmp_path)
    options = ["--task", task, *ALGORITHM_1, *extra]
    assert main(["fit", str(path), "--model", str(tmp_path / "a.npz"), *options]) == 0
    assert main(["fit", str(path), "--model", str(tmp_path / "b.npz"), *options, "--stream", "--chunk-rows",
                 "64"]) == 0
    assert main(["fit", str(path), "--model", str(tmp_path / "c.npz"), *options, "--stream", "--chunk-rows", "50",
                 "--cache", str(tmp_path / "train.cache"), "--classes", "0", "1", "2", "--n-features", "8"]) == 0
    out = capsys.readouterr().out
    assert "600 examples x 8 features, 3 " in out and "streamed" in out
    same_files(tmp_path / "a.npz", tmp_path / "b.npz")
    same_files(tmp_path / "a.npz", tmp_path / "c.npz")
    assert (tmp_path / "train.cache").is_file()
    # predict and evaluate stream too, with the same output
    for command in (["predict"], ["evaluate"]):
        assert main([*command, str(path), "--model", str(tmp_path / "a.npz")]) == 0
        whole = capsys.readouterr().out
        assert main([*command, str(path), "--model", str(tmp_path / "a.npz"), "--stream", "--chunk-rows", "70"]) == 0
        assert capsys.readouterr().out == whole


def test_a_streamed_fit_without_a_checkpoint_does_not_describe_its_file(tmp_path, monkeypatch):
    """Describing the training file (its SHA-256) reads all of it; only a checkpoint records it."""
    import predtron.data.cache as cache

    path = _svm(tmp_path)
    described = []
    real = cache.describe_source
    monkeypatch.setattr(cache, "describe_source", lambda source: described.append(source) or real(source))
    options = ["--task", "classify", *ALGORITHM_1, "--stream", "--quiet"]
    assert main(["fit", str(path), "--model", str(tmp_path / "a.npz"), *options]) == 0
    assert described == []
    assert main(["fit", str(path), "--model", str(tmp_path / "b.npz"), *options, "--checkpoint",
                 str(tmp_path / "state")]) == 0
    assert described == [str(path)]
    same_files(tmp_path / "a.npz", tmp_path / "b.npz")


def test_rank_stream_on_the_shipped_file_equals_the_in_memory_fit(tmp_path, capsys):
    options = ["--task", "rank", "--no-shuffle", "--no-standardize", "--eta", "0.01", "--epochs", "2", "--sparse"]
    assert main(["fit", str(VALI), "--model", str(tmp_path / "a.npz"), *options]) == 0
    assert main(["fit", str(VALI), "--model", str(tmp_path / "b.npz"), *options, "--stream", "--chunk-rows",
                 "300"]) == 0
    out = capsys.readouterr().out
    assert f"{len(load_letor(VALI).group)} queries" in out
    same_files(tmp_path / "a.npz", tmp_path / "b.npz")
    assert main(["evaluate", str(VALI), "--model", str(tmp_path / "a.npz"), "--k", "5", "--sparse"]) == 0
    whole = capsys.readouterr().out
    assert main(["evaluate", str(VALI), "--model", str(tmp_path / "a.npz"), "--k", "5", "--stream"]) == 0
    streamed = capsys.readouterr().out
    values = [dict(line.split(": ") for line in out.splitlines()) for out in (whole, streamed)]
    assert list(values[0]) == list(values[1]) == ["ndcg@5", "map"]
    assert all(abs(float(values[0][name]) - float(values[1][name])) <= 1e-4 for name in values[0])


def test_rank_scores_written_by_predict_are_the_same_in_any_chunks_and_layout(tmp_path, capsys):
    """Ranking scores are written with every digit: in memory (the shipped file is read dense),
    streamed sparse or dense, in chunks of any size, the lines are the same byte for byte."""
    model = tmp_path / "r.npz"
    assert main(["fit", str(VALI), "--task", "rank", "--model", str(model), "--seed", "0"]) == 0
    assert main(["predict", str(VALI), "--model", str(model), "--output", str(tmp_path / "whole.txt")]) == 0
    whole = (tmp_path / "whole.txt").read_bytes()
    assert len(set(whole.splitlines())) > 100  # scores, not ties
    for flags in (["--chunk-rows", "7"], ["--chunk-rows", "33", "--dense"], ["--chunk-rows", "1", "--dense"]):
        out = tmp_path / f"streamed{'-'.join(flags)}.txt"
        assert main(["predict", str(VALI), "--model", str(model), "--output", str(out), "--stream", *flags]) == 0
        assert out.read_bytes() == whole, flags


def test_stream_refusals(tmp_path, capsys):
    path = _svm(tmp_path)
    model = str(tmp_path / "m.npz")
    assert main(["fit", str(path), "--task", "classify", "--model", model, "--stream", "--shuffle"]) == 2
    assert "--shuffle does not apply to --stream" in capsys.readouterr().err
    assert main(["fit", str(path), "--task", "classify", "--model", model, "--cache", "x"]) == 2
    assert "--cache applies to --stream" in capsys.readouterr().err
    assert main(["fit", str(path), "--task", "classify", "--model", model, "--resume"]) == 2
    assert "--resume needs --checkpoint" in capsys.readouterr().err
    arff = ROOT / "predtron" / "data" / "files" / "mulan-emotions" / "emotions-train.arff.gz"
    assert main(["fit", str(arff), "--task", "multilabel", "--labels", "6", "--model", model, "--stream", "--cache",
                 "x"]) == 1
    assert "--cache applies to svmlight files" in capsys.readouterr().err


def test_multilabel_arff_streams_and_equals_the_in_memory_fit(tmp_path, capsys):
    train = ROOT / "predtron" / "data" / "files" / "mulan-emotions" / "emotions-train.arff.gz"
    test = ROOT / "predtron" / "data" / "files" / "mulan-emotions" / "emotions-test.arff.gz"
    options = ["--task", "multilabel", "--labels", "6", "--no-shuffle", "--no-standardize", "--eta", "0.1",
               "--epochs", "3", "--quiet"]
    assert main(["fit", str(train), "--model", str(tmp_path / "a.npz"), *options]) == 0
    assert main(["fit", str(train), "--model", str(tmp_path / "b.npz"), *options, "--stream", "--chunk-rows",
                 "100"]) == 0
    same_files(tmp_path / "a.npz", tmp_path / "b.npz")
    for command in (["predict"], ["evaluate"]):
        assert main([*command, str(test), "--model", str(tmp_path / "a.npz")]) == 0
        whole = capsys.readouterr().out
        assert main([*command, str(test), "--model", str(tmp_path / "a.npz"), "--stream", "--chunk-rows", "77"]) == 0
        streamed = capsys.readouterr().out
        if command == ["predict"]:
            assert streamed == whole
        else:
            for a, b in zip(whole.splitlines(), streamed.splitlines(), strict=True):
                assert a.split(": ")[0] == b.split(": ")[0]
                assert abs(float(a.split(": ")[1]) - float(b.split(": ")[1])) <= 1e-4


def test_the_dense_size_hint_names_command_line_flags(tmp_path, capsys, monkeypatch):
    import predtron.data.opening as files

    monkeypatch.setattr(files, "MAX_DENSE_ENTRIES", 100)
    path = _svm(tmp_path, n=50)
    assert main(["fit", str(path), "--task", "classify", "--model", str(tmp_path / "m.npz"), "--dense"]) == 1
    err = capsys.readouterr().err
    assert "pass --sparse" in err and "--stream" in err and "sparse=True" not in err
    # Without --dense, features that a dense matrix could not hold stay sparse, whatever their density.
    assert main(["fit", str(path), "--task", "classify", "--model", str(tmp_path / "m.npz"), "--quiet"]) == 0


@pytest.mark.parametrize("stream", [False, True])
def test_a_truncated_file_is_reported_by_line_and_the_model_is_untouched(tmp_path, capsys, stream):
    path = _svm(tmp_path, n=20_000)
    model = tmp_path / "m.npz"
    assert main(["fit", str(path), "--task", "classify", "--model", str(model), "--epochs", "1"]) == 0
    before = model.read_bytes()
    capsys.readouterr()
    data = gzip.compress(path.read_bytes())
    bad = tmp_path / "train.svm.gz"
    bad.write_bytes(data[: len(data) * 2 // 3])
    flags = ["--stream", "--chunk-rows", "1000", "--n-features", "8", "--classes", "0", "1", "2"] if stream else []
    assert main(["fit", str(bad), "--task", "classify", "--model", str(model), *flags]) == 1
    err = capsys.readouterr().err
    assert f"{bad} could not be read after line " in err and "compressed data" in err
    assert model.read_bytes() == before
    lines = path.read_text().splitlines()
    lines[15_000] = lines[15_000].replace(":", ":x", 1)
    corrupt = tmp_path / "corrupt.svm"
    corrupt.write_text("\n".join(lines) + "\n")
    assert main(["fit", str(corrupt), "--task", "classify", "--model", str(model), *flags]) == 1
    assert f"{corrupt}, line 15001: the feature value" in capsys.readouterr().err
    assert model.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("m.npz")) == ["m.npz"]


# ------------------------------------------------------------------ checkpoints
class Killed(KeyboardInterrupt):
    """Stands for the process being killed right after an epoch's checkpoint."""


def _kill_after(monkeypatch, epoch: int) -> None:
    real = cli_stream.fit_passes

    def fit_passes(*args, **kwargs):
        def after(done):
            if done == epoch:
                raise Killed

        return real(*args, **kwargs, after_epoch=after)

    monkeypatch.setattr(cli_stream, "fit_passes", fit_passes)


@pytest.mark.parametrize("flags", [
    ["--seed", "3"],  # in memory, shuffled by the seed
    ["--stream", "--chunk-rows", "100", "--no-shuffle"],
    ["--stream", "--chunk-rows", "100", "--no-shuffle", "--cache", "CACHE"],
    ["--stream", "--chunk-rows", "100", "--no-shuffle", "--statistics", "file"],  # read again only at the start
])
def test_a_killed_fit_resumes_to_the_uninterrupted_model_bit_for_bit(tmp_path, capsys, monkeypatch, flags):
    path = _svm(tmp_path)
    flags = [str(tmp_path / "train.cache") if f == "CACHE" else f for f in flags]
    options = ["--task", "classify", "--epochs", "6", *flags]
    assert main(["fit", str(path), "--model", str(tmp_path / "whole.npz"), *options, "--checkpoint",
                 str(tmp_path / "whole")]) == 0
    checkpoint = tmp_path / "ckpt"
    with monkeypatch.context() as m:
        _kill_after(m, 3)
        assert main(["fit", str(path), "--model", str(tmp_path / "resumed.npz"), *options, "--checkpoint",
                     str(checkpoint)]) == 130
    assert not (tmp_path / "resumed.npz").exists()
    assert json.loads((checkpoint / "progress.json").read_text())["epoch"] == 3
    assert main(["fit", str(path), "--model", str(tmp_path / "resumed.npz"), *options, "--checkpoint",
                 str(checkpoint), "--resume"]) == 0
    assert "6 epochs" in capsys.readouterr().out
    same_files(tmp_path / "whole.npz", tmp_path / "resumed.npz")
    assert not list(checkpoint.glob("*.tmp*"))


def test_a_checkpointed_fit_in_file_order_equals_the_plain_fit(tmp_path):
    path = _svm(tmp_path)
    options = ["--task", "ordinal", "--epochs", "4", "--no-shuffle", "--quiet"]
    assert main(["fit", str(path), "--model", str(tmp_path / "plain.npz"), *options]) == 0
    assert main(["fit", str(path), "--model", str(tmp_path / "ckpt.npz"), *options, "--checkpoint",
                 str(tmp_path / "ckpt")]) == 0
    same_files(tmp_path / "plain.npz", tmp_path / "ckpt.npz")


def test_resume_refuses_another_run(tmp_path, capsys, monkeypatch):
    path = _svm(tmp_path)
    checkpoint = tmp_path / "ckpt"
    options = ["--task", "classify", "--epochs", "4", "--seed", "1", "--checkpoint", str(checkpoint)]
    with monkeypatch.context() as m:
        _kill_after(m, 1)
        assert main(["fit", str(path), "--model", str(tmp_path / "m.npz"), *options]) == 130
    assert main(["fit", str(path), "--model", str(tmp_path / "m.npz"), *options, "--eta", "0.3", "--resume"]) == 1
    assert "was written by another fit (it differs in: --eta (checkpoint: not given; this fit: 0.3))" in \
        capsys.readouterr().err


@pytest.mark.parametrize("stream", [[], ["--stream"]], ids=["in memory", "streamed"])
def test_a_fit_killed_by_a_signal_resumes_to_the_same_model(tmp_path, stream):
    """Killed, then resumed by a new process (which has not imported scikit-learn: the checkpoint is
    read as the estimator's core that the command line fits)."""
    path = _svm(tmp_path, n=20_000, classes=6)
    options = ["--task", "ordinal", "--epochs", "30", "--seed", "0", *stream]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    whole = tmp_path / "whole.npz"
    assert main(["fit", str(path), "--model", str(whole), *options, "--quiet", "--checkpoint",
                 str(tmp_path / "whole")]) == 0
    checkpoint = tmp_path / "ckpt"
    command = [sys.executable, "-m", "predtron", "fit", str(path), "--model", str(tmp_path / "resumed.npz"), *options,
               "--checkpoint", str(checkpoint), "--quiet"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (checkpoint / "progress.json").exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    progress = json.loads((checkpoint / "progress.json").read_text())
    resumed = subprocess.run([*command, "--resume"], env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    same_files(whole, tmp_path / "resumed.npz")
    assert progress["epoch"] >= 1 and not progress["stopped"]  # killed mid-fit


def test_stream_progress_bar_over_bytes_read_on_request_only(tmp_path, capsys):
    path = _svm(tmp_path)
    model = str(tmp_path / "m.npz")
    options = ["--task", "classify", "--model", model, "--stream", "--epochs", "2", "--no-shuffle"]
    assert main(["fit", str(path), *options, "--progress"]) == 0
    err = capsys.readouterr().err
    assert "reading labels and features" in err and "epoch 2/2" in err and "B/s" in err
    assert main(["fit", str(path), *options]) == 0  # stderr is not a terminal here: no bar
    assert capsys.readouterr().err == ""
    assert main(["fit", str(path), *options, "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")


def test_a_resumed_fit_keeps_the_relative_stopping_rule(tmp_path):
    """The multilabel estimator's ``tol`` is relative to the first pass's loss: the checkpoint
    carries that unit, so a fit stopped early and resumed makes the passes of the whole fit."""
    from predtron.sklearn import PredtronMultilabelClassifier
    from predtron.streaming import fit_passes

    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 8))
    Y = ((X @ rng.normal(size=(8, 5)) + rng.normal(scale=2.0, size=(300, 5))) > 0.5).astype(int)

    def chunks(epoch):
        return [(X[i:i + 100], Y[i:i + 100], {}) for i in range(0, 300, 100)]

    def model():
        return PredtronMultilabelClassifier(shuffle=False, standardize=False, eta=0.01, epochs=40)

    whole = fit_passes(model(), chunks, checkpoint=tmp_path / "whole")
    assert 3 < whole.n_iter_ < 40
    stopping = json.loads((tmp_path / "whole" / "progress.json").read_text())["stopping"]
    assert stopping["scale"] > 0

    def kill(epoch):
        if epoch == 3:
            raise Killed

    with pytest.raises(Killed):
        fit_passes(model(), chunks, checkpoint=tmp_path / "ckpt", after_epoch=kill)
    resumed = fit_passes(model(), chunks, checkpoint=tmp_path / "ckpt", resume=True)
    assert resumed.n_iter_ == whole.n_iter_
    assert np.array_equal(resumed.learner_.coef_, whole.learner_.coef_)
    assert json.loads((tmp_path / "ckpt" / "progress.json").read_text())["stopping"] == stopping


def test_a_crash_between_the_model_and_the_progress_file_resumes_from_the_previous_epoch(tmp_path, monkeypatch):
    """The model of epoch k is on disk but the process dies before ``progress.json`` says k: the
    checkpoint is still that of epoch k - 1 (a format-1 checkpoint, one ``model.npz`` renamed
    before the progress, resumed from a model one epoch ahead and ended elsewhere)."""
    import predtron.streaming as streaming
    from predtron.streaming import fit_passes

    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 6))
    y = (X @ rng.normal(size=6) > 0).astype(int)

    def chunks(epoch):
        order = np.random.default_rng(epoch).permutation(200)
        return [(X[order[i:i + 50]], y[order[i:i + 50]], {}) for i in range(0, 200, 50)]

    def model():
        return PredtronClassifier(standardize=False, eta=0.5, tol=None, epochs=6)

    first = {"classes": [0, 1]}
    whole = fit_passes(model(), chunks, first=first, checkpoint=tmp_path / "whole")
    assert sorted(p.name for p in (tmp_path / "whole").iterdir()) == ["model-6.npz", "progress.json"]

    real = streaming._write_json

    def dies_before_the_progress_of_epoch_3(path, value):
        if value["epoch"] == 3:
            raise Killed
        real(path, value)

    with monkeypatch.context() as m:
        m.setattr(streaming, "_write_json", dies_before_the_progress_of_epoch_3)
        with pytest.raises(Killed):
            fit_passes(model(), chunks, first=first, checkpoint=tmp_path / "ckpt")
    assert json.loads((tmp_path / "ckpt" / "progress.json").read_text())["epoch"] == 2
    assert (tmp_path / "ckpt" / "model-3.npz").exists()        # written, never committed
    resumed = fit_passes(model(), chunks, first=first, checkpoint=tmp_path / "ckpt", resume=True)
    same_model(resumed, whole)
    assert sorted(p.name for p in (tmp_path / "ckpt").iterdir()) == ["model-6.npz", "progress.json"]

    # A format-1 checkpoint (model.npz) of epoch 2 is still read.
    old = tmp_path / "old"
    with pytest.raises(Killed):
        fit_passes(model(), chunks, first=first, checkpoint=old, after_epoch=lambda e: e == 2 and _raise(Killed))
    (old / "model-2.npz").rename(old / "model.npz")
    progress = json.loads((old / "progress.json").read_text())
    (old / "progress.json").write_text(json.dumps({**progress, "format": "predtron-checkpoint/1"}))
    same_model(fit_passes(model(), chunks, first=first, checkpoint=old, resume=True), whole)
    assert not (old / "model.npz").exists()


def _raise(error):
    raise error


def test_a_progress_file_missing_a_key_is_refused_naming_it(tmp_path):
    from predtron.streaming import fit_passes, permuted_chunks, read_checkpoint

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    fit_passes(PredtronClassifier(standardize=False, eta=0.5, tol=None, epochs=2), permuted_chunks(X, y, None),
               first={"classes": [-1, 1]}, checkpoint=tmp_path)
    progress = json.loads((tmp_path / "progress.json").read_text())
    del progress["stopping"]
    (tmp_path / "progress.json").write_text(json.dumps(progress))
    with pytest.raises(ValueError, match=r"progress\.json does not match its own checksum"):
        read_checkpoint(tmp_path, {})
    # A checkpoint of the previous format (not sealed) is still read, its entries checked one by one.
    legacy = {k: v for k, v in progress.items() if k not in ("digest", "state_sha256")}
    (tmp_path / "progress.json").write_text(json.dumps({**legacy, "format": "predtron-checkpoint/2"}))
    with pytest.raises(ValueError, match="damaged checkpoint: it has no entry 'stopping'"):
        read_checkpoint(tmp_path, {})


@pytest.mark.parametrize("edit", ["other model", "earlier model renamed", "epoch", "stopped"])
def test_a_checkpoint_whose_files_were_swapped_or_edited_is_refused(tmp_path, edit):
    """progress.json carries the checksum of the model it names and of its own entries: a model file
    replaced (another fit's, an earlier epoch's under the new name) or an entry edited is refused,
    where it used to resume to another model."""
    from predtron.streaming import fit_passes, permuted_chunks, read_checkpoint

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)

    def fit(folder, epochs, seed=None):
        fit_passes(PredtronClassifier(standardize=False, eta=0.5, tol=None, epochs=epochs),
                   permuted_chunks(X, y, seed), first={"classes": [-1, 1]}, checkpoint=folder)

    fit(tmp_path / "ck", 3)
    fit(tmp_path / "other", 3, seed=7)
    ck = tmp_path / "ck"
    progress = json.loads((ck / "progress.json").read_text())
    if edit == "other model":
        (tmp_path / "other" / "model-3.npz").replace(ck / "model-3.npz")
    elif edit == "earlier model renamed":
        fit(tmp_path / "two", 2)
        (tmp_path / "two" / "model-2.npz").replace(ck / "model-3.npz")
    else:
        progress.update({"epoch": 2} if edit == "epoch" else {"stopped": not progress["stopped"]})
        if edit == "epoch":
            (ck / "model-3.npz").replace(ck / "model-2.npz")
        (ck / "progress.json").write_text(json.dumps(progress))
    match = "does not match its own checksum" if edit in ("epoch", "stopped") else r"is not the state progress\.json"
    with pytest.raises(ValueError, match=match):
        read_checkpoint(ck, {})


@pytest.mark.parametrize("foreign", ["progress.json", "model-3.npz"])
def test_a_new_checkpoint_never_replaces_a_file_that_is_not_a_checkpoint_s(tmp_path, foreign):
    from predtron.streaming import fit_passes, permuted_chunks

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    (tmp_path / foreign).write_text('{"mine": 1}')
    with pytest.raises(ValueError, match=f"{foreign} exists and is not a predtron checkpoint"):
        fit_passes(PredtronClassifier(standardize=False, eta=0.5, tol=None, epochs=2), permuted_chunks(X, y, None),
                   first={"classes": [-1, 1]}, checkpoint=tmp_path)
    assert (tmp_path / foreign).read_text() == '{"mine": 1}'
    (tmp_path / foreign).unlink()  # a checkpoint of an earlier fit is the fit's own: replaced
    fit_passes(PredtronClassifier(standardize=False, eta=0.5, tol=None, epochs=2), permuted_chunks(X, y, None),
               first={"classes": [-1, 1]}, checkpoint=tmp_path)
    fit_passes(PredtronClassifier(standardize=False, eta=0.5, tol=None, epochs=3), permuted_chunks(X, y, None),
               first={"classes": [-1, 1]}, checkpoint=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model-3.npz", "progress.json"]


@pytest.mark.parametrize("resume", [False, True])
def test_a_checkpoint_path_that_is_a_file_is_refused_naming_the_argument(tmp_path, resume):
    """A file given as the checkpoint folder raised FileExistsError from mkdir; it is refused with a
    ValueError naming ``checkpoint``, and the file is left as it was (streaming and mixing alike)."""
    from predtron import mixing, streaming
    from predtron.streaming import fit_passes, permuted_chunks

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    path = tmp_path / "notes.txt"
    path.write_text("mine")
    with pytest.raises(ValueError, match="checkpoint must be a folder"):
        fit_passes(PredtronClassifier(standardize=False, eta=0.5, tol=None, epochs=2), permuted_chunks(X, y, None),
                   first={"classes": [-1, 1]}, checkpoint=path, resume=resume)
    for module in (streaming, mixing):
        with pytest.raises(ValueError, match="checkpoint must be a folder"):
            module.check_checkpoint_folder(path)
    # a folder asked for inside a file: NotADirectoryError from mkdir before
    with pytest.raises(ValueError, match=r"checkpoint must be a folder .*would be inside .*notes\.txt, which is not"):
        fit_passes(PredtronClassifier(standardize=False, eta=0.5, tol=None, epochs=2), permuted_chunks(X, y, None),
                   first={"classes": [-1, 1]}, checkpoint=path / "sub", resume=resume)
    assert path.read_text() == "mine"


def test_a_chunk_source_is_checked_and_every_epoch_must_give_the_data():
    """A one-shot iterator returned for every epoch made only its first pass while n_iter_ counted
    them all (silently); an epoch of no chunks raised AttributeError, a malformed chunk a failed
    unpacking, a chunk of no rows partial_fit's refusal.  Now: empty epochs and malformed sources
    are refused naming chunks, and a chunk of no rows is skipped."""
    from predtron.streaming import fit_passes

    X = np.random.default_rng(0).normal(size=(60, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    parts = [(X[:20], y[:20], {}), (X[20:40], y[20:40], {}), (X[40:], y[40:], {})]
    params = dict(standardize=False, eta=0.5, tol=None, epochs=3, shuffle=False)
    first = {"classes": [-1, 1]}
    whole = fit_passes(PredtronClassifier(**params), lambda epoch: parts, first=first)
    for statistics, epoch in ((False, 2), (True, 1)):  # statistics=True reads the first epoch's chunks first
        once = iter(parts)
        with pytest.raises(ValueError, match=rf"chunks\({epoch}\) gave no examples"):
            fit_passes(PredtronClassifier(**params), lambda epoch, source=once: source, first=first,
                       statistics=statistics)
    with pytest.raises(ValueError, match=r"chunks\(1\) gave no examples"):
        fit_passes(PredtronClassifier(**params), lambda epoch: [], first=first)
    with pytest.raises(ValueError, match=r"chunks\(1\) must give chunks \(X, y, keywords\).*a tuple of 2"):
        fit_passes(PredtronClassifier(**params), lambda epoch: [(X, y)], first=first)
    with pytest.raises(TypeError, match=r"chunks\(1\) must return an iterable"):
        fit_passes(PredtronClassifier(**params), lambda epoch: None, first=first)
    with pytest.raises(TypeError, match="chunks must be a callable"):
        fit_passes(PredtronClassifier(**params), parts, first=first)
    empty = (X[:0], y[:0], {})
    skipped = fit_passes(PredtronClassifier(**params), lambda epoch: [empty, parts[0], empty, *parts[1:], empty],
                         first=first)
    same_model(skipped, whole)


def test_repeating_batches_k_times_is_fit_without_early_stopping():
    X = np.random.default_rng(1).normal(size=(60, 4))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    stream = PredtronClassifier(standardize=False, eta=0.5, shuffle=False)
    for _ in range(7):
        for start in range(0, 60, 25):
            stream.partial_fit(X[start:start + 25], y[start:start + 25], classes=[-1, 1])
    plain = PredtronClassifier(standardize=False, eta=0.5, shuffle=False, epochs=7, tol=None).fit(X, y)
    assert np.array_equal(stream.learner_.coef_, plain.learner_.coef_)
    stopped = PredtronClassifier(standardize=False, eta=0.5, shuffle=False, epochs=7, n_iter_no_change=1).fit(X, y)
    assert stopped.n_iter_ < 7  # the default tol stops fit early; partial_fit never does


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_a_stream_with_its_whole_statistics_equals_the_in_memory_fit_with_the_defaults(sparse):
    from predtron.streaming import fit_passes

    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 5)) * [1.0, 10.0, 0.1, 3.0, 1.0] + 2.0
    y = np.where(X[:, 0] + 0.05 * X[:, 1] > 2.0, "a", "b")
    if sparse:
        X = sp.csr_matrix(np.where(rng.random(X.shape) < 0.4, X, 0.0))
    params = {"shuffle": False, "epochs": 4, "tol": None}  # standardize=True, eta="auto": the defaults
    whole = PredtronClassifier(**params).fit(X, y)
    bounds = [0, 70, 71, 200, 300]

    def chunks(epoch):
        return [(X[a:b], y[a:b], {}) for a, b in itertools.pairwise(bounds)]

    streamed = fit_passes(PredtronClassifier(**params), chunks, first={"classes": ["a", "b"]}, statistics=True)
    assert streamed.eta_ == whole.eta_
    assert np.array_equal(streamed.scaler_.scale, whole.scaler_.scale)
    assert np.array_equal(streamed.learner_.coef_, whole.learner_.coef_)
    first_batch = fit_passes(PredtronClassifier(**params), chunks, first={"classes": ["a", "b"]})
    # partial_fit's rule: the first batch's statistics
    assert not np.array_equal(first_batch.scaler_.scale, whole.scaler_.scale)


def test_a_ranking_stream_with_its_whole_statistics_equals_the_in_memory_fit():
    from predtron.streaming import fit_passes

    data = load_letor(VALI)
    X, y, group = data.X[:600], data.y[:600], None
    ends = np.cumsum(data.group)
    keep = int(np.searchsorted(ends, 600, side="right"))
    group = np.asarray(data.group[:keep])
    rows = int(group.sum())
    X, y = data.X[:rows], data.y[:rows]
    params = {"shuffle": False, "epochs": 2, "tol": None}
    whole = PredtronRanker(**params).fit(X, y, group=group)
    cut = len(group) // 2
    split = int(group[:cut].sum())

    def chunks(epoch):
        return [(X[:split], y[:split], {"group": group[:cut]}), (X[split:], y[split:], {"group": group[cut:]})]

    streamed = fit_passes(PredtronRanker(**params), chunks, statistics=True)
    assert streamed.eta_ == whole.eta_
    assert np.array_equal(streamed.learner_.coef_, whole.learner_.coef_)


def test_stream_statistics_reads_the_queries_as_partial_fit_does():
    """stream_statistics read a ranking chunk's queries from keywords["group"] only: chunks with
    qid (which partial_fit takes) raised KeyError, as did chunks with neither, and a malformed chunk
    an IndexError.  Now the queries are read by the rule partial_fit uses (exactly one of qid and
    group), and a stream with qid gives the fit's model."""
    from predtron.streaming import fit_passes, stream_statistics

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 4))
    grades = np.clip(np.round(X[:, 0] + 1), 0, 2).astype(int)
    qid = np.repeat(np.arange(12), 5)
    params = dict(epochs=2, shuffle=False, tol=None)
    chunks = [(X[:30], grades[:30], {"qid": qid[:30]}), (X[30:], grades[30:], {"qid": qid[30:]})]
    streamed = fit_passes(PredtronRanker(**params), lambda epoch: chunks, statistics=True)
    whole = PredtronRanker(**params).fit(X, grades, qid=qid)
    assert streamed.eta_ == whole.eta_
    assert np.array_equal(streamed.scaler_.scale, whole.scaler_.scale)
    assert np.array_equal(streamed.learner_.coef_, whole.learner_.coef_)
    with pytest.raises(ValueError, match="give exactly one of qid"):
        stream_statistics(PredtronRanker(**params), [(X, grades, {})])
    with pytest.raises(ValueError, match=r"chunks must give chunks \(X, y, keywords\)"):
        stream_statistics(PredtronRanker(**params), [X])


def test_a_query_that_ends_one_epoch_may_start_the_next():
    """partial_fit refuses a call whose first query id is the last one of the previous call (a query
    cut in two); fit_passes fed every epoch after the previous one without saying a pass had ended,
    so a qid stream whose epochs end and start with the same query (one query, or chunks visited in
    a new order per epoch) stopped at the second epoch.  fit_passes now starts every epoch with
    start_pass(); within a pass the cut query is still refused."""
    from predtron.streaming import fit_passes

    rng = np.random.default_rng(4)
    X = rng.normal(size=(10, 3))
    grades = np.clip(np.round(X[:, 0] + 1), 0, 2).astype(int)
    qid = np.zeros(10, dtype=int)
    params = dict(epochs=3, shuffle=False, tol=None, standardize=False, eta=0.5)
    streamed = fit_passes(PredtronRanker(**params), lambda epoch: [(X, grades, {"qid": qid})])
    assert streamed.n_iter_ == 3
    assert np.array_equal(streamed.learner_.coef_, PredtronRanker(**params).fit(X, grades, qid=qid).learner_.coef_)
    with pytest.raises(ValueError, match="continues the last query of the previous call"):
        fit_passes(PredtronRanker(**params), lambda epoch: [(X[:5], grades[:5], {"qid": qid[:5]}),
                                                            (X[5:], grades[5:], {"qid": qid[5:]})])


def test_resume_refuses_a_checkpoint_of_other_parameters_without_a_run_description(tmp_path):
    """fit_passes compared only ``run`` on resume, which the Python API leaves empty by default: a
    checkpoint written with other parameters (average, eta, cost_matrix, ...) was resumed, the
    saved learner continuing under the new estimator's parameters.  The saved model's parameters
    are now compared with the estimator's (verbose aside)."""
    from predtron.streaming import fit_passes

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    params = dict(standardize=False, eta=0.5, tol=None, epochs=3, shuffle=False, cost_matrix=[[0, 1], [2, 0]])

    def fit(checkpoint_params, resume, stop_after=None):
        def after(epoch):
            if epoch == stop_after:
                raise KeyboardInterrupt
        return fit_passes(PredtronClassifier(**checkpoint_params), lambda epoch: [(X, y, {})],
                          first={"classes": [-1, 1]}, checkpoint=tmp_path, resume=resume, after_epoch=after)

    with pytest.raises(KeyboardInterrupt):
        fit(params, False, stop_after=1)
    for name, value in (("average", False), ("eta", 0.25), ("cost_matrix", [[0, 1], [3, 0]])):
        with pytest.raises(ValueError, match=rf"written by another fit \(it differs in: {name}(\[1\])? \(checkpoint: "):
            fit({**params, name: value}, True)
    resumed = fit({**params, "verbose": True, "cost_matrix": np.array([[0.0, 1.0], [2.0, 0.0]])}, True)
    same_model(resumed, fit_passes(PredtronClassifier(**params), lambda epoch: [(X, y, {})],
                                   first={"classes": [-1, 1]}))


def test_fit_passes_checks_its_arguments_before_any_pass():
    """after_epoch= that is not callable failed after the first pass with a raw TypeError; a truthy
    string as resume= or statistics= was taken as True.  Refused first, naming the argument."""
    from predtron.streaming import fit_passes

    X = np.random.default_rng(0).normal(size=(20, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    calls = []

    def chunks(epoch):
        calls.append(epoch)
        return [(X, y, {})]

    for keywords, match in (({"after_epoch": 5}, "after_epoch must be a callable"),
                            ({"resume": "no"}, "resume must be True or False"),
                            ({"statistics": "no"}, "statistics must be True or False")):
        with pytest.raises(ValueError, match=match):
            fit_passes(PredtronClassifier(epochs=2), chunks, first={"classes": [-1, 1]}, **keywords)
    assert calls == []


@pytest.mark.parametrize("resume", [False, True])
def test_a_checkpoint_never_removes_the_users_models_beside_it(tmp_path, resume):
    """The checkpoint removed every model-*.npz and model.npz of its folder that was not its current
    state: a user's own models saved there (model.npz, model-final.npz, model-best.npz) were deleted
    without a word by a fresh fit (they are predtron files, so the folder check let them pass) and,
    on resume, whatever they held.  Only its own states, model-{epoch}.npz, are removed now."""
    import predtron
    from predtron.streaming import fit_passes

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    params = dict(standardize=False, eta=0.5, tol=None, shuffle=False)
    mine = PredtronClassifier(**params, epochs=1).fit(X, y)
    names = ["model.npz", "model-final.npz", "model-best.npz", "model-3b.npz"]
    for name in names:
        predtron.save(mine, tmp_path / name)
    (tmp_path / "model-notes.npz").write_text("not an archive")
    before = {name: (tmp_path / name).read_bytes() for name in [*names, "model-notes.npz"]}
    if resume:
        with pytest.raises(KeyboardInterrupt):
            fit_passes(PredtronClassifier(**params, epochs=3), lambda epoch: [(X, y, {})], first={"classes": [-1, 1]},
                       checkpoint=tmp_path, after_epoch=lambda epoch: epoch == 1 and _raise(KeyboardInterrupt))
    fit_passes(PredtronClassifier(**params, epochs=3), lambda epoch: [(X, y, {})], first={"classes": [-1, 1]},
               checkpoint=tmp_path, resume=resume)
    assert {name: (tmp_path / name).read_bytes() for name in before} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*before, "model-3.npz", "progress.json"])


def test_permuted_chunks_refuses_labels_or_groups_that_do_not_cover_the_rows():
    """With a seed, permuted_chunks drew each epoch's order over len(y) rows (or len(group)
    queries): a y shorter than X, or group sizes summing to fewer rows, fitted silently on the first
    rows only.  Both are refused when the source is made."""
    from predtron.streaming import permuted_chunks

    X = np.random.default_rng(0).normal(size=(60, 3))
    y = np.where(X[:, 0] > 0, 1, 0)
    with pytest.raises(ValueError, match=r"y must have one label per row of X \(60 rows\); got 10"):
        permuted_chunks(X, y[:10], 0)
    with pytest.raises(ValueError, match="group sizes sum to 15 but X has 60 rows"):
        permuted_chunks(X, y, 0, group=np.full(3, 5))
    (chunk,) = permuted_chunks(X, y, 0, group=[30, 30])(1)
    assert chunk[0].shape == (60, 3) and sorted(chunk[2]["group"]) == [30, 30]


@pytest.mark.parametrize(("entry", "value"), [("stopped", "no"), ("best", "x"), ("stall", None), ("total", [1]),
                                            ("stall", float("inf")), ("rounds", float("inf")), ("stall", -1),
                                            ("rounds", 2.5), ("total", float("nan")), ("best", float("inf")),
                                            ("scale", float("nan"))])
def test_an_unsealed_progress_file_with_a_malformed_entry_is_refused_naming_it(tmp_path, entry, value):
    """A checkpoint of the previous format (not sealed) with an entry of the wrong type: 'stopped': "no" was
    taken as true (the fit ended at once), and a stopping state value that is not a number failed with
    "could not convert string to float: 'x'", naming neither the file nor the entry.  A count that is not a
    whole number >= 0 ('stall': Infinity, which JSON readers take, failed with OverflowError 'cannot convert
    float infinity to integer' in the resumed fit) or a value that is not finite is refused too."""
    from predtron.streaming import fit_passes, permuted_chunks, read_checkpoint

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    fit_passes(PredtronClassifier(standardize=False, eta=0.5, tol=0.0, epochs=2), permuted_chunks(X, y, None),
               first={"classes": [-1, 1]}, checkpoint=tmp_path)
    progress = json.loads((tmp_path / "progress.json").read_text())
    legacy = {k: v for k, v in progress.items() if k not in ("digest", "state_sha256")}
    legacy["format"] = "predtron-checkpoint/2"
    assert isinstance(legacy["stopping"], dict)
    if entry == "stopped":
        legacy["stopped"] = value
    else:
        legacy["stopping"][entry] = value
    (tmp_path / "progress.json").write_text(json.dumps(legacy))
    with pytest.raises(ValueError, match=rf"progress\.json: entry '{'stopped' if entry == 'stopped' else 'stopping'}'"):
        read_checkpoint(tmp_path, legacy["run"] if "run" in legacy else {})


@pytest.mark.parametrize("stopping", [{"best": None, "stall": float("inf"), "rounds": 40, "total": 3.0},
                                      {"best": None, "stall": None, "rounds": 40, "total": 3.0},
                                      {"best": 0.1, "stall": 1, "rounds": -40, "total": 3.0},
                                      {"best": 0.1, "stall": 1, "rounds": 40, "total": float("nan")}])
def test_a_mixing_checkpoint_with_a_malformed_stopping_state_is_refused_naming_it(tmp_path, stopping):
    """A mixing checkpoint (the cluster fits') whose stopping state holds a count that is not a whole
    number >= 0 or a value that is not finite: 'stall': null or Infinity was accepted and failed in the
    resumed fit with "int() argument must be ... not 'NoneType'" or OverflowError, naming no entry."""
    from predtron.learners import Predtron
    from predtron.mixing import iterative_parameter_mixing, local_map, read_checkpoint, write_checkpoint
    from predtron.problems import Binary

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    result = iterative_parameter_mixing(local_map, Predtron(Binary(), eta=0.5), [(X[:20], y[:20], {}),
                                                                              (X[20:], y[20:], {})], 1)
    write_checkpoint(tmp_path, result, run={}, stopping={"best": None, "stall": 0, "rounds": 40, "total": 3.0})
    assert read_checkpoint(tmp_path, {})[1]["rounds"] == 40
    write_checkpoint(tmp_path, result, run={}, stopping=stopping)  # sealed: as a hand edit resealed, or format 1
    with pytest.raises(ValueError, match=r"progress\.json: entry 'stopping' must be null or the stopping rule's"):
        read_checkpoint(tmp_path, {})
