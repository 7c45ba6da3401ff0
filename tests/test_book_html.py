"""The built book's HTML, read as text: numbered references, appendix numbers, API names.

This test builds nothing: it reads the HTML of ``bash .ci/build-book`` in ``_build/html``
and skips, saying so, when there is none.  Unlike ``test_book_browser.py`` it needs no
browser: what it checks is in the HTML Sphinx writes.
"""

from __future__ import annotations

import ast
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
TOC = ROOT / "_toc.yml"

# The words Sphinx, sphinx-proof and sphinx-exercise put before the number of a reference.
KINDS = (
    "Theorem|Lemma|Corollary|Proposition|Algorithm|Definition|Remark|Conjecture|Example|"
    "Exercise|Solution|Fig\\.|Figure|Listing|Table|Section|Equation"
)
# "Theorem ." or "Exercise )": the number Sphinx puts between them is missing.
UNNUMBERED = re.compile(rf"(?:^|\W)(?:{KINDS})\s+[.,;:)]")
SKIP_TEXT = {"script", "style", "pre", "code", "textarea"}


def _pages() -> list[Path]:
    files = re.findall(r"file:\s*(\S+)", TOC.read_text())
    root = re.search(r"root:\s*(\S+)", TOC.read_text())
    return [HTML / f"{name}.html" for name in ([root.group(1)] if root else []) + files]


