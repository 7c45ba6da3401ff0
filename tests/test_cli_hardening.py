"""The command line as a demanding user types it: the faults an adversarial run of the commands found.

Each test runs :func:`predtron.cli.main` in-process on small files it writes (the function the
``predtron`` script calls) and checks the one-line message, its exit status and what is left on
disk.
"""

from __future__ import annotations

import contextlib
import io
import threading
from pathlib import Path

import pytest

from predtron.cli import main


def call(capsys, *args) -> tuple[int, str, str]:
    """``(status, stdout, stderr)`` of :func:`predtron.cli.main` on ``args``."""
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_error(status: int, out: str, err: str, *needles: str, absent: tuple[str, ...] = ()) -> None:
    assert status == 1, (status, err)
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, f"not one line: {err!r}"
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, f"{needle!r} not in {err!r}"
    for word in absent:
        assert word not in err, f"{word!r} in {err!r}"


def assert_usage_error(status: int, out: str, err: str, *needles: str, command: str = "fit",
                       absent: tuple[str, ...] = ()) -> None:
    """Flags that contradict each other: a usage error, as the parser says its own (exit status 2, one
    line ``predtron COMMAND: error: ... (see 'predtron COMMAND --help')``)."""
    assert status == 2, (status, err)
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, f"not one line: {err!r}"
    assert err.startswith(f"predtron {command}: error: "), err
    assert err.endswith(f" (see 'predtron {command} --help')\n"), err
    for needle in needles:
        assert needle in err, f"{needle!r} not in {err!r}"
    for word in absent:
        assert word not in err, f"{word!r} in {err!r}"


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def two_classes(tmp_path: Path, name: str = "train.svm") -> Path:
    return write(tmp_path / name, "".join(f"{1 if i % 2 else -1} 1:{i % 3 - 1} 2:{(i % 5) / 4}\n"
                                          for i in range(20)))


def three_classes(tmp_path: Path, name: str = "train.svm") -> Path:
    return write(tmp_path / name, "".join(f"{i % 3 + 1} 1:{i % 3} 2:{(i % 5) / 4} 3:{(i % 7) / 6}\n"
                                          for i in range(30)))


# ------------------------------------------------------------------ messages name flags and files
@pytest.mark.parametrize("task, unit", [("classify", "classes"), ("ordinal", "levels")])
@pytest.mark.parametrize("how", [["--stream"], ["--checkpoint", "ckpt"]])
def test_one_class_names_the_training_labels(tmp_path, capsys, task, unit, how):
    """A streamed (or checkpointed) fit of a file with one label said ``classes must hold at least 2``,
    the estimator's ``partial_fit`` argument, which the user never gave."""
    data = write(tmp_path / "one.svm", "1 1:0.5\n1 1:0.25\n")
    how = [str(tmp_path / h) if h == "ckpt" else h for h in how]
    status, out, err = call(capsys, "fit", data, "--task", task, "--model", tmp_path / "m.npz", *how)
    assert_one_line_error(status, out, err, f"the labels of {data} must hold at least 2 {unit}",
                          absent=("error: classes",))
    assert not (tmp_path / "m.npz").exists()


def test_one_class_given_names_the_classes_flag(tmp_path, capsys):
    data = two_classes(tmp_path)
    status, out, err = call(capsys, "fit", data, "--task", "classify", "--model", tmp_path / "m.npz", "--stream",
                            "--classes", "1")
    assert_one_line_error(status, out, err, "--classes must hold at least 2 classes", absent=("error: classes",))


def test_cost_matrix_messages_name_the_flag_and_the_labels(tmp_path, capsys):
    """Messages that named ``cost_matrix`` (not as their subject) and "the classes of y"."""
    data = three_classes(tmp_path)
    no_zero = write(tmp_path / "costs.txt", "1 1 2\n1 0 1\n4 1 0\n")
    status, out, err = call(capsys, "fit", data, "--task", "classify", "--model", tmp_path / "m.npz",
                            "--cost-matrix", no_zero)
    assert_one_line_error(status, out, err, "every column of --cost-matrix needs a zero", absent=("cost_matrix",))
    small = write(tmp_path / "small.txt", "0 1\n1 0\n")
    status, out, err = call(capsys, "fit", data, "--task", "classify", "--model", tmp_path / "m.npz",
                            "--cost-matrix", small)
    assert_one_line_error(status, out, err, "for the 3 classes of the training labels", absent=(" of y",))


def test_default_reject_label_that_is_a_class(tmp_path, capsys):
    """``-1`` (the default --reject-label) is a class of a -1/+1 file: the message said "a class of y"."""
    data = two_classes(tmp_path)
    status, out, err = call(capsys, "fit", data, "--task", "classify", "--model", tmp_path / "m.npz",
                            "--reject-cost", "0.3")
    assert_one_line_error(status, out, err, "--reject-label must differ from every class",
                          "is a class of the training labels", absent=(" of y",))


def test_cluster_files_missing_or_unmatched(tmp_path, capsys):
    """Several training files with one missing, or a pattern matching nothing: the message named the
    Python argument ``paths`` (and a folder was "not a file"); now as for one training file."""
    data = two_classes(tmp_path)
    model = tmp_path / "m.npz"
    status, out, err = call(capsys, "fit", data, tmp_path / "missing.svm", "--task", "classify", "--model", model,
                            "--workers", "2")
    assert_one_line_error(status, out, err, f"data file not found: {tmp_path / 'missing.svm'}", absent=("paths",))
    status, out, err = call(capsys, "fit", data, tmp_path, "--task", "classify", "--model", model, "--workers", "2")
    assert_one_line_error(status, out, err, f"data path is not a regular file: {tmp_path} is a folder",
                          absent=("paths",))
    status, out, err = call(capsys, "fit", tmp_path / "none*.svm", "--task", "classify", "--model", model,
                            "--workers", "2")
    assert_one_line_error(status, out, err, "TRAIN: the pattern", "matches no file", absent=("paths",))


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_arff_from_standard_input_without_labels(tmp_path, capsys, monkeypatch, stream):
    """An ARFF file on standard input without --labels: the message named the temporary copy of
    standard input (``predtron-stdin-....xml``) as where a Mulan XML file would be found."""
    text = b"@relation t\n@attribute a numeric\n@attribute L {0,1}\n@data\n1,0\n2,1\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text)))
    status, out, err = call(capsys, "fit", "-", "--task", "multilabel", "--model", tmp_path / "m.npz", *stream)
    assert_one_line_error(status, out, err, "standard input is an ARFF file: give --labels N",
                          absent=("predtron-stdin", ".xml"))


# ------------------------------------------------------------------ a value beyond the estimators' limit
def _large(tmp_path: Path) -> Path:
    return write(tmp_path / "large.svm", "# a comment\n1 1:0.5 2:1\n\n-1 1:-0.5 3:-2e200\n1 2:3\n")


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_large_value_named_with_its_line_at_fit(tmp_path, capsys, stream):
    """A value beyond 1e100 was refused as "X has an entry of magnitude ...", naming the estimator's
    argument: the message now names the file, the line and the feature."""
    status, out, err = call(capsys, "fit", _large(tmp_path), "--task", "classify", "--model", tmp_path / "m.npz",
                            *stream)
    assert_one_line_error(status, out, err, "large.svm, line 4: feature 3 has the value -2e+200",
                          absent=("X has",))
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("command", ["predict", "evaluate"])
@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_large_value_named_with_its_line_at_predict(tmp_path, capsys, command, stream):
    model = tmp_path / "m.npz"
    assert call(capsys, "fit", three_classes(tmp_path), "--task", "classify", "--model", model, "--quiet")[0] == 0
    status, out, err = call(capsys, command, _large(tmp_path), "--model", model, *stream)
    assert_one_line_error(status, out, err, "large.svm, line 4: feature 3 has the value -2e+200",
                          absent=("X has",))


