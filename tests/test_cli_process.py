"""The command line as a whole process: what it imports to start, Ctrl-C, standard input.

Every test runs ``python -m predtron`` (or a fresh interpreter) in a subprocess, with this
repository first on the path, because what is checked is a property of a process: the modules
it imported, its exit status after a real SIGINT, the files it leaves.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import predtron

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("sklearn", "dask", "distributed", "matplotlib", "tqdm")


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _python(code: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=_env(),
                          timeout=300, check=False, **kwargs)


#: Run the program's entry point as ``python -m predtron`` does, then print the top-level packages imported
#: (from an ``atexit`` handler: the program ends its process once the command has returned).
_IMPORTED = """
import atexit, runpy, sys
sys.argv = ["predtron", *sys.argv[1:]]
atexit.register(lambda: print("IMPORTED", " ".join(sorted({name.split(".")[0] for name in sys.modules}))))
runpy.run_module("predtron", run_name="__main__")
"""


def _imported(*args: str) -> set[str]:
    result = _python(_IMPORTED, *args)
    line = next(line for line in result.stdout.splitlines() if line.startswith("IMPORTED"))
    return set(line.split()[1:])


@pytest.mark.parametrize("args", [["--help"], ["--version"], []])
def test_help_and_version_import_nothing_heavy(args):
    imported = _imported(*args)
    assert "predtron" in imported
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))


def test_predict_does_not_import_dask(tmp_path):
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    (tmp_path / "d.svm").write_text("".join(f"{t} 1:{a} 2:{b} 3:{c}\n" for (a, b, c), t in zip(X, y, strict=True)))
    fitted = subprocess.run([sys.executable, "-m", "predtron", "fit", str(tmp_path / "d.svm"), "--task", "classify",
                             "--model", str(tmp_path / "m"), "--quiet"], env=_env(), capture_output=True, text=True,
                            check=False)
    assert fitted.returncode == 0, fitted.stderr
    imported = _imported("predict", str(tmp_path / "d.svm"), "--model", str(tmp_path / "m"),
                         "--output", str(tmp_path / "p.txt"))
    assert (tmp_path / "p.txt").read_text().count("\n") == 40  # the model path rule: m is m.npz for predict too
    assert not imported & {"dask", "distributed", "matplotlib", "tqdm"}  # a bar is imported only when shown


def test_import_predtron_is_light():
    code = ("import sys, predtron; print(' '.join(sorted({n.split('.')[0] for n in sys.modules} & set(sys.argv[1:]))));"
            " print(' '.join(sorted(n for n in sys.modules if n.startswith('predtron.'))))")
    result = _python(code, *HEAVY, "numpy")
    assert result.returncode == 0, result.stderr
    heavy, submodules = result.stdout.split("\n")[:2]
    assert heavy == ""  # neither scikit-learn, Dask, tqdm nor even numpy
    assert submodules == "predtron._version"


#: Record, for every module imported while the entry point loads, whether Ctrl-C was already the
#: program's (a handler other than Python's own): a module imported before the handler is a window
#: in which a Ctrl-C printed a traceback (``typing`` was, for milliseconds).
_HANDLER_AT_IMPORT = """
import _signal, sys
class Watch:
    def find_spec(self, name, path=None, target=None):
        print("IMPORT", name, _signal.getsignal(_signal.SIGINT) is not _signal.default_int_handler)
        return None
