"""Speed of one online pass of the learners against scikit-learn, measured in the same run.

Every row times the same data through a predtron learner and through the peer named in
the row (best of ``repeat`` runs, five for the full sizes and at least fifteen for the
millisecond ranking passes, single-threaded BLAS; the runs of
the two alternate, so that changes of the machine's load reach both alike), and prints the
ratio ``peer time / predtron time`` (above 1: predtron is faster) next to the goal of the
performance issue.
Absolute times on a shared machine mean little; the ratios are what to read.

    python benchmarks/passes.py            # full sizes
    python benchmarks/passes.py --quick    # smaller, for a smoke run
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron, SGDRegressor
from sklearn.multiclass import OneVsRestClassifier
from threadpoolctl import threadpool_limits

from predtron import Predtron
from predtron.book.timing import best_times
from predtron.engine import jit
from predtron.problems import Binary, Multiclass, Multilabel, SubsetRanking

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _row(workload, peer, peer_seconds, seconds, goal, note="", kind="speed") -> dict:
    ratio = peer_seconds / seconds if kind == "speed" else seconds / peer_seconds
    return {"workload": workload, "peer": peer, "peer_seconds": peer_seconds, "predtron_seconds": seconds,
            "ratio": ratio, "goal": goal, "kind": kind, "note": note}


def _digits(n: int):
    X, y = load_digits(return_X_y=True)
    reps = n // len(X) + 1
    return np.ascontiguousarray(np.tile(X, (reps, 1))[:n], dtype=float), np.tile(y, reps)[:n]


def multiclass(n: int, repeat: int) -> list[dict]:
    """Digits tiled to ``n`` rows, 10 classes, 64 features; scikit-learn's Perceptron in file order."""
    X, y = _digits(n)
    peer, plain, averaged = best_times([
        lambda: Perceptron(shuffle=False).partial_fit(X, y, classes=np.arange(10)),
        lambda: Predtron(Multiclass(10), record_losses=False).fit(X, y),
        lambda: Predtron(Multiclass(10), record_losses=False, average=True).fit(X, y)], repeat)
    mistakes = Predtron(Multiclass(10)).fit(X, y).n_mistakes_
    return [
        _row(f"multiclass pass, digits x{n // 1797}, k=10, p=64", "Perceptron.partial_fit", peer, plain, 2.0,
             f"{mistakes} mistakes"),
        _row("  averaged vs plain (time ratio, lower is better)", "plain Predtron", plain, averaged, 1.3,
             kind="cost"),
    ]


