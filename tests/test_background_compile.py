"""The background compile worker of predtron.engine.jit: kernels compiled off the caller's path.

Each test runs a fresh interpreter with an empty numba cache (``NUMBA_CACHE_DIR``), as a new
user's first session has.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np
import pytest

from predtron.engine import jit, run, scans

ROOT = Path(__file__).resolve().parents[1]


def _run(script: str, cache: Path, root: Path = ROOT, **extra) -> list[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(root), **extra}
    for name in ("PREDTRON_NO_JIT", "PREDTRON_JIT", "PREDTRON_JIT_BACKGROUND", "PREDTRON_JIT_PREFETCH"):
        if name not in extra:
            env.pop(name, None)
    out = subprocess.run([sys.executable, "-c", script], env=env, check=True, capture_output=True, text=True,
                         cwd=str(cache), timeout=600)
    return out.stdout.split()


FIRST_SESSION = """
import numpy as np
from predtron.engine import jit, scans
v = np.arange(5.0)
print(scans.running_sum.ready((0.0, v)))
print(scans.running_sum(0.0, v) == 10.0)          # the twin: nothing waits for the compiler
print(scans.running_sum.kernel.overloads == {})    # and nothing was compiled in this process
print(jit.wait_for_background(timeout=600))
print(scans.running_sum.ready((0.0, v)))           # the worker filled the disk cache
print(scans.running_sum(0.0, v) == 10.0)
print(len(scans.running_sum.kernel.overloads))     # loaded from the cache, not compiled here
process = jit._WORKER._process
jit._WORKER.close()
process.wait(timeout=60)
import threading, time
for _ in range(100):
    if not any(t.name == "predtron-jit-worker" for t in threading.enumerate()):
        break
    time.sleep(0.05)
print(process.returncode)
try:
    import os
    os.waitpid(process.pid, os.WNOHANG)
    print("zombie")
except ChildProcessError:
    print("reaped")
"""


def test_a_first_session_runs_the_twin_while_the_worker_fills_the_cache(tmp_path):
    out = _run(FIRST_SESSION, tmp_path)
    assert out == ["False", "True", "True", "True", "True", "True", "1", "0", "reaped"]
    second = _run("import numpy as np; from predtron.engine import scans; "
                  "print(scans.running_sum.ready((0.0, np.arange(3.0))))", tmp_path)
    assert second == ["True"]  # the next session finds it at once


IF_READY = """
import numpy as np
from predtron.engine import jit, scans
v = np.arange(5.0)
print(scans.running_sum.if_ready(0.0, v))          # not ready: None, and
print(jit._WORKER._process is None)                  # nothing asked of a worker,
print(scans.running_sum.kernel.overloads == {})      # nothing compiled here,
print(scans.running_sum.spent == 0)                  # no work counted
print(len(jit._WARMED))                              # numba's contexts not set up for nothing
scans.running_sum(0.0, v)                            # the twin runs; the worker is asked,
import os
print(os.getpid() in jit._WARMED)                    # and numba's contexts are set up meanwhile
print(jit.wait_for_background(timeout=600))
print(scans.running_sum.if_ready(0.0, v))          # the kernel now runs
"""


def test_if_ready_runs_the_kernel_only_once_it_is_ready_and_asks_nothing(tmp_path):
    """What a NumPy scan asks before handing the rest of its pass to the kernel."""
    assert _run(IF_READY, tmp_path) == ["None", "True", "True", "True", "0", "True", "True", "10.0"]
    never = tmp_path / "never"
    never.mkdir()
    assert _run("import numpy as np; from predtron.engine import scans; "
                "print(scans.running_sum.if_ready(0.0, np.arange(5.0)))", never, PREDTRON_JIT="never") == ["None"]


def test_without_the_worker_the_foreground_rule_holds(tmp_path):
    script = ("import numpy as np; from predtron.engine import jit, scans; v = np.arange(5.0); "
              "scans.running_sum(0.0, v); print(jit._WORKER._process is None); "
              "print(scans.running_sum.ready((0.0, v))); print(len(jit._WARMED))")
    assert _run(script, tmp_path, PREDTRON_JIT_BACKGROUND="0") == ["True", "False", "0"]
    assert _run(script, tmp_path, PREDTRON_JIT="never") == ["True", "False", "0"]


def test_a_fit_in_a_fresh_environment_equals_the_compiled_fit(tmp_path):
    """Whichever path each pass takes while the worker compiles, the model is the compiled one's."""
    script = """
import numpy as np
from predtron import Predtron
from predtron.engine import jit
from predtron.problems import Multiclass
rng = np.random.default_rng(0)
X = rng.standard_normal((300, 6)); y = np.argmax(X[:, :3] + 0.5 * rng.standard_normal((300, 3)), axis=1)
models = [Predtron(Multiclass(3), average=True).fit(X, y, epochs=3)]
jit.wait_for_background(timeout=600)
models.append(Predtron(Multiclass(3), average=True).fit(X, y, epochs=3))
print(int(np.array_equal(models[0]._params, models[1]._params)))
print(int(np.array_equal(models[0].loss_history_, models[1].loss_history_)))
print(len(jit._WORKER._ids) > 0)
np.save("w.npy", models[1]._params)
"""
    assert _run(script, tmp_path) == ["1", "1", "True"]
    always = tmp_path / "always"
    always.mkdir()
    assert _run(script, always, PREDTRON_JIT="always") == ["1", "1", "False"]  # compiled at once, no worker
    np.testing.assert_array_equal(np.load(tmp_path / "w.npy"), np.load(always / "w.npy"))


