"""How the engine's kernels are compiled, and when compiled code is used instead of NumPy.

Every kernel is compiled by numba on its first use with a new signature and kept in
numba's on-disk cache (``cache=True``), so a later process loads it in milliseconds.  The
first use in a fresh environment pays the compilation, several seconds for a pass kernel:
more than a whole fit of a small data set.  Each public kernel is therefore a
:class:`Tiered` pair: the compiled kernel and an exact NumPy twin (or, for a pass, the
NumPy block scan of the learners).  The compiled kernel runs when it is ready (compiled in
this process, or found in the disk cache).  Otherwise the twin runs, and the kernel is
compiled off the caller's path:

* **In the background** (the default): the first call that finds the kernel missing asks
  one compile worker per process (:mod:`predtron.engine._compile_worker`, started then, in
  its own session so that Ctrl-C in the terminal does not reach it, importing the engine
  only) to compile it
  for that signature into numba's disk cache, and the twin keeps running meanwhile; the
  first call after the worker has answered loads the kernel from the cache (milliseconds).
  A pass's twin, the block scan, does not wait for the next call: it asks
  :meth:`Tiered.if_ready` every few hundredths of a second and hands the rest of its pass
  to the kernel as soon as it is ready.
  A single call whose work alone costs more than a compilation (``budget`` in the kernel's
  own units: a pass over hundreds of thousands of rows) waits for the worker instead of
  running the twin.  A thread of this process reads the worker's answers and reaps it when
  it exits, so it never becomes a zombie; when this process ends, the worker finishes the
  requests it holds (filling the cache for the next process) and exits.
* **Ahead of need**, in a fresh environment (no pass kernel in numba's disk cache): the worker
  starts when this module is imported, before numba itself (:mod:`predtron.engine._launch`: the
  worker's interpreter and numba start on another core while this process imports numba and the
  rest), and importing the
  learners (:mod:`predtron.learners.base`) asks the worker for the pass kernels at once, in
  the order of :data:`predtron.engine.run.PREFETCH_ORDER`, as :data:`SPECULATIVE` requests
  (:meth:`Tiered.prefetch`): the worker compiles them, one at a time in a forked child, while
  the process goes on importing and loading its data.  A call that needs one of them raises its
  request; a call that needs another pass kernel stops the child (its kernel is compiled later),
  so a pass never waits behind a kernel nobody needs yet (a small kernel, whose twin costs
  little, waits for the child); what is not compiled when the process
  ends is dropped, and of the processes sharing a cache only one compiles ahead of need
  (:mod:`predtron.engine._compile_worker`).  ``PREDTRON_JIT_PREFETCH=0`` turns this off.
* **In the foreground**, where no worker can help (``PREDTRON_JIT_BACKGROUND=0``, a kernel
  without a disk cache or a module-level name, a worker that could not start or whose
  compilation the cache does not show): the rent-or-buy rule of tiered just-in-time
  compilers, as before the worker existed: the kernel is compiled once the work handed to
  its twin in this process reaches ``budget``, so a small fit never waits for a compiler
  and a large workload pays for compilation at most once, when the cheaper path has
  already cost as much.

Both paths are exact: the twins are tested against the kernels, the block scan against the
per-example reference loop, so which one runs a call (which, with the worker, depends on
timing) never changes a result.

The set-up avoids both: ``predtron compile`` (:mod:`predtron.cli_compile`) builds every kernel
into the disk cache once per machine, so that a later process finds each kernel there.

``PREDTRON_JIT=always`` (or :data:`POLICY` set to ``"always"``) compiles on first use, in
the foreground, as a test of the kernels wants; ``"never"`` (or ``PREDTRON_NO_JIT`` set)
keeps NumPy throughout and starts no worker.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from predtron.engine import _launch

# In a fresh environment, the worker starts now, before numba's import (see _launch).
_launch.start_early()

try:
    import numba
    from numba.core.compiler_lock import global_compiler_lock

    #: Plain kernels.
    jit = numba.njit(cache=True, nogil=True)
    #: Helpers of kernels whose sums may be reassociated (vectorised): score computations, which are
    #: not bitwise equal to BLAS anyway; NaN/inf checks stay exact (no 'nnan'/'ninf' flags).  Called
    #: by kernels only, compiled as :data:`jit_callee` is.
    jit_sum = numba.njit(nogil=True, fastmath={"reassoc", "nsz", "arcp"}, no_cpython_wrapper=True,
                         no_cfunc_wrapper=True)
    #: Inlined into their callers at numba's IR level (same arithmetic, no call overhead).
    jit_inline = numba.njit(cache=True, nogil=True, inline="always")
    #: Helpers called by kernels only, each compiled once per signature into the kernels that call
    #: it: no Python entry point (no CPython or C wrapper to build) and no disk cache of its own (the
    #: calling kernel's cache entry holds its code); a test or a public name calls it through a
    #: ``jit`` function.  The ranking pass's four helpers compiled so, not as ``jit`` functions, take
    #: about 0.35 s (a tenth) off its compilation.
    jit_callee = numba.njit(nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
    AVAILABLE = True
except ImportError:  # pragma: no cover - numba is a dependency; this keeps the package importable
    AVAILABLE = False

    def jit(function):
        return function

    jit_sum = jit
    jit_inline = jit
    jit_callee = jit

# The settings are read from the environment by _launch, where the worker's early start needs them.

#: ``"auto"`` (the rule above), ``"always"`` or ``"never"`` (``PREDTRON_JIT``; ``"never"`` when
#: ``PREDTRON_NO_JIT`` is set).
POLICY = _launch.POLICY

#: Whether kernels missing from the caches are compiled by the background worker (``True``
#: unless ``PREDTRON_JIT_BACKGROUND=0``); ``False`` keeps the foreground rent-or-buy rule.
BACKGROUND = _launch.BACKGROUND

#: Whether :meth:`Tiered.prefetch` asks the worker for kernels ahead of need (``True`` unless
#: ``PREDTRON_JIT_PREFETCH=0``; never without the worker).
PREFETCH = _launch.PREFETCH

#: The priority of a request made ahead of need (:meth:`Tiered.prefetch`): below every request a
#: call makes, dropped by the worker when the process that asked it ends.
SPECULATIVE = -1


# ----------------------------------------------------------------------- signatures as text
def encode_signature(signature: tuple) -> list | None:
    """A JSON-able form of a tuple of numba argument types (arrays, plain scalars and ``None``), or
    ``None`` when some type has no such form (the kernel is then compiled in the foreground)."""
    out: list = []
    for ty in signature:
        if isinstance(ty, numba.types.Array):
            dtype = numba.np.numpy_support.as_dtype(ty.dtype)
            out.append(["array", dtype.str, int(ty.ndim), ty.layout, not ty.mutable, bool(ty.aligned)])
        elif isinstance(ty, (numba.types.Integer, numba.types.Float, numba.types.Boolean)):
            out.append(["scalar", str(ty)])
        elif ty == numba.types.none:
            out.append(["none"])
        else:
            return None
    return out


def decode_signature(encoded: list) -> tuple:
    """The numba argument types of :func:`encode_signature`'s output."""
    types = []
    for item in encoded:
        if item[0] == "none":
            types.append(numba.types.none)
        elif item[0] == "array":
            _, dtype, ndim, layout, readonly, aligned = item
            types.append(numba.types.Array(numba.from_dtype(np.dtype(dtype)), ndim, layout,
                                           readonly=readonly, aligned=aligned))
        elif item[1] == "bool":
            types.append(numba.types.boolean)
        else:
            types.append(getattr(numba.types, item[1]))
    return tuple(types)