def test_large_value_in_an_arff_file_named_with_its_example(tmp_path, capsys):
    data = write(tmp_path / "large.arff", "@relation t\n@attribute a numeric\n@attribute b numeric\n"
                                          "@attribute L {0,1}\n@data\n1,2,0\n\n3,1e150,1\n")
    status, out, err = call(capsys, "fit", data, "--task", "multilabel", "--labels", "1", "--model",
                            tmp_path / "m.npz")
    assert_one_line_error(status, out, err, "large.arff, example 2: feature 'b' has the value 1e+150",
                          absent=("X has",))


# ------------------------------------------------------------------ standard output that refuses writes
class _FullStdout(io.StringIO):
    """Standard output on a full disk: a write (``buffered=False``) or only the flush (``buffered=True``,
    as Python's block-buffered stdout on a file) fails with ENOSPC."""

    def __init__(self, buffered: bool):
        super().__init__()
        self.buffered = buffered

    def write(self, text):
        if not self.buffered:
            raise OSError(28, "No space left on device")
        return len(text)

    def flush(self):
        raise OSError(28, "No space left on device")


@pytest.mark.parametrize("buffered", [True, False])
@pytest.mark.parametrize("command", [["evaluate"], ["predict"], ["predict", "--stream"]])
def test_standard_output_on_a_full_disk(tmp_path, capsys, monkeypatch, buffered, command):
    """``predtron evaluate ... > /dev/full``: with Python's buffered stdout the command ended with
    status 0 and no output (the flush at exit ignored the failure); unbuffered, the message was
    "[Errno 28] No space left on device", naming nothing."""
    data, model = three_classes(tmp_path), tmp_path / "m.npz"
    assert call(capsys, "fit", data, "--task", "classify", "--model", model, "--quiet")[0] == 0
    monkeypatch.setattr("sys.stdout", _FullStdout(buffered))
    status = main([command[0], str(data), "--model", str(model), *command[1:]])
    err = capsys.readouterr().err
    assert status == 1, err
    assert err == f"predtron {command[0]}: error: standard output could not be written: No space left on device\n"


# ------------------------------------------------------------------ Ctrl-C: one line, whatever else is dying
_NOISY_END = """
import os, signal, sys, time
from predtron import cli

def dying_children():  # what multiprocessing printed while a local cluster's processes were ended
    sys.stderr.write("predtron fit: warning: resource_tracker: process died unexpectedly, relaunching\\n")
    sys.stderr.write("Traceback (most recent call last):\\n")
    sys.stderr.flush()

cli._kill_children = dying_children
with cli._interrupt_handler("fit"):
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(30)
"""


def test_ctrl_c_line_is_the_only_output_while_children_end(tmp_path):
    """Ctrl-C during ``fit --workers N``: the handler ends the local cluster's processes, and the
    command's other threads could print multiprocessing's warning and a traceback about its resource
    tracker after them, beside the one line (seen in ``test_cli_process``'s Ctrl-C test, now and
    then): the handler now silences standard error before it ends the children, then writes its line."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", _NOISY_END], capture_output=True, text=True, env=env, timeout=120,
                          check=False)
    assert done.returncode == 130, done.stderr
    assert done.stderr == "predtron fit: interrupted\n"


# ------------------------------------------------------------------ ARFF: --labels against --xml
def _arff_with_xml(tmp_path: Path) -> tuple[Path, Path]:
    data = write(tmp_path / "d.arff", "@relation t\n@attribute a numeric\n@attribute b numeric\n@attribute L1 {0,1}\n"
                                      "@attribute L2 {0,1}\n@data\n1,2,0,1\n2,1,1,0\n0,1,1,1\n")
    xml = write(tmp_path / "labels.xml", '<?xml version="1.0" encoding="utf-8"?>\n'
                                         '<labels xmlns="http://mulan.sourceforge.net/labels">\n'
                                         '<label name="L1"></label>\n<label name="L2"></label>\n</labels>\n')
    return data, xml


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_labels_that_contradict_the_xml_file(tmp_path, capsys, stream):
    """``--labels 1 --xml FILE`` naming 2 labels: the message named the loader's ``n_labels``, and at
    predict (the model's notes read the file's header first) it was not translated at all."""
    data, xml = _arff_with_xml(tmp_path)
    model = tmp_path / "m.npz"
    status, out, err = call(capsys, "fit", data, "--task", "multilabel", "--xml", xml, "--labels", "1", "--model",
                            model, *stream)
    assert_one_line_error(status, out, err, f"--labels 1 but --xml {xml} names 2 labels", absent=("n_labels",))
    assert call(capsys, "fit", data, "--task", "multilabel", "--xml", xml, "--model", model, "--quiet")[0] == 0
    for command in ("predict", "evaluate"):
        status, out, err = call(capsys, command, data, "--xml", xml, "--labels", "1", "--model", model, *stream)
        assert_one_line_error(status, out, err, f"--labels 1 but --xml {xml} names 2 labels", absent=("n_labels",))


# ------------------------------------------------------------------ --scheduler that reaches nothing
@pytest.mark.parametrize("several", [False, True])
def test_scheduler_address_that_reaches_nothing(tmp_path, capsys, several):
    """``--scheduler notanaddress``: the message was distributed's ("missing port number in address
    ..."), naming neither the flag nor what failed."""
    pytest.importorskip("distributed")
    data = two_classes(tmp_path)
    files = [data, two_classes(tmp_path, "more.svm")] if several else [data]
    status, out, err = call(capsys, "fit", *files, "--task", "classify", "--model", tmp_path / "m.npz",
                            "--scheduler", "notanaddress")
    assert_one_line_error(status, out, err, "--scheduler notanaddress: no Dask scheduler reached there")
    assert not (tmp_path / "m.npz").exists()


# ------------------------------------------------------------------ two outputs on one path
def test_cache_on_the_model_path_is_named_as_two_outputs(tmp_path, capsys):
    """``fit --stream --cache m.npz --model m.npz``: the message called the model "the input --model",
    though the fit writes it (and no model existed to destroy)."""
    data, model = two_classes(tmp_path), tmp_path / "m.npz"
    status, out, err = call(capsys, "fit", data, "--task", "classify", "--model", model, "--stream", "--cache", model)
    assert_one_line_error(status, out, err, f"--cache {model} is also --model {model}: one output would write over "
                                            "the other", absent=("the input",))
    assert not model.exists()


# ------------------------------------------------------------------ the number of features, named as given
@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_an_index_beyond_n_features_names_the_flag(tmp_path, capsys, stream):
    """``fit --n-features 2`` on a file with index 3: "feature index 3 is beyond n_features = 2" named
    the reader's argument."""
    data = three_classes(tmp_path)
    status, out, err = call(capsys, "fit", data, "--task", "classify", "--model", tmp_path / "m.npz",
                            "--n-features", "2", *stream)
    assert_one_line_error(status, out, err, "line 1: feature index 3 is beyond --n-features 2",
                          absent=("n_features",))


def test_an_arff_file_of_another_width_than_n_features(tmp_path, capsys):
    """An ARFF file of 2 features with ``--n-features 3`` read whole: "has 2 features, but 3 are expected
    (the training data's)", though the 3 came from the flag (streamed: "not --n-features 3")."""
    data, _ = _arff_with_xml(tmp_path)
    status, out, err = call(capsys, "fit", data, "--task", "multilabel", "--labels", "2", "--model",
                            tmp_path / "m.npz", "--n-features", "3")
    assert_one_line_error(status, out, err, f"{data} has 2 features, not --n-features 3",
                          absent=("training data's",))


@pytest.mark.parametrize("command", ["predict", "evaluate"])
@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_a_test_index_beyond_the_model_names_the_model(tmp_path, capsys, command, stream):
    """A test file wider than the model: in memory the message named ``n_features = 3`` (with the way
    on), streamed it named ``n_features = 3`` only."""
    model = tmp_path / "m.npz"
    assert call(capsys, "fit", three_classes(tmp_path), "--task", "classify", "--model", model, "--quiet")[0] == 0
    test = write(tmp_path / "test.svm", "1 1:1 2:1\n2 1:1 4:1\n")
    status, out, err = call(capsys, command, test, "--model", model, *stream)
    assert_one_line_error(status, out, err, "test.svm, line 2: feature index 4 is beyond the model's 3 features",
                          "pass --n-features to 'predtron fit'", absent=("n_features",))


