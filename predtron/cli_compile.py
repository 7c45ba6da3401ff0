"""``predtron compile``: build every engine and parser kernel into numba's disk cache, once per machine.

A kernel missing from numba's disk cache is compiled off the caller's path (the background
worker of :mod:`predtron.engine.jit`), but on a 2-core machine that worker competes with the fit
for the processor, and a large first fit still waits for it.  This command pays the whole
compilation once, at set-up (the README's set-up command and ``.ci/setup`` run it after
installing), so that every later process, fits and readers alike, loads the kernels from the
cache in milliseconds.

It runs the package's own paths on tiny generated data with the compile policy set to
``"always"`` (:data:`predtron.engine.jit.POLICY`): every estimator of the command line (dense and
sparse inputs, every kind of pass), their predictions, and the streaming readers (svmlight,
LETOR, the label scan).  Each kernel is therefore compiled for exactly the argument types the
package's fits hand it, in the order fits need them (the ranker's and the multilabel passes
first).  A kernel already in the cache is loaded, not compiled, so the command is idempotent and
quick once the cache is built.  :func:`kernel_report` tells what a process compiled and what it
loaded from the cache (numba's own dispatcher statistics).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

__all__ = ["STEPS", "CacheError", "add_compile_command", "build", "cache_folders", "check_cache_folders",
           "kernel_report", "run_compile"]

_DESCRIPTION = """\
Compile every engine and parser kernel of predtron into numba's disk cache for this machine.

Without it, the first processes after an install run exact NumPy twins of the kernels while a
background worker compiles them (several seconds each, on a core the fit would use). Run it once
after installing or upgrading (the README's set-up does): later processes load every kernel from
the cache in milliseconds. Running it again when the cache is built only checks it (seconds).

The cache is numba's: the folder NUMBA_CACHE_DIR names when it is set, else the __pycache__
folders beside the package's sources (or numba's per-user folder when those are read-only). It is
tied to this machine's processor and to the versions of numba and predtron: compile again after
upgrading either."""

_EXAMPLES = """\
examples:
  predtron compile                       # build the cache (a progress bar over the steps)
  predtron compile --quiet               # the same, silently (a set-up script)
  NUMBA_CACHE_DIR=~/.cache/predtron predtron compile"""


class CacheError(OSError):
    """numba's cache folder cannot be written."""


class Step(NamedTuple):
    """One step of the build: a label for the progress line and the workload that needs the kernels."""

    label: str
    run: Callable[[Path], None]


# ------------------------------------------------------------------ the workloads
def _rng():
    import numpy as np

    return np.random.default_rng(0)


def _sparse(X):
    import scipy.sparse as sp

    return sp.csr_matrix(X)


def _rank(folder: Path) -> None:
    from predtron.sklearn import PredtronRanker

    rng = _rng()
    X = rng.normal(size=(60, 5))
    y = rng.integers(0, 3, size=60)
    group = [10] * 6
    for data in (X, _sparse(X)):
        model = PredtronRanker(epochs=2, random_state=0).fit(data, y, group=group)
        model.predict(data)


def _multilabel(folder: Path) -> None:
    from predtron.sklearn import PredtronMultilabelClassifier

    rng = _rng()
    X = rng.normal(size=(40, 6))
    Y = (rng.random((40, 4)) < 0.4).astype(int)
    Y[0] = 1
    for data in (_sparse(X), X):
        for loss in ("hamming", "subset", "f1"):
            PredtronMultilabelClassifier(loss=loss, epochs=2, random_state=0).fit(data, Y).predict(data)


def _classify(folder: Path) -> None:
    import numpy as np

    from predtron.sklearn import PredtronClassifier

    rng = _rng()
    X = rng.normal(size=(40, 5))
    for n_classes in (2, 3):
        y = np.arange(40) % n_classes
        for data in (X, _sparse(X)):
            PredtronClassifier(epochs=2, random_state=0).fit(data, y).predict(data)
    costs = 1.0 - np.eye(3)
    costs[0, 2] = 2.0
    PredtronClassifier(cost_matrix=costs, epochs=2, random_state=0).fit(X, np.arange(40) % 3).predict(X)
    PredtronClassifier(reject_cost=0.3, epochs=2, random_state=0).fit(X, np.arange(40) % 2).predict(X)


