"""Sphinx extension of the book: number the boxes, figures and listings of the appendix.

The appendix is an unnumbered part of the table of contents, so Sphinx gives its pages no
section number.  ``numfig`` then numbers an appendix page's figures, listings and tables, and
sphinx-proof and sphinx-exercise their boxes, with one counter that runs on across all
unnumbered pages and carries no prefix: the second appendix page with an exercise opens with
"Exercise 2", and an appendix "Fig. 11" sits before chapter 11's "Fig. 11.1".

After Sphinx has assigned the numbers (the ``env-get-updated`` event, on every build), this
hook renumbers every numbered object of an appendix page ``A<k>_<name>`` as ``A<k>.1``,
``A<k>.2``, ... per kind (figure, code listing, table, theorem, algorithm, exercise...), in
the order Sphinx found them.  Captions, box titles, ``{numref}`` and ``{prf:ref}`` all read
these numbers from ``env.toc_fignumbers``, so they agree on every page.
"""

from __future__ import annotations

import re

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

#: A document of the appendix: its page name starts with A and the appendix number.
APPENDIX_PAGE = re.compile(r"(?:^|/)(A\d+)_[^/]*$")


def appendix_prefix(docname: str) -> str | None:
    """``"A1"`` for ``book/A1_variants``, ``None`` for a page outside the appendix."""
    match = APPENDIX_PAGE.search(docname)
    return match.group(1) if match else None


def renumber_appendix(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Give every numbered object of an appendix page the number ``(A<k>, i)``."""
    changed = []
    for docname, kinds in env.toc_fignumbers.items():
        prefix = appendix_prefix(docname)
        if prefix is None:
            continue
        for numbers in kinds.values():
            in_order = sorted(numbers, key=numbers.__getitem__)
            for index, key in enumerate(in_order, start=1):
                numbers[key] = (prefix, index)
        changed.append(docname)
    return changed


def setup(app: Sphinx) -> dict:
    # After the toctree collector (priority 500) has assigned the figure numbers.
    app.connect("env-get-updated", renumber_appendix, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
