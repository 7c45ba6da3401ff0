"""The command line's data files: typed read options, the format of a file, and its reading.

:class:`ReadOptions` holds what the user said about a data file (a frozen dataclass; the
readers never see an argparse namespace).  The format of a file (svmlight/LETOR or ARFF) is
decided once, by :func:`detect_format`, and dispatched once, in ``READERS``: each format has
an in-memory reader (:func:`read`) and a chunked one (:func:`stream_chunks`) over the loaders of
:mod:`predtron.data`, which are imported on first use.  ``survey`` is the one place a
streamed fit learns the number of features and the labels of a file it was not told.

``-`` names standard input: it is copied to a temporary file (removed at the end, or by the
Ctrl-C handler through :func:`discard_spools`), since a fit reads its data more than once.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from predtron.tasks import TASKS

__all__ = [
    "FORMATS",
    "Dataset",
    "ReadOptions",
    "detect_format",
    "discard_spools",
    "flag_message",
    "label_value",
    "local_path",
    "positive_int",
    "read",
    "stream_chunks",
    "survey",
]

FORMATS = ("auto", "svmlight", "arff")
FORMAT_NAMES = {"svmlight": "svmlight", "arff": "ARFF"}
SVMLIGHT_SUFFIXES = (".svm", ".svmlight", ".libsvm", ".letor", ".txt", ".dat")
COMPRESSION_SUFFIXES = (".gz", ".bz2")
STDIN = "-"


@dataclass(frozen=True)
class ReadOptions:
    """How to read a data file (the command line's data options, typed).

    Attributes
    ----------
    format : {"auto", "svmlight", "arff"}
        The file's format (``"auto"``: :func:`detect_format`).
    sparse : bool or None
        Hold the features in a CSR matrix; ``None``: as the file is written (:meth:`layout`).
    zero_based : bool
        svmlight feature indices start at 0.
    group_file : str or None
        Rank: a file of query sizes.
    labels : int or None
        ARFF: how many of the last attributes are labels.
    xml : str or None
        ARFF: a Mulan XML file naming the labels.
    missing : float or None
        ARFF: the value of a missing feature (``None``: an error).
    chunk_rows : int
        Examples per chunk of a streamed read.
    """

    format: str = "auto"
    sparse: bool | None = None
    zero_based: bool = False
    group_file: str | None = None
    labels: int | None = None
    xml: str | None = None
    missing: float | None = None
    chunk_rows: int = 65_536

    def layout(self, fmt: str, streamed: bool, path=None) -> bool:
        """Whether to read the file ``path`` chunk by chunk (``streamed``) or each shard of a cluster
        sparse: as asked, else for svmlight/LETOR (a sparse format) sparse when streamed (dense
        shards), for ARFF as its rows are written (``{index value, ...}`` sparse; dense rows, or no
        file to look at, dense).  A file read whole on this machine follows
        :func:`in_memory_layout` instead, which counts its non-zero values."""
        if self.sparse is not None:
            return self.sparse
        if fmt == "svmlight":
            return streamed
        from predtron.data.mulan import arff_rows_are_sparse

        return path is not None and arff_rows_are_sparse(path)


#: In memory, without ``--sparse``/``--dense``: features with at most this fraction of non-zero
#: values are held sparse (see :func:`in_memory_layout`).
SPARSE_AT_MOST = 0.1


def in_memory_layout(X, sparse: bool | None):
    """The features ``X`` of a file read whole (CSR), in the layout asked (``sparse``), else dense
    unless at most :data:`SPARSE_AT_MOST` of the values are non-zero (or the dense matrix would
    pass the dense size limit).

    The layout also decides the standardisation: a dense matrix is centred and scaled, a sparse
    one only scaled (centring would fill it).  Below a tenth of non-zeros little is lost: a
    feature non-zero in a fraction ``f`` of the rows (with one value) has its mean
    ``sqrt(f / (1 - f))`` standard deviations from zero, a third at ``f = 0.1``.  Measured (test
    split, 2 cores): the text sets (bibtex 3.7% non-zero, tmc2007-500 4.5%) are held sparse, where
    bibtex fits in 1.6 s and 220 MB instead of 8.1 s and 395 MB dense with the same scores
    (Hamming loss 0.0127 / 0.0128, micro-F1 0.4231 / 0.4232); MQ2008 (52%), emotions and yeast
    (all values) stay dense, as data with large offsets need (centring).
    """
    import scipy.sparse as sp

    from predtron.data import opening

    if not sp.issparse(X) or sparse is True:
        return X
    entries = X.shape[0] * X.shape[1]
    if sparse is False or (X.nnz > SPARSE_AT_MOST * entries and entries <= opening.MAX_DENSE_ENTRIES):
        return X.toarray()
    return X


class Dataset(NamedTuple):
    """What a command needs from a data file: features, labels and (ranking) the query sizes."""

    X: object
    y: object
    group: object


def positive_int(text: str) -> int:
    """An argparse ``type``: a whole number ``>= 1`` (counts of rows, workers, shards)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1; got {text!r}")
    if value > _MAX_COUNT:
        raise argparse.ArgumentTypeError(f"expected a whole number <= {_MAX_COUNT}; got {text!r}")
    return value


#: The largest count :func:`positive_int` accepts (rows, workers, shards are held in 32-bit integers or less).
_MAX_COUNT = 2**31 - 1


def label_value(text: str) -> int | float | str:
    """A label typed on the command line: an int or a float if it reads as one, else the text, which
    must be a non-empty word on one line (``predict`` writes one label per line: an empty label
    would be a blank line, one with a line break two lines)."""
    if not text.strip() or text.splitlines() != [text]:
        raise argparse.ArgumentTypeError(f"a label is written on a line of its own by predict: it must not be "
                                         f"empty, blank or hold a line break; got {text!r}")
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


# ------------------------------------------------------------------ messages
#: The loaders' advice when a dense matrix would be too large.
_DENSE_ADVICE = r"pass sparse=True for a scipy CSR matrix"

#: The loaders' advice in Python terms, and the same in the command line's.
_FLAG_ADVICE: tuple[tuple[str, str], ...] = (
    (r"pass group=\[\.\.\.\] or group_file=\.\.\.", "pass --group-file FILE"),
    (r"pass a file of group sizes as group_file= ?", "pass --group-file FILE"),
    (r"pass zero_based=True", "pass --zero-based"),
    (r"pass n_features, or a larger max_features if the file really has that many features",
     "pass --n-features N if the file really has that many features"),
    (r"a larger max_features", "a larger --n-features"),
    (r"max_features = (\d+)", r"the reader's limit of \1 features"),
    (r"pass n_features\b", "pass --n-features N"),
    (r"pass file_options=\{'n_features': \.\.\.\}", "pass --n-features N"),
    (r"pass missing=<number>", "pass --missing VALUE"),
    (r"^missing must be a finite real number", "--missing must be a finite number"),
    (r"^missing must be", "--missing must be"),
    (r"^n_labels must", "--labels must"),
    (r"^n_labels = (\d+) but (.*) names (\d+) labels$", r"--labels \1 but --xml \2 names \3 labels"),
    (_DENSE_ADVICE, "pass --sparse to hold the features in a sparse matrix, or --stream to read the file in "
                    "chunks"),
)


def flag_message(text: str) -> str:
    """A loader's message with its advice in terms of the command line's flags."""
    for pattern, replacement in _FLAG_ADVICE:
        text = re.sub(pattern, replacement, text)
    return text


class CommandError(Exception):
    """Bad input found by the command line itself (printed on one line by ``predtron.cli.main``,
    exit status 1)."""


class FlagError(CommandError):
    """Flags that contradict each other (``--resume`` without ``--checkpoint``, ``--cache`` without
    ``--stream``, ...), or a flag value no file can make right: a usage error, wrong whatever the
    data, refused before any data file is read and printed by ``predtron.cli.main`` as the
    parser prints its errors (``predtron CMD: error: MESSAGE (see 'predtron CMD --help')``, exit
    status 2)."""


class DataError(ValueError):
    """A data file the command cannot read (its message names flags, not Python arguments)."""


@contextlib.contextmanager
def _flags_in_errors(streamed: bool = False, options: ReadOptions | None = None) -> Iterator[None]:
    """A loader's ``ValueError`` as a :class:`DataError` in the command line's terms (``streamed``: the
    file is read in chunks, so a dense matrix too large is a chunk, not the file; ``options``: the
    files of ``--group-file`` and ``--xml`` are named with their flags)."""
    try:
        yield
    except (ValueError, FileNotFoundError) as exc:
        text = str(exc)
        side = {} if options is None else {"--group-file": options.group_file, "--xml": options.xml}
        for flag, given in side.items():
            for named in dict.fromkeys((str(given), str(Path(given))) if given is not None else ()):
                text = text.replace(f"the group sizes in {named}", f"{flag} {given}")  # (as the loaders name it)
                if text.startswith((f"{named},", f"{named}:", f"{named} ")):
                    text = f"{flag} {given}{text[len(named):]}"
                elif text.endswith(f": {named}") and flag not in text:  # ('... file not found: FILE')
                    text = f"{text} ({flag})"
        if streamed:
            text = re.sub(_DENSE_ADVICE, "pass --sparse (the default of --stream), or a smaller --chunk-rows (each "
                                         "chunk is one such matrix)", text)
        raise DataError(flag_message(text)) from None


# ------------------------------------------------------------------ standard input
_SPOOLS: list[str] = []


def local_path(path) -> str:
    """``path``, or for ``-`` a temporary copy of standard input (removed by :func:`discard_spools`)."""
    if str(path) != STDIN:
        return str(path)
    descriptor, name = tempfile.mkstemp(prefix="predtron-stdin-")
    _SPOOLS.append(name)
    with os.fdopen(descriptor, "wb") as out:
        shutil.copyfileobj(sys.stdin.buffer, out, 1 << 20)
    return name


def spool_names() -> list[str]:
    """The temporary copies of standard input made by :func:`local_path` and not yet removed."""
    return list(_SPOOLS)


def discard_spools() -> None:
    """Remove the copies of standard input."""
    while _SPOOLS:
        with contextlib.suppress(OSError):
            os.unlink(_SPOOLS.pop())


# ------------------------------------------------------------------ formats
def check_data_file(path) -> Path:
    """``path`` after checking it names a regular file (message: ``data file not found: ...``)."""
    from predtron.data.opening import missing_file

    given, path = path, Path(path)
    if not path.exists():
        raise missing_file("data", given)
    if path.is_dir():
        raise ValueError(f"data path is not a regular file: {path} is a folder")
    if not path.is_file():  # a pipe (``<(...)``, ``/dev/stdin``) or a device: a command reads its data more than once
        raise ValueError(f"data path is not a regular file: {path} is a pipe or a device, which can be read only "
                         "once; give a file, or '-' to read standard input (cat FILE | predtron ... -)")
    return path


def detect_format(path, requested: str = "auto") -> str:
    """``"svmlight"`` or ``"arff"``: ``requested`` unless ``"auto"``, else by extension, else by content."""
    if requested != "auto":
        return requested
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] in COMPRESSION_SUFFIXES:
        suffixes.pop()
    if suffixes and suffixes[-1] == ".arff":
        return "arff"
    if suffixes and suffixes[-1] in SVMLIGHT_SUFFIXES:
        return "svmlight"
    return _sniff(path)


