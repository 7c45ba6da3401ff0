"""The GitHub Pages workflow builds the book with the README's command and publishes it."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"


def _workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def _steps() -> list[dict]:
    jobs = _workflow()["jobs"]
    assert len(jobs) == 1, f"expected one job, found {sorted(jobs)}"
    return next(iter(jobs.values()))["steps"]


def test_the_workflow_is_valid_yaml_with_a_trigger_and_pages_permissions():
    workflow = _workflow()
    # YAML 1.1 reads the key `on` as True.
    trigger = workflow.get("on", workflow.get(True))
    assert trigger and "main" in trigger["push"]["branches"]
    assert workflow["permissions"]["pages"] == "write"
    assert workflow["permissions"]["id-token"] == "write"


def test_the_book_is_built_by_the_readmes_command():
    runs = [step["run"].strip() for step in _steps() if "run" in step]
    assert runs == ["bash .ci/build-book"], runs
    readme = (ROOT / "README.md").read_text()
    assert "bash .ci/build-book" in readme
    assert (ROOT / ".ci" / "build-book").exists()
    assert "jupyter-book build" in (ROOT / ".ci" / "build-book").read_text()


def test_the_built_html_is_uploaded_then_deployed_after_the_build():
    steps = _steps()
    uses = [step.get("uses", "") for step in steps]
    build = next(i for i, step in enumerate(steps) if step.get("run", "").strip() == "bash .ci/build-book")
    upload = next(i for i, name in enumerate(uses) if name.startswith("actions/upload-pages-artifact@"))
    deploy = next(i for i, name in enumerate(uses) if name.startswith("actions/deploy-pages@"))
    assert build < upload < deploy
    assert steps[upload]["with"]["path"] == "_build/html"
    python = next(step for step in steps if step.get("uses", "").startswith("actions/setup-python@"))
    required = re.search(r'requires-python\s*=\s*">=(\d+\.\d+)"', (ROOT / "pyproject.toml").read_text())
    assert str(python["with"]["python-version"]) == required.group(1)
