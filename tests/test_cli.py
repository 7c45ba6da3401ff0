"""The ``predtron`` command line, end to end: fit -> predict -> evaluate on files.

The shipped data (``predtron/data/files/``: MQ2008 Fold 1, Mulan emotions) go through the real program,
``python -m predtron`` in a subprocess (and the installed ``predtron`` script when the
virtualenv has one); the small classification, ordinal and ranking files the tests write go
through :func:`predtron.cli.main` in-process, which is the function the script calls.  Values
printed are checked against the estimators of :mod:`predtron.sklearn` fitted directly.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import f1_score

import predtron
from predtron.cli import build_parser, detect_format, main
from predtron.data import load_arff, load_emotions, load_mq2008, load_svmlight
from predtron.data.shipped import BIBTEX_FILES, BIBTEX_LABELS, EMOTIONS_FILES, MQ2008_FILES, shipped_file
from predtron.sklearn import (
    PredtronClassifier,
    PredtronMultilabelClassifier,
    PredtronOrdinalClassifier,
    PredtronRanker,
)

ROOT = Path(__file__).resolve().parents[1]
EPOCHS = "2"


# ------------------------------------------------------------------ helpers
def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def run_program(*args, command=(sys.executable, "-m", "predtron"), cwd=None) -> subprocess.CompletedProcess:
    """Run the real program in a subprocess (the repository's code first on the path)."""
    return subprocess.run([*command, *map(str, args)], capture_output=True, text=True, env=_env(), cwd=cwd,
                          timeout=300, check=False)


def call(capsys, *args) -> tuple[int, str, str]:
    """Run :func:`predtron.cli.main` in-process: ``(status, stdout, stderr)``."""
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def metric_values(text: str) -> dict[str, str]:
    lines = text.splitlines()
    assert all(line.count(": ") == 1 for line in lines), text
    return dict(line.split(": ") for line in lines)


def assert_one_line_error(status: int, out: str, err: str, *needles: str) -> None:
    assert status != 0
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, f"not one line: {err!r}"
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, f"{needle!r} not in {err!r}"


def write_svmlight(path: Path, X: np.ndarray, y, qid=None) -> Path:
    with path.open("w") as handle:
        for i, row in enumerate(X):
            tokens = [str(y[i])] + ([f"qid:{qid[i]}"] if qid is not None else [])
            tokens += [f"{j + 1}:{v!r}" for j, v in enumerate(row.tolist()) if v != 0]
            handle.write(" ".join(tokens) + "\n")
    return path


def classification_data(seed: int, n: int = 90):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    W = np.array([[2.0, -1.0, 0.0], [0.0, 2.0, -1.0], [-1.0, 0.0, 2.0], [0.5, 0.5, 0.5]])
    return X, np.argmax(X @ W, axis=1) + 1  # labels 1, 2, 3


def ordinal_data(seed: int, n: int = 90):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.digitize(X @ np.array([1.0, -0.5, 0.25]), [-0.8, 0.0, 0.8]) + 1  # levels 1..4


def ranking_data(seed: int, queries: int = 12, per_query: int = 6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(queries * per_query, 5))
    rel = np.digitize(X @ np.array([1.0, 0.5, 0.0, -0.5, 0.2]), [0.0, 1.0])  # grades 0..2
    return X, rel, np.repeat(np.arange(queries), per_query)


# ------------------------------------------------------------------ shipped data, through the program
@pytest.fixture(scope="module")
def mq2008_model(tmp_path_factory) -> Path:
    """A ranker fitted by ``python -m predtron fit`` on the shipped MQ2008 training split."""
    model = tmp_path_factory.mktemp("cli") / "mq2008.npz"
    result = run_program("fit", shipped_file(MQ2008_FILES["train"]), "--task", "rank", "--model", model,
                         "--epochs", EPOCHS, "--seed", 0)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"saved PredtronRanker (rank) to {model}: 2707 examples x 46 features, "
                                    f"157 queries, {EPOCHS} epochs")
    assert result.stderr == ""  # no progress bar when stderr is not a terminal
    return model


def _map(ranker, X, y, group) -> float:
    """The MAP of ``ranker`` on ``X`` (queries of sizes ``group``): the mean of the queries' average
    precisions (``ranking_batch.average_precisions``, tested against the definition)."""
    from predtron.problems.ranking_batch import average_precisions

    offsets = np.concatenate(([0], np.cumsum(group)))
    return float(np.mean(average_precisions(ranker.predict(X), np.asarray(y), offsets)))


def test_rank_on_mq2008_matches_the_estimator(mq2008_model, tmp_path):
    train, test = load_mq2008("train"), load_mq2008("test")
    ranker = PredtronRanker(epochs=int(EPOCHS), random_state=0).fit(train.X, train.y, group=train.group)
    saved = predtron.load(mq2008_model)
    assert type(saved) is PredtronRanker and saved.n_features_in_ == 46
    np.testing.assert_array_equal(saved.learner_.coef_, ranker.learner_.coef_)

    result = run_program("evaluate", shipped_file(MQ2008_FILES["test"]), "--model", mq2008_model, "--k", 1, 10)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    expected = {f"ndcg@{k}": f"{ranker.set_params(k=k).score(test.X, test.y, group=test.group):.4f}" for k in (1, 10)}
    expected["map"] = f"{_map(ranker, test.X, test.y, test.group):.4f}"
    assert metric_values(result.stdout) == expected
    assert result.stdout.splitlines()[-1].startswith("map: ")  # after the NDCG lines

    scores = tmp_path / "scores.txt"
    result = run_program("predict", shipped_file(MQ2008_FILES["test"]), "--model", mq2008_model, "--output", scores)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    written = np.array([float(line) for line in scores.read_text().splitlines()])
    assert written.shape == (2874,)
    np.testing.assert_allclose(written, ranker.predict(test.X), rtol=1e-12, atol=1e-12)


def test_multilabel_on_emotions_matches_the_estimator(tmp_path):
    train, test = load_emotions("train"), load_emotions("test")
    model = tmp_path / "emotions"  # '.npz' is appended
    result = run_program("fit", shipped_file(EMOTIONS_FILES["train"]), "--task", "multilabel", "--labels", 6,
                         "--model", model, "--epochs", EPOCHS, "--seed", 1)
    assert result.returncode == 0, result.stderr
    assert "391 examples x 72 features, 6 labels" in result.stdout
    model = model.with_suffix(".npz")
    estimator = PredtronMultilabelClassifier(epochs=int(EPOCHS), random_state=1).fit(train.X, train.Y)
    truth = estimator.predict(test.X)

    result = run_program("predict", shipped_file(EMOTIONS_FILES["test"]), "--model", model)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 202 and all(len(line.split(" ")) == 6 and set(line.split(" ")) <= {"0", "1"}
                                     for line in lines)
    np.testing.assert_array_equal(np.array([line.split(" ") for line in lines], dtype=int), truth)

    result = run_program("evaluate", shipped_file(EMOTIONS_FILES["test"]), "--model", model)
    assert result.returncode == 0, result.stderr
    hamming = np.mean(truth != test.Y)
    assert np.isclose(hamming, -estimator.score(test.X, test.Y))
    assert metric_values(result.stdout) == {
        "hamming loss": f"{hamming:.4f}", "subset accuracy": f"{np.mean(np.all(truth == test.Y, axis=1)):.4f}",
        "micro f1": f"{f1_score(test.Y, truth, average='micro'):.4f}",
        "example f1": f"{f1_score(test.Y, truth, average='samples', zero_division=1.0):.4f}"}


def test_console_script_entry_point():
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, name = scripts["predtron"].partition(":")
    # the console script starts where ``python -m predtron`` does: its Ctrl-C handler comes before the
    # command line's import (tests/test_interrupts.py)
    assert (module, name) == ("predtron.__main__", "main")
    from predtron import __main__ as entry
    from predtron.cli import main

    assert entry.command_line is main


def test_installed_script_agrees_with_the_module(mq2008_model):
    script = Path(sys.executable).parent / ("predtron.exe" if os.name == "nt" else "predtron")
    if not script.is_file():
        pytest.skip(f"no 'predtron' console script beside {sys.executable} (install the package: pip install -e .)")
    args = ("evaluate", shipped_file(MQ2008_FILES["test"]), "--model", mq2008_model, "--k", 5)
    by_script = run_program(*args, command=(str(script),))
    by_module = run_program(*args)
    assert by_script.returncode == 0, by_script.stderr
    assert by_script.stdout == by_module.stdout and by_script.stdout.startswith("ndcg@5: ")


@pytest.mark.parametrize(("args", "status", "needle"), [
    (("fit", "no-such-file.txt", "--task", "rank", "--model", "m.npz"), 1, "data file not found: no-such-file.txt"),
    (("fit", "x.txt", "--task", "rank", "--model", "m.npz", "--no-such-option"), 2, "--no-such-option"),
])
def test_program_fails_with_one_line(tmp_path, args, status, needle):
    result = run_program(*args, cwd=tmp_path)
    assert result.returncode == status
    assert_one_line_error(result.returncode, result.stdout, result.stderr, needle)


