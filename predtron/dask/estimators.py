"""The Dask estimators: :mod:`predtron.sklearn`'s four estimators fitted by iterative
parameter mixing (:mod:`predtron.dask.mixing`) on a Dask cluster.

As ``lightgbm.dask`` and ``xgboost.dask``: ``fit`` takes Dask arrays or dataframes (one shard
per row partition; the ranker with ``qid=`` or ``group=``, and a partition never splits a
query) or a list of files that the workers read themselves (one shard per file); ``predict``
and ``decision_function`` map the model over the partitions; ``to_local()`` returns the
in-memory estimator of :mod:`predtron.sklearn` with the learned state; ``client=`` chooses
the cluster (default: the current client of :mod:`distributed`).

The preprocessing is the local estimator's, by the same rule: every shard computes its part of a
:class:`~predtron.sklearn.FitStatistics` (rows, exact feature moments; then, on its scaled
inputs, the exact sum of squared norms and ``c_L``), the coordinator combines them, and the
scaler and ``eta="auto"`` come from the combined statistics exactly as ``fit`` gets them from
the whole array (``tests/test_statistics.py``: bit for bit however the rows are cut).  Every
shard's data are checked as the local ``fit`` checks them (NaN or infinite labels, continuous
labels for a classifier: the local messages); a partition of no rows is skipped.

The training loop is :func:`predtron.mixing.iterative_parameter_mixing`, which knows nothing of
Dask: this module gives it :func:`predtron.dask.mixing.client_map` (submit where the shard is,
gather).  Coupling to :mod:`predtron.sklearn` is through public members of its estimators only:
``check_params``, ``check_training_labels``, ``use_statistics``, ``transform_inputs``,
``step_from``, ``make_problem``, ``core_learner``, ``stopping_rule``, ``get_state`` and
``set_state``; the core learner through ``get_state``/``set_state``.

Parity with ``lightgbm.dask``:

=====================================  ===================  =======================
feature                                lightgbm.dask        predtron.dask
=====================================  ===================  =======================
``fit`` on dask arrays / dataframes    yes                  yes
``fit`` on files read by the workers   no                   yes (one shard per file)
``predict`` per partition              yes                  yes
``predict_proba``                      yes                  no (no probabilities)
``decision_function``                  n/a                  where the local one has it
``score``                              yes (mixin)          yes (partition-weighted)
``to_local()``                         yes                  yes
pickling without the client            yes                  yes
saving                                 booster text file    ``predtron.save`` (npz+JSON)
ranker with ``group=`` / ``qid=``      ``group``            both
=====================================  ===================  =======================
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import os
from pathlib import Path

import dask
import dask.array as da
import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_array, check_is_fitted

from predtron._files import folders_made
from predtron._models.ordinal import check_level_order
from predtron._seal import check_folder
from predtron._state import State
from predtron._validation import (
    check_bool,
    check_choice,
    check_group_sizes,
    check_int,
    check_matrix,
    check_query_keywords,
    check_query_runs,
    excerpt,
    query_offsets,
    query_runs,
)
from predtron.dask.mixing import MIXINGS, client_map, iterative_parameter_mixing
from predtron.data import load_arff, load_letor, load_svmlight
from predtron.data.opening import DECOMPRESSION_ERRORS, open_binary
from predtron.mixing import check_checkpoint_folder, read_checkpoint, write_checkpoint
from predtron.persistence import saveable
from predtron.sklearn import (
    FitStatistics,
    PredtronClassifier,
    PredtronMultilabelClassifier,
    PredtronOrdinalClassifier,
    PredtronRanker,
)

__all__ = [
    "DaskPredtronClassifier",
    "DaskPredtronMultilabelClassifier",
    "DaskPredtronOrdinalClassifier",
    "DaskPredtronRanker",
]


def get_client(client=None):
    """``client``, or the current :class:`distributed.Client` (as ``lightgbm.dask`` does)."""
    from distributed import Client, default_client

    if client is None:
        try:
            return default_client()
        except ValueError as err:
            raise ValueError("no Dask client: pass client=, or create a distributed.Client first "
                             "(e.g. Client(LocalCluster()))") from err
    if not isinstance(client, Client):
        raise ValueError(f"client must be a distributed.Client or None; got {type(client).__name__}")
    return client


# ----------------------------------------------------------------- the shards
def _is_dask(value) -> bool:
    return dask.is_dask_collection(value)


def _as_dask_array(value, name: str, ndim: tuple[int, ...]):
    if hasattr(value, "to_dask_array"):  # dask DataFrame / Series
        value = value.to_dask_array(lengths=True)
    if not isinstance(value, da.Array):
        raise TypeError(f"{name} must be a dask array or dataframe when X is one; got {type(value).__name__}")
    if value.ndim not in ndim:
        raise ValueError(f"{name} must have {' or '.join(map(str, ndim))} dimensions; got shape {value.shape}")
    return value


def _column_probe(X, n_features: int):
    """One row of zeros shaped as ``X``'s rows, for the local estimator's checks of the columns: a
    pandas frame with the columns of a dask dataframe ``X`` (so that their names are recorded at fit
    and checked at prediction exactly as the local estimator records and checks a frame's), else
    an array."""
    if hasattr(X, "columns") and hasattr(X, "to_dask_array"):  # a dask DataFrame (a Series has no columns)
        import pandas as pd

        return pd.DataFrame(np.zeros((1, len(X.columns))), columns=X.columns)
    return np.zeros((1, n_features))


def _without_names(model):
    """``model`` (a shallow copy) without ``feature_names_in_``: what the partitions, plain arrays
    once the names were checked at the coordinator, are predicted with (no warning per partition)."""
    if getattr(model, "feature_names_in_", None) is None:
        return model
    out = copy.copy(model)
    out.__dict__.pop("feature_names_in_", None)
    return out


def _is_file_list(X) -> bool:
    return isinstance(X, (list, tuple)) and len(X) > 0 and all(isinstance(f, (str, Path)) for f in X)


def _rows_of(X, value, name: str, what: str, ndim: tuple[int, ...]):
    """``value`` (labels or query ids, a dask collection) as a dask array cut as ``X``'s rows (whose
    partition sizes are known): one ``what`` per row of ``X``, else a ``ValueError`` naming ``name``
    (partition sizes of ``value`` not known are computed first)."""
    value = _as_dask_array(value, name, ndim)
    if any(np.isnan(value.chunks[0])):
        value = value.compute_chunk_sizes()
    if value.shape[0] != X.shape[0]:
        raise ValueError(f"{name} must have one {what} per row of X ({X.shape[0]} rows); got {value.shape[0]}")
    return value.rechunk({0: X.chunks[0]} if value.ndim == 1 else {0: X.chunks[0], 1: -1})


def _raw_block(X, y, qid, group):
    return X, y, qid, group


def _array_shards(client, X, y, qid=None, group=None) -> list:
    """Futures of the raw shards ``(X, y, qid, group)``, one per row partition of ``X``."""
    X = _as_dask_array(X, "X", (2,))
    X = X.rechunk({1: -1})
    rows = X.chunks[0]
    if any(np.isnan(rows)):
        raise ValueError("X must have known partition sizes (dask dataframes: to_dask_array(lengths=True))")
    y = _rows_of(X, y, "y", "label", (1, 2))
    x_parts, y_parts = X.to_delayed().ravel(), y.to_delayed().ravel()
    q_parts = [None] * len(rows)
    g_parts = [None] * len(rows)
    if qid is not None:
        qid = _rows_of(X, qid, "qid", "query id", (1,))
        q_parts = list(qid.to_delayed().ravel())
        _check_partition_queries(client.compute([dask.delayed(_query_runs)(q) for q in q_parts], sync=True), rows)
    elif group is not None:
        g_parts = _split_groups(group, rows)
    return client.compute([dask.delayed(_raw_block)(x, t, q, g)
                           for x, t, q, g in zip(x_parts, y_parts, q_parts, g_parts, strict=True)])


def _query_runs(qid):
    """:func:`~predtron._validation.query_runs` of one partition's query ids (``None``: no rows)."""
    qid = np.asarray(qid)
    return query_runs(qid) if len(qid) else None


