"""The background compiler of :mod:`predtron.engine.jit` (which starts it as ``predtron.engine._compile_worker``).

Reads one request per line on standard input (JSON: ``{"id", "module", "name", "signature",
"priority"}``, the signature encoded by :func:`predtron.engine.jit.encode_signature`),
compiles the kernel ``module.name`` for it, which saves it in numba's disk cache, and answers
one line per request on standard output: ``ok <id>`` or ``failed <id>``.  Of the requests
waiting, the one with the highest priority goes first (a pass kernel before a small scan),
then the oldest.  It exits at the end of its input (the process that started it has ended
or closed the pipe) once the waiting requests are answered, and quietly on an interrupt.  It runs
at a lower scheduling priority (:data:`NICENESS`) than the process it serves.
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


def _read(requests: queue.Queue) -> None:
    for line in sys.stdin:
        requests.put(json.loads(line))
    requests.put(None)


#: The worker's scheduling priority, below the process it serves: on a machine with few cores the
#: fit running the twins keeps its core, and the compiler takes what is left.
NICENESS = 10


def main() -> int:
    from predtron.engine.jit import decode_signature

    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(NICENESS)

    requests: queue.Queue = queue.Queue()
    threading.Thread(target=_read, args=(requests,), daemon=True).start()
    waiting: list[dict] = []
    ended = False
    while waiting or not ended:
        if not waiting:
            item = requests.get()
            if item is None:
                ended = True
                continue
            waiting.append(item)
            time.sleep(SETTLE)  # the requests of one call come together: choose among them
        while True:  # everything that has arrived meanwhile
            try:
                item = requests.get_nowait()
            except queue.Empty:
                break
            if item is None:
                ended = True
            else:
                waiting.append(item)
        request = max(waiting, key=lambda r: (r.get("priority", 0), -r["id"]))
        waiting.remove(request)
        status = "failed"
        try:
            kernel = getattr(importlib.import_module(request["module"]), request["name"])
            kernel.compile(decode_signature(request["signature"]))
            status = "ok"
        except Exception:  # answered as a failure: the caller then compiles in its own process
            pass
        sys.stdout.write(f"{status} {request['id']}\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (KeyboardInterrupt, BrokenPipeError):
        sys.exit(130)
