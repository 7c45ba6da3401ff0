"""The README cannot rot: every example in it runs, every command it documents works.

* Every ```python block is executed, in order, in one namespace, from the repository root
  (matplotlib on the Agg backend).  A ``# prints: TEXT`` comment on a line is a promise
  about the block's output: the lines promised must appear in the printed output, in order.
* Every command of a ```bash / ```sh / ```text block, and every inline code span that is a
  command, is checked by what it is: ``predtron ...`` (and ``python -m predtron ...``) runs
  through :func:`predtron.cli.main` in a temporary folder, with the repository's paths made
  absolute; a script gets its ``--help`` read for the options used; ``bash`` scripts, pip
  requirements, test and notebook paths must exist.  A command of no known kind fails the test,
  so a new kind of command in the README needs a check here.
* Every relative link and every inline path into the repository must exist, and the book's
  chapter list must follow ``_toc.yml``.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest

from predtron import cli

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

FENCE = re.compile(r"^```([\w+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
SHELL_LANGUAGES = {"bash", "sh", "shell", "console", "text"}
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
INLINE_CODE = re.compile(r"(?<!`)`([^`]+)`(?!`)")
PRINTS = re.compile(r"#\s*prints:\s*(.*?)\s*$")
TOP_LEVEL = ("predtron/", "book/", "tests/", "benchmarks/", ".ci/")
COMMAND_STARTS = ("predtron ", "python ", "bash ", "pip ", ".venv/bin/")
METRIC_LINE = re.compile(r"^[\w@ ]+: -?\d+\.\d{4}$")


# ------------------------------------------------------------------ reading the README
def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """``(language, body)`` of every fenced block, in order."""
    return [(m.group(1).lower(), m.group(2)) for m in FENCE.finditer(text)]


def python_blocks(text: str) -> list[str]:
    return [body for lang, body in fenced_blocks(text) if lang in ("python", "py")]


def prose(text: str) -> str:
    """The text outside fenced blocks."""
    return FENCE.sub("", text)


def shell_commands(text: str) -> list[str]:
    """Every command line of the shell blocks, then every inline command (``predtron fit ...``)."""
    lines = []
    for lang, body in fenced_blocks(text):
        if lang not in SHELL_LANGUAGES:
            continue
        for line in body.splitlines():
            line = line.strip().removeprefix("$ ")
            if line and not line.startswith("#"):
                lines.append(line)
    for span in inline_spans(text):
        if span.startswith(COMMAND_STARTS) and len(shlex.split(span)) > 1:
            lines.append(span)
    return lines


def inline_spans(text: str) -> list[str]:
    """Inline code spans outside fenced blocks, a line break inside one read as a space."""
    return [" ".join(span.split()) for span in INLINE_CODE.findall(prose(text))]


def relative_links(text: str) -> list[str]:
    """Targets of the markdown links that point into the repository (anchors dropped)."""
    targets = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        targets.append(target.split("#")[0])
    return targets


def inline_paths(text: str) -> list[str]:
    """Inline code spans outside fenced blocks that name a path under a top-level folder."""
    return [span for span in inline_spans(text)
            if span.startswith(TOP_LEVEL) and " " not in span]


def missing_paths(paths, root: Path) -> list[str]:
    return [p for p in paths if not (root / p).exists()]


def missing_prints(code: str, output: str) -> list[str]:
    """The ``# prints:`` promises of ``code`` not found, in order, among the lines of ``output``."""
    printed = iter(line.strip() for line in output.splitlines())
    missing = []
    for line in code.splitlines():
        match = PRINTS.search(line)
        if match and not any(out == match.group(1) for out in printed):
            missing.append(match.group(1))
    return missing


# ------------------------------------------------------------------ checking a command
def cli_argv(tokens: list[str]) -> list[str] | None:
    """The arguments of a ``predtron`` / ``python -m predtron`` command, else ``None``."""
    if tokens[0] == "predtron":
        return tokens[1:]
    if Path(tokens[0]).name.startswith("python") and tokens[1:3] == ["-m", "predtron"]:
        return tokens[3:]
    return None


def absolute(argv: list[str], root: Path) -> list[str]:
    """Arguments that name existing files of the repository as absolute paths (outputs stay relative)."""
    return [str(root / a) if not a.startswith("-") and "/" in a and (root / a).exists() else a for a in argv]


def run_cli(argv: list[str], root: Path, capsys) -> tuple[int, str, str]:
    """Run the command line in-process; ``(status, stdout, stderr)``."""
    capsys.readouterr()
    try:
        status = cli.main(absolute(argv, root))
    except SystemExit as exc:  # --help and --version exit through argparse
        status = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return status, out, err


