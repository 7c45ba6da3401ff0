"""Fitting an estimator pass by pass from a source of chunks, with checkpoints that resume bit for bit.

:func:`fit_passes` drives the estimators of :mod:`predtron.sklearn` through their
``partial_fit``: every epoch asks the source for the epoch's chunks (re-reading a file, reading
its cache, or permuting in-memory data) and feeds them in order; after every epoch it applies
the estimators' early-stopping rule (:class:`~predtron.learners.stopping.EarlyStopping`, scikit-learn's ``tol`` /
``n_iter_no_change``) and, with a checkpoint directory, writes the state.

Checkpoints.  After epoch ``k`` the directory holds ``model-k.npz`` (the estimator, written by
:func:`predtron.save`) and ``progress.json`` (``k``, the stopping rule's state, the seed of the
visiting order and a description of the run).  Both are written to temporary files and renamed
into place, the model first: ``progress.json`` is the one commit point, and it names its epoch's
model file, so a crash at any moment, between the two renames included, leaves the previous
complete checkpoint (a model file of a later epoch that no ``progress.json`` names is ignored,
and removed by the next checkpoint).  ``resume=True`` loads it and continues with epoch ``k + 1``: the estimator's state
(parameters, averaged parameters, loss totals, the block size of the scan) is restored exactly,
the visiting order of later epochs depends only on the seed and the epoch, and the stopping
rule continues from its saved state, so the resumed fit ends with the model an uninterrupted fit
gives, bit for bit (``tests/test_streaming.py`` kills a fit and compares).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from predtron._estimator import epoch_order, run_epochs
from predtron._files import atomic_path
from predtron._seal import check_folder, check_fresh_folder, check_sealed, sealed, state_files, state_pattern
from predtron._state import run_differences
from predtron._validation import check_bool, check_group_sizes, check_int, query_offsets
from predtron.persistence import load, save, saved_as

__all__ = ["atomic_save", "check_checkpoint_folder", "fit_passes", "permuted_chunks", "read_checkpoint",
           "statistics_reads", "stream_statistics"]

PROGRESS_FILE = "progress.json"
CHECKPOINT_FORMAT = "predtron-checkpoint/3"  # 3: sealed (predtron._seal)
#: Checkpoints of format 2 (not sealed) are still read.
_FORMAT_2 = "predtron-checkpoint/2"
#: Checkpoints of format 1 kept one ``model.npz``, which a crash between its rename and that of
#: ``progress.json`` left one epoch ahead of the progress; they are still read.
_FORMAT_1 = "predtron-checkpoint/1"


def _model_file(epoch: int) -> str:
    """The checkpoint's model file after ``epoch``."""
    return f"model-{epoch}.npz"


#: The files a checkpoint writes (and replaces, or removes when stale) in its folder, as glob patterns.
CHECKPOINT_FILES = (PROGRESS_FILE, state_pattern("model"))


def atomic_save(estimator, path) -> Path:
    """:func:`predtron.save` to a temporary file beside ``path``, then renamed onto it
    (:func:`predtron._files.atomic_path`): a reader (or a crash) never sees a partly written
    model, and an existing file is replaced only by a complete one."""
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_suffix(path.suffix + ".npz")
    with atomic_path(path, suffix=".tmp.npz") as temporary:
        save(estimator, temporary)
    return path


def check_checkpoint_folder(directory) -> None:
    """Refuse a folder for a new checkpoint when writing one there would replace or remove a file that
    is not a checkpoint file of this package (:func:`predtron._seal.check_fresh_folder`); a folder
    that does not exist yet is fine; a path that is not a folder is refused."""
    directory = check_folder(directory, "checkpoint")
    if directory.is_dir():
        check_fresh_folder(directory, PROGRESS_FILE, ["model"], "__header__.npy",
                           "predtron-checkpoint/")


def _write_json(path: Path, value: dict) -> None:
    with atomic_path(path) as temporary:
        temporary.write_text(json.dumps(value))


def _write_checkpoint(directory: Path, estimator, progress: dict, legacy: bool = False) -> None:
    """The model of ``progress["epoch"]``, then ``progress.json`` naming it (the commit point), then
    the removal of every other model file of the checkpoint (earlier epochs', or a later one a crash
    left: ``model-{epoch}.npz`` only, never another file of the folder; ``legacy``: also the
    ``model.npz`` of the format-1 checkpoint resumed from)."""
    model = _model_file(progress["epoch"])
    atomic_save(estimator, directory / model)
    _write_json(directory / PROGRESS_FILE, sealed(progress, directory / model))
    stale = [path for path in state_files(directory, "model") if path.name != model]
    for path in [*stale, *([directory / "model.npz"] if legacy else [])]:
        path.unlink(missing_ok=True)