# ------------------------------------------------------------------------- the compile worker
class _Worker:
    """The background compiler of this process: started on the first request, one request
    per line to its standard input, one answer per line read by a daemon thread."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._process: subprocess.Popen | None = None
        self._ids: dict[tuple, int] = {}
        self._next = 0  # the id of the next request (an id sent is never given again, even if not noted)
        self._priority: dict[int, int] = {}
        self._answers: dict[int, bool] = {}
        self.broken = False

    def request(self, module: str, name: str, signature: list, priority: int = 0,
                rank: int | None = None) -> int | None:
        """The id of the compilation of ``module.name`` for ``signature`` (asked once; of the
        requests waiting, the worker compiles the highest ``priority`` first; asked again with a
        higher priority, the request is raised to it), or ``None`` when no worker can run.  A
        negative priority (:data:`SPECULATIVE`) asks ahead of need: the worker drops such
        requests still waiting when this process ends, and :meth:`wait` does not wait for them;
        ``rank`` is then the priority the kernel has when a call needs it (a call's request of
        at least that priority stops the speculative compilation of this one, a lower one waits
        for it)."""
        key = (module, name, json.dumps(signature))
        with self._lock:
            job = self._ids.get(key)
            if job is not None:
                if priority > self._priority[job] and job not in self._answers:
                    self._priority[job] = int(priority)
                    self._send({"id": job, "priority": int(priority)})
                return job
            if self.broken or not self._start():
                return None
            job, self._next = self._next, self._next + 1
            message = {"id": job, "module": module, "name": name, "signature": signature, "priority": int(priority)}
            if rank is not None:
                message["rank"] = int(rank)
            if not self._send(message):
                return None
            self._ids[key] = job
            self._priority[job] = int(priority)
            return job

    def _send(self, message: dict) -> bool:
        """Write one line to the worker (under the lock); ``False`` when it is gone."""
        try:
            self._process.stdin.write(json.dumps(message) + "\n")
            self._process.stdin.flush()
        except (OSError, ValueError):  # the worker is gone
            self.broken = True
            return False
        return True

    def _start(self) -> bool:
        if self._process is not None:
            return True
        process = _launch.take_early()  # started before numba's import, in a fresh environment
        if process is None:
            try:
                process = _launch.spawn()
            except (OSError, ValueError):
                self.broken = True
                return False
        try:
            threading.Thread(target=self._read, args=(process,), name="predtron-jit-worker", daemon=True).start()
        except BaseException as error:  # an interrupt, or no thread to spare, before its answers could be read
            self._discard(process)
            if not isinstance(error, Exception):
                raise  # (the next request starts a worker again)
            self.broken = True
            return False
        self._process = process  # only once its answers are read: a request never waits for an unread answer
        return True

    @staticmethod
    def _discard(process: subprocess.Popen) -> None:
        """End a worker whose answers nobody reads, and reap it."""
        with contextlib.suppress(OSError):
            process.kill()
        for stream in (process.stdin, process.stdout):
            with contextlib.suppress(OSError, ValueError):
                stream.close()
        process.wait()

    def _read(self, process: subprocess.Popen) -> None:
        try:
            for line in process.stdout:
                status, _, job = line.strip().partition(" ")
                with self._lock:
                    self._answers[int(job)] = status == "ok"
                    self._lock.notify_all()
        except (OSError, ValueError):
            pass
        process.wait()  # reaped here: never a zombie
        with self._lock:
            self.broken = True
            for job in self._ids.values():  # anything unanswered failed
                self._answers.setdefault(job, False)
            self._lock.notify_all()

    def close(self) -> None:
        """Close the worker's input: it answers what it holds, then exits (and is reaped)."""
        with self._lock:
            process = self._process
        if process is not None and process.stdin is not None and not process.stdin.closed:
            try:
                process.stdin.close()
            except OSError:  # pragma: no cover - the pipe is already broken
                pass

    def let_go(self) -> None:
        """In a forked child, point the inherited ends of the worker's pipes at the null device: the
        worker's input then ends when the process that started it ends, not when its last forked
        child does (until then it went on compiling every kernel asked ahead of need).  The file
        objects stay valid (whatever a write under way left in their buffers goes to the null
        device) and nothing is written to the worker."""
        if self._process is not None:
            _launch.let_go(self._process)

    def answer(self, job: int) -> bool | None:
        """``True`` (compiled into the cache), ``False`` (failed) or ``None`` (not yet)."""
        with self._lock:
            return self._answers.get(job)

    def wait(self, job: int | None = None, timeout: float | None = None) -> bool:
        """Wait for the answer to ``job`` (when ``None``: to every request a call made, not to the
        speculative ones); ``False`` on timeout."""
        with self._lock:
            return self._lock.wait_for(
                lambda: (job in self._answers) if job is not None else all(
                    j in self._answers for j, p in self._priority.items() if p >= 0),
                timeout)