def _check_partition_queries(runs: list, rows) -> None:
    """Refuse queries cut by the partitions (given every partition's runs of query ids and its
    rows): a query that continues in the next partition holding rows (an empty partition between
    them changes nothing), and, as the local estimator refuses it, a query whose rows are not
    contiguous across the partitions."""
    starts, ids, previous, offset = [], [], None, 0
    for i, (part, n) in enumerate(zip(runs, rows, strict=True)):
        if part is not None:
            part_starts, part_ids = part
            first, last = part_ids[[0, -1]].tolist()
            if previous is not None and previous[1] == first:
                raise ValueError(f"partition {previous[0] + 1} of X ends inside query {previous[1]!r} (it continues "
                                 f"in partition {i + 1}); a partition must hold whole queries: rechunk X, y and qid "
                                 "at query boundaries")
            starts.append(part_starts + offset)
            ids.append(part_ids)
            previous = (i, last)
        offset += int(n)
    if ids:
        check_query_runs(np.concatenate(starts), np.concatenate(ids), "qid")


def _split_groups(group, rows) -> list[np.ndarray]:
    """The group sizes of every partition (checked as the local estimator checks ``group``); a
    partition boundary inside a query is an error."""
    offsets = check_group_sizes(group, int(sum(rows)))
    group = np.diff(offsets)
    parts, first, boundary = [], 0, 0
    for i, n in enumerate(rows):
        boundary += int(n)
        stop = int(np.searchsorted(offsets, boundary))  # the first query starting at or after the boundary
        if offsets[stop] != boundary:
            raise ValueError(f"partition {i + 1} of X ends at row {boundary}, inside query {stop - 1} (rows "
                             f"{offsets[stop - 1]}..{offsets[stop] - 1}); a partition must hold whole queries: "
                             "rechunk X and y at query boundaries")
        parts.append(group[first:stop])
        first = stop
    return parts


def _has_qid(path) -> bool:
    """Whether the lines of the LETOR file ``path`` carry ``qid:``, from its first data line (the
    readers hold every line to the first one's rule); without, its queries come from group sizes
    and their ids are mere positions.  A file that cannot be read answers ``False``: its reader
    then says what is wrong with it."""
    try:
        with open_binary(Path(path)) as handle:
            for line in handle:
                tokens = line.split(b"#", 1)[0].split()
                if tokens:
                    return len(tokens) > 1 and tokens[1].startswith(b"qid:")
    except DECOMPRESSION_ERRORS:
        pass
    return False


def _read_file(path, kind: str, options: dict):
    """A worker reads one file: svmlight (``"svmlight"``), LETOR (``"letor"``) or ARFF (``"arff"``)."""
    if kind == "letor":
        data = load_letor(path, **options)
        if _has_qid(path):  # the queries' ids as written: a query in two files is refused (_check_file_queries)
            return data.X, data.y, data.qid, None
        return data.X, data.y, None, data.group
    if kind == "arff":
        data = load_arff(path, **options)
        return data.X, data.Y, None, None
    data = load_svmlight(path, **options)
    return data.X, data.y, None, None


def _check_file_options(file_options, kind: str, stream: bool) -> dict:
    """``file_options`` of a fit on files as a new dict: ``None``, or a dict of keyword arguments of
    the reader of ``kind`` (the streaming reader with ``stream``; ``chunk_rows`` is accepted by
    both), checked before any file is read, naming the argument (a key the reader does not take
    raised the reader's own ``TypeError`` on a worker, a list Python's error on a dict update)."""
    if file_options is None:
        return {}
    readers = {"svmlight": ("load_svmlight", "iter_svmlight"), "letor": ("load_letor", "iter_letor"),
               "arff": ("load_arff", "iter_arff")}
    name = readers[kind][1 if stream else 0]
    if not isinstance(file_options, dict):
        raise TypeError(f"file_options must be a dict of keyword arguments of predtron.data.{name}; got "
                        f"{type(file_options).__name__}: {excerpt(file_options)}")
    import predtron.data

    taken = set(inspect.signature(getattr(predtron.data, name)).parameters) - {"path", "cache", "on_progress"}
    taken.add("chunk_rows")  # a streamed read's option, which the in-memory fit ignores
    unknown = sorted(str(key) for key in file_options if key not in taken)
    if unknown:
        raise TypeError(f"file_options holds {excerpt(unknown)}, which predtron.data.{name} does not take; its "
                        f"options are {sorted(taken)}")
    return dict(file_options)


def _file_shards(client, files, kind: str, options: dict) -> list:
    return [client.submit(_read_file, str(f), kind, options, pure=False) for f in files]


