"""The task registry of the command line: one table, one row per task.

Each :class:`Task` names the estimator of :mod:`predtron.sklearn` that learns it, its Dask
counterpart in :mod:`predtron.dask`, the file format its reader takes, what its labels need
(classes found before a streamed fit, queries) and the metrics ``predtron evaluate`` prints.
The estimators are named by import path and loaded on first use, so that importing this module
(the command line's ``--help`` and ``--version`` do) imports neither scikit-learn nor Dask; each
task also names its estimator's core (:mod:`predtron._models`: the same parameters and rules
without scikit-learn), which the command line reads for the parameters' defaults and checks and
fits with ``--stream``, so that those never import scikit-learn.
``predtron fit``, its streaming form (:mod:`predtron.cli_stream`) and its cluster form
(:mod:`predtron.dask.cli`) all read this table.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["TASKS", "Task", "f1_counts", "f1_scores", "metrics", "multilabel_values", "task_of_model"]


def _import(path: str):
    """The object at ``"package.module:Name"``."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Task:
    """What the command line needs to know about one task.

    Attributes
    ----------
    name : str
        The ``--task`` value.
    estimator : str
        Import path (``module:Class``) of the estimator of :mod:`predtron.sklearn`.
    dask_estimator : str
        Import path of its counterpart of :mod:`predtron.dask`.
    format : str
        The file format the task's data are read from (``"svmlight"`` or ``"arff"``; see
        :mod:`predtron.cli_data`).
    queries : bool
        Whether the examples are grouped in queries (ranking).
    classes : bool
        Whether a streamed fit must know every class before the first chunk.
    summary : str
        One line for the program's help.
    core : str
        Import path of the estimator's core (:mod:`predtron._models`): the same parameters, checks
        and rules without scikit-learn, saved as the estimator.
    """

    name: str
    estimator: str
    dask_estimator: str
    format: str
    queries: bool
    classes: bool
    summary: str
    core: str

    @property
    def estimator_class(self) -> type:
        """The estimator class (imported on first use; imports scikit-learn)."""
        return _import(self.estimator)

    @property
    def core_class(self) -> type:
        """The estimator's core (imported on first use; no scikit-learn)."""
        return _import(self.core)

    @property
    def dask_estimator_class(self) -> type:
        """The Dask estimator class (imports Dask)."""
        return _import(self.dask_estimator)

    @property
    def class_name(self) -> str:
        """The estimator's class name, without importing it."""
        return self.estimator.partition(":")[2]

    def metrics(self, model, data, ks: Sequence[int] | None = None) -> list[tuple[str, float]]:
        """The test metrics of ``model`` on ``data`` (``X``, ``y``, ``group``) as ``(name, value)`` pairs."""
        return _METRICS[self.name](model, data, ks)


def _classify_metrics(model, data, ks) -> list[tuple[str, float]]:
    import numpy as np

    X, y = data.X, data.y
    if model.cost_matrix is None and model.reject_cost is None:
        return [("accuracy", model.score(X, y))]
    predictions = model.predict(X)
    values = [("mean cost", -model.score(X, y)), ("accuracy", float(np.mean(np.asarray(predictions == y))))]
    if model.reject_cost is not None:
        values.append(("abstention rate", float(np.mean(np.asarray(predictions == model.reject_label)))))
    return values


def _ordinal_metrics(model, data, ks) -> list[tuple[str, float]]:
    import numpy as np

    accuracy = float(np.mean(np.asarray(model.predict(data.X) == data.y)))
    return [("mean absolute error", -model.score(data.X, data.y)), ("accuracy", accuracy)]


def _rank_metrics(model, data, ks) -> list[tuple[str, float]]:
    """NDCG@k for each cut-off, then MAP (the mean over the queries of the average precision, a
    document relevant when its grade is positive; :func:`~predtron.problems.ranking_batch.average_precisions`)."""
    import numpy as np

    from predtron._validation import query_offsets
    from predtron.problems.ranking_batch import average_precisions

    ks = [int(model.k)] if ks is None else ks
    values = []
    for k in dict.fromkeys(ks):  # each cut-off once (a metric named twice is summed twice by --stream's chunks)
        model.set_params(k=k)
        values.append((f"ndcg@{k}", model.score(data.X, data.y, group=data.group)))
    scores = np.asarray(model.predict(data.X), dtype=np.float64)
    offsets = query_offsets(len(scores), group=data.group)
    values.append(("map", float(np.mean(average_precisions(scores, np.asarray(data.y), offsets)))))
    return values