_WORKER = _Worker()


def _new_worker_after_fork() -> None:
    """A forked child gets a worker of its own (the parent's answers reach only the parent), and lets
    go of the parent's (:meth:`_Worker.let_go`)."""
    global _WORKER
    inherited, _WORKER = _WORKER, _Worker()
    inherited.let_go()


class _ForkGuard:
    """No fork while another thread holds numba's compiler lock (:func:`_warm_contexts`' thread, or a
    compilation): the child would hold a lock that no thread of its own can release.  The lock is
    released after the fork only if it was taken: an interrupt while waiting for it (reported by
    Python as an ignored exception in a fork hook) lets the fork go on without it."""

    _state = threading.local()  # per forking thread (two threads may fork at once; the child keeps its own)

    @classmethod
    def held(cls) -> bool:
        """Whether this thread's fork took the lock."""
        return getattr(cls._state, "held", False)

    @classmethod
    def before(cls) -> None:
        cls._state.held = False
        global_compiler_lock.acquire()
        cls._state.held = True

    @classmethod
    def after(cls) -> None:
        if cls.held():
            cls._state.held = False
            global_compiler_lock.release()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_worker_after_fork)
    if AVAILABLE:
        os.register_at_fork(before=_ForkGuard.before, after_in_parent=_ForkGuard.after, after_in_child=_ForkGuard.after)


