"""Speed of the multilabel oracles (Section 3) against brute-force enumeration, and of a
Predtron pass on Mulan yeast against a plain binary-relevance perceptron.

Every ratio compares two things measured in the same run on the same machine, so it is
meaningful on a shared, noisy machine where absolute times are not.

    python benchmarks/multilabel_oracle.py            # full
    python benchmarks/multilabel_oracle.py --quick    # smaller sizes
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from predtron import Predtron
from predtron.data.mulan import load_arff
from predtron.problems import Multilabel
from predtron.testing import brute_force_oracle
from predtron.timing import best_time

YEAST = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "mulan-yeast"


def oracle_table(sizes, repeat: int) -> None:
    print("m   loss      fast oracle (s)  brute force (s)  brute/fast")
    rng = np.random.default_rng(0)
    for m in sizes:
        for loss in ("hamming", "subset", "errorset", "f1"):
            problem = Multilabel(m, loss)
            y, t = problem.random_label(rng), rng.standard_normal(m)
            fast = best_time(lambda p=problem, t=t, y=y: p.oracle(t, y), repeat)
            brute = best_time(lambda p=problem, t=t, y=y: brute_force_oracle(p, t, y), 1)
            print(f"{m:<3d} {loss:9s} {fast:15.2e} {brute:16.2e} {brute / fast:11.0f}")


def fbeta_table(sizes, repeat: int) -> None:
    """The F1 oracle (binary search per number of predicted labels) against the ``(a, b)`` count
    grid it replaced, both exact, for many labels (a few relevant, as in text data)."""
    from predtron.problems.bipartite import BipartiteMeasure

    print("m     F1 oracle (s)  count grid (s)  grid/oracle")
    rng = np.random.default_rng(1)
    for m in sizes:
        measure = BipartiteMeasure("f1", m)
        y = (rng.random(m) < max(3 / m, 0.02)).astype(np.int64)
        t = rng.standard_normal(m)
        assert np.array_equal(measure.oracle(t, y), measure.oracle_grid(t, y))
        fast = best_time(lambda measure=measure, t=t, y=y: measure.oracle(t, y), repeat)
        grid = best_time(lambda measure=measure, t=t, y=y: measure.oracle_grid(t, y), repeat)
        print(f"{m:<5d} {fast:14.2e} {grid:15.2e} {grid / fast:12.1f}")


def binary_relevance_pass(X, Y) -> None:
    """The peer: one classic perceptron per label, updated with numpy, one pass."""
    W = np.zeros((Y.shape[1], X.shape[1]))
    signs = 2 * Y - 1
    for x, s in zip(X, signs, strict=True):
        wrong = s * (W @ x) <= 0
        W[wrong] += s[wrong, None] * x


def yeast_pass() -> None:
    if not (YEAST / "yeast-train.arff").exists():
        print(f"skipped the yeast pass: {YEAST} not found")
        return
    data = load_arff(YEAST / "yeast-train.arff", 14)
    X = (data.X - data.X.mean(axis=0)) / (data.X.std(axis=0) + 1e-12)
    ours = best_time(lambda: Predtron(Multilabel(14, "hamming")).fit(X, data.Y), 3)
    peer = best_time(lambda: binary_relevance_pass(X, data.Y), 3)
    print(f"yeast, one pass over {len(X)} examples: Predtron {ours:.3f} s, "
          f"binary-relevance perceptron {peer:.3f} s, ratio {ours / peer:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    args = parser.parse_args()
    oracle_table([4, 8, 12] if args.quick else [4, 8, 12, 14, 16], repeat=20)
    fbeta_table([22, 159] if args.quick else [22, 159, 1000, 4000], repeat=20)
    yeast_pass()


if __name__ == "__main__":
    main()