def _sniff(path) -> str:
    """ARFF if the first line that is not blank or a comment starts with ``@``, else svmlight."""
    from predtron.data.opening import DECOMPRESSION_ERRORS, open_binary

    try:
        with open_binary(Path(path)) as handle:
            for raw in handle:
                text = raw.strip()
                if text and not text.startswith((b"%", b"#")):
                    return "arff" if text.startswith(b"@") else "svmlight"
    except DECOMPRESSION_ERRORS as exc:
        if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError):
            raise
    return "svmlight"  # the svmlight reader reports an empty or unreadable file


def mulan_xml(path) -> Path | None:
    """A Mulan XML file beside the ARFF file ``path`` (``emotions.xml`` for ``emotions-train.arff.gz``)."""
    name = Path(path).name
    stem = re.sub(r"(\.arff)?(\.gz|\.bz2)?$", "", name, flags=re.IGNORECASE)
    for candidate in dict.fromkeys([stem, re.sub(r"[-_.](train|test|tra|tst)$", "", stem, flags=re.IGNORECASE)]):
        xml = Path(path).with_name(candidate + ".xml")
        if xml.is_file():
            return xml
    return None


def check_format(path, task: str, options: ReadOptions) -> str:
    """The format of ``path`` after checking it suits ``task`` and the options; one message per mismatch
    (a missing data file is named as such first: its extension alone would give it a format)."""
    check_data_file(path)
    fmt = detect_format(path, options.format)
    expected = TASKS[task].format
    if fmt != expected:
        what = "ARFF files" if expected == "arff" else "svmlight/LETOR files"
        raise ValueError(f"{path} is read as {FORMAT_NAMES[fmt]}, but {task} data are read from {what} "
                         f"(pass --format {expected} if it is one)")
    arff_only = [flag for flag, value in (("--labels", options.labels), ("--xml", options.xml),
                                          ("--missing", options.missing)) if value is not None]
    if fmt != "arff" and arff_only:
        raise ValueError(f"{arff_only[0]} applies to ARFF files; {path} is read as svmlight")
    if options.group_file is not None and not TASKS[task].queries:
        raise ValueError(f"--group-file applies to the rank task, not {task}")
    if fmt == "arff" and options.zero_based:
        raise ValueError(f"--zero-based applies to svmlight files; {path} is read as ARFF")
    return fmt