_WARMED: set[int] = set()  # the processes whose numba contexts are being or were set up by _warm_contexts


def _warm_contexts() -> None:
    """Set up numba's typing and target contexts in a daemon thread of this process, once, while
    the worker compiles: loading a kernel from the disk cache needs them, and their set-up (about
    0.3 s) would otherwise fall between the worker's answer and the kernel's first run.  A thread
    holds numba's compiler lock meanwhile, so a load that comes first simply waits for it.

    The set-up is Python code that shares this process's interpreter lock with the caller's NumPy
    scan (which it slows by about its own length while both run), so it starts as early as
    possible: when the learners' import asks the worker for the pass kernels ahead of need
    (:meth:`Tiered.prefetch`, a fresh environment), where it overlaps what a program does before
    its first fit (reading its data) rather than that fit; otherwise at a call's first request."""
    if os.getpid() in _WARMED:
        return
    _WARMED.add(os.getpid())

    def warm() -> None:
        try:
            from numba.core.registry import cpu_target

            with global_compiler_lock:
                cpu_target.typing_context.refresh()
                cpu_target.target_context.refresh()
        except Exception:  # pragma: no cover - a numba without these names: the load sets them up
            pass

    threading.Thread(target=warm, name="predtron-jit-warm", daemon=True).start()


def discard_early_worker() -> None:
    """End the worker started before numba's import (:func:`predtron.engine._launch.start_early`)
    if no request has adopted it: a process that compiles every kernel itself (``predtron
    compile``) has no use for it."""
    process = _launch.take_early()
    if process is not None:
        _Worker._discard(process)


def wait_for_background(timeout: float | None = None) -> bool:
    """Wait until the background worker has answered every request of this process (all
    kernels asked for are in numba's disk cache, or failed); ``False`` if ``timeout``
    seconds passed first.  A tool that wants its next process warm calls it before exiting."""
    return _WORKER.wait(None, timeout)


