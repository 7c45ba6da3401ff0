"""The compiled parse of svmlight / LETOR bytes into CSR rows, shared by every svmlight reader.

:func:`_chunks` reads a file (plain, gzip or bz2) and gives its examples as raw CSR arrays, a
chunk of whole lines at a time, with the line number of each row: the in-memory loader
(:func:`predtron.data.load_svmlight`) joins them, the streaming readers of
:mod:`predtron.data.stream` make chunks of them (and cache them).

Lines are parsed by a compiled kernel (:func:`~predtron.data._svmlight_kernel.parse_block`)
over blocks of bytes; partial lines at a block's end are carried into the next block.  The
kernel takes the common syntax and hands any other line to :meth:`_Parser._python_line`, which
applies the rules of :mod:`predtron.data._svmlight_rules` and reports a fault with its file and
line.  The kernel releases the GIL: a buffer of ``SPLIT_BYTES`` or more is cut at line
boundaries into ``PIECES`` pieces parsed by two threads (the rows, values, line numbers and
first error are the serial parse's).
"""

from __future__ import annotations

import bz2
import gzip
import io
import itertools
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np

from predtron.data import _svmlight_kernel as kernel
from predtron.data._svmlight_rules import _limit, _line_problem, damaged_message
from predtron.data.cache import HashingFile
from predtron.data.opening import DECOMPRESSION_ERRORS, show, where

#: Bytes read from the file at a time (more when a chunk's lines need more).
BLOCK_BYTES = 1 << 22

#: Buffers of at least this many bytes are parsed by two threads, in ``PIECES`` pieces (see
#: :meth:`_Parser.parse`).
SPLIT_BYTES = 1 << 20
PIECES = 8


#: The UTF-8 byte order mark, which some editors write at the start of a text file.
BOM = b"\xef\xbb\xbf"


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
        self.start = True  # nothing read yet (a byte order mark may come first)

    def read(self, n: int, line: int) -> bytes:
        """About ``n`` bytes (fewer only at the end); ``line`` is the number of the first line not yet
        complete in what was read before.  Compressed data are decompressed a piece at a time
        (``read1``), so that a truncated file is reported after the last line it holds.  A UTF-8
        byte order mark that starts the (decompressed) file, as some editors write, is dropped."""
        data = self._read(n, line)
        if self.start:
            self.start = False
            if len(data) >= len(BOM) and data.startswith(BOM):
                data = data[len(BOM):] + self._read(len(BOM), line)
        return data

    def _read(self, n: int, line: int) -> bytes:
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
        if not self.start and self.handle is self.raw and isinstance(self.raw, io.BufferedReader):
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
            text = bytes(buf[slow_start[k]:slow_end[k]])
            value = float(text)
            if slow_kind[k] == kernel.SLOW_LABEL:
                inexact = _inexact_whole_label(text, value)
                if inexact is not None:
                    start = int(starts[slow_at[k]])
                    stop = bytes(buf[start:end]).find(b"\n")
                    raw = bytes(buf[start:end if stop < 0 else start + stop])
                    raise ValueError(f"{where(self.path, int(lines[slow_at[k]]))}: {inexact}: {show(raw)}")
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
        inexact = _inexact_whole_label(tokens[0], labels[rows])
        if inexact is not None:
            raise ValueError(f"{where(self.path, line)}: {inexact}: {show(raw)}")
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


#: A label written as a whole number (an optional sign, digits, an optional ``.`` and zeros).
_WHOLE = re.compile(rb"[+-]?(\d{1,400})(?:\.0*)?")


def _inexact_whole_label(text: bytes, value: float) -> str | None:
    """Why the label ``text``, a whole number read as the float64 ``value``, is refused, or ``None``.

    Labels are held as float64, which holds every whole number up to ``2**53`` exactly; beyond,
    ``9007199254740993`` reads as ``9007199254740992``, so two class labels that differ only
    there would silently become one class.  Such a label is refused (the kernel hands every
    number beyond ``2**53`` to this slow path, so this sees all of them).
    """
    match = _WHOLE.fullmatch(text)
    if match is None or not np.isfinite(value):
        return None
    exact = int(match.group(1)) * (-1 if text.startswith(b"-") else 1)
    if exact == int(value):
        return None
    return (f"the label {text.decode()} is a whole number beyond 2**53 = 9007199254740992, which the labels' "
            f"float64 cannot hold exactly (it would read as {int(value)}, and labels differing only beyond "
            "that would merge into one); renumber the labels")


def _raw(block: _Block, rows: int) -> dict[str, np.ndarray]:
    """The first ``rows`` rows of a block as the arrays a chunk (and the cache) is made of (views
    of the block's arrays: a block is parsed into fresh arrays, so nothing else holds them)."""
    nnz = int(block.indptr[rows])
    raw = {"values": block.values[:nnz], "indices": block.indices[:nnz], "indptr": block.indptr[:rows + 1],
           "y": block.labels[:rows], "lines": block.lines[:rows]}
    if block.qid is not None:
        raw["qid"] = block.qid[:rows]
    return raw


def every_row(block: _Block, rows: int, complete: bool, chunk_rows: int) -> int:
    """The ``cut`` of :func:`_chunks` that emits every row parsed (no query boundary to keep)."""
    return rows


def _chunks(path: Path, chunk_rows: int, zero_based: bool, n_features: int | None,
            max_features: int | None, cut: Callable, on_progress: Callable[[int], None] | None,
            identity: dict | None = None) -> Iterator[dict]:
    """Raw chunks of whole examples; ``cut(block, rows, complete, chunk_rows)`` says how many rows to
    emit (0: more rows are needed to end the first query).  ``identity`` (when given) receives the
    size and SHA-256 of the file's bytes once the last chunk is out."""
    parser = _Parser(path, zero_based, n_features, max_features)
    reader = _Reader(path, digest=identity is not None)
    # The bytes read and not yet parsed are buf[:filled]; buf is reused (read into in place, the rest
    # of a chunk moved to its front), so that no chunk allocates (and faults in) a new buffer; it is
    # replaced by a larger one only when a read needs more room.
    buf, filled = bytearray(), 0
    line, eof, want, total, newlines, reported, per_row = 1, False, chunk_rows, 0, 0, 0, 16.0
    # A plain file's newlines are not counted once a chunk gave the bytes per row: the reads then
    # stop at the bytes the next chunk should need (a compressed file counts them for its messages).
    counting, per_row_bytes = reader.handle is not reader.raw, 0.0

    def read_more(size: int = 0):
        nonlocal buf, eof, newlines, reported, filled
        size = min(size, BLOCK_BYTES) if size > 0 else BLOCK_BYTES
        if filled + size > len(buf):
            # A larger buffer, not ``buf`` resized in place: a view of it may outlive its use (a frame
            # held by a sampling profiler, such as a Dask worker's, keeps its arguments), and Python
            # refuses to resize a bytearray while any view of it exists.
            grown = bytearray(filled + size)
            grown[:filled] = buf[:filled]
            buf = grown
        with memoryview(buf) as view, view[filled:filled + size] as part:  # both released here, whoever holds them
            got = reader.readinto(part, line + newlines)
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
