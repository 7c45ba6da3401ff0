"""How the background compile worker of :mod:`predtron.engine.jit` is started, and its early start.

This module imports nothing but the standard library (numba's import alone takes about a quarter
of a second), so that :mod:`predtron.engine.jit` can start the worker *before* importing numba
when numba's disk cache surely holds no kernel of the engine: a fresh environment, where the
worker will be asked for the pass kernels ahead of need as soon as the learners are imported
(:func:`predtron.engine.run.prefetch_passes`).  The worker then starts its interpreter and
imports numba on the other core while this process imports numba, scikit-learn and the rest:
the first fit's kernel is ready that much earlier.  :class:`~predtron.engine.jit._Worker` adopts
the process on its first request (:func:`take_early`).

Whether the cache is fresh is judged without numba (:func:`surely_cold`): numba's cache folder
for the engine's sources (:func:`cache_folder_guess`, which ``tests/test_background_compile.py``
keeps equal to numba's own) holds no index file (``.nbi``) at all.  A wrong judgement costs time,
never a result: the requests themselves are still made only for kernels missing from the cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import threading
from pathlib import Path

#: The compile policies of :data:`predtron.engine.jit.POLICY`.
POLICIES = ("auto", "always", "never")

#: ``"auto"``, ``"always"`` or ``"never"`` (``PREDTRON_JIT``; ``PREDTRON_NO_JIT`` set means ``"never"``).
POLICY = "never" if os.environ.get("PREDTRON_NO_JIT") else os.environ.get("PREDTRON_JIT", "auto")
if POLICY not in POLICIES:
    raise ValueError(f"PREDTRON_JIT must be one of {POLICIES}; got {POLICY!r}")

#: Whether kernels missing from the caches are compiled by the background worker (``True``
#: unless ``PREDTRON_JIT_BACKGROUND=0``; the worker itself runs with it off).
BACKGROUND = os.environ.get("PREDTRON_JIT_BACKGROUND", "1") != "0"

#: Whether kernels are asked for ahead of need (``True`` unless ``PREDTRON_JIT_PREFETCH=0``).
PREFETCH = os.environ.get("PREDTRON_JIT_PREFETCH", "1") != "0"

#: The package's folder (the worker imports it as a bare package, by its folder): the path this process
#: imported it by, symbolic links unresolved, since numba names a ``NUMBA_CACHE_DIR`` subfolder after the
#: sources' path as imported (a resolved path would make the worker fill a folder this process never reads).
_PACKAGE = Path(os.path.abspath(__file__)).parents[1]

#: How the worker starts: ``predtron``, ``predtron.engine`` and ``predtron.data`` (whose reader
#: kernels, :mod:`predtron.data._svmlight_kernel`, it compiles too; the package's ``__init__``
#: imports SciPy) as bare packages, so that the worker imports the modules of the kernels it
#: compiles and nothing else of the package (scikit-learn and all: seconds before the first
#: compilation could start); and without SciPy, which numba imports when it sets up its typing (to
#: see whether ``np.dot`` and ``np.linalg`` have a BLAS: 0.12 s of the worker's start), and which no
#: kernel of the package uses (``tests/test_background_compile.py`` compiles the pass and reader
#: kernels in the worker).
_BOOT = ("import os, runpy, sys, types\n"
         "for name, folder in (('predtron', sys.argv[1]), ('predtron.engine', os.path.join(sys.argv[1], 'engine')),\n"
         "                     ('predtron.data', os.path.join(sys.argv[1], 'data'))):\n"
         "    sys.modules[name] = package = types.ModuleType(name); package.__path__ = [folder]\n"
         "sys.modules['scipy'] = None; del sys.argv[1]\n"
         "runpy.run_module('predtron.engine._compile_worker', run_name='__main__', alter_sys=True)")


def spawn() -> subprocess.Popen:
    """Start a compile worker (in its own session, so that Ctrl-C in the terminal does not reach
    it); ``OSError`` or ``ValueError`` when no process can start."""
    env = dict(os.environ)
    env["PREDTRON_JIT_BACKGROUND"] = "0"
    flags = ["-P"] if sys.version_info >= (3, 11) else []  # the current folder cannot shadow a module
    return subprocess.Popen(
        [sys.executable, *flags, "-c", _BOOT, str(_PACKAGE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, env=env, text=True, bufsize=1, start_new_session=True)


def let_go(process: subprocess.Popen) -> None:
    """In a forked child, point the inherited ends of ``process``'s pipes at the null device: the
    worker's input then ends when the process that started it ends, not when its last forked
    child does.  The file objects stay valid and nothing is written to the worker."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:  # pragma: no cover - no null device: the pipes stay as they are
        return
    try:
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):  # closed already
                    os.dup2(null, stream.fileno(), inheritable=False)
    finally:
        os.close(null)