# ------------------------------------------------------------------ options the model would not use
@pytest.mark.parametrize(("task", "flags", "expected"), [
    ("multilabel", ["--beta", "2"], "--beta applies only with --loss fbeta"),
    ("multilabel", ["--loss", "f1", "--beta", "2"], "--beta applies only with --loss fbeta"),
    ("multilabel", ["--k", "1"], "--k applies only with --loss precision@k or recall@k"),
    ("classify", ["--reject-label", "9"], "--reject-label applies only with --reject-cost"),
], ids=["beta", "beta f1", "k", "reject label"])
def test_an_option_the_model_would_not_use_is_refused(tmp_path, capsys, task, flags, expected):
    """``--beta 2`` without ``--loss fbeta`` (or ``--k`` with a multilabel loss that has no k,
    ``--reject-label`` without ``--reject-cost``) was accepted and silently ignored."""
    data = _arff_with_xml(tmp_path)[0] if task == "multilabel" else three_classes(tmp_path)
    extra = ["--labels", "2"] if task == "multilabel" else []
    status, out, err = call(capsys, "fit", data, "--task", task, "--model", tmp_path / "m.npz", *extra, *flags)
    assert_usage_error(status, out, err, expected)
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize(("flags", "ok"), [(["--loss", "fbeta", "--beta", "2"], True),
                                           (["--loss", "recall@k", "--k", "1"], True),
                                           (["--loss", "precision@k"], "--loss precision@k needs --k K, the number"),
                                           (["--loss", "precision@k", "--k", "3"],
                                            "--k must be at most 2, the number of labels; got 3")])
def test_multilabel_k_and_beta_with_their_losses(tmp_path, capsys, flags, ok):
    """The k of precision@k: its messages named ``k`` and ``n_labels=2`` (``--loss='precision@k'``)."""
    status, out, err = call(capsys, "fit", _arff_with_xml(tmp_path)[0], "--task", "multilabel", "--labels", "2",
                            "--model", tmp_path / "m.npz", "--quiet", *flags)
    if ok is True:
        assert (status, err) == (0, "")
    else:
        assert_one_line_error(status, out, err, ok, absent=("n_labels", "='"))


