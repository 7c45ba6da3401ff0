"""The command line's streaming and checkpointing: ``--stream``, ``--chunk-rows``, ``--cache``,
``--classes``, ``--checkpoint`` and ``--resume`` (used by :mod:`predtron.cli`).

``predtron fit TRAIN --stream`` reads TRAIN in chunks of whole examples (whole queries for
``rank``; ARFF rows for ``multilabel``) with :mod:`predtron.data.stream` (and
:func:`~predtron.data.mulan.iter_arff`) and feeds them to the estimator's ``partial_fit``, so
memory holds one chunk, not the file.  A stream is visited in file order (shuffle the file
beforehand; ``--shuffle`` is refused); the scaling of ``--standardize`` and the step of
``--eta auto`` are estimated from the first chunk and frozen.  Without ``--n-features`` (and,
for classify and ordinal, ``--classes``) a first pass over the file finds the number of
features and the labels; with ``--cache FILE`` that pass (or the first epoch) writes a binary
cache of the parsed chunks that later epochs read instead of the text.

``--checkpoint DIR`` writes the model and the fit's progress after every epoch (streamed or in
memory), atomically; ``--resume`` continues a killed fit from the last checkpoint to the model
an uninterrupted fit with ``--checkpoint`` gives, bit for bit (:mod:`predtron.streaming`).  In
memory the epochs visit the examples in the order ``fit`` draws from ``--seed``; with
``--shuffle`` the first epoch's chunk is the data in that order, so the scaling statistics of
``--standardize`` (and ``--eta auto``) are sums in another order than plain ``fit``'s and may
differ from them in the last bit (in file order, ``--no-shuffle``, the two fits are identical).
The model file itself is written atomically too: a failed or interrupted fit never replaces an
existing model.

``predict --stream`` and ``evaluate --stream`` read the test file in chunks as well (metrics are
accumulated over the chunks: means over examples, NDCG over queries).
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from predtron.data.mulan import iter_arff
from predtron.data.stream import DEFAULT_CHUNK_ROWS, iter_letor, iter_svmlight, prefetch
from predtron.sklearn import (
    PredtronClassifier,
    PredtronMultilabelClassifier,
    PredtronOrdinalClassifier,
    PredtronRanker,
)
from predtron.streaming import fit_passes, permuted_chunks

__all__ = ["add_fit_options", "add_read_options", "as_labels", "checkpointed_fit", "release_freed_chunks",
           "stream_chunks", "stream_fit", "stream_metrics", "stream_predictions"]

ESTIMATORS = {"classify": PredtronClassifier, "multilabel": PredtronMultilabelClassifier,
              "ordinal": PredtronOrdinalClassifier, "rank": PredtronRanker}
CLASS_TASKS = ("classify", "ordinal")


def positive_int(text: str) -> int:
    """An argparse ``type``: a whole number ``>= 1`` (counts of rows, workers, shards)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1; got {text!r}")
    return value


