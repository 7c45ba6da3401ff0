"""Iterative parameter mixing on Dask: rows per second with 2 workers against 1 (issue 18, item 7).

The same fit (the same shards, hence the same model) runs on a local cluster of one worker
process and on one of two worker processes (one thread each, 127.0.0.1), one cluster at a time.
The data are generated on the workers and persisted before timing, so the time is the fit's:
the shard statistics, the scaling and the epochs of one pass per shard plus the mixing.  The
clusters alternate in rounds (1 worker, 2 workers, 1 worker, ...) and the best fit of each is
kept, so a change of the machine's load reaches both.  Goal: at least 1.6x the rows per second
with 2 workers.  After every cluster the script measures what two processes can gain on this
machine at that moment (the same CPU-bound loop in 2 processes against 1): on a machine shared
with other work, no program can beat that ceiling.

    python benchmarks/dask_scaling.py            # 1,000,000 rows x 50 features, 10 classes
    python benchmarks/dask_scaling.py --quick    # 50,000 rows
    python benchmarks/dask_scaling.py --accuracy # the accuracy gap to the serial fit, by mixing rounds

The accuracy gap (issue 24, item 4): on a sparse binary set with 5% flipped labels, the training
accuracy of the mixed fit on 2 and 4 shards against the serial fit (the defaults, 3 epochs), for
1, 2, 4 and 8 mixing rounds per epoch.  The model depends on the shards, not on the workers that
run them, and the statistics (scaler, step) do not depend on the cut
(:class:`~predtron.sklearn.FitStatistics`), so the mixing runs here in one process over the
shards (:func:`predtron.mixing.local_map`): the same model a cluster of any size computes.
"""

from __future__ import annotations

import argparse
import itertools
import logging

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster

from predtron.book.timing import best_times
from predtron.dask import DaskPredtronClassifier

GOAL = 1.6