def test_a_read_only_package_compiles_in_the_background(tmp_path):
    """The worker writes only to numba's cache folder, never into the installed package."""
    package = tmp_path / "site"
    shutil.copytree(ROOT / "predtron", package / "predtron",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "files"))
    shutil.copytree(ROOT / "predtron" / "data" / "files", package / "predtron" / "data" / "files")
    for path in package.rglob("*"):
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    before = sorted(str(p) for p in package.rglob("*"))
    cache = tmp_path / "cache"
    cache.mkdir()
    try:
        out = _run(FIRST_SESSION.replace("from predtron", "import predtron; assert predtron.__file__.startswith("
                                         f"{str(package)!r}); from predtron"), cache, root=package,
                   PYTHONDONTWRITEBYTECODE="1")
        assert out[:7] == ["False", "True", "True", "True", "True", "True", "1"]
        assert sorted(str(p) for p in package.rglob("*")) == before
    finally:
        for path in package.rglob("*"):
            path.chmod(path.stat().st_mode | stat.S_IWUSR)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_asks_a_worker_of_its_own(tmp_path):
    """The parent's worker answers only the parent: a child would otherwise wait for nothing."""
    script = """
import os, numpy as np
from predtron.engine import jit, scans
v = np.arange(4.0)
scans.running_sum(0.0, v)
parent_worker = jit._WORKER
pid = os.fork()
if pid == 0:
    ok = jit._WORKER is not parent_worker and scans.running_sum(0.0, v) == 6.0
    ok = ok and jit.wait_for_background(600) and scans.running_sum.ready((0.0, v))
    os._exit(0 if ok else 1)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status), jit.wait_for_background(600))
"""
    assert _run(script, tmp_path) == ["0", "True"]


def test_signatures_survive_their_text_form():
    readonly = np.zeros(3)
    readonly.flags.writeable = False
    values = (np.zeros((3, 2)), np.zeros((3, 2), order="F"), readonly, 1.0, 3, True, np.int32(2),
              np.zeros(4, dtype=np.int32)[::2], np.zeros(0, dtype=np.int64))
    signature = tuple(numba.typeof(v) for v in values)
    assert jit.decode_signature(jit.encode_signature(signature)) == signature
    assert jit.encode_signature((numba.typeof((1, 2)),)) is None  # no text form: compiled in the foreground


def test_kernels_without_a_disk_cache_or_a_module_name_get_no_worker(monkeypatch):
    monkeypatch.setattr(jit, "POLICY", "auto")
    tiered = jit.Tiered(numba.njit(lambda x: x + 1.0), lambda x: x + 1.0, lambda x: 1, 10)
    assert tiered._importable_name() is None
    assert scans.running_sum._importable_name() == ("predtron.engine.scans", "_running_sum")


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="needs os.getpriority")
def test_the_worker_runs_below_the_process_it_serves(tmp_path):
    """On a machine with few cores the fit running the twins keeps its core; the compiler takes what is left."""
    script = """
import os, time, numpy as np
from predtron.engine import jit, scans, _compile_worker
scans.running_sum(0.0, np.arange(4.0))      # a kernel missing from the cache: the worker starts
pid = jit._WORKER._process.pid
mine = os.getpriority(os.PRIO_PROCESS, 0)
for _ in range(200):                         # until the worker has lowered its priority
    if os.getpriority(os.PRIO_PROCESS, pid) > mine:
        break
    time.sleep(0.05)
print(os.getpriority(os.PRIO_PROCESS, pid) - mine, _compile_worker.NICENESS)
jit.wait_for_background(timeout=600)
"""
    difference, niceness = _run(script, tmp_path)
    assert int(difference) == min(int(niceness), 19 - os.getpriority(os.PRIO_PROCESS, 0)) > 0


