"""Streaming readers: svmlight / LETOR files (plain, gzip or bz2) in chunks of whole examples.

The loaders of :mod:`predtron.data` read a whole file into memory; the functions here read it
a chunk at a time, so that a learner's ``partial_fit`` (or a Dask worker) can go over files
larger than memory with memory bounded by the chunk size:

* :func:`iter_svmlight` -- chunks of at most ``chunk_rows`` examples (``queries=True``: never
  splitting a run of equal ``qid:``);
* :func:`iter_letor` -- learning-to-rank chunks of whole queries, from ``qid:`` fields or
  from group sizes (a ``.query`` / ``.group`` sidecar, ``group_file`` or ``group``), with the
  checks of :func:`~predtron.data.load_letor` (relevance grades, contiguous queries);
* :func:`~predtron.data.mulan.iter_arff` (in :mod:`predtron.data.mulan`) -- multilabel ARFF
  files in chunks of rows;
* :func:`prefetch` -- any of these read one chunk ahead in a background thread;
* :func:`scan_labels` -- the labels, the row count and the width of an svmlight / LETOR file in a
  fraction of a parse (what a learner must know before its first ``partial_fit``).

Every chunk equals the corresponding rows of the in-memory loader (same values bit for bit,
same ``qid``, same line numbers; ``tests/test_stream.py`` compares them), and every malformed
line raises the loader's ``ValueError`` naming the file and the line.  A file that ends inside
its compressed stream (a truncated ``.gz``) is reported with the last line read.

The parser (:mod:`predtron.data._svmlight_parse`, shared with the in-memory loader) parses a
chunk of lines at a time with a compiled kernel over blocks of bytes, on two threads for a
large buffer, and :func:`prefetch` parses the next chunk while the caller learns on the
current one (so a streamed fit uses both cores of a small machine);
``benchmarks/streaming.py`` and ``benchmarks/reader_checks.py`` measure the speed.

Chunks hold CSR matrices by default (``sparse=True``); ``sparse=False`` gives dense arrays.
Without ``n_features`` a chunk is as wide as its own largest feature index, as a file read
by the loader; pass ``n_features`` whenever chunks must agree (a learner needs it).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import queue
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from predtron._validation import check_int
from predtron.data import _svmlight_kernel as kernel
from predtron.data._svmlight_parse import BLOCK_BYTES, BOM, PIECES, _Block, _chunks, _Reader, every_row
from predtron.data._svmlight_rules import _limit, _line_problem
from predtron.data.cache import DamagedCache, check_cache_path, read_cache, write_cache
from predtron.data.layout import check_group_sizes
from predtron.data.letor import (
    _check_relevance,
    _sizes_against_rows,
    check_sizes_cover_rows,
    check_sizes_match_queries,
    find_sidecar,
    read_group_file,
    size_source,
)
from predtron.data.opening import check_file, show, where
from predtron.data.svmlight import MAX_FEATURES, _check_reader_options, check_flag, rows_matrix

__all__ = ["DEFAULT_CHUNK_ROWS", "LabelScan", "LetorChunk", "SvmlightChunk", "iter_letor", "iter_svmlight", "prefetch",
           "scan_labels"]

#: Default number of examples per chunk.
DEFAULT_CHUNK_ROWS = 65_536

class SvmlightChunk(NamedTuple):
    """Consecutive examples of an svmlight file.

    Attributes
    ----------
    X : scipy.sparse.csr_matrix or ndarray of shape (n_rows, n_features)
        The features (explicit zeros are not stored in CSR, as the loader does).
    y : ndarray of float64, shape (n_rows,)
        The labels as written.
    qid : ndarray of int64 or None
        The ``qid:`` of each row (``None`` for a file without).
    lines : ndarray of int64
        The line number (1-based) of each row in the file.
    """

    X: sp.csr_matrix | np.ndarray
    y: np.ndarray
    qid: np.ndarray | None
    lines: np.ndarray


class LetorChunk(NamedTuple):
    """Whole queries of a learning-to-rank file, in the flat layout of
    :class:`~predtron.data.LetorData`: ``X``, integer grades ``y``, ``qid`` per row, ``group``
    (rows per query, summing to the chunk's rows) and the line number of each row."""

    X: sp.csr_matrix | np.ndarray
    y: np.ndarray
    qid: np.ndarray
    group: np.ndarray
    lines: np.ndarray


def _check_options(path, chunk_rows, sparse, zero_based, n_features, max_features):
    path, sparse, zero_based, n_features, max_features = _check_reader_options(
        path, sparse, zero_based, n_features, max_features)
    chunk_rows = check_int(chunk_rows, "chunk_rows", minimum=1)
    return path, chunk_rows, sparse, zero_based, n_features, max_features


def _to_chunk(path, raw: dict, n_features: int | None, sparse: bool, zero_based: bool) -> SvmlightChunk:
    return SvmlightChunk(rows_matrix(path, raw, n_features, sparse, zero_based), raw["y"], raw.get("qid"),
                         raw["lines"])


#: The arrays of a raw chunk (what the parser gives and the cache stores) and their dtypes.
_RAW = {"values": np.float64, "indices": np.int32, "indptr": np.int64, "y": np.float64, "lines": np.int64,
        "qid": np.int64}


def _check_raw(raw: dict, columns: int, previous: dict | None = None) -> None:
    """Refuse (:class:`~predtron.data.cache.DamagedCache`) a cached chunk whose arrays are not CSR rows
    the parser could have made: names, dtypes, lengths, offsets and column indices (checked before
    any matrix is built on them, so a damaged cache cannot make scipy read outside an array), and,
    given the ``previous`` chunk, the arrays it holds and the order of the lines (each chunk holds
    the lines after those of the one before it: chunks swapped or repeated are refused)."""
    names = set(raw)
    if not (names <= set(_RAW) and names >= set(_RAW) - {"qid"}) or any(
            raw[name].dtype != _RAW[name] or raw[name].ndim != 1 for name in names):
        raise DamagedCache("a cached chunk does not hold the parser's arrays")
    if previous is not None and names != set(previous):
        raise DamagedCache("a cached chunk holds other arrays than the chunk before it")
    rows, indptr, nnz, lines = raw["y"].size, raw["indptr"], raw["values"].size, raw["lines"]
    if (indptr.size != rows + 1 or lines.size != rows or raw["indices"].size != nnz
            or ("qid" in raw and raw["qid"].size != rows) or indptr[0] != 0 or indptr[-1] != nnz
            or np.any(indptr[1:] < indptr[:-1])
            or (nnz and (int(raw["indices"].min()) < 0 or int(raw["indices"].max()) >= columns))):
        raise DamagedCache("a cached chunk's CSR arrays are inconsistent")
    last = 0 if previous is None or not previous["lines"].size else int(previous["lines"][-1])
    if rows and (int(lines[0]) <= last or np.any(lines[1:] <= lines[:-1])):
        raise DamagedCache("a cached chunk's lines do not follow those of the chunk before it")


def _cached(path: Path, cache: Path | None, options: dict, parse: Callable[[dict | None], Iterator[dict]],
            on_progress: Callable[[int], None] | None, columns: int) -> Iterator[dict]:
    """The raw chunks of ``parse(identity)``, read from the cache file ``cache`` when it is valid for
    ``path`` (same bytes) and ``options``, else parsed and written to it (committed after a complete
    pass; ``parse`` fills ``identity`` with the source's size and hash when its last chunk is out).
    A cache found damaged while it is read is rebuilt: the file is parsed again, and the chunks
    already yielded are skipped."""
    if cache is None:
        yield from parse(None)
        return
    done, previous = 0, None
    chunks = read_cache(cache, options, path)
    if chunks is not None:
        try:
            for raw in chunks:
                _check_raw(raw, columns, previous)
                previous = raw
                if on_progress is not None:
                    on_progress(sum(a.nbytes for a in raw.values()))
                yield raw
                done += 1
            return
        except DamagedCache as exc:
            warnings.warn(f"{cache}: {exc}; the cache is rebuilt from {path}", RuntimeWarning, stacklevel=3)
        finally:
            chunks.close()
    identity: dict = {}
    for number, raw in enumerate(write_cache(cache, options, parse(identity), lambda: identity)):
        if number >= done:
            yield raw


def _cut_at(ends: np.ndarray, rows: int, complete: bool, chunk_rows: int) -> int:
    """Rows to emit given the query ends (row counts, increasing) within the ``rows`` parsed: the
    last end within ``chunk_rows``, else the first end (one long query), else all rows when the
    file is done, else 0 (read on)."""
    if complete:
        ends = np.append(ends[ends < rows], rows)
    fit = ends[ends <= chunk_rows]
    if fit.size:
        return int(fit[-1])
    return int(ends[0]) if ends.size else 0


def _cut_queries(block: _Block, rows: int, complete: bool, chunk_rows: int) -> int:
    """Whole runs of equal ``qid`` (all rows for a file without ``qid:``)."""
    if block.qid is None:
        return rows
    qid = block.qid[:rows]
    return _cut_at(np.flatnonzero(qid[1:] != qid[:-1]) + 1, rows, complete, chunk_rows)


def iter_svmlight(path, *, chunk_rows: int = DEFAULT_CHUNK_ROWS, sparse: bool = True, n_features: int | None = None,
                  zero_based: bool = False, max_features: int | None = MAX_FEATURES, queries: bool = False, cache=None,
                  on_progress: Callable[[int], None] | None = None) -> Iterator[SvmlightChunk]:
    """Read an svmlight / LibSVM file in chunks of whole examples, in file order.

    Parameters
    ----------
    path : str or path-like
        The file; gzip and bz2 compression are recognised by content and decompressed as
        the file is read.
    chunk_rows : int, default :data:`DEFAULT_CHUNK_ROWS`
        Examples per chunk (the last chunk may be shorter; with ``queries=True`` a chunk
        ends at the last query boundary before ``chunk_rows``, or holds one query longer
        than that).
    sparse : bool, default True
        CSR chunks (``False``: dense arrays).
    n_features : int, optional
        Width of every chunk; an index beyond it is an error.  Default: each chunk as wide as
        its largest index (pass it whenever chunks must agree).
    zero_based, max_features
        As for :func:`~predtron.data.load_svmlight`.
    queries : bool, default False
        Never split a run of lines with equal ``qid:`` across chunks.
    cache : str or path-like, optional
        A cache file of the parsed chunks (:mod:`predtron.data.cache`): read instead of the
        file when it was built from the same bytes (size and SHA-256 of the file, checked at
        each use) with the same options, and its chunks match their checksums; else rebuilt by
        this pass (written when the pass completes).  It must not be the data file (or any
        input) under any name, and an existing file there must be a cache: both are refused
        with a ``ValueError`` before anything is read or written.
    on_progress : callable, optional
        Called with the number of (compressed) file bytes read since its previous call (cache
        bytes when the cache is read).

    Yields
    ------
    SvmlightChunk
        ``X``, ``y``, ``qid`` (or ``None``) and the line number of each row.

    Raises
    ------
    ValueError
        For the first malformed line (file, line and rule, as the loader says), a file that
        ends inside its compressed data (with the last line read), or a file without data.
    """
    path, chunk_rows, sparse, zero_based, n_features, max_features = _check_options(
        path, chunk_rows, sparse, zero_based, n_features, max_features)
    queries = check_flag(queries, "queries")
    cache = check_cache_path(cache, {"path": path})
    cut = _cut_queries if queries else every_row
    options = {"reader": "svmlight", "chunk_rows": chunk_rows, "zero_based": zero_based, "n_features": n_features,
               "max_features": max_features, "queries": queries}
    raw = _cached(path, cache, options,
                  lambda identity: _chunks(path, chunk_rows, zero_based, n_features, max_features, cut, on_progress,
                                           identity),
                  on_progress, _limit(n_features, max_features).columns)
    return (_to_chunk(path, chunk, n_features, sparse, zero_based) for chunk in raw)


def iter_letor(path, *, group=None, group_file=None, chunk_rows: int = DEFAULT_CHUNK_ROWS, sparse: bool = True,
               n_features: int | None = None, zero_based: bool = False, max_features: int | None = MAX_FEATURES,
               cache=None, on_progress: Callable[[int], None] | None = None) -> Iterator[LetorChunk]:
    """Read a learning-to-rank file in chunks of whole queries (never a query split across chunks).

    Queries come from ``qid:`` on every line, else from ``group`` sizes, ``group_file`` or a
    ``.query`` / ``.group`` sidecar beside the file, as in :func:`~predtron.data.load_letor`,
    with its checks: relevance grades are whole numbers ``>= 0``; a query's lines are
    contiguous (a ``qid`` seen again after other queries is an error naming both lines);
    given sizes must match the ``qid:`` runs and sum to the number of rows.  Other parameters
    (``cache`` included) as in :func:`iter_svmlight`.

    Yields
    ------
    LetorChunk
        ``X``, integer ``y``, ``qid`` per row (the query's position when the sizes come from
        ``group``), ``group`` sizes and line numbers.
    """
    path, chunk_rows, sparse, zero_based, n_features, max_features = _check_options(
        path, chunk_rows, sparse, zero_based, n_features, max_features)
    if group is not None and group_file is not None:
        raise ValueError("give at most one of group (an array of sizes) and group_file (a path)")
    if group_file is None and group is None:
        group_file = find_sidecar(path)
    cache = check_cache_path(cache, {"path": path, "group_file": group_file})
    sizes = None
    if group_file is not None:
        sizes = read_group_file(group_file)
    elif group is not None:
        sizes = check_group_sizes(group, name="group")
    options = {"reader": "letor", "chunk_rows": chunk_rows, "zero_based": zero_based, "n_features": n_features,
               "max_features": max_features,
               "sizes": None if sizes is None else hashlib.sha256(sizes.tobytes()).hexdigest()}
    return _letor_chunks(path, sizes, group_file, chunk_rows, sparse, zero_based, n_features, max_features,
                         cache, options, on_progress)


def _letor_chunks(path, sizes, group_file, chunk_rows, sparse, zero_based, n_features, max_features, cache, options,
                  on_progress):
    source = size_source(group_file)
    bounds = None if sizes is None else np.cumsum(sizes)
    state = {"done": 0, "query": 0, "qid": False}
    first_line: dict[int, int] = {}

    def cut(block: _Block, rows: int, complete: bool, chunk_rows: int) -> int:
        if block.qid is not None:
            return _cut_queries(block, rows, complete, chunk_rows)
        if bounds is None:
            raise ValueError(f"{path} has no qid: on its lines and no group sizes were given; pass group=[...] "
                             f"or group_file=..., or put the sizes, one per line, in {path}.query")
        total = state["done"] + rows
        if complete:
            check_sizes_cover_rows(path, source, sizes, total)
        ends = bounds[state["query"]:np.searchsorted(bounds, total, side="right")] - state["done"]
        return _cut_at(ends, rows, False, chunk_rows)

    raw = _cached(path, cache, options,
                  lambda identity: _chunks(path, chunk_rows, zero_based, n_features, max_features, cut, on_progress,
                                           identity),
                  on_progress, _limit(n_features, max_features).columns)
    for chunk in (_to_chunk(path, chunk, n_features, sparse, zero_based) for chunk in raw):
        y = _check_relevance(path, chunk.y, chunk.lines)
        n = len(y)
        if chunk.qid is None:
            stop = np.searchsorted(bounds, state["done"] + n, side="right")
            group = sizes[state["query"]:stop].copy()
            qid = np.repeat(np.arange(state["query"], stop, dtype=np.int64), group)
            state["query"] = int(stop)
        else:
            qid = chunk.qid
            starts = np.flatnonzero(np.concatenate([[True], qid[1:] != qid[:-1]]))
            for start in starts.tolist():
                q = int(qid[start])
                if q in first_line:
                    raise ValueError(
                        f"{where(path, int(chunk.lines[start]))}: query {q} continues here after lines of other "
                        f"queries (it starts at line {first_line[q]}); the lines of a query must be contiguous: "
                        "sort the file by qid, keeping the order within each query (e.g. `sort -s -t: -k2,2n FILE`)")
                first_line[q] = int(chunk.lines[start])
            group = np.diff(np.append(starts, n)).astype(np.int64)
            if bounds is not None:
                check_sizes_match_queries(path, source, sizes, state["query"], group, chunk.lines[starts],
                                          complete=False)
                state["query"] += group.size
            state["qid"] = True
        state["done"] += n
        yield LetorChunk(chunk.X, y, qid, group, chunk.lines)
    if bounds is not None and chunk_rows and state["query"] != sizes.size:
        if state["qid"]:
            check_sizes_match_queries(path, source, sizes, state["query"], np.zeros(0, np.int64), np.zeros(0, np.int64),
                                      complete=True)
        raise ValueError(_sizes_against_rows(path, source, sizes, state["done"]))


class LabelScan(NamedTuple):
    """What :func:`scan_labels` finds in an svmlight / LETOR file.

    Attributes
    ----------
    labels : ndarray of float64
        The distinct labels, sorted (``-0.0`` and ``0.0`` are one label).
    n_rows : int
        The number of data lines (examples).
    n_features : int
        The width the loaders give the file without ``n_features``: its largest feature index
        (plus one with ``zero_based=True``); 0 when no line gives a feature.
    """

    labels: np.ndarray
    n_rows: int
    n_features: int


def scan_labels(path, *, zero_based: bool = False) -> LabelScan:
    """The labels, the number of examples and the width of an svmlight / LETOR file, without parsing it.

    A label is the first token of a data line and a line's largest feature index is its last
    ``index:`` (indices increase along a line), so both are found by one scan of the bytes that
    builds no rows (a compiled kernel under the engine's compile policy, with a Python twin): it
    parses each line's label and last index, and looks for the line's end eight bytes at a time.
    A plain file of ``SPLIT_SCAN_BYTES`` or more is cut at line boundaries into
    ``PIECES`` pieces, scanned by two threads that each take the next piece not taken.  It
    runs at about memory speed, several times the speed of :func:`iter_svmlight`
    (``benchmarks/reader_checks.py`` measures the ratio).  This is what a streaming fit needs
    before its first ``partial_fit`` (the classes, and a width), without a second full parse.

    It is a scan, not a check: the lines are not validated (the reading pass reports a malformed
    line with its file and line), except that every label must be a finite number.

    Parameters
    ----------
    path : str or path-like
        The file (plain, gzip or bz2, as for :func:`iter_svmlight`).
    zero_based : bool, default False
        Whether feature indices start at 0 (the width is then the largest index plus one).

    Returns
    -------
    LabelScan
        ``labels`` (distinct, sorted float64), ``n_rows`` and ``n_features``.

    Raises
    ------
    ValueError
        For a label that is not a finite number (with the file and the line), a damaged
        compressed file, or a file without data lines.
    """
    path = check_file(path, "svmlight")
    zero_based = check_flag(zero_based, "zero_based")
    reader = _Reader(path)
    try:
        bounds = _scan_bounds(reader) if reader.handle is reader.raw and _scan_compiled() else []
        if bounds:  # two threads, each scanning the next piece not taken
            parts = [_ScanPart() for _ in bounds[1:]]
            order = itertools.count()

            def work() -> None:
                for k in iter(order.__next__, None):
                    if k >= len(parts):
                        return
                    try:
                        _scan_range(path, bounds[k], bounds[k + 1], parts[k], True)
                    except Exception:  # scanned again below, in one thread, to raise it there
                        parts[k] = None

            helper = threading.Thread(target=work, name="predtron-scan", daemon=True)
            helper.start()
            try:
                work()
            finally:
                helper.join()
            head = _ScanPart()
            if None in parts:
                parts = []
                _scan_blocks(_read_into(reader), head, False)
            for part in parts:
                if part.problem is not None:
                    line, token = part.problem
                    head.problem = (line + head.lines, token)
                    break
                head.join(part)
        else:
            head = _ScanPart()
            _scan_blocks(_read_into(reader), head, False)
    finally:
        reader.close()
    if head.problem is not None:
        line, token = head.problem
        raise ValueError(_label_problem(path, line, token))
    if head.rows == 0:
        raise ValueError(f"{path} contains no data lines (only blank lines or comments)")
    width = head.largest + 1 if zero_based else max(head.largest, 0)
    distinct = np.unique(np.concatenate(head.labels)) if head.labels else np.empty(0)
    return LabelScan(np.asarray(distinct, dtype=np.float64), head.rows, width)


#: Plain files of at least this many bytes are scanned by two threads (see :func:`scan_labels`).
SPLIT_SCAN_BYTES = 1 << 23


class _ScanPart:
    """What the scan of one part of a file found: distinct labels (arrays), rows, the largest
    index, lines, and the first label that is not a finite number (its line in the part, its token)."""

    def __init__(self) -> None:
        self.labels: list[np.ndarray] = []
        self.rows, self.largest, self.lines = 0, -1, 0
        self.problem: tuple[int, bytes] | None = None

    def join(self, other: _ScanPart) -> None:
        """Add the next part's findings."""
        self.labels += other.labels
        self.rows += other.rows
        self.largest = max(self.largest, other.largest)
        self.lines += other.lines


def _scan_compiled() -> bool:
    """Whether the compile policy gives the compiled scan (asked with empty arrays of its types)."""
    probe = np.empty(0, dtype=np.uint8)
    return kernel.scan_block.compiled((probe, probe.view(np.uint64), np.empty(0), np.empty(0, dtype=np.int64),
                                       kernel._POW10))


def _scan_bounds(reader: _Reader) -> list[int]:
    """Where the pieces of a plain file of at least ``SPLIT_SCAN_BYTES`` bytes start (each just
    after a newline) and the file's end: ``PIECES`` pieces of about equal size ([]: too small,
    scan it in one thread)."""
    size = reader.size
    if size < SPLIT_SCAN_BYTES:
        return []
    bounds = [0]
    try:
        for k in range(1, PIECES):
            at = max(bounds[-1], size * k // PIECES)
            reader.raw.seek(at)
            while True:
                piece = reader.raw.read(1 << 16)
                found = piece.find(b"\n")
                if not piece or found >= 0:
                    break
                at += len(piece)
            if not piece or at + found + 1 >= size:
                break
            if at + found + 1 > bounds[-1]:
                bounds.append(at + found + 1)
    finally:
        reader.raw.seek(0)
    return [*bounds, size] if len(bounds) > 1 else []


def _scan_range(path: Path, start: int, stop: int, part: _ScanPart, compiled: bool) -> None:
    """Scan the bytes ``start:stop`` of a plain file (``start`` at a line's start) into ``part``."""
    with path.open("rb") as handle:
        handle.seek(start)
        if start == 0 and handle.read(len(BOM)) == BOM:  # a byte order mark before the first line
            start = len(BOM)
        handle.seek(start)
        left = stop - start

        def readinto(view: memoryview, line: int) -> int:
            nonlocal left
            got = handle.readinto(view[:min(len(view), left)]) if left > 0 else 0
            left -= got
            return got

        _scan_blocks(readinto, part, compiled)


def _read_into(reader: _Reader) -> Callable[[memoryview, int], int]:
    """``readinto(view, line)`` over :meth:`_Reader.read` (which reports a damaged file with ``line``)."""

    def readinto(view: memoryview, line: int) -> int:
        more = reader.read(len(view), line)
        view[:len(more)] = more
        return len(more)

    return readinto


def _scan_blocks(readinto: Callable[[memoryview, int], int], part: _ScanPart, compiled: bool) -> None:
    """Scan the bytes ``readinto(view, line)`` puts in a buffer, a block of whole lines at a time, into
    ``part`` (``compiled``: the compiled kernel for every block; else the compile policy decides)."""
    buf = bytearray(BLOCK_BYTES)
    have, line = 0, 1
    while part.problem is None:
        if have == len(buf):  # a line longer than the buffer
            buf.extend(bytes(len(buf)))
        with memoryview(buf) as view:
            got = readinto(view[have:], line)
        n = have + got
        if got == 0:
            if n == 0:
                break
            if buf[n - 1] != 10:  # a last line without its newline
                buf[n:n + 1] = b"\n"
                n += 1
            stop = n
        else:
            stop = buf.rfind(b"\n", 0, n) + 1
            if stop == 0:
                have = n
                continue
        data = np.frombuffer(buf, dtype=np.uint8, count=stop)
        words = data[:stop // 8 * 8].view(np.uint64)
        bound = stop // 2 + 1  # a data line holds a label and a newline (np.empty commits no memory)
        labels, odd = np.empty(bound), np.empty(bound, dtype=np.int64)
        args = (data, words, labels, odd, kernel._POW10)
        scan = kernel.scan_block.kernel if compiled or kernel.scan_block.compiled(args) else kernel.scan_block.twin
        rows, n_odd, top, lines = scan(*args)
        del data, words, args
        for row, start in zip(np.flatnonzero(np.isnan(labels[:rows])).tolist(), odd[:n_odd].tolist(), strict=True):
            token = bytes(buf[start:buf.find(b"\n", start)]).partition(b"#")[0].split()[0]
            try:
                value = float(token)
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                part.problem = (line + buf.count(b"\n", 0, start), token)
                rows = row
                break
            labels[row] = value
        part.labels.append(np.unique(labels[:rows] + 0.0))
        part.rows += rows
        part.largest = max(part.largest, top)
        part.lines += lines
        line += lines
        buf[:n - stop] = buf[stop:n]
        have = n - stop
        if got == 0:
            break


def _label_problem(path: Path, line: int, token: bytes) -> str:
    """The message for a label that is not a finite number, on line ``line``."""
    problem = _line_problem(token, False, _limit(None, None), None)
    return f"{where(path, line)}: {problem or 'the label is not a finite number'}: {show(token)}"


_DONE = object()


def prefetch(chunks: Iterator, depth: int = 1) -> Iterator:
    """Iterate ``chunks`` in a background thread, at most ``depth`` items ahead.

    The compiled parser releases the GIL, so reading, decompressing and parsing the next chunk
    overlap with whatever the caller does with the current one (a learner's compiled pass
    releases it too), as Vowpal Wabbit's parser thread does.  Items come in the same order;
    an exception of the reader is raised here, at the item where it happened; closing this
    generator stops the thread.
    """
    depth = check_int(depth, "depth", minimum=1)
    items: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce():
        try:
            for item in chunks:
                while not stop.is_set():
                    try:
                        items.put((item, None), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            outcome = (_DONE, None)
        except BaseException as exc:  # handed to the consumer, raised there
            outcome = (_DONE, exc)
        while not stop.is_set():
            try:
                items.put(outcome, timeout=0.1)
                return
            except queue.Full:
                continue

    worker = threading.Thread(target=produce, name="predtron-prefetch", daemon=True)
    worker.start()
    try:
        while True:
            item, error = items.get()
            if item is _DONE:
                if error is not None:
                    raise error
                return
            yield item
    finally:
        stop.set()
        worker.join()
        close = getattr(chunks, "close", None)
        if close is not None and not worker.is_alive():
            close()
