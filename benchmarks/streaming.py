"""Streaming from files as users type it: whole processes against Vowpal Wabbit, and memory that does not grow.

Issue 25's goals, measured in one run on files generated in a temporary directory (a sparse
binary problem: every row holds 20 non-zeros of 1,000 features, values with 6 decimals; the
svmlight file and Vowpal Wabbit's text file hold the same rows), every figure a fresh process
started the way a user starts it:

* **file to model, as typed**: ``python -m predtron fit FILE --task classify --stream`` with
  Algorithm 1's options (``--no-average --no-shuffle --no-standardize --no-intercept --eta 1
  --epochs 1``) and no hint flags (no ``--n-features``, ``--classes``, ``--sparse``: the stream
  is sparse by default, and a first pass finds the features and labels), against
  ``vowpalwabbit.Workspace("-d FILE --loss_function hinge --quiet")`` run in its own
  ``python -c`` process, one pass over the same rows; measured alternately, best of a few
  runs: VW's seconds over predtron's, goal at least 1x;
* **with the hint flags** (``--n-features 1000 --classes -1 1``: one pass over the file), the
  same comparison, reported beside it;
* **peak memory** of the streamed fit as typed (the peak resident size ``VmHWM`` of the
  process; Linux only) at a quarter of the rows and at all of them: the growth must be at most
  50 MB, the peak at most 400 MB; Vowpal Wabbit's peak on the larger file beside it;
* **start-up**: ``python -m predtron --version``, goal at most 0.5 s.

    python benchmarks/streaming.py                  # 1M rows (250k for the memory's low end)
    python benchmarks/streaming.py --rows 200000    # a reduced size for a shared machine
    python benchmarks/streaming.py --quick          # 100k rows, for a smoke run
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from predtron.book.timing import best_times

N_FEATURES, NNZ = 1000, 20
ALGORITHM_1 = ["--no-average", "--no-shuffle", "--no-standardize", "--no-intercept", "--eta", "1", "--epochs", "1"]
HINTS = ["--n-features", str(N_FEATURES), "--classes", "-1", "1"]
MEMORY_GROWTH_MB, MEMORY_PEAK_MB = 50.0, 400.0
SPEED_GOAL = 1.0
VERSION_GOAL_S = 0.5
ROOT = Path(__file__).resolve().parents[1]


def _digits(values: np.ndarray, width: int) -> np.ndarray:
    out = np.empty((*values.shape, width), dtype=np.uint8)
    for k in range(width):
        out[..., width - 1 - k] = 48 + (values // 10**k) % 10
    return out


def write_files(directory: Path, n: int, seed: int = 0, block: int = 100_000) -> tuple[Path, Path]:
    """An svmlight file and a Vowpal Wabbit file of the same ``n`` rows (built as bytes, fast)."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(N_FEATURES)
    svm, vw = directory / f"rows{n}.svm", directory / f"rows{n}.vw"
    with svm.open("wb") as out_svm, vw.open("wb") as out_vw:
        for start in range(0, n, block):
            m = min(block, n - start)
            # NNZ distinct sorted indices per row: sorted draws plus 0..NNZ-1
            index = np.sort(rng.integers(0, N_FEATURES - NNZ + 1, (m, NNZ)), axis=1) + np.arange(NNZ) + 1
            micro = rng.integers(0, 10**6, (m, NNZ))
            label = np.where((micro / 1e6 * w[index - 1]).sum(axis=1) > 0, 1, -1)
            tokens = np.empty((m, NNZ, 14), dtype=np.uint8)  # " iiii:0.dddddd"
            tokens[..., 0] = ord(" ")
            tokens[..., 1:5] = _digits(index, 4)
            tokens[..., 5:8] = np.frombuffer(b":0.", dtype=np.uint8)
            tokens[..., 8:] = _digits(micro, 6)
            head = np.empty((m, 2), dtype=np.uint8)
            head[:, 0] = np.where(label > 0, ord("+"), ord("-"))
            head[:, 1] = ord("1")
            newline = np.full((m, 1), ord("\n"), dtype=np.uint8)
            body = tokens.reshape(m, -1)
            out_svm.write(np.concatenate([head, body, newline], axis=1).tobytes())
            bar = np.tile(np.frombuffer(b" |", dtype=np.uint8), (m, 1))
            out_vw.write(np.concatenate([head, bar, body, newline], axis=1).tobytes())
    return svm, vw


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def fit_command(svm: Path, model: Path, hints: bool = False) -> list[str]:
    """``python -m predtron fit`` as a user types it (Algorithm 1's options; the hint flags on request)."""
    return [sys.executable, "-m", "predtron", "fit", str(svm), "--task", "classify", "--model", str(model),
            "--stream", "--quiet", *ALGORITHM_1, *(HINTS if hints else [])]


