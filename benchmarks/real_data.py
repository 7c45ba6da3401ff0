"""The predtron.sklearn estimators on real data, against Algorithm 1 as stated and the peers.

One table per task: every metric's mean and spread (sample standard deviation) over seeds,
the mean fit time and, for the predtron estimators, the mean number of passes made.

Tasks and why:

* **ranking** -- LETOR 4.0 MQ2008 Fold 1 (``vali.txt`` to train, ``test.txt`` to test, as
  ``predtron.data.load_mq2008``); NDCG@1/5/10 over the test queries, a query without a
  relevant document counting as 1 (LightGBM's convention).  Peer: LightGBM's ``LGBMRanker()``
  (lambdarank).
* **multilabel** -- Mulan emotions and yeast (dense) and bibtex and tmc2007-500 (sparse binary
  text, many rare labels: predicting no label at all has a small Hamming loss there), their
  own train/test files; Hamming loss, subset accuracy, micro-, macro- and example-based F1
  (the last is what ``loss="f1"`` optimises); and scikit-learn's bundled digits, pixels divided
  by 16, as 10 indicator labels (dense features in ``[0, 1]``, rare labels: the shape of public
  image sets such as Mulan scene, bundled, so no download).  Rows: the estimator's defaults and settings
  (``update="prediction"``, ``loss="f1"``, ``loss="subset"``, ``standardize=False``),
  Algorithm 1 as stated, the ablation, and one-vs-rest peers: scikit-learn's Perceptron,
  SGDClassifier (plain and averaged) and LogisticRegression on raw features, and on
  standardised ones for the dense sets.
* **ordinal** -- two targets whose labels are ordered levels, so that the absolute error
  counts levels: the relevance grade (0 < 1 < 2) of each MQ2008 document from its 46
  features, same split (real ordered labels, the pointwise view of ranking; a weak signal,
  79% of the documents are irrelevant), and scikit-learn's bundled diabetes data with the
  disease progression cut at its quintiles (5 balanced levels, a strong signal; one fixed
  stratified 70/30 split).  Mean absolute error and accuracy; the peers as multiclass
  classifiers, which ignore the order, PredtronClassifier among them.
* **classification** -- scikit-learn's bundled digits (10 classes) and breast-cancer
  (2 classes) data, one fixed stratified 70/30 split each: the classic multiclass and
  binary tests of linear classifiers, with no download.  Accuracy.

Each task also has a trivial reference row (random scores, no label, the median level, the
majority class) and an ablation: Algorithm 1 (``average=False, shuffle=False, fit_intercept=False,
standardize=False, epochs=1, eta=1.0, tol=None``) with ONE practical default switched on,
and the defaults with ONE of them switched off.  Only the seed of the learners changes
between runs (the splits are fixed); models with no randomness (file order, lbfgs, the
constant rows) are fitted once and their spread is 0.  Fit times are single-threaded
(BLAS limited to one thread, LightGBM ``n_jobs=1``, which gives the same model as its
default here) and are the wall clock of ``fit``; on a shared machine read them as orders
of magnitude.

    python benchmarks/real_data.py                    # 5 seeds, every task
    python benchmarks/real_data.py --quick            # 2 seeds, smoke run
    python benchmarks/real_data.py --tasks multilabel # only the multilabel tables, 10 seeds
    python benchmarks/real_data.py --data DIR         # another copy of the shared data

The ranking, multilabel and ordinal tasks read ``../shared/data`` beside the checkout (the
full files; not in a user's clone) and are skipped, with a message naming the missing path,
when it is absent.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, Perceptron, SGDClassifier
from sklearn.metrics import accuracy_score, f1_score, hamming_loss, mean_absolute_error
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from predtron.sklearn import (
    PredtronClassifier,
    PredtronMultilabelClassifier,
    PredtronOrdinalClassifier,
    PredtronRanker,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"

#: Algorithm 1 of the paper as stated: one pass in file order, the last iterate, raw inputs.
ALGORITHM_1 = {"average": False, "shuffle": False, "fit_intercept": False, "standardize": False,
               "epochs": 1, "eta": 1.0, "tol": None}
#: The estimators' practical defaults, knob by knob (the same keys as ALGORITHM_1); an estimator's
#: own default wins (the multilabel estimator's relative ``tol`` is 0.01), see :func:`_defaults_of`.
DEFAULTS = {"average": True, "shuffle": True, "fit_intercept": True, "standardize": True,
            "epochs": 50, "eta": "auto", "tol": 1e-3}


def _defaults_of(cls) -> dict:
    """:data:`DEFAULTS` as ``cls`` has them (its constructor's defaults for the same knobs)."""
    params = cls().get_params()
    return {k: params.get(k, v) for k, v in DEFAULTS.items()}
#: The ablation's knobs: a name and the parameters it switches together.
KNOBS = {"averaging": ("average",), "shuffling": ("shuffle",), "intercept": ("fit_intercept",),
         "standardization": ("standardize",), "eta auto (vs 1)": ("eta",),
         "50 passes, early stop": ("epochs", "tol")}


# ------------------------------------------------------------------------------- metrics
def ndcg_at(scores, relevance, group, k: int) -> float:
    """Mean NDCG@k over queries (gain ``2^rel - 1``, discount ``1/log2(1 + i)``); ties in the
    scores are broken by row order; a query with no relevant document counts as 1."""
    scores, relevance = np.asarray(scores, dtype=float), np.asarray(relevance, dtype=float)
    values, start = [], 0
    for n in np.asarray(group, dtype=int):
        s, r = scores[start:start + n], relevance[start:start + n]
        start += n
        top = min(k, n)
        discount = 1.0 / np.log2(np.arange(2, top + 2))
        gains = 2.0 ** r - 1.0
        ideal = np.sort(gains)[::-1][:top] @ discount
        dcg = gains[np.argsort(-s, kind="stable")][:top] @ discount
        values.append(dcg / ideal if ideal > 0 else 1.0)
    return float(np.mean(values))


def _micro_f1(Y, P) -> float:
    return float(f1_score(Y, P, average="micro", zero_division=0))


def _multilabel_metrics(Y) -> dict:
    """Hamming loss, subset accuracy and the three F1 averages of a 0/1 prediction against ``Y``."""
    return {"Hamming loss": lambda P: float(hamming_loss(Y, P)),
            "subset accuracy": lambda P: float(accuracy_score(Y, P)),
            "micro-F1": lambda P: _micro_f1(Y, P),
            "macro-F1": lambda P: float(f1_score(Y, P, average="macro", zero_division=0)),
            "example-F1": lambda P: float(f1_score(Y, P, average="samples", zero_division=0))}


# ------------------------------------------------------------------------------- models
@dataclass
class Model:
    """A row of a table: how to build the estimator for a seed, and which part it belongs to."""

    name: str
    make: Callable[[int], object]
    part: str                      # "predtron", "Algorithm 1", "peer", "reference", "ablation"
    deterministic: bool = False    # fitted once when nothing in it depends on the seed


def _predtron_rows(cls, **fixed) -> list[Model]:
    """The estimator with its defaults, Algorithm 1 as stated, and the ablation."""
    keys = set(cls().get_params())
    defaults = _defaults_of(cls)

    def params(config):
        return {k: v for k, v in config.items() if k in keys}

    def make(config):
        return lambda seed: cls(random_state=seed, **fixed, **params(config))

    rows = [Model(f"{cls.__name__} (defaults)", lambda seed: cls(random_state=seed, **fixed), "predtron"),
            Model("Algorithm 1 as stated", make(ALGORITHM_1), "Algorithm 1", deterministic=True)]
    for knob, names in KNOBS.items():
        if not set(names) <= keys:
            continue
        on = {**ALGORITHM_1, **{n: defaults[n] for n in names}}
        rows.append(Model(f"Algorithm 1 + {knob}", make(on), "ablation", deterministic=not on["shuffle"]))
    for knob, names in KNOBS.items():
        if not set(names) <= keys:
            continue
        off = {**defaults, **{n: ALGORITHM_1[n] for n in names}}
        rows.append(Model(f"defaults - {knob}", make(off), "ablation", deterministic=not off["shuffle"]))
    return rows


def _linear_peers(wrap=lambda est: est) -> list[Model]:
    """scikit-learn's Perceptron, SGDClassifier and LogisticRegression, raw and standardised."""
    peers = []
    for scaled in (False, True):
        def pipe(est, scaled=scaled):
            return wrap(make_pipeline(StandardScaler(), est) if scaled else est)

        suffix = " + StandardScaler" if scaled else ""
        peers += [
            Model(f"Perceptron{suffix}", lambda s, pipe=pipe: pipe(Perceptron(random_state=s)), "peer"),
            Model(f"SGDClassifier{suffix}", lambda s, pipe=pipe: pipe(SGDClassifier(random_state=s)), "peer"),
            Model(f"LogisticRegression{suffix}", lambda s, pipe=pipe: pipe(LogisticRegression(max_iter=1000)),
                  "peer", deterministic=True),
        ]
    return peers


class _Constant:
    """A reference predictor: the same prediction for every row (fit learns it)."""

    def __init__(self, rule: str):
        self.rule = rule

    def fit(self, X, y):
        y = np.asarray(y)
        if self.rule == "no label":
            self.value_ = np.zeros(y.shape[1], dtype=y.dtype)
        elif self.rule == "median":             # the best constant for the absolute error
            self.value_ = np.sort(y)[(len(y) - 1) // 2]
        else:                                   # the most frequent class
            values, counts = np.unique(y, return_counts=True)
            self.value_ = values[np.argmax(counts)]
        return self

    def predict(self, X):
        return np.tile(self.value_, (X.shape[0],) + (1,) * np.ndim(self.value_))


class _RandomScores:
    """A reference ranker: independent uniform scores."""

    def __init__(self, seed: int):
        self.seed = seed

    def fit(self, X, y, group=None):
        return self

    def predict(self, X):
        return np.random.default_rng(self.seed).random(X.shape[0])


# ------------------------------------------------------------------------------- evaluation
def _evaluate(task: str, models: list[Model], fit: Callable, metrics: dict, seeds) -> list[dict]:
    """Fit every model for every seed; ``fit(estimator) -> (estimator, predictions)``."""
    rows = []
    for model in models:
        values, seconds, passes = {name: [] for name in metrics}, [], []
        for seed in seeds[:1] if model.deterministic else seeds:
            estimator = model.make(seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                start = time.perf_counter()
                estimator, output = fit(estimator)
                seconds.append(time.perf_counter() - start)
            for name, metric in metrics.items():
                values[name].append(metric(output))
            if hasattr(estimator, "n_iter_") and type(estimator).__module__.startswith("predtron.sklearn"):
                passes.append(estimator.n_iter_)
        row = {"task": task, "model": model.name, "part": model.part, "runs": len(seconds),
               "fit_seconds": float(np.mean(seconds)), "passes": float(np.mean(passes)) if passes else None}
        for name, v in values.items():
            row[name] = float(np.mean(v))
            row[name + " sd"] = float(np.std(v, ddof=1)) if len(v) > 1 else 0.0
        rows.append(row)
    return rows


def _skip(task: str, path: Path) -> list[dict]:
    return [{"task": task, "skipped": f"skipped: {path} not found (the full data files live in ../shared/data "
                                      "beside the checkout, or pass --data DIR)"}]


def ranking(data: Path, seeds) -> list[dict]:
    """MQ2008 Fold 1: the ranker, Algorithm 1, LGBMRanker, references, ablation."""
    task = "ranking: LETOR 4.0 MQ2008 Fold 1 (train vali.txt, test test.txt)"
    folder = data / "letor-mq2008-fold1"
    if not (folder / "test.txt").exists():
        return _skip(task, folder)
    import lightgbm

    from predtron.data import load_letor

    train = load_letor(folder / "vali.txt", n_features=46)
    test = load_letor(folder / "test.txt", n_features=46)

    def fit(est):
        if isinstance(est, PredtronRanker):
            est.fit(train.X, train.y, group=train.group)
            # the package's own NDCG@10 agrees with the benchmark's implementation
            assert abs(est.score(test.X, test.y, group=test.group) - ndcg_at(est.predict(test.X), test.y, test.group,
                                                                             10)) < 1e-9
        elif isinstance(est, lightgbm.LGBMRanker | _RandomScores):
            est.fit(train.X, train.y, group=train.group)
        else:                                   # pointwise: relevant or not
            est.fit(train.X, (train.y > 0).astype(int))
            return est, est.decision_function(test.X)
        return est, est.predict(test.X)

    models = _predtron_rows(PredtronRanker)
    models[2:2] = [
        Model("LGBMRanker()", lambda s: lightgbm.LGBMRanker(random_state=s, n_jobs=1, verbose=-1), "peer"),
        Model("LogisticRegression + StandardScaler, pointwise (rel > 0)",
              lambda s: make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)), "peer",
              deterministic=True),
        Model("random scores", _RandomScores, "reference"),
    ]
    metrics = {f"NDCG@{k}": (lambda scores, k=k: ndcg_at(scores, test.y, test.group, k)) for k in (1, 5, 10)}
    rows = _evaluate(task, models, fit, metrics, seeds)
    rows[0]["data"] = (f"{len(train.group)} / {len(test.group)} queries, {len(train.y)} / {len(test.y)} documents, "
                       f"{train.X.shape[1]} features")
    return rows


#: The Mulan multilabel sets: number of labels, and whether the rows are sparse text.
MULAN = {"emotions": (6, False), "yeast": (14, False), "bibtex": (159, True), "tmc2007-500": (22, True)}


def _multilabel_peers(sparse: bool) -> list[Model]:
    """One-vs-rest scikit-learn peers: the perceptron, SGD (plain and averaged) and logistic
    regression on the raw features, and on standardised ones for dense data."""
    peers = [
        Model("OvR Perceptron", lambda s: OneVsRestClassifier(Perceptron(random_state=s)), "peer"),
        Model("OvR SGDClassifier", lambda s: OneVsRestClassifier(SGDClassifier(random_state=s)), "peer"),
        Model("OvR SGDClassifier(average=True)",
              lambda s: OneVsRestClassifier(SGDClassifier(average=True, random_state=s)), "peer"),
        Model("OvR LogisticRegression", lambda s: OneVsRestClassifier(LogisticRegression(max_iter=1000)), "peer",
              deterministic=True),
    ]
    if not sparse:
        peers += [Model(f"{p.name} + StandardScaler", lambda s, p=p: make_pipeline(StandardScaler(), p.make(s)),
                        "peer", deterministic=p.deterministic) for p in peers]
    return peers


def multilabel(data: Path, name: str, n_labels: int, seeds) -> list[dict]:
    """A Mulan set: the multilabel estimator and its settings, Algorithm 1, one-vs-rest peers,
    no label, the ablation."""
    task = f"multilabel: Mulan {name} (its train/test files)"
    folder = data / f"mulan-{name}"
    if not (folder / f"{name}-test.arff").exists():
        return _skip(task, folder)
    from predtron.data import load_arff

    sparse = MULAN[name][1]
    xml = folder / f"{name}.xml"
    train = load_arff(folder / f"{name}-train.arff", n_labels, xml=xml, sparse=sparse)
    test = load_arff(folder / f"{name}-test.arff", n_labels, xml=xml, sparse=sparse)
    kind = "sparse binary" if sparse else "dense"
    return _multilabel_rows(task, kind, train.X, train.Y, test.X, test.Y, seeds)


def multilabel_digits(seeds) -> list[dict]:
    """scikit-learn's bundled digits as a 10-label indicator target with the pixels divided by 16:
    dense features that all lie in ``[0, 1]`` and rare labels (one on per row), the shape of the
    public image sets (such as Mulan scene) where per-feature standardising cost the estimator its
    lead; no download."""
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X / 16.0, y, test_size=0.3, stratify=y, random_state=0)
    Y_train, Y_test = np.eye(10, dtype=np.int64)[y_train], np.eye(10, dtype=np.int64)[y_test]
    task = "multilabel: scikit-learn digits / 16 as 10 indicator labels (fixed stratified 70/30 split)"
    return _multilabel_rows(task, "dense [0, 1]", X_train, Y_train, X_test, Y_test, seeds, before=True)