def label_value(text: str) -> int | float | str:
    """A label typed on the command line: an int or a float if it reads as one, else the text."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def add_read_options(group, command: str) -> None:
    """``--stream`` and ``--chunk-rows`` (every command); ``--cache`` (fit)."""
    group.add_argument("--stream", action="store_true",
                       help="read the data file in chunks of whole examples (whole queries for rank), so that "
                            "memory does not grow with the file" + (
                                "; the examples are visited in file order, and --standardize / --eta auto are "
                                "estimated from the first chunk" if command == "fit" else ""))
    group.add_argument("--chunk-rows", type=positive_int, metavar="N", default=DEFAULT_CHUNK_ROWS,
                       help=f"examples per chunk with --stream (default: {DEFAULT_CHUNK_ROWS})")
    if command == "fit":
        group.add_argument("--cache", metavar="FILE",
                           help="with --stream: a binary cache of the parsed chunks, written by the first pass and "
                                "read by later ones instead of the text (rebuilt when TRAIN changes)")


def add_fit_options(group) -> None:
    """``--classes``, ``--checkpoint`` and ``--resume``."""
    group.add_argument("--classes", nargs="+", type=label_value, metavar="LABEL",
                       help="classify, ordinal with --stream: every label of TRAIN (default: found by a first pass "
                            "over the file)")
    group.add_argument("--checkpoint", metavar="DIR",
                       help="write the model and the fit's progress to DIR after every epoch (atomically)")
    group.add_argument("--resume", action="store_true",
                       help="continue the fit whose checkpoint is in --checkpoint DIR (same data and options); the "
                            "result equals an uninterrupted fit bit for bit")


#: glibc's ``M_MMAP_THRESHOLD`` option of ``mallopt`` and the value set by :func:`release_freed_chunks`.
_M_MMAP_THRESHOLD, _THRESHOLD = -3, 1 << 20


def release_freed_chunks() -> None:
    """Keep the memory of a streamed command flat: large arrays are mapped and unmapped by glibc.

    glibc serves a large allocation with ``mmap`` and returns it to the system when freed, but it
    raises that threshold (up to 32 MB) each time such a block is freed; the arrays of later
    chunks then come from the heap, whose freed space is kept and fragments, and the process
    grows with the number of chunks (measured: +45 MB from a 250k-row to a 1M-row file).  Fixing
    the threshold at 1 MiB (``mallopt``, which also turns off the adjustment) keeps every chunk's
    arrays mapped, so each chunk's memory goes back when it is done.  The command line owns its
    process, so it may set this; elsewhere (not Linux/glibc) nothing is done.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL("libc.so.6").mallopt(_M_MMAP_THRESHOLD, _THRESHOLD)
    except (OSError, AttributeError):  # another C library: nothing to set
        pass


def as_labels(y: np.ndarray) -> np.ndarray:
    """svmlight labels (read as floats) as integers when they all are whole numbers."""
    if y.size and np.all(y == np.round(y)) and np.all(np.abs(y) < 2**53):
        return y.astype(np.int64)
    return y


def _check_fit_args(args, params: dict, streaming: bool) -> None:
    if args.resume and args.checkpoint is None:
        raise ValueError("--resume needs --checkpoint DIR (the directory of the checkpoint to continue)")
    if not streaming:
        for flag, value in (("--cache", getattr(args, "cache", None)), ("--classes", args.classes)):
            if value is not None:
                raise ValueError(f"{flag} applies to --stream")
    if args.checkpoint is not None and params.get("reject_cost") is not None:
        raise ValueError("--reject-cost cannot be combined with --checkpoint or --stream: the abstention "
                         "threshold is fitted on the whole training set at the end of an in-memory fit")
    if streaming and params.get("reject_cost") is not None:
        raise ValueError("--reject-cost cannot be combined with --stream: the abstention threshold is fitted on "
                         "the whole training set at the end of an in-memory fit")


def _run_description(args, task: str, params: dict, extra: dict) -> dict:
    """What a checkpoint must match to be resumed: the data file and every option."""
    path = Path(args.data).resolve()
    stat = path.stat()
    plain = {k: (np.asarray(v).tolist() if isinstance(v, np.ndarray) else v) for k, v in sorted(params.items())}
    return {"data": str(path), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "task": task, "params": plain,
            "sparse": bool(args.sparse), "zero_based": bool(args.zero_based), **extra}


def checkpointed_fit(args, task: str, data, params: dict):
    """The in-memory fit with ``--checkpoint`` (and ``--resume``): epoch by epoch, the examples in
    the order ``fit`` visits them, the state written after every epoch."""
    _check_fit_args(args, params, streaming=False)
    estimator = ESTIMATORS[task](**params)
    seed = None
    if estimator.shuffle:
        seed = estimator.random_state
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise ValueError("--checkpoint with shuffling needs --seed INT (or --no-shuffle), so that a resumed fit "
                             "visits the examples in the same order")
        seed = int(seed)
    first = {"classes": np.unique(data.y)} if task in CLASS_TASKS else {}
    if task == "multilabel" and np.ndim(data.y) == 1:
        first = {"classes": np.unique(data.y)}
    chunks = permuted_chunks(data.X, data.y, seed, group=data.group)
    run = _run_description(args, task, params, {"stream": False})
    return fit_passes(estimator, chunks, first=first, checkpoint=args.checkpoint, resume=args.resume, run=run)


