"""How the engine's kernels are compiled, and when compiled code is used instead of NumPy.

Every kernel is compiled by numba on its first use with a new signature and kept in
numba's on-disk cache (``cache=True``), so a later process loads it in milliseconds.  The
first use in a fresh environment pays the compilation, several seconds for a pass kernel:
more than a whole fit of a small data set.  Each public kernel is therefore a
:class:`Tiered` pair: the compiled kernel and an exact NumPy twin (or, for a pass, the
NumPy block scan of the learners).  The compiled kernel runs when it is ready (compiled in
this process, or found in the disk cache) or once the work handed to its twin in this
process, counted in the kernel's own units, reaches its ``budget`` (the work whose NumPy
cost is about one compilation).  This is the rent-or-buy rule of tiered just-in-time
compilers: a small fit never waits for a compiler, and a large workload pays for
compilation at most once, when the cheaper path has already cost as much.

The choice is deterministic (work is counted in rounds or entries, never timed), and both
paths are exact: the twins are tested against the kernels, the block scan against the
per-example reference loop.

``PREDTRON_JIT=always`` (or :data:`POLICY` set to ``"always"``) compiles on first use, as a
test of the kernels wants; ``"never"`` (or ``PREDTRON_NO_JIT`` set) keeps NumPy throughout.
"""

from __future__ import annotations

import os
from collections.abc import Callable

try:
    import numba
    from numba.core.compiler_lock import global_compiler_lock

    #: Plain kernels.
    jit = numba.njit(cache=True, nogil=True)
    #: Kernels whose sums may be reassociated (vectorised): score computations, which are not
    #: bitwise equal to BLAS anyway; NaN/inf checks stay exact (no 'nnan'/'ninf' flags).
    jit_sum = numba.njit(cache=True, nogil=True, fastmath={"reassoc", "nsz", "arcp"})
    #: Inlined into their callers at numba's IR level (same arithmetic, no call overhead).
    jit_inline = numba.njit(cache=True, nogil=True, inline="always")
    AVAILABLE = True
except ImportError:  # pragma: no cover - numba is a dependency; this keeps the package importable
    AVAILABLE = False

    def jit(function):
        return function

    jit_sum = jit
    jit_inline = jit

POLICIES = ("auto", "always", "never")

#: ``"auto"`` (the rent-or-buy rule above), ``"always"`` or ``"never"``.
POLICY = "never" if os.environ.get("PREDTRON_NO_JIT") else os.environ.get("PREDTRON_JIT", "auto")
if POLICY not in POLICIES:
    raise ValueError(f"PREDTRON_JIT must be one of {POLICIES}; got {POLICY!r}")


def _on_disk(dispatcher, signature: tuple) -> bool:
    """Whether numba's disk cache holds ``dispatcher`` compiled for ``signature`` (loading it
    is then what the call does anyway)."""
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
    budget : float
        Work handed to ``twin`` in one process after which the kernel is compiled.
    """

    def __init__(self, kernel, twin: Callable, work: Callable, budget: float) -> None:
        self.kernel = kernel
        self.twin = twin
        self.work = work
        self.budget = float(budget)
        self.spent = 0.0  # work run by the twin in this process
        self._ready: set = set()
        self._not_on_disk: set = set()  # signatures the disk cache did not hold (probed once)
        self.__doc__ = kernel.__doc__
        self.__name__ = getattr(kernel, "__name__", "kernel")
        self.__qualname__ = getattr(kernel, "__qualname__", self.__name__)
        self.__module__ = getattr(kernel, "__module__", __name__)
        self.__wrapped__ = getattr(kernel, "py_func", kernel)

    def ready(self, args: tuple) -> bool:
        """Whether the kernel runs these arguments without compiling (compiled in this process
        or cached on disk)."""
        signature = tuple(numba.typeof(a) for a in args)
        if signature in self._ready:
            return True
        if signature in self.kernel.overloads:
            self._ready.add(signature)
            return True
        if signature not in self._not_on_disk:
            if _on_disk(self.kernel, signature):
                self._ready.add(signature)
                return True
            self._not_on_disk.add(signature)
        return False

    def compiled(self, args: tuple) -> bool:
        """Whether this call runs the kernel (counting the twin's work otherwise)."""
        if not AVAILABLE or POLICY == "never":
            return False
        if POLICY == "always" or self.ready(args):
            return True
        work = float(self.work(*args))
        if self.spent + work >= self.budget:
            return True
        self.spent += work
        return False

    def __call__(self, *args):
        return self.kernel(*args) if self.compiled(args) else self.twin(*args)