def _multilabel_rows(task: str, kind: str, X_train, Y_train, X_test, Y_test, seeds, before: bool = False) -> list[dict]:
    def fit(est):
        return est.fit(X_train, Y_train), est.predict(X_test)

    def setting(label, **params):
        return Model(f"PredtronMultilabelClassifier({label})",
                     lambda s: PredtronMultilabelClassifier(random_state=s, **params), "predtron")

    sparse = kind == "sparse binary"
    models = _predtron_rows(PredtronMultilabelClassifier)
    extra = [setting('update="prediction"', update="prediction"),
             setting('loss="f1"', loss="f1"),
             setting('loss="subset"', loss="subset"),
             setting("standardize=False", standardize=False)]
    if before:  # per-feature unit variance on [0, 1] features: the scaling before the common-scale rule
        extra.append(Model("StandardScaler + PredtronMultilabelClassifier(standardize=False) (per-feature scaling)",
                           lambda s: make_pipeline(StandardScaler(),
                                                   PredtronMultilabelClassifier(random_state=s, standardize=False)),
                           "predtron"))
    models[1:1] = extra
    at = 1 + len(extra) + 1
    models[at:at] = [*_multilabel_peers(sparse), Model("no label (constant)", lambda s: _Constant("no label"),
                                                       "reference", deterministic=True)]
    rows = _evaluate(task, models, fit, _multilabel_metrics(Y_test), seeds)
    rows[0]["data"] = (f"{X_train.shape[0]} / {X_test.shape[0]} rows, {X_train.shape[1]} {kind} features, "
                       f"{Y_train.shape[1]} labels, label cardinality {Y_train.sum(axis=1).mean():.2f}")
    return rows