sys.meta_path.insert(0, Watch())
import predtron.__main__
"""


def test_the_entry_point_takes_ctrl_c_before_importing_anything_slow():
    result = _python(_HANDLER_AT_IMPORT)
    assert result.returncode == 0, result.stderr
    seen = [line.split()[1:] for line in result.stdout.splitlines() if line.startswith("IMPORT")]
    before = [name for name, ours in seen if ours == "False"]
    # The package itself and its version come first (``import predtron`` runs before its ``__main__``).
    assert before == ["predtron", "predtron._version", "predtron.__main__"], before
    assert ["typing", "True"] in seen  # imported by the entry point, after the handler


def test_every_exported_name_imports():
    code = ("import predtron, sys\n"
            "for name in sys.argv[1:]:\n"
            "    exec(f'from predtron import {name} as value')\n"
            "    assert value is getattr(predtron, name) and name in dir(predtron), name\n"
            "print('ok')")
    result = _python(code, *predtron.__all__)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ok\n"
    assert {"Predtron", "save", "load", "sklearn", "__version__"} <= set(predtron.__all__)


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        predtron.Nope  # noqa: B018


def test_load_finds_every_saveable_class_in_a_fresh_process(tmp_path):
    from predtron.baselines import PRank
    from predtron.sklearn import PredtronRanker

    X = np.random.default_rng(1).normal(size=(30, 4))
    grades = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)
    predtron.save(PredtronRanker(epochs=2, random_state=0).fit(X, grades, group=[10, 10, 10]), tmp_path / "ranker")
    predtron.save(PRank(n_levels=3).fit(X, grades), tmp_path / "prank")
    for name in ("ranker", "prank"):
        result = _python("import sys, predtron; print(type(predtron.load(sys.argv[1])).__name__)",
                         str(tmp_path / f"{name}.npz"))
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == {"ranker": "PredtronRanker", "prank": "PRank"}[name]


# ------------------------------------------------------------------ Ctrl-C
@pytest.fixture(scope="module")
def long_file(tmp_path_factory) -> Path:
    """A classification file whose fit (many passes, early stopping off) runs far longer than the test waits."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6000, 30)).round(4)
    y = np.where(X @ rng.normal(size=30) > 0, 1, -1)
    path = tmp_path_factory.mktemp("sigint") / "train.svm"
    with path.open("w") as out:
        for row, label in zip(X, y, strict=True):
            out.write(f"{label} " + " ".join(f"{j + 1}:{v}" for j, v in enumerate(row)) + "\n")
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("flags", [[], ["--stream", "--chunk-rows", "500", "--cache", "CACHE"], ["--workers", "2"]],
                         ids=["memory", "stream", "workers"])
