"""Fits in a fresh environment against the same fits compiled, with and without ``predtron compile``.

``five fits`` rows: five identical fits in one fresh process, each against the same fit once
compiled (the best of five fits in a process started with ``PREDTRON_JIT=always`` on its own
cache, after its first fit compiled every kernel).  The goal of the issue: every fit within
``1.5 x compiled + 0.5 s``.  Workloads: ``PredtronRanker`` on MQ2008 Fold 1 (vali.txt) and
``PredtronMultilabelClassifier`` on bibtex (sparse), the shipped copies, with ``random_state=0``
(the estimators' default seed, ``None``, draws new epoch orders in every fit: fits of different
lengths would be compared).  Two fresh environments:

* ``built``: a new empty ``NUMBA_CACHE_DIR`` filled by ``python -m predtron compile``, as the
  README's set-up command does after installing (the command's own time is shown);
* ``bare``: a new empty ``NUMBA_CACHE_DIR`` and no build step (a user who skipped the set-up
  command): the background worker of :mod:`predtron.engine.jit`, asked for the pass kernels when
  the import reaches the learners, compiles while the data load and the twins run.

``first fit`` rows (``--cli``): one ``predtron fit`` command on a shipped data set in fresh
subprocesses, ``cold`` with an empty cache against ``warm`` once the cache is filled (by a
run with ``PREDTRON_JIT=always``, shown as ``compile-all``), best of ``repeat``, by the same rule
as the five-fit rows (``cold`` within ``1.5 x warm + 0.5 s``: a whole process has fixed costs, the
interpreter's start and the data's read, that no compiler can shorten).

    python benchmarks/cold_start.py            # the five-fit rows, built and bare
    python benchmarks/cold_start.py --cli      # and the command-line rows
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "predtron" / "data" / "files"  # the shipped copies
GOAL = 1.5
SLACK = 0.5  # seconds: each fresh fit within GOAL x compiled + SLACK

FIVE_FITS = r"""
import json, sys, time
from predtron.sklearn import PredtronMultilabelClassifier, PredtronRanker
which = sys.argv[1]
if which == "ranker":
    from predtron.data import load_mq2008
    data = load_mq2008("train")  # Fold 1's vali.txt, the shipped copy
    fit = lambda: PredtronRanker(random_state=0).fit(data.X, data.y, group=data.group)
else:
    from predtron.data import load_bibtex
    data = load_bibtex("train")  # sparse
    fit = lambda: PredtronMultilabelClassifier(random_state=0).fit(data.X, data.Y)
times = []
for _ in range(5):
    start = time.perf_counter()
    fit()
    times.append(time.perf_counter() - start)
print(json.dumps(times))
"""

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


def _five_fits(which: str, cache: str, policy: str | None = None) -> list[float]:
    """Seconds of each of five identical fits in one fresh interpreter with numba's cache in ``cache``."""
    env = _environment(cache)
    if policy is not None:
        env["PREDTRON_JIT"] = policy
    out = subprocess.run([sys.executable, "-c", FIVE_FITS, which], env=env, check=True,
                         capture_output=True, text=True, cwd=cache).stdout
    return json.loads(out.strip().splitlines()[-1])


def _environment(cache: str) -> dict:
    """The environment of a fresh process of this repository's package with numba's cache in ``cache``."""
    unset = ("PREDTRON_JIT", "PREDTRON_NO_JIT", "PREDTRON_JIT_BACKGROUND")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env["NUMBA_CACHE_DIR"] = cache
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


def build_cache(cache: str) -> float:
    """Seconds of ``python -m predtron compile`` filling ``cache`` (the README's set-up step)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "predtron", "compile", "--quiet"], env=_environment(cache), check=True,
                   cwd=cache)
    return time.perf_counter() - start


WORKLOADS = (("ranker", "PredtronRanker, MQ2008 Fold 1 vali"),
             ("bibtex", "PredtronMultilabelClassifier, bibtex (sparse)"))


def five_fits(environments: tuple[str, ...] = ("built", "bare")) -> list[dict]:
    """Each of five fits in a fresh process (``built`` and/or ``bare``) against the same fit compiled."""
    rows = []
    for which, name in WORKLOADS:
        with tempfile.TemporaryDirectory() as compiled_cache:
            compiled = min(_five_fits(which, compiled_cache, "always")[1:])
        limit = GOAL * compiled + SLACK
        for environment in environments:
            with tempfile.TemporaryDirectory() as fresh:
                setup = f"; predtron compile took {build_cache(fresh):.1f} s" if environment == "built" else ""
                cold = _five_fits(which, fresh)
            for i, seconds in enumerate(cold, 1):
                rows.append({"workload": f"five fits, {environment}, fit {i}: {name}", "kind": "cost",
                             "ratio": seconds / compiled, "goal": limit / compiled, "seconds": seconds,
                             "limit": limit,
                             "note": f"fresh {seconds:.3f} s, compiled {compiled:.3f} s, limit {limit:.3f} s{setup}"})
    return rows


def run(quick: bool = False, cli: bool = False) -> list[dict]:
    """Every row (the suite's entry point for ``benchmarks/run_all.py``)."""
    return five_fits() + (first_fits(quick) if cli else [])


def first_fits(quick: bool = False) -> list[dict]:
    """One ``predtron fit`` command, cold against warm (best of ``repeat``)."""
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
        warm = min(t["warm"])
        limit = GOAL * warm + SLACK
        rows.append({"workload": f"first fit, {name}", "kind": "cost", "ratio": min(t["cold"]) / warm,
                     "goal": limit / warm, "note": (f"cold {min(t['cold']):.2f} s, warm {warm:.2f} s, "
                                                    f"limit {limit:.2f} s, compile-all {min(t['compile-all']):.2f} s; "
                                                    f"per repeat {min(ratios):.2f}-{max(ratios):.2f}")})
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="one repeat of the command-line rows")
    parser.add_argument("--cli", action="store_true", help="also the command-line first-fit rows")
    parser.add_argument("--only", choices=("built", "bare"), help="only this fresh environment's five-fit rows")
    args = parser.parse_args()
    rows = five_fits((args.only,) if args.only else ("built", "bare")) + (first_fits(args.quick) if args.cli else [])
    for row in rows:
        ok = "met" if row["ratio"] <= row["goal"] else "NOT met"
        print(f"{row['workload']:72s} fresh/compiled {row['ratio']:6.2f} <={row['goal']:.2f} {ok}  {row['note']}")