class _LabelRanker:
    """Multilabel ranking by a core learner or by MMP, on standardized inputs with a constant
    feature (the intercept), optionally shuffled and averaged; scores are ``W x`` per label."""

    def __init__(self, kind: str, seed: int, epochs: int = 10, practical: bool = True):
        self.kind, self.seed, self.epochs, self.practical = kind, seed, epochs, practical

    def fit(self, X, Y):
        from predtron import Predtron
        from predtron.baselines import MMP
        from predtron.bounds import theorem1_step
        from predtron.problems import MultilabelRanking

        self.mean, self.std = (X.mean(0), np.where(X.std(0) > 0, X.std(0), 1.0)) if self.practical else (0.0, 1.0)
        Z = self._inputs(X)
        m = Y.shape[1]
        if self.kind == "mmp":
            rng = np.random.default_rng(self.seed)
            model, total, count = MMP(m), None, 0
            for _ in range(self.epochs):
                order = rng.permutation(len(Z)) if self.practical else np.arange(len(Z))
                for i in order:  # averaged iterate, written around partial_fit
                    model.partial_fit(Z[i:i + 1], Y[i:i + 1])
                    total = model.coef_.copy() if total is None else total + model.coef_
                    count += 1
            self.W = total / count if self.practical else model.coef_
        else:
            problem = MultilabelRanking(m, f="linear")
            eta = theorem1_step(problem, Z, Y, False) if self.practical else 1.0
            model = Predtron(problem, eta=eta, average=self.practical, shuffle=self.practical, random_state=self.seed)
            self.W = model.fit(Z, Y, epochs=self.epochs if self.practical else 1).coef_
        return self

    def _inputs(self, X):
        Z = (X - self.mean) / self.std
        return np.hstack([Z, np.ones((len(Z), 1))]) if self.practical else Z

    def decision_function(self, X):
        return self._inputs(X) @ self.W.T