# ------------------------------------------------------------------ '-' where a file or folder is written
@pytest.mark.parametrize(("flags", "expected"), [
    (["--model", "-"], "--model -: a model is a file"),
    (["--model", "m.npz", "--stream", "--cache", "-"], "--cache -: standard output cannot hold a cache"),
    (["--model", "m.npz", "--checkpoint", "-"], "--checkpoint -: standard output cannot hold a checkpoint"),
], ids=["model", "cache", "checkpoint"])
def test_dash_is_refused_where_a_file_is_written(tmp_path, capsys, monkeypatch, flags, expected):
    """``-`` means standard input for a data file and standard output for ``--output``; as ``--model``
    it wrote a file named ``-.npz``, as ``--cache`` a file named ``-`` (and a later ``--checkpoint -``
    then failed with "[Errno 17] File exists: '-'")."""
    monkeypatch.chdir(tmp_path)
    status, out, err = call(capsys, "fit", three_classes(tmp_path), "--task", "classify", *flags)
    assert_usage_error(status, out, err, expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.svm"]


def test_dash_model_at_predict(tmp_path, capsys):
    status, out, err = call(capsys, "predict", three_classes(tmp_path), "--model", "-")
    assert_usage_error(status, out, err, "--model -: a model is a file", absent=("-.npz",), command="predict")


# ------------------------------------------------------------------ --n-features given, labels surveyed
def test_streamed_fit_of_a_file_without_feature_values_with_n_features(tmp_path, capsys):
    """``fit --stream --n-features 2`` of a file whose lines hold only labels: "no line gives a feature
    value ...; pass --n-features", though it was passed (the first pass, run for the labels, refused
    the width it found); in memory the same command fits."""
    data = write(tmp_path / "labels.svm", "1\n-1\n1\n")
    for stream in ([], ["--stream"]):
        status, out, err = call(capsys, "fit", data, "--task", "classify", "--model", tmp_path / "m.npz",
                                "--n-features", "2", "--quiet", *stream)
        assert (status, out, err) == (0, "", "")


def test_streamed_fit_beyond_the_index_guard_with_n_features(tmp_path, capsys):
    """An index above the guard against absurd ones (1,000,000) with ``--n-features`` covering it: the
    message said "pass --n-features if the file really has that many features", which was passed
    (with ``--classes`` too it fitted)."""
    data = write(tmp_path / "wide.svm", "1 1:1 2000000:1\n-1 1:-1\n")
    status, out, err = call(capsys, "fit", data, "--task", "classify", "--model", tmp_path / "m.npz", "--stream",
                            "--n-features", "2000000", "--quiet")
    assert (status, out, err) == (0, "", "")
    status, out, err = call(capsys, "fit", data, "--task", "classify", "--model", tmp_path / "m.npz", "--stream",
                            "--quiet")
    assert_one_line_error(status, out, err, "beyond the guard of 1000000 against absurd indices")


# ------------------------------------------------------------------ a data file that is not a file
@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_a_missing_or_folder_training_file(tmp_path, capsys, stream):
    """The training file missing, or a folder: one line naming it, in memory as with --stream."""
    for data, expected in ((tmp_path / "nofile.svm", f"data file not found: {tmp_path / 'nofile.svm'}"),
                           (tmp_path, f"data path is not a regular file: {tmp_path} is a folder")):
        status, out, err = call(capsys, "fit", data, "--task", "classify", "--model", tmp_path / "m.npz", *stream)
        assert_one_line_error(status, out, err, expected, absent=("Errno",))


@pytest.mark.parametrize("command", ["fit", "predict", "evaluate"])
def test_a_pipe_as_the_data_file_points_to_standard_input(tmp_path, capsys, command):
    """``predtron fit <(zcat train.svm.gz) ...`` (a pipe, read once): "data path is not a regular file:
    /dev/fd/63", with no way on; now the message says why and offers '-' (standard input)."""
    import os

    model = tmp_path / "m.npz"
    assert call(capsys, "fit", three_classes(tmp_path), "--task", "classify", "--model", model, "--quiet")[0] == 0
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    writer = threading.Thread(target=_feed, args=(pipe, (tmp_path / "train.svm").read_bytes()), daemon=True)
    writer.start()  # as the shell's <(...) does: a command that opened the pipe would not wait forever
    extra = ["--task", "classify", "--model", tmp_path / "other.npz"] if command == "fit" else ["--model", model]
    status, out, err = call(capsys, command, pipe, *extra)
    with contextlib.suppress(OSError):  # end the writer if nothing read the pipe
        os.close(os.open(pipe, os.O_RDONLY | os.O_NONBLOCK))
    writer.join(timeout=10)
    assert_one_line_error(status, out, err, f"{pipe} is a pipe or a device, which can be read only once",
                          "'-' to read standard input")


def _feed(pipe: Path, data: bytes) -> None:
    with contextlib.suppress(OSError), open(pipe, "wb") as handle:
        handle.write(data)


# ------------------------------------------------------------------ cluster flags that do not fit together
def test_resume_without_checkpoint_on_a_cluster(tmp_path, capsys):
    """``fit FILE --workers 2 --resume`` without --checkpoint: "resume=True needs checkpoint= (the
    directory of the checkpoint)", the Python arguments of the Dask fit."""
    data = two_classes(tmp_path)
    for files in ([data], [data, two_classes(tmp_path, "more.svm")]):
        status, out, err = call(capsys, "fit", *files, "--task", "classify", "--model", tmp_path / "m.npz",
                                "--workers", "2", "--resume")
        assert_usage_error(status, out, err, "--resume needs --checkpoint DIR", absent=("resume=", "checkpoint="))


@pytest.mark.parametrize(("flags", "expected"), [
    (["--stream"], "--stream with --workers/--scheduler needs a training file that the workers read themselves"),
    (["--checkpoint", "CKPT"], "--checkpoint with --workers/--scheduler needs a training file"),
], ids=["stream", "checkpoint"])
def test_standard_input_on_a_cluster_with_file_only_flags(tmp_path, capsys, monkeypatch, flags, expected):
    """``cat FILE | predtron fit - --workers 2 --stream``: "--stream does not combine with a fit on a Dask
    cluster", though ``fit FILE --workers 2 --stream`` does; what does not is standard input."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(two_classes(tmp_path).read_bytes())))
    flags = [str(tmp_path / "ckpt") if flag == "CKPT" else flag for flag in flags]
    status, out, err = call(capsys, "fit", "-", "--task", "classify", "--model", tmp_path / "m.npz", "--workers",
                            "2", *flags)
    assert_usage_error(status, out, err, expected, "standard input")


def test_cache_without_stream_on_a_cluster(tmp_path, capsys):
    """``fit FILE --workers 2 --cache DIR`` without --stream said "--cache does not combine with a fit on
    a Dask cluster", though it does, with --stream."""
    status, out, err = call(capsys, "fit", two_classes(tmp_path), "--task", "classify", "--model",
                            tmp_path / "m.npz", "--workers", "2", "--cache", tmp_path / "caches")
    assert_usage_error(status, out, err, "--cache applies to --stream")


@pytest.mark.parametrize(("files", "flags", "said"), [
    (["train.svm"], ["--stream", "--classes", "-1", "1"],
     "--classes does not apply to a cluster fit whose workers read the training files themselves (one file with "
     "--stream: "),
    (["train.svm"], ["--checkpoint", "ckpt", "--shards", "3"], "(one file with --checkpoint: one shard per file)"),
    (["a.svm", "b.svm"], ["--shards", "3"], "--shards does not apply to a cluster fit whose workers read the "
                                            "training files themselves (2 files: one shard per file)"),
], ids=["one file streamed", "one file checkpointed", "two files"])
def test_a_flag_refused_on_a_cluster_fit_of_files_says_why_the_workers_read_them(tmp_path, capsys, files, flags,
                                                                                 said):
    """One file with --stream or --checkpoint is read by a worker, as several files are; a flag that does not
    apply then was refused as not applying "to a fit of several files", of one file."""
    paths = [two_classes(tmp_path, name) for name in files]
    status, out, err = call(capsys, "fit", *paths, "--task", "classify", "--model", tmp_path / "m.npz",
                            "--workers", "2", *flags)
    assert_usage_error(status, out, err, said, absent=("several files",) if len(files) == 1 else ())
    assert not (tmp_path / "m.npz").exists()


# ------------------------------------------------------------------ a reject label that breaks predict's lines
@pytest.mark.parametrize("label", ["no\nanswer", "", "  ", "x\r"])
def test_a_reject_label_that_is_not_one_word_on_one_line(tmp_path, capsys, label):
    """``--reject-label $'no\\nanswer'`` was accepted: predict then wrote two lines per abstention (337
    lines for 301 examples, every later prediction on the wrong line); ``''`` wrote blank lines."""
    status, out, err = call(capsys, "fit", three_classes(tmp_path), "--task", "classify", "--model",
                            tmp_path / "m.npz", "--reject-cost", "0.3", "--reject-label", label)
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert "argument --reject-label: a label is written on a line of its own by predict" in err
    assert not (tmp_path / "m.npz").exists()


def test_a_reject_label_with_a_space_is_one_line(tmp_path, capsys):
    data, model = three_classes(tmp_path), tmp_path / "m.npz"
    assert call(capsys, "fit", data, "--task", "classify", "--model", model, "--reject-cost", "0.3",
                "--reject-label", "no answer", "--quiet")[0] == 0
    status, out, _ = call(capsys, "predict", data, "--model", model)
    assert status == 0 and len(out.splitlines()) == 30


@pytest.mark.parametrize("task", ["multilabel", "rank"])
def test_classes_for_a_task_without_classes(tmp_path, capsys, task):
    """``fit --stream --classes 0 1`` for multilabel or rank was accepted and silently ignored (the help
    says: classify, ordinal with --stream)."""
    if task == "multilabel":
        data, extra = _arff_with_xml(tmp_path)[0], ["--labels", "2"]
    else:
        data, extra = write(tmp_path / "r.txt", "1 qid:1 1:1\n0 qid:1 1:0\n2 qid:2 1:2\n0 qid:2 1:1\n"), []
    status, out, err = call(capsys, "fit", data, "--task", task, "--model", tmp_path / "m.npz", *extra, "--stream",
                            "--classes", "0", "1")
    assert_usage_error(status, out, err, f"--classes does not apply to --task {task}")
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("command", ["fit", "predict", "evaluate"])
def test_chunk_rows_without_stream(tmp_path, capsys, command):
    """``--chunk-rows 5`` without --stream was accepted and ignored (a file read whole is not read in
    chunks), where --cache without --stream is refused."""
    data, model = three_classes(tmp_path), tmp_path / "m.npz"
    assert call(capsys, "fit", data, "--task", "classify", "--model", model, "--quiet")[0] == 0
    extra = ["--task", "classify", "--model", tmp_path / "other.npz"] if command == "fit" else ["--model", model]
    status, out, err = call(capsys, command, data, *extra, "--chunk-rows", "5")
    assert_usage_error(status, out, err, "--chunk-rows applies to --stream", command=command)
    assert call(capsys, command, data, *extra, "--chunk-rows", "5", "--stream")[0] == 0


# ------------------------------------------------------------------ evaluate --k with a repeated cut-off
@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_a_repeated_k_is_reported_once_and_right(tmp_path, capsys, stream):
    """``evaluate --stream --k 5 5`` printed ``ndcg@5: 1.9503`` (an NDCG above 1: the chunks' values of
    the two equal names were summed into one); in memory the line came twice."""
    data = write(tmp_path / "r.txt", "".join(f"{(q + d) % 3} qid:{q} 1:{d} 2:{(q * d) % 5}\n"
                                             for q in range(1, 9) for d in range(6)))
    model = tmp_path / "m.npz"
    assert call(capsys, "fit", data, "--task", "rank", "--model", model, "--quiet")[0] == 0
    status, once, _ = call(capsys, "evaluate", data, "--model", model, "--k", "5", "2")
    assert status == 0
    status, out, err = call(capsys, "evaluate", data, "--model", model, "--k", "5", "2", "5", *stream)
    assert (status, err) == (0, "")
    assert out == once


def test_a_cache_path_holding_another_file_is_refused_before_any_work(tmp_path, capsys):
    """``fit --stream --cache notes.txt`` where notes.txt is the user's file: refused (never overwritten),
    but only once the first pass began, and naming ``cache``, not ``--cache``."""
    notes = write(tmp_path / "notes.txt", "my notes\n")
    status, out, err = call(capsys, "fit", three_classes(tmp_path), "--task", "classify", "--model",
                            tmp_path / "m.npz", "--stream", "--cache", notes)
    assert_one_line_error(status, out, err, f"error: --cache {notes} exists and is not a cache written by predtron")
    assert notes.read_text() == "my notes\n" and not (tmp_path / "m.npz").exists()


# ------------------------------------------------------------------ --model with a trailing slash
@pytest.mark.parametrize("exists", [True, False])
def test_a_model_path_with_a_trailing_slash(tmp_path, capsys, monkeypatch, exists):
    """``--model models/`` (a folder, existing or not) wrote ``models.npz`` beside it, silently (``./`` was
    refused: the rule looked at the last name only)."""
    monkeypatch.chdir(tmp_path)
    if exists:
        (tmp_path / "models").mkdir()
    data = three_classes(tmp_path)
    status, out, err = call(capsys, "fit", data, "--task", "classify", "--model", "models/", "--quiet")
    assert_one_line_error(status, out, err, f"--model models/ {'is' if exists else 'names'} a folder; give a file name")
    assert not (tmp_path / "models.npz").exists()


@pytest.mark.parametrize("command", ["predict", "fit"])
def test_an_output_file_with_a_trailing_slash(tmp_path, capsys, monkeypatch, command):
    """``predict --output out/`` and ``fit --stream --cache cache/`` (folders that do not exist) wrote files
    named ``out`` and ``cache``."""
    monkeypatch.chdir(tmp_path)
    data, model = three_classes(tmp_path), tmp_path / "m.npz"
    assert call(capsys, "fit", data, "--task", "classify", "--model", model, "--quiet")[0] == 0
    if command == "predict":
        flag, args = "--output", ["predict", data, "--model", model, "--output", "out/"]
    else:
        flag, args = "--cache", ["fit", data, "--task", "classify", "--model", tmp_path / "n.npz", "--stream",
                                 "--cache", "out/"]
    status, out, err = call(capsys, *args)
    assert_one_line_error(status, out, err, f"{flag} out/ names a folder (it ends with a slash); give a file name")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("label", "shown"), [("1.5", "1.5"), ("1e20", "1e+20")])
