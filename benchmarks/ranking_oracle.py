"""Timing of the ranking oracle (Lemma 3) and of one Predtron round on MQ2008-shaped data.

Prints, all measured in this run:

* the loss-augmented argmax by linear assignment for m = 10, 100, 1000 documents
  (f = -i, NDCG), and by the exact sort (f = the NDCG discount) for comparison;
* brute force over all m! rankings (``predtron.testing.brute_force_oracle``) for small m,
  next to the assignment oracle at the same m, with their ratio;
* the mean cost per query of one online Predtron pass (prediction, loss, and on
  mistake rounds the oracle and the update) on LETOR MQ2008 fold 1 (``vali.txt``) when
  present, on synthetic data of the same shape (46 features, 6-120 documents per query)
  otherwise; the output says which.

Usage: ``python benchmarks/ranking_oracle.py [--quick] [--data DIR] [--seed N]``.
No assertion is made on the times.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from predtron.data.letor import load_letor
from predtron.learners.predtron import Predtron
from predtron.problems.subset_ranking import SubsetRanking
from predtron.testing import brute_force_oracle
from predtron.timing import best_time

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "letor-mq2008-fold1"


def instance(m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    return rng.standard_normal(m), rng.integers(0, 3, size=m)


def time_oracles(sizes, repeats: int, rng) -> None:
    assignment = SubsetRanking(f="linear")
    sort = SubsetRanking(f="discount")
    print("oracle for NDCG, one call (best of repeats)")
    print(f"{'m':>6} {'assignment (f=-i)':>20} {'sort (f=discount)':>20}")
    for m in sizes:
        t, y = instance(m, rng)
        a = best_time(lambda t=t, y=y: assignment.oracle(t, y), repeat=repeats)
        s = best_time(lambda t=t, y=y: sort.oracle(t, y), repeat=repeats)
        print(f"{m:>6} {a * 1e3:>17.3f} ms {s * 1e3:>17.3f} ms")


def time_brute_force(sizes, repeats: int, rng) -> None:
    problem = SubsetRanking(f="linear")
    print("\nassignment vs brute force over all m! rankings, same instance")
    print(f"{'m':>6} {'m!':>7} {'assignment':>14} {'brute force':>14} {'brute / assignment':>20}")
    for m in sizes:
        t, y = instance(m, rng)
        a = best_time(lambda t=t, y=y: problem.oracle(t, y), repeat=repeats)
        b = best_time(lambda t=t, y=y: brute_force_oracle(problem, t, y), repeat=1 if m >= 7 else repeats)
        phi_fast = problem.objective(problem.oracle(t, y), t, y)
        phi_brute = brute_force_oracle(problem, t, y)[1]
        agree = "same value" if abs(phi_fast - phi_brute) <= 1e-9 * (1 + abs(phi_brute)) else "DIFFERENT"
        print(f"{m:>6} {np.prod(np.arange(1, m + 1)):>7} {a * 1e3:>11.3f} ms {b * 1e3:>11.1f} ms "
              f"{b / a:>19.0f}x  ({agree})")


def ranking_data(path: Path, rng) -> tuple[list, list, str]:
    file = path / "vali.txt"
    if file.exists():
        X, Y = load_letor(file).queries()
        return X, Y, f"LETOR MQ2008 fold 1, {file}"
    X, Y = [], []
    for _ in range(157):
        m = int(rng.integers(6, 121))
        X.append(rng.random((m, 46)))
        Y.append(rng.choice(3, size=m, p=[0.75, 0.17, 0.08]))
    return X, Y, f"synthetic data of the MQ2008 shape ({file} not found)"


def time_predtron(path: Path, passes: int, rng) -> None:
    X, Y, source = ranking_data(path, rng)
    sizes = [len(y) for y in Y]
    print(f"\nPredtron on {source}")
    print(f"{len(X)} queries, {X[0].shape[1]} features, {min(sizes)}-{max(sizes)} documents per query")
    for f in ("linear", "discount"):
        problem = SubsetRanking(f=f)
        learner = Predtron(problem, eta=1.0)
        learner.partial_fit(X[:1], Y[:1])  # validation and set-up outside the timed region
        start = time.perf_counter()
        for _ in range(passes):
            learner.partial_fit(X, Y)
        elapsed = time.perf_counter() - start
        rounds = passes * len(X)
        updates = learner.n_updates_
        print(f"f={f:>8}: {elapsed / rounds * 1e3:.3f} ms per query per round "
              f"({rounds} rounds, {updates} updates so far, mean loss of the last pass "
              f"{learner.loss_history_[-len(X):].mean():.3f})")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, brute force up to m = 7")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with vali.txt (MQ2008 fold 1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    repeats = 3 if args.quick else 10
    time_oracles([10, 100, 1000], repeats, rng)
    time_brute_force(range(3, 8 if args.quick else 9), repeats, rng)
    time_predtron(args.data, 1 if args.quick else 3, rng)


if __name__ == "__main__":
    main()