def f1_scores(Y, P) -> tuple[float, float]:
    """``(micro F1, example-based F1)`` of the 0/1 predictions ``P`` for the 0/1 labels ``Y``.

    Micro F1 pools the counts of all examples and labels: ``2 TP / (|Y| + |P|)``.
    Example-based F1 is the mean over examples of ``2 |y & p| / (|y| + |p|)``, an example with no
    true and no predicted label counting 1 (nothing to find, nothing wrongly found), as the
    F-measure loss of :class:`~predtron.problems.Multilabel` counts it (``loss="f1"`` is one minus it).
    """
    import numpy as np

    Y, P = np.asarray(Y, dtype=bool), np.asarray(P, dtype=bool)
    both = np.sum(Y & P, axis=1)
    sizes = np.sum(Y, axis=1) + np.sum(P, axis=1)
    twice_tp, total = f1_counts(Y, P)
    micro = 1.0 if total == 0 else twice_tp / total
    per_example = np.where(sizes == 0, 1.0, 2.0 * both / np.maximum(sizes, 1))
    return micro, float(np.mean(per_example)) if len(per_example) else 1.0


def f1_counts(Y, P) -> tuple[float, float]:
    """``(2 TP, |Y| + |P|)`` of 0/1 labels and predictions, the counts micro F1 pools."""
    import numpy as np

    Y, P = np.asarray(Y, dtype=bool), np.asarray(P, dtype=bool)
    return 2.0 * float(np.sum(Y & P)), float(np.sum(Y) + np.sum(P))


def _multilabel_metrics(model, data, ks) -> list[tuple[str, float]]:
    import numpy as np

    if data.y.shape[1] != model.n_labels_:
        raise ValueError(f"the data have {data.y.shape[1]} labels but the model was fitted on {model.n_labels_}")
    return multilabel_values(model, data, np.asarray(model.predict(data.X)).reshape(data.y.shape))


def multilabel_values(model, data, P) -> list[tuple[str, float]]:
    """The multilabel metrics of ``model`` on ``data`` given its 0/1 predictions ``P``."""
    import numpy as np

    X, Y = data.X, data.y
    if Y.shape[1] != model.n_labels_:
        raise ValueError(f"the data have {Y.shape[1]} labels but the model was fitted on {model.n_labels_}")
    micro, example = f1_scores(Y, P)
    values = [("hamming loss", float(np.mean(Y != P))),
              ("subset accuracy", float(np.mean(np.all(Y == P, axis=1)))),
              ("micro f1", micro), ("example f1", example)]
    if model.multilabel_ and model.loss not in ("hamming", "subset"):
        values.append((f"{model.loss} loss", -model.score(X, Y)))
    return values


_METRICS: dict[str, Callable] = {"classify": _classify_metrics, "multilabel": _multilabel_metrics,
                                 "ordinal": _ordinal_metrics, "rank": _rank_metrics}

#: The tasks, by ``--task`` value.
TASKS: dict[str, Task] = {task.name: task for task in (
    Task("classify", "predtron.sklearn:PredtronClassifier", "predtron.dask:DaskPredtronClassifier", "svmlight",
         queries=False, classes=True, summary="binary or multiclass labels, optional cost matrix",
         core="predtron._models:ClassifierCore"),
    Task("multilabel", "predtron.sklearn:PredtronMultilabelClassifier",
         "predtron.dask:DaskPredtronMultilabelClassifier", "arff", queries=False, classes=False,
         summary="0/1 label columns of a Mulan ARFF file", core="predtron._models:MultilabelCore"),
    Task("ordinal", "predtron.sklearn:PredtronOrdinalClassifier", "predtron.dask:DaskPredtronOrdinalClassifier",
         "svmlight", queries=False, classes=True, summary="ordered labels, absolute loss",
         core="predtron._models:OrdinalCore"),
    Task("rank", "predtron.sklearn:PredtronRanker", "predtron.dask:DaskPredtronRanker", "svmlight", queries=True,
         classes=False, summary="relevance grades of documents grouped in queries",
         core="predtron._models:RankerCore"),
)}


def task_of_model(model) -> Task | None:
    """The task whose estimator (or its core) ``model`` is (by class name), or ``None``."""
    name = type(model).__name__
    return next((task for task in TASKS.values() if name in (task.class_name, task.core.partition(":")[2])), None)


def metrics(task: str, model, data, ks: Sequence[int] | None = None) -> list[tuple[str, float]]:
    """The test metrics of ``model`` for ``task`` (see :meth:`Task.metrics`)."""
    return TASKS[task].metrics(model, data, ks)
