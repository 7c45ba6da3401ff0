"""The progress bar of an in-memory fit, the one compiled-path switch and the lazy import of tqdm.

The bar is read from what it wrote to stderr (its last render), as a user sees it; the switch and
the imports from fresh interpreters, with the environment a user would set.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from predtron.learners import Predtron
from predtron.problems import Multiclass, SubsetRanking
from predtron.sklearn import PredtronClassifier, PredtronRanker

ROOT = Path(__file__).resolve().parents[1]


def _last_render(err: str) -> str:
    """The bar's final state: the last line tqdm drew on stderr."""
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip()]
    assert lines, "no progress bar was drawn"
    return lines[-1]


def _separable(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] > 0).astype(int)


def _ranking(queries=10, per_query=5, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(queries * per_query, 4))
    rel = np.digitize(X @ np.array([1.0, 0.5, 0.0, -0.5]), [0.0, 1.0])
    return X, rel, np.repeat(np.arange(queries), per_query)


# ------------------------------------------------------------------ the bar ends at 100%
def test_estimator_bar_ends_complete_when_early_stopping_ends_the_fit(capsys):
    X, y = _separable()
    model = PredtronClassifier(epochs=50, tol=10.0, n_iter_no_change=1, verbose=True, random_state=0).fit(X, y)
    assert model.n_iter_ < 50  # the fit stopped early: the test means something
    last = _last_render(capsys.readouterr().err)
    done = model.n_iter_ * len(X)
    assert "100%" in last and f"{done}/{done}" in last and "ex" in last, last


def test_learner_bar_ends_complete_when_a_callback_ends_the_fit(capsys):
    X, y = _separable()
    learner = Predtron(Multiclass(2)).fit(X, y, epochs=20, verbose=True, callback=lambda _, epoch: epoch == 3)
    assert learner.n_epochs_ == 3
    last = _last_render(capsys.readouterr().err)
    assert "100%" in last and f"{3 * len(X)}/{3 * len(X)}" in last, last


def test_a_fit_of_all_its_epochs_is_unchanged(capsys):
    X, y = _separable()
    Predtron(Multiclass(2)).fit(X, y, epochs=2, verbose=True)
    last = _last_render(capsys.readouterr().err)
    assert "100%" in last and f"{2 * len(X)}/{2 * len(X)}" in last, last


def test_ranking_bars_count_queries(capsys):
    X, rel, qid = _ranking()
    model = PredtronRanker(epochs=40, tol=10.0, n_iter_no_change=1, verbose=True, random_state=0).fit(X, rel, qid=qid)
    assert model.n_iter_ < 40
    last = _last_render(capsys.readouterr().err)
    done = model.n_iter_ * 10
    assert "100%" in last and f"{done}/{done}" in last and "query" in last and "ex/" not in last, last
    Predtron(SubsetRanking(f="linear")).fit(X, rel, qid=qid, epochs=2, verbose=True)
    last = _last_render(capsys.readouterr().err)
    assert "20/20" in last and "query" in last, last


def test_no_bar_without_verbose(capsys):
    X, y = _separable()
    PredtronClassifier(epochs=3).fit(X, y)
    Predtron(Multiclass(2)).fit(X, y, epochs=2)
    assert capsys.readouterr().err == ""


def test_an_interrupted_fit_leaves_the_bar_where_it_stopped(capsys):
    X, y = _separable()

    def interrupt(_, epoch):
        if epoch == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Predtron(Multiclass(2)).fit(X, y, epochs=4, verbose=True, callback=interrupt)
    last = _last_render(capsys.readouterr().err)
    assert f"{2 * len(X)}/{4 * len(X)}" in last and "100%" not in last, last


# ------------------------------------------------------------------ one reader of PREDTRON_NO_JIT
def _fresh(code: str, **env_changes) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PREDTRON_NO_JIT", "PREDTRON_JIT")}
    env.update(env_changes, PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                            check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize(("env", "expected"), [({}, "True auto"), ({"PREDTRON_NO_JIT": "1"}, "False never"),
                                               ({"PREDTRON_JIT": "never"}, "False never"),
                                               ({"PREDTRON_JIT": "always"}, "True always")])
def test_the_learners_follow_the_engines_policy(env, expected):
    code = ("from predtron.learners import base; from predtron.engine import jit; "
            "print(base.USE_COMPILED and jit.AVAILABLE, jit.POLICY)")
    assert _fresh(code, **env) == expected


def test_the_jit_variables_are_read_in_one_module():
    """``PREDTRON_NO_JIT`` and ``PREDTRON_JIT`` appear as code (not prose) only where the engine's
    settings are read (``engine/_launch.py``, which the worker's early start needs before numba's import;
    ``engine/jit.py`` takes them from there)."""
    readers = set()
    for path in (ROOT / "predtron").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and any(isinstance(a, ast.Constant) and a.value in ("PREDTRON_NO_JIT",
                                                                                            "PREDTRON_JIT")
                                                  for a in node.args):
                readers.add(path.relative_to(ROOT).as_posix())
    assert readers == {"predtron/engine/_launch.py"}


# ------------------------------------------------------------------ tqdm only when a bar is shown
def test_tqdm_is_imported_only_when_a_bar_is_shown():
    code = ("import sys; import predtron.learners.base, predtron.sklearn, predtron.cli; "
            "print('tqdm' in sys.modules)")
    assert _fresh(code) == "False"
    code = ("import sys, numpy as np; from predtron.sklearn import PredtronClassifier; "
            "X = np.eye(4); PredtronClassifier(epochs=1).fit(X, [0, 1, 0, 1]); a = 'tqdm' in sys.modules; "
            "PredtronClassifier(epochs=1, verbose=True).fit(X, [0, 1, 0, 1]); print(a, 'tqdm' in sys.modules)")
    assert _fresh(code) == "False True"


def test_predict_on_the_command_line_does_not_import_tqdm(tmp_path):
    X, y = _separable(20)
    data = tmp_path / "d.svm"
    data.write_text("".join(f"{label} " + " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(row)) + "\n"
                            for row, label in zip(X.tolist(), y.tolist(), strict=True)))
    model = tmp_path / "m.npz"
    fit = ("import sys; from predtron.cli import main; "
           f"sys.exit(main(['fit', {str(data)!r}, '--task', 'classify', '--model', {str(model)!r}, '--quiet']))")
    _fresh(fit)
    predict = ("import sys; from predtron.cli import main; "
               f"status = main(['predict', {str(data)!r}, '--model', {str(model)!r}, '--output', "
               f"{str(tmp_path / 'p.txt')!r}]); print(status, 'tqdm' in sys.modules)")
    assert _fresh(predict) == "0 False"


def test_command_line_in_memory_bar_ends_complete_when_early_stopping_ends_the_fit(tmp_path, capsys):
    from predtron.cli import main

    X, y = _separable(200, seed=3)
    data = tmp_path / "d.svm"
    data.write_text("".join(f"{label} " + " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(row)) + "\n"
                            for row, label in zip(X.tolist(), y.tolist(), strict=True)))
    status = main(["fit", str(data), "--task", "classify", "--model", str(tmp_path / "m.npz"), "--epochs", "50",
                   "--tol", "10", "--n-iter-no-change", "1", "--progress"])
    out, err = capsys.readouterr()
    assert status == 0 and "(of at most 50)" in out, out
    last = _last_render(err)
    assert "100%" in last and "ex" in last, last