def _ordinal(folder: Path) -> None:
    import numpy as np

    from predtron.sklearn import PredtronOrdinalClassifier

    rng = _rng()
    X = rng.normal(size=(40, 5))
    y = np.arange(40) % 4
    for data in (X, _sparse(X)):
        PredtronOrdinalClassifier(epochs=2, random_state=0).fit(data, y).predict(data)


def _readers(folder: Path) -> None:
    from predtron.data.stream import iter_letor, iter_svmlight, scan_labels

    rng = _rng()
    lines = []
    for row in range(50):
        features = " ".join(f"{j + 1}:{value:.3f}" for j, value in enumerate(rng.normal(size=4)))
        lines.append(f"{row % 3} qid:{row // 10 + 1} {features}\n")
    path = folder / "tiny.svm"
    path.write_text("".join(lines))
    for sparse in (True, False):
        for _ in iter_svmlight(path, chunk_rows=16, sparse=sparse):
            pass
        for _ in iter_letor(path, chunk_rows=16, sparse=sparse):
            pass
    scan_labels(path)


def _bytecode(folder: Path) -> None:
    """The package's modules compiled to bytecode beside their sources, so that a command starts from
    ``.pyc`` files even where the interpreter writes none (``PYTHONDONTWRITEBYTECODE``); a read-only
    install (whose installer wrote them) is left as it is."""
    import compileall

    compileall.compile_dir(str(Path(__file__).resolve().parent), quiet=2)  # this module's package


#: The build, in the order fits need the kernels (the ranker's and the multilabel passes first), then the
#: package's bytecode.
STEPS: tuple[Step, ...] = (
    Step("ranking passes and oracles", _rank),
    Step("multilabel passes and oracles", _multilabel),
    Step("classification passes", _classify),
    Step("ordinal passes", _ordinal),
    Step("svmlight and LETOR readers", _readers),
    Step("the package's bytecode", _bytecode),
)


# ------------------------------------------------------------------ introspection
def _dispatchers() -> dict[str, object]:
    """Every numba dispatcher defined by a module of the package imported in this process, by ``module.name``.

    The engine's kernels (imported here) and any other module's (the readers' parser kernels, once
    a step or a fit has imported them).
    """
    from numba.core.registry import CPUDispatcher

    from predtron.engine.jit import Tiered  # and with it the engine's kernels at least

    found: dict[str, object] = {}
    for module_name, module in sorted(sys.modules.items()):
        if module is None or not (module_name == "predtron" or module_name.startswith("predtron.")):
            continue
        for value in list(vars(module).values()):
            kernel = value.kernel if isinstance(value, Tiered) else value
            if isinstance(kernel, CPUDispatcher) and kernel.py_func.__module__ == module_name:
                found.setdefault(f"{module_name}.{kernel.py_func.__name__}", kernel)
    return found


class KernelReport(NamedTuple):
    """What this process did with the package's kernels (numba's dispatcher statistics)."""

    #: ``module.name`` of the kernels compiled in this process (not found in the disk cache).
    compiled: tuple[str, ...]
    #: ``module.name`` of the kernels loaded from the disk cache.
    loaded: tuple[str, ...]
    #: Signatures compiled, signatures loaded.
    n_compiled: int
    n_loaded: int


def kernel_report() -> KernelReport:
    """Which of the package's kernels this process compiled and which it loaded from numba's cache."""
    compiled, loaded, n_compiled, n_loaded = [], [], 0, 0
    for name, kernel in sorted(_dispatchers().items()):
        misses = sum(kernel.stats.cache_misses.values())
        hits = sum(kernel.stats.cache_hits.values())
        if misses:
            compiled.append(name)
        if hits:
            loaded.append(name)
        n_compiled += misses
        n_loaded += hits
    return KernelReport(tuple(compiled), tuple(loaded), n_compiled, n_loaded)


def cache_folders() -> list[Path]:
    """The folders numba's disk cache uses for the package's kernels (one per source folder)."""
    from predtron.engine.jit import cache_folder

    folders = {cache_folder(kernel) for kernel in _dispatchers().values()}
    return sorted(folder for folder in folders if folder is not None)