def _linear_stream(n: int, p: int, noise: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    w = rng.standard_normal(p)
    y = np.where(X @ w + noise * np.sqrt(p) * rng.standard_normal(n) >= 0, 1, -1)
    return X, y


def binary(n: int, p: int, repeat: int) -> list[dict]:
    """A linear concept on Gaussian inputs, without and with label noise (10% flipped scores)."""
    rows = []
    for noise, name in ((0.0, "separable"), (0.15, "noisy")):
        X, y = _linear_stream(n, p, noise)
        peer, ours, averaged = best_times([
            lambda X=X, y=y: Perceptron(shuffle=False).partial_fit(X, y, classes=[-1, 1]),
            lambda X=X, y=y: Predtron(Binary(), record_losses=False).fit(X, y),
            lambda X=X, y=y: Predtron(Binary(), record_losses=False, average=True).fit(X, y)], repeat)
        mistakes = Predtron(Binary()).fit(X, y).n_mistakes_
        rows.append(_row(f"binary pass, {n} x {p}, {name}", "Perceptron.partial_fit", peer, ours, 1.0,
                         f"{mistakes} mistakes ({mistakes / n:.1%})"))
        rows.append(_row("  averaged vs plain (time ratio, lower is better)", "plain Predtron", ours, averaged, 1.3,
                         kind="cost"))
    return rows


def _yeast(n: int):
    path = SHARED / "mulan-yeast" / "yeast-train.arff"
    if path.exists():
        from predtron.data import load_arff

        data = load_arff(path, 14)
        X, Y, source = data.X, data.Y, "yeast"
    else:
        rng = np.random.default_rng(0)
        X = rng.standard_normal((1500, 103))
        Y = (X @ rng.standard_normal((103, 14)) + rng.standard_normal((1500, 14)) > 1.0).astype(int)
        source = "synthetic yeast-sized"
    reps = n // len(X) + 1
    return np.ascontiguousarray(np.tile(X, (reps, 1))[:n]), np.tile(Y, (reps, 1))[:n], source


def multilabel(n: int, repeat: int) -> list[dict]:
    """Hamming loss, 14 labels, 103 features (Mulan yeast tiled); one-vs-rest Perceptron, one epoch."""
    X, Y, source = _yeast(n)

    def peer():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            OneVsRestClassifier(Perceptron(max_iter=1, tol=None, shuffle=False)).fit(X, Y)

    peer_time, ours = best_times([peer, lambda: Predtron(Multilabel(14), record_losses=False).fit(X, Y)], repeat)
    mistakes = Predtron(Multilabel(14)).fit(X, Y).n_mistakes_
    note = f"{mistakes} rounds with a mistake ({mistakes / n:.0%})"
    return [_row(f"multilabel Hamming pass, {source} tiled to {n}, m=14, p=103", "one-vs-rest Perceptron",
                 peer_time, ours, 1.0, note)]


def sparse_text(n: int, repeat: int) -> list[dict]:
    """Bag-of-words-like CSR input: 1e5 features, 0.1% density, 5 classes."""
    rng = np.random.default_rng(0)
    p, k = 100_000, 5
    per_row = p // 1000  # 0.1% density; drawn row by row (scipy.sparse.random draws from all n*p cells,
    # which takes gigabytes at these sizes); a rare repeated column is summed
    rows = np.repeat(np.arange(n), per_row)
    cols = rng.integers(0, p, n * per_row)
    X = sp.csr_matrix((rng.random(n * per_row) + 0.5, (rows, cols)), shape=(n, p))
    W = np.where(rng.random((k, p)) < 0.05, rng.standard_normal((k, p)), 0.0)
    y = np.asarray(np.argmax((X @ W.T), axis=1)).ravel()
    peer, ours, averaged = best_times([
        lambda: Perceptron(shuffle=False).partial_fit(X, y, classes=np.arange(k)),
        lambda: Predtron(Multiclass(k), record_losses=False).fit(X, y),
        lambda: Predtron(Multiclass(k), record_losses=False, average=True).fit(X, y)], repeat)
    mistakes = Predtron(Multiclass(k)).fit(X, y).n_mistakes_
    # W (5 x 1e5, 4 MB) leaves the core's cache: the pass runs on a feature-major copy (engine.vectors)
    return [_row(f"sparse text-like pass, {n} x 1e5 at 0.1%, k=5", "Perceptron.partial_fit (same CSR)", peer, ours,
                 1.0, f"{mistakes} mistakes"),
            _row("  averaged (the estimators' default)", "Perceptron.partial_fit (same CSR)", peer, averaged, 1.0)]


def sparse_bibtex(repeat: int) -> list[dict]:
    """Bibtex's CSR word features (train and test stacked: 7,395 rows, 1,836 binary columns, about
    4% non-zero): five classes of a random linear concept, and one of its tags as a binary task."""
    from predtron.data import load_bibtex

    train, test = load_bibtex("train"), load_bibtex("test")
    X = sp.vstack([train.X, test.X]).tocsr()
    tags = np.vstack([np.asarray(train.Y), np.asarray(test.Y)])
    rng = np.random.default_rng(0)
    y = np.asarray(np.argmax(X @ rng.standard_normal((X.shape[1], 5)), axis=1)).ravel()
    tag = np.where(tags[:, int(np.argmax(tags.sum(axis=0)))] > 0, 1, -1)
    peer, ours, peer_binary, ours_binary = best_times([
        lambda: Perceptron(shuffle=False).partial_fit(X, y, classes=np.arange(5)),
        lambda: Predtron(Multiclass(5), record_losses=False).fit(X, y),
        lambda: Perceptron(shuffle=False).partial_fit(X, tag, classes=[-1, 1]),
        lambda: Predtron(Binary(), record_losses=False).fit(X, tag)], repeat)
    shape = f"{X.shape[0]} x {X.shape[1]} at {X.nnz / np.prod(X.shape):.1%}"
    return [_row(f"sparse bibtex pass, {shape}, k=5", "Perceptron.partial_fit (same CSR)", peer, ours, 1.0,
                 f"{Predtron(Multiclass(5)).fit(X, y).n_mistakes_} mistakes"),
            _row("  binary, its most frequent tag", "Perceptron.partial_fit (same CSR)", peer_binary, ours_binary, 1.0,
                 f"{Predtron(Binary()).fit(X, tag).n_mistakes_} mistakes")]


def ranking(repeat: int) -> list[dict]:
    """MQ2008 Fold 1 (vali.txt as training): one pass against ``SGDRegressor.partial_fit``.

    Three ways to run the pass: what a user's first ``partial_fit`` and every chunk of a stream
    do (a new problem, ``qid=`` per row, the loss record kept: the default), the same with
    ``group=``, and a pass reusing a problem whose per-query-size tables are built, with
    ``group=`` and the record off (the figure of earlier rounds).  A new problem finds the
    tables of an earlier problem with the same ``f``, loss and cut-off (they are shared by
    the process); ``first problem of the process`` times the very first one, tables included
    (built per query size present, without checks for a named ``f``; with ``f="discount"`` each
    size still solves a small least-squares fit for the slope of its exact sort).
    """
    from predtron.data import load_letor

    path = SHARED / "letor-mq2008-fold1" / "vali.txt"
    if not path.exists():
        from predtron.data import load_mq2008

        data = load_mq2008("train")
    else:
        data = load_letor(path, n_features=46)
    X, y, group = data.X, data.y, data.group
    qid = np.repeat(np.arange(len(group)), group)
    repeat = max(repeat, 15)  # a pass takes about a millisecond: more runs cost nothing and outlast load spikes
    return _ranking_rows("linear", X, y, group, qid, repeat) + _ranking_rows("discount", X, y, group, qid, repeat)


def _ranking_rows(f: str, X, y, group, qid, repeat: int) -> list[dict]:
    from predtron.problems import ranking as ranking_module
    from predtron.problems import ranking_measures

    oracle = "grade dynamic-programming oracle" if f == "linear" else "sort oracle"
    built = SubsetRanking(f=f)
    Predtron(built).partial_fit(X, y, group=group)  # compiles the kernels, builds the tables
    first = []

    def first_problem():
        ranking_module._SIZE_TABLES.clear()  # the tables shared by the problems, as in a new process
        ranking_measures._WEIGHTS.clear()
        start = time.perf_counter()
        Predtron(SubsetRanking(f=f)).partial_fit(X, y, qid=qid)
        first.append(time.perf_counter() - start)

    peer, fresh_qid, fresh_group, reused, _ = best_times([
        lambda: SGDRegressor(max_iter=1).partial_fit(X, y),
        lambda: Predtron(SubsetRanking(f=f)).partial_fit(X, y, qid=qid),
        lambda: Predtron(SubsetRanking(f=f)).partial_fit(X, y, group=group),
        lambda: Predtron(built, record_losses=False).partial_fit(X, y, group=group),
        first_problem], repeat)
    name = f"ranking pass, MQ2008 Fold 1, f={f} ({len(y)} docs)"
    return [_row(f"{name}: new problem, qid=", "SGDRegressor.partial_fit", peer, fresh_qid, 0.5, oracle),
            _row("  new problem, group=", "SGDRegressor.partial_fit", peer, fresh_group, 0.5),
            _row("  first problem of the process, qid=", "SGDRegressor.partial_fit", peer, min(first), 0.5),
            _row("  tables built, group=, record off", "SGDRegressor.partial_fit", peer, reused, 1.0)]


def run(quick: bool = False) -> list[dict]:
    """Every row (the suite's entry point for ``benchmarks/run_all.py``)."""
    # best of 5: a pass takes tens of milliseconds, and on a shared machine single runs of the
    # memory-bound sparse pass vary several-fold (the peer gets the same number of runs)
    repeat = 2 if quick else 5
    # the compiled passes themselves are measured: compile them on first use (the default rule
    # runs small workloads on NumPy until compiling pays; benchmarks/cold_start.py measures that)
    jit.POLICY = "always"
    n = 20_000 if quick else 100_000
    with threadpool_limits(1):
        return (multiclass(n, repeat) + binary(n, 100, repeat) + multilabel(n // 5, repeat)
                + sparse_text(n // 5, repeat) + sparse_bibtex(repeat) + ranking(repeat))


def print_rows(rows: list[dict]) -> None:
    print(f"{'workload':60s} {'peer':34s} {'peer s':>8s} {'ours s':>8s} {'ratio':>7s} {'goal':>6s}  note")
    for r in rows:
        mark = ">=" if r["kind"] == "speed" else "<="
        ok = r["ratio"] >= r["goal"] if r["kind"] == "speed" else r["ratio"] <= r["goal"]
        print(f"{r['workload']:60s} {r['peer']:34s} {r['peer_seconds']:8.4f} {r['predtron_seconds']:8.4f} "
              f"{r['ratio']:7.2f} {mark}{r['goal']:<4g} {'met' if ok else 'NOT met'}  {r['note']}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    print_rows(run(parser.parse_args().quick))