def multilabel_ranking(data: Path, name: str, n_labels: int, seeds) -> list[dict]:
    """Label ranking on a Mulan set (issue 8, item 3): the Predtron on MultilabelRanking against MMP,
    both as stated and both with the same practical options."""
    task = f"multilabel ranking: Mulan {name} (label-ranking average precision, NDCG over labels)"
    folder = data / f"mulan-{name}"
    if not (folder / f"{name}-test.arff").exists():
        return _skip(task, folder)
    from sklearn.metrics import label_ranking_average_precision_score, ndcg_score

    from predtron.data import load_arff

    train = load_arff(folder / f"{name}-train.arff", n_labels)
    test = load_arff(folder / f"{name}-test.arff", n_labels)
    some = test.Y.sum(axis=1) > 0

    def fit(est):
        return est.fit(train.X, train.Y), est.decision_function(test.X)

    models = [
        Model("Predtron, MultilabelRanking (standardized, intercept, eta auto, shuffled, averaged, 10 passes)",
              lambda s: _LabelRanker("predtron", s), "predtron"),
        Model("MMP (same options)", lambda s: _LabelRanker("mmp", s), "peer"),
        Model("Predtron as stated (raw, 1 pass, eta 1)", lambda s: _LabelRanker("predtron", s, 1, False), "Algorithm 1",
              deterministic=True),
        Model("MMP as stated (raw, 10 passes)", lambda s: _LabelRanker("mmp", s, 10, False), "peer",
              deterministic=True),
    ]
    metrics = {"LRAP": lambda S: float(label_ranking_average_precision_score(test.Y, S)),
               "NDCG": lambda S: float(ndcg_score(test.Y[some], S[some]))}
    rows = _evaluate(task, models, fit, metrics, seeds)
    rows[0]["data"] = f"{train.X.shape[0]} / {test.X.shape[0]} rows, {n_labels} labels to rank"
    return rows


