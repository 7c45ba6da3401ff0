"""Cost of the exact fit statistics against NumPy's float sums, measured in the same run.

``FitStatistics`` (the scaler's moments and Theorem 1's step) keeps exact sums
(``predtron._exact.ExactSums``) so that an array, its chunks and its shards give the same scaler
bit for bit; NumPy's ``X.sum(axis=0)`` and ``(X * X).sum(axis=0)`` are the floor (rounded sums,
which depend on the cut).  Every row prints ``predtron time / NumPy time`` (lower is better)
next to its goal.  Absolute times on a shared machine mean little; the ratios are what to read.

    python benchmarks/statistics.py            # 100,000 x 50 dense standardised rows
    python benchmarks/statistics.py --quick    # 20,000 x 50
"""

from __future__ import annotations

import argparse

import numpy as np
from threadpoolctl import threadpool_limits

from predtron._exact import ExactSums
from predtron.book.timing import best_times
from predtron.engine import jit
from predtron.sklearn import FitStatistics


def _row(workload, peer, peer_seconds, seconds, goal, note="") -> dict:
    return {"workload": workload, "peer": peer, "peer_seconds": peer_seconds, "predtron_seconds": seconds,
            "ratio": seconds / peer_seconds, "goal": goal, "kind": "cost", "note": note}


def run(quick: bool = False) -> list[dict]:
    """Every row: the exact column sums and squares, and the whole first phase of ``FitStatistics``."""
    jit.POLICY = "always"  # the compiled sums themselves are measured (cold starts: benchmarks/cold_start.py)
    n, p = (20_000 if quick else 100_000), 50
    X = np.random.default_rng(0).standard_normal((n, p))
    repeat = 3 if quick else 7

    def exact():
        ExactSums(p).add(X).fractions(), ExactSums(p).add_squares(X).fractions()

    def numpy_sums():
        X.sum(axis=0), (X * X).sum(axis=0)

    exact(), FitStatistics().update(X)  # compiled on first use, outside the measurement
    with threadpool_limits(1):
        floor, ours, statistics = best_times([numpy_sums, exact, lambda: FitStatistics().update(X)], repeat)
    shape = f"{n} x {p} dense"
    return [_row(f"exact column sums and squares, {shape}", "NumPy float sums", floor, ours, 3.0,
                 "exact in any cut"),
            _row("  FitStatistics.update (moments, flags, min/max)", "NumPy float sums", floor, statistics, 6.0)]


def print_rows(rows: list[dict]) -> None:
    print(f"{'workload':56s} {'peer':18s} {'peer s':>8s} {'ours s':>8s} {'ratio':>7s} {'goal':>6s}  note")
    for r in rows:
        ok = r["ratio"] <= r["goal"]
        print(f"{r['workload']:56s} {r['peer']:18s} {r['peer_seconds']:8.4f} {r['predtron_seconds']:8.4f} "
              f"{r['ratio']:7.2f} <={r['goal']:<4g} {'met' if ok else 'NOT met'}  {r['note']}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    print_rows(run(parser.parse_args().quick))
