"""The command line's streaming and checkpointing: ``--stream``, ``--chunk-rows``, ``--cache``,
``--classes``, ``--checkpoint`` and ``--resume`` (used by :mod:`predtron.cli`).

``predtron fit TRAIN --stream`` reads TRAIN in chunks of whole examples (whole queries for
``rank``; ARFF rows for ``multilabel``) with the readers of :mod:`predtron.cli_data` and feeds
them to the estimator's ``partial_fit``, so memory holds one chunk, not the file.  An
svmlight/LETOR stream is read sparse (CSR chunks) unless ``--dense`` is given.  A stream is
visited in file order (shuffle the file beforehand; ``--shuffle`` is refused); the scaling of
``--standardize`` and the step of ``--eta auto`` are estimated from the first chunk and frozen,
or, with ``--statistics file``, from the whole file, read once more before the epochs (twice
with ``--eta auto``), so that the streamed fit equals the in-memory one bit for bit.
Without ``--n-features`` (and, for classify and ordinal, ``--classes``) a first pass over the
file finds the number of features and the labels (``predtron.cli_data.survey``); with
``--cache FILE`` that pass (or the first epoch) writes a binary cache of the parsed chunks that
later epochs read instead of the text.

``--checkpoint DIR`` writes the model and the fit's progress after every epoch (streamed or in
memory), atomically; ``--resume`` continues a killed fit from the last checkpoint to the model
an uninterrupted fit with ``--checkpoint`` gives, bit for bit (:mod:`predtron.streaming`).  In
memory the epochs visit the examples in the order ``fit`` draws from ``--seed``; with
``--shuffle`` the first epoch's chunk is the data in that order, so the scaling statistics of
``--standardize`` (and ``--eta auto``) are sums in another order than plain ``fit``'s and may
differ from them in the last bit (in file order, ``--no-shuffle``, the two fits are identical).

``predict --stream`` and ``evaluate --stream`` read the test file in chunks as well (metrics are
accumulated over the chunks: means over examples, NDCG over queries).
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from predtron.cli_data import (
    DataError,
    Dataset,
    FlagError,
    ReadOptions,
    as_labels,
    label_value,
    positive_int,
    stream_chunks,
    survey,
)

# light: no scikit-learn (the estimators' cores)
from predtron.streaming import fit_passes, permuted_chunks, statistics_reads
from predtron.tasks import TASKS, f1_counts, multilabel_values

__all__ = ["StreamFit", "as_labels", "check_fit_args", "checkpointed_fit", "label_value", "positive_int",
           "release_freed_chunks", "stream_fit", "stream_metrics", "stream_predictions"]

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


@dataclass(frozen=True)
class StreamFit:
    """What a checkpointed or streamed fit is given (typed, from the command line's flags).

    Attributes
    ----------
    data : str
        The training file.
    options : ReadOptions
        How to read it.
    n_features : int or None
        The number of features, if known (``--n-features``).
    classes : tuple or None
        Every label of the file, if known (``--classes``).
    cache : str or None
        The stream's cache file (``--cache``).
    checkpoint : str or None
        The checkpoint directory (``--checkpoint``).
    resume : bool
        Continue from the checkpoint (``--resume``).
    statistics : {None, "first-chunk", "file"}
        Where a streamed fit's scaler and ``eta="auto"`` come from (``--statistics``): the first
        chunk (``None``, the default) or the whole file, read before the epochs.
    """

    data: str
    options: ReadOptions
    n_features: int | None = None
    classes: tuple | None = None
    cache: str | None = None
    checkpoint: str | None = None
    resume: bool = False
    statistics: str | None = None


def check_fit_args(request: StreamFit, params: dict, streaming: bool) -> None:
    """Refuse the flags of ``request`` that do not apply to a fit read whole (``streaming=False``) or
    streamed, each naming its flag, as a :class:`~predtron.cli_data.FlagError` (a usage error: the
    flags contradict each other whatever the data; ``--resume`` without ``--checkpoint`` is refused by
    :func:`predtron.cli.run_fit` for every fit, a cluster's too)."""
    if not streaming:
        for flag, value in (("--cache", request.cache), ("--classes", request.classes),
                            ("--statistics", request.statistics)):
            if value is not None:
                raise FlagError(f"{flag} applies to --stream")
    if request.checkpoint is not None and params.get("reject_cost") is not None:
        raise FlagError("--reject-cost cannot be combined with --checkpoint or --stream: the abstention "
                        "threshold is fitted on the whole training set at the end of an in-memory fit")
    if streaming and params.get("reject_cost") is not None:
        raise FlagError("--reject-cost cannot be combined with --stream: the abstention threshold is fitted on "
                        "the whole training set at the end of an in-memory fit")
    if streaming and params.get("shuffle") is True:
        raise FlagError("--shuffle does not apply to --stream: a stream is visited in file order (shuffle the file "
                        "beforehand, e.g. with `shuf`)")


#: Estimator parameters whose flag is not ``--`` and the parameter's name with dashes.
_PARAM_FLAGS = {"random_state": "--seed", "fit_intercept": "--intercept"}


def _file_identity(path) -> str | None:
    """A file as a checkpoint records it (:func:`predtron.data.cache.describe_source`), or ``None``;
    the temporary copy of standard input is recorded as ``standard input`` with its bytes' size and
    hash (the copy's name changes from run to run, the data do not)."""
    if path is None:
        return None
    from predtron.cli_data import spool_names
    from predtron.data.cache import describe_source

    described = describe_source(path)
    if str(path) in spool_names():
        described = described.replace(str(Path(path).resolve()), "standard input", 1)
    return described


def _layout_named(options, fmt: str, path, extra: dict) -> str:
    """``sparse`` or ``dense``: the layout of a streamed fit, or the one asked of an in-memory fit
    (``--sparse``, ``--dense``, or ``by density``: :func:`~predtron.cli_data.in_memory_layout`
    decides from the data, which the checkpoint's TRAIN entry identifies)."""
    if extra.get("--stream"):
        return "sparse" if options.layout(fmt, True, path) else "dense"
    return {True: "sparse", False: "dense", None: "by density"}[options.sparse]


def _run_description(request: StreamFit, task: str, params: dict, extra: dict) -> dict:
    """What a checkpoint must match to be resumed, each entry under the flag that sets it (so that a
    refusal names the flag and both values): the data file and the files read with it (path, size
    and content), every read option, every estimator parameter, and ``extra`` (the streamed fit's)."""
    from predtron.cli_data import check_format, mulan_xml

    options = request.options
    fmt = check_format(request.data, task, options)
    sizes = options.group_file
    if sizes is None and TASKS[task].queries:
        from predtron.data.letor import find_sidecar

        sizes = find_sidecar(request.data)
    xml = options.xml if options.xml is not None or fmt != "arff" or options.labels is not None \
        else mulan_xml(request.data)
    run = {"TRAIN": _file_identity(request.data), "--task": task, "--format": fmt,
           "--sparse/--dense": _layout_named(options, fmt, request.data, extra),
           "--zero-based": bool(options.zero_based), "--group-file": _file_identity(sizes),
           "--labels": options.labels, "--xml": _file_identity(xml), "--missing": options.missing,
           "--n-features": request.n_features}
    for name, value in sorted(params.items()):
        flag = _PARAM_FLAGS.get(name, "--" + name.replace("_", "-"))
        run[flag] = np.asarray(value).tolist() if isinstance(value, np.ndarray) else value
    return {**run, **extra}


def checkpointed_fit(request: StreamFit, task: str, data: Dataset, params: dict, verbose: bool = False):
    """The in-memory fit with ``--checkpoint`` (and ``--resume``): epoch by epoch, the examples in
    the order ``fit`` visits them, the state written after every epoch (``verbose``: a bar over the
    epochs, ended at those made)."""
    estimator = TASKS[task].core_class(**params)  # the estimator's core, as in stream_fit
    seed = None
    if estimator.shuffle:
        seed = estimator.random_state
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise ValueError("--checkpoint with shuffling needs --seed INT (or --no-shuffle), so that a resumed fit "
                             "visits the examples in the same order")
        seed = int(seed)
    first = {"classes": np.unique(data.y)} if TASKS[task].classes else {}
    if task == "multilabel" and np.ndim(data.y) == 1:
        first = {"classes": np.unique(data.y)}
    chunks = permuted_chunks(data.X, data.y, seed, group=data.group)
    run = _run_description(request, task, params, {"--stream": False})
    bar = None
    if verbose:
        from tqdm.auto import tqdm

        bar = tqdm(total=estimator.epochs, unit="epoch", desc="epochs", file=sys.stderr, leave=True)
    try:
        with _classes_named(False, request.data):
            shown = {} if bar is None else {"after_epoch": lambda epoch: bar.update(epoch - bar.n)}
            fitted = fit_passes(estimator, chunks, first=first, checkpoint=request.checkpoint, resume=request.resume,
                                run=run, **shown)
    except BaseException:
        if bar is not None:
            bar.leave = False
            bar.close()
        raise
    if bar is not None:  # ended at the epochs made (early stopping may end the fit before; a resumed one began later)
        bar.n = bar.total = max(int(fitted.n_iter_), 1)
        bar.refresh()
        bar.close()
    return fitted


@contextlib.contextmanager
def _classes_named(given: bool, path) -> Iterator[None]:
    """Name the classes of a fit in its driver's messages (``classes must hold at least 2 ...``, the
    estimator's ``partial_fit`` argument): ``--classes`` when the user gave them (``given``), else
    the labels of the training file ``path``, where the command found them."""
    try:
        yield
    except ValueError as exc:
        text = str(exc)
        if isinstance(exc, DataError) or not text.startswith("classes "):
            raise
        subject = "--classes" if given else f"the labels of {path}"
        raise DataError(subject + text[len("classes"):]) from None


class Progress:
    """One tqdm bar on stderr (or nothing) over the bytes of all the passes of a command.

    The bar counts ``passes`` times the file's size; each pass is brought to its full share when
    it ends (a compressed file reports its compressed bytes), and :meth:`close` fills the bar, so
    that a fit that early stopping ends before its last pass ends at 100%.
    """

    def __init__(self, enabled: bool, size: int, passes: int, description: str):
        self.size, self.passes = size, passes
        self.bar = None
        self.done = 0
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=max(1, size * passes), unit="B", unit_scale=True, desc=description,
                            file=sys.stderr, leave=True, mininterval=0.2)

    def update(self, count: int) -> None:
        """Add ``count`` bytes read (never past the current pass's share)."""
        if self.bar is not None:
            limit = (self.done + 1) * self.size
            self.bar.update(max(0, min(count, limit - self.bar.n)))

    def end_pass(self, description: str | None = None) -> None:
        """The current pass is complete."""
        self.reach(self.done + 1, description)

    def reach(self, passes: int, description: str | None = None) -> None:
        """``passes`` passes are complete (a resumed fit starts after its checkpoint's)."""
        self.done = passes
        if self.bar is not None:
            self.bar.update(max(0, self.done * self.size - self.bar.n))
            if description is not None:
                self.bar.set_description(description)

    def close(self, complete: bool = True) -> None:
        """Close the bar, filled when the work is ``complete`` (early stopping may end it before its last pass)."""
        if self.bar is not None:
            if complete:
                self.bar.update(max(0, self.bar.total - self.bar.n))
            else:
                self.bar.leave = False
            self.bar.close()
            self.bar = None


class _FirstChunkCover:
    """Which features the first chunk of a streamed fit holds, against the whole first pass: the scaler
    and ``eta="auto"`` are estimated from the first chunk (``partial_fit``'s rule), so a feature with no
    value there is left unscaled however large its values later.  :meth:`warn` says so once."""

    def __init__(self, estimator) -> None:
        auto = statistics_reads(estimator) == 2  # eta="auto"
        self.estimated = [flag for flag, on in (("--standardize", estimator.standardize), ("--eta auto", auto)) if on]
        self.estimate = bool(self.estimated)
        self.first: np.ndarray | None = None
        self.later: np.ndarray | None = None
        self.rows = 0

    def add(self, X) -> None:
        if not self.estimate:
            return
        import scipy.sparse as sp

        if sp.issparse(X):
            mask = np.zeros(X.shape[1], dtype=bool)
            mask[X.indices] = True
        else:
            mask = np.asarray(X != 0).any(axis=0)
        if self.first is None:
            self.first, self.later, self.rows = mask, np.zeros_like(mask), X.shape[0]
        else:
            self.later |= mask

    def warn(self) -> None:
        if self.first is None:
            return
        missing = int(np.count_nonzero(self.later & ~self.first))
        if missing:
            import warnings

            effect = "they are not scaled" if "--standardize" in self.estimated else "the step does not allow for them"
            warnings.warn(f"{missing} of {self.first.size} features have no value in the first chunk ({self.rows} "
                          f"rows), from which {' and '.join(self.estimated)} "
                          f"{'are' if len(self.estimated) > 1 else 'is'} estimated: {effect}; give --statistics "
                          "file (the whole file's statistics, read before the epochs), a larger --chunk-rows, or "
                          "shuffle the file beforehand", RuntimeWarning, stacklevel=2)


def stream_fit(request: StreamFit, task: str, params: dict, verbose: bool):
    """``predtron fit --stream``: ``(estimator, summary)`` after the epochs over the file's chunks."""
    if params.get("shuffle") is True:
        raise ValueError("--shuffle does not apply to --stream: a stream is visited in file order (shuffle the file "
                         "beforehand, e.g. with `shuf`)")
    release_freed_chunks()
    params = {**params, "shuffle": False}
    spec = TASKS[task]
    estimator = spec.core_class(**params)  # the estimator's core: no scikit-learn; saved as the estimator
    path, options = request.data, request.options
    n_features = request.n_features
    if request.classes is not None:
        words = [c for c in request.classes if isinstance(c, str)]
        if words:
            raise ValueError(f"--classes takes the labels as they are written in {path}, numbers; got {words[0]!r}")
    classes = None if request.classes is None else np.asarray(request.classes)
    rows = None
    size = Path(path).stat().st_size
    surveyed = task != "multilabel" and (n_features is None or (spec.classes and classes is None))
    whole = request.statistics == "file"
    reads = statistics_reads(estimator) if whole and not request.resume else 0  # before the epochs
    before = surveyed + reads  # passes over the file before epoch 1
    wanted = [what for what, needed in (("labels", spec.classes and classes is None), ("features", n_features is None))
              if needed]  # what the first pass reads the file for
    progress = Progress(verbose, size, estimator.epochs + before,
                        f"reading {' and '.join(wanted)}" if surveyed else
                        "reading the scaling statistics" if reads else f"epoch 1/{estimator.epochs}")
    try:
        if task == "multilabel":
            n_features = _arff_width(request)
        elif surveyed:
            width, found, rows = survey(path, task, options, cache=request.cache, on_progress=progress.update,
                                        n_features=n_features)
            progress.end_pass("reading the scaling statistics" if reads else f"epoch 1/{estimator.epochs}")
            n_features = n_features or width
            if spec.classes and classes is None:
                classes = found
        integral = True
        if spec.classes:
            classes = as_labels(classes) if classes.dtype.kind in "iuf" else classes
            integral = classes.dtype.kind in "iu"
        seen = {"rows": 0, "queries": 0, "reads": 0}
        present = _FirstChunkCover(estimator) if not whole else None  # whole-file statistics miss nothing

        def file_chunks():
            try:
                for X, y, keywords in stream_chunks(path, task, options, n_features, cache=request.cache,
                                                    on_progress=progress.update):
                    yield X, (_integral(y, path) if spec.classes and integral else y), keywords
            except ValueError as exc:
                found = f"n_features = {n_features}"
                if request.n_features is not None or found not in str(exc):
                    raise
                # the width came from the first pass, which reads the index that ends each line
                raise DataError(str(exc).replace(found, f"the {n_features} features found by the first pass (the "
                                                        "largest index that ends a line; a line's indices must "
                                                        "increase)")) from None

        def statistics_read():
            progress.reach(surveyed + seen["reads"], "reading the scaling statistics")
            seen["reads"] += 1
            return file_chunks()

        def chunks(epoch: int):
            progress.reach(epoch - 1 + before, f"epoch {epoch}/{estimator.epochs}")
            counted = seen.setdefault("counted", epoch) == epoch  # the first epoch run (a resumed fit's is later)
            for X, y, keywords in file_chunks():
                if counted:
                    seen["rows"] += len(y)
                    seen["queries"] += len(keywords.get("group", ()))
                if epoch == 1 and present is not None:
                    present.add(X)
                yield X, y, keywords
            if epoch == 1 and present is not None:
                present.warn()

        first = {"classes": classes} if spec.classes else {}
        run = None  # what a checkpoint records; describing the file reads all of it, so only with one
        if request.checkpoint is not None:
            run = _run_description(request, task, params, {
                "--stream": True, "--chunk-rows": options.chunk_rows, "features": int(n_features),
                "--classes": None if classes is None else np.asarray(classes).tolist(),
                **({"--statistics": "file"} if whole else {})})  # absent: as checkpoints written before it
        with _classes_named(request.classes is not None, path):
            fit_passes(estimator, chunks, first=first, checkpoint=request.checkpoint, resume=request.resume,
                       run=run, statistics=statistics_read if whole else False)
    except BaseException:
        progress.close(complete=False)
        raise
    made = int(estimator.n_iter_)  # (a fit resumed from a finished checkpoint makes no epoch: name the last one)
    progress.reach(before + made, f"epoch {made}/{estimator.epochs}")
    progress.close()
    rows = seen["rows"] or rows
    return estimator, {"rows": rows, "features": int(n_features), "queries": seen["queries"]}


def _arff_width(request: StreamFit) -> int:
    """The number of feature columns of the ARFF training file (its first chunk's), checked against
    ``--n-features``."""
    X, _, _ = next(iter(stream_chunks(request.data, "multilabel", request.options, None)))
    if request.n_features is not None and X.shape[1] != request.n_features:
        raise ValueError(f"{request.data} has {X.shape[1]} features, not --n-features {request.n_features}")
    return int(X.shape[1])


def _integral(y: np.ndarray, path) -> np.ndarray:
    """Labels as integers (the classes are whole numbers, so every label must be)."""
    converted = as_labels(y)
    if converted.dtype.kind not in "iu":  # (classes found by the first pass are every label: --classes were given)
        odd = y[(y != np.round(y)) | (np.abs(y) >= 2**53)]
        raise DataError(f"{path} holds the label {odd[0]:.17g}, which is not one of --classes (whole numbers)")
    return converted


def stream_predictions(path, options: ReadOptions, task: str, model, verbose: bool):
    """Predictions chunk by chunk (each an array), for ``predict --stream``."""
    progress = Progress(verbose, Path(path).stat().st_size, 1, "predicting")
    try:
        for X, _, _ in stream_chunks(path, task, options, int(model.n_features_in_), need_groups=False,
                                     on_progress=progress.update, n_labels=getattr(model, "n_labels_", None)):
            yield model.predict(X)
    except BaseException:
        progress.close(complete=False)
        raise
    progress.close()


def stream_metrics(path, options: ReadOptions, task: str, model, ks) -> list[tuple[str, float]]:
    """``evaluate --stream``: the metrics of every chunk averaged with the chunk's weight (its examples;
    its queries for rank)."""
    totals: dict[str, float] = {}
    weight = 0
    pooled = np.zeros(2)  # multilabel: 2 TP and |Y| + |P| over the whole file (micro F1 pools its counts)
    for X, y, keywords in stream_chunks(path, task, options, int(model.n_features_in_),
                                        n_labels=getattr(model, "n_labels_", None)):
        if TASKS[task].classes and np.asarray(model.classes_).dtype.kind in "iu":
            y = as_labels(y)
        group = keywords.get("group")
        w = len(group) if group is not None else len(y)
        if task == "multilabel":
            P = np.asarray(model.predict(X)).reshape(y.shape)
            pooled += f1_counts(y, P)
            values = multilabel_values(model, Dataset(X, y, group), P)
        else:
            values = TASKS[task].metrics(model, Dataset(X, y, group), ks)
        for name, value in values:
            totals[name] = totals.get(name, 0.0) + w * value
        weight += w
    values = {name: total / weight for name, total in totals.items()}
    if task == "multilabel":
        values["micro f1"] = 1.0 if pooled[1] == 0 else float(pooled[0] / pooled[1])
    return list(values.items())