def _ordinal_rows(X_train, y_train, X_test, y_test, task: str, seeds) -> list[dict]:
    def fit(est):
        return est.fit(X_train, y_train), est.predict(X_test)

    models = _predtron_rows(PredtronOrdinalClassifier)
    models[2:2] = [Model("PredtronClassifier (defaults; ignores the order)",
                         lambda s: PredtronClassifier(random_state=s), "peer"),
                   *_linear_peers(),
                   Model("median level (constant)", lambda s: _Constant("median"), "reference", deterministic=True)]
    metrics = {"MAE (levels)": lambda p: float(mean_absolute_error(y_test, p)),
               "accuracy": lambda p: float(accuracy_score(y_test, p))}
    rows = _evaluate(task, models, fit, metrics, seeds)
    shares = np.bincount(y_train) / len(y_train)
    rows[0]["data"] = (f"{len(y_train)} / {len(y_test)} rows, {X_train.shape[1]} features, level shares in training "
                       f"{', '.join(f'{s:.2f}' for s in shares)}")
    return rows


def ordinal_mq2008(data: Path, seeds) -> list[dict]:
    """The relevance grade of each MQ2008 document: real labels that are ordered levels."""
    task = "ordinal: MQ2008 Fold 1 relevance grade (0 < 1 < 2) of each document"
    folder = data / "letor-mq2008-fold1"
    if not (folder / "test.txt").exists():
        return _skip(task, folder)
    from predtron.data import load_letor

    train = load_letor(folder / "vali.txt", n_features=46)
    test = load_letor(folder / "test.txt", n_features=46)
    return _ordinal_rows(train.X, train.y.astype(int), test.X, test.y.astype(int), task, seeds)


