"""The background compiler of :mod:`predtron.engine.jit` (which starts it as ``predtron.engine._compile_worker``).

Reads one request per line on standard input (JSON: ``{"id", "module", "name", "signature",
"priority"}``, the signature encoded by :func:`predtron.engine.jit.encode_signature`),
compiles the kernel ``module.name`` for it, which saves it in numba's disk cache, and answers
one line per request on standard output: ``ok <id>`` or ``failed <id>``.  Of the requests
waiting, the one with the highest priority goes first (a pass kernel before a small scan),
then the oldest; a line ``{"id", "priority"}`` alone raises the priority of a request still
waiting (a kernel asked for ahead of need that a call now needs).  Requests of a negative
priority are speculative (:data:`predtron.engine.jit.SPECULATIVE`: asked at import in a fresh
environment, before any call needs them).  At the end of its input (the process that started it
has ended or closed the pipe) it drops the speculative requests still waiting, abandons a
speculative compilation under way, answers the others and exits; it exits quietly on an
interrupt.  Of the workers of one numba cache folder, only one compiles ahead of need at a time
(:class:`_Speculation`).  It runs at a lower scheduling priority
(:data:`NICENESS`) than the process it serves.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import queue
import sys
import threading
import time

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX: every worker compiles ahead of need
    fcntl = None

#: The lock file, in numba's cache folder, of the one worker that compiles ahead of need there.
LOCK_NAME = "predtron-ahead.lock"

#: Seconds to wait after a request arrives at an idle worker before choosing what to compile.
SETTLE = 0.05


class _Current:
    """Whether the compilation running now is speculative, and whether the input has ended (under
    one lock: a speculative compilation never starts after the end, nor outlives it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.speculative = False
        self.ended = False

    def end(self) -> None:
        """The input ended: a speculative compilation running now is abandoned at once (numba
        writes its cache files whole, each to a temporary name then renamed)."""
        with self.lock:
            self.ended = True
            if self.speculative:
                os._exit(0)

    def start(self, speculative: bool) -> bool:
        """Mark the next compilation; ``False`` when it is speculative and the input has ended."""
        with self.lock:
            if speculative and self.ended:
                return False
            self.speculative = speculative
            return True


def _read(requests: queue.Queue, current: _Current) -> None:
    for line in sys.stdin:
        requests.put(json.loads(line))
    current.end()
    requests.put(None)


#: The worker's scheduling priority, below the process it serves: on a machine with few cores the
#: fit running the twins keeps its core, and the compiler takes what is left.
NICENESS = 10


def _receive(waiting: list[dict], item: dict) -> None:
    """Add a request to ``waiting``, or raise the priority of one waiting (a line without a
    ``module``: ignored when that request is being compiled or answered already)."""
    if "module" in item:
        waiting.append(item)
        return
    for request in waiting:
        if request["id"] == item["id"]:
            request["priority"] = max(request.get("priority", 0), item["priority"])


class _Speculation:
    """Whether this worker may compile a speculative request: only the one worker that holds the
    lock file :data:`LOCK_NAME` of numba's cache folder (taken on first need, held until the
    worker exits).  The processes of one environment started together (a Dask cluster's
    workers, the command line's process beside them) would otherwise all compile the same
    kernels ahead of need, on the cores their work needs; the others' speculative requests wait
    until a call raises them.  Where no lock can be taken (no ``fcntl``), every worker may."""

    def __init__(self) -> None:
        self._held: dict = {}  # cache folder -> the open lock file, or None when another worker holds it

    def allowed(self, request: dict) -> bool:
        from predtron.engine.jit import cache_folder

        if fcntl is None:  # pragma: no cover - not on POSIX
            return True
        try:
            folder = cache_folder(getattr(importlib.import_module(request["module"]), request["name"]))
        except Exception:  # the compilation itself reports what is wrong with the request
            return True
        if folder is None:
            return True
        if folder not in self._held:
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


def main() -> int:
    from predtron.engine.jit import decode_signature

    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(NICENESS)

    requests: queue.Queue = queue.Queue()
    current = _Current()
    speculation = _Speculation()
    threading.Thread(target=_read, args=(requests, current), daemon=True).start()
    waiting: list[dict] = []
    ended = False

    def runnable() -> list[dict]:
        return [r for r in waiting if r.get("priority", 0) >= 0 or speculation.allowed(r)]

    while waiting or not ended:
        if not runnable():  # idle, or only speculative requests another worker compiles: wait for news
            item = requests.get()
            if item is None:
                ended = True
            else:
                _receive(waiting, item)
                time.sleep(SETTLE)  # the requests of one call come together: choose among them
        while True:  # everything that has arrived meanwhile
            try:
                item = requests.get_nowait()
            except queue.Empty:
                break
            if item is None:
                ended = True
            else:
                _receive(waiting, item)
        if ended:  # nobody will call for the speculative ones
            waiting = [r for r in waiting if r.get("priority", 0) >= 0]
        candidates = runnable()
        if not candidates:  # only a raise of a request no longer waiting came, or nothing is left
            continue
        request = max(candidates, key=lambda r: (r.get("priority", 0), -r["id"]))
        waiting.remove(request)
        if not current.start(request.get("priority", 0) < 0):
            continue  # the input ended meanwhile: the speculative ones are dropped above
        status = "failed"
        try:
            kernel = getattr(importlib.import_module(request["module"]), request["name"])
            kernel.compile(decode_signature(request["signature"]))
            status = "ok"
        except Exception:  # answered as a failure: the caller then compiles in its own process
            pass
        current.start(False)
        sys.stdout.write(f"{status} {request['id']}\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (KeyboardInterrupt, BrokenPipeError):
        sys.exit(130)
