"""The first fit in a fresh environment against the same fit once numba's cache is filled.

Each row runs one ``predtron fit`` command on a shipped data set in fresh subprocesses:
``cold`` with ``NUMBA_CACHE_DIR`` pointing at a new empty folder (a fresh install, a new
Binder or Colab session), ``warm`` the same command again after the cache was filled (by
one run of the command with ``PREDTRON_JIT=always``, which compiles every kernel the
command uses; that run's time is shown as ``compile-all``, the cost a first fit paid before
kernels were compiled only when the work pays for it).  Cold and warm runs alternate, the
best of ``repeat`` is kept for each, and the ratio ``cold / warm`` is printed with the goal
of the book issue (at most 1.5), with the range over the repeats.

    python benchmarks/cold_start.py            # three repeats
    python benchmarks/cold_start.py --quick    # one repeat
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "predtron" / "data" / "files"  # the shipped copies
GOAL = 1.5

COMMANDS = {
    "MQ2008 vali, predtron fit --task rank": ["letor-mq2008-fold1/vali.txt.gz", "--task", "rank", "--seed", "0"],
    "emotions train, predtron fit --task multilabel": ["mulan-emotions/emotions-train.arff.gz", "--task",
                                                       "multilabel", "--labels", "6", "--seed", "0"],
}


def _run(args: list[str], cache: str, folder: str, policy: str | None = None) -> float:
    """Seconds of one ``predtron fit`` in a fresh interpreter with numba's cache in ``cache``."""
    env = {k: v for k, v in os.environ.items() if k not in ("PREDTRON_JIT", "PREDTRON_NO_JIT")}
    env["NUMBA_CACHE_DIR"] = cache
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    if policy is not None:
        env["PREDTRON_JIT"] = policy
    command = [sys.executable, "-m", "predtron", "fit", str(DATA / args[0]), *args[1:],
               "--model", str(Path(folder) / "model.npz")]
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def run(quick: bool = False) -> list[dict]:
    repeat = 1 if quick else 3
    times = {name: {"cold": [], "warm": [], "compile-all": []} for name in COMMANDS}
    for _ in range(repeat):
        for name, args in COMMANDS.items():
            with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as folder:
                times[name]["cold"].append(_run(args, cache, folder))
                times[name]["compile-all"].append(_run(args, cache, folder, "always"))
                times[name]["warm"].append(_run(args, cache, folder))
    rows = []
    for name, t in times.items():
        ratios = [c / w for c, w in zip(t["cold"], t["warm"], strict=True)]
        rows.append({"workload": f"first fit, {name}", "kind": "cost", "ratio": min(t["cold"]) / min(t["warm"]),
                     "goal": GOAL, "note": (f"cold {min(t['cold']):.2f} s, warm {min(t['warm']):.2f} s, "
                                            f"compile-all {min(t['compile-all']):.2f} s; per repeat "
                                            f"{min(ratios):.2f}-{max(ratios):.2f}")})
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="one repeat")
    for row in run(parser.parse_args().quick):
        ok = "met" if row["ratio"] <= row["goal"] else "NOT met"
        print(f"{row['workload']:60s} cold/warm {row['ratio']:5.2f} <={row['goal']:g} {ok}  {row['note']}")