def make_data(client, n_rows: int, n_features: int, n_classes: int, n_shards: int, seed: int = 0):
    """A multiclass problem generated partition by partition on the workers, then persisted."""
    rng = da.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features), chunks=(n_rows // n_shards, n_features))
    W = np.random.default_rng(seed + 1).normal(size=(n_features, n_classes))
    y = da.argmax(X @ W + rng.normal(scale=2.0, size=(n_rows, n_classes), chunks=(n_rows // n_shards, n_classes)),
                  axis=1)
    X, y = client.persist([X, y])
    client.wait_for_workers(len(client.scheduler_info(n_workers=-1)["workers"]))
    return X, y


def timed_fits(n_workers: int, n_rows: int, n_features: int, n_classes: int, n_shards: int, params: dict,
               repeat: int) -> tuple[float, np.ndarray]:
    """Best time of ``repeat`` fits on a new local cluster of ``n_workers`` processes (after a
    warm-up fit that compiles the pass in every worker), and the fitted parameters."""
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0") as cluster, Client(cluster) as client:
        X, y = make_data(client, n_rows, n_features, n_classes, n_shards)
        model = DaskPredtronClassifier(**params, client=client).fit(X, y)
        best = min(best_times([lambda: model.fit(X, y)], repeat=repeat))
        return best, model.to_local().learner_.coef_


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i
    return total


def machine_ceiling(repeat: int) -> float:
    """What 2 processes give over 1 on this machine now: the same CPU-bound loop in each of
    2 processes against 1, best of ``repeat`` (on an idle 2-core machine about 2x; less when
    other work shares the cores, and then no program can do better)."""
    import multiprocessing

    with multiprocessing.Pool(2) as pool:
        one, two = best_times([lambda: pool.map(_spin, [3_000_000]), lambda: pool.map(_spin, [3_000_000] * 2)],
                              repeat=repeat)
    return 2 * one / two


def run(quick: bool = False, repeat: int = 3, rounds: int = 2) -> list[dict]:
    """The measurement, as the rows of ``benchmarks/run_all.py`` (``ratio``: 2 workers' rows per
    second over 1 worker's; ``goal`` 1.6); prints the details."""
    # Each epoch costs a fixed coordination (submit the passes, gather and mix the parameters,
    # about the same for any size) plus the passes, which split across the workers: the ratio
    # measures the split once the passes dominate, at a million rows (at 200,000 rows the fixed
    # part held it near 1.4x on an idle machine whose own ceiling was 1.7x-1.9x).
    n_rows = 50_000 if quick else 1_000_000
    n_features, n_classes, n_shards, epochs = 50, 10, 2, 5
    logging.getLogger("distributed").setLevel(logging.ERROR)
    params = {"epochs": epochs, "tol": None, "random_state": 0}
    print(f"iterative parameter mixing: {n_rows} rows x {n_features} features, {n_classes} classes, "
          f"{n_shards} shards, {epochs} epochs (Algorithm 1, averaged, shuffled, standardised)")
    best = {1: np.inf, 2: np.inf}
    coefs, ceilings = {}, []
    for _ in range(rounds):  # the two clusters alternate, so a change of load reaches both
        for workers in (1, 2):
            seconds, coefs[workers] = timed_fits(workers, n_rows, n_features, n_classes, n_shards, params, repeat)
            best[workers] = min(best[workers], seconds)
            ceilings.append(machine_ceiling(repeat))
    assert np.array_equal(coefs[1], coefs[2]), "the two fits differ"
    rows = n_rows * epochs
    ratio = best[1] / best[2]
    ceiling = f"machine's ceiling now {min(ceilings):.2f}x to {max(ceilings):.2f}x"
    print(f"1 worker : {rows / best[1]:12,.0f} rows/s")
    print(f"2 workers: {rows / best[2]:12,.0f} rows/s")
    print(f"2 workers / 1 worker: {ratio:.2f}x rows per second (goal: at least {GOAL}x) "
          f"{'MET' if ratio >= GOAL else 'NOT MET'}")
    print(f"this {ceiling} (a CPU-bound loop in 2 processes against 1)")
    print("the two fits give the same model, bit for bit")
    return [{"workload": f"Dask iterative parameter mixing, 2 workers vs 1 ({n_rows} rows x {n_features})",
             "ratio": ratio, "goal": GOAL, "note": ceiling}]


def sparse_binary(n_rows: int, n_features: int, nnz: int, flip: float, seed: int = 0):
    """A sparse binary problem: ``nnz`` non-zero features per row, a linear rule, ``flip`` of the
    labels flipped."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    cols = rng.integers(0, n_features, size=(n_rows, nnz))
    vals = rng.random((n_rows, nnz))
    X = sp.csr_matrix((vals.ravel(), cols.ravel(), np.arange(0, n_rows * nnz + 1, nnz)), shape=(n_rows, n_features))
    X.sum_duplicates()
    w = rng.normal(size=n_features)
    y = np.where(X @ w > np.median(X @ w), 1, -1)
    flipped = rng.random(n_rows) < flip
    return X, np.where(flipped, -y, y)


def accuracy_gap(n_rows: int = 100_000, shards=(2, 4), rounds=(1, 2, 4, 8), epochs: int = 3,
                 seed: int = 0) -> list[dict]:
    """Training accuracy of the mixed fits against the serial fit (see the module notes)."""
    from predtron.mixing import iterative_parameter_mixing, local_map
    from predtron.sklearn import PredtronClassifier

    X, y = sparse_binary(n_rows, 2_000, 20, 0.05, seed)
    serial = PredtronClassifier(epochs=epochs, random_state=seed).fit(X, y)
    base = serial.score(X, y)
    print(f"accuracy gap: {n_rows} rows x 2000 sparse features (20 per row), 5% flipped labels, {epochs} epochs, "
          f"defaults; serial training accuracy {base:.4f}")
    problem = serial.make_problem()
    Xs = serial.transform_inputs(X)
    out = []
    for n_shards in shards:
        bounds = np.linspace(0, n_rows, n_shards + 1).astype(int)
        parts = [(Xs[a:b], y[a:b], {}) for a, b in itertools.pairwise(bounds)]
        for r in rounds:
            prototype = serial.core_learner(problem)
            stopper = serial.stopping_rule()
            result = iterative_parameter_mixing(local_map, prototype, parts, epochs, shuffle=True,
                                                random_state=prototype.random_state, rounds=r,
                                                stop=None if stopper is None else stopper.update)
            model = serial.__class__(epochs=epochs, random_state=seed)
            model.__dict__.update({k: v for k, v in vars(serial).items() if k.endswith("_")})
            model.learner_ = prototype.set_state(result.scalars, result.arrays)
            accuracy = model.score(X, y)
            print(f"  {n_shards} shards, {r} mixing round(s) per epoch: accuracy {accuracy:.4f} "
                  f"(gap {base - accuracy:+.4f}; goal: within 0.01) {'MET' if base - accuracy <= 0.01 else 'NOT MET'}")
            out.append({"shards": n_shards, "rounds": r, "accuracy": accuracy, "gap": base - accuracy})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller run")
    parser.add_argument("--repeat", type=int, default=3, help="timed fits per cluster and round (best kept)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of (1 worker, 2 workers)")
    parser.add_argument("--accuracy", action="store_true", help="measure the accuracy gap by mixing rounds instead")
    parser.add_argument("--rows", type=int, default=100_000, help="rows of the accuracy measurement")
    args = parser.parse_args()
    if args.accuracy:
        accuracy_gap(args.rows)
    else:
        run(args.quick, args.repeat, args.rounds)


if __name__ == "__main__":
    main()