class _Progress:
    """A tqdm bar over the bytes read (stderr), or nothing."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.bar = None

    def start(self, total: int, description: str) -> Callable[[int], None] | None:
        if not self.enabled:
            return None
        self.close()
        self.bar = tqdm(total=total, unit="B", unit_scale=True, desc=description, file=sys.stderr, leave=False)
        return self.bar.update

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def stream_chunks(path, task: str, args, n_features: int | None, *, cache=None, need_groups: bool = True,
                  on_progress=None, n_labels: int | None = None):
    """The chunks of a data file for ``task``: ``(X, y, keywords)`` triples (``group`` for rank),
    read one chunk ahead in a background thread (:func:`~predtron.data.stream.prefetch`).
    Multilabel data come from an ARFF file (``n_labels``: the default number of label columns)."""
    release_freed_chunks()
    common = {"chunk_rows": args.chunk_rows, "sparse": bool(args.sparse)}
    if task == "multilabel":
        labels = args.labels if args.labels is not None else (None if args.xml is not None else n_labels)
        if labels is None and args.xml is None:
            raise ValueError(f"{path} is an ARFF file: give --labels N (how many of the last attributes are labels) "
                             "or --xml FILE (a Mulan file naming them)")
        missing = "error" if args.missing is None else args.missing
        for chunk in prefetch(iter_arff(path, labels, xml=args.xml, missing=missing, **common)):
            if n_features is not None and chunk.X.shape[1] != n_features:
                raise ValueError(f"{path} has {chunk.X.shape[1]} features, but {n_features} are expected (the "
                                 "training data's)")
            yield chunk.X, chunk.Y, {}
        return
    common.update({"n_features": n_features, "zero_based": bool(args.zero_based), "cache": cache,
                   "on_progress": on_progress})
    if task == "rank" and need_groups:
        for chunk in prefetch(iter_letor(path, group_file=getattr(args, "group_file", None), **common)):
            yield chunk.X, chunk.y, {"group": chunk.group}
    else:
        for chunk in prefetch(iter_svmlight(path, **common)):
            yield chunk.X, chunk.y, {}


def _survey(path, task: str, args, progress: _Progress, cache) -> tuple[int, np.ndarray | None, int]:
    """A first pass: ``(n_features, labels, n_rows)`` of the training file."""
    width, labels, rows = 0, [], 0
    update = progress.start(Path(path).stat().st_size, "reading labels and features")
    for X, y, _ in stream_chunks(path, task, args, None, cache=cache, on_progress=update):
        width = max(width, X.shape[1])
        rows += len(y)
        if task in CLASS_TASKS:
            labels.append(np.unique(y))
    progress.close()
    if width == 0:
        raise ValueError(f"{path}: no line gives a feature value, so the number of features is unknown; pass "
                         "--n-features")
    return width, (np.unique(np.concatenate(labels)) if labels else None), rows


def stream_fit(args, task: str, params: dict, verbose: bool):
    """``predtron fit --stream``: ``(estimator, summary)`` after the epochs over the file's chunks."""
    _check_fit_args(args, params, streaming=True)
    if params.get("shuffle") is True:
        raise ValueError("--shuffle does not apply to --stream: a stream is visited in file order (shuffle the file "
                         "beforehand, e.g. with `shuf`)")
    params = {**params, "shuffle": False}
    estimator = ESTIMATORS[task](**params)
    progress = _Progress(verbose)
    n_features, classes, rows = args.n_features, args.classes, None
    integral = True
    if task == "multilabel":
        if args.cache is not None:
            raise ValueError("--cache applies to svmlight files; an ARFF file is parsed at every epoch")
        n_features = _arff_width(args)
    elif n_features is None or (task in CLASS_TASKS and classes is None):
        width, found, rows = _survey(args.data, task, args, progress, args.cache)
        n_features = n_features or width
        if task in CLASS_TASKS and classes is None:
            classes = found
    if task in CLASS_TASKS:
        classes = as_labels(np.asarray(classes)) if np.asarray(classes).dtype.kind in "iuf" else np.asarray(classes)
        integral = classes.dtype.kind in "iu"
    size = Path(args.data).stat().st_size
    seen = {"rows": 0, "queries": 0}

    def chunks(epoch: int):
        update = progress.start(size, f"epoch {epoch}/{estimator.epochs}")
        for X, y, keywords in stream_chunks(args.data, task, args, n_features, cache=args.cache, on_progress=update):
            if task in CLASS_TASKS and integral:
                y = _integral(y, args.data)
            if epoch == 1:
                seen["rows"] += len(y)
                seen["queries"] += len(keywords.get("group", ()))
            yield X, y, keywords
        progress.close()

    first = {"classes": classes} if task in CLASS_TASKS else {}
    run = _run_description(args, task, params, {"stream": True, "chunk_rows": args.chunk_rows,
                                                 "n_features": int(n_features),
                                                 "classes": None if classes is None else np.asarray(classes).tolist()})
    try:
        fit_passes(estimator, chunks, first=first, checkpoint=args.checkpoint, resume=args.resume, run=run)
    finally:
        progress.close()
    rows = seen["rows"] or rows
    return estimator, {"rows": rows, "features": int(n_features), "queries": seen["queries"]}