def _writable(folder: Path) -> str | None:
    """``None`` when a file can be written in ``folder`` (made if missing), else why not."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        descriptor, name = tempfile.mkstemp(prefix=".predtron-compile-probe.", dir=folder)
        os.close(descriptor)
        os.unlink(name)
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return None


def check_cache_folders() -> list[Path]:
    """The cache folders, after checking that numba can write them.

    Raises
    ------
    CacheError
        When ``NUMBA_CACHE_DIR`` is set but cannot be written (numba then silently uses another
        folder, or none), or a cache folder cannot be written.
    """
    wanted = os.environ.get("NUMBA_CACHE_DIR")
    if wanted:
        reason = _writable(Path(wanted))
        if reason is not None:
            raise CacheError(f"cannot write numba's cache folder NUMBA_CACHE_DIR={wanted} ({reason}): "
                             "make it writable or set NUMBA_CACHE_DIR to a writable folder")
    folders = cache_folders()
    if not folders:
        raise CacheError("numba has no cache folder it can write for predtron's kernels: "
                         "set NUMBA_CACHE_DIR to a writable folder")
    for folder in folders:
        reason = _writable(folder)
        if reason is not None:
            raise CacheError(f"cannot write numba's cache folder {folder} ({reason}): "
                             "set NUMBA_CACHE_DIR to a writable folder")
        if wanted and not folder.resolve().is_relative_to(Path(wanted).resolve()):
            raise CacheError(f"numba does not use NUMBA_CACHE_DIR={wanted} (it would write {folder}): "
                             "set NUMBA_CACHE_DIR to a writable folder")
    return folders


# ------------------------------------------------------------------ the build
@contextlib.contextmanager
def _always_compile() -> Iterator[None]:
    """The engine's compile policy set to ``"always"`` (and no background worker) for a block."""
    from predtron.engine import jit

    jit.discard_early_worker()  # started by the engine's import in a fresh environment: not needed here
    saved = jit.POLICY, jit.BACKGROUND
    jit.POLICY, jit.BACKGROUND = "always", False
    try:
        yield
    finally:
        jit.POLICY, jit.BACKGROUND = saved


def build(progress: Callable[[int, int, str], None] | None = None) -> KernelReport:
    """Compile (or load) every kernel the package's fits, predictions and readers use.

    Parameters
    ----------
    progress : callable, optional
        ``progress(done, total, label)`` before each step (``done`` steps finished) and once at
        the end (``done == total``).

    Returns
    -------
    KernelReport
        What this process compiled and loaded (cumulative for the process).
    """
    import warnings

    with _always_compile(), tempfile.TemporaryDirectory(prefix="predtron-compile-") as folder, \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tiny fits' convergence warnings say nothing here
        for done, step in enumerate(STEPS):
            if progress is not None:
                progress(done, len(STEPS), step.label)
            step.run(Path(folder))
    if progress is not None:
        progress(len(STEPS), len(STEPS), "done")
    return kernel_report()


class _ProgressLine:
    """A progress bar on one terminal line (a line per step when stderr is not a terminal)."""

    WIDTH = 24

    def __init__(self, stream) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.start = time.perf_counter()

    def __call__(self, done: int, total: int, label: str) -> None:
        filled = self.WIDTH * done // total
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        seconds = time.perf_counter() - self.start
        text = f"compiling kernels [{bar}] {done}/{total} {label} ({seconds:.0f} s)"
        if self.tty:
            self.stream.write("\r" + text.ljust(79) + ("\n" if done == total else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


# ------------------------------------------------------------------ the command
def add_compile_command(commands, full: bool) -> argparse.ArgumentParser:
    """Add ``compile`` to the ``predtron`` program's subcommands (its options when ``full``)."""
    parser = commands.add_parser("compile", help="build every kernel into numba's cache (once, after installing)",
                                 description=_DESCRIPTION, epilog=_EXAMPLES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.set_defaults(run=run_compile)
    if full:
        parser.add_argument("--quiet", action="store_true", help="no progress line, no summary")
    return parser


def run_compile(args: argparse.Namespace) -> int:
    """Run ``predtron compile`` (0 once every kernel is in the cache)."""
    with _always_compile():  # this process compiles every kernel itself: nothing asked of a worker ahead of need
        import predtron.data.stream  # noqa: F401  (the readers' kernels: their cache folder is checked too)

    folders = check_cache_folders()
    watch = getattr(args, "watch", None)  # the command line's Ctrl-C removes numba's temporaries there
    for folder in folders if watch is not None else ():
        watch(folder, folder=True)
    where = ", ".join(str(folder) for folder in folders)
    start = time.perf_counter()
    report = build(None if args.quiet else _ProgressLine(sys.stderr))
    if not args.quiet:
        print(f"{report.n_compiled} kernel signatures compiled, {report.n_loaded} loaded from the cache, "
              f"in {time.perf_counter() - start:.1f} s; numba's cache: {where}")
    return 0