class _Page(HTMLParser):
    """Internal references (their text), caption numbers, visible text, field-list names."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str]] = []  # (tag, classes)
        self.references: list[str] = []
        self.numbers: list[str] = []
        self.text: list[str] = []
        self.strong: list[str] = []
        self._ref_depth: list[int] = []
        self._ref_text: list[str] = []

    def handle_starttag(self, tag, attrs):
        classes = dict(attrs).get("class") or ""
        # Internal references of the text (not the page's table of contents, not API names).
        if (tag == "a" and "reference internal" in classes and "nav-link" not in classes
                and not dict(attrs).get("title")):
            self._ref_depth.append(len(self.stack))
            self._ref_text.append("")
        if tag not in ("br", "img", "meta", "link", "input", "hr", "source", "wbr", "col"):
            self.stack.append((tag, classes))

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, _ = self.stack.pop()
            if self._ref_depth and len(self.stack) == self._ref_depth[-1]:
                self._ref_depth.pop()
                self.references.append(" ".join(self._ref_text.pop().split()))
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self._ref_text:
            self._ref_text[-1] += data
        if any("caption-number" in classes for _, classes in self.stack):
            self.numbers.append(data.strip())
        if self.stack and self.stack[-1][0] == "strong":
            self.strong.append(data)
        if not any(tag in SKIP_TEXT for tag, _ in self.stack):
            self.text.append(data)


@pytest.fixture(scope="module")
def pages() -> dict[str, _Page]:
    if not (HTML / "index.html").exists():
        pytest.skip(f"no built book at {HTML} (run `bash .ci/build-book` first)")
    result = {}
    for path in _pages():
        assert path.exists(), f"{path.relative_to(ROOT)} is in _toc.yml but not in the build"
        page = _Page()
        page.feed(path.read_text(encoding="utf-8"))
        result[path.relative_to(HTML).as_posix()] = page
    return result


def test_every_reference_to_a_numbered_object_shows_its_number(pages):
    bad = {}
    for name, page in pages.items():
        wrong = [text for text in page.references
                 if "??" in text or re.match(rf"^(?:{KINDS})\s*(?:[.,:)]|$)", text)]
        if wrong:
            bad[name] = wrong[:5]
    assert not bad, f"references rendered with no number (first ones per page): {bad}"


def test_no_page_shows_an_unresolved_or_empty_number(pages):
    bad = {}
    for name, page in pages.items():
        text = " ".join(page.text)
        found = [m.group(0) for m in UNNUMBERED.finditer(text)] + (["??"] if "??" in text else [])
        found += [n for n in page.numbers if not re.search(r"\d", n)]
        if found:
            bad[name] = found[:5]
    assert not bad, f"a kind of object with no number after it (first ones per page): {bad}"


def test_no_directive_is_shown_as_text(pages):
    # A directive whose fence MyST could not read (a backtick in a fence's info string, for
    # instance) is shown as a paragraph starting with its fence and options.
    bad = {name: re.findall(r"```\{[^}]*\}.{0,40}|\n:(?:label|nonumber|class): .{0,20}", "\n".join(page.text))
           for name, page in pages.items()}
    bad = {name: found[:3] for name, found in bad.items() if found}
    assert not bad, f"directives shown as text instead of rendered: {bad}"


def test_appendix_objects_carry_their_page_prefix(pages):
    checked = 0
    for name, page in pages.items():
        match = re.search(r"/(A\d+)_", name)
        if not match:
            continue
        wrong = [n for n in page.numbers if not re.match(rf"^\S+ {match.group(1)}\.\d+", n)]
        assert not wrong, f"{name}: numbers without the prefix {match.group(1)}.: {wrong}"
        checked += len(page.numbers)
    assert checked >= 10, f"only {checked} numbered objects on the appendix pages"


def test_outside_the_appendix_no_number_has_an_appendix_prefix(pages):
    wrong = {name: [n for n in page.numbers if re.search(r" A\d+\.", n)]
             for name, page in pages.items() if not re.search(r"/A\d+_", name)}
    wrong = {name: numbers for name, numbers in wrong.items() if numbers}
    assert not wrong, wrong


# Text outside code and outside the elements MathJax typesets (class "math") that betrays math
# or a MyST role left unparsed: a dollar sign (MyST's math delimiter; the book's prose has no
# other use for one), a TeX command or delimiter, or a role such as {cite:p}`...` shown raw.
# A ``$$`` display right after a text line inside a {prf:...} box used to come out as
# "$" + inline math + "$", with the rest of the box garbled.
STRAY_MATH = re.compile(
    r"\$|\\[()\[\]]|\\(?:frac|tfrac|sum|prod|sqrt|le|ge|leq|geq|ne|in|langle|rangle|eta|gamma|tau|sigma"
    r"|alpha|lambda|mathbb|mathrm|operatorname|rep|pred|text|cdot|ldots|max|min|begin|end|left|right)\b"
    r"|\{[a-z]+(?::[a-z]+)?\}`"
)
PROSE_SKIP = {"script", "style", "pre", "code", "textarea", "svg"}


class _Prose(HTMLParser):
    """The visible text of a page outside code and outside typeset math."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[bool] = []  # per open element: is it (inside) skipped content
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in ("br", "img", "meta", "link", "input", "hr", "source", "wbr", "col"):
            return
        classes = (dict(attrs).get("class") or "").split()
        skip = tag in PROSE_SKIP or (tag in ("span", "div") and "math" in classes)
        self.stack.append(skip or bool(self.stack and self.stack[-1]))

    def handle_endtag(self, tag):
        if tag not in ("br", "img", "meta", "link", "input", "hr", "source", "wbr", "col") and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1]:
            return
        for match in STRAY_MATH.finditer(data):
            start = max(match.start() - 40, 0)
            self.found.append(" ".join(data[start:match.end() + 40].split()))


def test_no_math_delimiter_tex_or_raw_role_is_left_in_the_text(pages):
    bad = {}
    for name in pages:
        prose = _Prose()
        prose.feed((HTML / name).read_text(encoding="utf-8"))
        if prose.found:
            bad[name] = prose.found[:4]
    assert not bad, f"math or roles left as text outside MathJax containers (first ones per page): {bad}"