# ------------------------------------------------------------------ small files, in-process
def test_classify_fit_predict_evaluate(tmp_path, capsys):
    X, y = classification_data(0)
    Xt, yt = classification_data(1, n=40)
    train, test = write_svmlight(tmp_path / "train.svm", X, y), write_svmlight(tmp_path / "test.svm", Xt, yt)
    model = tmp_path / "clf.npz"
    status, out, err = call(capsys, "fit", train, "--task", "classify", "--model", model, "--epochs", 3,
                            "--seed", 0, "--eta", 0.5)
    assert (status, err) == (0, "")
    assert out == f"saved PredtronClassifier (classify) to {model}: 90 examples x 4 features, 3 classes, 3 epochs\n"
    estimator = PredtronClassifier(epochs=3, random_state=0, eta=0.5).fit(load_svmlight(train).X, y)

    status, out, err = call(capsys, "predict", test, "--model", model)
    assert (status, err) == (0, "")
    assert out.splitlines() == [str(label) for label in estimator.predict(load_svmlight(test).X)]
    assert set(out.split()) <= {"1", "2", "3"}  # labels as written in the file, not floats

    status, out, err = call(capsys, "evaluate", test, "--model", model)
    assert (status, err) == (0, "")
    accuracy = estimator.score(load_svmlight(test).X, yt)
    assert 0.5 < accuracy < 1.0  # the check below can tell a wrong value
    assert metric_values(out) == {"accuracy": f"{accuracy:.4f}"}


def test_omitted_options_keep_the_estimators_defaults(tmp_path, capsys):
    X, y = classification_data(2)
    train = write_svmlight(tmp_path / "train.svm", X, y)
    for task, cls in (("classify", PredtronClassifier), ("ordinal", PredtronOrdinalClassifier)):
        status, _, err = call(capsys, "fit", train, "--task", task, "--model", tmp_path / f"{task}.npz", "--quiet")
        assert (status, err) == (0, "")
        assert predtron.load(tmp_path / f"{task}.npz").get_params() == cls(random_state=0).get_params()


def test_cost_matrix_and_abstention(tmp_path, capsys):
    X, y = classification_data(3)
    train = write_svmlight(tmp_path / "train.svm", X, y)
    costs = np.array([[0, 1, 4], [1, 0, 1], [4, 1, 0]], dtype=float)
    np.savetxt(tmp_path / "costs.txt", costs)
    model = tmp_path / "cost.npz"
    status, _, err = call(capsys, "fit", train, "--task", "classify", "--model", model, "--cost-matrix",
                          tmp_path / "costs.txt", "--seed", 0, "--epochs", 2)
    assert (status, err) == (0, "")
    estimator = PredtronClassifier(cost_matrix=costs, random_state=0, epochs=2).fit(X, y)
    status, out, _ = call(capsys, "evaluate", train, "--model", model)
    assert status == 0
    assert metric_values(out) == {"mean cost": f"{-estimator.score(X, y):.4f}",
                                  "accuracy": f"{np.mean(estimator.predict(X) == y):.4f}"}

    model = tmp_path / "reject.npz"
    status, _, err = call(capsys, "fit", train, "--task", "classify", "--model", model, "--reject-cost", 0.3,
                          "--reject-label", 0, "--seed", 0, "--epochs", 2)
    assert (status, err) == (0, "")
    estimator = PredtronClassifier(reject_cost=0.3, reject_label=0, random_state=0, epochs=2).fit(X, y)
    status, out, _ = call(capsys, "predict", train, "--model", model)
    assert out.splitlines() == [str(v) for v in estimator.predict(X)]
    status, out, _ = call(capsys, "evaluate", train, "--model", model)
    assert list(metric_values(out)) == ["mean cost", "accuracy", "abstention rate"]
    assert metric_values(out)["mean cost"] == f"{-estimator.score(X, y):.4f}"


BAD_COST_MATRICES = [
    ("", "--cost-matrix {f} is empty"),
    ("# costs\n\n", "--cost-matrix {f} holds only blank lines and comments"),
    ("0 1 1\n1 0\n", "--cost-matrix {f}, line 2: row 2 has 2 costs, but row 1 has 3"),
    ("0 nan\n1 0\n", "--cost-matrix {f}, line 1: row 1, column 2 is 'nan'; a cost must be a finite number"),
    ("0 1\n\n1 inf\n", "--cost-matrix {f}, line 3: row 2, column 2 is 'inf'"),
    ("0 1\n1 zero\n", "--cost-matrix {f}, line 2: row 2, column 2 is 'zero', not a number"),
    ("0 1 1\n1 0 1\n", "--cost-matrix {f}: expected k rows of k costs; got 2 rows of 3"),
]


@pytest.mark.parametrize(("text", "needle"), BAD_COST_MATRICES,
                         ids=["empty", "comments only", "short row", "nan", "inf", "word", "not square"])
def test_a_bad_cost_matrix_is_one_line_naming_the_flag_file_line_and_value(tmp_path, capsys, text, needle):
    X, y = classification_data(3, n=20)
    train = write_svmlight(tmp_path / "train.svm", X, y)
    costs = tmp_path / "costs.txt"
    costs.write_text(text)
    status, out, err = call(capsys, "fit", train, "--task", "classify", "--model", tmp_path / "m.npz",
                            "--cost-matrix", costs)
    assert_one_line_error(status, out, err, f"predtron fit: error: {needle.format(f=costs)}")
    assert status == 1
    assert "usecols" not in err and "shape" not in err


@pytest.mark.parametrize("stream", [False, True])
def test_evaluate_on_unseen_levels_names_the_file_and_only_the_unseen_levels(tmp_path, capsys, stream):
    train, test = tmp_path / "o.svm", tmp_path / "ot.svm"
    train.write_text("0 1:1\n1 1:2\n2 1:3\n0 1:0\n")
    test.write_text("9 1:1\n0 1:2\n")
    status, _, err = call(capsys, "fit", train, "--task", "ordinal", "--model", tmp_path / "o.npz", "--quiet")
    assert (status, err) == (0, "")
    status, out, err = call(capsys, "evaluate", test, "--model", tmp_path / "o.npz", *(["--stream"] if stream else []))
    assert_one_line_error(status, out, err)
    assert status == 1
    assert err == (f"predtron evaluate: error: the labels of {test} hold 1 level not seen in fit: [9]; the levels "
                   "seen in fit are [0, 1, 2]\n")


def test_a_sidecar_contradicting_the_qids_is_refused_in_memory_as_with_stream(tmp_path, capsys):
    data = tmp_path / "r.txt"
    data.write_text("2 qid:1 1:1 2:0\n0 qid:1 1:0 2:1\n1 qid:2 1:1\n0 qid:2 2:1\n")
    (tmp_path / "r.txt.query").write_text("1\n3\n")
    errors = []
    for mode in ([], ["--stream"]):
        status, out, err = call(capsys, "fit", data, "--task", "rank", "--model", tmp_path / "r.npz", "--quiet", *mode)
        assert_one_line_error(status, out, err)
        errors.append((status, err))
    assert errors[0] == errors[1] == (1, f"predtron fit: error: the group sizes in {data}.query do not match the "
                                         f"queries of {data} given by its qid: fields: query 1 (from line 1) has 2 "
                                         "lines, where the sizes give 1\n")
    assert not (tmp_path / "r.npz").exists()


def test_ordinal_fit_predict_evaluate(tmp_path, capsys):
    X, y = ordinal_data(0)
    Xt, yt = ordinal_data(1, n=50)
    train, test = write_svmlight(tmp_path / "train.txt", X, y), write_svmlight(tmp_path / "test.txt", Xt, yt)
    model = tmp_path / "ord.npz"
    status, _, err = call(capsys, "fit", train, "--task", "ordinal", "--model", model, "--seed", 0, "--epochs", 3)
    assert (status, err) == (0, "")
    estimator = PredtronOrdinalClassifier(random_state=0, epochs=3).fit(X, y)
    status, out, _ = call(capsys, "predict", test, "--model", model)
    assert status == 0 and out.splitlines() == [str(v) for v in estimator.predict(Xt)]
    status, out, _ = call(capsys, "evaluate", test, "--model", model)
    mae = np.mean(np.abs(estimator.predict(Xt) - yt))  # levels 1..4 are consecutive: levels = values
    assert mae > 0 and np.isclose(mae, -estimator.score(Xt, yt))
    assert metric_values(out) == {"mean absolute error": f"{mae:.4f}",
                                  "accuracy": f"{np.mean(estimator.predict(Xt) == yt):.4f}"}