def test_a_label_outside_whole_number_classes(tmp_path, capsys, label, shown):
    """``fit --stream --classes 1 2`` of a file with the label 1.5 said "a label is not a whole number, but
    the classes are ([1.5])", and with the label 1e20 (whole, beyond 2^53) "... ([])"."""
    data = write(tmp_path / "mix.svm", f"1 1:1\n2 1:2\n{label} 1:3\n")
    status, out, err = call(capsys, "fit", data, "--task", "classify", "--model", tmp_path / "m.npz", "--stream",
                            "--classes", "1", "2")
    assert_one_line_error(status, out, err, f"mix.svm holds the label {shown}, which is not one of --classes")


def test_a_cost_matrix_that_is_a_folder(tmp_path, capsys):
    """``--cost-matrix DIR`` said "cost-matrix file not found: DIR", of a folder that exists."""
    status, out, err = call(capsys, "fit", three_classes(tmp_path), "--task", "classify", "--model",
                            tmp_path / "m.npz", "--cost-matrix", tmp_path)
    assert_one_line_error(status, out, err, f"--cost-matrix {tmp_path} is not a regular file", absent=("not found",))


@pytest.mark.parametrize("stream", [[], ["--stream", "--chunk-rows", "1"]], ids=["in memory", "streamed"])
def test_whole_labels_beyond_int64_are_predicted_as_written(tmp_path, capsys, stream):
    """Labels beyond int64 are held as floats: ``predict`` wrote ``1e+20`` and ``0.0`` for the labels
    ``100000000000000000000`` and ``0`` of the training file (in every chunk alike now)."""
    big = "100000000000000000000"
    data = write(tmp_path / "big.svm", f"{big} 1:1\n0 1:-1\n{big} 1:0.8\n0 1:-0.5\n")
    model = tmp_path / "m.npz"
    assert call(capsys, "fit", data, "--task", "classify", "--model", model, "--quiet") == (0, "", "")
    assert call(capsys, "predict", data, "--model", model, *stream) == (0, f"{big}\n0\n{big}\n0\n", "")


@pytest.mark.parametrize("flags", [["--no-early-stopping", "--tol", "0.1"], ["--tol", "0.1", "--no-early-stopping"]])
def test_no_early_stopping_and_tol_together_are_refused(tmp_path, capsys, flags):
    """``--no-early-stopping --tol 0.1`` set one parameter twice, the last winning: the fit promised
    'exactly --epochs passes' stopped early at 6 (and the other order made exactly 50)."""
    data = three_classes(tmp_path)
    status, out, err = call(capsys, "fit", data, "--task", "classify", "--model", tmp_path / "m.npz", *flags)
    assert status == 2 and out == "" and err.count("\n") == 1, (status, err)
    assert "not allowed with argument" in err and "--no-early-stopping" in err and "--tol" in err
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("task", ["classify", "rank"])
@pytest.mark.parametrize("off", [["--no-early-stopping"], ["--tol", "none"]])
def test_n_iter_no_change_without_early_stopping_is_refused(tmp_path, capsys, task, off):
    """``--n-iter-no-change 3`` with early stopping turned off was accepted and silently ignored."""
    data = write(tmp_path / "q.svm", "".join(f"{i % 3} qid:{i // 5} 1:{i % 4} 2:{(i % 7) / 6}\n" for i in range(30)))
    status, out, err = call(capsys, "fit", data, "--task", task, "--model", tmp_path / "m.npz", *off,
                            "--n-iter-no-change", 3)
    assert_usage_error(status, out, err, "--n-iter-no-change applies only with early stopping",
                          f"the {task} model would not use it")
    assert not (tmp_path / "m.npz").exists()
    status, out, err = call(capsys, "fit", data, "--task", task, "--model", tmp_path / "m.npz", "--tol", "0.5",
                            "--n-iter-no-change", 3)
    assert status == 0, err


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("compress", [None, "gz"])
@pytest.mark.parametrize("task", ["classify", "rank"])
@pytest.mark.parametrize("stream", [[], ["--stream", "--statistics", "file", "--chunk-rows", "7"]],
                         ids=["in memory", "streamed"])
def test_a_byte_order_mark_before_the_first_line(tmp_path, capsys, compress, task, stream):
    """A UTF-8 svmlight/LETOR file saved with a byte order mark (Notepad's 'UTF-8 with BOM') was
    refused: "line 1: the label '\\ufeff0' is not a number"; the mark is now skipped by every reader
    (parse, label scan, stream), and the model equals the one fitted on the file without it."""
    import gzip

    text = "".join(f"{i % 3} qid:{i // 6} 1:{i % 4} 2:{(i % 7) / 6} 3:{(i % 5) - 2}\n" for i in range(42)).encode()
    plain, marked = tmp_path / "plain.svm", tmp_path / ("bom.svm" + (".gz" if compress else ""))
    plain.write_bytes(text)
    marked.write_bytes(gzip.compress(BOM + text) if compress else BOM + text)
    common = ["--task", task, "--no-shuffle", "--sparse", "--epochs", "3", "--quiet", *stream]
    assert call(capsys, "fit", plain, *common, "--model", tmp_path / "a.npz")[0] == 0
    status, _, err = call(capsys, "fit", marked, *common, "--model", tmp_path / "b.npz")
    assert status == 0, err
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    for command in ("predict", "evaluate"):
        outs = [call(capsys, command, data, "--model", tmp_path / "a.npz", *stream[:1]) for data in (plain, marked)]
        assert outs[0][0] == 0 and outs[0] == outs[1], outs


def test_a_byte_order_mark_in_the_side_files(tmp_path, capsys):
    """--group-file, --cost-matrix and the format sniff of a file without an extension read past a
    byte order mark (they said "got '\\ufeff15'", "'\\ufeff0', not a number", or read an ARFF file as svmlight)."""
    data = write(tmp_path / "nq.svm", "".join(f"{i % 3} 1:{i % 4} 2:{(i % 7) / 6}\n" for i in range(30)))
    groups = tmp_path / "groups.txt"
    groups.write_bytes(BOM + b"10\n10\n10\n")
    status, _, err = call(capsys, "fit", data, "--task", "rank", "--group-file", groups, "--model", tmp_path / "r")
    assert status == 0, err
    costs = tmp_path / "costs.txt"
    costs.write_bytes(BOM + b"0 1 2\n1 0 1\n2 1 0\n")
    status, _, err = call(capsys, "fit", data, "--task", "classify", "--cost-matrix", costs, "--model",
                            tmp_path / "c")
    assert status == 0, err
    arff = tmp_path / "labels"
    arff.write_bytes(BOM + b"@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute l1 {0,1}\n"
                     b"@attribute l2 {0,1}\n@data\n" + b"".join(f"{i % 3},{i % 5},{i % 2},{(i // 2) % 2}\n".encode()
                                                               for i in range(20)))
    status, _, err = call(capsys, "fit", arff, "--task", "multilabel", "--labels", 2, "--model", tmp_path / "m")
    assert status == 0, err


def test_the_two_thread_label_scan_skips_a_byte_order_mark(tmp_path, monkeypatch):
    """The label scan cuts a large plain file in pieces for two threads; the first piece starts with the mark."""
    from predtron.data import scan_labels, stream

    monkeypatch.setattr(stream, "SPLIT_SCAN_BYTES", 64)
    text = "".join(f"{i % 3} 1:{i % 4} 2:{(i % 7) / 6}\n" for i in range(400)).encode()
    (tmp_path / "a.svm").write_bytes(text)
    (tmp_path / "b.svm").write_bytes(BOM + text)
    a, b = scan_labels(tmp_path / "a.svm"), scan_labels(tmp_path / "b.svm")
    assert (a.n_rows, a.n_features, a.labels.tolist()) == (b.n_rows, b.n_features, b.labels.tolist())