def test_the_stray_math_check_sees_the_garbling_of_a_display_after_a_text_line():
    # What MyST wrote for Proposition 4.1 before the fix: "$" + inline math + "$", a raw role.
    garbled = ('<p>multiclass hinge loss $<span class="math notranslate nohighlight">\\(\\phi(t, y)\\)</span>$'
               ' shown with {cite:p}`shalevshwartz2014understanding` and \\frac{1}{2}</p>')
    fine = '<p>the bound <span class="math notranslate nohighlight">\\(\\frac{R^2}{\\gamma^2}\\)</span> holds</p>'
    prose = _Prose()
    prose.feed(garbled)
    assert len(prose.found) >= 4
    prose = _Prose()
    prose.feed(fine + "<pre>$HOME \\frac</pre>")
    assert prose.found == []


def _documented_attributes() -> set[str]:
    """Every name in a numpydoc ``Attributes`` section of a public class of a public module."""
    names = set()
    for path in (ROOT / "predtron").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if any(part.startswith("_") and part != "__init__" for part in parts):
            continue  # a private module: the API reference does not document it
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
                continue
            doc = ast.get_docstring(node) or ""
            section = re.search(r"\nAttributes\n-+\n(.*?)(?:\n\n\S|\Z)", doc, re.S)
            if section:
                names.update(re.findall(r"^(\w+)\s*:", section.group(1), re.M))
    return names


