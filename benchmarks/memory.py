"""Memory of a long stream through ``partial_fit``: it must not grow with the stream.

Streams ``n`` examples (default 2e6) in chunks through a multiclass Predtron and reports
how much memory the Python heap (``tracemalloc``, which also sees NumPy's buffers) holds
after the first ``n / 10`` examples and at the end; the goal of the performance issue is
an increase below 4 MB.  With ``record_losses=False`` only running totals are kept; the
default (``True``) keeps 16 bytes per round with a non-zero loss, which the second row shows.

    python benchmarks/memory.py [--quick]
"""

from __future__ import annotations

import argparse
import gc
import tracemalloc

import numpy as np

from predtron import Predtron
from predtron.problems import Multiclass


def stream(n: int, record: bool, chunk: int = 20_000, p: int = 20, k: int = 5) -> tuple[float, float, int]:
    """``(MB held after n/10 examples, MB held at the end, rounds with a loss)``."""
    rng = np.random.default_rng(0)
    W = rng.standard_normal((k, p))
    model = Predtron(Multiclass(k), record_losses=record, average=True)
    early = None
    tracemalloc.start()
    for start in range(0, n, chunk):
        X = rng.standard_normal((chunk, p))
        y = np.argmax(X @ W.T + 0.5 * rng.standard_normal((chunk, k)), axis=1)
        model.partial_fit(X, y)
        del X, y
        if early is None and start + chunk >= n // 10:
            gc.collect()
            early = tracemalloc.get_traced_memory()[0]
    gc.collect()
    late = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return early / 2**20, late / 2**20, model.n_mistakes_


def run(quick: bool = False) -> list[dict]:
    """Rows for ``benchmarks/run_all.py``: the growth after the first tenth of the stream."""
    n = 400_000 if quick else 2_000_000
    rows = []
    for record in (False, True):
        early, late, mistakes = stream(n, record)
        rows.append({"workload": f"memory, {n:.0e} examples through partial_fit, record_losses={record}",
                     "peer": "after the first 10%", "peer_seconds": early, "predtron_seconds": late,
                     "ratio": late - early, "goal": 4.0 if not record else float("nan"), "kind": "memory",
                     "note": f"MB held {early:.2f} -> {late:.2f}; {mistakes} rounds with a loss"})
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="4e5 examples instead of 2e6")
    for row in run(parser.parse_args().quick):
        print(f"{row['workload']}: grew {row['ratio']:.2f} MB ({row['note']})")