@pytest.mark.parametrize("command", ["fit", "predict"])
def test_a_dense_chunk_too_large_advises_chunk_rows_not_stream(tmp_path, capsys, monkeypatch, command):
    """``--stream --dense`` on a file whose chunks are too large to hold dense advised "or --stream to
    read the file in chunks", which was given; it now names --chunk-rows (and --sparse)."""
    from predtron.data import opening

    monkeypatch.setattr(opening, "MAX_DENSE_ENTRIES", 100)
    data = write(tmp_path / "wide.svm", "".join(f"{i % 2} 1:{i} 60:1\n" for i in range(10)))
    model = tmp_path / "m.npz"
    if command == "predict":
        assert call(capsys, "fit", data, "--task", "classify", "--model", model, "--sparse", "--quiet")[0] == 0
        args = ["predict", data, "--model", model]
    else:
        args = ["fit", data, "--task", "classify", "--model", model]
    status, out, err = call(capsys, *args, "--stream", "--dense")
    assert_one_line_error(status, out, err, "a dense matrix of 10 rows x 60 features", "--chunk-rows",
                          absent=("or --stream",))
    status, out, err = call(capsys, *args, "--dense")
    assert_one_line_error(status, out, err, "a dense matrix of 10 rows x 60 features", "or --stream")


@pytest.mark.parametrize("command", ["fit", "predict", "evaluate"])
@pytest.mark.parametrize("name", ["", "  "])
def test_an_empty_model_name(tmp_path, capsys, monkeypatch, command, name):
    """``--model ''`` said '--model  is a folder; give a file name (such as model.npz)' (the empty path is
    the current folder), and fit with ``--model '  '`` wrote a model named '  .npz'."""
    monkeypatch.chdir(tmp_path)
    data = two_classes(tmp_path)
    extra = ["--task", "classify"] if command == "fit" else []
    status, out, err = call(capsys, command, data, "--model", name, *extra)
    assert_usage_error(status, out, err, "--model needs a file name", absent=("is a folder",), command=command)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.svm"]


@pytest.mark.parametrize("command", ["predict", "evaluate"])
@pytest.mark.parametrize("name", ["models", "models.d"])
def test_a_folder_as_the_model_of_predict_and_evaluate(tmp_path, capsys, monkeypatch, command, name):
    """fit said '--model models.npz is a folder', predict and evaluate 'models.npz is not a predtron model
    file (not an .npz archive ...)': the path is now named the same way by every command."""
    monkeypatch.chdir(tmp_path)
    data = two_classes(tmp_path)
    folder = tmp_path / (name if "." in name else name + ".npz")
    folder.mkdir()
    status, out, err = call(capsys, command, data, "--model", name)
    assert_one_line_error(status, out, err, f"--model {folder.name} is a folder")


@pytest.mark.parametrize(("flag", "command"), [("--model", "fit"), ("--output", "predict"), ("--cache", "fit")])
def test_an_output_inside_a_data_file(tmp_path, capsys, flag, command):
    """``--model data.svm/m.npz`` said 'the folder .../data.svm does not exist'; it exists, as a file."""
    data = two_classes(tmp_path)
    model = tmp_path / "m.npz"
    assert call(capsys, "fit", data, "--task", "classify", "--model", model, "--quiet")[0] == 0
    args = {"fit": ["fit", data, "--task", "classify", "--model", model, "--stream"],
            "predict": ["predict", data, "--model", model]}[command]
    target = f"{data}/out"
    if flag == "--model":
        args[args.index("--model") + 1] = target
    else:
        args += [flag, target]
    status, out, err = call(capsys, *args)
    assert_one_line_error(status, out, err, f"{data} is a file, not a folder", absent=("does not exist",))


@pytest.mark.parametrize("how", [["--checkpoint", "ckpt"], ["--stream"]])
def test_group_file_on_a_cluster_fit_of_one_file(tmp_path, capsys, how):
    """``fit ONE.svm --group-file G --workers 2 --checkpoint DIR`` said 'with several files put qid: in
    every line': one file was given (the workers read it themselves because of --checkpoint/--stream)."""
    data = write(tmp_path / "nq.svm", "".join(f"{i % 3} 1:{i % 4} 2:{(i % 7) / 6}\n" for i in range(30)))
    groups = write(tmp_path / "g.txt", "10\n10\n10\n")
    how = [str(tmp_path / h) if h == "ckpt" else h for h in how]
    status, out, err = call(capsys, "fit", data, "--task", "rank", "--group-file", groups, "--model",
                            tmp_path / "m.npz", "--workers", "2", *how)
    assert_usage_error(status, out, err, "--group-file does not apply to a cluster fit whose workers read",
                          "FILE.query", absent=("with several files",))


@pytest.mark.parametrize(("task", "text", "shown"), [("classify", "1 -1:1\n0 -2:0.5\n", "feature index -1"),
                                                      ("rank", "1 qid:1 -3:1\n0 qid:1 -3:2\n", "feature index -3")])
def test_a_streamed_fit_names_a_negative_index(tmp_path, capsys, task, text, shown):
    """``fit --stream`` of a file whose only indices are negative said 'no line gives a feature value, so
    the number of features is unknown; pass --n-features' (the label scan reads no such index), where
    the in-memory fit names the line and the index."""
    data = write(tmp_path / "neg.svm", text)
    for stream in ([], ["--stream"]):
        status, out, err = call(capsys, "fit", data, "--task", task, "--model", tmp_path / "m.npz", *stream)
        assert_one_line_error(status, out, err, f"{data}, line 1: {shown}", absent=("no line gives",))
    empty = write(tmp_path / "nofeatures.svm", "1\n0\n")
    status, out, err = call(capsys, "fit", empty, "--task", "classify", "--model", tmp_path / "m.npz", "--stream")
    assert_one_line_error(status, out, err, "no line gives a feature value")


@pytest.mark.parametrize(("task", "flags", "shown"), [("classify", [], "reading labels and features"),
                                                      ("classify", ["--classes", "0", "1"], "reading features"),
                                                      ("classify", ["--n-features", "2"], "reading labels"),
                                                      ("rank", [], "reading features")])
def test_the_first_pass_bar_says_what_it_reads(tmp_path, capsys, task, flags, shown):
    """The bar of the first pass of ``fit --stream`` said 'reading labels and features' for a ranker (which
    needs no labels) and with --classes or --n-features given (the pass then reads the other one only)."""
    data = write(tmp_path / "q.svm", "".join(f"{i % 2} qid:{i // 4} 1:{i % 3} 2:{i % 5}\n" for i in range(20)))
    status, _, err = call(capsys, "fit", data, "--task", task, "--model", tmp_path / "m.npz", "--stream", "--epochs",
                          1, "--progress", *flags)
    assert status == 0, err
    assert shown + ":" in err, err


@pytest.mark.parametrize("command", ["fit", "evaluate"])
@pytest.mark.parametrize("stream", [[], ["--stream"]], ids=["in memory", "streamed"])
@pytest.mark.parametrize(("sizes", "shown"), [("3\n5\n", ": 2 sizes summing to 8 do not match the 30 rows"),
                                              ("10\nx\n", ", line 2: expected one group size"),
                                              ("", " contains no group sizes")])