FORK_INTERRUPTED = """
import os, signal, threading, time
from numba.core.compiler_lock import global_compiler_lock
from predtron.engine import jit
def hold():  # another thread compiling (or setting up numba's contexts) holds the lock for a second
    with global_compiler_lock:
        time.sleep(1.0)
thread = threading.Thread(target=hold)
thread.start()
time.sleep(0.1)
def interrupt(*args):
    raise KeyboardInterrupt
signal.signal(signal.SIGALRM, interrupt)
signal.setitimer(signal.ITIMER_REAL, 0.3)  # Ctrl-C while the fork waits for the lock
pid = os.fork()
if pid == 0:
    os._exit(7)
_, status = os.waitpid(pid, 0)
thread.join()
print(os.waitstatus_to_exitcode(status), jit._ForkGuard.held(), global_compiler_lock._lock.acquire(blocking=False))
"""


def test_a_fork_interrupted_while_it_waits_for_the_compiler_lock_releases_nothing_it_did_not_take(tmp_path):
    """A fork waits for numba's compiler lock; an interrupt during the wait lets the fork go on
    without the lock, and nothing releases a lock this thread never took ('cannot release
    un-acquired lock')."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", FORK_INTERRUPTED], env=env, capture_output=True, text=True,
                         cwd=str(tmp_path), timeout=120, check=True)
    assert out.stdout.split() == ["7", "False", "True"], out.stdout
    assert "un-acquired" not in out.stderr, out.stderr


# ------------------------------------------------------------------------------ ahead of need
AHEAD = """
import json
from predtron.engine import jit
import predtron.learners  # the import asks for the pass kernels ahead of need
names = {job: key[1] for key, job in jit._WORKER._ids.items()}
print(json.dumps([[names[j], p] for j, p in sorted(jit._WORKER._priority.items())], separators=(",", ":")))
"""


def _asked_ahead(cache: Path, **extra) -> list:
    return json.loads(_run(AHEAD, cache, **extra)[0])


def test_importing_the_learners_in_a_fresh_environment_asks_for_every_pass_kernel_ahead_of_need(tmp_path):
    """In the order of run.PREFETCH_ORDER, speculative; not when a kernel is cached, nor when turned off."""
    signatures = json.loads(run.SIGNATURES_FILE.read_text())
    expected = [[name, jit.SPECULATIVE] for name, sigs in signatures.items() for _ in sigs]
    assert expected[0] == ["pass_multilabel", -1] and len(expected) >= 6
    assert _asked_ahead(tmp_path) == expected
    off = tmp_path / "off"
    off.mkdir()
    assert _asked_ahead(off, PREDTRON_JIT_PREFETCH="0") == []
    assert _asked_ahead(off, PREDTRON_JIT_BACKGROUND="0") == []
    assert _asked_ahead(off, PREDTRON_JIT="always") == []
    # A cache holding the binary pass (compiled by a process of its own): nothing asked for it.
    _run("import numpy as np; from predtron import Predtron; from predtron.problems import Binary; "
         "Predtron(Binary()).fit(np.eye(3), np.array([1, -1, 1]))", off, PREDTRON_JIT="always")
    assert _asked_ahead(off) == [item for item in expected if item[0] != "pass_binary"]



def test_a_fresh_environment_sets_numba_up_from_the_import_that_asks_ahead(tmp_path):
    """numba's contexts (needed to load what the worker compiles) are set up in a thread from the
    learners' import on, while a program reads its data, not during its first fit, where the set-up
    competed with the NumPy scan for the interpreter (the ranker's first fit on MQ2008: about 0.15 s
    of 0.45 s); nothing is set up when nothing was asked ahead of need."""
    script = ("import os; from predtron.engine import jit; import predtron.learners; "
              "print(os.getpid() in jit._WARMED)")
    assert _run(script, tmp_path) == ["True"]
    off = tmp_path / "off"
    off.mkdir()
    assert _run(script, off, PREDTRON_JIT_PREFETCH="0") == ["False"]
    assert _run(script, off, PREDTRON_JIT="never") == ["False"]


RAISED = """
import numpy as np
from predtron.engine import jit
from predtron.sklearn import PredtronClassifier
asked = dict(jit._WORKER._priority)               # the import's speculative requests
rng = np.random.default_rng(0)
X = rng.standard_normal((50, 3)); y = (X[:, 0] > 0).astype(int)
PredtronClassifier(random_state=0).fit(X, y)      # needs the binary pass, asked ahead already
binary = [job for key, job in jit._WORKER._ids.items() if key[1] == "pass_binary"]
print(all(job in asked for job in binary))        # the same request, not a new one,
raised = [job for job in binary if jit._WORKER._priority[job] > 0]
print(len(raised), jit._WORKER._priority[raised[0]])  # raised to the pass kernels' priority
print(jit.wait_for_background(timeout=600))       # waits for it, not for the speculative ones
answered = list(jit._WORKER._answers)
before = answered[:answered.index(raised[0])]
print(len([job for job in before if job in asked]) <= 1)  # before the others asked ahead (but the one under way)
print(len([job for job in answered if job in asked]) < len(asked))
"""


def test_a_call_raises_the_kernel_it_needs_above_those_asked_ahead(tmp_path):
    assert _run(RAISED, tmp_path) == ["True", "1", "1", "True", "True", "True"]


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie nobody reaps counts as ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_what_was_asked_ahead_of_need_is_dropped_when_the_process_ends(tmp_path):
    """A short process does not leave the worker compiling every pass kernel after it: the
    speculative compilation under way is abandoned and the others are dropped."""
    script = ("import time; from predtron.engine import jit; import predtron.learners; "
              "time.sleep(1.0); print(jit._WORKER._process.pid)")  # the first compilation is under way by then
    pid = int(_run(script, tmp_path)[0])
    for _ in range(1200):
        if _gone(pid):
            break
        time.sleep(0.05)
    assert _gone(pid)
    assert not list(tmp_path.rglob("*.nbi")), "a kernel asked ahead of need was compiled after the process ended"


def test_the_signatures_asked_ahead_are_those_the_package_s_fits_compile():
    """run.SIGNATURES_FILE against the pass kernels that ``predtron compile``'s workloads compile (or load)."""
    script = ("from predtron import cli_compile; from predtron.engine import run; cli_compile.build(); "
              "print(run.signatures_text(run.pass_signatures()), end='')")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PREDTRON_JIT_BACKGROUND": "0"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=str(ROOT),
                         timeout=900, check=True)
    assert out.stdout == run.SIGNATURES_FILE.read_text(), (
        "the pass kernels' signatures changed: write this output to predtron/engine/pass_signatures.json")


