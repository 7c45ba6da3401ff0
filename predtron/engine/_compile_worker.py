"""The background compiler of :mod:`predtron.engine.jit`: run as ``python -m predtron.engine._compile_worker``.

Reads one request per line on standard input (JSON: ``{"module", "name", "signature"}``, the
signature encoded by :func:`predtron.engine.jit.encode_signature`), compiles the kernel
``module.name`` for it, which saves it in numba's disk cache, and answers one line per request
on standard output: ``ok <id>`` or ``failed <id>``.  It exits at the end of its input (the
process that started it has ended or closed the pipe), and quietly on an interrupt.
"""

from __future__ import annotations

import importlib
import json
import sys


def main() -> int:
    from predtron.engine.jit import decode_signature

    for line in sys.stdin:
        request = json.loads(line)
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