def _arff_labels(path, options: ReadOptions, n_labels: int | None) -> tuple[int | None, str | None]:
    """``(labels, xml)`` for an ARFF file: the options, else a Mulan XML file beside it (the file's own
    account of which attributes are labels, wherever they stand, as ``fit`` reads it), else the model's
    count ``n_labels`` (the last attributes).  An XML file beside the file that names another number of
    labels than the model's is refused, naming both."""
    if options.labels is not None or options.xml is not None:
        return options.labels, options.xml
    xml = mulan_xml(path)
    if xml is not None:
        if n_labels is not None:
            _check_labels_beside(path, xml, n_labels)
        return None, str(xml)
    if n_labels is not None:
        return n_labels, None
    from predtron.data.mulan import mulan_xml_names

    beside = ("" if str(path) in _SPOOLS else  # (standard input has no folder to hold one)
              f"; found by itself when it sits beside the data as {' or '.join(mulan_xml_names(path))}")
    raise ValueError(f"{path} is an ARFF file: give --labels N (how many of the last attributes are labels) or "
                     f"--xml FILE (a Mulan file naming them{beside})")


def _check_labels_beside(path, xml: Path, n_labels: int) -> None:
    """Refuse the Mulan XML file ``xml`` found beside the ARFF file ``path`` when it names another number of
    labels than the model's ``n_labels``."""
    from predtron.data.mulan import read_mulan_xml

    named = len(read_mulan_xml(xml))
    if named != n_labels:
        raise ValueError(f"{xml}, the Mulan XML file beside {path}, names {named} label{'s' * (named != 1)}, but "
                         f"the model was fitted with {n_labels}: pass --xml FILE (the file naming its labels) or "
                         f"--labels {n_labels} (the last {n_labels} attributes are labels)")