def check_cli(argv: list[str], root: Path, capsys) -> None:
    status, out, err = run_cli(argv, root, capsys)
    assert status == 0, f"predtron {' '.join(argv)} exited with {status}: {err.strip()}"
    if "--help" in argv or "-h" in argv:
        assert "usage:" in out
        return
    command = argv[0]
    if command == "fit":
        model = argv[argv.index("--model") + 1]
        assert Path(model).is_file(), f"predtron fit did not write {model}"
    elif command == "evaluate":
        lines = out.splitlines()
        assert lines and all(METRIC_LINE.match(line) for line in lines), f"evaluate printed {out!r}"
        if "--k" in argv:
            ks = [a for a in argv[argv.index("--k") + 1:] if not a.startswith("-")]
            assert [line.split(":")[0] for line in lines] == [f"ndcg@{k}" for k in ks] + ["map"]
    elif command == "predict" and "--output" in argv:
        written = Path(argv[argv.index("--output") + 1]).read_text().splitlines()
        assert written and all(line.strip() for line in written)


@functools.cache
def script_help(script: Path, root: Path) -> str:
    """The ``--help`` text of a script (read once per run)."""
    env = {**os.environ, "PYTHONPATH": str(root), "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, env=env,
                          cwd=root, timeout=120)
    assert done.returncode == 0, f"{script} --help failed: {done.stderr.strip()[-500:]}"
    return done.stdout


def check_command(line: str, root: Path, installed: set[str], capsys) -> None:
    """Check one documented command; ``installed`` collects what earlier pip commands install."""
    tokens = shlex.split(line, comments=True)
    argv = cli_argv(tokens)
    if argv is not None:
        if argv:  # a bare program name is a mention, not a command
            check_cli(argv, root, capsys)
        return
    program = tokens[0]
    if program.startswith(".venv/bin/"):
        program = program.removeprefix(".venv/bin/")
        pinned = {re.split(r"[=<>\[ ]", r)[0].lower() for r in (root / "requirements.txt").read_text().splitlines()
                  if r.strip() and not r.startswith("#")}
        provider = {"python": None, "ruff": "ruff", "jupyter": "jupyterlab" if tokens[1:2] == ["lab"] else "nbconvert"}
        assert program in provider, f"unknown program {program!r} in {line!r}: teach test_readme.py to check it"
        needed = provider[program]
        assert needed is None or needed in pinned | installed, (
            f"{line!r} needs {needed}, which neither requirements.txt nor an earlier command installs")
    args = tokens[1:]
    if program == "bash":
        script = root / args[0]
        assert script.is_file(), f"{line!r}: no {args[0]}"
        assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    elif program == "pip" or args[:2] == ["-m", "pip"]:
        rest = args[2:] if args[:2] == ["-m", "pip"] else args
        assert rest[0] == "install", f"{line!r}: only pip install is checked"
        for i, arg in enumerate(rest[1:], 1):
            if arg == "-e":
                assert (root / rest[i + 1] / "pyproject.toml").is_file()
            elif arg == "-r":
                assert (root / rest[i + 1]).is_file()
            elif arg.startswith((".", "/")):  # a source tree, installed as a regular package
                assert (root / arg / "pyproject.toml").is_file(), f"{line!r}: no pyproject.toml in {arg}"
            elif not arg.startswith("-") and rest[i - 1] not in ("-e", "-r"):
                assert re.fullmatch(r"[A-Za-z0-9][\w.-]*", arg), f"{line!r}: {arg!r} is not a package name"
                installed.add(arg.lower())
    elif program == "python" and args[:2] == ["-m", "pytest"]:
        paths = [a for a in args[2:] if "/" in a or a in ("tests", "book")]
        assert paths and not missing_paths(paths, root), f"{line!r}: missing {missing_paths(paths, root)}"
    elif program == "python":
        script = root / args[0]
        assert script.is_file(), f"{line!r}: no {args[0]}"
        usage = script_help(script, root)
        for flag in (a for a in args[1:] if a.startswith("--")):
            assert flag in usage, f"{line!r}: {args[0]} has no option {flag}"
    elif program == "ruff":
        assert args[0] == "check" and not missing_paths(args[1:], root), f"{line!r}: missing paths"
    elif program == "jupyter":
        assert args[0] == "lab" and not missing_paths(args[1:], root), f"{line!r}: missing notebook"
    else:
        raise AssertionError(f"unknown command {line!r} in the README: teach test_readme.py to check it")


# ------------------------------------------------------------------ the tests
@pytest.fixture(scope="module")
def text() -> str:
    return README.read_text(encoding="utf-8")


