"""``python -m predtron`` and the ``predtron`` console script: the command line (:mod:`predtron.cli`).

Both start here (the console script calls :func:`main` of this module, not of :mod:`predtron.cli`),
so that a Ctrl-C while the command line is being imported ends the process at once with status
130 and one line (the command line installs its own handler, :func:`predtron.cli._interrupted`,
as soon as it runs).  What comes before this module, Python's own start-up and ``import
predtron`` (the version only), is the one window left.

Once the command has returned, :func:`main` ends the process without the interpreter's teardown
(see :func:`end`).
"""

# The handler goes in before any import that takes time: ``os`` is loaded by Python's start-up and
# ``_signal`` is built into the interpreter, where ``signal`` (its enums) and ``typing`` take
# milliseconds, a window in which a Ctrl-C used to print a traceback.
import _signal
import os


def _interrupted_at_start(signum, frame) -> None:  # pragma: no cover (a Ctrl-C in the first milliseconds)
    terminated = signum == _signal.SIGTERM
    os.write(2, b"predtron: terminated\n" if terminated else b"predtron: interrupted\n")
    os._exit(143 if terminated else 130)


_signal.signal(_signal.SIGINT, _interrupted_at_start)
_signal.signal(_signal.SIGTERM, _interrupted_at_start)

import atexit  # noqa: E402 (after the handler, as every import below)
import sys  # noqa: E402
from typing import NoReturn  # noqa: E402

from predtron.cli import main as command_line  # noqa: E402 (importing is part of the command)

__all__ = ["end", "main"]


def end(status: int) -> NoReturn:
    """End the program with ``status`` once its command has returned, skipping the interpreter's teardown.

    By then the command has written and closed its files and joined its threads; what a normal
    exit would add is freeing every object, which in a process that ran numba kernels means
    disposing of LLVM's compiled code: about 0.15 s, a tenth of a one-second streamed fit
    (``benchmarks/streaming.py``).  So the standard streams are flushed, the ``atexit`` handlers
    run (those of Dask, numba, logging, or of a script that runs the program with ``runpy``), and
    the process ends at once with ``os._exit``.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away, a closed stream: nothing more to say
            pass
    atexit._run_exitfuncs()
    os._exit(status)


def main() -> NoReturn:
    """The program: run the command line on ``sys.argv`` and end the process with its exit status
    (:func:`predtron.cli.main` returns it; :func:`end` ends the process)."""
    end(command_line())


if __name__ == "__main__":
    main()