def arff_feature_names(path, options: ReadOptions, n_labels: int | None = None) -> list[str] | None:
    """The feature attributes of the ARFF file ``path``, in order, read from its header (and its first
    row), or ``None`` when it has no data row."""
    from predtron.data.mulan import iter_arff

    labels, xml = _arff_labels(path, options, n_labels)
    missing = "error" if options.missing is None else options.missing
    with _flags_in_errors(options=options):
        first = next(iter_arff(path, labels, xml=xml, missing=missing, chunk_rows=1), None)
    return None if first is None else list(first.feature_names)


# ------------------------------------------------------------------ in memory
def _read_svmlight(path, task: str, options: ReadOptions, n_features, n_labels, need_groups) -> Dataset:
    from predtron.data import load_letor, load_svmlight

    sparse = options.sparse is not False  # read sparse unless --dense, then choose (in_memory_layout)
    if TASKS[task].queries and need_groups:
        data = load_letor(path, group_file=options.group_file, n_features=n_features, sparse=sparse,
                          zero_based=options.zero_based)
        return Dataset(in_memory_layout(data.X, options.sparse), data.y, data.group)
    data = load_svmlight(path, n_features=n_features, sparse=sparse, zero_based=options.zero_based)
    return Dataset(in_memory_layout(data.X, options.sparse), as_labels(data.y), None)