def test_ctrl_c_exits_130_with_one_line_and_harms_no_file(long_file, tmp_path, flags):
    model = tmp_path / "m.npz"
    model.write_bytes(b"the user's previous model")
    before = _digest(model)
    flags = [str(tmp_path / "train.cache") if flag == "CACHE" else flag for flag in flags]
    for delay in (0.4, 1.5, 3.0, 5.0):
        process = subprocess.Popen([sys.executable, "-m", "predtron", "fit", str(long_file), "--task", "classify",
                                    "--model", str(model), "--epochs", "100000", "--no-early-stopping", *flags],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
        time.sleep(delay)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
        assert process.returncode == 130, (delay, process.returncode, err[-2000:])
        # one line: the command's, or the entry point's while the command line is still being imported
        assert err in ("predtron fit: interrupted\n", "predtron: interrupted\n"), (delay, err[-2000:])
        assert out == ""
        assert _digest(model) == before
        left = {p.name for p in tmp_path.iterdir()}
        assert left <= {"m.npz", "train.cache"}, (delay, left)  # no temporary, no partial cache
        (tmp_path / "train.cache").unlink(missing_ok=True)  # a complete cache (the first pass ended); start again



def test_ctrl_c_of_a_streamed_cluster_fit_removes_the_cache_folders_it_made(long_file, tmp_path):
    """``fit FILE --workers 2 --stream --cache caches`` stopped by Ctrl-C before a cache was complete left the
    folder it made behind, empty: the fit removes it when it raises, but the command line's handler ends the
    process without unwinding.  The handler now removes it too (a complete cache stays)."""
    pytest.importorskip("distributed")
    big = tmp_path / "big.svm"
    big.write_text(long_file.read_text() * 10)
    made = tmp_path / "caches"
    process = subprocess.Popen([sys.executable, "-m", "predtron", "fit", str(big), "--task", "classify", "--quiet",
                                "--model", str(tmp_path / "m.npz"), "--workers", "2", "--stream", "--cache", str(made),
                                "--epochs", "100000", "--no-early-stopping"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    for _ in range(6000):  # until the fit has made the folder (or has ended)
        if made.exists() or process.poll() is not None:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err[-2000:]
    assert err == "predtron fit: interrupted\n"
    caches = sorted(p.name for p in made.iterdir()) if made.exists() else []
    assert caches in ([], ["0-big.svm.cache"]), caches  # nothing partial, no temporary
    assert made.exists() == bool(caches)  # no folder left empty

def test_sigterm_exits_143_with_one_line_and_leaves_no_partial_cache(long_file, tmp_path):
    """``kill`` (SIGTERM) is handled as Ctrl-C is: the files being written are removed, one line, status 143."""
    model, cache = tmp_path / "m.npz", tmp_path / "train.cache"
    for delay in (1.0, 2.5):
        process = subprocess.Popen([sys.executable, "-m", "predtron", "fit", str(long_file), "--task", "classify",
                                    "--model", str(model), "--epochs", "100000", "--no-early-stopping", "--stream",
                                    "--chunk-rows", "500", "--cache", str(cache)],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
        time.sleep(delay)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=120)
        assert process.returncode == 143, (delay, process.returncode, err[-2000:])
        assert out == ""
        assert err in ("predtron fit: terminated\n", "predtron: terminated\n"), (delay, err[-2000:])
        left = {p.name for p in tmp_path.iterdir()}
        assert left <= {"train.cache"}, (delay, left)  # no model, no temporary, no partial cache
        cache.unlink(missing_ok=True)


# ------------------------------------------------------------------ standard input
def test_dash_reads_standard_input(long_file, tmp_path):
    text = "".join(long_file.read_text().splitlines(keepends=True)[:200])
    (tmp_path / "small.svm").write_text(text)
    common = ["--task", "classify", "--epochs", "3", "--quiet"]
    by_path = subprocess.run([sys.executable, "-m", "predtron", "fit", str(tmp_path / "small.svm"), *common,
                              "--model", str(tmp_path / "a")], env=_env(), capture_output=True, text=True, check=False)
    by_stdin = subprocess.run([sys.executable, "-m", "predtron", "fit", "-", *common, "--model", str(tmp_path / "b")],
                              env=_env(), capture_output=True, text=True, input=text, check=False)
    assert by_path.returncode == 0 and by_stdin.returncode == 0, by_stdin.stderr
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()  # same rows, default seed 0
    predicted = subprocess.run([sys.executable, "-m", "predtron", "predict", "-", "--model", str(tmp_path / "a")],
                               env=_env(), capture_output=True, text=True, input=text, check=False)
    assert predicted.returncode == 0, predicted.stderr
    assert len(predicted.stdout.splitlines()) == 200



def test_an_output_on_the_file_standard_input_is_redirected_from_is_refused(long_file, tmp_path):
    """``predtron predict - --output data.svm < data.svm`` (or ``fit - --model data.svm``, a link to it):
    the file behind standard input is an input like any other, refused before anything is written."""
    data = tmp_path / "small.svm"
    data.write_text("".join(long_file.read_text().splitlines(keepends=True)[:50]))
    (tmp_path / "link.svm").symlink_to(data)
    before = _digest(data)
    model = tmp_path / "m.npz"
    fitted = subprocess.run([sys.executable, "-m", "predtron", "fit", str(data), "--task", "classify", "--quiet",
                             "--model", str(model)], env=_env(), capture_output=True, text=True, check=False)
    assert fitted.returncode == 0, fitted.stderr
    for flag, command in (("--output", ["predict", "-", "--model", str(model), "--output"]),
                          ("--model", ["fit", "-", "--task", "classify", "--quiet", "--model"]),
                          ("--cache", ["fit", "-", "--task", "classify", "--quiet", "--model", str(tmp_path / "n.npz"),
                                       "--stream", "--cache"])):
        for target in (data, tmp_path / "link.svm"):
            with data.open("rb") as stdin:
                result = subprocess.run([sys.executable, "-m", "predtron", *command, str(target)], stdin=stdin,
                                        env=_env(), capture_output=True, text=True, check=False)
            assert result.returncode == 1, (flag, result.stderr)
            assert f"{flag} {target} is the file standard input (the data file -) reads" in result.stderr, result.stderr
            assert _digest(data) == before, flag
    assert not (tmp_path / "n.npz").exists()


def _small_fit(long_file: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A 50-row svmlight file in ``tmp_path`` and the model ``predtron fit`` writes from it."""
    data = tmp_path / "small.svm"
    data.write_text("".join(long_file.read_text().splitlines(keepends=True)[:50]))
    model = tmp_path / "m.npz"
    fitted = subprocess.run([sys.executable, "-m", "predtron", "fit", str(data), "--task", "classify", "--quiet",
                             "--model", str(model)], env=_env(), capture_output=True, text=True, check=False)
    assert fitted.returncode == 0, fitted.stderr
    return data, model


@pytest.mark.parametrize("stream", [[], ["--stream", "--chunk-rows", "10"]], ids=["memory", "stream"])
def test_standard_output_redirected_to_an_input_is_refused(long_file, tmp_path, stream):
    """``predtron predict data.svm >> data.svm`` appended the predictions to the data file (with --stream
    the reader then read them back as data lines and failed, leaving the file changed); ``>> model.npz``
    damaged the model.  Standard output is an output like --output FILE: it may be no input."""
    data, model = _small_fit(long_file, tmp_path)
    before = {path: _digest(path) for path in (data, model)}
    for target, name in ((data, f"the data file {data}"), (model, f"--model {model}")):
        for output in ([], ["--output", "-"]):
            with target.open("ab") as stdout:
                result = subprocess.run([sys.executable, "-m", "predtron", "predict", str(data), "--model", str(model),
                                         *output, *stream], stdout=stdout, stderr=subprocess.PIPE, env=_env(),
                                        text=True, check=False)
            assert result.returncode == 1, result.stderr
            assert result.stderr == (f"predtron predict: error: --output - writes to standard output, which is "
                                     f"redirected to the input {name}: writing it would destroy the input; redirect "
                                     "it to another file\n")
            assert {path: _digest(path) for path in before} == before
    with (tmp_path / "predictions.txt").open("wb") as stdout:  # another file: written as before
        result = subprocess.run([sys.executable, "-m", "predtron", "predict", str(data), "--model", str(model),
                                 *stream], stdout=stdout, stderr=subprocess.PIPE, env=_env(), text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert len((tmp_path / "predictions.txt").read_text().splitlines()) == 50


def test_a_summary_or_metrics_redirected_to_an_input_are_refused(long_file, tmp_path):
    """``predtron fit data.svm ... >> data.svm`` appended its summary line to the data file, and
    ``evaluate data.svm ... >> data.svm`` (or ``>> model.npz``) its metrics: standard output is refused
    before any work when it is redirected to an input, as predict's predictions are; ``fit --quiet``
    writes nothing there, so it may."""
    data, model = _small_fit(long_file, tmp_path)
    before = {path: _digest(path) for path in (data, model)}
    other = tmp_path / "other.npz"
    cases = [(["fit", str(data), "--task", "classify", "--model", str(other)], data, f"the data file {data}",
              "the summary line of fit (--quiet prints none)"),
             (["fit", str(data), "--task", "classify", "--model", str(other), "--stream"], data,
              f"the data file {data}", "the summary line of fit (--quiet prints none)"),
             (["evaluate", str(data), "--model", str(model)], data, f"the data file {data}", "the metrics of evaluate"),
             (["evaluate", str(data), "--model", str(model), "--stream"], model, f"--model {model}",
              "the metrics of evaluate")]
    for command, target, name, what in cases:
        with target.open("ab") as stdout:
            result = subprocess.run([sys.executable, "-m", "predtron", *command], stdout=stdout,
                                    stderr=subprocess.PIPE, env=_env(), text=True, check=False)
        assert result.returncode == 1, (command, result.stderr)
        assert result.stderr == (f"predtron {command[0]}: error: {what} writes to standard output, which is "
                                 f"redirected to the input {name}: writing it would destroy the input; redirect it "
                                 "to another file\n"), result.stderr
        assert {path: _digest(path) for path in before} == before
        assert not other.exists()
    with data.open("ab") as stdout:  # --quiet: nothing goes to standard output
        quiet = subprocess.run([sys.executable, "-m", "predtron", "fit", str(data), "--task", "classify", "--quiet",
                                "--model", str(other)], stdout=stdout, stderr=subprocess.PIPE, env=_env(), text=True,
                               check=False)
    assert quiet.returncode == 0, quiet.stderr
    assert _digest(data) == before[data] and other.exists()


def _importtime_modules(stderr: str) -> set[str]:
    """The modules a ``python -X importtime`` process imported, read from its stderr."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines()
            if line.startswith("import time:") and "|" in line and not line.rstrip().endswith("package")}


@pytest.mark.parametrize("hints", [["--stream"], ["--stream", "--n-features", "3", "--classes", "-1", "1"], []],
                         ids=["streamed as typed", "streamed hinted", "in memory"])
def test_a_fit_imports_neither_scikit_learn_nor_scipy_stats(tmp_path, hints):
    """``predtron fit FILE --task classify`` (streamed or in memory) runs the estimator's core
    (predtron._models) on the package's own svmlight parser and never imports scikit-learn (nor
    scipy.stats, which it would bring): the model it saves is the public estimator, equal to the
    estimator's fit with the same options."""
    from predtron.sklearn import PredtronClassifier

    X = np.round(np.random.default_rng(1).normal(size=(300, 3)), 3)
    y = np.where(X[:, 0] - X[:, 1] > 0, 1, -1)
    data = tmp_path / "d.svm"
    data.write_text("".join(f"{t} 1:{a} 2:{b} 3:{c}\n" for (a, b, c), t in zip(X, y, strict=True)))
    algorithm1 = ["--no-average", "--no-shuffle", "--no-standardize", "--no-intercept", "--eta", "1", "--epochs", "2"]
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "predtron", "fit", str(data), "--task", "classify",
                          "--model", str(tmp_path / "m.npz"), *algorithm1, *hints],
                         env=_env(), capture_output=True, text=True, check=False, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    imported = _importtime_modules(run.stderr)
    assert "predtron._models.classifier" in imported  # the reading is right
    assert not {m for m in imported if m == "sklearn" or m.startswith("sklearn.")}
    assert "scipy.stats" not in imported
    model = predtron.load(tmp_path / "m.npz")
    assert type(model) is PredtronClassifier
    expected = PredtronClassifier(average=False, shuffle=False, standardize=False, fit_intercept=False, eta=1.0,
                                  epochs=2, tol=1e-3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.learner_.coef_, expected.learner_.coef_)


@pytest.mark.parametrize("stream", [["--stream"], []], ids=["streamed", "in memory"])
def test_predict_and_evaluate_do_not_import_scikit_learn(tmp_path, stream):
    """``predict`` and ``evaluate`` read the model as its estimator's core (predtron._models) and the
    data with the package's own svmlight parser: the same predictions and metrics as the public
    estimator, without importing scikit-learn."""
    from predtron.sklearn import PredtronClassifier

    X = np.round(np.random.default_rng(2).normal(size=(80, 3)), 3)
    y = np.where(X[:, 0] + X[:, 2] > 0.3, 1, -1)
    data = tmp_path / "d.svm"
    data.write_text("".join(f"{t} 1:{a} 2:{b} 3:{c}\n" for (a, b, c), t in zip(X, y, strict=True)))
    model = PredtronClassifier(random_state=0, epochs=3).fit(X, y)
    predtron.save(model, tmp_path / "m.npz")
    imported = _imported("predict", str(data), "--model", str(tmp_path / "m.npz"), "--output",
                         str(tmp_path / "p.txt"), *stream)
    assert "sklearn" not in imported and "predtron" in imported
    assert (tmp_path / "p.txt").read_text().split() == [str(v) for v in model.predict(X).tolist()]
    result = _python(_IMPORTED, "evaluate", str(data), "--model", str(tmp_path / "m.npz"), *stream)
    assert result.returncode == 0, result.stderr
    assert f"accuracy: {model.score(X, y):.4f}" in result.stdout
    assert "sklearn" not in result.stdout.split("IMPORTED", 1)[1].split()


@pytest.mark.parametrize("command", ["fit", "predict", "evaluate"])
def test_a_command_s_help_imports_neither_scikit_learn_nor_the_streaming_modules(command):
    """A command's parser reads the parameters' defaults from the estimators' cores and builds the streaming
    options without importing the streaming modules."""
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "predtron", command, "--help"], env=_env(),
                         capture_output=True, text=True, check=False, timeout=300)
    assert run.returncode == 0 and "--stream" in run.stdout, run.stderr[-2000:]
    imported = _importtime_modules(run.stderr)
    assert "predtron.cli" in imported
    assert not {m for m in imported if m.split(".")[0] in HEAVY}
    assert not imported & {"predtron.streaming", "predtron.cli_stream", "scipy.stats"}