def read_checkpoint(directory, run: dict, as_class: type | None = None):
    """``(estimator, progress)`` of the checkpoint in ``directory``; refuses one written by another
    run (``run`` describes the data and the options and must match the saved description).
    ``as_class``: the class to read the model as when it is written under another's name (an
    estimator's core of :mod:`predtron._models`, which the command line fits without importing
    scikit-learn, is written as its public estimator)."""
    directory = Path(directory)
    progress_path = directory / PROGRESS_FILE
    if not progress_path.is_file():
        raise ValueError(f"--resume: no checkpoint in {directory} (no {PROGRESS_FILE}); run without --resume "
                         "to start one")
    try:
        progress = json.loads(progress_path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{progress_path} is not a readable checkpoint ({exc})") from None
    if not isinstance(progress, dict) or progress.get("format") not in (CHECKPOINT_FORMAT, _FORMAT_2, _FORMAT_1):
        raise ValueError(f"{progress_path} is not a predtron checkpoint (format {CHECKPOINT_FORMAT!r})")
    if progress["format"] == CHECKPOINT_FORMAT:
        epoch = progress.get("epoch")
        check_sealed(progress, progress_path, directory / _model_file(epoch if isinstance(epoch, int) else 0))
    if progress.get("run") != run:
        differs = run_differences(progress.get("run"), run)
        raise ValueError(f"the checkpoint in {directory} was written by another fit (it differs in: {differs}); "
                         "resume with the same data and options, or start afresh")
    missing = [key for key in ("epoch", "stopped", "stopping") if key not in progress]
    if missing:
        raise ValueError(f"{progress_path} is a damaged checkpoint: it has no entry {', '.join(map(repr, missing))}; "
                         "start afresh (without --resume) or restore the file")
    epoch = progress["epoch"]
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
        raise ValueError(f"{progress_path}: entry 'epoch' must be a whole number >= 1; got {epoch!r}")
    if not isinstance(progress["stopped"], bool):
        raise ValueError(f"{progress_path}: entry 'stopped' must be true or false; got "
                         f"{str(progress['stopped'])[:40]!r}")
    from predtron.learners.stopping import EarlyStopping

    stopping = progress["stopping"]
    problem = None if stopping is None else EarlyStopping.state_problem(stopping)
    if problem is not None:
        raise ValueError(f"{progress_path}: entry 'stopping' must be null or the stopping rule's state (best, stall, "
                         f"rounds, total): {problem}")
    model = "model.npz" if progress["format"] == _FORMAT_1 else _model_file(epoch)
    name = None if as_class is None else saved_as(as_class)
    saved = load(directory / model, classes=None if name is None else {name: as_class})
    if as_class is not None and not isinstance(saved, as_class):
        raise ValueError(f"{directory / model} holds a {type(saved).__name__}, not the {name or as_class.__name__} "
                         "being fitted: the checkpoint is of another fit; start afresh (without --resume)")
    return saved, progress


def permuted_chunks(X, y, seed: int, *, group=None) -> Callable[[int], Iterable[tuple]]:
    """A source of one chunk per epoch: the in-memory data in the order ``fit`` would visit it.

    Epoch ``e`` (from 1) visits the rows (for ranking: the queries, given by ``group`` sizes)
    in :func:`predtron._estimator.epoch_order` ``(seed, e, n)``, the order
    :meth:`predtron.learners.base.OnlineLearner.fit` visits them with ``shuffle=True``;
    ``seed=None`` keeps the data's order.  ``y`` must have one label per row of ``X`` and
    ``group`` sum to its rows (else a shuffled epoch would visit only part of the rows).
    """
    n_rows = _n_rows(X)
    if _n_rows(y) != n_rows:
        raise ValueError(f"y must have one label per row of X ({n_rows} rows); got {_n_rows(y)}")
    offsets = None if group is None else check_group_sizes(group, n_rows)
    group = None if group is None else np.diff(offsets)

    def chunks(epoch: int):
        if seed is None:
            return [(X, y, {} if group is None else {"group": group})]
        order = epoch_order(seed, epoch, len(y) if offsets is None else len(group))
        if offsets is None:
            return [(X[order], y[order], {})]
        rows = np.concatenate([np.arange(offsets[q], offsets[q + 1]) for q in order]) if len(order) else order
        return [(X[rows], y[rows], {"group": np.asarray(group)[order]})]

    return chunks


def statistics_reads(estimator) -> int:
    """How many times :func:`stream_statistics` reads the stream for ``estimator``: once for the
    moments, and once more for the scaled norms of ``eta="auto"``."""
    return 2 if isinstance(estimator.eta, str) and estimator.eta == "auto" else 1


def stream_statistics(estimator, chunks: Iterable[tuple] | Callable[[], Iterable[tuple]]):
    """The :class:`~predtron.sklearn.FitStatistics` of a whole stream of chunks ``(X, y, keywords)``
    for ``estimator``: the moments in a first read; with ``eta="auto"`` the squared norms of the
    scaled chunks (and, for ranking, ``c_L`` of their grades) in a second.  Give them to the
    estimator with ``preset_statistics`` (or ``fit_passes(..., statistics=True)``): its scaler and
    step are then those of ``fit`` on all the data, bit for bit.  ``chunks`` is read twice (a
    callable returning it, or a re-iterable sequence)."""
    from predtron._models import FitStatistics, RankerCore
    from predtron._models.checks import as_float64

    def read():
        return _chunk_items(chunks() if callable(chunks) else chunks, "chunks")

    statistics = FitStatistics(standardize=estimator.standardize, fit_intercept=bool(estimator.fit_intercept))
    for X, _, _ in read():
        if _n_rows(X):
            statistics.update(as_float64(X))
    scaler = estimator.scaler_from(statistics)
    if statistics_reads(estimator) == 2:
        ranking = isinstance(estimator, RankerCore)
        problem = estimator.make_problem() if ranking else None
        for X, y, keywords in read():
            if not _n_rows(X):
                continue  # skipped by fit_passes too
            X = as_float64(X)
            X = scaler(X) if scaler is not None else X
            offsets, target = None, None
            if ranking:  # the queries as partial_fit reads them: exactly one of qid and group
                offsets = query_offsets(X.shape[0], qid=keywords.get("qid"), group=keywords.get("group"))
                target = np.asarray(y, dtype=np.int64)
            elif y is not None and np.ndim(y) == 2:  # a multilabel indicator: its label cardinality
                target = y
            statistics.update_norms(X, target, problem, offsets)
    return statistics


def _plain_value(value):
    """A parameter's value in a form that compares as the value does (arrays and sequences as lists)."""
    if isinstance(value, (np.ndarray, list, tuple)):
        return np.asarray(value).tolist()
    return value.item() if isinstance(value, np.generic) else value


def _param_differences(saved, estimator) -> str:
    """Where the parameters of a checkpoint's model and of the estimator to resume differ (``""``:
    nowhere); ``verbose`` changes nothing that is learned and is not compared."""
    old, new = ({k: _plain_value(v) for k, v in model.get_params(deep=False).items() if k != "verbose"}
                for model in (saved, estimator))
    return "" if old == new else run_differences({"params": old}, {"params": new})


def _n_rows(X) -> int:
    """Rows of a chunk's ``X`` (an array, a sparse matrix, a frame or a list of rows)."""
    shape = getattr(X, "shape", None)
    return int(shape[0]) if shape is not None and len(shape) else len(X)


def _checked_chunks(chunks: Callable[[int], Iterable[tuple]], epoch: int) -> Iterable[tuple]:
    """``chunks(epoch)``, each item checked to be a chunk ``(X, y, keywords)`` (a clear error naming
    ``chunks`` instead of a failed unpacking)."""
    return _chunk_items(chunks(epoch), f"chunks({epoch})")


def _chunk_items(source, name: str) -> Iterable[tuple]:
    """The items of ``source``, each checked to be a chunk ``(X, y, keywords)``; ``name`` is the
    source's name in the messages."""
    try:
        items = iter(source)
    except TypeError:
        raise TypeError(f"{name} must return an iterable of chunks (X, y, keywords); got "
                        f"{type(source).__name__}") from None
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 3 and isinstance(item[2], dict)):
            got = f"a tuple of {len(item)}" if isinstance(item, tuple) else type(item).__name__
            raise ValueError(f"{name} must give chunks (X, y, keywords), keywords a dict ({{}} or "
                             f"{{'group': sizes}}); got {got}")
        yield item