class FileStream:
    """A shard that a worker streams from its file at every pass: chunks of whole examples (whole
    queries for the ranker) read by :mod:`predtron.data`'s streaming readers, each prepared as the
    in-memory shard is (checked, widened, scaled, encoded) and passed to the learner, so that the
    worker never holds the whole file.  Small and picklable: the task carries the path, the
    reader's options and the fit's preprocessing, never the data.

    It is a streamed shard of :func:`predtron.mixing.shard_pass`: ``n_examples`` and
    ``chunks(begin, end)``, the prepared chunks of examples ``begin..end - 1`` in file order.
    """

    def __init__(self, path: str, kind: str, options: dict, cache: str | None = None):
        self.path, self.kind, self.options, self.cache = str(path), kind, dict(options), cache
        self.local, self.n_features, self.n_examples = None, None, 0

    def prepared(self, local, n_features: int, n_examples: int) -> FileStream:
        """A copy that prepares its chunks with ``local``'s preprocessing, ``n_features`` wide."""
        out = copy.copy(self)
        out.local, out.n_features, out.n_examples = local, int(n_features), int(n_examples)
        return out

    def raw_chunks(self):
        """``(X, y, qid, group)`` of every chunk of the file, read one chunk ahead."""
        from predtron.data.stream import prefetch

        options = dict(self.options)
        if self.kind == "arff":
            from predtron.data import iter_arff

            if self.cache is not None:
                raise ValueError("cache applies to svmlight and LETOR files; an ARFF file is parsed at every pass")
            n_labels = options.pop("n_labels", None)
            for chunk in prefetch(iter_arff(self.path, n_labels, **options)):
                yield chunk.X, chunk.Y, None, None
        elif self.kind == "letor":
            from predtron.data import iter_letor

            written = _has_qid(self.path)  # as _read_file: the ids as written, else the sizes
            for chunk in prefetch(iter_letor(self.path, cache=self.cache, **options)):
                yield (chunk.X, chunk.y, chunk.qid, None) if written else (chunk.X, chunk.y, None, chunk.group)
        else:
            from predtron.data import iter_svmlight

            for chunk in prefetch(iter_svmlight(self.path, cache=self.cache, **options)):
                yield chunk.X, chunk.y, None, None

    def chunks(self, begin: int, end: int):
        """The prepared chunks ``(X, target, split)`` of examples ``begin..end - 1`` (queries for
        the ranker), in file order; the file is read no further than ``end``."""
        position = 0
        for raw in self.raw_chunks():
            if position >= end:
                break
            X, target, split = _prepare_shard(self.local, raw, self.n_features)
            n = len(split["group"]) if "group" in split else X.shape[0]
            low, high = max(begin - position, 0), min(end - position, n)
            position += n
            if low >= high:
                continue
            if (low, high) != (0, n):
                X, target, split = _slice(X, target, split, low, high)
            yield X, target, split


def _slice(X, target, split: dict, low: int, high: int) -> tuple:
    """Examples ``low..high - 1`` of a prepared chunk (queries for ranking)."""
    if "group" not in split:
        return X[low:high], np.asarray(target)[low:high], {}
    group = np.asarray(split["group"])
    offsets = np.concatenate([[0], np.cumsum(group)])
    a, b = int(offsets[low]), int(offsets[high])
    return X[a:b], np.asarray(target)[a:b], {"group": group[low:high]}


def _stream_shards(files, kind: str, options: dict, cache) -> list[FileStream]:
    """One :class:`FileStream` per file; with ``cache`` (a directory) each file's parsed chunks are
    cached in it, in a file named after the file's position and name (never one of the files)."""
    caches = [None] * len(files)
    if cache is not None:
        directory = check_folder(cache, "cache")
        directory.mkdir(parents=True, exist_ok=True)
        caches = [str(directory / f"{i}-{Path(f).name}.cache") for i, f in enumerate(files)]
        from predtron.data.cache import check_cache_path

        inputs = {f"file {f}": f for f in files}
        for path in caches:
            check_cache_path(path, inputs, "cache")
    return [FileStream(str(f), kind, options, c) for f, c in zip(files, caches, strict=True)]


# --------------------------------------------------------- shard preprocessing
def _shard_summary(local, raw) -> tuple:
    """``(rows, width, sparse, labels' summary)`` of one raw shard, its data checked as the local
    estimator's ``fit`` checks them (the same messages: NaN or infinite labels, continuous labels
    for a classifier); a shard of no rows has no summary of its labels."""
    local = copy.deepcopy(local)  # tasks of an in-process cluster share their arguments
    X, y, _, _ = raw
    n = np.shape(X)[0]
    if n == 0:
        return 0, np.shape(X)[1] if np.ndim(X) == 2 else 0, sp.issparse(X), None
    check_matrix(X, "X", accept_sparse=True, min_features=1)
    y = local._labels(y)
    local.check_training_labels(X, y)
    return n, X.shape[1], sp.issparse(X), local._summarize(y)


def _stream_summary(local, stream: FileStream) -> tuple:
    """``(rows, width, sparse, labels' summary, examples, query ids)`` of a streamed shard, read chunk
    by chunk (each chunk checked as :func:`_shard_summary` checks a shard; the query ids as
    :func:`_file_query_ids` gives them)."""
    rows, width, sparse, summaries, examples, ids = 0, 0, False, [], 0, []
    for raw in stream.raw_chunks():
        n, w, is_sparse, summary = _shard_summary(local, raw)
        if n == 0:
            continue
        rows, width, sparse = rows + n, max(width, w), is_sparse
        queries = _file_query_ids(raw)
        if queries is not None:
            ids.append(queries)
        if raw[3] is not None:  # queries from group sizes
            examples += len(raw[3])
        else:  # queries from their ids, or examples as rows
            examples += n if queries is None else len(queries)
        summaries.append(summary)
    return (rows, width, sparse, _merge_summaries(summaries), examples,
            np.concatenate(ids) if ids else None)  # a chunk holds whole queries: no run is cut in two


def _file_query_ids(raw) -> np.ndarray | None:
    """The id of each query of a raw shard (or chunk) read from a LETOR file with ``qid:``, in file
    order (``None`` for other shards): what :func:`_check_file_queries` compares across files."""
    qid = raw[2]
    return None if qid is None or not len(qid) else query_runs(np.asarray(qid))[1]


