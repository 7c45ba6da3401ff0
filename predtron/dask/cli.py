"""``predtron fit ... --workers N`` and ``--scheduler ADDRESS``: the command line on Dask.

:func:`fit_files_on_cluster` fits on several files (or a glob) that the workers read
themselves, one shard per file, with checkpoints; with ``--stream`` each worker reads its file
chunk by chunk at every pass (``--cache DIR``: one cache per file in DIR), so that neither the
command nor a worker holds the data.  :func:`fit_on_cluster` (one file read by the command, cut
into shards of consecutive rows, whole queries for ranking, one per worker unless ``--shards``
says otherwise) is the older path.  Both fit by iterative parameter mixing
(:mod:`predtron.mixing`); the saved model is the ``to_local()`` estimator, the same file
``predtron fit`` writes without Dask.  ``--workers N`` starts a local cluster of ``N`` worker
processes on 127.0.0.1 (one thread each) and closes it at the end; ``--scheduler ADDRESS`` uses
a running cluster.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import logging
import os
import warnings
from pathlib import Path

import numpy as np

from predtron._files import temporary_file
from predtron.cli_data import FlagError, flag_message, positive_int
from predtron.tasks import TASKS


def is_pattern(path) -> bool:
    """Whether ``path`` is a glob pattern (``*``, ``?`` or ``[``), which :func:`expand_paths` expands; the
    name of an existing file is that file, whatever characters it holds (``run[1].svm``)."""
    return any(c in str(path) for c in "*?[") and not Path(path).is_file()


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``predtron fit`` that train on a Dask cluster."""
    group = parser.add_argument_group("Dask cluster (iterative parameter mixing)")
    where = group.add_mutually_exclusive_group()
    where.add_argument("--workers", type=positive_int, metavar="N",
                       help="fit on a local Dask cluster of N worker processes (127.0.0.1), closed at the end")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="fit on the running Dask cluster whose scheduler is at ADDRESS (e.g. tcp://host:8786)")
    group.add_argument("--shards", type=positive_int, metavar="S",
                       help="cut the data into S shards (default: one per worker); files the workers read "
                            "themselves (several files, a glob, or one file with --stream, --checkpoint or "
                            "--resume) are one shard each")
    group.add_argument("--mixing", choices=("uniform", "loss"),
                       help="weights of the shards' parameters at every epoch (default: uniform)")
    group.add_argument("--mixing-rounds", type=positive_int, metavar="R",
                       help="mixing rounds per epoch: each shard's pass is cut into R segments and the parameters "
                            "are mixed after each (default: 8); with --stream each worker reads its file about "
                            "(R + 1) / 2 times per epoch [mixing_rounds]")


#: Why ``--group-file`` is refused for a fit whose workers read the training files (a :class:`FlagError`).
GROUP_FILE_ON_CLUSTER = ("--group-file does not apply to a cluster fit whose workers read the training files "
                         "themselves (several files, or one with --stream, --checkpoint or --resume): put qid: in "
                         "every line, or the query sizes in a FILE.query file beside each file")


def file_options(task: str, options, n_features: int | None = None, stream: bool = False, first=None) -> dict:
    """The keyword arguments of the workers' reader of a fit on files, from the command line's typed
    read options (:class:`predtron.cli_data.ReadOptions`): the same layout (``--sparse``/``--dense``,
    by default :meth:`~predtron.cli_data.ReadOptions.layout`'s, the file ``first`` deciding for
    every shard, so that all hold the same layout),
    ``--zero-based``, ``--n-features``; ARFF's ``--labels``, ``--xml`` and ``--missing``;
    ``--chunk-rows`` with ``stream``.  ``--group-file`` is refused: it gives one file's query
    sizes (put ``qid:`` in the files, or a ``FILE.query`` sidecar beside each)."""
    if options.group_file is not None:
        raise FlagError(GROUP_FILE_ON_CLUSTER)
    fmt = TASKS[task].format
    out: dict = {"sparse": bool(options.layout(fmt, stream, first))}
    if fmt == "arff":
        out.update({k: v for k, v in (("n_labels", options.labels), ("xml", options.xml)) if v is not None})
        if options.missing is not None:
            out["missing"] = options.missing
    else:
        out["zero_based"] = bool(options.zero_based)
        if n_features is not None:
            out["n_features"] = int(n_features)
    if stream:
        out["chunk_rows"] = int(options.chunk_rows)
    return out