@pytest.mark.parametrize("layout", ["qid", "sidecar", "group-file"])
def test_rank_query_layouts(tmp_path, capsys, layout):
    X, rel, qid = ranking_data(0)
    sizes = np.bincount(qid)
    train = write_svmlight(tmp_path / "train.txt", X, rel, qid if layout == "qid" else None)
    extra = []
    if layout == "sidecar":
        (tmp_path / "train.txt.query").write_text("".join(f"{s}\n" for s in sizes))
    elif layout == "group-file":
        (tmp_path / "sizes.txt").write_text("".join(f"{float(s)}\n" for s in sizes))  # as np.savetxt writes
        extra = ["--group-file", tmp_path / "sizes.txt"]
    model = tmp_path / "rank.npz"
    status, out, err = call(capsys, "fit", train, "--task", "rank", "--model", model, "--seed", 0, *extra)
    assert (status, err) == (0, ""), err
    assert "72 examples x 5 features, 12 queries" in out
    ranker = PredtronRanker(random_state=0).fit(X, rel, group=sizes)
    status, out, err = call(capsys, "evaluate", train, "--model", model, "--k", 3, *extra)
    assert (status, err) == (0, "")
    assert metric_values(out) == {"ndcg@3": f"{ranker.set_params(k=3).score(X, rel, group=sizes):.4f}",
                                  "map": f"{_map(ranker, X, rel, sizes):.4f}"}
    status, out, _ = call(capsys, "predict", train, "--model", model)  # no query information needed
    np.testing.assert_allclose([float(v) for v in out.split()], ranker.predict(X), rtol=1e-12, atol=1e-12)


def test_sparse_matches_the_estimator_on_csr(tmp_path, capsys):
    X, y = classification_data(4)
    X[np.abs(X) < 0.7] = 0.0
    train = write_svmlight(tmp_path / "train.svm", X, y)
    model = tmp_path / "sparse.npz"
    status, _, err = call(capsys, "fit", train, "--task", "classify", "--model", model, "--sparse", "--seed", 0)
    assert (status, err) == (0, "")
    estimator = PredtronClassifier(random_state=0).fit(sp.csr_matrix(X), y)
    for flags in ([], ["--sparse"]):  # the model applies its training statistics to either layout
        status, out, _ = call(capsys, "predict", train, "--model", model, *flags)
        assert status == 0 and out.splitlines() == [str(v) for v in estimator.predict(sp.csr_matrix(X))]


def test_n_features_is_stored_in_the_model(tmp_path, capsys):
    X, y = classification_data(5, n=30)
    train = write_svmlight(tmp_path / "train.svm", X[:, :3], y)  # indices 1..3
    test = write_svmlight(tmp_path / "test.svm", X, y)  # indices up to 4
    status, _, _ = call(capsys, "fit", train, "--task", "classify", "--model", tmp_path / "narrow.npz")
    assert status == 0 and predtron.load(tmp_path / "narrow.npz").n_features_in_ == 3
    status, out, err = call(capsys, "predict", test, "--model", tmp_path / "narrow.npz")
    assert_one_line_error(status, out, err, "test.svm, line 1", "fitted on 3 features", "--n-features")

    status, _, _ = call(capsys, "fit", train, "--task", "classify", "--model", tmp_path / "wide.npz",
                        "--n-features", 4)
    assert status == 0 and predtron.load(tmp_path / "wide.npz").n_features_in_ == 4
    status, out, _ = call(capsys, "predict", test, "--model", tmp_path / "wide.npz")
    assert status == 0 and len(out.splitlines()) == 30
    status, out, _ = call(capsys, "predict", train, "--model", tmp_path / "wide.npz")  # narrower file: padded
    assert status == 0 and len(out.splitlines()) == 30


NON_FINITE_OPTIONS = [
    ("multilabel", ["--missing", "nan"], "--missing must be a finite number; got nan"),
    ("multilabel", ["--missing", "inf", "--stream"], "--missing must be a finite number; got inf"),
    ("classify", ["--reject-cost", "0.3", "--reject-label", "nan"], "--reject-label must be a finite number"),
    ("classify", ["--classes", "0", "1", "nan", "--stream"], "--classes holds nan; a class must be a finite number"),
    ("multilabel", ["--missing", "1e308"], "--missing must be a finite number of magnitude at most 1e+100"),
]


@pytest.mark.parametrize(("task", "options", "needle"), NON_FINITE_OPTIONS,
                         ids=["missing", "missing stream", "reject-label", "classes", "missing huge"])
def test_a_non_finite_option_value_is_refused_naming_the_flag(tmp_path, capsys, task, options, needle):
    if task == "multilabel":
        data = tmp_path / "a.arff"
        data.write_text("@relation r\n@attribute f numeric\n@attribute l1 {0,1}\n@attribute l2 {0,1}\n@data\n"
                        "1,0,1\n?,1,0\n3,1,1\n")
        options = ["--labels", "2", *options]
    else:
        X, y = classification_data(4, n=20)
        data = write_svmlight(tmp_path / "train.svm", X, np.minimum(y, 2) - 1)  # classes 0 and 1
    status, out, err = call(capsys, "fit", data, "--task", task, "--model", tmp_path / "m.npz", "--quiet", *options)
    assert_one_line_error(status, out, err, f"predtron fit: error: {needle}")
    assert status == 1
    assert not (tmp_path / "m.npz").exists()


def test_arff_with_xml_labels_and_missing_values(tmp_path, capsys):
    header = ["@relation tiny", "@attribute 'f one' numeric", "@attribute f2 numeric", "@attribute f3 numeric",
              "@attribute a {0,1}", "@attribute b {0,1}", "@data"]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] + X[:, 2] > 0]).astype(int)
    rows = [",".join([*map(repr, x.tolist()), *map(str, t)]) for x, t in zip(X, Y, strict=True)]
    rows[3] = "?," + rows[3].split(",", 1)[1]
    path = tmp_path / "tiny.data"  # no known extension: the content says ARFF
    path.write_text("\n".join(["% a comment", *header, *rows]) + "\n")
    (tmp_path / "tiny.xml").write_text('<labels xmlns="http://mulan.sourceforge.net/labels">'
                                       '<label name="a"></label><label name="b"></label></labels>')
    model = tmp_path / "ml.npz"
    status, out, err = call(capsys, "fit", path, "--task", "multilabel", "--model", model, "--xml",
                            tmp_path / "tiny.xml", "--quiet")
    assert_one_line_error(status, out, err, "tiny.data, line", "missing")
    status, out, err = call(capsys, "fit", path, "--task", "multilabel", "--model", model, "--xml",
                            tmp_path / "tiny.xml", "--missing", 0, "--quiet", "--loss", "f1", "--seed", 0)
    assert (status, out, err) == (0, "", "")
    data = load_arff(path, 2, missing=0.0)
    estimator = PredtronMultilabelClassifier(loss="f1", random_state=0).fit(data.X, data.Y)
    status, out, _ = call(capsys, "evaluate", path, "--model", model, "--missing", 0)  # labels: the model's 2
    assert status == 0
    values = metric_values(out)
    assert list(values) == ["hamming loss", "subset accuracy", "micro f1", "example f1", "f1 loss"]
    assert values["f1 loss"] == f"{-estimator.score(data.X, data.Y):.4f}"


def test_progress_bar_and_quiet(tmp_path, capsys):
    X, y = classification_data(6, n=50)
    train = write_svmlight(tmp_path / "train.svm", X, y)
    model = tmp_path / "m.npz"
    status, out, err = call(capsys, "fit", train, "--task", "classify", "--model", model, "--epochs", 2, "--progress")
    assert status == 0 and out.startswith("saved ")
    assert "100%" in err and "100/100" in err  # 2 passes x 50 examples
    status, out, err = call(capsys, "fit", train, "--task", "classify", "--model", model, "--epochs", 2, "--quiet")
    assert (status, out, err) == (0, "", "")
    status, out, err = call(capsys, "fit", train, "--task", "classify", "--model", model, "--quiet", "--progress")
    assert_one_line_error(status, out, err, "not allowed with argument")


def test_detect_format(tmp_path):
    (tmp_path / "a.data").write_text("\n% comment\n@RELATION x\n")
    (tmp_path / "b.data").write_text("# comment\n1 1:0.5\n")
    (tmp_path / "c.arff.gz").write_bytes(b"")
    assert detect_format(tmp_path / "a.data") == "arff"
    assert detect_format(tmp_path / "b.data") == "svmlight"
    assert detect_format(tmp_path / "c.arff.gz") == "arff"
    assert detect_format(tmp_path / "vali.txt.gz") == "svmlight"  # by extension, without reading
    assert detect_format(tmp_path / "a.data", "svmlight") == "svmlight"