def _check_file_queries(ids: list, files: list) -> None:
    """Refuse a query id written in two training files (``ids``: each file's query ids, in file
    order, or ``None``), whether the query continues from the end of one file into the next or
    comes back in a later one: each worker learns its files' queries on their own, so such a
    query would be learned as two (within a file, the reader already refuses a query cut by
    others)."""
    seen: dict = {}
    for queries, path in zip(ids, files, strict=True):
        if queries is None:
            continue
        for q in queries.tolist():
            if q in seen:
                raise ValueError(f"query {q} has lines in two training files, {seen[q]} and {path}; each file must "
                                 "hold whole queries (a worker learns the queries of its own files): move the "
                                 f"lines of query {q} into one file")
            seen[q] = path


def _merge_summaries(summaries: list):
    """One summary of a shard's labels from its chunks' (as :func:`_shard_summary` gives them)."""
    if not summaries or summaries[0] is None:
        return None
    if isinstance(summaries[0], tuple):  # multilabel: (label columns,)
        if len(set(summaries)) > 1:
            raise ValueError(f"every row's y must have the same number of label columns; got "
                             f"{sorted(s[0] for s in set(summaries))}")
        return summaries[0]
    return np.unique(np.concatenate(summaries))


def _stream_moments(local, stream: FileStream, n_features: int):
    """Phase 1 of a streamed shard's statistics, chunk by chunk (exact sums: the in-memory shard's)."""
    statistics = FitStatistics(standardize=local.standardize, fit_intercept=bool(local.fit_intercept))
    for raw in stream.raw_chunks():
        if np.shape(raw[0])[0]:
            statistics.combine(_shard_moments(local, raw, n_features))
    return statistics


def _stream_norms(local, problem, stream: FileStream):
    """Phase 2 of a streamed shard's statistics, chunk by chunk."""
    statistics = FitStatistics(standardize=local.standardize, fit_intercept=bool(local.fit_intercept))
    for chunk in stream.chunks(0, stream.n_examples):
        statistics.combine(_shard_norms(local, problem, chunk))
    return statistics


def _shard_moments(local, raw, n_features: int):
    """Phase 1 of the shard's :class:`~predtron.sklearn.FitStatistics` (rows, moments)."""
    X = _widen(check_array(raw[0], accept_sparse="csr", dtype=np.float64), n_features)
    return FitStatistics(standardize=local.standardize, fit_intercept=bool(local.fit_intercept)).update(X)


def _shard_norms(local, problem, shard):
    """Phase 2 of the shard's :class:`~predtron.sklearn.FitStatistics` (squared norms, ``c_L``) on
    its prepared (scaled) inputs."""
    X, target, split = shard
    offsets = np.concatenate([[0], np.cumsum(split["group"])]) if "group" in split else None
    statistics = FitStatistics(standardize=local.standardize, fit_intercept=bool(local.fit_intercept))
    return statistics.update_norms(X, target, problem, offsets)


def _widen(X, n_features: int):
    """``X`` with zero columns appended up to ``n_features`` (files read without ``n_features``)."""
    if X.shape[1] == n_features:
        return X
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        X.resize((X.shape[0], n_features))
        return X
    return np.hstack([X, np.zeros((X.shape[0], n_features - X.shape[1]))])


def _prepare_shard(local, raw, n_features: int) -> tuple:
    """The shard as the core learner takes it: ``(X, target, split)``, scaled and encoded."""
    X, y, qid, group = raw
    X = _widen(check_array(X, accept_sparse="csr", dtype=np.float64), n_features)
    X = local.transform_inputs(X)
    target, split = local._target(X, local._labels(y), qid, group)
    return X, target, split


def _shard_digest(shard) -> str:
    """The SHA-256 of a prepared shard's numbers (its scaled inputs, encoded labels and query sizes):
    a checkpoint of in-memory data is resumed only with the same data, cut the same way (the
    shapes, scale and step it also records do not change when rows or columns are permuted or
    labels changed)."""
    X, target, split = shard
    sha = hashlib.sha256(repr((type(X).__name__, X.shape)).encode())
    parts = [X.data, X.indices, X.indptr] if sp.issparse(X) else [X]
    for values in [*parts, np.asarray(target), np.asarray(split.get("group", []))]:
        values = np.ascontiguousarray(values)
        sha.update(repr((values.dtype.str, values.shape)).encode())
        sha.update(repr(values.tolist()).encode() if values.dtype.kind == "O" else values.tobytes())
    return sha.hexdigest()


def _apply(block, model, method: str):
    return getattr(model, method)(block)


# ------------------------------------------------------------- the estimators
#: The Dask estimators' own parameters (the others are the local estimator's).
_DASK_PARAMS = ("mixing", "mixing_rounds", "client")


def _dask_signature(local_cls):
    """The local estimator's constructor parameters plus ``client`` and ``mixing``."""
    signature = inspect.signature(local_cls.__init__)
    extra = [inspect.Parameter("mixing", inspect.Parameter.KEYWORD_ONLY, default="uniform"),
             inspect.Parameter("mixing_rounds", inspect.Parameter.KEYWORD_ONLY, default=8),
             inspect.Parameter("client", inspect.Parameter.KEYWORD_ONLY, default=None)]
    return signature.replace(parameters=[*signature.parameters.values(), *extra])