def cache_folder(dispatcher) -> Path | None:
    """The folder of numba's disk cache for ``dispatcher`` (``None`` when it has no disk cache)."""
    cache = getattr(dispatcher, "_cache", None)
    path = getattr(cache, "_cache_path", None)
    return None if path is None or type(cache).__name__ == "NullCache" else Path(path)


def _index_missing(dispatcher) -> bool:
    """Whether numba's disk cache surely holds no compilation of ``dispatcher``: its index file
    does not exist.  Looking costs a ``stat``, where numba's loader, on its first use in a
    process, sets up numba's typing and target contexts (about 0.25 s): in a fresh environment
    every kernel's first call would pay that only to find nothing."""
    index = getattr(getattr(getattr(dispatcher, "_cache", None), "_cache_file", None), "_index_path", None)
    return isinstance(index, str) and not os.path.exists(index)


def _on_disk(dispatcher, signature: tuple) -> bool:
    """Whether numba's disk cache holds ``dispatcher`` compiled for ``signature`` (loading it
    is then what the call does anyway)."""
    if _index_missing(dispatcher):
        return False
    try:
        with global_compiler_lock:
            return dispatcher._cache.load_overload(signature, dispatcher.targetctx) is not None
    except Exception:  # a cache numba cannot read (or a numba without this API) is a miss
        return False