HELD = """
import fcntl
import numpy as np
from predtron.engine import _compile_worker, jit, vectors
folder = jit.cache_folder(vectors.pass_multilabel)
folder.mkdir(parents=True, exist_ok=True)
held = open(folder / _compile_worker.LOCK_NAME, "a")   # another worker of this cache holds the lock
fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
import predtron.learners                               # asks ahead of need all the same
from predtron.sklearn import PredtronClassifier
X = np.random.default_rng(0).standard_normal((40, 3))
PredtronClassifier(random_state=0).fit(X, (X[:, 0] > 0).astype(int))
print(jit.wait_for_background(timeout=600))            # a kernel a call needs is compiled,
print([j for j in jit._WORKER._answers if jit._WORKER._priority[j] < 0])  # nothing ahead of need
"""


@pytest.mark.skipif(sys.platform == "win32", reason="the lock of the one speculating worker needs fcntl")
def test_one_worker_per_cache_compiles_ahead_of_need(tmp_path):
    """Processes started together in one environment (a Dask cluster's workers) do not all compile
    the same kernels ahead of need: while another worker holds the cache folder's lock, a worker
    compiles only what a call needs (a speculative request raised by the call included)."""
    assert _run(HELD, tmp_path) == ["True", "[]"]
    from predtron.engine import _compile_worker, vectors

    request = {"module": "predtron.engine.vectors", "name": "pass_multilabel"}
    first, second = _compile_worker._Speculation(), _compile_worker._Speculation()
    try:
        assert first.allowed(request) and first.allowed(request)  # taken once, held
        assert not second.allowed(request)
        assert (jit.cache_folder(vectors.pass_multilabel) / _compile_worker.LOCK_NAME).exists()
        first.stop()  # its worker exits: the other takes the lock at its next try, RETRY seconds on
        assert not second.allowed(request)
        time.sleep(_compile_worker.RETRY)
        assert second.allowed(request)
    finally:
        first.stop()
        second.stop()


AHEAD_OF_READING = """
import sys
import predtron.cli_data as cli_data
from predtron import cli
from predtron.engine import jit
real = cli_data.read
def read(*args, **kwargs):
    print("ASKED", len(jit._WORKER._ids) > 0)   # when the command starts reading its data
    return real(*args, **kwargs)
cli_data.read = read
print("STATUS", cli.main(["fit", sys.argv[1], "--task", "multilabel", "--labels", "6", "--model", sys.argv[2],
                          "--quiet"]))
"""


