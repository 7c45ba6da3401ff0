"""The book's sources (notebooks and Markdown pages in ``_toc.yml``), read as text.

These checks need no build: they look for the causes of rendering faults that the HTML
checks of ``test_book_html.py`` see only after a full build, and for the book's structure.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOC = ROOT / "_toc.yml"


def _toc_files() -> list[Path]:
    """The source of every page of the table of contents that exists in this checkout."""
    names = re.findall(r"(?:file|root):\s*(\S+)", TOC.read_text())
    found = []
    for name in names:
        for suffix in (".ipynb", ".md"):
            if (ROOT / f"{name}{suffix}").exists():
                found.append(ROOT / f"{name}{suffix}")
    return found


def _markdown_cells(path: Path) -> list[str]:
    if path.suffix == ".md":
        return [path.read_text(encoding="utf-8")]
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"]


def displays_after_text(text: str) -> list[str]:
    """Opening ``$$`` lines that directly follow a line of text (MyST then reads no display)."""
    found, in_math, previous = [], False, ""
    for line in text.split("\n"):
        stripped = line.strip()
        if not in_math and stripped.startswith("$$"):
            if previous and not re.match(r"^:\w[\w-]*:|^(?:```+|:::+)", previous):
                found.append(previous[:60])
            in_math = "$$" not in stripped[2:]
        elif in_math and "$$" in stripped:
            in_math = False
        previous = stripped
    return found


def test_the_display_check_finds_a_display_after_a_text_line():
    assert displays_after_text("the hinge loss\n$$\n\\phi(t)\n$$\n") == ["the hinge loss"]
    assert displays_after_text("the hinge loss\n\n$$\n\\phi(t)\n$$\nand more\n") == []
    assert displays_after_text(":label: x\n$$a$$ (eq-a)\n") == []


def test_every_display_equation_starts_after_a_blank_line():
    # A `$$` line right after a text line is read as part of the paragraph: the formula is
    # shown between literal "$" signs (Corollary 3.1, Propositions 3.2 and 4.1, Corollary 5.1).
    bad = {}
    for path in _toc_files():
        found = [hit for text in _markdown_cells(path) for hit in displays_after_text(text)]
        if found:
            bad[path.name] = found
    assert not bad, f"display math right after a text line (add a blank line before `$$`): {bad}"


def _headings(path: Path) -> list[str]:
    headings = []
    for text in _markdown_cells(path):
        in_code = False  # inside a fenced code block (```python ... ```), where "#" is a comment
        for line in text.split("\n"):
            if in_code and re.match(r"^```+\s*$", line.strip()):
                in_code = False
            elif re.match(r"^```+\w", line.strip()):
                in_code = True
            elif not in_code and re.match(r"^#{1,6} ", line):
                headings.append(line.strip())
    return headings


def test_no_section_comes_after_a_chapters_exercises():
    bad = {}
    checked = 0
    for path in _toc_files():
        headings = _headings(path)
        exercises = [i for i, h in enumerate(headings) if re.fullmatch(r"#+ Exercises?", h)]
        if not exercises:
            continue
        checked += 1
        after = headings[exercises[0] + 1:]
        if after:
            bad[path.name] = after
    assert checked >= 15, f"only {checked} chapters with an Exercises section"
    assert not bad, f"sections after the Exercises (move them before the Summary): {bad}"


# The numbered results of the paper (one counter for theorems, lemmas and corollaries; the
# algorithms, displayed equations and figures separately), as its text names them.
PAPER_RESULTS = ("eq. (1)", "eq. (2)", "Algorithm 1", "Theorem 1", "Corollary 2", "Lemma 3", "Lemma 4",
                 "Corollary 5", "Corollary 6", "Corollary 7", "Corollary 8", "Algorithm 3", "Figure 1")
CONCORDANCE = ROOT / "book" / "A5_concordance.md"


def _concordance_rows() -> dict[str, str]:
    rows = {}
    for line in CONCORDANCE.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 5 and not set(cells[0]) <= {"-"}:
            rows[cells[0]] = line
    return rows


def test_the_concordance_lists_every_numbered_result_of_the_paper():
    rows = _concordance_rows()
    for result in PAPER_RESULTS:
        found = [row for name, row in rows.items() if name.startswith(result)]
        assert len(found) == 1, f"{result} is not (or more than once) a row of {CONCORDANCE.name}"
        cells = found[0].strip().strip("|").split("|")
        assert all(cell.strip() for cell in cells), f"an empty column in the row of {result}"
        assert re.search(r"\{(?:prf:ref|eq|numref)\}", cells[1]), f"{result}: no reference to the book's box"
    assert "book/A5_concordance" in TOC.read_text()
    assert "A5_concordance" in (ROOT / "book" / "index.md").read_text(), "the start page does not link it"


def _boxes() -> list[tuple[str, str, str]]:
    """(file, title, body) of every sphinx-proof box of the book."""
    boxes = []
    for path in _toc_files():
        for text in _markdown_cells(path):
            for match in re.finditer(r"```\{prf:\w+\}([^\n]*)\n(.*?)\n```(?!\w)", text, re.S):
                boxes.append((path.name, match.group(1).strip(), match.group(2)))
    return boxes


def test_every_box_with_a_paper_number_links_to_the_concordance():
    numbered = re.compile(r"(?:Theorem|Lemma|Corollary|Algorithm|Proposition) \d+ of the paper|paper's Algorithm \d+")
    boxes = [box for box in _boxes() if numbered.search(box[1])]
    assert len(boxes) >= 10, f"only {len(boxes)} boxes carry a paper number"
    missing = [(name, title) for name, title, body in boxes if "A5_concordance" not in body]
    assert not missing, f"boxes with a paper number and no link to the concordance: {missing}"
    rows = " ".join(_concordance_rows())
    for _, title, _ in boxes:
        number = re.search(r"(Theorem|Lemma|Corollary|Algorithm|Proposition) (\d+)", title)
        assert f"{number.group(1)} {number.group(2)}" in rows, f"{title!r} is not in the concordance"


def test_citations_of_the_papers_equations_are_references():
    # "eq. (1)" or "the surrogate (2)" typed as text points nowhere; {eq}`eq-pred` links to the
    # numbered display. Captions of included listings are plain text and may name them.
    typed = re.compile(r"(?:eqs?\.|surrogate|decoding|ties in|maximisers of|dual)\s+\(\d\)")
    bad = {}
    for path in [p for p in _toc_files() if p != CONCORDANCE]:  # its first column names them
        for text in _markdown_cells(path):
            lines = [line for line in text.split("\n") if not line.startswith(":caption:")]
            found = [m.group(0) for line in lines for m in typed.finditer(line)]
            if found:
                bad.setdefault(path.name, []).extend(found)
    assert not bad, f"equations cited as text instead of {{eq}} references: {bad}"
    framework = "".join(_markdown_cells(ROOT / "book" / "02_framework.ipynb"))
    labels = re.findall(r"\$\$ \((eq-[\w-]+)\)", framework)
    assert labels[:2] == ["eq-pred", "eq-surrogate"], f"the paper's eqs. (1) and (2) are not the first two: {labels}"


def test_file_names_follow_the_parts_of_the_book():
    toc = TOC.read_text()
    parts = re.split(r"\n  - caption: ", toc)[1:]
    captions = [part.split("\n")[0].strip('"') for part in parts]
    assert captions[:4] == ["Part I: the Predtron paper", "Part II: related algorithms", "Part III: practice",
                            "Appendix"], captions
    numbered = [name for part in parts[:3] for name in re.findall(r"file:\s*book/(\S+)", part)]
    assert [int(name[:2]) for name in numbered] == list(range(1, len(numbered) + 1)), numbered
    appendix = re.findall(r"file:\s*book/(\S+)", parts[3])
    assert all(re.match(rf"A{i}_", name) for i, name in enumerate(appendix, start=1)), appendix


def test_every_chapters_setup_cell_is_hidden():
    # The setup (jit policy, %config, imports, log silencing) runs under nbval like any cell
    # but is collapsed in the HTML, so a chapter opens with its text, not 15-50 lines of setup.
    hiding = {"hide-input", "remove-input", "hide-cell", "remove-cell"}
    shown = []
    notebooks = [p for p in _toc_files() if p.suffix == ".ipynb"]
    for path in notebooks:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] == "code" and "PREDTRON_JIT" in "".join(cell["source"]):
                if not hiding & set(cell["metadata"].get("tags", [])):
                    shown.append(path.name)
    assert len(notebooks) >= 15
    assert not shown, f"setup cells shown in full: {shown}"


def test_a_notebook_kernel_that_dies_while_it_starts_is_started_again(monkeypatch):
    """book/conftest.py: CI's two notebook runs at a time made a kernel die while it started (its
    port taken by the other run's kernel), failing every cell of book/04_multiclass.ipynb, which
    passed when run again.  Only that failure is retried, at most ATTEMPTS times."""
    import importlib.util

    import pytest

    kernel = pytest.importorskip("nbval.kernel")
    monkeypatch.setattr(kernel, "start_new_kernel", kernel.start_new_kernel)  # the conftest's patch, undone
    spec = importlib.util.spec_from_file_location("book_conftest", ROOT / "book" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert "retrying" in kernel.start_new_kernel.__qualname__  # nbval's start is wrapped
    calls = []

    def dies_twice(**kwargs):
        calls.append(kwargs)
        if len(calls) < 3:
            raise RuntimeError(module.DIED)
        return "manager", "client"

    assert module.retrying(dies_twice)(kernel_name="python3") == ("manager", "client") and len(calls) == 3

    def always(message):
        def start(**kwargs):
            calls.append(kwargs)
            raise RuntimeError(message)
        return start

    for message, tries in ((module.DIED, module.ATTEMPTS), ("No such kernel named python3", 1)):
        calls.clear()
        with pytest.raises(RuntimeError, match=message):
            module.retrying(always(message))()
        assert len(calls) == tries