#: The reader's and the Dask estimators' names in a refused checkpoint's message, and their flags.
_FLAGS = {"files": "TRAIN", "file_options": "the read options", "stream": "--stream", "sparse": "--sparse/--dense",
          "zero_based": "--zero-based", "n_features": "--n-features", "n_labels": "--labels", "xml": "--xml",
          "missing": "--missing", "chunk_rows": "--chunk-rows", "mixing": "--mixing",
          "mixing_rounds": "--mixing-rounds", "shards": "the files' rows"}


def with_flags(message: str) -> str:
    """A refused checkpoint's message with the entries named by their flags (``zero_based (checkpoint: ...``
    becomes ``--zero-based (checkpoint: ...``)."""
    import re

    for name, flag in _FLAGS.items():
        message = re.sub(rf"(?<![\w.-]){name}(?=(\[\d+\])? \(checkpoint: )", flag, message)
    return message


def _not_on_cluster(flag: str, data) -> str:
    """Why ``flag`` is refused for a Dask fit of data that the command reads (``predtron fit`` hands a
    training file to the workers with --stream, --checkpoint or --resume, so this is standard input,
    or a file without those)."""
    if data in ("-", ["-"]) and flag in ("--stream", "--checkpoint", "--resume"):
        return (f"{flag} with --workers/--scheduler needs a training file that the workers read themselves; "
                "standard input ('-') is read by the command: give the file's path")
    if flag == "--cache":
        return "--cache applies to --stream (with --workers/--scheduler: a folder of one cache per training file)"
    return f"{flag} does not combine with a fit on a Dask cluster (--workers/--scheduler)"


def cluster_requested(args) -> bool:
    """Whether ``args`` ask for a Dask fit (``--shards`` or ``--mixing`` alone, or a flag that does not
    combine with a fit on a cluster, is a :class:`~predtron.cli_data.FlagError`)."""
    requested = getattr(args, "workers", None) is not None or getattr(args, "scheduler", None) is not None
    if requested:
        streaming = [flag for flag, value in (("--stream", getattr(args, "stream", False)),
                                              ("--checkpoint", getattr(args, "checkpoint", None)),
                                              ("--resume", getattr(args, "resume", False)),
                                              ("--cache", getattr(args, "cache", None)),
                                              ("--classes", getattr(args, "classes", None)))
                     if value not in (None, False)]
        if streaming:
            raise FlagError(_not_on_cluster(streaming[0], getattr(args, "data", None)))
    else:
        given = [flag for flag, value in (("--shards", getattr(args, "shards", None)),
                                          ("--mixing", getattr(args, "mixing", None)),
                                          ("--mixing-rounds", getattr(args, "mixing_rounds", None)))
                 if value is not None]
        if given:
            raise FlagError(f"{given[0]} applies to a fit on a Dask cluster; add --workers N or --scheduler ADDRESS")
    return requested