def fit_passes(estimator, chunks: Callable[[int], Iterable[tuple]], *, epochs: int | None = None,
               first: dict | None = None, checkpoint=None, resume: bool = False, run: dict | None = None,
               after_epoch: Callable[[int], None] | None = None,
               statistics: bool | Callable[[], Iterable[tuple]] = False):
    """Fit ``estimator`` by ``partial_fit`` over ``chunks(epoch)`` for each epoch ``1..epochs``.

    Parameters
    ----------
    estimator : estimator of :mod:`predtron.sklearn`
        Unfitted (or fitted, to continue); its ``epochs``, ``tol`` and ``n_iter_no_change``
        set the passes and the stopping rule unless ``epochs`` is given.
    chunks : callable
        ``chunks(epoch)`` returns the epoch's chunks, each ``(X, y, keywords)``; the keywords
        go to ``partial_fit`` (``{"group": sizes}`` for the ranker).  It is called once per
        epoch and must give the data anew each time (a new iterator, or a list): an epoch that
        gives no examples is refused.  A chunk of no rows is skipped.
    first : dict, optional
        Keywords of the very first ``partial_fit`` call (``classes=...``).
    checkpoint : path-like, optional
        A directory: the state is written there after every epoch (see the module notes).
    resume : bool
        Continue from the checkpoint in ``checkpoint`` (it must describe the same ``run``).
    run : dict, optional
        JSON description of the data and the options, saved with the checkpoint and compared on
        resume.
    after_epoch : callable, optional
        Called with the epoch number after each epoch (and its checkpoint).
    statistics : bool or callable
        Scale and step by the whole stream's statistics (:func:`stream_statistics`, up to two reads
        of ``chunks(1)`` before the first epoch, :func:`statistics_reads`; a callable returning the
        stream's chunks is read instead): the fit then equals ``fit`` on all the data with the same
        options, bit for bit (``shuffle=False``); ``False``: the first batch's, frozen
        (``partial_fit``'s rule).  Not read again when the fit resumes or continues.

    Returns
    -------
    estimator
        The fitted estimator (``n_iter_``: the epochs made).
    """
    if not callable(chunks):
        raise TypeError(f"chunks must be a callable, chunks(epoch) giving the epoch's chunks (X, y, keywords) anew "
                        f"for every epoch (permuted_chunks makes one of in-memory data); got {type(chunks).__name__}")
    epochs = check_int(estimator.epochs if epochs is None else epochs, "epochs", minimum=1)
    resume = check_bool(resume, "resume")
    if not callable(statistics):  # a reader of the whole stream, or whether to read chunks(1) for them
        statistics = check_bool(statistics, "statistics")
    if after_epoch is not None and not callable(after_epoch):
        raise ValueError(f"after_epoch must be a callable after_epoch(epoch) or None; got {type(after_epoch).__name__}")
    run = {} if run is None else run
    stopper = estimator.stopping_rule()
    done, legacy = 0, False
    directory = None if checkpoint is None else check_folder(checkpoint, "checkpoint")
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
        if not resume:
            check_checkpoint_folder(directory)
    if resume:
        if directory is None:
            raise ValueError("resume=True needs a checkpoint directory")
        saved, progress = read_checkpoint(directory, run, as_class=type(estimator))
        differs = _param_differences(saved, estimator)
        if differs:
            raise ValueError(f"the checkpoint in {directory} was written by another fit (it differs in: {differs}); "
                             "resume with the same data and options, or start afresh")
        estimator.__dict__.update({k: v for k, v in vars(saved).items() if k.endswith("_")})
        legacy = progress["format"] == _FORMAT_1  # its model.npz is the checkpoint's own: removed when replaced
        done = progress["epoch"]
        estimator.n_iter_ = done
        if stopper is not None and progress.get("stopping") is not None:
            stopper.restore(progress["stopping"])
        if progress.get("stopped"):
            return estimator
    started = done > 0 or hasattr(estimator, "learner_")
    if statistics and not started:
        estimator.preset_statistics(stream_statistics(estimator, statistics if callable(statistics)
                                                      else (lambda: chunks(1))))
    stopped = {"now": False}

    def one_pass(epoch: int) -> None:
        nonlocal started
        fed = 0
        estimator.start_pass()  # a query may end one epoch and start the next
        for X, y, keywords in _checked_chunks(chunks, epoch):
            if _n_rows(X) == 0:
                continue  # a chunk of no rows changes nothing (as the Dask fit skips an empty partition)
            if not started and first:
                keywords = {**first, **keywords}
            estimator.partial_fit(X, y, **keywords)
            started = True
            fed += 1
        if fed == 0:
            raise ValueError(f"chunks({epoch}) gave no examples: every epoch must give the data anew (a one-shot "
                             "iterator or generator returned for every epoch is empty after its first pass, or after "
                             "statistics=True read it); return a new iterator, or a list, at every call")
        estimator.n_iter_ = estimator.learner_.n_epochs_ = epoch

    def stop(epoch: int) -> bool:
        stopped["now"] = stopper is not None and stopper(estimator.learner_, epoch)
        return stopped["now"]

    def write(epoch: int) -> None:
        if directory is not None:
            _write_checkpoint(directory, estimator, {
                "format": CHECKPOINT_FORMAT, "epoch": epoch, "stopped": bool(stopped["now"] or epoch == epochs),
                "stopping": None if stopper is None else stopper.state(), "run": run}, legacy=legacy)

    hooks = (write,) if after_epoch is None else (write, after_epoch)
    run_epochs(one_pass, epochs, first=done + 1, stop=stop, after=hooks)
    return estimator