def test_the_fit_command_asks_for_the_passes_before_it_reads_its_data(tmp_path):
    """In a fresh environment, ``predtron fit`` has the worker compile while the file is read."""
    data = ROOT / "predtron" / "data" / "files" / "mulan-emotions" / "emotions-train.arff.gz"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    for name in ("PREDTRON_NO_JIT", "PREDTRON_JIT", "PREDTRON_JIT_BACKGROUND", "PREDTRON_JIT_PREFETCH"):
        env.pop(name, None)
    out = subprocess.run([sys.executable, "-c", AHEAD_OF_READING, str(data), str(tmp_path / "m.npz")], env=env,
                         cwd=str(tmp_path), capture_output=True, text=True, timeout=600, check=True).stdout.split()
    assert out == ["ASKED", "True", "STATUS", "0"]


PREEMPTED = """
import sys, time
import numpy as np
from predtron.engine import jit, scans
import predtron.learners                          # the worker starts compiling the first pass kernel ahead
first = min(jit._WORKER._priority)               # (the multilabel pass, in a child of the worker)
time.sleep(1.0)                                  # well into that compilation
if sys.argv[1] == "pass":                        # a call needs another pass kernel now
    from predtron import Predtron
    from predtron.problems import Binary
    Predtron(Binary()).fit(np.eye(4), np.array([1, -1, 1, -1]))
    name = "pass_binary"
else:                                            # a call needs a small kernel now
    scans.running_sum(0.0, np.arange(4.0))
    name = "_running_sum"
print(jit.wait_for_background(timeout=600))
print(jit._WORKER.wait(first, timeout=600), jit._WORKER.answer(first))  # the one ahead is compiled all the same
answered = list(jit._WORKER._answers)
job = max(job for key, job in jit._WORKER._ids.items() if key[1] == name)
print(answered.index(job) < answered.index(first))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="speculative compilations run in forked children")
def test_a_pass_a_call_needs_does_not_wait_behind_one_compiled_ahead_of_need(tmp_path):
    """Another pass kernel stops the speculative child (whose kernel is compiled after it); a small
    kernel, whose twin costs little, waits for the child instead of throwing its work away."""
    env = {"PYTHONPATH": str(ROOT)}
    assert _run(PREEMPTED.replace("sys.argv[1]", "'pass'"), tmp_path, **env) == ["True", "True", "True", "True"]
    small = tmp_path / "small"
    small.mkdir()
    assert _run(PREEMPTED.replace("sys.argv[1]", "'small'"), small, **env) == ["True", "True", "True", "False"]


FORK_FAILS = """
import os, runpy, sys
def fork():
    sys.stdout.write("fork failed\\n")
    sys.stdout.flush()
    raise BlockingIOError(11, "Resource temporarily unavailable")
os.fork = fork
runpy.run_module("predtron.engine._compile_worker", run_name="__main__", alter_sys=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="the lock of the one speculating worker needs fcntl")
def test_a_worker_whose_fork_fails_still_compiles_what_calls_need(tmp_path):
    """A fork refused (no process to spare) ended the worker with its traceback: every request of the
    process was then answered as failed.  The worker compiles on, nothing more ahead of need, and a
    speculative request raised by a call is compiled."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    for name in ("PREDTRON_NO_JIT", "PREDTRON_JIT", "PREDTRON_JIT_BACKGROUND", "PREDTRON_JIT_PREFETCH"):
        env.pop(name, None)
    signature = jit.encode_signature((numba.float64, numba.float64[::1]))
    other = jit.encode_signature((numba.float64, numba.float64[:]))
    worker = subprocess.Popen([sys.executable, "-c", FORK_FAILS], env=env, cwd=str(tmp_path), text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        ahead = {"id": 0, "module": "predtron.engine.scans", "name": "_running_sum", "signature": signature,
                 "priority": jit.SPECULATIVE, "rank": 0}
        worker.stdin.write(json.dumps(ahead) + "\n")
        worker.stdin.flush()
        assert worker.stdout.readline() == "fork failed\n"  # the speculative compilation could not start
        needed = {"id": 1, "module": "predtron.engine.scans", "name": "_running_sum", "signature": other,
                  "priority": 0}
        worker.stdin.write(json.dumps(needed) + "\n" + json.dumps({"id": 0, "priority": 0}) + "\n")
        worker.stdin.close()
        out, err = worker.stdout.read(), worker.stderr.read()
        worker.wait(timeout=600)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert sorted(out.split("\n")[:-1]) == ["ok 0", "ok 1"], (out, err)
    assert worker.returncode == 0, err


@pytest.mark.parametrize("text", ["[]", "null", '{"pass_multilabel": 3}', '{"pass_binary": [3, [["none"]]]}',
                                  '{"pass_binary": "abc"}', "{", ""])
def test_a_damaged_signatures_file_asks_nothing_ahead_and_the_import_works(text, tmp_path, monkeypatch):
    """run.SIGNATURES_FILE holding JSON of another form ('[]', 'null', a number for a kernel) made
    prefetch_passes raise AttributeError or TypeError, which failed the import of the learners; it
    now asks nothing ahead of need, as without the file."""
    damaged = tmp_path / "pass_signatures.json"
    damaged.write_text(text)
    monkeypatch.setattr(run, "SIGNATURES_FILE", damaged)
    asked: list = []
    monkeypatch.setattr(jit.Tiered, "prefetch", lambda self, signatures: asked.extend(signatures) or len(signatures))
    assert run.prefetch_passes() == 0
    assert asked == []


FORKED_AND_ENDED = """
import os, sys
from predtron.engine import jit
import predtron.learners                         # a fresh environment: the worker compiles ahead of need
print(jit._WORKER._process.pid, flush=True)
if os.fork() == 0:                               # a child that outlives this process (a daemon, a pool's)
    sys.stdin.read()                             # until the test lets it go
    os._exit(0)
