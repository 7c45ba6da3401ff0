"""Sphinx extension of the book: ship only the MathJax files the pages load.

``sphinx-mathjax-offline`` copies the whole MathJax 3 distribution (about 24 MB: every
combined component, the SVG output, the speech rule engine) into ``_static/mathjax`` when
the build finishes, and points the pages at one component, ``tex-chtml.js``.  That component
fetches, at run time, only the CHTML web fonts a formula needs and, for a TeX command that
is not built in, its extension from ``input/tex/extensions`` (MathJax's autoload).  After
the copy (a later ``build-finished`` handler), this hook deletes everything else, so the
site stays readable offline at a tenth of the weight.  The menu's optional speech and
explorer add-ons (``sre``, ``a11y``) are not shipped; assistive MathML for screen readers
is part of ``tex-chtml.js``.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx

#: What ``tex-chtml.js`` loads: itself, its fonts, and the TeX extensions it autoloads.
KEEP = ("tex-chtml.js", "output/chtml/fonts/woff-v2", "input/tex/extensions")


def prune_mathjax(app: Sphinx, exc: Exception | None) -> None:
    """Delete the files of ``_static/mathjax`` that ``tex-chtml.js`` never loads."""
    root = Path(app.outdir) / "_static" / "mathjax"
    if exc is not None or not (root / "tex-chtml.js").exists():
        return
    if not str(app.config.mathjax_path).endswith("mathjax/tex-chtml.js"):
        raise ValueError(
            f"mathjax_path is {app.config.mathjax_path!r}; predtron_mathjax keeps only the files "
            "of mathjax/tex-chtml.js (remove this extension or update KEEP)"
        )
    keep = [root / name for name in KEEP]
    for path in [p for p in root.rglob("*") if p.is_file()]:
        if not any(path == k or k in path.parents for k in keep):
            path.unlink()
    for folder in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()


def setup(app: Sphinx) -> dict:
    # After sphinx-mathjax-offline's copy (a build-finished handler at the default priority).
    app.connect("build-finished", prune_mathjax, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