@pytest.mark.parametrize(("data", "flags", "cls"), [
    ("letor-mq2008-fold1/vali.txt.gz", ["--task", "rank"], "PredtronRanker"),
    ("mulan-emotions/emotions-train.arff.gz", ["--task", "multilabel", "--labels", "6"],
     "PredtronMultilabelClassifier"),
], ids=["rank", "multilabel"])
@pytest.mark.parametrize("stream", [["--stream"], []], ids=["streamed", "in memory"])
def test_every_task_fits_without_scikit_learn(tmp_path, data, flags, cls, stream):
    path = ROOT / "predtron" / "data" / "files" / data
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "predtron", "fit", str(path), *flags, *stream,
                          "--epochs", "2", "--quiet", "--model", str(tmp_path / "m.npz")],
                         env=_env(), capture_output=True, text=True, check=False, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    imported = _importtime_modules(run.stderr)
    assert not {m for m in imported if m.split(".")[0] == "sklearn"} and "scipy.stats" not in imported
    assert type(predtron.load(tmp_path / "m.npz")).__name__ == cls


#: The program's end: buffered output flushed, atexit handlers run, and no object finalised by the
#: interpreter's teardown (``TEARDOWN`` would be printed by it).
_END = """
import atexit, sys


class Finalised:
    def __del__(self):
        sys.stdout.write("TEARDOWN")


kept = Finalised()
atexit.register(lambda: sys.stdout.write(" HANDLER"))
from predtron.__main__ import end
sys.stdout.write("BUFFERED")
end(3)
"""