@pytest.fixture
def files(tmp_path, capsys):
    """A classification model, a ranking model and data files for the bad-input cases."""
    X, y = classification_data(7, n=30)
    write_svmlight(tmp_path / "train.svm", X, y)
    assert main(["fit", str(tmp_path / "train.svm"), "--task", "classify", "--model", str(tmp_path / "clf.npz")]) == 0
    Xr, rel, qid = ranking_data(1, queries=4)
    write_svmlight(tmp_path / "rank.txt", Xr, rel, qid)
    assert main(["fit", str(tmp_path / "rank.txt"), "--task", "rank", "--model", str(tmp_path / "rank.npz")]) == 0
    (tmp_path / "bad.svm").write_text("1 1:0.5 2:1\n2 1:0.25 2:oops\n")
    (tmp_path / "unsorted.txt").write_text("1 qid:1 1:1\n0 qid:2 1:1\n2 qid:1 1:0\n")
    (tmp_path / "noqid.txt").write_text("1 1:1\n0 1:2\n")
    (tmp_path / "costs.txt").write_text("0 1\n1 0\n")
    (tmp_path / "notamodel.npz").write_text("1 2 3\n")
    np.save(tmp_path / "array.npy", np.zeros(3))
    predtron.save(predtron.Predtron(predtron.problems.Binary()).fit(X, np.where(y == 1, 1, -1)), tmp_path / "core")
    (tmp_path / "plain.arff").write_text("@relation r\n@attribute f numeric\n@attribute l {0,1}\n@data\n1,0\n2,1\n")
    capsys.readouterr()
    return tmp_path


BAD_INPUT = [
    (["fit", "{d}/missing.svm", "--task", "classify", "--model", "{d}/m.npz"], "data file not found"),
    (["fit", "{d}/bad.svm", "--task", "classify", "--model", "{d}/m.npz"], "bad.svm, line 2"),
    (["fit", "{d}/unsorted.txt", "--task", "rank", "--model", "{d}/m.npz"], "unsorted.txt, line 3"),
    (["fit", "{d}/noqid.txt", "--task", "rank", "--model", "{d}/m.npz"], "noqid.txt.query"),
    (["fit", "{d}/train.svm", "--task", "multilabel", "--model", "{d}/m.npz"], "ARFF"),
    (["fit", "{d}/plain.arff", "--task", "multilabel", "--model", "{d}/m.npz"], "--labels N"),
    (["fit", "{d}/plain.arff", "--task", "classify", "--model", "{d}/m.npz"], "svmlight/LETOR"),
    (["fit", "{d}/train.svm", "--task", "rank", "--model", "{d}/m.npz"], "train.svm has no qid:"),
    (["fit", "{d}/train.svm", "--task", "rank", "--model", "{d}/m.npz", "--cost-matrix", "{d}/costs.txt"],
     "--cost-matrix does not apply to --task rank"),
    (["fit", "{d}/train.svm", "--task", "classify", "--model", "{d}/m.npz", "--cost-matrix", "{d}/costs.txt"],
     "--cost-matrix must be (3, 3)"),
    (["fit", "{d}/train.svm", "--task", "classify", "--model", "{d}/m.npz", "--epochs", "0"], "epochs"),
    (["fit", "{d}/train.svm", "--task", "classify", "--model", "{d}/m.npz", "--labels", "2"], "--labels applies"),
    (["fit", "{d}/train.svm", "--task", "classify", "--model", "{d}/m.npz", "--n-features", "2"], "line 1"),
    (["fit", "{d}/train.svm", "--task", "classify", "--model", "{d}/no/such/dir/m.npz"],
     "--model {d}/no/such/dir/m.npz: the folder {d}/no/such/dir does not exist"),
    (["fit", "{d}/train.svm", "--task", "sort", "--model", "{d}/m.npz"], "invalid choice: 'sort'"),
    (["fit", "{d}/train.svm", "--task", "classify", "--model", "{d}/m.npz", "--epochs", "two"], "--epochs"),
    (["fit", "{d}/train.svm", "--task", "classify", "--model", "{d}/m.npz", "--learning-rate", "1"],
     "unrecognized arguments: --learning-rate"),
    (["predict", "{d}/train.svm", "--model", "{d}/missing.npz"], "model file not found"),
    (["predict", "{d}/train.svm", "--model", "{d}/notamodel.npz"], "not a predtron model file"),
    (["predict", "{d}/train.svm", "--model", "{d}/array.npy"], "not a predtron model file"),
    (["predict", "{d}/train.svm", "--model", "{d}/core.npz"], "holds a Predtron, not a model written by"),
    (["predict", "{d}/train.svm", "--model", "{d}/clf.npz", "--task", "rank"], "holds a classify model"),
    (["evaluate", "{d}/rank.txt", "--model", "{d}/clf.npz"], "fitted on 4 features"),
    (["evaluate", "{d}/plain.arff", "--model", "{d}/rank.npz"], "rank data are read from svmlight"),
    (["evaluate", "{d}/train.svm", "--model", "{d}/clf.npz", "--k", "5"], "--k applies to rank models"),
    (["evaluate", "{d}/train.svm", "--model", "{d}/clf.npz", "--group-file", "{d}/costs.txt"],
     "--group-file applies to the rank task"),
    (["evaluate", "{d}/rank.txt", "--model", "{d}/rank.npz", "--k", "0"], "expected a whole number >= 1"),
    (["predict", "{d}/train.svm"], "required: --model"),
    ([], "required: COMMAND"),
]


#: The rows of :data:`BAD_INPUT` whose flags contradict each other: usage errors (exit status 2); the
#: others that name a flag depend on a file (--labels with a file read as svmlight, --k or --group-file
#: with a model of another task).
FLAG_ERRORS = {"--cost-matrix does not apply to --task rank"}


@pytest.mark.parametrize(("args", "needle"), BAD_INPUT, ids=[" ".join([*a[:1], n]) for a, n in BAD_INPUT])
def test_bad_input_fails_with_one_line(files, capsys, args, needle):
    status, out, err = call(capsys, *[a.format(d=files) for a in args])
    assert_one_line_error(status, out, err, needle.format(d=files))
    assert err.startswith("predtron")
    usage = "error: argument" in err or "required" in err or "unrecognized" in err or needle in FLAG_ERRORS
    assert status == (2 if usage else 1)
    assert err.endswith(f" (see '{' '.join(err.split(':')[0].split()[:2])} --help')\n") == usage