class _DaskPredtron(BaseEstimator):
    """Shared fit, prediction and ``to_local`` of the Dask estimators."""

    _local_class: type = PredtronClassifier
    #: Reader of ``fit(files)``: ``"svmlight"``, ``"letor"`` or ``"arff"``.
    _file_kind = "svmlight"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        names = [p for p in _dask_signature(cls._local_class).parameters.values() if p.name != "self"]

        def __init__(self, **params):
            unknown = set(params) - {p.name for p in names}
            if unknown:
                raise TypeError(f"{cls.__name__}() got unexpected keyword arguments {sorted(unknown)}")
            for p in names:
                setattr(self, p.name, params.get(p.name, p.default))

        __init__.__signature__ = _dask_signature(cls._local_class)
        __init__.__doc__ = f"See :class:`{cls._local_class.__name__}`; ``mixing`` and ``client`` are described above."
        cls.__init__ = __init__

    # ------------------------------------------------------------- the model
    def _local_estimator(self):
        """An unfitted local estimator with this estimator's parameters (bar client, mixing)."""
        params = {k: v for k, v in self.get_params(deep=False).items() if k not in _DASK_PARAMS}
        return _Local[self._local_class](**params)

    def _validate_params(self) -> None:
        """Check the parameters as ``fit`` does (``mixing``, and the local estimator's)."""
        check_choice(self.mixing, "mixing", MIXINGS)
        check_int(self.mixing_rounds, "mixing_rounds", minimum=1)
        self._local_estimator().check_params()

    def to_local(self):
        """The fitted in-memory estimator of :mod:`predtron.sklearn` (a copy): the same class,
        parameters and learned state, so it predicts exactly what this estimator predicts."""
        check_is_fitted(self, "model_")
        return copy.deepcopy(self.model_)

    # --------------------------------------------------------------- fitting
    def _fit(self, X, y, *, qid=None, group=None, file_options=None, checkpoint=None, resume=False, progress=None,
             stream=False, cache=None):
        made = []  # the cache folder and the parents of it that are missing: the fit makes them all
        if cache is not None and isinstance(cache, (str, os.PathLike)):
            folder = Path(cache)
            for path in (folder, *folder.parents):
                if os.path.lexists(path):
                    break
                made.append(path)
        # (an interrupt too, the command line's Ctrl-C included) the cache folders this fit made and left empty
        # go; a cache file written meanwhile stays, and its parents
        with folders_made(made):
            return self._fit_shards(X, y, qid=qid, group=group, file_options=file_options, checkpoint=checkpoint,
                                    resume=resume, progress=progress, stream=stream, cache=cache)

    def _fit_shards(self, X, y, *, qid, group, file_options, checkpoint, resume, progress, stream, cache):
        self._validate_params()
        resume, stream = check_bool(resume, "resume"), check_bool(stream, "stream")
        if progress is not None and not callable(progress):
            raise ValueError(f"progress must be a callable progress(epoch) or None; got {type(progress).__name__}")
        client = get_client(self.client)
        local = self._local_estimator()
        local._check_extra()
        files = _is_file_list(X)
        if (stream or cache is not None) and not files:
            raise ValueError("stream=True and cache= apply to a fit on a list of files")
        if file_options is not None and not files:  # (read options a dask array would silently ignore)
            raise ValueError(f"file_options= applies to a fit on a list of files; X is a "
                             f"{type(X).__name__}, whose values are read already: pass file_options=None")
        if cache is not None and not stream:
            raise ValueError("cache= applies to stream=True (the cache of each file's parsed chunks)")
        if stream and local.shuffle:
            raise ValueError("stream=True visits every file in file order: pass shuffle=False (shuffle the files "
                             "beforehand)")
        if resume and checkpoint is None:
            raise ValueError("resume=True needs checkpoint= (the directory of the checkpoint)")
        if checkpoint is not None and not resume:
            check_checkpoint_folder(checkpoint)
        if files:
            if y is not None or qid is not None or group is not None:
                raise ValueError("fit on files reads the labels (and queries) from the files; pass y=None")
            options = _check_file_options(file_options, self._file_kind, stream)
            if stream:
                raw = _stream_shards(X, self._file_kind, options, cache)
            else:
                options.pop("chunk_rows", None)  # a streamed read's option: one shard per file either way
                raw = _file_shards(client, X, self._file_kind, options)
        elif _is_dask(X):
            if y is None:
                raise ValueError(f"{type(self).__name__} requires y to be passed with a dask X")
            if issubclass(self._local_class, PredtronRanker):
                check_query_keywords(qid, group)
            local._check_label_order(y)
            raw = _array_shards(client, X, y, qid=qid, group=group)
        else:
            raise TypeError(f"X must be a dask array or dataframe, or a list of file paths; got {type(X).__name__}"
                            " (use the estimators of predtron.sklearn for in-memory data)")
        summarize = _stream_summary if stream else _shard_summary
        summaries = client.gather([client.submit(summarize, local, r, pure=False) for r in raw])
        kept = [i for i, summary in enumerate(summaries) if summary[0] > 0]  # empty partitions are skipped
        if not kept:
            raise ValueError("X has no rows in any partition (or file); at least one example is needed to learn")
        raw, summaries = [raw[i] for i in kept], [summaries[i] for i in kept]
        if files and self._file_kind == "letor":
            ids = ([s[5] for s in summaries] if stream else
                   client.gather([client.submit(_file_query_ids, r, pure=False) for r in raw]))
            _check_file_queries(ids, [str(X[i]) for i in kept])
        if not files:  # a dataframe's column names become feature_names_in_, as in the local fit
            local._record_columns(_column_probe(X, X.shape[1]), y.shape[1] if y.ndim == 2 else None)
        widths = {s[1] for s in summaries}
        n_features = max(widths)
        if len(widths) > 1 and not _is_file_list(X):
            raise ValueError(f"every partition of X must have the same number of columns; got {sorted(widths)}")
        if len({s[2] for s in summaries}) > 1:
            raise ValueError("the shards mix dense and sparse matrices; read every file the same way")
        local.n_features_in_ = n_features
        local._combine_labels([s[3] for s in summaries])
        if local.standardize and len(widths) > 1:
            raise ValueError(f"the files have different numbers of features ({sorted(widths)}); pass "
                             "file_options={'n_features': ...} to read them alike")
        statistics = FitStatistics(standardize=local.standardize, fit_intercept=bool(local.fit_intercept))
        moments = _stream_moments if stream else _shard_moments
        for part in client.gather([client.submit(moments, local, r, n_features, pure=False) for r in raw]):
            statistics.combine(part)
        local.use_statistics(statistics)
        problem = local.make_problem()
        if stream:
            shards = [r.prepared(local, n_features, s[4]) for r, s in zip(raw, summaries, strict=True)]
        else:
            shards = [client.submit(_prepare_shard, local, r, n_features, pure=False) for r in raw]
        if isinstance(local.eta, str) and local.eta == "auto":
            norms = _stream_norms if stream else _shard_norms
            for part in client.gather([client.submit(norms, local, problem, s, pure=False) for s in shards]):
                statistics.combine(part)
            local.eta_ = local.step_from(statistics, problem)
        else:
            local.eta_ = float(local.eta)
        prototype = local.core_learner(problem)
        stopper = local.stopping_rule()
        run = {"estimator": type(self).__name__, "n_features": int(n_features),
               "params": {k: repr(v) for k, v in sorted(self.get_params(deep=False).items()) if k != "client"},
               "shards": [[int(s[0]), int(s[1])] for s in summaries], "eta_": float(local.eta_),
               "scale": None if local.scaler_ is None else float(np.sum(local.scaler_.scale))}
        if getattr(local, "feature_names_in_", None) is not None:  # a dataframe's columns: resumed in their order
            run["feature_names"] = [str(name) for name in local.feature_names_in_]
        if not files and checkpoint is not None:  # the data themselves, shard by shard
            run["data"] = client.gather([client.submit(_shard_digest, s, pure=False) for s in shards])
        if files and checkpoint is not None:  # the files themselves (hashed where they are) and how they are read
            from predtron.data.cache import describe_source

            run["files"] = client.gather([client.submit(describe_source, str(f), pure=False) for f in X])
            run["file_options"] = {k: repr(v) for k, v in sorted((file_options or {}).items())}
            run["stream"] = bool(stream)
        start = None
        if resume:
            start, stopping = read_checkpoint(checkpoint, run)
            try:  # the saved state, checked before any epoch is sent to the workers
                copy.deepcopy(prototype).set_state(start.scalars, start.arrays)
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"the checkpoint in {checkpoint} holds a malformed state ({str(exc)[:120]})") from None
            if stopper is not None and stopping is not None:
                stopper.restore(stopping)
            if len(start.orders) != len(shards):
                raise ValueError(f"the checkpoint in {checkpoint} has {len(start.orders)} shards; the data have "
                                 f"{len(shards)}")

        def after_epoch(result) -> None:
            if checkpoint is not None:
                write_checkpoint(checkpoint, result, run=run, stopping=None if stopper is None else stopper.state())
            if progress is not None:
                progress(result.n_epochs)

        if start is not None and (start.stopped or start.n_epochs >= local.epochs):
            result = start
        else:
            result = iterative_parameter_mixing(client_map(client), prototype, shards, local.epochs,
                                                mixing=self.mixing, rounds=self.mixing_rounds,
                                                shuffle=local.shuffle, random_state=prototype.random_state,
                                                stop=None if stopper is None else stopper.update, start=start,
                                                after_epoch=after_epoch)
        learner = copy.deepcopy(prototype).set_state(result.scalars, result.arrays)
        local.learner_ = learner
        local.n_iter_ = result.n_epochs
        self.model_ = _plain(local)  # the plain class: pickles and predicts like any local estimator
        self._copy_columns(self.model_)
        self.n_iter_ = result.n_epochs
        self.n_shards_ = len(shards)
        self.shard_losses_ = result.shard_losses
        self.mixing_weights_ = result.weights
        for name in ("classes_", "n_labels_", "multilabel_", "eta_"):
            if hasattr(local, name):
                setattr(self, name, getattr(local, name))
        return self

    def _copy_columns(self, model) -> None:
        """``n_features_in_`` and ``feature_names_in_`` (when the model has names) from ``model``."""
        self.n_features_in_ = model.n_features_in_
        names = getattr(model, "feature_names_in_", None)
        if names is None:
            self.__dict__.pop("feature_names_in_", None)
        else:
            self.feature_names_in_ = names

    def _checked_model(self, X, method: str):
        """``(X as a dask array, the model its partitions are given to, the probe's output)``: ``X``'s
        columns checked once, here, by the local estimator's ``method`` on one row shaped as ``X``'s
        (the number of columns, and a dataframe's column names against those of the fit: the local
        estimator's errors and warnings)."""
        columns = X
        X = _as_dask_array(X, "X", (2,)).rechunk({1: -1})
        probe = np.asarray(getattr(self.model_, method)(_column_probe(columns, X.shape[1])))
        return X, _without_names(self.model_), probe

    # ------------------------------------------------------------ prediction
    def _map(self, X, method: str):
        check_is_fitted(self, "model_")
        if not _is_dask(X):
            return getattr(self.model_, method)(X)
        X, model, probe = self._checked_model(X, method)
        if probe.ndim == 1:
            return X.map_blocks(_apply, model=model, method=method, dtype=probe.dtype, drop_axis=1,
                                chunks=(X.chunks[0],))
        return X.map_blocks(_apply, model=model, method=method, dtype=probe.dtype,
                            chunks=(X.chunks[0], (probe.shape[1],)))

    def predict(self, X):
        """Predictions of the mixed model, partition by partition (a dask array for a dask ``X``)."""
        return self._map(X, "predict")

    def score(self, X, y, **kwargs) -> float:
        """The local estimator's ``score`` of the mixed model.  A dask ``X`` and ``y`` are scored
        partition by partition and the partitions' scores averaged with their numbers of rows as
        weights (the mean over all rows, as the local score; the ranker, whose score is a mean
        over queries, gathers the data)."""
        check_is_fitted(self, "model_")
        if not _is_dask(X):
            return float(self.model_.score(X, y, **kwargs))
        if isinstance(self.model_, PredtronRanker) or kwargs:
            values = dask.compute(X, y, *kwargs.values())
            return float(self.model_.score(values[0], values[1], **dict(zip(kwargs, values[2:], strict=True))))
        X, model, _ = self._checked_model(X, "predict")
        if any(np.isnan(X.chunks[0])):
            X = X.compute_chunk_sizes()
        y = _rows_of(X, y, "y", "label", (1, 2))
        parts = [dask.delayed(_part_score)(model, x, t)
                 for x, t in zip(X.to_delayed().ravel(), y.to_delayed().ravel(), strict=True)]
        scores = np.array([p for p in dask.compute(*parts) if p is not None], dtype=np.float64)
        if len(scores) == 0:
            raise ValueError("X must hold at least one row to score (a mean over no rows is undefined)")
        return float(np.average(scores[:, 0], weights=scores[:, 1]))

    # ------------------------------------------------------------ pickling and saving
    #: ``predtron.save`` writes everything but the client (a live connection).
    _unsaved_params = ("client",)

    def __sklearn_clone__(self):
        """scikit-learn's ``clone``: the same parameters, unfitted, and the same client (a live
        connection is shared, never copied: ``copy.deepcopy`` of a client fails)."""
        client = self.client
        without = copy.copy(self)
        without.client = None
        out = BaseEstimator.__sklearn_clone__(without)
        out.client = client
        return out

    def __getstate__(self):
        """Pickle without the client (a live connection; ``lightgbm.dask`` does the same): the
        unpickled estimator uses the current client, or the one given with ``set_params``."""
        state = dict(self.__dict__)
        state["client"] = None
        return state

    def _get_state(self) -> tuple[dict, dict]:
        check_is_fitted(self, "model_")
        scalars, arrays = self.model_.get_state()
        arrays = {f"model.{k}": v for k, v in arrays.items()}
        arrays["shard_losses_"] = np.asarray(self.shard_losses_, dtype=np.float64)
        arrays["mixing_weights_"] = np.asarray(self.mixing_weights_, dtype=np.float64)
        return {"model": scalars, "n_shards_": int(self.n_shards_), "n_iter_": int(self.n_iter_)}, arrays

    def _set_state(self, scalars: dict, arrays: dict) -> None:
        state = State.of(scalars, arrays)
        params = {k: v for k, v in self.get_params(deep=False).items() if k not in _DASK_PARAMS}
        model = self._local_class(**params)
        model.check_params()
        model.set_state(state.sub("model"), None)
        self.n_shards_ = state.int("n_shards_", minimum=1)
        self.n_iter_ = state.int("n_iter_", minimum=1)
        self.shard_losses_ = state.array("shard_losses_", (self.n_iter_, self.n_shards_))
        self.mixing_weights_ = state.array("mixing_weights_", (self.n_iter_, self.n_shards_))
        model.n_iter_ = self.n_iter_
        self.model_ = model
        self._copy_columns(model)
        for name in ("classes_", "n_labels_", "multilabel_", "eta_"):
            if hasattr(model, name):
                setattr(self, name, getattr(model, name))


