"""``python -m predtron``: the ``predtron`` command line (:mod:`predtron.cli`)."""

from predtron.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