def _runtime_attributes() -> set[str]:
    """Attribute names of the ``Attributes`` sections of the documented classes' docstrings as
    Python sees them: the Dask estimators build theirs at import (``__doc__ = _DOC.format(...)``),
    which the source's docstrings do not show."""
    import importlib
    import inspect

    names = set()
    for module_name in ("predtron.sklearn", "predtron.dask.estimators"):
        module = importlib.import_module(module_name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__name__.startswith("_") or not cls.__module__.startswith("predtron"):
                continue
            doc = inspect.getdoc(cls) or ""
            section = re.search(r"\nAttributes\n-+\n(.*?)(?:\n\n\S|\Z)", doc, re.S)
            if section:
                names.update(re.findall(r"^(\w+)\s*:", section.group(1), re.M))
    return names


def test_api_attribute_names_keep_their_trailing_underscore(pages):
    documented = _documented_attributes() | _runtime_attributes()
    assert {"classes_", "coef_", "n_rounds_", "n_mistakes_"} <= documented
    shown = {text for name, page in pages.items() if name.startswith("book/api/") for text in page.strong}
    # Without the fix of _config.yml, "classes_" is shown as "classes" (and "a_, b_ : int"
    # as one garbled entry), so these names would be missing.
    missing = sorted(documented - shown)
    assert not missing, f"attributes of the docstrings not shown under their own name: {missing[:10]}"


def test_min_and_max_block_have_their_own_descriptions():
    page = HTML / "book" / "api" / "learners.html"
    if not page.exists():
        pytest.skip(f"no built book at {HTML}")
    html = page.read_text(encoding="utf-8")
    descriptions = []
    for name in ("MIN_BLOCK", "MAX_BLOCK"):
        match = re.search(rf'id="predtron\.learners\.base\.{name}".*?<dd><p>(.*?)</p>', html, re.S)
        assert match, f"{name} is not documented in {page.name}"
        descriptions.append(match.group(1))
    assert descriptions[0] != descriptions[1]


def test_citation_labels_are_short_and_ascii():
    # pybtex's alpha labels abbreviate every author to a letter; a name it cannot read
    # (a LaTeX accent in braces) comes out whole, as in "[JarvelinKekalainen02]".
    page = HTML / "book" / "references.html"
    if not page.exists():
        pytest.skip(f"no built book at {HTML}")
    labels = re.findall(r'class="label"><span class="fn-bracket">\[</span>([^<]*)<', page.read_text(encoding="utf-8"))
    assert len(labels) >= 10
    long = [label for label in labels if not re.fullmatch(r"[A-Za-z]{2,6}\+?\d{2}[a-z]?", label)]
    assert not long, f"citation labels that spell out names: {long}"


def test_only_the_mathjax_files_the_pages_load_are_shipped():
    mathjax = HTML / "_static" / "mathjax"
    if not mathjax.exists():
        pytest.skip(f"no built book at {HTML}")
    assert (mathjax / "tex-chtml.js").exists()
    assert list((mathjax / "output" / "chtml" / "fonts" / "woff-v2").glob("MathJax_Main-Regular.woff"))
    others = sorted(p.name for p in mathjax.glob("*.js") if p.name != "tex-chtml.js")
    assert not others, f"MathJax components no page loads: {others}"
    size = sum(p.stat().st_size for p in mathjax.rglob("*") if p.is_file())
    assert size < 4_000_000, f"_static/mathjax holds {size / 1e6:.1f} MB"


# The two hooks of book/_ext, on small inputs (these run without a built book).
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import predtron_appendix  # noqa: E402
import predtron_mathjax  # noqa: E402


def test_appendix_hook_numbers_each_kind_per_page_in_order():
    env = SimpleNamespace(toc_fignumbers={
        "book/A4_cost": {"figure": {"f2": (9,), "f1": (7,)}, "exercise": {"e1": (2,)}},
        "book/02_framework": {"figure": {"g": (2, 1)}},
    })
    changed = predtron_appendix.renumber_appendix(None, env)
    assert changed == ["book/A4_cost"]
    assert env.toc_fignumbers["book/A4_cost"] == {"figure": {"f1": ("A4", 1), "f2": ("A4", 2)},
                                                  "exercise": {"e1": ("A4", 1)}}
    assert env.toc_fignumbers["book/02_framework"] == {"figure": {"g": (2, 1)}}
    assert predtron_appendix.appendix_prefix("book/A12_x") == "A12"
    assert predtron_appendix.appendix_prefix("book/10_reductions") is None


def test_mathjax_hook_keeps_the_component_its_fonts_and_extensions(tmp_path):
    root = tmp_path / "_static" / "mathjax"
    keep = ["tex-chtml.js", "output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff",
            "input/tex/extensions/cancel.js"]
    drop = ["tex-svg.js", "sre/mathmaps/en.json", "output/svg.js", "a11y/explorer.js"]
    for name in keep + drop:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    app = SimpleNamespace(outdir=str(tmp_path), config=SimpleNamespace(mathjax_path="mathjax/tex-chtml.js"))
    predtron_mathjax.prune_mathjax(app, None)
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == sorted(keep)
    assert not (root / "sre").exists() and not (root / "a11y").exists()
    app.config.mathjax_path = "mathjax/tex-svg.js"
    with pytest.raises(ValueError, match="mathjax_path"):
        predtron_mathjax.prune_mathjax(app, None)


def test_a_chapters_number_is_the_number_its_file_name_starts_with(pages):
    checked = 0
    for name in pages:
        match = re.match(r"book/(\d\d)_", name)
        if not match:
            continue
        html = (HTML / name).read_text(encoding="utf-8")
        number = re.search(r'<h1><span class="section-number">(\d+)\.', html)
        assert number, f"{name}: no numbered title"
        assert int(number.group(1)) == int(match.group(1)), f"{name} is shown as chapter {number.group(1)}"
        checked += 1
    assert checked >= 15


def test_the_papers_equations_carry_the_papers_numbers():
    page = HTML / "book" / "02_framework.html"
    if not page.exists():
        pytest.skip(f"no built book at {HTML}")
    html = page.read_text(encoding="utf-8")
    for label, number in (("eq-pred", 1), ("eq-surrogate", 2)):
        match = re.search(rf'id="equation-{label}".*?<span class="eqno">\((\d+)\)', html, re.S)
        assert match and int(match.group(1)) == number, f"{label} is not numbered ({number})"
    # a citation elsewhere is a link to the numbered display
    multiclass = (HTML / "book" / "04_multiclass.html").read_text(encoding="utf-8")
    assert re.search(r'href="02_framework.html#equation-eq-surrogate"', multiclass)


def test_no_unlinked_proof_index_page_is_built():
    if not (HTML / "index.html").exists():
        pytest.skip(f"no built book at {HTML}")
    assert not list(HTML.glob("prf-*.html")), "sphinx-proof's index of raw labels is built but linked from nowhere"
    concordance = (HTML / "book" / "index.html").read_text(encoding="utf-8")
    assert 'href="A5_concordance.html"' in concordance


def test_dask_pages_keep_the_trailing_underscore_of_attribute_names(pages):
    # The Dask estimators' docstrings name the fitted attributes of the local estimator and
    # their own (n_shards_, mixing_weights_, ...): none may be shown without its underscore.
    html = (HTML / "book" / "api" / "dask.html").read_text(encoding="utf-8")
    names = {"n_shards_", "shard_losses_", "mixing_weights_", "model_"}
    missing = sorted(name for name in names if not re.search(rf"\b{name}(?!\w)", html))
    assert not missing, f"fitted attributes of the Dask estimators not shown under their own name: {missing}"
    # (the Attributes sections the Dask docstrings get at import are checked, with the other
    # estimators', by test_api_attribute_names_keep_their_trailing_underscore)


def test_bases_name_no_private_class(pages):
    bad = {}
    for name in pages:
        if not name.startswith("book/api/"):
            continue
        html = (HTML / name).read_text(encoding="utf-8")
        found = re.findall(r"Bases: (.*?)</p>", html, re.S)
        private = [re.sub(r"<[^>]+>", "", b) for b in found if re.search(r">_[A-Za-z]", b)]
        if private:
            bad[name] = private[:3]
    assert not bad, f"'Bases:' names a private class the reference does not document: {bad}"


def test_no_function_or_class_is_documented_twice(pages):
    import importlib
    import inspect

    seen: dict[int, str] = {}
    twice = []
    for name in pages:
        if not name.startswith("book/api/"):
            continue
        html = (HTML / name).read_text(encoding="utf-8")
        for dotted in re.findall(r'<dt class="sig sig-object py" id="(predtron\.[\w.]+)"', html):
            module_name, _, attr = dotted.rpartition(".")
            try:
                obj = getattr(importlib.import_module(module_name), attr)
            except (ImportError, AttributeError):
                continue  # a method or attribute: its class is what is compared
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if id(obj) in seen and seen[id(obj)] != dotted:
                twice.append((seen[id(obj)], dotted))
            seen.setdefault(id(obj), dotted)
    assert len(seen) > 50
    assert not twice, f"objects documented under two names: {twice}"


def test_bases_hook_replaces_private_classes_by_their_public_ancestors():
    import predtron_bases

    class Public:
        pass

    class _Private(Public):
        pass

    class _Deeper(_Private, dict):
        pass

    assert predtron_bases.public_bases([_Deeper, Public]) == [Public, dict]
    assert predtron_bases.public_bases([object]) == []


def test_code_cells_and_their_outputs_wrap_at_the_column(pages):
    # At 1280 px most code and output blocks of chapters 2, 9, 10 and 15 scrolled sideways;
    # the book's stylesheet wraps them (and shrinks displayed tables), on every chapter page.
    css = (HTML / "_static" / "predtron.css").read_text(encoding="utf-8")
    rule = re.search(r"div\.cell div\.highlight pre[^{]*\{([^}]*)\}", css)
    assert rule and "pre-wrap" in rule.group(1), "cell code and outputs do not wrap"
    assert re.search(r"table\.dataframe\s*\{[^}]*font-size", css)
    chapters = [name for name in pages if re.match(r"book/\d\d_", name)]
    unstyled = [name for name in chapters if "predtron.css" not in (HTML / name).read_text(encoding="utf-8")]
    assert chapters and not unstyled, f"chapters without the book's stylesheet: {unstyled}"