class _Scores:
    """``decision_function`` for the Dask estimators whose local estimator has one (not the ranker)."""

    def decision_function(self, X):
        """Scores of the mixed model, partition by partition (see the local estimator's method)."""
        return self._map(X, "decision_function")


def _part_score(model, X, y):
    """``(score, rows)`` of one partition (``None`` for an empty one)."""
    return None if np.shape(X)[0] == 0 else (float(model.score(X, y)), np.shape(X)[0])


class _LocalMixin:
    """What the Dask fit needs of a local estimator, per label convention (the default:
    classes, encoded by the estimator's own ``_encode``)."""

    #: The local ``fit`` takes ``y`` with columns (a multilabel indicator matrix).
    _multi_output = False

    def _record_columns(self, probe, y_columns: int | None) -> None:
        """Record the columns of a fit's ``X`` from one row shaped as its rows (``probe``), ``y`` having
        ``y_columns`` columns (``None``: one dimension): the local estimator's own validation, so a
        dataframe's column names become ``feature_names_in_`` by scikit-learn's rules and a column
        vector ``y`` is warned about, as in the local ``fit`` (a ``y`` of several columns is refused
        by the shards' checks)."""
        one_column = y_columns is not None and (y_columns == 1 or self._multi_output)
        self._validate_data(probe, np.zeros((1, y_columns) if one_column else 1), reset=True,
                            multi_output=self._multi_output)

    def _labels(self, y):
        """A shard's labels as the local ``fit`` takes them: a column vector as one label per row."""
        y = np.asarray(y)
        return y[:, 0] if y.ndim == 2 and y.shape[1] == 1 and not self._multi_output else y

    def _check_label_order(self, y) -> None:
        """Refuse a ``y`` whose own order the fit would lose (the ordinal levels), before it is sharded."""
        return None

    def _check_extra(self) -> None:
        if getattr(self, "reject_cost", None) is not None:
            raise ValueError("reject_cost is not supported by the Dask estimators (its threshold is fitted on the "
                             "whole training set); fit PredtronClassifier on a sample instead")

    @staticmethod
    def _summarize(y) -> np.ndarray:
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"y must be one label per row; got shape {y.shape}")
        return np.unique(y)

    def _combine_labels(self, summaries) -> None:
        self.classes_ = np.unique(np.concatenate(summaries))
        if len(self.classes_) < 2:
            raise ValueError(f"y must hold at least 2 classes to learn from; got 1 class ({excerpt(self.classes_)})")
        if getattr(self, "cost_matrix", None) is not None:  # the local fit's check and messages
            self._checked_cost_matrix("classes of y")

    def _indices(self, y) -> np.ndarray:
        y = np.asarray(y)
        return np.searchsorted(self.classes_, y).astype(np.int64)

    def _target(self, X, y, qid, group):
        return self._encode(self._indices(y)), {}