def cache_folder_guess() -> Path | None:
    """numba's disk-cache folder for the engine's kernels, found by numba's rules without numba:
    ``NUMBA_CACHE_DIR``'s subfolder for the engine's source folder when that variable is set, else
    the ``__pycache__`` folder beside the sources when it can be written; ``None`` when numba would
    use its per-user folder (not guessed)."""
    engine = os.path.dirname(os.path.abspath(__file__))
    base = os.environ.get("NUMBA_CACHE_DIR", "")
    if base:
        return Path(base) / f"{os.path.basename(engine)}_{hashlib.sha1(engine.encode()).hexdigest()}"
    folder = os.path.join(engine, "__pycache__")
    return Path(folder) if os.access(folder if os.path.isdir(folder) else engine, os.W_OK) else None


def surely_cold() -> bool:
    """Whether numba's disk cache surely holds no kernel of the engine: its folder
    (:func:`cache_folder_guess`) holds no index file, or does not exist."""
    folder = cache_folder_guess()
    if folder is None:
        return False
    try:
        return not any(name.endswith(".nbi") for name in os.listdir(folder))
    except FileNotFoundError:
        return True
    except OSError:  # unreadable: not judged
        return False


def _jit_disabled() -> bool:
    """Whether numba compiles nothing in this process (``NUMBA_DISABLE_JIT`` set to a non-zero number):
    its dispatchers then have no disk cache, so nothing is ever asked of a worker."""
    value = os.environ.get("NUMBA_DISABLE_JIT", "").strip()
    try:
        return bool(int(value)) if value else False
    except ValueError:  # numba rejects it (its warning): not judged here
        return False


_early: tuple[int, subprocess.Popen] | None = None  # (the process that started it, the worker)
_handover = threading.Lock()  # one taker of the early worker, whichever thread asks first


def start_early() -> bool:
    """Start the worker now, before numba's import, when kernels will be asked for ahead of need
    (policy ``"auto"`` with the worker and prefetching on) and the cache is fresh
    (:func:`surely_cold`); whether it started."""
    global _early
    if _early is not None or not (POLICY == "auto" and BACKGROUND and PREFETCH) or _jit_disabled() or not surely_cold():
        return False
    try:
        _early = (os.getpid(), spawn())
    except (OSError, ValueError):  # no process to spare: the first request tries again
        return False
    return True


def take_early() -> subprocess.Popen | None:
    """The worker this process started early, handed over once (``None`` when there is none)."""
    global _early
    with _handover:
        early, _early = _early, None
    return early[1] if early is not None and early[0] == os.getpid() else None


def _forget_early_after_fork() -> None:
    """A forked child neither adopts the parent's early worker nor keeps its pipes open (and has a lock
    of its own: the parent's may have been held by another thread at the fork)."""
    global _early, _handover
    early, _early, _handover = _early, None, threading.Lock()
    if early is not None:
        let_go(early[1])


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_early_after_fork)
