"""``predtron compile``: every kernel built into numba's cache, as whole processes with their own cache folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _env(cache: Path | str, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PREDTRON_JIT", "PREDTRON_NO_JIT")}
    env.update(NUMBA_CACHE_DIR=str(cache), PREDTRON_JIT_BACKGROUND="0", **extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


def _compile(cache: Path | str, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "predtron", "compile", *flags], env=_env(cache), cwd=ROOT,
                          capture_output=True, text=True, timeout=900, check=False)


#: The benchmark's workloads (benchmarks/cold_start.py) and a streamed read, in a later process with the
#: compile policy's default rule and no worker; then what the process compiled and what it loaded.
LATER = """
import numpy as np
from predtron.cli_compile import kernel_report
from predtron.data import load_bibtex, load_mq2008
from predtron.data.stream import iter_svmlight
from predtron.sklearn import PredtronMultilabelClassifier, PredtronRanker
data = load_mq2008("train")
PredtronRanker().fit(data.X, data.y, group=data.group).predict(data.X)
data = load_bibtex("train")
PredtronMultilabelClassifier().fit(data.X, data.Y).predict(data.X)
PredtronMultilabelClassifier(loss="f1", epochs=2).fit(data.X[:300], data.Y[:300])  # the F-beta pass, a kernel apart
with open("tiny.svm", "w") as out:
    out.write("".join(f"{i % 2} 1:{i}.5 3:2\\n" for i in range(30)))
rows = sum(chunk.X.shape[0] for chunk in iter_svmlight("tiny.svm", chunk_rows=8))
report = kernel_report()
print("COMPILED", " ".join(report.compiled) or "-")
print("LOADED", " ".join(report.loaded))
print("ROWS", rows)
"""


def test_compile_builds_the_kernels_a_later_process_loads_without_compiling(tmp_path):
    cache = tmp_path / "numba-cache"
    first = _compile(cache)
    assert first.returncode == 0, first.stderr[-2000:]
    from predtron.cli_compile import STEPS

    assert f"{len(STEPS)}/{len(STEPS)} done" in first.stderr  # the progress bar reached its end
    assert "kernel signatures compiled" in first.stdout and not first.stdout.startswith("0 ")
    assert any(cache.iterdir())

    later = subprocess.run([sys.executable, "-c", LATER], env=_env(cache), cwd=tmp_path, capture_output=True,
                           text=True, timeout=900, check=False)
    assert later.returncode == 0, later.stderr[-2000:]
    lines = dict(line.split(" ", 1) for line in later.stdout.splitlines())
    assert lines["COMPILED"] == "-"  # numba's dispatcher statistics: no cache miss in the later process
    loaded = lines["LOADED"].split()
    for kernel in ("predtron.engine.ranking.pass_documents", "predtron.engine.vectors.pass_multilabel",
                   "predtron.engine.vectors.pass_fbeta",
                   "predtron.data._svmlight_kernel._parse_block"):
        assert kernel in loaded, loaded
    assert lines["ROWS"] == "30"

    again = _compile(cache)  # idempotent: nothing left to compile
    assert again.returncode == 0, again.stderr[-2000:]
    assert again.stdout.startswith("0 kernel signatures compiled"), again.stdout


def test_an_unwritable_cache_folder_is_one_line(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = _compile(blocker / "cache")  # writable by nobody, root included
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("predtron compile: error: cannot write numba's cache folder NUMBA_CACHE_DIR=")
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes a read-only folder")
def test_a_read_only_cache_folder_is_one_line(tmp_path):
    cache = tmp_path / "read-only"
    cache.mkdir()
    cache.chmod(0o555)
    try:
        result = _compile(cache)
    finally:
        cache.chmod(0o755)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "cannot write numba's cache folder" in result.stderr, result.stderr


def test_ctrl_c_during_the_build_exits_130_with_one_line(tmp_path):
    cache = tmp_path / "numba-cache"
    process = subprocess.Popen([sys.executable, "-m", "predtron", "compile"], env=_env(cache), cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = process.stderr.readline()  # the progress line of the first step: compiling now
    assert first.startswith("compiling kernels"), first
    process.send_signal(signal.SIGINT)
    out, rest = process.communicate(timeout=120)
    assert out == ""
    assert process.returncode == 130, rest[-2000:]
    assert rest.endswith("predtron compile: interrupted\n"), rest[-2000:]
    assert "Traceback" not in rest
    assert all(line.startswith("compiling kernels") for line in rest.splitlines()[:-1]), rest
    left = [path for path in cache.rglob("*") if ".tmp" in path.name]
    assert not left  # no temporary of numba's cache writer


def test_the_command_costs_the_other_commands_no_import():
    """``predtron --version`` and ``--help`` list ``compile`` without importing NumPy for it."""
    code = ("import atexit, runpy, sys\nsys.argv = ['predtron', *sys.argv[1:]]\n"
            "atexit.register(lambda: print('NUMPY', 'numpy' in sys.modules))\n"
            "runpy.run_module('predtron', run_name='__main__')\n")
    for flag in ("--version", "--help"):
        result = subprocess.run([sys.executable, "-c", code, flag], env=_env(ROOT), cwd=ROOT, capture_output=True,
                                text=True, timeout=300, check=False)
        assert result.returncode == 0, result.stderr[-2000:]
        assert result.stdout.splitlines()[-1] == "NUMPY False", (flag, result.stdout[-500:])


def test_compile_writes_the_package_bytecode(tmp_path):
    """The last step compiles the package's modules beside their sources (a later command reads ``.pyc``
    files even where the interpreter writes none, ``PYTHONDONTWRITEBYTECODE``)."""
    import importlib.util

    from predtron import cli_compile

    source = ROOT / "predtron" / "tasks.py"
    cached = Path(importlib.util.cache_from_source(str(source)))
    cached.unlink(missing_ok=True)
    step = next(step for step in cli_compile.STEPS if step.run is cli_compile._bytecode)
    step.run(tmp_path)
    assert cached.is_file()
    assert cli_compile.STEPS[-1] is step  # after the kernels (their workloads import the modules first)


def test_the_command_asks_no_worker_for_kernels_ahead_of_need(tmp_path):
    """In a fresh cache, importing the learners asks the background worker for the pass kernels
    (``predtron.engine.run.prefetch_passes``); ``predtron compile`` compiles them itself, so its own
    imports ask nothing (a worker would compile the same kernels beside it on a core it uses)."""
    code = ("import argparse\nfrom predtron import cli_compile\nfrom predtron.engine import jit\n"
            "cli_compile.build = lambda progress=None: cli_compile.kernel_report()  # the imports only\n"
            "cli_compile.run_compile(argparse.Namespace(quiet=True))\nimport predtron.learners\n"
            "from predtron.engine import _launch\n"
            "print('WORKER', jit._WORKER._process is not None or _launch._early is not None)\n")
    env = {k: v for k, v in _env(tmp_path).items() if not k.startswith("PREDTRON_JIT")}
    result = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.splitlines()[-1] == "WORKER False"
