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
