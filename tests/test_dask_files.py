"""Fits on files read where they are: the workers stream their files (``stream=True``,
``predtron fit A B --stream --workers/--scheduler``), the command never holds the data, and
``--resume`` refuses a checkpoint written with other data or options (naming the flag and both
values), on the in-memory, streamed and cluster fits.  Real files on disk, real LocalClusters."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from predtron.cli import main  # noqa: E402
from predtron.dask import DaskPredtronClassifier, DaskPredtronMultilabelClassifier, DaskPredtronRanker  # noqa: E402
from predtron.persistence import load  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def tcp_cluster():
    """Two worker processes on 127.0.0.1, started and stopped here (the command line's ``--scheduler``)."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0") as cluster, distributed.Client(cluster) as c:
        yield c.scheduler.address


def _state(model):
    scalars, arrays = model.get_state()
    return scalars, {k: np.asarray(v) for k, v in arrays.items()}


def _assert_same(a, b):
    sa, aa = _state(a)
    sb, ab = _state(b)
    assert sa == sb
    assert aa.keys() == ab.keys()
    for key in aa:
        assert aa[key].dtype == ab[key].dtype and aa[key].tobytes() == ab[key].tobytes(), key


def _write(path, X, y, qid=None):
    with open(path, "w") as handle:
        for i, (row, label) in enumerate(zip(X, y, strict=True)):
            q = f" qid:{qid[i]}" if qid is not None else ""
            handle.write(f"{label}{q} " + " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(row.tolist()) if v) + "\n")


def _data(seed=3, n=500):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 6)) * rng.uniform(0.5, 3.0, size=6) + rng.normal(size=6), 3)
    X[X < 0] = 0.0
    scores = X @ rng.normal(size=(6, 3))
    return X, scores


