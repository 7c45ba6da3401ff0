"""Ctrl-C at random moments of the ``predtron`` commands, as whole processes: exit status, message, files.

Each run picks a command at random (seeded) among an in-memory ``predtron fit`` (a generated
classification file, or the shipped bibtex multilabel set), ``fit --stream --cache``, ``fit
--workers 2`` (a local Dask cluster) and ``predict --output``, with a file already at the path the
command writes (the model, or the predictions), and sends SIGINT at a moment drawn uniformly over
the command's duration (measured first, uninterrupted), to the command's whole process group as a
terminal's Ctrl-C does (a local cluster's worker processes included).  Recorded: the exit status,
the lines on stderr, whether the file already there is byte-identical or else replaced by a
complete new one (the command finished, or had written its file, before the signal), and whether
any temporary was left in the folder.

The goal of issue 25: every run exits 130 (or 0 when it finished first) with one line on stderr,
the file untouched (or complete), and no temporary left.

    python benchmarks/interrupts.py                 # 20 runs, seed 0
    python benchmarks/interrupts.py --runs 5 --seed 3
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BIBTEX = ROOT / "predtron" / "data" / "files" / "mulan-bibtex" / "bibtex-train.arff.gz"
PREVIOUS = b"the user's previous file, which an interrupted command must leave as it is\n"
INTERRUPTED = 130


def _environment() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


def _write_data(folder: Path) -> tuple[Path, Path]:
    """A training and a test classification file (svmlight), long enough for a fit of a few seconds."""
    rng = np.random.default_rng(0)
    w = rng.normal(size=30)
    paths = []
    for name, rows in (("train.svm", 8000), ("test.svm", 4000)):
        X = rng.normal(size=(rows, 30)).round(4)
        y = np.where(X @ w + rng.normal(scale=2.0, size=rows) > 0, 1, -1)
        path = folder / name
        with path.open("w") as out:
            for row, label in zip(X, y, strict=True):
                out.write(f"{label} " + " ".join(f"{j + 1}:{v}" for j, v in enumerate(row)) + "\n")
        paths.append(path)
    return paths[0], paths[1]


def _commands(folder: Path, train: Path, test: Path, model: Path) -> dict[str, tuple[list[str], Path]]:
    """Each command's arguments and the file it writes."""
    fit = ["fit", str(train), "--task", "classify", "--epochs", "40", "--no-early-stopping"]
    target = folder / "target.npz"
    out = folder / "predictions.txt"
    commands = {
        "fit (in memory)": ([*fit, "--model", str(target)], target),
        "fit --stream --cache": ([*fit, "--stream", "--chunk-rows", "1000", "--cache", str(folder / "train.cache"),
                                  "--model", str(target)], target),
        "fit --workers 2": ([*fit, "--workers", "2", "--model", str(target)], target),
        "predict --output": (["predict", str(test), "--model", str(model), "--output", str(out)], out),
    }
    if BIBTEX.is_file():
        commands["fit bibtex multilabel (in memory)"] = (
            ["fit", str(BIBTEX), "--task", "multilabel", "--labels", "159", "--epochs", "20", "--no-early-stopping",
             "--model", str(target)], target)
    return commands


def _digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def _complete(path: Path) -> bool:
    """Whether a file a command wrote is whole: a model archive that opens, or predictions ending a line."""
    if not path.is_file():
        return False
    if path.suffix == ".npz":
        try:
            with zipfile.ZipFile(path) as archive:
                return archive.testzip() is None
        except (OSError, zipfile.BadZipFile):
            return False
    data = path.read_bytes()
    return bool(data) and data.endswith(b"\n") and data != PREVIOUS


