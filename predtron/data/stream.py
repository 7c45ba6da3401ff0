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

The parser.  Lines are parsed by a compiled kernel
(:func:`~predtron.data._svmlight_kernel.parse_block`) over blocks of bytes, a whole chunk of
lines at a time; partial lines at a block's end are carried into the next block.  The kernel
takes the common syntax and hands any other line to the line-by-line Python reader of
:mod:`predtron.data.svmlight` (which accepts it as the loader does, or reports it), so the two
readers agree on every file.  The kernel releases the GIL: a chunk's bytes of
``SPLIT_BYTES`` or more are cut at line boundaries into ``PIECES`` pieces parsed by two
threads (the rows, values, line numbers and first error are the serial parse's), and
:func:`prefetch` parses the next chunk while the caller learns on the current one (so a
streamed fit uses both cores of a small machine); ``benchmarks/streaming.py`` and
``benchmarks/reader_checks.py`` measure the speed.

Chunks hold CSR matrices by default (``sparse=True``); ``sparse=False`` gives dense arrays.
Without ``n_features`` a chunk is as wide as its own largest feature index, as a file read
by the loader; pass ``n_features`` whenever chunks must agree (a learner needs it).
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
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
from predtron.data.cache import DamagedCache, HashingFile, check_cache_path, read_cache, write_cache
from predtron.data.layout import check_group_sizes
from predtron.data.letor import _check_relevance, find_sidecar, read_group_file
from predtron.data.opening import DECOMPRESSION_ERRORS, check_dense_size, check_file, show, where
from predtron.data.svmlight import (
    MAX_FEATURES,
    _check_reader_options,
    _limit,
    _line_problem,
    check_flag,
    check_inferred_dense,
    damaged_message,
)

__all__ = ["DEFAULT_CHUNK_ROWS", "LabelScan", "LetorChunk", "SvmlightChunk", "iter_letor", "iter_svmlight", "prefetch",
           "scan_labels"]

#: Default number of examples per chunk.
DEFAULT_CHUNK_ROWS = 65_536

#: Bytes read from the file at a time (more when a chunk's lines need more).
BLOCK_BYTES = 1 << 22

#: Buffers of at least this many bytes are parsed by two threads, in ``PIECES`` pieces (see
#: :meth:`_Parser.parse`).
SPLIT_BYTES = 1 << 20
PIECES = 8


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


class _Reader:
    """Bytes of a file, decompressed as it is read, with the count of raw bytes read."""

    def __init__(self, path: Path, digest: bool = False):
        self.path = path
        self.raw = path.open("rb")
        magic = self.raw.read(3)
        self.raw.seek(0)
        if digest:  # hash the bytes on disk as they are read (the cache's record of its source)
            self.raw = HashingFile(self.raw)
        if magic[:2] == b"\x1f\x8b":
            self.handle = gzip.GzipFile(fileobj=self.raw, mode="rb")
        elif magic == b"BZh":
            self.handle = bz2.BZ2File(self.raw, mode="rb")
        else:
            self.handle = self.raw
        self.size = path.stat().st_size

    def read(self, n: int, line: int) -> bytes:
        """About ``n`` bytes (fewer only at the end); ``line`` is the number of the first line not yet
        complete in what was read before.  Compressed data are decompressed a piece at a time
        (``read1``), so that a truncated file is reported after the last line it holds."""
        if self.handle is self.raw:
            return self.raw.read(n)
        pieces, size = [], 0
        try:
            while size < n:
                piece = self.handle.read1(n - size)
                if not piece:
                    break
                pieces.append(piece)
                size += len(piece)
        except DECOMPRESSION_ERRORS as exc:
            if isinstance(exc, PermissionError):
                raise
            complete = sum(piece.count(b"\n") for piece in pieces)
            raise ValueError(damaged_message(self.path, line - 1 + complete, exc)) from None
        return b"".join(pieces)

    def readinto(self, view: memoryview, line: int) -> int:
        """Read into ``view`` as :meth:`read` reads (fewer bytes only at the end); the count read."""
        if self.handle is self.raw and isinstance(self.raw, io.BufferedReader):
            return self.raw.readinto(view)
        more = self.read(len(view), line)
        view[:len(more)] = more
        return len(more)

    @property
    def position(self) -> int:
        return self.raw.tell()

    def close(self) -> None:
        if self.handle is not self.raw:
            self.handle.close()
        self.raw.close()


class _Block(NamedTuple):
    """The rows parsed from the start of a buffer."""

    labels: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    qid: np.ndarray | None
    lines: np.ndarray
    starts: np.ndarray
    next_pos: int
    next_line: int


def _join(head: _Block, tail: _Block, max_rows: int, shift: int) -> _Block:
    """The rows of ``head`` then those of ``tail`` (at most ``max_rows`` in all), ``shift`` added to
    ``tail``'s line numbers (the lines before its part of the buffer)."""
    take = min(len(tail.labels), max_rows - len(head.labels))
    if take < len(tail.labels):  # the rows beyond max_rows are parsed again with the next chunk
        next_pos, next_line = int(tail.starts[take]), int(tail.lines[take]) + shift
    else:
        next_pos, next_line = tail.next_pos, tail.next_line + shift
    nnz = int(tail.indptr[take])
    qid = None if head.qid is None else _append(head.qid, tail.qid[:take])
    indptr = _append(head.indptr, tail.indptr[1:take + 1] + head.indptr[-1])
    return _Block(_append(head.labels, tail.labels[:take]), indptr,
                  _append(head.indices, tail.indices[:nnz]), _append(head.values, tail.values[:nnz]), qid,
                  _append(head.lines, tail.lines[:take] + shift), _append(head.starts, tail.starts[:take]), next_pos,
                  next_line)


def _append(head: np.ndarray, tail: np.ndarray) -> np.ndarray:
    """``head`` followed by ``tail``: written into the room after ``head`` in the array it views when
    there is room (pages of ``np.empty`` not yet written cost no memory), else a new array."""
    base = head.base
    n, m = head.size, tail.size
    if (isinstance(base, np.ndarray) and base.ndim == 1 and base.dtype == head.dtype and base.size >= n + m
            and base.ctypes.data == head.ctypes.data):
        base[n:n + m] = tail
        return base[:n + m]
    return np.concatenate([head, tail])


def _grow(array: np.ndarray, at_least: int = 0) -> np.ndarray:
    """``array`` copied into one twice as long (or ``at_least`` long)."""
    grown = np.empty(max(2 * array.size, at_least), dtype=array.dtype)
    grown[:array.size] = array
    return grown


class _Parser:
    """Parse complete lines of a buffer into CSR rows (compiled kernel, Python for unusual lines)."""

    def __init__(self, path: Path, zero_based: bool, n_features: int | None, max_features: int | None):
        self.path = path
        self.first = 0 if zero_based else 1
        self.zero_based = zero_based
        self.limit = _limit(n_features, max_features)
        self.qid_mode = -1

    def parse(self, buf: bytearray, eof: bool, max_rows: int, line: int, newlines: int, nnz_hint: int,
              size: int | None = None) -> _Block:
        """The rows of the complete lines of ``buf[:size]`` (at most ``max_rows``; ``newlines`` bounds
        the number of newlines there, ``nnz_hint`` is a guess of the values the rows hold; ``size``
        defaults to the whole buffer).

        With the compiled kernel, a buffer of ``SPLIT_BYTES`` or more is cut at line
        boundaries into ``PIECES`` pieces, which this thread and a second one parse, each
        taking the next piece not taken (the kernel releases the GIL; on a busy machine, where
        the second thread gets little time, this one parses most pieces).  The rows are the
        serial parse's: each piece's line numbers are shifted by the lines before it, and from
        a piece that raised (a bad line), the rest is parsed again serially, so that the first
        error and its line are the serial parse's."""
        n = len(buf) if size is None else size
        if n < SPLIT_BYTES or self.qid_mode < 0 or not self._compiled(eof, max_rows, line):
            return self._parse_range(buf, eof, max_rows, line, newlines, nnz_hint, stop=n)
        bounds = [0]
        for k in range(1, PIECES):
            at = buf.find(b"\n", max(bounds[-1], n * k // PIECES), n) + 1
            if at == 0 or at >= n:
                break
            if at > bounds[-1]:
                bounds.append(at)
        bounds.append(n)
        pieces = len(bounds) - 1
        if pieces < 2:
            return self._parse_range(buf, eof, max_rows, line, newlines, nnz_hint, stop=n)
        results: list = [None] * pieces
        order = itertools.count()  # next() is atomic: each piece is taken by one thread
        done = {"block": None, "next": 0, "full": False}

        def work(parser: _Parser, after: Callable[[], None] | None = None) -> None:
            for k in iter(order.__next__, None):
                if k >= pieces:
                    return
                last = k == pieces - 1
                hint = nnz_hint if k == 0 else int(nnz_hint * (bounds[k + 1] - bounds[k]) / n * 1.25) + 1024
                try:
                    results[k] = parser._parse_range(buf, eof and last, max_rows, line if k == 0 else 0, newlines,
                                                     hint, start=bounds[k], stop=bounds[k + 1])
                except Exception:  # parsed again below, serially, to report it with its line
                    results[k] = False
                if after is not None:
                    after()

        def assemble() -> None:
            """Join the pieces parsed so far, in order, and let them go (this thread only)."""
            while not done["full"] and done["next"] < pieces and isinstance(results[done["next"]], _Block):
                piece, results[done["next"]] = results[done["next"]], None
                block = done["block"]
                done["block"] = piece if block is None else _join(block, piece, max_rows, block.next_line)
                done["next"] += 1
                done["full"] = len(done["block"].labels) >= max_rows

        second = _Parser(self.path, self.zero_based, None, None)
        second.__dict__.update(self.__dict__)
        helper = threading.Thread(target=work, args=(second,), name="predtron-parse", daemon=True)
        helper.start()
        try:
            work(self, assemble)
        finally:
            helper.join()
        assemble()
        block, k = done["block"], done["next"]
        if done["full"] or k == pieces:
            return block
        # piece k raised: the rest is parsed serially, for the first error and its line
        rest = self._parse_range(buf, eof, max_rows - (0 if block is None else len(block.labels)),
                                 line if block is None else block.next_line, newlines, nnz_hint, start=bounds[k],
                                 stop=n)
        return rest if block is None else _join(block, rest, max_rows, 0)

    def _compiled(self, eof: bool, max_rows: int, line: int) -> bool:
        """Whether the compile policy gives the compiled kernel for a call of these types."""
        f8, i8 = np.empty(0), np.empty(0, dtype=np.int64)
        probe = (np.empty(0, dtype=np.uint8), 0, eof, max_rows, self.first, min(self.limit.columns, 2**62),
                 self.qid_mode, line, 0, 0, 0, f8, i8, np.empty(0, dtype=np.int32), f8, i8, i8, i8, i8,
                 np.empty(0, dtype=np.int8), i8, i8, kernel._POW10)
        return kernel.parse_block.compiled(probe)

    def _parse_range(self, buf: bytearray, eof: bool, max_rows: int, line: int, newlines: int, nnz_hint: int,
                     start: int = 0, stop: int | None = None) -> _Block:
        """The rows of the complete lines of ``buf[start:stop]`` (at most ``max_rows``; ``newlines``
        bounds the number of newlines there, ``nnz_hint`` is a guess of the values the rows hold;
        ``stop`` is the end of the buffer or a position just after a newline)."""
        end = len(buf) if stop is None else stop
        data = np.frombuffer(buf, dtype=np.uint8, count=end)
        rows_bound = min(max_rows, newlines + 1)
        capacity = max(nnz_hint, 1024)
        labels = np.empty(rows_bound)
        indptr = np.zeros(rows_bound + 1, dtype=np.int64)
        indices = np.empty(capacity, dtype=np.int32)
        values = np.empty(capacity)
        qids = np.empty(rows_bound, dtype=np.int64)
        lines = np.empty(rows_bound, dtype=np.int64)
        starts = np.empty(rows_bound, dtype=np.int64)
        slow_at, slow_kind = np.empty(1024, dtype=np.int64), np.empty(1024, dtype=np.int8)
        slow_start, slow_end = np.empty(1024, dtype=np.int64), np.empty(1024, dtype=np.int64)
        pos, rows, nnz, n_slow = start, 0, 0, 0
        limit = min(self.limit.columns, 2**62)
        args = (data, pos, eof, max_rows, self.first, limit, self.qid_mode, line, rows, nnz, n_slow, labels, indptr,
                indices, values, qids, lines, starts, slow_at, slow_kind, slow_start, slow_end, kernel._POW10)
        # the compile policy is asked once per block: the kernel, or the Python reader for every line
        parse_block = kernel.parse_block.kernel if kernel.parse_block.compiled(args) else kernel.parse_block.twin
        while True:
            status, rows, nnz, n_slow, pos, line, self.qid_mode = parse_block(
                data, pos, eof, max_rows, self.first, limit, self.qid_mode, line, rows, nnz, n_slow, labels,
                indptr, indices, values, qids, lines, starts, slow_at, slow_kind, slow_start, slow_end,
                kernel._POW10)
            if status == kernel.FULL:  # room for the whole line not taken, then go on from it
                stop = buf.find(b"\n", pos, end)
                pairs = buf.count(b":", pos, stop if stop >= 0 else end)
                if nnz + pairs > indices.size:
                    indices, values = _grow(indices, nnz + pairs), _grow(values, nnz + pairs)
                if n_slow + pairs + 1 > slow_at.size:
                    slow_at, slow_kind, slow_start, slow_end = (_grow(a, n_slow + pairs + 1) for a in
                                                                (slow_at, slow_kind, slow_start, slow_end))
                continue
            if status == kernel.OK or rows >= max_rows or pos >= end:
                break
            stop = buf.find(b"\n", pos, end)
            if stop < 0:
                if not eof:
                    break
                stop = end
            raw = bytes(buf[pos:stop])
            need = raw.count(b":") + nnz
            if need > indices.size:
                indices, values = _grow(indices, need), _grow(values, need)
            try:
                rows, nnz = self._python_line(raw, line, pos, rows, nnz, labels, indptr, indices, values, qids,
                                              lines, starts)
            except ValueError:  # an earlier line's slow number may be the first fault of the file
                self._resolve_slow(buf, end, n_slow, rows, nnz, labels, indptr, values, lines, starts, slow_at,
                                   slow_kind, slow_start, slow_end)
                raise
            pos, line = stop + 1, line + 1
        del data
        self._resolve_slow(buf, end, n_slow, rows, nnz, labels, indptr, values, lines, starts, slow_at, slow_kind,
                           slow_start, slow_end)
        return _Block(labels[:rows], indptr[:rows + 1], indices[:nnz], values[:nnz],
                      qids[:rows] if self.qid_mode == 1 else None, lines[:rows], starts[:rows], min(pos, end),
                      line)

    def _resolve_slow(self, buf, end, n_slow, rows, nnz, labels, indptr, values, lines, starts, slow_at, slow_kind,
                      slow_start, slow_end) -> None:
        """Convert the numbers the kernel left to ``float``; raise for the first row holding a
        non-finite one (an overflow such as ``1e400``)."""
        for k in range(n_slow):
            value = float(bytes(buf[slow_start[k]:slow_end[k]]))
            if slow_kind[k] == kernel.SLOW_LABEL:
                labels[slow_at[k]] = value
            else:
                values[slow_at[k]] = value
        if n_slow and (not np.all(np.isfinite(labels[:rows])) or not np.all(np.isfinite(values[:nnz]))):
            self._raise_nonfinite(bytes(buf[:end]), labels[:rows], indptr[:rows + 1], values[:nnz], lines[:rows],
                                  starts[:rows])

    def _python_line(self, raw: bytes, line: int, pos: int, rows, nnz, labels, indptr, indices, values, qids, lines,
                     starts):
        """Read one line the kernel did not take, with the loader's rules (or raise its message)."""
        body = raw.partition(b"#")[0]
        tokens = body.split()
        if not tokens:
            return rows, nnz
        expected = None if self.qid_mode < 0 else bool(self.qid_mode)
        problem = _line_problem(body, self.zero_based, self.limit, expected)
        if problem is not None:
            raise ValueError(f"{where(self.path, line)}: {problem}: {show(raw)}")
        labels[rows] = float(tokens[0])
        features = tokens[1:]
        here = bool(features) and features[0].startswith(b"qid")
        if here:
            qids[rows] = int(features.pop(0)[4:])
        if self.qid_mode < 0:
            self.qid_mode = int(here)
        for token in features:
            index, _, value = token.partition(b":")
            indices[nnz] = int(index) - self.first
            values[nnz] = float(value)
            nnz += 1
        lines[rows], starts[rows] = line, pos
        rows += 1
        indptr[rows] = nnz
        return rows, nnz

    def _raise_nonfinite(self, buf, labels, indptr, values, lines, starts):
        bad_rows = np.flatnonzero(~np.isfinite(labels))
        bad_values = np.flatnonzero(~np.isfinite(values))
        rows = list(bad_rows[:1]) + list(np.searchsorted(indptr, bad_values[:1], side="right") - 1)
        row = int(min(rows))
        start = int(starts[row])
        stop = buf.find(b"\n", start)
        raw = buf[start:stop if stop >= 0 else len(buf)]
        body = raw.partition(b"#")[0]
        problem = _line_problem(body, self.zero_based, self.limit, None) or "a value is not a finite number"
        raise ValueError(f"{where(self.path, int(lines[row]))}: {problem}: {show(raw)}")


def _check_options(path, chunk_rows, sparse, zero_based, n_features, max_features):
    path, sparse, zero_based, n_features, max_features = _check_reader_options(
        path, sparse, zero_based, n_features, max_features)
    chunk_rows = check_int(chunk_rows, "chunk_rows", minimum=1)
    return path, chunk_rows, sparse, zero_based, n_features, max_features


def _raw(block: _Block, rows: int) -> dict[str, np.ndarray]:
    """The first ``rows`` rows of a block as the arrays a chunk (and the cache) is made of (views
    of the block's arrays: a block is parsed into fresh arrays, so nothing else holds them)."""
    nnz = int(block.indptr[rows])
    raw = {"values": block.values[:nnz], "indices": block.indices[:nnz], "indptr": block.indptr[:rows + 1],
           "y": block.labels[:rows], "lines": block.lines[:rows]}
    if block.qid is not None:
        raw["qid"] = block.qid[:rows]
    return raw


def _to_chunk(path, raw: dict, n_features: int | None, sparse: bool, zero_based: bool) -> SvmlightChunk:
    rows = len(raw["y"])
    indices = raw["indices"]
    width = n_features if n_features is not None else (int(indices.max()) + 1 if indices.size else 0)
    X = sp.csr_matrix((raw["values"], indices, raw["indptr"]), shape=(rows, width))
    if sparse:
        X.eliminate_zeros()
    else:
        check_dense_size(rows, width, path)
        if n_features is None:
            check_inferred_dense(path, X, raw["lines"], zero_based)
        X = X.toarray()
    return SvmlightChunk(X, raw["y"], raw.get("qid"), raw["lines"])


#: The arrays of a raw chunk (what the parser gives and the cache stores) and their dtypes.
_RAW = {"values": np.float64, "indices": np.int32, "indptr": np.int64, "y": np.float64, "lines": np.int64,
        "qid": np.int64}


def _check_raw(raw: dict, columns: int) -> None:
    """Refuse (:class:`~predtron.data.cache.DamagedCache`) a cached chunk whose arrays are not CSR rows
    the parser could have made: names, dtypes, lengths, offsets and column indices (checked before
    any matrix is built on them, so a damaged cache cannot make scipy read outside an array)."""
    names = set(raw)
    if not (names <= set(_RAW) and names >= set(_RAW) - {"qid"}) or any(
            raw[name].dtype != _RAW[name] or raw[name].ndim != 1 for name in names):
        raise DamagedCache("a cached chunk does not hold the parser's arrays")
    rows, indptr, nnz = raw["y"].size, raw["indptr"], raw["values"].size
    if (indptr.size != rows + 1 or raw["lines"].size != rows or raw["indices"].size != nnz
            or ("qid" in raw and raw["qid"].size != rows) or indptr[0] != 0 or indptr[-1] != nnz
            or np.any(indptr[1:] < indptr[:-1])
            or (nnz and (int(raw["indices"].min()) < 0 or int(raw["indices"].max()) >= columns))):
        raise DamagedCache("a cached chunk's CSR arrays are inconsistent")


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
    done = 0
    chunks = read_cache(cache, options, path)
    if chunks is not None:
        try:
            for raw in chunks:
                _check_raw(raw, columns)
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


def _chunks(path: Path, chunk_rows: int, zero_based: bool, n_features: int | None,
            max_features: int | None, cut: Callable, on_progress: Callable[[int], None] | None,
            identity: dict | None = None) -> Iterator[dict]:
    """Raw chunks of whole examples; ``cut(block, rows, complete, chunk_rows)`` says how many rows to
    emit (0: more rows are needed to end the first query).  ``identity`` (when given) receives the
    size and SHA-256 of the file's bytes once the last chunk is out."""
    parser = _Parser(path, zero_based, n_features, max_features)
    reader = _Reader(path, digest=identity is not None)
    # The bytes read and not yet parsed are buf[:filled]; buf is reused (read into in place, the rest
    # of a chunk moved to its front), so that no chunk allocates (and faults in) a new buffer.
    buf, filled = bytearray(), 0
    line, eof, want, total, newlines, reported, per_row = 1, False, chunk_rows, 0, 0, 0, 16.0
    # A plain file's newlines are not counted once a chunk gave the bytes per row: the reads then
    # stop at the bytes the next chunk should need (a compressed file counts them for its messages).
    counting, per_row_bytes = reader.handle is not reader.raw, 0.0

    def read_more(size: int = 0):
        nonlocal eof, newlines, reported, filled
        size = min(size, BLOCK_BYTES) if size > 0 else BLOCK_BYTES
        if filled + size > len(buf):  # by what is missing only (each byte added is written, so it counts)
            buf.extend(bytes(filled + size - len(buf)))
        with memoryview(buf) as view:
            got = reader.readinto(view[filled:filled + size], line + newlines)
        eof = got == 0
        if counting or not per_row_bytes:
            newlines += buf.count(b"\n", filled, filled + got)
        filled += got
        if on_progress is not None:
            position = reader.position
            on_progress(position - reported)
            reported = position

    def missing() -> int:
        """Bytes to read before the next parse (0: enough; -1: read a block)."""
        if counting or not per_row_bytes:
            return 0 if newlines >= want else -1
        return max(int(want * per_row_bytes * 1.02) + 256 - filled, 0)

    try:
        while True:
            while not eof and (size := missing()):
                read_more(max(size, 1 << 16) if size > 0 else 0)
            bound = newlines if counting or not per_row_bytes else want
            block = parser.parse(buf, eof, want, line, bound, int(per_row * min(want, bound + 1) * 1.25), filled)
            rows = len(block.labels)
            if rows == 0:
                if eof:
                    break
                read_more()  # only blank or comment lines so far
                continue
            if rows < want and not eof:  # blank or comment lines left the buffer short of rows: read on
                read_more()
                continue
            take = cut(block, rows, eof and block.next_pos >= filled, chunk_rows)
            if take == 0:  # one query longer than the rows parsed: parse more of it
                want *= 2
                continue
            chunk = _raw(block, take)
            per_row = max(len(chunk["values"]) / take, 1.0)
            total += take
            if take < rows:
                start, next_line = int(block.starts[take]), int(block.lines[take])
            else:
                start, next_line = block.next_pos, block.next_line
            if not counting:
                per_row_bytes = max(start / take, 1.0)
            del block
            buf[:filled - start] = buf[start:filled]
            filled -= start
            newlines -= next_line - line
            line = next_line
            want = chunk_rows
            yield chunk
            if eof and not buf[:filled].strip():
                break
        if total == 0:
            raise ValueError(f"{path} contains no data lines (only blank lines or comments)")
        if identity is not None:
            identity.update(reader.raw.identity())
    finally:
        reader.close()


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
    cut = _cut_queries if queries else (lambda block, rows, complete, chunk_rows: rows)
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
    source = f"the group sizes in {group_file}," if group_file is not None else "group ="
    bounds = None if sizes is None else np.cumsum(sizes)
    state = {"done": 0, "query": 0}
    first_line: dict[int, int] = {}

    def cut(block: _Block, rows: int, complete: bool, chunk_rows: int) -> int:
        if block.qid is not None:
            return _cut_queries(block, rows, complete, chunk_rows)
        if bounds is None:
            raise ValueError(f"{path} has no qid: on its lines and no group sizes were given; pass group=[...] "
                             f"or group_file=..., or put the sizes, one per line, in {path}.query")
        total = state["done"] + rows
        if complete and int(bounds[-1]) != total:
            raise ValueError(f"{source} {sizes.size} sizes summing to {int(bounds[-1])} do not match the "
                             f"{total} rows of {path}")
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
                expected = sizes[state["query"]:state["query"] + group.size]
                if not np.array_equal(expected, group):
                    raise ValueError(f"{source} sizes do not match the queries of {path} given by its qid: fields "
                                     f"(at line {int(chunk.lines[0])})")
                state["query"] += group.size
        state["done"] += n
        yield LetorChunk(chunk.X, y, qid, group, chunk.lines)
    if bounds is not None and chunk_rows and state["query"] != sizes.size:
        raise ValueError(f"{source} {sizes.size} sizes summing to {int(bounds[-1])} do not match the "
                         f"{state['done']} rows of {path}")


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
