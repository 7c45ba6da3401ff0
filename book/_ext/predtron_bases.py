"""Sphinx extension of the book: show only public classes after "Bases:".

The estimators derive from private classes that hold their shared code
(``_PredtronEstimator``, ``_DaskPredtron``); the API reference documents no private name, so
"Bases: _PredtronEstimator" named a class the reader cannot look up.  With
``:show-inheritance:``, autodoc emits ``autodoc-process-bases`` with the list of bases it is
about to print; this hook replaces every private base by its own bases, recursively, until
only public classes remain (``_PredtronEstimator`` becomes scikit-learn's ``BaseEstimator``),
keeping the order and dropping repeats and ``object``.
"""

from __future__ import annotations

from sphinx.application import Sphinx


def public_bases(bases: list) -> list:
    """``bases`` with every private class (its name, or a part of its predtron module's name, starts
    with ``_``: the estimators' cores of ``predtron._models`` and their adapter base) replaced by its
    public ancestors."""
    result: list = []

    def add(base) -> None:
        if base is object:
            return
        module = getattr(base, "__module__", "") or ""
        private_module = module.startswith("predtron.") and any(p.startswith("_") for p in module.split("."))
        if getattr(base, "__name__", "").startswith("_") or private_module:
            for parent in getattr(base, "__bases__", ()):
                add(parent)
        elif base not in result:
            result.append(base)

    for base in bases:
        add(base)
    return result


def _process_bases(app, name, obj, options, bases: list) -> None:
    bases[:] = public_bases(bases)


def setup(app: Sphinx) -> dict:
    app.connect("autodoc-process-bases", _process_bases)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