class Tiered:
    """A compiled kernel with an exact NumPy twin, chosen per call by the rule of this module.

    Parameters
    ----------
    kernel : numba dispatcher
        The compiled kernel.
    twin : callable
        Same arguments, same result (bit for bit where the kernel's docstring says so);
        for a pass, a function returning ``None`` (the caller then runs its NumPy scan).
    work : callable
        The work of one call, from its arguments, in the units of ``budget``.
    priority : int, default 0
        Order of the background compilations waiting at once: higher first (the pass kernels,
        whose twins cost the most, are 1).
    budget : float
        The work whose NumPy cost is about one compilation: a call with more work waits for
        the background worker, and, without a worker, the work handed to ``twin`` in one
        process after which the kernel is compiled in the foreground.
    """

    def __init__(self, kernel, twin: Callable, work: Callable, budget: float, priority: int = 0) -> None:
        self.kernel = kernel
        self.twin = twin
        self.work = work
        self.budget = float(budget)
        self.priority = int(priority)
        self.spent = 0.0  # work run by the twin in this process
        self._ready: set = set()
        self._not_on_disk: set = set()  # signatures the disk cache did not hold (probed once)
        self._jobs: dict = {}  # signature -> the background worker's job (None: no worker for it)
        self._jobs_pid = os.getpid()  # the process that asked them
        self._name: tuple[str, str] | bool | None = False  # see _importable_name (False: not looked up)
        self.__doc__ = kernel.__doc__
        self.__name__ = getattr(kernel, "__name__", "kernel")
        self.__qualname__ = getattr(kernel, "__qualname__", self.__name__)
        self.__module__ = getattr(kernel, "__module__", __name__)
        self.__wrapped__ = getattr(kernel, "py_func", kernel)

    def ready(self, args: tuple) -> bool:
        """Whether the kernel runs these arguments without compiling (compiled in this process
        or cached on disk)."""
        return self._ready_for(tuple(numba.typeof(a) for a in args))

    def _ready_for(self, signature: tuple) -> bool:
        if signature in self._ready:
            return True
        if signature in self.kernel.overloads:
            self._ready.add(signature)
            return True
        job = self._jobs_here().get(signature)
        if job is not None and _WORKER.answer(job) is not None:
            self._jobs[signature] = None  # answered: from now on the cache or the foreground rule decides
            self._not_on_disk.discard(signature)
        if signature not in self._not_on_disk:
            if _on_disk(self.kernel, signature):
                self._ready.add(signature)
                return True
            self._not_on_disk.add(signature)
        return False

    def _jobs_here(self) -> dict:
        """The jobs asked by this process (after a fork, the child asks its own worker again)."""
        if self._jobs_pid != os.getpid():
            self._jobs, self._jobs_pid = {}, os.getpid()
        return self._jobs

    def _background_job(self, signature: tuple) -> int | None:
        """The worker's compilation of the kernel for ``signature``, asked on first need (``None``
        when the worker cannot help this kernel)."""
        if not BACKGROUND:
            return None
        jobs = self._jobs_here()
        if signature in jobs:
            return jobs[signature]
        job = None
        name = self._importable_name()
        encoded = encode_signature(signature) if name is not None else None
        if encoded is not None:
            job = _WORKER.request(*name, encoded, self.priority)
        if job is not None:
            _warm_contexts()
        self._jobs[signature] = job
        return job

    def _importable_name(self) -> tuple[str, str] | None:
        """``(module, name)`` under which a fresh interpreter finds this kernel, when it has a
        disk cache (else ``None``)."""
        if self._name is False:
            self._name = None
            cache = getattr(self.kernel, "_cache", None)
            py_func = getattr(self.kernel, "py_func", None)
            if cache is not None and type(cache).__name__ != "NullCache" and py_func is not None:
                module, name = py_func.__module__, py_func.__qualname__
                try:
                    found = getattr(importlib.import_module(module), name, None)
                except Exception:  # pragma: no cover - the module is imported already
                    found = None
                if found is self.kernel:
                    self._name = (module, name)
        return self._name

    def prefetch(self, signatures: list[list]) -> int:
        """Ask the background worker, ahead of any call, to compile the kernel for each of
        ``signatures`` (in the form of :func:`encode_signature`, in the order given) when numba's
        disk cache holds no compilation of it at all (a fresh environment: one ``stat``, nothing
        loaded).  The requests are :data:`SPECULATIVE`: a call that needs one of them raises it to
        its own priority, and those still waiting when this process ends are dropped; numba's contexts
        are then set up in a thread (:func:`_warm_contexts`).  Returns
        the number of requests made (0 under ``PREDTRON_JIT=always``/``never``, without the
        worker, or with ``PREDTRON_JIT_PREFETCH=0``)."""
        if not (AVAILABLE and POLICY == "auto" and BACKGROUND and PREFETCH) or not _index_missing(self.kernel):
            return 0
        name = self._importable_name()
        if name is None:
            return 0
        made = sum(_WORKER.request(*name, signature, SPECULATIVE, rank=self.priority) is not None
                   for signature in signatures)
        if made:
            _warm_contexts()  # this process will load what the worker compiles: set numba up meanwhile
        return made

    def compiled(self, args: tuple) -> bool:
        """Whether this call runs the kernel (counting the twin's work otherwise)."""
        if not AVAILABLE or POLICY == "never":
            return False
        if POLICY == "always":
            return True
        signature = tuple(numba.typeof(a) for a in args)
        if self._ready_for(signature):
            return True
        work = float(self.work(*args))
        job = self._background_job(signature)
        if job is not None:
            if work < self.budget:
                self.spent += work
                return False  # the twin runs while the worker compiles
            _WORKER.wait(job)  # this call alone costs more than compiling: wait for the worker
            if self._ready_for(signature):
                return True
        if self.spent + work >= self.budget:
            return True
        self.spent += work
        return False

    def __call__(self, *args):
        return self.kernel(*args) if self.compiled(args) else self.twin(*args)

    def runs_ready(self, args: tuple) -> bool:
        """Whether the kernel runs these arguments without compiling (compiled in this process,
        found in the disk cache, or just answered by the background worker) under the policy;
        nothing is asked of the worker, compiled or counted."""
        if not AVAILABLE or POLICY == "never":
            return False
        return POLICY == "always" or self.ready(args)

    def if_ready(self, *args):
        """The kernel's result when it runs these arguments without compiling (:meth:`runs_ready`),
        else ``None``.  A NumPy scan that started while the worker compiled asks this now and then,
        and hands the rest of its pass to the kernel as soon as it is ready."""
        return self.kernel(*args) if self.runs_ready(args) else None