def test_the_program_ends_after_its_handlers_without_the_teardown():
    result = _python(_END)
    assert result.returncode == 3, result.stderr[-2000:]
    assert result.stdout == "BUFFERED HANDLER"
    assert result.stderr == ""


def test_a_command_run_as_a_program_leaves_complete_files(tmp_path):
    """Fitted, predicted to a file and evaluated as whole processes (each ended by ``end``): the outputs are
    complete, as the in-process command line writes them."""
    from predtron.cli import main

    data = tmp_path / "d.svm"
    data.write_text("".join(f"{1 if i % 3 else -1} 1:{i % 7}.5 2:{i % 5}\n" for i in range(80)))
    run = [sys.executable, "-m", "predtron"]
    for command in (["fit", str(data), "--task", "classify", "--model", str(tmp_path / "m.npz"), "--quiet"],
                    ["predict", str(data), "--model", str(tmp_path / "m.npz"), "--output", str(tmp_path / "p.txt")]):
        result = subprocess.run([*run, *command], capture_output=True, text=True, env=_env(), timeout=300,
                                check=False)
        assert result.returncode == 0, result.stderr[-2000:]
    evaluated = subprocess.run([*run, "evaluate", str(data), "--model", str(tmp_path / "m.npz")], capture_output=True,
                               text=True, env=_env(), timeout=300, check=False)
    assert evaluated.returncode == 0, evaluated.stderr[-2000:]
    assert main(["predict", str(data), "--model", str(tmp_path / "m.npz"), "--output", str(tmp_path / "q.txt")]) == 0
    assert (tmp_path / "p.txt").read_bytes() == (tmp_path / "q.txt").read_bytes()
    assert len((tmp_path / "p.txt").read_text().splitlines()) == 80
    assert "accuracy" in evaluated.stdout