def test_group_file_messages_name_the_flag(tmp_path, capsys, monkeypatch, command, stream, sizes, shown):
    """A wrong --group-file was named 'the group sizes in g.txt: ...' or 'g.txt, line 2: ...', never by
    its flag; a sidecar found beside the data keeps its own name."""
    monkeypatch.chdir(tmp_path)
    data = write(tmp_path / "nq.svm", "".join(f"{i % 3} 1:{i % 4} 2:{(i % 7) / 6}\n" for i in range(30)))
    write(tmp_path / "good.txt", "10\n10\n10\n")
    assert call(capsys, "fit", data, "--task", "rank", "--group-file", "good.txt", "--model", "m.npz")[0] == 0
    write(tmp_path / "g.txt", sizes)
    args = ["fit", data, "--task", "rank", "--model", "x.npz"] if command == "fit" else \
        ["evaluate", data, "--model", "m.npz"]
    status, out, err = call(capsys, *args, "--group-file", "./g.txt", *stream)
    assert_one_line_error(status, out, err, f"--group-file ./g.txt{shown}", absent=("the group sizes in",))
    (tmp_path / "g.txt").rename(tmp_path / "nq.svm.query")
    status, out, err = call(capsys, *args, *stream)
    assert "--group-file" not in err and "nq.svm.query" in err, err


def _emotions_like(tmp_path: Path) -> Path:
    return write(tmp_path / "e.arff", "@relation r\n@attribute a numeric\n@attribute b numeric\n"
                 "@attribute l1 {0,1}\n@attribute l2 {0,1}\n@data\n" +
                 "".join(f"{i % 3},{i % 5},{i % 2},{(i // 2) % 2}\n" for i in range(20)))


@pytest.mark.parametrize("stream", [[], ["--stream"]], ids=["in memory", "streamed"])
@pytest.mark.parametrize(("xml", "shown"), [("missing.xml", "Mulan label XML file not found: missing.xml (--xml)"),
                                            ("bad.xml", "--xml bad.xml, line 1: not well-formed XML"),
                                            ("other.xml", "--xml other.xml names labels that")])
def test_xml_messages_name_the_flag(tmp_path, capsys, monkeypatch, stream, xml, shown):
    """A wrong --xml file was named 'bad.xml, line 1: not well-formed XML' or 'Mulan label XML file not
    found: missing.xml', never by its flag (so too --group-file's missing file)."""
    monkeypatch.chdir(tmp_path)
    data = _emotions_like(tmp_path)
    write(tmp_path / "bad.xml", "garbage")
    write(tmp_path / "other.xml", '<labels xmlns="http://mulan.sourceforge.net/labels"><label name="zz"></label>'
                                  "</labels>\n")
    status, out, err = call(capsys, "fit", data, "--task", "multilabel", "--xml", xml, "--model", "m.npz", *stream)
    assert_one_line_error(status, out, err, shown)
    rank = write(tmp_path / "nq.svm", "".join(f"{i % 3} 1:{i % 4}\n" for i in range(6)))
    status, out, err = call(capsys, "fit", rank, "--task", "rank", "--group-file", "nothere", "--model", "m.npz",
                            *stream)
    assert_one_line_error(status, out, err, "group-size file not found: nothere (--group-file)")


@pytest.mark.parametrize("command", ["predict", "evaluate"])
@pytest.mark.parametrize("stream", [[], ["--stream"]], ids=["in memory", "streamed"])
@pytest.mark.parametrize("name", ["nothere.svm", "nothere.arff"])
def test_a_missing_test_file_is_named_missing(tmp_path, capsys, monkeypatch, command, stream, name):
    """predict/evaluate of a missing 'nothere.svm' with a multilabel model said 'nothere.svm is read as
    svmlight, but multilabel data are read from ARFF files' (its extension gave it a format), and a
    missing 'nothere.arff' 'ARFF file not found' where other commands say 'data file not found'."""
    monkeypatch.chdir(tmp_path)
    data = _emotions_like(tmp_path)
    assert call(capsys, "fit", data, "--task", "multilabel", "--labels", 2, "--model", "m.npz", "--quiet")[0] == 0
    status, out, err = call(capsys, command, name, "--model", "m.npz", *stream)
    assert_one_line_error(status, out, err, f"data file not found: {name}", absent=("is read as",))


@pytest.mark.parametrize("command", ["predict", "evaluate"])
@pytest.mark.parametrize("stream", [[], ["--stream"]], ids=["in memory", "streamed"])
@pytest.mark.parametrize("labels", [1, 3])
def test_another_number_of_labels_than_the_model_s_is_named_by_its_flag(tmp_path, capsys, monkeypatch, command,
                                                                        stream, labels):
    """predict/evaluate --labels 1 with a 2-label model said 'e.arff has 3 feature attributes; the model was
    fitted on 2' (or failed on a label column of features), never naming --labels."""
    monkeypatch.chdir(tmp_path)
    data = _emotions_like(tmp_path)
    assert call(capsys, "fit", data, "--task", "multilabel", "--labels", 2, "--model", "m.npz", "--quiet")[0] == 0
    status, out, err = call(capsys, command, data, "--model", "m.npz", "--labels", labels, *stream)
    assert_one_line_error(status, out, err, f"--labels {labels}, but the model was fitted with 2 labels",
                          absent=("feature attributes",))
    status, out, err = call(capsys, command, data, "--model", "m.npz", "--labels", 2, *stream)
    assert status == 0, err


@pytest.mark.parametrize(("command", "extra"), [("predict", ["--k", "3"]), ("fit", ["--bogus"]),
                                                ("evaluate", ["second.svm"])])
def test_an_unknown_option_is_named_by_its_command(tmp_path, capsys, command, extra):
    """'predtron predict ... --k 3' said 'predtron: error: unrecognized arguments: --k 3 (see 'predtron
    --help')', pointing to the program's help, which lists no option of predict."""
    data = two_classes(tmp_path)
    args = {"fit": ["--task", "classify", "--model", tmp_path / "m.npz"]}.get(command, ["--model", tmp_path / "m"])
    status, out, err = call(capsys, command, data, *args, *extra)
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"predtron {command}: error: unrecognized arguments: {' '.join(extra)}"), err
    assert f"(see 'predtron {command} --help')" in err


@pytest.mark.parametrize("task", ["classify", "rank"])
def test_progress_of_a_checkpointed_in_memory_fit(tmp_path, capsys, task):
    """``fit --checkpoint DIR --progress`` (in memory) showed no bar at all; it now shows one over the
    epochs, ended at those made (early stopping), and a resumed fit's too."""
    data = write(tmp_path / "q.svm", "".join(f"{i % 3} qid:{i // 5} 1:{i % 4} 2:{(i % 7) / 6}\n" for i in range(30)))
    common = ["fit", data, "--task", task, "--model", tmp_path / "m.npz", "--checkpoint", tmp_path / "ck",
              "--epochs", 8, "--no-early-stopping", "--progress"]
    status, _, err = call(capsys, *common)
    assert status == 0, err
    assert "epochs: 100%" in err and "8/8" in err, err
    status, _, err = call(capsys, *common, "--resume")
    assert status == 0 and "8/8" in err, err


# ------------------------------------------------------------------ the summary of a resumed streamed fit
@pytest.mark.parametrize("hints", [[], ["--n-features", "2"]], ids=["surveyed", "told its width"])
def test_a_resumed_streamed_fit_reports_its_examples_and_queries(tmp_path, capsys, monkeypatch, hints):
    """A streamed fit counted its examples and queries in epoch 1 only, which a fit resumed after it does
    not make: its summary lost the queries ('72 examples x 2 features, 4 epochs') and, without the first
    pass (--n-features given), the number of examples ('examples x 2 features'). They are counted in the
    first epoch the process makes."""
    from predtron import cli_stream

    data = write(tmp_path / "train.txt", "".join(f"{(i * 7) % 3} qid:{i // 6 + 1} 1:{i % 5 - 2} 2:{(i % 4) / 3}\n"
                                                 for i in range(72)))
    options = ["fit", data, "--task", "rank", "--model", tmp_path / "m.npz", "--stream", "--no-early-stopping",
               "--epochs", "4", "--chunk-rows", "20", "--checkpoint", tmp_path / "ckpt", *hints]
    real = cli_stream.fit_passes

    def killed_after_epoch_2(*args, **kwargs):
        def after(epoch):
            if epoch == 2:
                raise KeyboardInterrupt
        return real(*args, **kwargs, after_epoch=after)

    with monkeypatch.context() as patched:
        patched.setattr(cli_stream, "fit_passes", killed_after_epoch_2)
        assert call(capsys, *options)[0] == 130
    status, out, err = call(capsys, *options, "--resume")
    assert (status, err) == (0, ""), err
    assert out == f"saved PredtronRanker (rank) to {tmp_path / 'm.npz'}: 72 examples x 2 features, 12 queries, " \
                  "4 epochs, streamed\n"