class _LocalOrdinal(_LocalMixin):
    def _check_label_order(self, y) -> None:
        """An ordered categorical dask ``y`` whose categories are not in sorted order is refused, as by
        the local ``fit`` (its categories made known first: a computation of the column)."""
        if getattr(getattr(y, "dtype", None), "ordered", None) is True and hasattr(y, "cat") \
                and not getattr(y.cat, "known", True):
            y = y.cat.as_known()
        check_level_order(y, "y", "DaskPredtronOrdinalClassifier", every_category=True)

    def _target(self, X, y, qid, group):
        return self._indices(y), {}


class _LocalMultilabel(_LocalMixin):
    """The local fit's target: a 0/1 indicator matrix, one column per label (a single column is one
    label; a 1-D ``y`` is refused by ``check_training_labels``, as by the local ``fit``)."""

    _multi_output = True

    @staticmethod
    def _summarize(y):
        return (np.shape(y)[1],)  # the label columns (the values are checked by check_training_labels)

    def _combine_labels(self, summaries) -> None:
        if len(set(summaries)) > 1:
            raise ValueError(f"every shard's y must have the same number of label columns; got "
                             f"{sorted(s[0] for s in set(summaries))}")
        self.multilabel_ = True
        self.n_labels_ = summaries[0][0]
        self.classes_ = np.arange(self.n_labels_)

    def _target(self, X, y, qid, group):
        return np.asarray(y).astype(np.int64), {}


class _LocalRanker(_LocalMixin):
    _relevance_labels = True

    @staticmethod
    def _summarize(y):
        return None

    def _combine_labels(self, summaries) -> None:
        return None

    def _target(self, X, y, qid, group):
        offsets = query_offsets(X.shape[0], qid=qid, group=group)
        grades = self._problem().check_labels(y, _Offsets(offsets)).values
        return grades, {"group": np.diff(offsets)}


class _Offsets:
    """Ranking inputs reduced to their query offsets (what ``check_labels`` reads)."""

    def __init__(self, offsets: np.ndarray):
        self.offsets = offsets
        self.n = len(offsets) - 1


def _local_subclass(local_cls, mixin):
    return type(local_cls.__name__, (mixin, local_cls), {"__module__": __name__, "__doc__": local_cls.__doc__})


_Local = {
    PredtronClassifier: _local_subclass(PredtronClassifier, _LocalMixin),
    PredtronOrdinalClassifier: _local_subclass(PredtronOrdinalClassifier, _LocalOrdinal),
    PredtronMultilabelClassifier: _local_subclass(PredtronMultilabelClassifier, _LocalMultilabel),
    PredtronRanker: _local_subclass(PredtronRanker, _LocalRanker),
}


