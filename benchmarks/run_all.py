"""Every speed and memory goal of the performance issue, measured in one run, in one table.

Each row compares predtron with the peer named in the row, both measured in this run on
this machine (best of several runs, single-threaded BLAS): ``ratio`` is the peer's time
over predtron's (above 1: predtron is faster), except for the rows marked "cost" (time of a
variant over the plain pass: lower is better) and "memory" (megabytes added while
streaming: lower is better).  The real-data comparison of accuracy and fit time is
``benchmarks/real_data.py``.

    python benchmarks/run_all.py            # full sizes (a few minutes)
    python benchmarks/run_all.py --quick    # smaller sizes
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import memory
import passes
import ranking_oracle
import streaming


def verdict(row: dict) -> str:
    goal = row.get("goal")
    if goal is None or (isinstance(goal, float) and math.isnan(goal)):
        return "(no goal)"
    if row.get("kind", "speed") == "speed":
        return "met" if row["ratio"] >= goal else "NOT met"
    return "met" if row["ratio"] <= goal else "NOT met"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    quick = parser.parse_args().quick
    rows = passes.run(quick) + ranking_oracle.run(quick) + memory.run(quick) + streaming.run(quick)
    print(f"{'workload':78s} {'kind':6s} {'ratio':>8s} {'goal':>7s}  verdict   note")
    for row in rows:
        kind = row.get("kind", "speed")
        sign = ">=" if kind == "speed" else "<="
        goal = row.get("goal")
        goal_text = "-" if goal is None or (isinstance(goal, float) and math.isnan(goal)) else f"{sign}{goal:g}"
        unit = "x" if kind == "speed" else (" MB" if kind == "memory" else "x")
        print(f"{row['workload'][:78]:78s} {kind:6s} {row['ratio']:7.2f}{unit:<1s} {goal_text:>7s}  "
              f"{verdict(row):9s} {row.get('note', '')}")


if __name__ == "__main__":
    main()