def test_python_blocks_run_as_written(text, monkeypatch):
    blocks = python_blocks(text)
    assert len(blocks) >= 6, "the README lost its examples"
    matplotlib.use("Agg")
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("PREDTRON_DATA", raising=False)  # the shipped data of this checkout
    before = set(ROOT.iterdir())
    namespace: dict = {"__name__": "__readme__"}
    for number, code in enumerate(blocks, 1):
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            exec(compile(code, f"README.md python block {number}", "exec"), namespace)
        missing = missing_prints(code, output.getvalue())
        assert not missing, f"block {number} promised {missing}; it printed:\n{output.getvalue()}"
    assert set(ROOT.iterdir()) == before, "the README's examples left files in the repository"
    # What the prose around the examples says about them.
    ranker, test = namespace["ranker"], namespace["test"]
    assert namespace["scores"].shape == (test.X.shape[0],)
    assert 0.0 < ranker.score(test.X, test.y, qid=test.qid) <= 1.0
    assert namespace["tags"].shape == namespace["test_clips"].Y.shape
    assert set(namespace["answers"].tolist()) <= {0, 1, "unsure"}
    assert len(namespace["ndcg"]) == 3


def test_cli_commands_run(text, tmp_path, monkeypatch, capsys):
    commands = [c for c in shell_commands(text) if cli_argv(shlex.split(c, comments=True)) is not None]
    assert sum(c.startswith("predtron ") for c in commands) >= 3, "the README lost its command-line examples"
    monkeypatch.chdir(tmp_path)
    for command in commands:
        check_command(command, ROOT, set(), capsys)


def test_other_commands_are_valid(text, capsys):
    installed: set[str] = set()
    for command in shell_commands(text):
        if cli_argv(shlex.split(command, comments=True)) is None:
            check_command(command, ROOT, installed, capsys)


def test_python_m_predtron_works():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "predtron", "--help"], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0 and "fit" in done.stdout, done.stderr


def test_links_and_paths_exist(text):
    links = relative_links(text)
    assert links, "the README links to no file"
    assert not missing_paths(links, ROOT), f"broken links: {missing_paths(links, ROOT)}"
    paths = inline_paths(text)
    assert not missing_paths(paths, ROOT), f"paths that do not exist: {missing_paths(paths, ROOT)}"


def test_chapter_list_follows_the_toc(text):
    toc = re.findall(r"file:\s*(\S+)", (ROOT / "_toc.yml").read_text())
    chapters = [f for f in toc if not f.startswith("book/api/") and f not in ("book/index", "book/references")]
    section = text[text.index("## The book"):]
    section = section[:section.index("\n## ", 1)]
    listed = [re.sub(r"\.(ipynb|md)$", "", t) for t in relative_links(section)]
    listed = [t for t in dict.fromkeys(listed) if t in chapters]
    assert listed == chapters, f"the README's chapter list differs from _toc.yml: {listed} vs {chapters}"


def test_citation_matches_the_bibliography(text):
    (bibtex,) = [body for lang, body in fenced_blocks(text) if lang == "bibtex"]
    bib = (ROOT / "book" / "references.bib").read_text()
    entry = bib[bib.index("@inproceedings{jain2015predtron"):]
    entry = entry[:entry.index("\n}") + 2]
    assert bibtex.strip() == entry.strip()


# ------------------------------------------------------------------ the checks can fail
BROKEN = """
Intro [a link](no/such/file.md) and `predtron/no_such_module.py`.

```python
x = 1
print(x + 1)  # prints: 3
```

```bash
predtron evaluate data/no-such-file.txt --model none.npz
frobnicate --all
```
"""


def test_checks_catch_a_broken_readme(tmp_path, monkeypatch, capsys):
    assert missing_paths(relative_links(BROKEN), ROOT) == ["no/such/file.md"]
    assert missing_paths(inline_paths(BROKEN), ROOT) == ["predtron/no_such_module.py"]
    (code,) = python_blocks(BROKEN)
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(code, {})
    assert missing_prints(code, output.getvalue()) == ["3"]
    evaluate, unknown = shell_commands(BROKEN)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AssertionError, match="exited with 1"):
        check_command(evaluate, ROOT, set(), capsys)
    with pytest.raises(AssertionError, match="unknown command"):
        check_command(unknown, ROOT, set(), capsys)
    with pytest.raises(AssertionError, match="needs jupyterlab"):
        check_command(".venv/bin/jupyter lab book/07_subset_ranking.ipynb", ROOT, set(), capsys)
    with pytest.raises(AssertionError, match="has no option --fast"):
        check_command(".venv/bin/python benchmarks/run_all.py --fast", ROOT, set(), capsys)