def _files(tmp_path, kind="classify", bounds=(0, 170, 330, 500)):
    X, scores = _data()
    paths = []
    if kind == "rank":
        grades = np.clip(np.round(scores[:, 0]), 0, 2).astype(int)
        qid = np.repeat(np.arange(len(X) // 10), 10)
        for i, (a, b) in enumerate(itertools.pairwise((0, 200, 500))):
            paths.append(tmp_path / f"r{i}.letor")
            _write(paths[-1], X[a:b], grades[a:b], qid[a:b])
        return [str(p) for p in paths]
    y = np.argmax(scores, axis=1)
    for i, (a, b) in enumerate(itertools.pairwise(bounds)):
        paths.append(tmp_path / f"part-{i}.svm")
        _write(paths[-1], X[a:b], y[a:b])
    return [str(p) for p in paths]


# ------------------------------------------------------------------ workers stream their files
@pytest.mark.parametrize("kind", ["classify", "rank"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("rounds", [1, 3])
def test_streamed_files_are_the_in_memory_files_bit_for_bit(client, tmp_path, kind, sparse, rounds):
    """Every worker reads its file chunk by chunk at every pass (chunks that do not fall on the
    mixing rounds' cuts), with the statistics of eta="auto" and the scaling streamed too: the model,
    the shard losses and the weights are those of the in-memory shards, bit for bit."""
    files = _files(tmp_path, kind)
    cls = DaskPredtronRanker if kind == "rank" else DaskPredtronClassifier
    params = {"random_state": 1, "epochs": 3, "shuffle": False, "mixing_rounds": rounds, "eta": "auto",
              "client": client}
    options = {"n_features": 6, "sparse": sparse}
    whole = cls(**params).fit(files, file_options=options)
    streamed = cls(**params).fit(files, file_options={**options, "chunk_rows": 37}, stream=True)
    _assert_same(streamed.to_local(), whole.to_local())
    assert np.array_equal(streamed.shard_losses_, whole.shard_losses_)
    assert np.array_equal(streamed.mixing_weights_, whole.mixing_weights_)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("bounds, comes_back, query", [((0, 205, 500), False, 20),  # continues into the next file
                                                       ((0, 200, 500), True, 1)])  # seen again in a later file
def test_a_query_written_in_two_files_is_refused_naming_both(client, tmp_path, stream, bounds, comes_back, query):
    """Each worker learns its own files' queries: a query id with lines in two files would be
    learned as two queries, so it is refused, in memory and streamed alike."""
    X, scores = _data()
    grades = np.clip(np.round(scores[:, 0]), 0, 2).astype(int)
    qid = np.repeat(np.arange(len(X) // 10), 10)
    if comes_back:
        qid[-10:] = 1  # the last query of the second file has the id of one of the first file's
    files = []
    for i, (a, b) in enumerate(itertools.pairwise(bounds)):
        files.append(str(tmp_path / f"r{i}.letor"))
        _write(files[-1], X[a:b], grades[a:b], qid[a:b])
    model = DaskPredtronRanker(epochs=1, shuffle=False, client=client)
    options = {"n_features": 6, **({"chunk_rows": 30} if stream else {})}
    with pytest.raises(ValueError, match=rf"query {query} has lines in two training files, .*r0.letor and .*r1.letor"):
        model.fit(files, file_options=options, stream=stream)


def test_files_whose_queries_come_from_sizes_may_repeat_positions(client, tmp_path):
    """Files without qid: take their queries from sidecar sizes: the ids are positions, which every
    file starts again at 0, and nothing is refused."""
    X, scores = _data()
    grades = np.clip(np.round(scores[:, 0]), 0, 2).astype(int)
    files = []
    for i, (a, b) in enumerate(itertools.pairwise((0, 200, 500))):
        files.append(str(tmp_path / f"s{i}.svm"))
        _write(files[-1], X[a:b], grades[a:b])
        Path(files[-1] + ".query").write_text("\n".join(["10"] * ((b - a) // 10)) + "\n")
    params = {"epochs": 2, "shuffle": False, "random_state": 0, "client": client}
    whole = DaskPredtronRanker(**params).fit(files, file_options={"n_features": 6, "sparse": True})
    streamed = DaskPredtronRanker(**params).fit(files, file_options={"n_features": 6, "sparse": True,
                                                                     "chunk_rows": 30}, stream=True)
    _assert_same(streamed.to_local(), whole.to_local())


def test_a_failed_streamed_fit_leaves_no_cache_folder_it_made(client, tmp_path):
    """A cache folder made by a streamed fit that then failed (or was interrupted) before any cache was
    written was left behind, empty; a folder that existed, or holds caches, stays."""
    files = [str(tmp_path / "bad.svm")]
    Path(files[0]).write_text("1 1:0.5\n0 1:0.25\n1 x:1\n")  # refused at line 3 by the first read, no cache
    made = tmp_path / "new" / "caches"
    with pytest.raises(ValueError, match="line 3"):
        DaskPredtronClassifier(client=client, shuffle=False).fit(files, stream=True, cache=str(made))
    assert not made.exists()
    assert not made.parent.exists()  # the parent folder the fit made for it goes too
    kept = tmp_path / "kept"
    kept.mkdir()
    with pytest.raises(ValueError, match="line 3"):
        DaskPredtronClassifier(client=client, shuffle=False).fit(files, stream=True, cache=str(kept))
    assert kept.is_dir()
    good = _files(tmp_path)
    DaskPredtronClassifier(client=client, shuffle=False, epochs=1).fit(good, stream=True, cache=str(made))
    assert len(list(made.iterdir())) == len(good)  # a fit that ends writes its caches there


def test_the_documented_layout_defaults_of_streamed_and_whole_files(client, tmp_path):
    """Without ``sparse`` in file_options the streamed chunks are CSR (scaled only) and a file read
    whole is dense (centred too): two models, as the docstring says; with ``sparse`` given, one."""
    files = _files(tmp_path, "classify")
    params = {"random_state": 1, "epochs": 2, "shuffle": False, "client": client}
    whole = DaskPredtronClassifier(**params).fit(files, file_options={"n_features": 6})
    streamed = DaskPredtronClassifier(**params).fit(files, file_options={"n_features": 6}, stream=True)
    assert whole.model_.scaler_.mean is not None and streamed.model_.scaler_.mean is None
    assert "when both read the same layout" in " ".join(DaskPredtronClassifier.__doc__.split())


def test_streamed_arff_files_for_the_multilabel_classifier(client, tmp_path):
    from predtron.data import get_data_home

    source = get_data_home() / "mulan-emotions" / "emotions-train.arff.gz"
    if not source.is_file():
        pytest.skip(f"the shipped emotions data are not installed ({source})")
    files = [str(source), str(tmp_path / "copy.arff.gz")]
    Path(files[1]).write_bytes(source.read_bytes())
    params = {"random_state": 0, "epochs": 2, "shuffle": False, "client": client}
    whole = DaskPredtronMultilabelClassifier(**params).fit(files, file_options={"n_labels": 6, "sparse": True})
    streamed = DaskPredtronMultilabelClassifier(**params).fit(
        files, file_options={"n_labels": 6, "sparse": True, "chunk_rows": 50}, stream=True)
    _assert_same(streamed.to_local(), whole.to_local())


def test_a_stream_refuses_shuffling_a_cache_over_a_file_and_read_options_for_arrays(client, tmp_path):
    files = _files(tmp_path)
    with pytest.raises(ValueError, match="shuffle=False"):
        DaskPredtronClassifier(client=client).fit(files, stream=True)
    with pytest.raises(ValueError, match="cache= applies to stream=True"):
        DaskPredtronClassifier(shuffle=False, client=client).fit(files, cache=tmp_path / "c")
    X = da.from_array(np.eye(4), chunks=2)
    with pytest.raises(ValueError, match="file_options= applies to a fit on a list of files"):
        DaskPredtronClassifier(client=client).fit(X, da.from_array(np.array([0, 1, 0, 1]), chunks=2),
                                                  file_options={"n_features": 4})
    # a cache directory holding a file of the same name as a cache would be: that file is never written over
    (tmp_path / "c").mkdir()
    precious = tmp_path / "c" / f"0-{Path(files[0]).name}.cache"
    precious.write_text("not a cache")
    with pytest.raises(ValueError, match="not a cache"):
        DaskPredtronClassifier(shuffle=False, client=client).fit(files, stream=True, cache=tmp_path / "c")
    assert precious.read_text() == "not a cache"


def test_command_line_streams_the_files_on_the_workers(tcp_cluster, tmp_path, capsys):
    """``predtron fit A B C --stream --scheduler ...`` on worker processes: the model of the
    in-memory cluster fit in file order, bit for bit (also with a cache per file, read by the later
    passes); the data files are untouched; a cache directory that is a data file is refused."""
    files = _files(tmp_path)
    before = [Path(f).read_bytes() for f in files]
    common = ["--task", "classify", "--no-shuffle", "--epochs", "3", "--sparse", "--quiet", "--scheduler",
              tcp_cluster]
    assert main(["fit", *files, *common, "--model", str(tmp_path / "memory.npz")]) == 0
    assert main(["fit", *files, *common, "--stream", "--chunk-rows", "41", "--model",
                 str(tmp_path / "stream.npz")]) == 0
    _assert_same(load(tmp_path / "stream.npz"), load(tmp_path / "memory.npz"))
    cache = tmp_path / "cache"
    assert main(["fit", *files, *common, "--stream", "--cache", str(cache), "--model",
                 str(tmp_path / "cached.npz")]) == 0
    _assert_same(load(tmp_path / "cached.npz"), load(tmp_path / "memory.npz"))
    assert sorted(p.name for p in cache.iterdir()) == [f"{i}-part-{i}.svm.cache" for i in range(3)]
    assert [Path(f).read_bytes() for f in files] == before
    capsys.readouterr()
    assert main(["fit", *files, *common, "--stream", "--cache", files[0], "--model", str(tmp_path / "x.npz")]) == 1
    assert "--cache" in capsys.readouterr().err
    assert main(["fit", *files, *common[:-2], "--workers", "1", "--stream", "--shuffle", "--model",
                 str(tmp_path / "x.npz")]) == 2
    assert "--shuffle does not apply to --stream" in capsys.readouterr().err
    assert [Path(f).read_bytes() for f in files] == before
    assert not (tmp_path / "x.npz").exists()


# ------------------------------------------------------------------ the command never holds the data
_PEAK = """\
import sys

import distributed  # noqa: F401  (the command's own code, imported before the peak is reset)
import predtron.cli
import predtron.dask.cli  # noqa: F401
import predtron.dask.estimators  # noqa: F401


def resident(field):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field))


if __name__ == "__main__":  # the workers' processes import this module too
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # the peak so far (the imports) is forgotten
    before = resident("VmRSS:")
    code = predtron.cli.main(sys.argv[1:])
    print("GROWTH", resident("VmHWM:") - before, code)
"""


def _big_file(path: Path, rows: int, seed: int) -> None:
    """An svmlight file of ``rows`` rows of 40 features (about 300 bytes a row), written fast."""
    rng = np.random.default_rng(seed)
    block = np.round(rng.uniform(0.1, 9.9, size=(1000, 40)), 4)
    labels = np.where(block[:, 0] + block[:, 1] > 10, 1, -1)
    lines = "".join(f"{label} " + " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(row)) + "\n"
                    for label, row in zip(labels, block, strict=True))
    with open(path, "w") as handle:
        for _ in range(rows // 1000):
            handle.write(lines)


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux's /proc peak-memory reset")
def test_the_command_process_never_holds_the_data(tmp_path):
    """The peak memory of the command process (VmHWM, its own, not its worker processes') grows no
    more in a fit of four files than in a fit of one file of the same size: each file, 24 MB of text
    and 23 MB as a dense matrix, is read by a worker.  (The older path, one file read by the command
    and sent to the workers, grows by some 68 MB for one such file.)"""
    paths = [tmp_path / f"big-{i}.svm" for i in range(4)]
    for i, path in enumerate(paths):
        _big_file(path, 75_000, i)
    held = 75_000 * 40 * 8 / 2**10  # kB one file takes as a dense matrix
    script = tmp_path / "peak.py"
    script.write_text(_PEAK)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PREDTRON_JIT": "always"}  # the parser compiled (or cached)

    def growth(files) -> int:
        command = [sys.executable, str(script), "fit", *map(str, files), "--task", "classify", "--epochs", "1",
                   "--no-shuffle", "--n-features", "40", "--workers", "2", "--quiet", "--model",
                   str(tmp_path / "m.npz"), "--checkpoint", str(tmp_path / f"ckpt-{len(files)}")]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
        line = [w for w in done.stdout.split("\n") if w.startswith("GROWTH")]
        assert done.returncode == 0 and line, done.stderr[-2000:]
        _, kilobytes, code = line[0].split()
        assert code == "0", done.stderr[-2000:]
        return int(kilobytes)

    one, four = growth(paths[:1]), growth(paths)
    assert one < held and four - one < held / 2, (one, four, held)


# ------------------------------------------------------------------ --resume refuses other data
def _rewrite_same_size_and_time(path: Path) -> None:
    """Change one digit of ``path``, keeping its size and modification time."""
    stat = path.stat()
    text = path.read_text()
    at = text.index(".") + 1
    digit = "1" if text[at] != "1" else "2"
    path.write_text(text[:at] + digit + text[at + 1:])
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns


def _refusal(capsys) -> str:
    err = capsys.readouterr().err
    assert "was written by another fit" in err and err.count("\n") == 1, err
    return err


def test_resume_in_memory_refuses_another_group_file(tmp_path, capsys):
    X, scores = _data(n=60)
    path = tmp_path / "train.svm"
    _write(path, X, np.clip(np.round(scores[:, 0]), 0, 2).astype(int))
    (tmp_path / "a.txt").write_text("10\n" * 6)
    (tmp_path / "b.txt").write_text("20\n" * 3)
    options = ["--task", "rank", "--epochs", "2", "--quiet", "--checkpoint", str(tmp_path / "ckpt"), "--model",
               str(tmp_path / "m.npz")]
    assert main(["fit", str(path), *options, "--group-file", str(tmp_path / "a.txt")]) == 0
    assert main(["fit", str(path), *options, "--group-file", str(tmp_path / "b.txt"), "--resume"]) == 1
    err = _refusal(capsys)
    assert "--group-file (checkpoint: " in err and "a.txt" in err and "this fit: " in err and "b.txt" in err
    # the same group sizes in a file of another name and content is another file; the same file resumes
    assert main(["fit", str(path), *options, "--group-file", str(tmp_path / "a.txt"), "--resume"]) == 0
    assert main(["fit", str(path), *options, "--group-file", str(tmp_path / "a.txt"), "--zero-based",
                 "--resume"]) == 1
    assert "--zero-based (checkpoint: False; this fit: True)" in _refusal(capsys)


def test_resume_of_a_stream_refuses_a_file_rewritten_with_the_same_size_and_time(tmp_path, capsys):
    X, scores = _data(n=200)
    path = tmp_path / "train.svm"
    _write(path, X, np.argmax(scores, axis=1))
    options = ["--task", "classify", "--epochs", "2", "--quiet", "--stream", "--no-shuffle", "--checkpoint",
               str(tmp_path / "ckpt"), "--model", str(tmp_path / "m.npz")]
    assert main(["fit", str(path), *options]) == 0
    _rewrite_same_size_and_time(path)
    assert main(["fit", str(path), *options, "--resume"]) == 1
    err = _refusal(capsys)
    assert "TRAIN (checkpoint: " in err and err.count("bytes, content ") == 2
    assert main(["fit", str(path), *options, "--dense", "--resume"]) == 1
    assert "--sparse/--dense (checkpoint: sparse; this fit: dense)" in _refusal(capsys)


def test_resume_on_a_cluster_refuses_other_files_and_options(tcp_cluster, tmp_path, capsys):
    files = _files(tmp_path)
    options = ["--task", "classify", "--epochs", "2", "--eta", "0.5", "--no-standardize", "--n-features", "7",
               "--quiet", "--scheduler", tcp_cluster, "--checkpoint", str(tmp_path / "ckpt"), "--model",
               str(tmp_path / "m.npz")]
    assert main(["fit", *files, *options]) == 0
    assert main(["fit", *files, *options, "--resume"]) == 0
    assert main(["fit", *files, *options, "--sparse", "--resume"]) == 1
    assert "--sparse/--dense (checkpoint: False; this fit: True)" in _refusal(capsys)
    assert main(["fit", *files, *options, "--zero-based", "--resume"]) == 1
    assert "--zero-based (checkpoint: False; this fit: True)" in _refusal(capsys)
    _rewrite_same_size_and_time(Path(files[1]))
    assert main(["fit", *files, *options, "--resume"]) == 1
    err = _refusal(capsys)
    assert "TRAIN[1] (checkpoint: " in err and "part-1.svm" in err and err.count("bytes, content ") == 2


@pytest.mark.parametrize("edit, named", [
    (lambda p: p.pop("totals"), "no entry 'totals'"),
    (lambda p: p.update(totals="x"), "entry 'totals' must be"),
    (lambda p: p.update(stopped="no"), "entry 'stopped' must be"),
    (lambda p: p.update(orders={}), "entry 'orders' must be"),
    (lambda p: p.update(stopping={"best": 1}), "entry 'stopping' must be"),
    (lambda p: p.update(epoch="2"), "entry 'epoch' must be"),
    (lambda p: p["scalars"].pop("trace_n_rounds"), "malformed state"),
])
def test_a_hand_edited_cluster_checkpoint_is_refused_naming_the_entry(client, tmp_path, edit, named):
    """Any edit breaks the checkpoint's own checksum; a checkpoint of the previous format (not sealed)
    has its entries checked one by one, naming the one that is wrong."""
    files = _files(tmp_path)
    params = {"random_state": 1, "epochs": 2, "client": client}
    DaskPredtronClassifier(**params).fit(files, checkpoint=tmp_path / "ckpt")
    progress_file = tmp_path / "ckpt" / "progress.json"
    progress = json.loads(progress_file.read_text())
    edit(progress)
    progress_file.write_text(json.dumps(progress))
    with pytest.raises(ValueError, match="does not match its own checksum"):
        DaskPredtronClassifier(**params).fit(files, checkpoint=tmp_path / "ckpt", resume=True)
    legacy = {k: v for k, v in progress.items() if k not in ("digest", "state_sha256")}
    progress_file.write_text(json.dumps({**legacy, "format": "predtron-mixing-checkpoint/1"}))
    with pytest.raises(ValueError, match=named) as caught:
        DaskPredtronClassifier(**params).fit(files, checkpoint=tmp_path / "ckpt", resume=True)
    assert "\n" not in str(caught.value)


def test_a_cluster_checkpoint_binds_its_state_and_keeps_foreign_files(client, tmp_path):
    files = _files(tmp_path)
    params = {"random_state": 1, "epochs": 2, "client": client}
    DaskPredtronClassifier(**params).fit(files, checkpoint=tmp_path / "ckpt")
    DaskPredtronClassifier(**{**params, "random_state": 2}).fit(files, checkpoint=tmp_path / "other")
    (tmp_path / "other" / "mixing-2.npz").replace(tmp_path / "ckpt" / "mixing-2.npz")  # another fit's state
    with pytest.raises(ValueError, match=r"mixing-2\.npz is not the state progress\.json was written with"):
        DaskPredtronClassifier(**params).fit(files, checkpoint=tmp_path / "ckpt", resume=True)
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "mixing-1.npz").write_text("a user's file")
    with pytest.raises(ValueError, match=r"mixing-1\.npz exists and is not a predtron checkpoint file"):
        DaskPredtronClassifier(**params).fit(files, checkpoint=foreign)
    assert (foreign / "mixing-1.npz").read_text() == "a user's file"


def test_a_cluster_fit_refuses_a_model_over_a_file_read_with_the_training_files(tmp_path, capsys):
    """``fit 'r*.txt' --workers N --model r1.txt.query``: a fit of several files (or a glob pattern) checked its
    outputs against the data files only, so the model was written over a group-size file found beside one of
    them (and ``--model costs.txt --cost-matrix costs.txt`` over the cost matrix), destroying it."""
    for i in range(2):
        (tmp_path / f"r{i}.txt").write_text("2 1:0.5\n0 1:0.25 2:1\n1 2:0.5\n")
        (tmp_path / f"r{i}.txt.query").write_text("2\n1\n")
    costs = tmp_path / "costs.txt"
    costs.write_text("0 1 1\n1 0 1\n1 1 0\n")
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    sidecar = tmp_path / "r1.txt.query"
    cases = [([str(tmp_path / "r*.txt"), "--task", "rank"], sidecar,
              f"the group sizes found beside {tmp_path / 'r1.txt'} {sidecar}"),
             ([str(tmp_path / "r0.txt"), str(tmp_path / "r1.txt"), "--task", "classify", "--cost-matrix", str(costs)],
              costs, f"--cost-matrix {costs}")]
    for args, target, name in cases:
        capsys.readouterr()
        assert main(["fit", *args, "--workers", "1", "--quiet", "--model", str(target)]) == 1
        err = capsys.readouterr().err
        assert f"--model {target} is the input {name}: writing it would destroy the input" in err, err
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_the_summary_of_a_fit_of_files_is_the_summary_of_every_fit(tmp_path, capsys, tcp_cluster):
    """A fit of files on a cluster printed 'fitted PredtronClassifier on 3 files on a Dask cluster (4 epochs);
    saved M', without the task, the features, the classes, nor that early stopping ended it before --epochs;
    it prints the line of every other fit."""
    files = _files(tmp_path)
    model = tmp_path / "m.npz"
    assert main(["fit", *map(str, files), "--task", "classify", "--model", str(model), "--epochs", "50", "--tol", "10",
                 "--n-iter-no-change", "1", "--scheduler", tcp_cluster]) == 0
    out = capsys.readouterr().out
    fitted = load(model)
    made, classes = fitted.n_iter_, len(fitted.classes_)
    assert made < 50
    assert out == (f"saved PredtronClassifier (classify) to {model}: 3 files on a Dask cluster, 6 features, {classes} "
                   f"classes, {made} epochs (of at most 50)\n")