def _program(*args, stdin: str = "") -> subprocess.CompletedProcess:
    """``python -m predtron ARGS`` with ``stdin`` on its standard input."""
    return subprocess.run([sys.executable, "-m", "predtron", *map(str, args)], env=_env(), capture_output=True,
                          text=True, input=stdin, timeout=300, check=False)


def test_dash_reads_the_side_files_from_standard_input(tmp_path):
    """``-`` reads ``--cost-matrix``, ``--group-file`` and ``--xml`` from standard input as it reads the data
    file (they were looked up as files named ``-``: 'cost-matrix file not found: -'); given to two inputs,
    it is refused before anything is read, since standard input is read once."""
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(40, 3)), rng.integers(0, 3, size=40)
    lines = [f"{label} " + " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(row))
             for row, label in zip(X, y, strict=True)]
    (tmp_path / "train.svm").write_text("\n".join(lines) + "\n")
    costs = "0 1 2\n1 0 1\n2 1 0\n"
    (tmp_path / "costs.txt").write_text(costs)
    (tmp_path / "sizes").write_text("10\n10\n20\n")
    arff = ("@relation r\n@attribute f1 numeric\n@attribute f2 numeric\n@attribute a {0,1}\n@attribute b {0,1}\n"
            "@data\n" + "".join(f"{v:.3f},{w:.3f},{int(v > 0)},{int(w > 0)}\n" for v, w in X[:, :2]))
    (tmp_path / "train.arff").write_text(arff)
    xml = '<labels xmlns="http://mulan.sourceforge.net/labels"><label name="a"/><label name="b"/></labels>'
    (tmp_path / "labels.xml").write_text(xml)
    common = ["--epochs", "2", "--quiet"]
    cases = [(["train.svm", "--task", "classify", "--cost-matrix"], "costs.txt", costs),
             (["train.svm", "--task", "rank", "--group-file"], "sizes", "10\n10\n20\n"),
             (["train.arff", "--task", "multilabel", "--xml"], "labels.xml", xml)]
    for number, (args, side, text) in enumerate(cases):
        first = tmp_path / args[0]
        by_path = _program("fit", first, *args[1:], tmp_path / side, *common, "--model", tmp_path / f"a{number}")
        by_stdin = _program("fit", first, *args[1:], "-", *common, "--model", tmp_path / f"b{number}", stdin=text)
        assert by_path.returncode == 0 and by_stdin.returncode == 0, (args, by_path.stderr, by_stdin.stderr)
        assert (tmp_path / f"a{number}.npz").read_bytes() == (tmp_path / f"b{number}.npz").read_bytes()
    evaluated = _program("evaluate", tmp_path / "train.arff", "--xml", "-", "--model", tmp_path / "a2", stdin=xml)
    assert evaluated.returncode == 0 and evaluated.stdout.startswith("hamming loss: "), evaluated.stderr
    twice = _program("fit", "-", "--task", "classify", "--cost-matrix", "-", "--model", tmp_path / "c",
                     stdin=costs)
    assert twice.returncode == 2 and twice.stdout == ""  # (a usage error, refused before anything is read)
    assert twice.stderr == ("predtron fit: error: standard input can be read only once, but TRAIN and --cost-matrix "
                            "are both '-': give a file for all but one of them (see 'predtron fit --help')\n")
    assert not (tmp_path / "c.npz").exists()
    thrice = _program("evaluate", "-", "--model", tmp_path / "a2", "--xml", "-", "--group-file", "-", stdin=xml)
    assert thrice.returncode == 2 and thrice.stderr.startswith("predtron evaluate: error: standard input can be read "
                                                               "only once, but TEST and --group-file and --xml are "
                                                               "all '-'")