@contextlib.contextmanager
def _workers_leave_ctrl_c_to_the_command():
    """Worker processes spawned in the body start with Ctrl-C ignored (POSIX; elsewhere nothing).

    A terminal sends Ctrl-C to its whole foreground process group, the local cluster's worker
    processes included: a worker still starting Python (importing distributed) would print its
    own ``KeyboardInterrupt`` traceback beside the command's one line.  The workers are therefore
    started through a two-line shell script (``multiprocessing.set_executable``) that sets SIGINT
    to be ignored and ``exec``s this interpreter; an ignored signal stays ignored across ``exec``,
    and Python then leaves it so.  The command alone handles the interrupt and closes the cluster,
    whose nannies stop the workers.  The script is tried once first (a temporary folder mounted
    without execution rights keeps the usual start); on exit the previous executable is restored
    and the script removed (by the interrupt handler too, :func:`predtron._files.discard_pending`).
    """
    import multiprocessing
    import multiprocessing.spawn
    import shlex
    import subprocess

    if os.name != "posix" or not Path("/bin/sh").is_file():
        yield
        return
    previous = multiprocessing.spawn.get_executable()
    with temporary_file(prefix="predtron-worker-", suffix=".sh") as script:
        script.write_text(f"#!/bin/sh\ntrap '' INT\nexec {shlex.quote(os.fsdecode(previous))} \"$@\"\n")
        script.chmod(0o700)
        try:
            usable = subprocess.run([str(script), "-c", "pass"], capture_output=True, timeout=60,
                                    check=False).returncode == 0
        except (OSError, subprocess.SubprocessError):
            usable = False
        if usable:
            multiprocessing.set_executable(str(script))
        try:
            yield
        finally:
            multiprocessing.set_executable(previous)


@contextlib.contextmanager
def cluster_client(workers: int | None = None, scheduler: str | None = None):
    """A :class:`distributed.Client` on a new local cluster of ``workers`` processes (closed on
    exit) or on the scheduler at ``scheduler``; distributed's log shows errors only (a worker slow to
    stop at the end is not the user's concern), and a local cluster's workers log nothing below
    critical (a task that fails, say on a malformed line, is reported once, by the command, on one
    line).  A local cluster's workers ignore Ctrl-C, which the command handles
    (:func:`_workers_leave_ctrl_c_to_the_command`)."""
    from distributed import Client, LocalCluster

    logging.getLogger("distributed").setLevel(logging.ERROR)
    if scheduler is not None:
        try:
            client = Client(scheduler)
        except (OSError, ValueError) as exc:  # (a timeout is an OSError; a malformed address a ValueError)
            raise ValueError(f"--scheduler {scheduler}: no Dask scheduler reached there "
                             f"({' '.join(str(exc).split()) or type(exc).__name__})") from None
        with client:
            yield client
        return
    with _workers_leave_ctrl_c_to_the_command(), \
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                         dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL) as cluster, \
            Client(cluster) as client:
        yield client


def shard_bounds(n_rows: int, n_shards: int, group: np.ndarray | None = None) -> list[int]:
    """Row boundaries of ``n_shards`` shards of consecutive rows, as equal as possible; with
    ``group`` (rows per query) every boundary falls between two queries (so there may be fewer
    shards than asked when there are fewer queries)."""
    targets = np.linspace(0, n_rows, n_shards + 1)
    if group is None:
        return sorted({round(t) for t in targets})
    ends = np.concatenate([[0], np.cumsum(group)])
    return sorted({int(ends[np.argmin(np.abs(ends - t))]) for t in targets})


def row_blocks(A, bounds: list[int]):
    """A dask array of the rows of ``A`` (dense or CSR, kept as it is) cut at ``bounds``."""
    import dask
    import dask.array as da

    blocks = [da.from_delayed(dask.delayed(A[a:b]), shape=(b - a, *A.shape[1:]), dtype=A.dtype, meta=A[:0])
              for a, b in itertools.pairwise(bounds)]
    return da.concatenate(blocks, axis=0)


def expand_paths(paths) -> list[str]:
    """The files of ``paths`` (a path, a glob pattern, or a list of them), each pattern's matches
    sorted (an existing file is itself, not a pattern: :func:`is_pattern`); a pattern matching nothing,
    or a path that is not a file, is refused naming it."""
    import glob

    if isinstance(paths, (str, Path)):
        paths = [paths]
    out = []
    for path in paths:
        text = str(path)
        if is_pattern(text):
            matches = sorted(glob.glob(text))
            if not matches:
                raise ValueError(f"paths: the pattern {text!r} matches no file")
            out.extend(matches)
        elif not Path(text).is_file():
            raise ValueError(f"paths: {text!r} is not a file")
        else:
            out.append(text)
    if not out:
        raise ValueError("paths must name at least one file")
    return out