def ordinal_diabetes(seeds) -> list[dict]:
    """scikit-learn's bundled diabetes data, the disease progression cut at its quintiles."""
    X, target = load_diabetes(return_X_y=True, scaled=False)
    y = np.digitize(target, np.quantile(target, [0.2, 0.4, 0.6, 0.8]))
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    task = "ordinal: scikit-learn diabetes, progression quintile (5 levels, fixed stratified 70/30 split)"
    return _ordinal_rows(X_train, y_train, X_test, y_test, task, seeds)


def classification(name: str, seeds) -> list[dict]:
    """scikit-learn's bundled digits or breast-cancer data, one fixed stratified 70/30 split."""
    loader = {"digits": load_digits, "breast cancer": load_breast_cancer}[name]
    X, y = loader(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    task = f"classification: scikit-learn {name} ({len(np.unique(y))} classes, fixed stratified 70/30 split)"

    def fit(est):
        return est.fit(X_train, y_train), est.predict(X_test)

    models = _predtron_rows(PredtronClassifier)
    models[2:2] = [*_linear_peers(), Model("majority class (constant)", lambda s: _Constant("majority"), "reference",
                                           deterministic=True)]
    rows = _evaluate(task, models, fit, {"accuracy": lambda p: float(accuracy_score(y_test, p))}, seeds)
    rows[0]["data"] = f"{len(y_train)} / {len(y_test)} rows, {X.shape[1]} features"
    return rows


def run(quick: bool = False, data: Path = SHARED, tasks=("all",), n_seeds: int | None = None) -> list[dict]:
    """Every row (the suite's entry point for ``benchmarks/run_all.py``): 5 seeds, 2 when quick.
    ``tasks=("multilabel",)`` runs only the multilabel tables (the four Mulan sets and digits in
    ``[0, 1]`` as labels), over 10 seeds; ``n_seeds`` overrides either count."""
    only_multilabel = "all" not in tasks
    if only_multilabel:
        unknown = set(tasks) - {"multilabel"}
        if unknown:
            raise ValueError(f"tasks must be 'all' or 'multilabel'; got {sorted(unknown)}")
    if n_seeds is None:
        n_seeds = 2 if quick else 10 if only_multilabel else 5
    seeds = list(range(n_seeds))
    data = Path(data)
    with threadpool_limits(1):
        tables = ([row for name, (m, _) in MULAN.items() for row in multilabel(data, name, m, seeds)]
                  + multilabel_digits(seeds))
        if only_multilabel:
            return tables
        return (ranking(data, seeds) + tables
                + multilabel_ranking(data, "emotions", 6, seeds) + multilabel_ranking(data, "yeast", 14, seeds)
                + ordinal_mq2008(data, seeds) + ordinal_diabetes(seeds)
                + classification("digits", seeds) + classification("breast cancer", seeds))


# ------------------------------------------------------------------------------- printing
def print_rows(rows: list[dict]) -> None:
    """One plain-text table per task: ``mean +- sd`` of every metric, fit seconds, passes."""
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    for task in tasks:
        block = [r for r in rows if r["task"] == task]
        print(f"\n== {task}")
        if "skipped" in block[0]:
            print(f"   {block[0]['skipped']}")
            continue
        print(f"   {block[0]['data']}; runs = seeds fitted (1: nothing depends on the seed)")
        fixed = {"task", "model", "part", "runs", "fit_seconds", "passes", "data"}
        metrics = [k for k in block[0] if k not in fixed and not k.endswith(" sd")]
        width = max(len(r["model"]) for r in block) + 2
        header = f"   {'model':{width}s}" + "".join(f"{m:>18s}" for m in metrics)
        print(header + f"{'fit s':>9s}{'passes':>8s}{'runs':>6s}")
        part = None
        for r in block:
            if r["part"] != part and r["part"] == "ablation" and part != "ablation":
                print("   " + "-" * (len(header) + 20))
            part = r["part"]
            cells = "".join(f"{r[m]:>10.4f} +-{r[m + ' sd']:.4f}" for m in metrics)
            passes = f"{r['passes']:8.1f}" if r["passes"] is not None else f"{'':8s}"
            print(f"   {r['model']:{width}s}{cells}{r['fit_seconds']:9.3f}{passes}{r['runs']:6d}")


#: The rows of the multilabel summary: the estimator's defaults and the averaged one-vs-rest peer.
SUMMARY_MODELS = ("PredtronMultilabelClassifier (defaults)", "OvR SGDClassifier(average=True)",
                  "OvR SGDClassifier(average=True) + StandardScaler")


def print_multilabel_summary(rows: list[dict]) -> None:
    """The dense-multilabel goal at a glance: Hamming loss and micro-F1 of the defaults and of the
    averaged one-vs-rest peer (raw, and standardised on dense data), ``mean +- standard error``
    over the seeds (the standard error is the sd over the square root of the runs)."""
    block = [r for r in rows if r["task"].startswith("multilabel:") and "skipped" not in r
             and r["model"] in SUMMARY_MODELS]
    if not block:
        return
    print("\n== multilabel summary: mean +- standard error over the seeds (Hamming loss, micro-F1)")
    for r in block:
        cells = "".join(f"{r[m]:>9.4f} +-{r[m + ' sd'] / np.sqrt(r['runs']):.4f}" for m in ("Hamming loss", "micro-F1"))
        data = r["task"].split(":")[1].split("(")[0].strip()
        print(f"   {data:50s}{r['model']:52s}{cells}{r['runs']:4d}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 seeds instead of 5 (a smoke run)")
    parser.add_argument("--seeds", type=int, default=None,
                        help="number of seeds (default 5; 10 with --tasks multilabel; 2 with --quick)")
    parser.add_argument("--data", type=Path, default=SHARED, help=f"folder of the full data files (default {SHARED})")
    parser.add_argument("--tasks", nargs="+", default=["all"], choices=["all", "multilabel"],
                        help="which tables (default all)")
    args = parser.parse_args()
    rows = run(args.quick, args.data, args.tasks, args.seeds)
    print_rows(rows)
    print_multilabel_summary(rows)
