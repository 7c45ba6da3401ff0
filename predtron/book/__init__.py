"""What the book and the benchmarks use, kept apart from the runtime package.

* :mod:`predtron.book.experiments` -- the protocol, panels, claims and figures of the paper's
  Figure 1 experiments (needs pandas);
* :mod:`predtron.book.plotting` -- the book's matplotlib figures;
* :mod:`predtron.book.timing` -- the best-of-repeats timers of the book's cost tables and of
  ``benchmarks/``.

Nothing outside this subpackage imports it (``tests/test_architecture.py`` checks this): the
learners, the estimators, the command line and persistence run without it.
"""
