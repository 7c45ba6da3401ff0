"""Streaming from files: rows per second against Vowpal Wabbit, and memory that does not grow with the file.

Issue 18's goals, measured in one run on files generated in a temporary directory (a sparse
binary problem: every row holds 20 non-zeros of 1,000 features, values with 6 decimals; the
svmlight file and Vowpal Wabbit's text file hold the same rows):

* **file to model**: ``predtron fit FILE --task classify --stream --sparse`` with Algorithm 1's
  options (``--no-average --no-shuffle --no-standardize --no-intercept --eta 1 --epochs 1``;
  ``--n-features`` and ``--classes`` given, so one pass) against
  ``vowpalwabbit.Workspace("-d FILE --loss_function hinge --quiet")``, one pass over the same
  rows, both in this process, measured alternately (best of a few runs): predtron's rows per
  second over VW's, goal at least 0.5x (stretch 1x);
* **peak memory** of that streaming fit (the peak resident size ``VmHWM`` of a fresh process
  for each size; Linux only) on a 250k-row and a 1M-row file: the growth must be at most 50 MB;
* **the parser** against the in-memory loader :func:`~predtron.data.load_svmlight` on the same
  file (parse only, no learning).

    python benchmarks/streaming.py            # 1M rows (about a minute)
    python benchmarks/streaming.py --quick    # 100k rows in chunks of 8192, for a smoke run
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from predtron.cli import main as predtron_main
from predtron.data import load_svmlight
from predtron.data.stream import iter_svmlight
from predtron.timing import best_times

N_FEATURES, NNZ = 1000, 20
ALGORITHM_1 = ["--no-average", "--no-shuffle", "--no-standardize", "--no-intercept", "--eta", "1", "--epochs", "1"]
MEMORY_GOAL_MB = 50.0
SPEED_GOAL, SPEED_STRETCH = 0.5, 1.0


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


#: Examples per chunk (``--quick`` uses smaller chunks, so that its smaller files still span several).
CHUNK_ROWS = {False: 65_536, True: 8_192}


def fit_args(svm: Path, model: Path, chunk_rows: int = CHUNK_ROWS[False]) -> list[str]:
    return ["fit", str(svm), "--task", "classify", "--model", str(model), "--stream", "--sparse", "--quiet",
            "--n-features", str(N_FEATURES), "--classes", "-1", "1", "--chunk-rows", str(chunk_rows), *ALGORITHM_1]


def speed(svm: Path, vw_file: Path, repeat: int, chunk_rows: int) -> tuple[float, float]:
    """Best seconds of predtron's streamed fit and of Vowpal Wabbit's pass over the same rows."""
    from vowpalwabbit import Workspace

    model = svm.with_suffix(".npz")

    def predtron_fit():
        if predtron_main(fit_args(svm, model, chunk_rows)) != 0:
            raise RuntimeError("predtron fit --stream failed")

    def vw_fit():
        workspace = Workspace(f"-d {vw_file} --loss_function hinge --quiet")
        workspace.finish()

    predtron_fit()  # load the compiled code once (numba's cache), as VW's library is loaded
    return tuple(best_times([predtron_fit, vw_fit], repeat=repeat))


def parse_speed(svm: Path, repeat: int) -> tuple[float, float]:
    """Best seconds of the streaming parser and of the in-memory loader (parse only)."""
    def streamed():
        for _ in iter_svmlight(svm, n_features=N_FEATURES):
            pass

    def loaded():
        load_svmlight(svm, n_features=N_FEATURES, sparse=True)

    streamed()
    return tuple(best_times([streamed, loaded], repeat=repeat))


# The peak resident size of this process's own memory (VmHWM), not getrusage's ru_maxrss, which
# on Linux also counts the parent's resident size at the fork that started the process.
_PEAK = """
import sys
from predtron.cli import main
status = main(sys.argv[1:])
with open("/proc/self/status") as handle:
    peak = next(line for line in handle if line.startswith("VmHWM:"))
print(int(peak.split()[1]) / 1024.0)
sys.exit(status)
"""


def peak_memory_mb(svm: Path, chunk_rows: int) -> float:
    """Peak resident memory (MB) of ``predtron fit --stream`` in a fresh process."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    result = subprocess.run([sys.executable, "-c", _PEAK, *fit_args(svm, svm.with_suffix(".npz"), chunk_rows)],
                            capture_output=True, text=True, env=env, check=True)
    return float(result.stdout.strip().splitlines()[-1])


def run(quick: bool = False) -> list[dict]:
    """Rows for ``benchmarks/run_all.py`` (and the lines printed by this script)."""
    n = 100_000 if quick else 1_000_000
    repeat = 2 if quick else 3
    rows = []
    with tempfile.TemporaryDirectory(prefix="predtron-streaming-") as tmp:
        directory = Path(tmp)
        svm, vw_file = write_files(directory, n)
        size_mb = svm.stat().st_size / 1e6
        chunk_rows = CHUNK_ROWS[quick]
        ours, theirs = speed(svm, vw_file, repeat, chunk_rows)
        ratio = theirs / ours
        rows.append({"workload": f"file to model, {n:.0e} rows x {NNZ} of {N_FEATURES} features ({size_mb:.0f} MB), "
                                 "one pass", "peer": "Vowpal Wabbit", "peer_seconds": theirs,
                     "predtron_seconds": ours, "ratio": ratio, "goal": SPEED_GOAL, "kind": "speed",
                     "note": f"predtron {n / ours:,.0f} rows/s, VW {n / theirs:,.0f} rows/s (stretch goal "
                             f"{SPEED_STRETCH:g}x {'met' if ratio >= SPEED_STRETCH else 'not met'})"})
        parse_ours, parse_loader = parse_speed(svm, repeat)
        rows.append({"workload": f"parse only, {n:.0e} rows", "peer": "load_svmlight (in memory)",
                     "peer_seconds": parse_loader, "predtron_seconds": parse_ours, "ratio": parse_loader / parse_ours,
                     "goal": float("nan"), "kind": "speed",
                     "note": f"streaming parser {n / parse_ours:,.0f} rows/s, loader {n / parse_loader:,.0f} rows/s"})
        small = n // 4
        small_svm = directory / f"rows{small}.svm"
        with svm.open("rb") as source, small_svm.open("wb") as out:
            for _, line in zip(range(small), source, strict=False):
                out.write(line)
        vw_file.unlink()
        low, high = peak_memory_mb(small_svm, chunk_rows), peak_memory_mb(svm, chunk_rows)
        rows.append({"workload": f"peak memory of fit --stream, {small:.0e} -> {n:.0e} rows", "peer": "smaller file",
                     "peer_seconds": low, "predtron_seconds": high, "ratio": high - low, "goal": MEMORY_GOAL_MB,
                     "kind": "memory", "note": f"peak resident {low:.0f} MB -> {high:.0f} MB"})
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100k rows instead of 1M")
    for row in run(parser.parse_args().quick):
        goal = row["goal"]
        if row["kind"] == "memory":
            print(f"{row['workload']}: grew {row['ratio']:+.1f} MB (goal <= +{goal:g} MB: "
                  f"{'met' if row['ratio'] <= goal else 'NOT met'}); {row['note']}")
        elif goal == goal:
            print(f"{row['workload']}: {row['ratio']:.2f}x {row['peer']} (goal >= {goal:g}x: "
                  f"{'met' if row['ratio'] >= goal else 'NOT met'}); {row['note']}")
        else:
            print(f"{row['workload']}: {row['ratio']:.2f}x {row['peer']} (no goal); {row['note']}")
