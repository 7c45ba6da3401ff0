"""The package as a user installs it: a wheel built from this tree, installed (not editable) into
a fresh virtual environment, finds its shipped data and runs the README's quick start.

Building needs ``pip`` and, for its isolated build, setuptools from the package index or pip's
cache; when the build cannot run here the test is skipped with pip's message.  The new
environment borrows the running interpreter's installed dependencies (a ``.pth`` file naming
its site-packages), so nothing else is downloaded; predtron itself comes only from the wheel.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _quick_start_blocks() -> list[str]:
    """The README's Python blocks of the quick start that do not read files of the repository."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [b for b in re.findall(r"```python\n(.*?)```", section, flags=re.S) if "predtron/data/files" not in b]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The python of a new virtual environment with the wheel of this tree installed."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "predtron", source / "predtron", ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(tmp)],
                           capture_output=True, text=True, timeout=600)
    wheels = list(tmp.glob("predtron-*.whl"))
    if built.returncode != 0 or not wheels:
        pytest.skip(f"could not build the wheel here: {built.stderr.strip()[-300:]}")
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    dependencies = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(purelib) / "borrowed_dependencies.pth").write_text("\n".join(dependencies) + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
                    str(wheels[0])], check=True, capture_output=True, timeout=300, env=_clean_env())
    return python


def _clean_env() -> dict:
    """The environment without what would make the source tree or another data folder visible."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PREDTRON_DATA")}
    env["MPLBACKEND"] = "Agg"
    return env


def _run(python: Path, code: str, cwd: Path) -> str:
    env = _clean_env()
    done = subprocess.run([str(python), "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_installed_package_has_its_data(installed, tmp_path):
    out = _run(installed, "import predtron, predtron.data as d\n"
                          "print(predtron.__file__)\n"
                          "print(d.load_mq2008('train').X.shape, d.load_emotions('test').Y.shape, "
                          "d.load_bibtex('test').Y.shape)\n"
                          "from predtron.engine import run\n"  # what a fresh environment compiles ahead of need
                          "print(len(run.SIGNATURES_FILE.read_text()) > 0)\n", tmp_path)
    where, shapes, signatures = out.strip().splitlines()
    assert Path(where).is_relative_to(installed.parents[1]), where  # not this source tree
    assert shapes == "(2707, 46) (202, 6) (2515, 159)"
    assert signatures == "True"


def test_the_readme_quick_start_runs_from_the_wheel(installed, tmp_path):
    blocks = _quick_start_blocks()
    assert len(blocks) >= 3, "the README's quick start lost its examples"
    _run(installed, "\n".join(blocks), tmp_path)