"""


@pytest.mark.skipif(not hasattr(os, "fork") or not Path("/proc/self/stat").exists(), reason="forks; reads /proc")
def test_a_forked_child_does_not_keep_the_parent_s_worker_compiling_ahead_of_need(tmp_path):
    """A forked child held the write end of the worker's input: when the parent ended, the worker
    did not see the end of its input and compiled every kernel asked ahead of need, then waited, for
    as long as the child lived.  The child lets go of the inherited pipes, and the worker ends with
    the process that started it."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    for name in ("PREDTRON_NO_JIT", "PREDTRON_JIT", "PREDTRON_JIT_BACKGROUND", "PREDTRON_JIT_PREFETCH"):
        env.pop(name, None)
    parent = subprocess.Popen([sys.executable, "-c", FORKED_AND_ENDED], env=env, cwd=str(tmp_path), text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        worker = int(parent.stdout.readline())
        assert parent.wait(timeout=600) == 0
        for _ in range(1200):
            if _gone(worker):
                break
            time.sleep(0.05)
        assert _gone(worker), "the worker outlived the process that started it while its forked child lived"
    finally:
        parent.stdin.close()  # the child ends
        if parent.poll() is None:
            parent.kill()
            parent.wait()


INTERRUPTED_START = """
import threading
import numpy as np
from predtron.engine import jit, scans
real = threading.Thread.start
def start(self):  # a Ctrl-C just as the worker's reader thread starts (an import interrupted in a notebook)
    if self.name == "predtron-jit-worker" and not getattr(start, "done", False):
        start.done = True
        raise KeyboardInterrupt
    return real(self)
threading.Thread.start = start
v = np.arange(4.0)
try:
    scans.running_sum(0.0, v)
except KeyboardInterrupt:
    print("interrupted")
print(scans.running_sum(0.0, v) == 6.0)          # the session goes on and asks again
readers = [t for t in threading.enumerate() if t.name == "predtron-jit-worker"]
print(len(readers))                               # someone reads the worker's answers
print(jit.wait_for_background(timeout=600) if readers else "unread")
"""


def test_a_worker_start_interrupted_before_its_answers_are_read_is_not_used(tmp_path):
    """An interrupt between the worker's start and its reader thread's left the worker in place with
    nobody reading its answers: every later request went to it, and wait_for_background (or a call
    that waits for its kernel) waited for ever.  The worker is then ended and reaped, and the next
    request starts one whose answers are read."""
    assert _run(INTERRUPTED_START, tmp_path) == ["interrupted", "True", "1", "True"]


INTERRUPTED_SEND = """
import numpy as np
from predtron.engine import jit, scans
real = jit._Worker._send
def send(self, message):  # a Ctrl-C just after a request reached the worker, before it was noted
    sent = real(self, message)
    if message.get("name") == "_finite_max_abs":
        jit._Worker._send = real
        raise KeyboardInterrupt
    return sent
jit._Worker._send = send
v = np.arange(4.0)
try:
    scans.finite_max_abs(v)
except KeyboardInterrupt:
    print("interrupted")
scans.running_sum(0.0, v)                         # another kernel, asked next
job = jit._WORKER._ids[next(key for key in jit._WORKER._ids if key[1] == "_running_sum")]
print(jit._WORKER.wait(job, timeout=600))
print(scans.running_sum.ready((0.0, v)))          # its answer is its own
"""


def test_a_request_interrupted_after_it_was_sent_does_not_lend_its_id_to_the_next(tmp_path):
    """The id of a request was the number of requests noted: one sent but interrupted before it was
    noted gave its id to the next request too, whose wait then ended with the other kernel's answer
    (not ready, compiled in the foreground).  Ids are now counted as sent."""
    assert _run(INTERRUPTED_SEND, tmp_path) == ["interrupted", "True", "True"]


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_file.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat_file.parent.name))
    return found