#: Vowpal Wabbit's pass over a file, in its own process.
_VW = ("import sys; from vowpalwabbit import Workspace; "
       "Workspace(f'-d {sys.argv[1]} --loss_function hinge --quiet').finish()")


def vw_command(vw_file: Path) -> list[str]:
    return [sys.executable, "-c", _VW, str(vw_file)]


def _run(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True, env=_env(), check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:4])} ... failed: {result.stderr[-500:]}")


def _cpu_seconds(command: list[str]) -> float:
    """User + system CPU seconds of one run of ``command`` (less sensitive than wall time to a shared machine)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    _run(command)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def speed(svm: Path, vw_file: Path, repeat: int) -> tuple[list[float], list[float]]:
    """Best wall seconds and best CPU seconds of predtron as typed, predtron with the hint flags, and Vowpal
    Wabbit (whole processes, measured in turn)."""
    model = svm.with_suffix(".npz")
    commands = [fit_command(svm, model), fit_command(svm, model, hints=True), vw_command(vw_file)]
    _run(commands[0])  # numba's cache and the OS's file cache warm for every contender alike
    _run(commands[2])
    wall = best_times([lambda c=c: _run(c) for c in commands], repeat=repeat)
    cpu = [min(_cpu_seconds(c) for _ in range(repeat)) for c in commands]
    return wall, cpu


def import_cpu_seconds() -> float:
    """CPU seconds of a process that only imports what ``fit --stream`` imports (the command line, the estimators'
    cores, the streaming driver, the reader; no scikit-learn)."""
    return _cpu_seconds([sys.executable, "-c", "import predtron.cli, predtron.cli_stream, predtron.streaming, "
                         "predtron._models, predtron.data.stream"])


# The peak resident size of the process's own memory (VmHWM), read by the process itself at its end (from an
# atexit handler: the program ends its process once the command has returned).
_PEAK = """
import atexit, runpy, sys


def peak():
    with open("/proc/self/status") as handle:
        line = next(line for line in handle if line.startswith("VmHWM:"))
    print(int(line.split()[1]) / 1024.0, flush=True)


atexit.register(peak)
command = sys.argv[1:]
if command[0] == "predtron":
    sys.argv = command
    runpy.run_module("predtron", run_name="__main__")
else:
    from vowpalwabbit import Workspace
    Workspace(f"-d {command[1]} --loss_function hinge --quiet").finish()
