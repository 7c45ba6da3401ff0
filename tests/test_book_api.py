"""The book's API reference (book/api/) documents every public module of the package."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _public_modules() -> set[str]:
    modules = set()
    for path in (ROOT / "predtron").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if any(part.startswith("_") for part in parts if part != "__init__"):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules.add(".".join(parts))
    return modules


def _documented_modules() -> set[str]:
    text = "\n".join(p.read_text() for p in (ROOT / "book" / "api").glob("*.md"))
    return set(re.findall(r"^\.\. automodule:: (\S+)", text, flags=re.MULTILINE))


def test_every_public_module_has_an_api_entry():
    missing = sorted(_public_modules() - _documented_modules())
    assert not missing, f"add these modules to a page of book/api/: {missing}"


def test_api_pages_name_only_existing_modules():
    stale = sorted(_documented_modules() - _public_modules())
    assert not stale, f"book/api/ documents modules that no longer exist: {stale}"


def test_api_pages_are_in_the_table_of_contents():
    toc = (ROOT / "_toc.yml").read_text()
    pages = sorted(p.stem for p in (ROOT / "book" / "api").glob("*.md"))
    assert pages and all(f"book/api/{name}" in toc for name in pages)