@pytest.mark.skipif(not hasattr(os, "fork") or not Path("/proc/self/stat").exists(), reason="forks; reads /proc")
def test_a_terminated_worker_ends_its_speculative_child(tmp_path):
    """SIGTERM ended the worker at once, and the child compiling ahead of need went on alone (a
    process nobody waits for, compiling a kernel nobody would ask for); the worker now ends it first."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    for name in ("PREDTRON_NO_JIT", "PREDTRON_JIT", "PREDTRON_JIT_PREFETCH"):
        env.pop(name, None)
    env["PREDTRON_JIT_BACKGROUND"] = "0"  # as the worker runs (its imports start no worker of their own)
    boot = "import runpy; runpy.run_module('predtron.engine._compile_worker', run_name='__main__', alter_sys=True)"
    worker = subprocess.Popen([sys.executable, "-c", boot], env=env, cwd=str(tmp_path), text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    child = []
    try:
        signatures = json.loads(run.SIGNATURES_FILE.read_text())["pass_multilabel"]
        for job, signature in enumerate(signatures):  # seconds of compilation each, ahead of need
            worker.stdin.write(json.dumps({"id": job, "module": "predtron.engine.vectors", "name": "pass_multilabel",
                                           "signature": signature, "priority": jit.SPECULATIVE, "rank": 1}) + "\n")
        worker.stdin.flush()
        for _ in range(1200):
            child = _children(worker.pid)
            if child:
                break
            time.sleep(0.05)
        assert child, "no speculative child started"
        worker.terminate()
        worker.wait(timeout=600)
        assert _gone(child[0]), "the speculative child outlived its worker"
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        for pid in child:
            if not _gone(pid):
                os.kill(pid, 9)


def _fresh_env(cache: Path, **extra: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT), **extra}
    for name in ("PREDTRON_NO_JIT", "PREDTRON_JIT", "PREDTRON_JIT_BACKGROUND", "PREDTRON_JIT_PREFETCH"):
        if name not in extra:
            env.pop(name, None)
    return env


@pytest.mark.parametrize("given", [True, False], ids=["NUMBA_CACHE_DIR", "beside the sources"])
def test_the_early_guess_of_the_cache_folder_is_numba_s(tmp_path, given):
    """``_launch.cache_folder_guess`` finds numba's cache folder for the engine's kernels by numba's
    rules without importing numba: the subfolder of ``NUMBA_CACHE_DIR`` when it is set, else the
    ``__pycache__`` folder beside the sources (a numba that changed its rules fails here, where a
    wrong guess would only make the worker start early for nothing, or not early)."""
    env = _fresh_env(tmp_path, PREDTRON_JIT_PREFETCH="0")
    if not given:
        env.pop("NUMBA_CACHE_DIR")
    code = ("from predtron.engine import _launch, jit, vectors\n"
            "print(_launch.cache_folder_guess() == jit.cache_folder(vectors.pass_multilabel))\n")
    result = subprocess.run([sys.executable, "-c", code], env=env, cwd=str(tmp_path), capture_output=True,
                            text=True, timeout=300, check=False)
    assert result.stdout.split() == ["True"], result.stderr[-2000:]


_STARTS = ("import subprocess, sys\nstarted = []\nreal = subprocess.Popen.__init__\n"
           "def init(self, *args, **kwargs):\n    started.append('numba' in sys.modules)\n"
           "    real(self, *args, **kwargs)\n"
           "subprocess.Popen.__init__ = init\n"
           "import predtron.learners\nfrom predtron.engine import _launch, jit\n"
           "print(started, jit._WORKER._process is not None, len(jit._WORKER._ids) > 0, _launch._early is None)\n")


def test_a_fresh_environment_starts_the_worker_before_numba_is_imported(tmp_path):
    """In a fresh environment the worker process starts before this process imports numba (its
    interpreter and numba then start on another core while this one imports the rest), and the pass
    kernels asked for ahead of need go to that same worker: one process started, adopted."""
    out = _run(_STARTS, tmp_path)
    assert out == ["[False]", "True", "True", "True"]


def test_a_cache_that_holds_kernels_starts_no_worker_early(tmp_path):
    """Where numba's cache folder for the engine holds an index file, the environment is not judged
    fresh: no worker starts before numba's import (the requests, made only for kernels missing from
    the cache, start it when they come, after numba's import)."""
    code = "from predtron.engine import _launch\nprint(_launch.cache_folder_guess())\n"
    folder = Path(_run(code, tmp_path, PREDTRON_JIT_PREFETCH="0")[0])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scans._finite_max_abs-1.py311.nbi").write_bytes(b"")
    out = _run(_STARTS, tmp_path)
    assert out == ["[True]", "True", "True", "True"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks")
def test_a_forked_child_does_not_adopt_the_worker_started_early(tmp_path):
    """A child forked after the early start neither adopts its parent's worker (whose answers reach
    the parent only) nor is its early worker: the parent adopts it."""
    code = ("import os\nfrom predtron.engine import _launch\nassert _launch._early is not None\n"
            "pid = os.fork()\n"
            "if pid == 0:\n    os._exit(0 if _launch.take_early() is None else 1)\n"
            "_, status = os.waitpid(pid, 0)\n"
            "print(os.waitstatus_to_exitcode(status), _launch.take_early() is not None)\n")
    assert _run(code, tmp_path) == ["0", "True"]


def test_the_worker_compiles_the_reader_kernels(tmp_path):
    """The worker starts without SciPy, and compiled the svmlight reader's kernel
    (``predtron.data._svmlight_kernel``) through ``predtron.data``'s ``__init__``, which imports
    SciPy: every such request failed (answered ``failed``), so a fresh environment's reads ran the
    Python reader until the foreground rule compiled the kernel in the reading process."""
    (tmp_path / "a.svm").write_text("".join(f"{i % 2} 1:{i}.5 3:2\n" for i in range(50)))
    code = ("from predtron.data import load_svmlight\nfrom predtron.data import _svmlight_kernel as kernel\n"
            "from predtron.engine import jit\nload_svmlight('a.svm')\n"
            "print(len(kernel.parse_block._jobs), jit.wait_for_background(timeout=300))\n"
            "print(sorted(set(jit._WORKER._answers.values())))\n")
    assert _run(code, tmp_path, PREDTRON_JIT_PREFETCH="0") == ["1", "True", "[True]"]


def test_a_package_imported_through_a_symbolic_link_reads_what_its_worker_compiled(tmp_path):
    """The worker imported the package by its resolved path, and numba names a ``NUMBA_CACHE_DIR``
    subfolder after the sources' path as imported: with the package reached through a symbolic link,
    the worker filled a folder the process never read (its kernels never became ready, and every
    process found the cache fresh again: an early worker and every pass kernel asked ahead each time)."""
    link = tmp_path / "link"
    link.symlink_to(ROOT, target_is_directory=True)
    code = ("import numpy as np\nfrom predtron.engine import jit, scans\nv = np.arange(5.0)\n"
            "print(scans.running_sum(0.0, v) == 10.0, jit.wait_for_background(timeout=600))\n"
            "print(scans.running_sum.ready((0.0, v)))\n")
    cache = tmp_path / "cache"
    cache.mkdir()
    assert _run(code, cache, root=link, PREDTRON_JIT_PREFETCH="0") == ["True", "True", "True"]
    assert len(list(cache.iterdir())) == 1


_EARLY_LEFT = ("from pathlib import Path\nfrom predtron.engine import _launch, run\nearly = _launch._early\n"
               "run.SIGNATURES_FILE = Path('missing.json')  # an installation that asks nothing ahead of need\n"
               "import predtron.learners\nfrom predtron.engine import jit\n"
               "print(early is not None, _launch._early is None, early is None or early[1].poll() is not None)\n")


@pytest.mark.parametrize("disabled", [False, True], ids=["nothing asked ahead", "NUMBA_DISABLE_JIT"])
def test_a_worker_started_early_that_nothing_adopts_does_not_outlive_the_import(tmp_path, disabled):
    """The worker started early (the cache judged fresh) was adopted only by the requests made ahead of
    need: where the learners' import asked nothing (a damaged installation's signatures file, a cache
    folder guessed wrong), or numba compiles nothing (``NUMBA_DISABLE_JIT=1``: no disk cache, never a
    request), it sat idle, numba loaded, as long as the process lived.  It is now ended when the import
    of the learners asks nothing ahead, and not started when numba's JIT is disabled."""
    extra = {"NUMBA_DISABLE_JIT": "1"} if disabled else {}
    assert _run(_EARLY_LEFT, tmp_path, **extra) == ["False" if disabled else "True", "True", "True"]
