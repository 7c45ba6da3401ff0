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
interrupt.  It runs at a lower scheduling priority
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


def main() -> int:
    from predtron.engine.jit import decode_signature

    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(NICENESS)

    requests: queue.Queue = queue.Queue()
    current = _Current()
    threading.Thread(target=_read, args=(requests, current), daemon=True).start()
    waiting: list[dict] = []
    ended = False
    while waiting or not ended:
        if not waiting:
            item = requests.get()
            if item is None:
                ended = True
                continue
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
        if not waiting:  # only a raise of a request no longer waiting came, or nothing is left
            continue
        request = max(waiting, key=lambda r: (r.get("priority", 0), -r["id"]))
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