@pytest.mark.parametrize("command", [None, "fit", "predict", "evaluate", "compile"])
def test_help_explains_every_option(capsys, command):
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    target = parser if command is None else subparsers.choices[command]
    for action in target._actions:
        assert action.help and len(action.help) > 10, f"{command}: {action.option_strings or action.dest} unexplained"
    with pytest.raises(SystemExit) as exit_info:
        main(([] if command is None else [command]) + ["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "examples" in out and "predtron " + (command or "fit") in out
    assert out.startswith(f"usage: predtron{' ' + command if command else ''} ")


def test_help_shows_the_estimators_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert f"[epochs; default: {PredtronRanker().epochs}]" in out
    assert f"[eta; default: {PredtronClassifier().eta}]" in out
    assert f"default: none for multilabel, {PredtronRanker().k} for rank" in out


# ------------------------------------------------------------------ files are never harmed
@pytest.mark.parametrize("flag", ["--model", "--cache", "--checkpoint"])
def test_an_output_equal_to_an_input_is_refused_before_any_work(tmp_path, capsys, flag):
    X, y = classification_data(8, n=30)
    train = write_svmlight(tmp_path / "train.svm", X, y)
    before = train.read_bytes()
    args = ["fit", train, "--task", "classify", "--model", tmp_path / "m.npz", "--stream"]
    if flag == "--model":
        args[5] = train
    else:
        args += [flag, train]
    status, out, err = call(capsys, *args)
    expected = f"{flag} {train} is a file" if flag == "--checkpoint" else f"{flag} {train} is the input"
    assert_one_line_error(status, out, err, expected)
    assert train.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.svm"]


def test_model_path_rule_is_the_same_for_every_command(tmp_path, capsys):
    X, y = classification_data(9, n=30)
    train = write_svmlight(tmp_path / "train.svm", X, y)
    status, out, _ = call(capsys, "fit", train, "--task", "classify", "--model", tmp_path / "m")
    assert status == 0 and f"to {tmp_path / 'm.npz'}:" in out
    for command in ("predict", "evaluate"):
        status, out, err = call(capsys, command, train, "--model", tmp_path / "m")
        assert (status, err) == (0, ""), err
    status, _, _ = call(capsys, "fit", train, "--task", "classify", "--model", tmp_path / "m.model")
    assert status == 0 and (tmp_path / "m.model").is_file()  # a name with a suffix is used as it is
    status, out, err = call(capsys, "predict", train, "--model", tmp_path / "m.model")
    assert (status, err) == (0, "")


def test_predict_output_is_checked_first_and_written_whole(tmp_path, capsys):
    X, y = classification_data(10, n=30)
    train = write_svmlight(tmp_path / "train.svm", X, y)
    assert call(capsys, "fit", train, "--task", "classify", "--model", tmp_path / "m")[0] == 0
    before = train.read_bytes()
    status, out, err = call(capsys, "predict", train, "--model", tmp_path / "m", "--output", train)
    assert_one_line_error(status, out, err, f"--output {train} is the input")
    assert train.read_bytes() == before
    status, out, err = call(capsys, "predict", train, "--model", tmp_path / "m", "--output", tmp_path / "no" / "p")
    assert_one_line_error(status, out, err, f"--output {tmp_path / 'no' / 'p'}: the folder")


# ------------------------------------------------------------------ the options users expect
def test_every_estimator_parameter_has_a_flag():
    from predtron.cli import NO_OPTION, estimator_options
    from predtron.tasks import TASKS

    params = {option.param for option in estimator_options()}
    for task in TASKS.values():
        missing = set(task.estimator_class().get_params()) - params - set(NO_OPTION)
        assert not missing, f"{task.name}: no flag for {sorted(missing)}"


def test_early_stopping_flags_and_default_seed(tmp_path, capsys):
    X, y = classification_data(11, n=60)
    train = write_svmlight(tmp_path / "train.svm", X, y)
    common = ["fit", train, "--task", "classify", "--epochs", 40]
    outs = {}
    for name, flags in (("a", ["--tol", "0.5", "--n-iter-no-change", 2]), ("b", ["--tol", "none"]),
                        ("c", ["--no-early-stopping"]), ("d", ["--tol", "none"])):
        status, outs[name], _ = call(capsys, *common, "--model", tmp_path / name, *flags)
        assert status == 0
    stopped, full, off = (predtron.load(tmp_path / f"{name}.npz") for name in "abc")
    assert (stopped.tol, stopped.n_iter_no_change) == (0.5, 2) and "(of at most 40)" in outs["a"]
    assert full.tol is None and off.tol is None
    assert "40 epochs\n" in outs["b"] and "40 epochs\n" in outs["c"]
    # no --seed: the documented default seed, so two runs give the same file
    assert stopped.random_state == 0
    assert (tmp_path / "b.npz").read_bytes() == (tmp_path / "d.npz").read_bytes()
    status, out, err = call(capsys, *common, "--model", tmp_path / "e", "--tol", "-1")
    assert_one_line_error(status, out, err, "--tol", "expected a finite number >= 0 or 'none'")


@pytest.mark.parametrize(("content", "args", "needle", "python"), [
    ("1 1:1\n0 1:2\n", ["--task", "rank"], "pass --group-file FILE", "group="),
    ("1 0:1 1:2\n0 1:2\n", ["--task", "classify"], "pass --zero-based", "zero_based="),
    ("1 1:1 2000000:1\n", ["--task", "classify"], "--n-features", "max_features"),
], ids=["group", "zero-based", "max-features"])
def test_messages_name_flags_not_python_arguments(tmp_path, capsys, content, args, needle, python):
    (tmp_path / "d.svm").write_text(content)
    status, out, err = call(capsys, "fit", tmp_path / "d.svm", *args, "--model", tmp_path / "m")
    assert_one_line_error(status, out, err, needle)
    assert python not in err


def test_estimator_checks_name_the_flag(tmp_path, capsys):
    X, y = classification_data(12, n=30)
    train = write_svmlight(tmp_path / "train.svm", X, y)
    status, out, err = call(capsys, "fit", train, "--task", "classify", "--model", tmp_path / "m", "--reject-cost",
                            "0.3", "--reject-label", "2")
    assert_one_line_error(status, out, err, "--reject-label must differ from every class")
    assert status == 1  # (only the training labels refute it: bad input, not a malformed command line)


_COST_RANGE = "a number in (0, 1) (abstaining must cost less than a mistake, which costs 1)"


@pytest.mark.parametrize(("task", "flag", "value", "expected"), [
    ("classify", "--eta", "-1", "a finite number > 0 or 'auto'"),
    ("classify", "--eta", "0", "a finite number > 0 or 'auto'"),
    ("classify", "--eta", "inf", "a finite number > 0 or 'auto'"),
    ("classify", "--tol", "inf", "a finite number >= 0 or 'none'"),
    ("classify", "--tol", "-1", "a finite number >= 0 or 'none'"),
    ("classify", "--seed", "-1", "a whole number >= 0"),
    ("classify", "--reject-cost", "1", _COST_RANGE),
    ("classify", "--reject-cost", "nan", _COST_RANGE),
    ("multilabel", "--beta", "0", "a finite number > 0"),
    ("multilabel", "--beta", "nan", "a finite number > 0"),
], ids=lambda v: str(v))
def test_a_value_wrong_whatever_the_data_is_a_usage_error(tmp_path, capsys, task, flag, value, expected):
    """A value that no data could make right ends the command as a malformed command line does (status 2,
    argparse's one line naming the flag, what was expected and what came), before the data are read: as
    ``--tol -1`` and ``--k 0`` always did (``--eta 0``, ``--tol inf``, ``--seed -1`` ended with status 1)."""
    status, out, err = call(capsys, "fit", tmp_path / "never-read.svm", "--task", task, "--model", tmp_path / "m",
                            flag, value)
    assert_one_line_error(status, out, err, f"predtron fit: error: argument {flag}: expected {expected}; "
                                            f"got {value!r}")
    assert status == 2


def test_multilabel_f1_equals_scikit_learn():
    from predtron.tasks import f1_scores

    rng = np.random.default_rng(0)
    Y, P = rng.integers(0, 2, (50, 5)), rng.integers(0, 2, (50, 5))
    Y[:3], P[:3] = 0, 0  # nothing to find, nothing found: counts 1
    micro, example = f1_scores(Y, P)
    assert micro == pytest.approx(f1_score(Y, P, average="micro"))
    assert example == pytest.approx(f1_score(Y, P, average="samples", zero_division=1.0))


def test_stream_progress_ends_at_100_percent_when_early_stopping_ends_the_fit(tmp_path, capsys):
    X, y = classification_data(13, n=200)
    train = write_svmlight(tmp_path / "train.svm", X, y)
    status, out, err = call(capsys, "fit", train, "--task", "classify", "--model", tmp_path / "m", "--stream",
                            "--epochs", 50, "--tol", "10", "--n-iter-no-change", 1, "--progress")
    assert status == 0 and "(of at most 50)" in out
    assert "100%" in err
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert "100%" in last, last


# ------------------------------------------------------------------ one sparse pass by default
def test_a_stream_is_read_sparse_by_default(tmp_path, capsys):
    X, y = classification_data(14, n=120)
    X[np.abs(X) < 0.5] = 0.0
    train = write_svmlight(tmp_path / "train.svm", X, y)
    common = ["fit", train, "--task", "classify", "--no-shuffle", "--epochs", 3, "--quiet"]
    assert call(capsys, *common, "--model", tmp_path / "sparse", "--sparse")[0] == 0
    assert call(capsys, *common, "--model", tmp_path / "dense")[0] == 0
    # one chunk holds the whole file, so the stream's scaling is the in-memory fit's
    assert call(capsys, *common, "--model", tmp_path / "stream", "--stream", "--chunk-rows", 1000)[0] == 0
    assert call(capsys, *common, "--model", tmp_path / "dense-stream", "--stream", "--dense", "--chunk-rows",
                1000)[0] == 0
    stream = predtron.load(tmp_path / "stream.npz")
    np.testing.assert_array_equal(stream.learner_.coef_, predtron.load(tmp_path / "sparse.npz").learner_.coef_)
    np.testing.assert_array_equal(predtron.load(tmp_path / "dense-stream.npz").learner_.coef_,
                                  predtron.load(tmp_path / "dense.npz").learner_.coef_)


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_a_model_reads_arff_test_files_with_its_training_features(tmp_path, capsys, stream):
    """The feature attributes of the training ARFF file are recorded with the model: a test file with
    them in another order (every value in its column) would be read with each feature in another's
    place, silently; predict and evaluate refuse it, naming the first that differs."""
    rng = np.random.default_rng(24)

    def arff(path, names, rows):
        header = [f"@attribute {name} numeric" for name in names] + ["@attribute l1 {0,1}", "@attribute l2 {0,1}"]
        body = [",".join(f"{v:.3f}" for v in row[:-2]) + f",{int(row[-2])},{int(row[-1])}" for row in rows]
        path.write_text("\n".join(["@relation r", *header, "@data", *body]) + "\n")
        return path

    rows = np.c_[rng.normal(size=(40, 3)), rng.integers(0, 2, size=(40, 2))]
    train = arff(tmp_path / "train.arff", ["a", "b", "c"], rows)
    same = arff(tmp_path / "same.arff", ["a", "b", "c"], rows)
    swapped = arff(tmp_path / "swapped.arff", ["b", "a", "c"], rows[:, [1, 0, 2, 3, 4]])
    assert call(capsys, "fit", train, "--task", "multilabel", "--labels", 2, "--model", tmp_path / "m", "--quiet",
                *stream)[0] == 0
    for command in ("predict", "evaluate"):
        assert call(capsys, command, same, "--model", tmp_path / "m", *stream)[0] == 0
        status, out, err = call(capsys, command, swapped, "--model", tmp_path / "m", *stream)
        assert_one_line_error(status, out, err, "swapped.arff does not have the training file's features: its "
                                                "feature 1 is 'b' where the model was fitted on 'a'")
    predtron.save(predtron.load(tmp_path / "m.npz"), tmp_path / "api")  # saved from Python: nothing recorded
    assert call(capsys, "evaluate", swapped, "--model", tmp_path / "api", *stream)[0] == 0


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_a_model_reads_test_files_with_the_index_base_it_was_fitted_on(tmp_path, capsys, stream):
    """--zero-based is recorded with the model: a test file read otherwise would have every feature one
    column off, silently; predict and evaluate refuse it, naming the flag."""
    X, y = classification_data(23, n=60)
    zero = tmp_path / "zero.svm"
    zero.write_text("".join(f"{label} " + " ".join(f"{j}:{v:.4f}" for j, v in enumerate(row)) + "\n"
                            for row, label in zip(X, y, strict=True)))
    one = write_svmlight(tmp_path / "one.svm", X, y)
    fitted = {"z": ["--zero-based"], "o": []}
    for name, flags in fitted.items():
        assert call(capsys, "fit", zero if flags else one, "--task", "classify", "--model", tmp_path / name,
                    "--quiet", *flags)[0] == 0
    for command in ("predict", "evaluate"):
        status, out, err = call(capsys, command, zero, "--model", tmp_path / "z", *stream)
        assert_one_line_error(status, out, err, "fitted on svmlight feature indices starting at 0 (--zero-based): "
                                                "pass --zero-based")
        status, out, err = call(capsys, command, one, "--model", tmp_path / "o", "--zero-based", *stream)
        assert_one_line_error(status, out, err, "starting at 1: drop --zero-based")
        assert call(capsys, command, zero, "--model", tmp_path / "z", "--zero-based", *stream)[0] == 0
    same = call(capsys, "evaluate", zero, "--model", tmp_path / "z", "--zero-based")
    assert same == call(capsys, "evaluate", one, "--model", tmp_path / "o")  # the same features, the same model
    # A model saved by the Python API records nothing: nothing to compare.
    predtron.save(predtron.load(tmp_path / "o.npz"), tmp_path / "api")
    assert call(capsys, "evaluate", zero, "--model", tmp_path / "api", "--zero-based")[0] == 0


@pytest.mark.parametrize("fill", [0.05, 0.6])
def test_in_memory_the_share_of_non_zero_values_decides_the_layout(tmp_path, capsys, fill):
    """Without --sparse/--dense a file read whole is held sparse when at most a tenth of its values
    are non-zero (text), dense otherwise: the fit is the one of the flag that layout stands for."""
    rng = np.random.default_rng(16)
    X = rng.normal(size=(200, 40)) * (rng.random((200, 40)) < fill) + 0.5  # offsets: centring matters
    X[rng.random(X.shape) > fill] = 0.0
    y = np.argmax(X[:, :3] - X[:, :3].mean(axis=0), axis=1) + 1
    train = write_svmlight(tmp_path / "train.svm", X, y)
    common = ["fit", train, "--task", "classify", "--epochs", 3, "--quiet"]
    for name, flags in (("default", []), ("sparse", ["--sparse"]), ("dense", ["--dense"])):
        assert call(capsys, *common, "--model", tmp_path / name, *flags)[0] == 0
    coef = {name: predtron.load(tmp_path / f"{name}.npz").learner_.coef_ for name in ("default", "sparse", "dense")}
    same = "sparse" if fill < 0.1 else "dense"
    other = "dense" if fill < 0.1 else "sparse"
    np.testing.assert_array_equal(coef["default"], coef[same])
    assert not np.array_equal(coef["default"], coef[other])  # the layout matters: centred or only scaled


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_an_arff_file_of_sparse_rows_is_read_sparse(tmp_path, capsys, stream):
    """bibtex (sparse ARFF rows, 3.7% non-zero) is fitted on its CSR rows in memory and streamed, as
    ``--sparse`` fits it (dense, it took five times as long)."""
    train = shipped_file(BIBTEX_FILES["train"])
    common = ["fit", train, "--task", "multilabel", "--labels", BIBTEX_LABELS, "--epochs", 2, "--quiet", *stream]
    for name, flags in (("default", []), ("sparse", ["--sparse"])):
        assert call(capsys, *common, "--model", tmp_path / name, *flags)[0] == 0
    np.testing.assert_array_equal(predtron.load(tmp_path / "default.npz").learner_.coef_,
                                  predtron.load(tmp_path / "sparse.npz").learner_.coef_)


def test_the_help_says_when_a_second_pass_is_made(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "a first pass reads the whole file" in out and "give both to read it once per epoch" in out
    assert "sparse unless --dense" in out


# ------------------------------------------------------------------ one task registry
def test_one_task_registry():
    import dataclasses

    import predtron.cli_stream as cli_stream
    from predtron.cli_data import ReadOptions
    from predtron.tasks import TASKS

    assert not hasattr(cli_stream, "ESTIMATORS")
    assert tuple(TASKS) == ("classify", "multilabel", "ordinal", "rank")
    for task in TASKS.values():
        assert task.estimator_class.__name__ == task.class_name
        assert task.dask_estimator.endswith(":Dask" + task.class_name)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ReadOptions().sparse = True  # typed, frozen options, never an argparse namespace


def test_mulan_xml_beside_the_arff_file_is_found(tmp_path, capsys):
    header = ["@relation tiny", "@attribute f1 numeric", "@attribute f2 numeric", "@attribute a {0,1}",
              "@attribute b {0,1}", "@data"]
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    rows = [f"{a},{b},{int(a > 0)},{int(b > 0)}" for a, b in X.tolist()]
    (tmp_path / "tiny-train.arff").write_text("\n".join([*header, *rows]) + "\n")
    (tmp_path / "tiny.xml").write_text('<labels xmlns="http://mulan.sourceforge.net/labels">'
                                       '<label name="a"></label><label name="b"></label></labels>')
    status, out, err = call(capsys, "fit", tmp_path / "tiny-train.arff", "--task", "multilabel", "--model",
                            tmp_path / "m")
    assert (status, err) == (0, ""), err
    assert "30 examples x 2 features, 2 labels" in out


@pytest.mark.parametrize("found", ["group sizes", "Mulan XML"])
def test_a_file_found_beside_the_data_is_an_input_too(tmp_path, capsys, found):
    """The ``.query`` sidecar of a ranking file and the Mulan XML file beside an ARFF file are read
    by the command: a model or predictions written over them would destroy them."""
    if found == "group sizes":
        train = tmp_path / "q.txt"
        train.write_text("2 1:1 2:0\n0 1:0 2:1\n1 1:1 2:1\n0 1:0 2:0\n")
        beside = tmp_path / "q.txt.query"
        beside.write_text("2\n2\n")
        args = ["fit", train, "--task", "rank", "--model", beside]
    else:
        train = tmp_path / "bb.arff"
        train.write_text("@relation r\n@attribute f1 numeric\n@attribute f2 numeric\n@attribute a {0,1}\n"
                         "@attribute b {0,1}\n@data\n0.5,1,1,0\n1,0,0,1\n0.2,0.3,1,1\n")
        beside = tmp_path / "bb.xml"
        beside.write_text('<?xml version="1.0" encoding="utf-8"?>\n<labels xmlns="http://mulan.sourceforge.net/'
                          'labels"><label name="a"></label><label name="b"></label></labels>\n')
        args = ["fit", train, "--task", "multilabel", "--model", beside]
    before = beside.read_bytes()
    status, out, err = call(capsys, *args)
    assert_one_line_error(status, out, err, f"--model {beside} is the input the {found}")
    assert beside.read_bytes() == before


@pytest.mark.parametrize("name", ["progress.json", "model-3.npz", "mixing-3.npz"])
def test_a_checkpoint_folder_may_not_write_over_an_input(tmp_path, capsys, name):
    """The files a local (model-<epoch>.npz) or a cluster (mixing-<epoch>.npz) checkpoint writes, replaces
    or removes when stale, and progress.json."""
    X, y = classification_data(11, n=30)
    (tmp_path / "ck").mkdir()
    train = write_svmlight(tmp_path / "ck" / name, X, y)
    before = train.read_bytes()
    status, out, err = call(capsys, "fit", train, "--format", "svmlight", "--task", "classify", "--model",
                            tmp_path / "m", "--checkpoint", tmp_path / "ck")
    assert_one_line_error(status, out, err, f"--checkpoint {tmp_path / 'ck'} would write over the input")
    assert train.read_bytes() == before


@pytest.mark.parametrize("model", ["./", "DIR", "/proc/m.npz"])
def test_an_unwritable_model_is_refused_before_the_fit(tmp_path, capsys, monkeypatch, model):
    X, y = classification_data(12, n=30)
    train = write_svmlight(tmp_path / "train.svm", X, y)
    if model == "DIR":
        model = tmp_path / "dir.npz"
        model.mkdir()
    elif model == "/proc/m.npz" and not Path("/proc").is_dir():
        pytest.skip("no /proc here")
    monkeypatch.setattr("predtron.cli.fit_model", lambda *a, **k: pytest.fail("the fit ran"))
    status, out, err = call(capsys, "fit", train, "--task", "classify", "--model", model)
    assert_one_line_error(status, out, err, f"--model {model}")
    assert "is a folder" in err or "no file can be written in /proc" in err


def test_a_streamed_fit_refuses_an_absurd_index_before_allocating(tmp_path, capsys):
    """The survey's width meets the in-memory reader's guard (``MAX_FEATURES``): a stray index of 10^9 is
    refused at once, not a 4 GB weight matrix allocated."""
    train = tmp_path / "huge.svm"
    train.write_text("1 1:1 1000000000:1\n-1 2:1\n")
    status, out, err = call(capsys, "fit", train, "--task", "classify", "--model", tmp_path / "m", "--stream")
    assert_one_line_error(status, out, err, "1000000000 features, beyond the guard of 1000000", "--n-features")


def _streamed_fit(tmp_path, capsys, seed: int, n: int, *flags) -> list:
    """The arguments of a streamed fit with ``flags`` on a new training file, run once (it succeeds)."""
    X, y = classification_data(seed, n=n)
    train = write_svmlight(tmp_path / "train.svm", X, y)
    args = ["fit", train, "--task", "classify", "--model", tmp_path / "m", "--stream", *flags, "--epochs", "2",
            "--quiet"]
    assert call(capsys, *args)[0] == 0
    return args


@pytest.mark.parametrize("flag, name", [("--model", "progress.json"), ("--model", "model-3.npz"),
                                        ("--cache", "model-2.npz"), ("--cache", "mixing-1.npz")])
def test_an_output_named_as_a_checkpoint_file_in_its_folder_is_refused_before_any_work(tmp_path, capsys, flag, name):
    X, y = classification_data(21, n=30)
    train = write_svmlight(tmp_path / "train.svm", X, y)
    (tmp_path / "ck").mkdir()
    outputs = {"--model": tmp_path / "m", "--cache": tmp_path / "c", flag: tmp_path / "ck" / name}
    status, out, err = call(capsys, "fit", train, "--task", "classify", "--stream", "--checkpoint", tmp_path / "ck",
                            "--model", outputs["--model"], "--cache", outputs["--cache"], "--epochs", "2")
    assert_one_line_error(status, out, err, f"--checkpoint {tmp_path / 'ck'} would write over {flag} ")
    assert not any((tmp_path / "ck").iterdir())  # nothing ran


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_a_new_checkpoint_refuses_a_folder_holding_foreign_files(tmp_path, capsys, stream):
    X, y = classification_data(22, n=30)
    train = write_svmlight(tmp_path / "train.svm", X, y)
    ck = tmp_path / "ck"
    ck.mkdir()
    (ck / "model-3.npz").write_text("precious")
    args = ["fit", train, "--task", "classify", "--model", tmp_path / "m", "--checkpoint", ck, "--epochs", "2", *stream]
    status, out, err = call(capsys, *args)
    assert_one_line_error(status, out, err, "model-3.npz exists and is not a predtron checkpoint file")
    assert (ck / "model-3.npz").read_text() == "precious" and not (tmp_path / "m.npz").exists()
    (ck / "model-3.npz").unlink()
    assert call(capsys, *args, "--quiet")[0] == 0
    assert call(capsys, *args, "--quiet")[0] == 0  # the folder's own checkpoint is replaced by a new fit


def test_resuming_from_a_checkpoint_of_another_model_is_refused(tmp_path, capsys):
    args = _streamed_fit(tmp_path, capsys, 13, 30, "--checkpoint", tmp_path / "ck")
    ranking = tmp_path / "rank.txt"
    ranking.write_text("2 qid:1 1:1 2:0\n0 qid:1 1:0 2:1\n1 qid:2 1:1 2:1\n0 qid:2 1:0 2:0\n")
    assert call(capsys, "fit", ranking, "--task", "rank", "--model", tmp_path / "r", "--quiet")[0] == 0
    (tmp_path / "r.npz").replace(tmp_path / "ck" / "model-2.npz")
    status, out, err = call(capsys, *args, "--resume")
    assert_one_line_error(status, out, err, "model-2.npz is not the state progress.json was written with")
    # Sealed anew over the swapped file (a checkpoint written so): the model's class is still checked.
    from predtron._seal import sealed

    progress = tmp_path / "ck" / "progress.json"
    progress.write_text(json.dumps(sealed(json.loads(progress.read_text()), tmp_path / "ck" / "model-2.npz")))
    status, out, err = call(capsys, *args, "--resume")
    assert_one_line_error(status, out, err, "holds a PredtronRanker, not the PredtronClassifier being fitted")


@pytest.mark.filterwarnings("default::RuntimeWarning")  # as a user's interpreter shows it (the suite's filters raise)
def test_a_warning_is_one_line_naming_the_command(tmp_path, capsys):
    """A damaged cache is rebuilt with a warning: one line ``predtron fit: warning: ...`` (not Python's file,
    line number and source line)."""
    args = _streamed_fit(tmp_path, capsys, 14, 60, "--cache", tmp_path / "c")
    cache = tmp_path / "c"
    data = bytearray(cache.read_bytes())
    data[len(data) // 3] ^= 0xFF  # a flipped byte inside a chunk
    cache.write_bytes(bytes(data))
    status, out, err = call(capsys, *args)
    assert (status, out) == (0, "")
    assert err.count("\n") == 1 and err.startswith("predtron fit: warning: "), err
    assert "Warning" not in err and "is rebuilt from" in err and err.count(f"{cache}:") == 1, err


@pytest.mark.filterwarnings("default::RuntimeWarning")  # as a user's interpreter shows it
@pytest.mark.parametrize(("flags", "said"), [([], "--standardize and --eta auto are estimated: they are not scaled"),
                                             (["--no-standardize"], "--eta auto is estimated: the step does not"),
                                             (["--no-standardize", "--eta", "1"], None),
                                             (["--chunk-rows", "1000"], None),
                                             (["--statistics", "file"], None)])
def test_a_streamed_fit_says_when_its_first_chunk_misses_features(tmp_path, capsys, flags, said):
    """The scaler and the step of a streamed fit come from its first chunk: features that appear only
    later are not scaled, which can ruin the fit (a file sorted so that its first rows are empty).
    One warning line says so after the first pass."""
    rng = np.random.default_rng(25)
    train = tmp_path / "sorted.svm"
    train.write_text("".join(f"{i % 2}\n" for i in range(100)) + "".join(
        f"{y} 1:{rng.normal() + y:.3f} 2:{rng.normal():.3f} 3:{1000 * rng.normal():.3f}\n"
        for y in rng.integers(0, 2, size=300)))
    status, out, err = call(capsys, "fit", train, "--task", "classify", "--model", tmp_path / "m", "--stream",
                            "--chunk-rows", "50", "--quiet", *flags)
    assert (status, out) == (0, "")
    if said is None:
        assert err == ""
    else:
        assert err.count("\n") == 1 and err.startswith("predtron fit: warning: 3 of 3 features have no value in "
                                                        "the first chunk (50 rows), from which "), err
        assert said in err, err


@pytest.mark.filterwarnings("default::RuntimeWarning")  # the default's warning about its first chunk
@pytest.mark.parametrize("task", ["classify", "rank"])
@pytest.mark.parametrize("flags", [[], ["--cache", "cache.bin"], ["--eta", "0.5"], ["--no-standardize"]])
def test_a_stream_with_the_whole_files_statistics_equals_the_in_memory_fit(tmp_path, capsys, monkeypatch, task,
                                                                            flags):
    """``--statistics file`` reads the whole file for the scaler and the step before the epochs: the
    streamed fit is then the in-memory fit bit for bit, however the file is cut into chunks, even
    when its first chunk holds none of the features (where the default, the first chunk's
    statistics, gives another model); a checkpoint records the choice."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(26)
    with open("sorted.svm", "w") as out:
        for i in range(60):  # first rows without features
            out.write(f"{i % 3} qid:{i // 6}\n")
        for i in range(60, 360):
            out.write(f"{rng.integers(0, 3)} qid:{i // 6} 1:{rng.normal() + 2:.3f} 2:{rng.normal():.3f} "
                      f"3:{1000 * rng.normal():.3f}\n")
    common = ["fit", "sorted.svm", "--task", task, "--no-shuffle", "--epochs", 4, "--quiet", "--sparse",
              *[f for f in flags if f not in ("--cache", "cache.bin")]]
    assert call(capsys, *common, "--model", "memory")[0] == 0
    streamed = [*common, "--stream", "--chunk-rows", 30, *flags]
    assert call(capsys, *streamed, "--model", "first")[:2] == (0, "")
    assert call(capsys, *streamed, "--model", "whole", "--statistics", "file") == (0, "", "")
    coef = {name: predtron.load(f"{name}.npz").learner_.coef_ for name in ("memory", "first", "whole")}
    np.testing.assert_array_equal(coef["whole"], coef["memory"])
    assert not np.array_equal(coef["first"], coef["memory"])  # each case estimates something from a chunk
    checkpointed = [*streamed, "--model", "resumed", "--checkpoint", "ck"]
    assert call(capsys, *checkpointed, "--statistics", "file")[0] == 0
    status, out, err = call(capsys, *checkpointed, "--resume")  # the first chunk's statistics: another fit
    assert_one_line_error(status, out, err, "--statistics (checkpoint: file; this fit: not given)")
    assert call(capsys, *checkpointed, "--statistics", "file", "--resume")[0] == 0


@pytest.mark.parametrize(("flags", "expected"), [
    (["--statistics", "file"], "--statistics applies to --stream"),
    (["--statistics", "file", "--workers", "1"], "--statistics applies to --stream"),
    (["--statistics", "first-chunk", "--workers", "1", "--stream"], "--statistics first-chunk does not apply to a "
                                                                    "cluster fit"),
])
def test_the_statistics_flag_is_refused_where_it_does_not_apply(tmp_path, capsys, flags, expected):
    train = write_svmlight(tmp_path / "train.svm", *classification_data(16, n=20))
    status, out, err = call(capsys, "fit", train, "--task", "classify", "--model", tmp_path / "m", *flags)
    assert_one_line_error(status, out, err, expected)
    assert status == 2 and err.endswith(" (see 'predtron fit --help')\n")  # (a usage error)
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize(("lines", "flags", "expected"), [
    (["1 1:0.5", "-1 1:1"], ["--stream", "--classes", "1", "2"], "the training labels hold labels not in --classes"),
    (["1 1:0.5", "-1 1:1"], ["--stream", "--classes", "a", "b"], "--classes takes the labels as they are written"),
    (["1 1:0.5", "1 1:1"], [], "the training labels must hold at least 2 classes"),
    (["0.5 1:0.5", "1.5 1:1"], [], "the training labels are continuous values, not classes"),
    (["1 1:0.5", "-1 1:1"], ["--seed", "-1"], "argument --seed: expected a whole number >= 0; got '-1'"),
    (["1 1:0.5", "-1 1:1"], ["--chunk-rows", "99999999999999999999"],
     "--chunk-rows: expected a whole number <= 2147483647"),
], ids=["classes", "word classes", "one class", "continuous", "seed", "chunk rows"])
def test_messages_name_flags_and_the_training_labels_not_python_arguments(tmp_path, capsys, lines, flags, expected):
    train = tmp_path / "train.svm"
    train.write_text("\n".join(lines) + "\n")
    status, out, err = call(capsys, "fit", train, "--task", "classify", "--model", tmp_path / "m", *flags)
    assert_one_line_error(status, out, err, expected)
    assert not re.search(r"(?<![\w-])(y|classes_|random_state|n_labels|n_features|chunk_rows)\b", err), err


def test_standard_input_is_called_so_in_messages(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"2 1:1\n0 1:0\n")))
    status, out, err = call(capsys, "fit", "-", "--task", "rank", "--model", tmp_path / "m")
    assert_one_line_error(status, out, err, "standard input has no qid:", "pass --group-file FILE")
    assert "predtron-stdin" not in err and ".query" not in err, err


def test_a_fit_from_standard_input_resumes_from_its_checkpoint(tmp_path, capsys, monkeypatch):
    """A checkpoint records standard input by its bytes, not by the name of the temporary copy."""
    X, y = classification_data(15, n=40)
    text = write_svmlight(tmp_path / "train.svm", X, y).read_bytes()
    args = ["fit", "-", "--task", "classify", "--model", tmp_path / "m", "--checkpoint", tmp_path / "ck", "--epochs",
            "3", "--quiet"]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text)))
    assert call(capsys, *args) == (0, "", "")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text)))
    assert call(capsys, *args, "--resume") == (0, "", "")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text + b"1 1:0.5\n")))  # other data
    status, out, err = call(capsys, *args, "--resume")
    assert_one_line_error(status, out, err, "was written by another fit", "TRAIN (checkpoint: standard input")


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_a_resume_on_a_rewritten_file_shows_both_contents(tmp_path, capsys, stream):
    """The same path and size, other bytes: the refusal shows the two contents, also under a long path
    (a long value is shortened in its middle, not at its end, where the content is)."""
    folder = tmp_path / ("a-long-folder-name-" * 6)
    folder.mkdir()
    train = folder / "train.svm"
    train.write_text("1 1:1\n-1 1:2\n1 1:3\n-1 2:1\n")
    args = ["fit", train, "--task", "classify", "--model", tmp_path / "m", "--checkpoint", tmp_path / "ck",
            "--epochs", "2", "--quiet", *stream]
    assert call(capsys, *args) == (0, "", "")
    train.write_text("1 1:1\n-1 1:2\n1 1:4\n-1 2:1\n")  # one digit changed: same size
    status, out, err = call(capsys, *args, "--resume")
    assert_one_line_error(status, out, err, "was written by another fit", "TRAIN (checkpoint: ")
    contents = re.findall(r"train\.svm \(26 bytes, content ([0-9a-f]{16})\)", err)
    assert len(contents) == 2 and contents[0] != contents[1], err


def test_a_streamed_line_beyond_the_surveyed_width_says_where_the_width_came_from(tmp_path, capsys):
    """The first pass reads the index that ends each line; a line whose indices do not increase is then
    refused naming that width's origin, not a ``n_features`` the user never gave."""
    train = tmp_path / "unsorted.svm"
    train.write_text("1 3:1 1:2\n-1 2:1\n")
    status, out, err = call(capsys, "fit", train, "--task", "classify", "--model", tmp_path / "m", "--stream")
    assert_one_line_error(status, out, err, "line 1: feature index 3 is beyond the 2 features found by the first pass",
                          "a line's indices must increase")
    assert "n_features" not in err


def test_an_impossible_label_count_names_the_flag(tmp_path, capsys):
    status, out, err = call(capsys, "fit", shipped_file(EMOTIONS_FILES["train"]), "--task", "multilabel", "--labels",
                            "4000", "--model", tmp_path / "m")
    assert_one_line_error(status, out, err, "--labels must be between 1 and 77")
    assert "n_labels" not in err


@pytest.mark.parametrize("stream", [False, True], ids=["in memory", "stream"])
def test_a_model_reads_a_test_file_with_the_mulan_xml_beside_it_as_fit_did(tmp_path, capsys, stream):
    """A Mulan XML file beside an ARFF file names its labels wherever they stand (here first): ``fit``
    found it by itself, and ``predict`` and ``evaluate`` read the same file the same way (they took the
    last attributes as labels instead, the model's count, and failed on a feature value); an XML file
    beside that names another number of labels than the model's is refused, naming both."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 3))
    header = ["@relation r", "@attribute a {0,1}", "@attribute b {0,1}", "@attribute f1 numeric",
              "@attribute f2 numeric", "@attribute f3 numeric", "@data"]
    rows = [f"{int(u > 0)},{int(v > 0)},{u},{v},{w}" for u, v, w in X.tolist()]
    for name in ("tiny-train.arff", "tiny-test.arff"):
        (tmp_path / name).write_text("\n".join([*header, *rows]) + "\n")
    (tmp_path / "tiny.xml").write_text('<labels xmlns="http://mulan.sourceforge.net/labels">'
                                       '<label name="a"></label><label name="b"></label></labels>')
    flags = ["--stream"] if stream else []
    status, _, err = call(capsys, "fit", tmp_path / "tiny-train.arff", "--task", "multilabel", "--model",
                          tmp_path / "m", "--epochs", EPOCHS, "--quiet")
    assert (status, err) == (0, ""), err
    test = tmp_path / "tiny-test.arff"
    status, out, err = call(capsys, "predict", test, "--model", tmp_path / "m", *flags)
    assert (status, err) == (0, ""), err
    assert (status, out, err) == call(capsys, "predict", test, "--model", tmp_path / "m", "--xml",
                                      tmp_path / "tiny.xml", *flags)
    status, out, err = call(capsys, "evaluate", test, "--model", tmp_path / "m", *flags)
    assert (status, err) == (0, "") and out.startswith("hamming loss: "), err
    (tmp_path / "tiny.xml").write_text('<labels><label name="a"></label></labels>')
    status, out, err = call(capsys, "evaluate", test, "--model", tmp_path / "m", *flags)
    assert_one_line_error(status, out, err, f"{tmp_path / 'tiny.xml'}, the Mulan XML file beside {test}, names 1 "
                                            "label, but the model was fitted with 2: pass --xml FILE")