def fit_files_on_cluster(task: str, paths, params: dict, *, workers: int | None = None,
                         scheduler: str | None = None, client=None, mixing: str = "uniform",
                         mixing_rounds: int = 8, file_options: dict | None = None, checkpoint=None,
                         resume: bool = False, progress=None, stream: bool = False, cache=None):
    """Fit the estimator of ``task`` on files that the workers read themselves (one shard per
    file; the command never holds the data); returns the in-memory estimator (``to_local()``).

    Parameters
    ----------
    task : {"classify", "multilabel", "ordinal", "rank"}
        The estimator (``predtron.tasks.TASKS[task].dask_estimator_class``); svmlight files,
        ARFF for ``multilabel``, LETOR for ``rank``.
    paths : path, glob pattern, or list of them
        The training files (:func:`expand_paths`).
    params : dict
        The estimator's parameters.
    workers, scheduler, client
        Where to fit: a new local cluster of ``workers`` processes, the running cluster at
        ``scheduler``, or a given :class:`distributed.Client` (one of them).
    mixing, mixing_rounds
        See the Dask estimators.
    file_options : dict, optional
        Keyword arguments of the reader (``n_features``, ``n_labels``, ...).
    checkpoint, resume, progress
        The mixed parameters after every epoch in the directory ``checkpoint``; continue from
        them (refused, naming the difference, when the files, their content, the read options or
        the parameters differ); ``progress(epoch)`` after every epoch (see the Dask estimators' ``fit``).
    stream, cache
        Every worker reads its file chunk by chunk at every pass instead of holding it (file order:
        ``params`` must not shuffle); ``cache``: a directory for each file's cache of parsed chunks.
    """

    files = expand_paths(paths)
    where = contextlib.nullcontext(client) if client is not None else cluster_client(workers, scheduler)
    with where as active:
        model = TASKS[task].dask_estimator_class(**params, mixing=mixing, mixing_rounds=mixing_rounds, client=active)
        extra = {"stream": True, **({} if cache is None else {"cache": cache})} if stream else {}
        try:
            model.fit(files, file_options=file_options, checkpoint=checkpoint, resume=resume, progress=progress,
                      **extra)
        except ValueError as exc:  # the estimator's and the readers' Python arguments, as the flags that set them
            raise ValueError(flag_message(with_flags(str(exc)))) from None
        return model.to_local()


def fit_on_cluster(task: str, X, y, group, params: dict, *, workers: int | None = None,
                   scheduler: str | None = None, shards: int | None = None, mixing: str | None = None,
                   progress=None, mixing_rounds: int | None = None):
    """Fit the estimator of ``task`` on a Dask cluster; returns the in-memory estimator (``progress(epoch)``
    after every epoch, as the Dask estimators' ``fit`` calls it)."""

    with cluster_client(workers, scheduler) as client:
        n_shards = shards or max(1, len(client.scheduler_info(n_workers=-1)["workers"]))
        bounds = shard_bounds(X.shape[0], n_shards, group)
        Xd, yd = row_blocks(X, bounds), row_blocks(np.asarray(y), bounds)
        rounds = {} if mixing_rounds is None else {"mixing_rounds": mixing_rounds}
        model = TASKS[task].dask_estimator_class(**params, mixing=mixing or "uniform", client=client, **rounds)
        with warnings.catch_warnings():
            # the command read the file itself and ships its shards in the graph, by design: Dask's advice
            # ("Sending large graph ... Consider loading the data with Dask directly") is not the user's to act on
            warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
            if task == "rank":
                model.fit(Xd, yd, group=group, progress=progress)
            else:
                model.fit(Xd, yd, progress=progress)
        return model.to_local()