def _read_arff(path, task: str, options: ReadOptions, n_features, n_labels, need_groups) -> Dataset:
    from predtron.data import load_arff

    labels, xml = _arff_labels(path, options, n_labels)
    missing = "error" if options.missing is None else options.missing
    data = load_arff(path, labels, xml=xml, sparse=options.sparse is not False, missing=missing)
    if n_features is not None and data.X.shape[1] != n_features:
        raise ValueError(f"{path} has {data.X.shape[1]} features, but {n_features} are expected (the training data's)")
    return Dataset(in_memory_layout(data.X, options.sparse), data.Y, None)


# ------------------------------------------------------------------ in chunks
def _stream_svmlight(path, task: str, options: ReadOptions, n_features, n_labels, need_groups, cache, on_progress):
    from predtron.data.stream import iter_letor, iter_svmlight, prefetch

    common = {"chunk_rows": options.chunk_rows, "sparse": options.layout("svmlight", True, path),
              "n_features": n_features, "zero_based": options.zero_based, "cache": cache, "on_progress": on_progress}
    if TASKS[task].queries and need_groups:
        for chunk in prefetch(iter_letor(path, group_file=options.group_file, **common)):
            yield chunk.X, chunk.y, {"group": chunk.group}
    else:
        for chunk in prefetch(iter_svmlight(path, **common)):
            yield chunk.X, chunk.y, {}


def _stream_arff(path, task: str, options: ReadOptions, n_features, n_labels, need_groups, cache, on_progress):
    from predtron.data.mulan import iter_arff
    from predtron.data.stream import prefetch

    if cache is not None:
        raise ValueError("--cache applies to svmlight files; an ARFF file is parsed at every epoch")
    labels, xml = _arff_labels(path, options, n_labels)
    missing = "error" if options.missing is None else options.missing
    chunks = iter_arff(path, labels, xml=xml, missing=missing, chunk_rows=options.chunk_rows,
                       sparse=options.layout("arff", True, path))
    for chunk in prefetch(chunks):
        if n_features is not None and chunk.X.shape[1] != n_features:
            raise ValueError(f"{path} has {chunk.X.shape[1]} features, but {n_features} are expected (the "
                             "training data's)")
        yield chunk.X, chunk.Y, {}


class _Reader(NamedTuple):
    whole: Callable
    chunks: Callable


#: The one dispatch on the format: its in-memory reader and its chunked reader.
READERS: dict[str, _Reader] = {"svmlight": _Reader(_read_svmlight, _stream_svmlight),
                               "arff": _Reader(_read_arff, _stream_arff)}


def read(path, task: str, options: ReadOptions, *, n_features: int | None = None, n_labels: int | None = None,
         need_groups: bool = True) -> Dataset:
    """Read a data file for ``task`` into memory.

    ``n_features`` fixes the number of feature columns (a model's); ``n_labels`` is the default
    number of ARFF label columns (a model's); ``need_groups`` is False where the queries of a
    ranking file are not needed (``predict``).
    """
    check_data_file(path)
    fmt = check_format(path, task, options)
    with _flags_in_errors(options=options):
        return READERS[fmt].whole(path, task, options, n_features, n_labels, need_groups)


def stream_chunks(path, task: str, options: ReadOptions, n_features: int | None = None, *, cache=None,
                  need_groups: bool = True, on_progress=None, n_labels: int | None = None):
    """The chunks of a data file for ``task``: ``(X, y, keywords)`` triples (``group`` for rank), read one
    chunk ahead in a background thread."""
    fmt = check_format(path, task, options)
    with _flags_in_errors(streamed=True, options=options):
        yield from READERS[fmt].chunks(path, task, options, n_features, n_labels, need_groups, cache, on_progress)


