"""The background compiler of :mod:`predtron.engine.jit` (which starts it as ``predtron.engine._compile_worker``).

Reads one request per line on standard input (JSON: ``{"id", "module", "name", "signature",
"priority"}``, the signature encoded by :func:`predtron.engine.jit.encode_signature`),
compiles the kernel ``module.name`` for it, which saves it in numba's disk cache, and answers
one line per request on standard output: ``ok <id>`` or ``failed <id>``.  Of the requests
waiting, the one with the highest priority goes first (a pass kernel before a small scan),
then the oldest; a line ``{"id", "priority"}`` alone raises the priority of a request (a
kernel asked for ahead of need that a call now needs).

Requests of a negative priority are speculative (:data:`predtron.engine.jit.SPECULATIVE`:
asked at import in a fresh environment, before any call needs them; ``"rank"``: the priority
the kernel has when a call needs it).  The worker compiles them one at a time in a forked child
of its own (:class:`_Child`), which it kills as soon as a call needs another kernel of at least
that rank (the request waits again, for later) or the input ends: a pass kernel a call needs
never waits behind one nobody needs yet, while a small kernel (whose NumPy twin costs little)
waits for the child rather than throw its work away.  Of the workers of one numba cache folder,
only one compiles ahead of need (:class:`_Speculation`); where processes cannot fork, none
does, and a worker whose fork fails (no process to spare) stops compiling ahead of need.

It exits at the end of its input (the process that started it has ended or closed the pipe)
once it has answered the requests a call made, dropping the speculative ones; quietly on an
interrupt.  It runs at a lower scheduling priority (:data:`NICENESS`) than the process it
serves.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import queue
import signal
import sys
import threading
import time

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX: nothing is compiled ahead of need
    fcntl = None

#: The lock file, in numba's cache folder, of the one worker that compiles ahead of need there.
LOCK_NAME = "predtron-ahead.lock"

#: Seconds to wait after a request arrives at an idle worker before choosing what to compile.
SETTLE = 0.05

#: Seconds between two looks at a speculative child and at the requests, while the child compiles.
POLL = 0.02

#: Seconds between two tries of a worker at the lock :data:`LOCK_NAME` that another worker holds (that
#: worker's process may end, and with it its compilations ahead of need, before this one's).
RETRY = 1.0

#: The worker's scheduling priority, below the process it serves: on a machine with few cores the
#: fit running the twins keeps its core, and the compiler takes what is left.
NICENESS = 10


def _read(requests: queue.Queue) -> None:
    for line in sys.stdin:
        requests.put(json.loads(line))
    requests.put(None)


def _priority(request: dict) -> int:
    return request.get("priority", 0)


def _compile(request: dict) -> bool:
    """Compile ``request``'s kernel for its signature (into numba's disk cache); whether it worked
    (a failure is answered: the caller then compiles in its own process)."""
    from predtron.engine.jit import decode_signature

    try:
        kernel = getattr(importlib.import_module(request["module"]), request["name"])
        kernel.compile(decode_signature(request["signature"]))
    except Exception:
        return False
    return True


class _Child:
    """A speculative compilation in a forked child of the worker, which a call's request can stop
    (numba writes its cache files whole, each under a temporary name then renamed, so a child
    killed at any moment leaves no damaged cache)."""

    def __init__(self, request: dict) -> None:
        self.request = request
        self.pid = os.fork()
        if self.pid == 0:  # the child: compile, and leave without the parent's clean-up
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # (the worker's handler is for the worker)
            os._exit(0 if _compile(request) else 1)

    def done(self) -> bool | None:
        """``True`` (compiled) or ``False`` (failed) once the child has ended, else ``None``."""
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        return None if pid == 0 else os.waitstatus_to_exitcode(status) == 0

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)


class _Speculation:
    """Whether this worker may compile a speculative request: only where it can fork, and only the
    one worker that holds the lock file :data:`LOCK_NAME` of numba's cache folder (taken on first
    need, held until the worker exits).  The processes of one environment started together (a
    Dask cluster's workers, the command line's process beside them) would otherwise all compile
    the same kernels ahead of need, on the cores their work needs; the others' speculative
    requests wait until a call raises them, or until the holder's worker exits: they try the lock
    again every :data:`RETRY` seconds."""

    def __init__(self) -> None:
        self._held: dict = {}  # cache folder -> the open lock file, or None when another worker holds it
        self._tried: dict = {}  # cache folder -> when the lock held by another worker was last tried
        self.stopped = False

    def stop(self) -> None:
        """Compile nothing more ahead of need (a fork failed: the machine has no process to spare),
        and let another worker of these cache folders take their locks."""
        self.stopped = True
        for handle in self._held.values():
            if handle is not None:
                handle.close()
        self._held = {}

    def allowed(self, request: dict) -> bool:
        from predtron.engine.jit import cache_folder

        if self.stopped or fcntl is None or not hasattr(os, "fork"):  # a fork failed, or not on POSIX
            return False
        try:
            folder = cache_folder(getattr(importlib.import_module(request["module"]), request["name"]))
        except Exception:  # a request naming no kernel: the compilation answers it as failed
            return True
        if folder is None:
            return True
        if self._held.get(folder, True) is None and time.monotonic() - self._tried[folder] >= RETRY:
            del self._held[folder]  # held by another worker when last tried: try again
        if folder not in self._held:
            self._tried[folder] = time.monotonic()
            handle = None
            try:
                folder.mkdir(parents=True, exist_ok=True)
                handle = open(folder / LOCK_NAME, "a")  # held open until the worker exits
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # held by another worker (or the folder cannot be written: nothing ahead)
                if handle is not None:
                    handle.close()
                handle = None
            self._held[folder] = handle
        return self._held[folder] is not None


class _Requests:
    """The requests waiting, the speculative child (if any), and the end of the input."""

    def __init__(self) -> None:
        self.waiting: list[dict] = []
        self.child: _Child | None = None
        self.ended = False

    def receive(self, item: dict | None) -> None:
        """A new request, a raise of one (waiting, or the child's), or the end of the input (``None``)."""
        if item is None:
            self.ended = True
            self.waiting = [r for r in self.waiting if _priority(r) >= 0]  # nobody will call for the others
        elif "module" in item:
            if not (self.ended and _priority(item) < 0):
                self.waiting.append(item)
        else:
            running = [self.child.request] if self.child is not None else []
            for request in self.waiting + running:
                if request["id"] == item["id"]:
                    request["priority"] = max(_priority(request), item["priority"])

    def demanded(self) -> list[dict]:
        return [r for r in self.waiting if _priority(r) >= 0]


def _set_up_numba() -> None:
    """Set up numba's typing and target contexts once, before any compilation: every compilation
    needs them (about 0.2 s), and a forked child then finds them ready."""
    with contextlib.suppress(Exception):  # a numba without these names: the first compilation sets them up
        from numba.core.registry import cpu_target

        cpu_target.typing_context.refresh()
        cpu_target.target_context.refresh()


def _answer(request: dict, ok: bool) -> None:
    sys.stdout.write(f"{'ok' if ok else 'failed'} {request['id']}\n")
    sys.stdout.flush()


def _terminated(signum, frame) -> None:
    """SIGTERM (``kill``'s default signal): end as on an interrupt, through :func:`main`'s clean-up,
    which kills the speculative child (by default the signal ended the worker at once and left the
    child compiling a kernel nobody would ask for)."""
    raise SystemExit(128 + signum)


def main() -> int:
    with contextlib.suppress(ValueError, OSError):  # (not the main thread: left as it is)
        signal.signal(signal.SIGTERM, _terminated)
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(NICENESS)

    requests: queue.Queue = queue.Queue()
    threading.Thread(target=_read, args=(requests,), daemon=True).start()
    _set_up_numba()
    state = _Requests()
    speculation = _Speculation()

    def speculative() -> list[dict]:
        return [r for r in state.waiting if _priority(r) < 0 and speculation.allowed(r)]

    try:
        while True:
            if state.child is not None:  # look at the requests and the child every POLL seconds
                with contextlib.suppress(queue.Empty):
                    state.receive(requests.get(timeout=POLL))
            elif not state.demanded() and not speculative():  # nothing to do: wait for news
                if state.ended:
                    return 0
                try:  # (speculative requests waiting for another worker's lock: try it again in a while)
                    item = requests.get(timeout=RETRY if state.waiting else None)
                except queue.Empty:
                    continue
                state.receive(item)
                if item is not None:
                    time.sleep(SETTLE)  # the requests of one call come together: choose among them
            while True:  # everything that has arrived meanwhile
                try:
                    state.receive(requests.get_nowait())
                except queue.Empty:
                    break
            child = state.child
            if child is not None:
                ok = child.done()
                if ok is not None:
                    _answer(child.request, ok)
                    state.child = None
                elif _priority(child.request) < 0 and (state.ended or any(
                        _priority(r) >= child.request.get("rank", 0) for r in state.demanded())):
                    child.kill()  # a call needs another kernel of its rank now (or nobody will call for this one)
                    state.child = None
                    if not state.ended:
                        state.waiting.append(child.request)
                continue
            demanded = state.demanded()
            if demanded:
                request = max(demanded, key=lambda r: (_priority(r), -r["id"]))
                state.waiting.remove(request)
                _answer(request, _compile(request))
            elif not state.ended:
                candidates = speculative()
                if candidates:
                    request = min(candidates, key=lambda r: r["id"])
                    state.waiting.remove(request)
                    try:
                        state.child = _Child(request)
                    except OSError:  # no process to spare: the request waits for a call to raise it
                        state.waiting.append(request)
                        speculation.stop()
    finally:
        if state.child is not None:
            state.child.kill()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (KeyboardInterrupt, BrokenPipeError):
        sys.exit(130)