def _arff_width(args) -> int:
    """The number of feature columns of the ARFF training file (its first chunk's), checked against
    ``--n-features``."""
    X, _, _ = next(iter(stream_chunks(args.data, "multilabel", args, None)))
    if args.n_features is not None and X.shape[1] != args.n_features:
        raise ValueError(f"{args.data} has {X.shape[1]} features, not --n-features {args.n_features}")
    return int(X.shape[1])


def _integral(y: np.ndarray, path) -> np.ndarray:
    """Labels as integers (the classes are whole numbers, so every label must be)."""
    converted = as_labels(y)
    if converted.dtype.kind not in "iu":
        raise ValueError(f"{path}: a label is not a whole number, but the classes are ({y[y != np.round(y)][:3]})")
    return converted


def stream_predictions(args, task: str, model, verbose: bool):
    """Predictions chunk by chunk (each an array), for ``predict --stream``."""
    progress = _Progress(verbose)
    update = progress.start(Path(args.data).stat().st_size, "predicting")
    try:
        for X, _, _ in stream_chunks(args.data, task, args, int(model.n_features_in_), need_groups=False,
                                     on_progress=update, n_labels=getattr(model, "n_labels_", None)):
            yield model.predict(X)
    finally:
        progress.close()


def stream_metrics(args, task: str, model, ks, metrics: Callable, dataset: Callable):
    """``evaluate --stream``: the metrics of every chunk (``metrics(task, model, dataset(X, y, group), ks)``)
    averaged with the chunk's weight (its examples; its queries for rank)."""
    totals: dict[str, float] = {}
    weight = 0
    for X, y, keywords in stream_chunks(args.data, task, args, int(model.n_features_in_),
                                        n_labels=getattr(model, "n_labels_", None)):
        if task in CLASS_TASKS and np.asarray(model.classes_).dtype.kind in "iu":
            y = as_labels(y)
        group = keywords.get("group")
        w = len(group) if group is not None else len(y)
        for name, value in metrics(task, model, dataset(X, y, group), ks):
            totals[name] = totals.get(name, 0.0) + w * value
        weight += w
    return [(name, total / weight) for name, total in totals.items()]