def survey(path, task: str, options: ReadOptions, *, cache=None, on_progress=None, n_features: int | None = None):
    """What a streamed fit must know before its first chunk: ``(n_features, labels, n_rows)``;
    ``labels`` are the sorted distinct labels for the tasks whose streamed fit needs its classes
    (else ``None``).

    This is the one place the command line reads a training file before fitting it.  An
    svmlight/LETOR file is not parsed: :func:`predtron.data.scan_labels` reads each line's label
    and last feature index from the bytes (several times faster than a parse; the fit's first
    epoch then parses the file, and reports any malformed line).  Another format is parsed once
    (and cached when ``cache`` is given).  Giving ``--n-features`` and ``--classes`` skips it; given
    ``n_features`` alone (``--n-features``), the file is surveyed for its labels only, and neither a
    file without feature values nor an index beyond the guard against absurd ones is refused here
    (the reading pass refuses an index beyond ``n_features``, with its line).
    """
    import numpy as np

    fmt = check_format(path, task, options)
    if fmt == "svmlight":
        from predtron.data import scan_labels

        with _flags_in_errors(options=options):
            scan = scan_labels(path, zero_based=bool(options.zero_based))
        if on_progress is not None:
            on_progress(Path(path).stat().st_size)
        width, rows = scan.n_features, scan.n_rows
        labels = scan.labels if TASKS[task].classes else None
        from predtron.data.svmlight import MAX_FEATURES

        if width > MAX_FEATURES and n_features is None:  # the in-memory reader's guard against an absurd index
            raise DataError(f"{path}: the largest feature index gives {width} features, beyond the guard of "
                            f"{MAX_FEATURES} against absurd indices; pass --n-features if the file really has that "
                            "many features (an index beyond it is then reported with its line)")
    else:
        width, found, rows = 0, [], 0
        for X, y, _ in stream_chunks(path, task, options, None, cache=cache, on_progress=on_progress):
            width = max(width, X.shape[1])
            rows += len(y)
            if TASKS[task].classes:
                found.append(np.unique(y))
        labels = np.unique(np.concatenate(found)) if found else None
    if width == 0 and n_features is None:  # (given, --n-features is the width: the labels were surveyed)
        if fmt == "svmlight":  # no index read, but a line may hold a malformed one ('-1:1'): the parse names it
            for _ in stream_chunks(path, task, options, None, cache=cache):
                pass
        raise ValueError(f"{path}: no line gives a feature value, so the number of features is unknown; pass "
                         "--n-features")
    return width, labels, rows


def locate_large_value(path, task: str, options: ReadOptions, n_features: int | None = None,
                       n_labels: int | None = None) -> str | None:
    """Where the data file ``path`` holds its first feature value beyond the estimators' limit
    (:data:`predtron._validation.MAX_ABS_INPUT`), as a message: the file, the line (svmlight; the
    example for ARFF), the feature and the value; ``None`` if no value is beyond it.

    For the message of a command that an estimator refused for such a value (it sees an array,
    not the file): the file is read again, in chunks, only on that path.
    """
    import numpy as np

    from predtron._validation import MAX_ABS_INPUT
    from predtron.data.opening import where

    fmt = check_format(path, task, options)
    first_row = 0
    with _flags_in_errors(options=options):
        for X, names, lines in _located_chunks(path, fmt, options, n_features, n_labels):
            X = X.tocsr()
            beyond = np.flatnonzero(np.abs(X.data) > MAX_ABS_INPUT)
            if beyond.size:
                at = int(beyond[0])
                row = int(np.searchsorted(X.indptr, at, side="right")) - 1
                column = int(X.indices[at])
                place = where(path, int(lines[row])) if lines is not None else f"{path}, example {first_row + row + 1}"
                feature = (f"feature {column + (0 if options.zero_based else 1)}" if names is None
                           else f"feature {names[column]!r}")
                return (f"{place}: {feature} has the value {X.data[at]:.6g}, beyond {MAX_ABS_INPUT:g} in magnitude "
                        "(scores are sums of products of the features and would overflow float64): rescale it")
            first_row += X.shape[0]
    return None


def _located_chunks(path, fmt: str, options: ReadOptions, n_features, n_labels):
    """``(X, feature_names, lines)`` of the chunks of ``path`` read sparse: an svmlight chunk's line
    numbers (no names), an ARFF chunk's feature names (no line numbers)."""
    if fmt == "svmlight":
        from predtron.data.stream import iter_svmlight

        for chunk in iter_svmlight(path, n_features=n_features, zero_based=options.zero_based,
                                   chunk_rows=options.chunk_rows):
            yield chunk.X, None, chunk.lines
        return
    from predtron.data.mulan import iter_arff

    labels, xml = _arff_labels(path, options, n_labels)
    missing = "error" if options.missing is None else options.missing
    for chunk in iter_arff(path, labels, xml=xml, missing=missing, chunk_rows=options.chunk_rows):
        yield chunk.X, chunk.feature_names, None


def as_labels(y):
    """svmlight labels (read as floats) as integers when they all are whole numbers."""
    import numpy as np

    if y.size and np.all(y == np.round(y)) and np.all(np.abs(y) < 2**53):
        return y.astype(np.int64)
    return y