def _run(args: list[str], delay: float | None) -> tuple[int, str, float]:
    """Exit status, stderr and seconds of one command, interrupted after ``delay`` seconds (``None``: never)."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "predtron", *args], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, env=_environment(), cwd=ROOT,
                               start_new_session=True)  # its own process group, as a terminal's job
    if delay is not None:
        try:
            process.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):  # Ctrl-C in a terminal: the whole foreground group
                os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=600)
    return process.returncode, err, time.perf_counter() - start


def run(n_runs: int = 20, seed: int = 0) -> list[dict]:
    """The table of ``n_runs`` interrupted commands."""
    rng = np.random.default_rng(seed)
    rows = []
    with tempfile.TemporaryDirectory(prefix="predtron-interrupts-") as name:
        folder = Path(name)
        train, test = _write_data(folder)
        model = folder / "model.npz"
        code, err, _ = _run(["fit", str(train), "--task", "classify", "--model", str(model)], None)
        if code != 0:
            raise RuntimeError(f"the model for predict could not be fitted: {err}")
        commands = _commands(folder, train, test, model)
        base = {p.name for p in folder.iterdir()}
        durations = {}
        for label, (args, target) in commands.items():  # measured once, uninterrupted
            code, err, seconds = _run(args, None)
            if code != 0:
                raise RuntimeError(f"{label} failed uninterrupted: {err}")
            durations[label] = seconds
            target.unlink(missing_ok=True)
            (folder / "train.cache").unlink(missing_ok=True)
        labels = list(commands)
        for i in range(n_runs):
            label = labels[rng.integers(len(labels))]
            delay = float(rng.uniform(0.0, durations[label]))
            args, target = commands[label]
            (folder / "train.cache").unlink(missing_ok=True)
            target.write_bytes(PREVIOUS)
            before = _digest(target)
            code, err, seconds = _run(args, delay)
            lines = err.splitlines()
            if _digest(target) == before:
                file_state, file_ok = "untouched", code != 0
            elif _complete(target):  # written whole before the signal arrived (130: the command was ending)
                file_state, file_ok = "new, complete", True
            else:
                file_state, file_ok = "DAMAGED", False
            expected = base | {target.name, "train.cache"}
            left = sorted(p.name for p in folder.iterdir() if p.name not in expected)
            ok = (code in (INTERRUPTED, 0) and file_ok and not left
                  and (len(lines) == 1 if code == INTERRUPTED else True))
            if code == -signal.SIGINT:  # killed before the interpreter could run any handler (its first ms)
                lines = [*lines, "(killed by SIGINT before Python's start-up ended: a shell shows 130)"]
            elif "Traceback (most recent call last):" in lines and not any(
                    line.strip().startswith("File") and f"{os.sep}predtron{os.sep}" in line for line in lines):
                lines = [*lines, "(in Python's start-up, before any code of predtron ran)"]
            rows.append({"run": i + 1, "command": label, "delay": delay, "duration": durations[label], "exit": code,
                         "stderr": lines, "file": file_state, "left": left, "ok": ok})
            for path in folder.iterdir():  # a clean folder for the next run
                if path.name not in base:
                    shutil.rmtree(path) if path.is_dir() else path.unlink()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="number of interrupted commands (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the commands and moments (default 0)")
    args = parser.parse_args()
    # The commands start as from a terminal, with SIGINT's default action (a benchmark started in the
    # background of a script inherits SIGINT ignored, and so would they until Python installs its handler).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    rows = run(args.runs, args.seed)
    print(f"{'run':>3}  {'command':34s} {'SIGINT at':>14s}  {'exit':>4}  {'file':16s} {'temporaries':12s} stderr")
    for row in rows:
        moment = f"{row['delay']:.2f}/{row['duration']:.2f} s"
        stderr = " | ".join(row["stderr"]) if len(row["stderr"]) <= 2 else \
            f"{len(row['stderr'])} lines, last: {row['stderr'][-1]}"
        print(f"{row['run']:>3}  {row['command']:34s} {moment:>14s}  {row['exit']:>4}  {row['file']:16s} "
              f"{', '.join(row['left']) or 'none':12s} {stderr}{'' if row['ok'] else '   <-- NOT met'}")
    met = sum(row["ok"] for row in rows)
    print(f"{met} of {len(rows)} runs: exit 130 (or 0 when finished first) with one line, the file untouched "
          f"(or complete), no temporary left")
    return 0 if met == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