# ------------------------------------------------------------------ a file whose name holds glob characters
@pytest.mark.parametrize("name", ["run[1].svm", "what?.svm", "all*.svm"])
@pytest.mark.parametrize("stream", [[], ["--stream"]], ids=["in memory", "stream"])
def test_a_training_file_named_with_glob_characters_is_that_file(tmp_path, capsys, name, stream):
    """``fit 'run[1].svm'`` took the name of an existing file for a glob pattern and asked for a cluster
    ('several training files (1 given) or a glob pattern need a cluster'), though predict read the same
    file; an existing file is now itself, here and in the list of a cluster's files."""
    from predtron.dask.cli import expand_paths, is_pattern

    data = two_classes(tmp_path, name)
    status, out, err = call(capsys, "fit", data, "--task", "classify", "--model", tmp_path / "m", "--quiet",
                            "--epochs", "2", *stream)
    assert (status, out, err) == (0, "", "")
    assert not is_pattern(data) and is_pattern(tmp_path / "other*.svm")
    assert expand_paths([data]) == [str(data)]


def test_the_bar_of_a_streamed_fit_resumed_when_finished_names_its_last_epoch(tmp_path, capsys):
    """A streamed fit resumed from the checkpoint of a finished fit makes no epoch: its bar ended at 100%
    under 'epoch 1/4', the name of the epoch it would have begun with, instead of the last one made."""
    data = write(tmp_path / "train.txt", "".join(f"{(i * 7) % 3} qid:{i // 6 + 1} 1:{i % 5 - 2} 2:{(i % 4) / 3}\n"
                                                 for i in range(72)))
    options = ["fit", data, "--task", "rank", "--model", tmp_path / "m.npz", "--stream", "--no-early-stopping",
               "--epochs", "4", "--checkpoint", tmp_path / "ckpt", "--progress"]
    assert call(capsys, *options)[0] == 0
    status, _, err = call(capsys, *options, "--resume")
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert status == 0 and last.startswith("epoch 4/4: 100%"), last


#: Flags that contradict each other, whatever the data: ``(command, flags, message)``.  ``{d}`` is a folder
#: that exists (the model is written there), ``MISSING`` a training/test file that does not exist.
FLAG_CONTRADICTIONS = [
    ("fit", ["--task", "classify", "--resume"], "--resume needs --checkpoint DIR"),
    ("fit", ["--task", "rank", "--classes", "1", "2", "--stream"], "--classes does not apply to --task rank"),
    ("fit", ["--task", "rank", "--cost-matrix", "{d}/costs.txt"], "--cost-matrix does not apply to --task rank"),
    ("fit", ["--task", "multilabel", "--beta", "2"], "--beta applies only with --loss fbeta"),
    ("fit", ["--task", "classify", "--reject-label", "9"], "--reject-label applies only with --reject-cost"),
    ("fit", ["--task", "classify", "--tol", "none", "--n-iter-no-change", "3"],
     "--n-iter-no-change applies only with early stopping"),
    ("fit", ["--task", "classify", "--cache", "{d}/c"], "--cache applies to --stream"),
    ("fit", ["--task", "classify", "--classes", "1", "2"], "--classes applies to --stream"),
    ("fit", ["--task", "classify", "--statistics", "file"], "--statistics applies to --stream"),
    ("fit", ["--task", "classify", "--reject-cost", "0.3", "--stream"],
     "--reject-cost cannot be combined with --stream"),
    ("fit", ["--task", "classify", "--reject-cost", "0.3", "--checkpoint", "{d}/ck"],
     "--reject-cost cannot be combined with --checkpoint"),
    ("fit", ["--task", "classify", "--stream", "--shuffle"], "--shuffle does not apply to --stream"),
    ("fit", ["--task", "classify", "--chunk-rows", "5"], "--chunk-rows applies to --stream"),
    ("fit", ["--task", "classify", "--group-file", "{d}/g.txt"], "--group-file applies to the rank task, not classify"),
    ("fit", ["--task", "classify", "--xml", "-", "--cost-matrix", "-"],
     "standard input can be read only once, but --xml and --cost-matrix are both '-'"),
    ("fit", ["--task", "classify", "--shards", "2"], "--shards applies to a fit on a Dask cluster"),
    ("fit", ["--task", "classify", "--mixing", "uniform"], "--mixing applies to a fit on a Dask cluster"),
    ("fit", ["--task", "classify", "--workers", "1", "--classes", "1", "2"],
     "--classes does not combine with a fit on a Dask cluster"),
    ("fit", ["--task", "classify", "--workers", "1", "--cache", "{d}/c"], "--cache applies to --stream"),
    ("fit", ["{d}/other.svm", "--task", "classify"], "several training files (2 given) or a glob pattern need a "
                                                     "cluster"),
    ("fit", ["-", "--task", "classify", "--workers", "1"], "'-' (standard input) cannot be one of several"),
    ("fit", ["--task", "classify", "--workers", "1", "--stream", "--classes", "1", "2"],
     "--classes does not apply to a cluster fit whose workers read the training files themselves"),
    ("fit", ["--task", "classify", "--workers", "1", "--stream", "--statistics", "first-chunk"],
     "--statistics first-chunk does not apply to a cluster fit"),
    ("fit", ["--task", "rank", "--workers", "1", "--stream", "--group-file", "{d}/g.txt"],
     "--group-file does not apply to a cluster fit whose workers read"),
    ("fit", ["--task", "classify", "--workers", "1", "--stream", "--shuffle"],
     "--shuffle does not apply to --stream: each worker reads its file in file order"),
    ("fit", ["--task", "classify", "--checkpoint", "-"], "--checkpoint -: standard output cannot hold a checkpoint"),
    ("predict", ["--chunk-rows", "5"], "--chunk-rows applies to --stream"),
    ("evaluate", ["--chunk-rows", "5"], "--chunk-rows applies to --stream"),
    ("evaluate", ["--xml", "-", "--group-file", "-"], "standard input can be read only once"),
]


@pytest.mark.parametrize(("command", "flags", "expected"), FLAG_CONTRADICTIONS,
                         ids=[f"{c} {' '.join(f for f in flags if f.startswith('-'))}"
                              for c, flags, _ in FLAG_CONTRADICTIONS])
def test_flags_that_contradict_each_other_are_a_usage_error(tmp_path, capsys, monkeypatch, command, flags,
                                                             expected):
    """Flags that contradict each other (--resume without --checkpoint, --cache without --stream, an option
    the task does not have, '-' given twice, a cluster's flag without a cluster, ...) are wrong whatever the
    data, as a malformed value is: they ended with exit status 1, as bad input does, after parsing.  They are
    a usage error (status 2, the parser's one-line form) found before any file is read: the training or
    test file here does not exist, the model file neither, and nothing is read from standard input."""
    stdin = io.BytesIO(b"1 1:1\n")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(stdin))
    missing = tmp_path / "no-such-file.svm"
    words = [w.format(d=tmp_path) for w in flags]
    extra = ["--model", tmp_path / "m.npz"] if command == "fit" else ["--model", tmp_path / "no-such-model.npz"]
    status, out, err = call(capsys, command, missing, *words, *extra)
    assert_usage_error(status, out, err, expected, command=command, absent=(str(missing), "not found"))
    assert stdin.tell() == 0  # (standard input untouched)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written, nothing created


def test_a_url_given_as_the_data_file_is_named_as_one(tmp_path, capsys):
    """``predtron fit https://host/f.svm`` said "data file not found: https:/host/f.svm" (a Path's
    form): the URL as typed, and what to do."""
    status, out, err = call(capsys, "fit", "https://example.org/train.svm", "--task", "classify",
                            "--model", tmp_path / "m.npz")
    assert_one_line_error(status, out, err, "data file not found: https://example.org/train.svm is a URL",
                          "download it first")