def _plain(model):
    """A copy of ``model`` as the plain local class (the helpers above dropped)."""
    plain_cls = next(cls for cls in _Local if isinstance(model, cls))
    out = plain_cls.__new__(plain_cls)
    out.__dict__.update(copy.deepcopy(model.__dict__))
    return out


_DOC = """{what} fitted by iterative parameter mixing on a Dask cluster.

    The Dask counterpart of :class:`~predtron.sklearn.{local}` (the convention of
    ``lightgbm.dask``): the same parameters, plus

    mixing : {{"uniform", "loss"}}, default "uniform"
        Weights of the shards' parameters at the end of every epoch: equal, or proportional
        to the loss each shard suffered in its pass (:mod:`predtron.dask.mixing`).
    mixing_rounds : int, default 8
        Mixing rounds per epoch: each shard's pass is cut into this many segments and the
        parameters are mixed after each (:func:`predtron.mixing.iterative_parameter_mixing`;
        the proof of Theorem 1 for the mixed loss covers any mixing round).  Measured by
        ``benchmarks/dask_scaling.py --accuracy`` (sparse binary data, 5% flipped labels, 3
        epochs, the defaults; training accuracy below the serial fit's, 2 / 4 shards): mixing
        once per epoch, 0.011 / 0.012 at 250,000 rows (0.016 / 0.019 at 100,000); twice, 0.010 /
        0.018; 4 rounds, 0.003 / 0.003 (up to 0.009 at 100,000); 8 rounds, 0.001 / 0.003 (up to
        0.008 at 100,000).  With one shard any value is the serial fit, bit for bit.
    client : distributed.Client or None, default None
        The cluster (``None``: the current client).

    ``fit(..., checkpoint=DIR)`` writes the mixed parameters after every epoch
    (:func:`predtron.mixing.write_checkpoint`, npz + JSON); ``resume=True`` continues from
    them, refusing a checkpoint of other data or options, and ends at the model of the
    uninterrupted fit, bit for bit; ``progress(epoch)`` is called after every epoch.

    ``fit`` takes a dask array or dataframe ``X`` with ``y`` (one shard per row partition),
    or a list of files (one shard per file, read by the workers with
    :func:`predtron.data.{reader}`; its keyword arguments go in ``file_options``).  With
    ``stream=True`` each worker instead reads its file chunk by chunk at every pass (the
    streaming reader of :mod:`predtron.data`; ``file_options`` may hold ``chunk_rows``), never
    holding it whole, in file order (``shuffle=False``): the same passes as the in-memory shards
    in file order, bit for bit, when both read the same layout.  The two readers' defaults differ
    (svmlight and LETOR: the streamed chunks are CSR unless ``file_options={{"sparse": False}}``, a
    file read whole is dense unless ``{{"sparse": True}}``), and the layout decides the
    standardisation (sparse features are only scaled, dense ones also centred), so give
    ``sparse`` in ``file_options`` to get one model from both.  ``cache=DIR`` (svmlight and LETOR
    files) keeps each file's parsed chunks in ``DIR`` for the later passes.  Each mixing round
    reads its file up to the end of its segment, so a streamed epoch reads a file about
    ``(mixing_rounds + 1) / 2`` times.  Fitted
    attributes: those of the local estimator, plus ``n_shards_``, ``shard_losses_`` and
    ``mixing_weights_`` (per epoch and shard) and ``model_`` (see :meth:`to_local`).
    """


@saveable
class DaskPredtronClassifier(_Scores, _DaskPredtron):
    __doc__ = _DOC.format(what="Binary and multiclass classification", local="PredtronClassifier",
                          reader="load_svmlight")
    _local_class = PredtronClassifier

    def fit(self, X, y=None, *, file_options: dict | None = None, checkpoint=None, resume: bool = False,
            progress=None, stream: bool = False, cache=None):
        """Fit on a dask ``X`` and ``y``, or on a list of svmlight files (``y=None``)."""
        return self._fit(X, y, file_options=file_options, checkpoint=checkpoint, resume=resume, progress=progress,
                         stream=stream, cache=cache)


@saveable
class DaskPredtronOrdinalClassifier(_Scores, _DaskPredtron):
    __doc__ = _DOC.format(what="Ordinal classification", local="PredtronOrdinalClassifier", reader="load_svmlight")
    _local_class = PredtronOrdinalClassifier

    def fit(self, X, y=None, *, file_options: dict | None = None, checkpoint=None, resume: bool = False,
            progress=None, stream: bool = False, cache=None):
        """Fit on a dask ``X`` and ``y``, or on a list of svmlight files (``y=None``)."""
        return self._fit(X, y, file_options=file_options, checkpoint=checkpoint, resume=resume, progress=progress,
                         stream=stream, cache=cache)


@saveable
class DaskPredtronMultilabelClassifier(_Scores, _DaskPredtron):
    __doc__ = _DOC.format(what="Multilabel classification", local="PredtronMultilabelClassifier",
                          reader="load_arff")
    _local_class = PredtronMultilabelClassifier
    _file_kind = "arff"

    def fit(self, X, y=None, *, file_options: dict | None = None, checkpoint=None, resume: bool = False,
            progress=None, stream: bool = False):
        """Fit on a dask ``X`` and indicator matrix ``y``, or on a list of ARFF files (``y=None``;
        ``file_options`` holds ``n_labels`` or ``xml``)."""
        return self._fit(X, y, file_options=file_options, checkpoint=checkpoint, resume=resume, progress=progress,
                         stream=stream)


@saveable
class DaskPredtronRanker(_DaskPredtron):
    __doc__ = _DOC.format(what="Learning to rank", local="PredtronRanker", reader="load_letor")
    _local_class = PredtronRanker
    _file_kind = "letor"

    def fit(self, X, y=None, *, qid=None, group=None, file_options: dict | None = None, checkpoint=None,
            resume: bool = False, progress=None, stream: bool = False, cache=None):
        """Fit on a dask ``X``, ``y`` and ``qid`` (a dask array) or ``group`` (rows per query, in
        memory), no partition splitting a query; or on a list of LETOR files (``y=None``), each
        holding whole queries (a ``qid:`` written in two files is refused, naming both)."""
        return self._fit(X, y, qid=qid, group=group, file_options=file_options, checkpoint=checkpoint,
                         resume=resume, progress=progress, stream=stream, cache=cache)
