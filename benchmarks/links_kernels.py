"""Predtron.Link on sparse targets (Section 6 (c) in miniature) and the cost of the
kernelized Predtron with and without a budget.

1. Mistakes of Predtron (l2) and Predtron.Link with the default p-norm link (l1 margin,
   Corollary 6) and group-norm link (Corollary 8) on a 3-sparse multiclass target as
   the number of features p grows: the l1 learner's mistakes grow slowly with p.
2. Time of one online pass of each learner relative to plain Predtron (the link costs
   one map per update; the Schatten link one SVD).
3. KernelPredtron (rbf) on a long stream: time and support size without a budget
   and with budgets, against the primal Predtron.

Every ratio compares two things measured in the same run on the same machine.

    python benchmarks/links_kernels.py            # full
    python benchmarks/links_kernels.py --quick    # smaller sizes
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from predtron.learners.kernel import KernelPredtron
from predtron.learners.link import PredtronLink
from predtron.learners.predtron import Predtron
from predtron.links import GroupNormLink, PNormLink, SchattenLink
from predtron.problems import Multiclass


def sparse_multiclass(n: int, p: int, k: int, seed: int):
    """Inputs uniform in [-1, 1]^p; the class is the argmax of 3 relevant features' scores."""
    rng = np.random.default_rng(seed)
    W = np.zeros((k, p))
    W[:, :3] = rng.standard_normal((k, 3))
    X = rng.uniform(-1, 1, (4 * n, p))
    scores = X @ W.T
    top2 = np.sort(scores, axis=1)[:, -2:]
    keep = top2[:, 1] - top2[:, 0] > 0.3  # a margin, so the data are separable
    return X[keep][:n], np.argmax(scores[keep][:n], axis=1)


def timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def sparse_table(sizes, n: int, seeds: int) -> None:
    print(f"mistakes in one pass over n = {n} examples (mean over {seeds} seeds), 3-sparse target, k = 3")
    print("p      Predtron (l2)   Link p-norm   Link group   r (p-norm)")
    problem = Multiclass(3)
    for p in sizes:
        counts = {"l2": [], "pnorm": [], "group": []}
        r = None
        for seed in range(seeds):
            X, Y = sparse_multiclass(n, p, 3, seed)
            counts["l2"].append(Predtron(problem).fit(X, Y).n_updates_)
            model = PredtronLink(problem, link=PNormLink()).fit(X, Y)
            counts["pnorm"].append(model.n_updates_)
            r = model.r_
            counts["group"].append(PredtronLink(problem, link=GroupNormLink()).fit(X, Y).n_updates_)
        print(f"{p:<6d} {np.mean(counts['l2']):13.1f} {np.mean(counts['pnorm']):13.1f} "
              f"{np.mean(counts['group']):12.1f} {r:10.3f}")


def link_cost_table(n: int, p: int) -> None:
    problem = Multiclass(5)
    X, Y = sparse_multiclass(n, p, 5, 0)
    base = timed(lambda: Predtron(problem).fit(X, Y))
    print(f"\ntime of one pass relative to Predtron (n = {len(Y)}, p = {p}, k = 5)")
    for name, link in (("PNormLink()", PNormLink()), ("GroupNormLink()", GroupNormLink()),
                       ("SchattenLink(1.5)", SchattenLink(1.5))):
        elapsed = timed(lambda link=link: PredtronLink(problem, link=link).fit(X, Y))
        print(f"{name:18s} {elapsed / base:6.2f}x")


def kernel_table(n: int, budgets) -> None:
    problem = Multiclass(3)
    rng = np.random.default_rng(1)
    X = rng.standard_normal((n, 4))
    Y = np.argmax(np.sin(2 * X[:, :3]) + 0.3 * rng.standard_normal((n, 3)), axis=1)  # noisy: updates never stop
    base = timed(lambda: Predtron(problem).fit(X, Y))
    print(f"\nKernelPredtron (rbf) on a noisy stream of n = {n}: time relative to the primal Predtron")
    print("budget   time ratio   support size   mean loss")
    for budget in budgets:
        model = KernelPredtron(problem, kernel="rbf", budget=budget)
        elapsed = timed(lambda model=model: model.fit(X, Y))
        label = "none" if budget is None else str(budget)
        print(f"{label:8s} {elapsed / base:10.1f} {model.n_support_:14d} {model.loss_history_.mean():11.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    args = parser.parse_args()
    if args.quick:
        sparse_table([100, 400], n=150, seeds=2)
        link_cost_table(n=200, p=100)
        kernel_table(n=600, budgets=[None, 50])
    else:
        sparse_table([100, 500, 1000, 2000], n=300, seeds=5)
        link_cost_table(n=1000, p=500)
        kernel_table(n=3000, budgets=[None, 500, 100])


if __name__ == "__main__":
    main()