"""


def peak_memory_mb(arguments: list[str]) -> float:
    """Peak resident memory (MB) of one process: ``["predtron", fit arguments...]`` or ``["vw", FILE]``."""
    result = subprocess.run([sys.executable, "-c", _PEAK, *arguments], capture_output=True, text=True, env=_env(),
                            check=True)
    return float(result.stdout.strip().splitlines()[-1])


def version_seconds(repeat: int) -> float:
    """Best seconds of ``python -m predtron --version`` (a whole process)."""
    return best_times([lambda: _run([sys.executable, "-m", "predtron", "--version"])], repeat=repeat)[0]


def python_seconds(repeat: int) -> float:
    """Best seconds of ``python -c pass`` (the interpreter's own start, for reference)."""
    return best_times([lambda: _run([sys.executable, "-c", "pass"])], repeat=repeat)[0]


def run(quick: bool = False, rows: int | None = None, repeat: int | None = None) -> list[dict]:
    """Rows for ``benchmarks/run_all.py`` (and the lines printed by this script)."""
    n = rows or (100_000 if quick else 1_000_000)
    repeat = repeat or (2 if quick else 3)
    out = []
    start, plain = version_seconds(5), python_seconds(5)
    out.append({"workload": "python -m predtron --version (whole process)", "peer": "goal",
                "peer_seconds": VERSION_GOAL_S, "predtron_seconds": start, "ratio": VERSION_GOAL_S / start,
                "goal": 1.0, "kind": "speed",
                "note": f"{start:.2f} s (python -c pass: {plain:.2f} s)"})
    with tempfile.TemporaryDirectory(prefix="predtron-streaming-") as tmp:
        directory = Path(tmp)
        svm, vw_file = write_files(directory, n)
        size_mb = svm.stat().st_size / 1e6
        (typed, hinted, theirs), (typed_cpu, hinted_cpu, theirs_cpu) = speed(svm, vw_file, repeat)
        imports = import_cpu_seconds()
        what = f"{n:.0e} rows x {NNZ} of {N_FEATURES} features ({size_mb:.0f} MB), one pass, whole processes"
        out.append({"workload": f"fit --stream as typed, {what}", "peer": "Vowpal Wabbit", "peer_seconds": theirs,
                    "predtron_seconds": typed, "ratio": theirs / typed, "goal": SPEED_GOAL, "kind": "speed",
                    "note": f"wall: predtron {typed:.2f} s (a first pass finds the features and labels), VW "
                            f"{theirs:.2f} s; CPU: predtron {typed_cpu:.2f} s, VW {theirs_cpu:.2f} s, "
                            f"{theirs_cpu / typed_cpu:.2f}x"})
        out.append({"workload": f"fit --stream with --n-features --classes, {what}", "peer": "Vowpal Wabbit",
                    "peer_seconds": theirs, "predtron_seconds": hinted, "ratio": theirs / hinted, "goal": SPEED_GOAL,
                    "kind": "speed", "note": f"wall: predtron {hinted:.2f} s (one pass), VW {theirs:.2f} s; CPU: "
                                             f"predtron {hinted_cpu:.2f} s of which {imports:.2f} s importing, VW "
                                             f"{theirs_cpu:.2f} s, {theirs_cpu / hinted_cpu:.2f}x"})
        small = n // 4
        small_svm = directory / f"rows{small}.svm"
        with svm.open("rb") as source, small_svm.open("wb") as target:
            for _, line in zip(range(small), source, strict=False):
                target.write(line)
        low = peak_memory_mb(["predtron", *fit_command(small_svm, small_svm.with_suffix(".npz"))[3:]])
        high = peak_memory_mb(["predtron", *fit_command(svm, svm.with_suffix(".npz"))[3:]])
        vw_peak = peak_memory_mb(["vw", str(vw_file)])
        out.append({"workload": f"peak memory of fit --stream as typed, {small:.0e} -> {n:.0e} rows",
                    "peer": "smaller file", "peer_seconds": low, "predtron_seconds": high, "ratio": high - low,
                    "goal": MEMORY_GROWTH_MB, "kind": "memory",
                    "note": f"peak resident {low:.0f} MB -> {high:.0f} MB (goal <= {MEMORY_PEAK_MB:g} MB: "
                            f"{'met' if high <= MEMORY_PEAK_MB else 'NOT met'}); Vowpal Wabbit {vw_peak:.0f} MB"})
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100k rows instead of 1M")
    parser.add_argument("--rows", type=int, help="rows of the larger file (default: 1,000,000; --quick: 100,000)")
    parser.add_argument("--repeat", type=int, help="runs of each timed command (best kept; default 3, --quick 2)")
    options = parser.parse_args()
    started = time.time()
    for row in run(options.quick, options.rows, options.repeat):
        goal = row["goal"]
        if row["kind"] == "memory":
            print(f"{row['workload']}: grew {row['ratio']:+.1f} MB (goal <= +{goal:g} MB: "
                  f"{'met' if row['ratio'] <= goal else 'NOT met'}); {row['note']}")
        else:
            print(f"{row['workload']}: {row['ratio']:.2f}x {row['peer']} (goal >= {goal:g}x: "
                  f"{'met' if row['ratio'] >= goal else 'NOT met'}); {row['note']}")
    print(f"(measured in {time.time() - started:.0f} s)")
