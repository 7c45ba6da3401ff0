"""``python -m predtron`` and the ``predtron`` console script: the command line (:mod:`predtron.cli`).

Both start here (the console script calls :func:`main` of this module, not of :mod:`predtron.cli`),
so that a Ctrl-C while the command line is being imported ends the process at once with status
130 and one line (the command line installs its own handler, :func:`predtron.cli._interrupted`,
as soon as it runs).  What comes before this module, Python's own start-up and ``import
predtron`` (the version only), is the one window left.
"""

import os
import signal


def _interrupted_at_start(signum, frame) -> None:  # pragma: no cover (a Ctrl-C in the first milliseconds)
    os.write(2, b"predtron: interrupted\n")
    os._exit(130)


signal.signal(signal.SIGINT, _interrupted_at_start)

from predtron.cli import main  # noqa: E402 (after the handler: importing is part of the command)

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
