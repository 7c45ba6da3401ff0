"""A binary cache of parsed chunks (as Vowpal Wabbit's ``--cache_file``): later passes skip parsing.

The file.  A header tag, the raw bytes of every chunk's arrays one after the other, a JSON index,
the index's length and CRC-32, and a trailing tag::

    PTCACHE2 | arrays of chunk 0 | arrays of chunk 1 | ... | JSON index | <uint64 length> <uint32 crc> PTCACHE2

The index holds the format number, the *source* (size and SHA-256 of the data file's bytes, as
stored on disk: one digest per half, so that two threads hash it at a reuse), the reader's
options and, for every chunk, each array's name, dtype, shape, offset and CRC-32.  Nothing is
pickled.

What is checked, and what a mismatch does (a cache is never trusted on its word):

* before a cache is used: the tags, the index's CRC-32 (an index edited, or with chunks dropped or
  swapped, would make a pass read a part of the data), the index's whole structure (every field of the right type,
  every array a known numeric dtype, the arrays filling the data one after the other in the index's order, so
  that an index edited with its checksum recomputed cannot drop, swap or repeat chunks), the options, and the
  source: its size from ``stat``, then the SHA-256 of each half of its bytes against the ones recorded.  Any
  mismatch (the data file rewritten, even with the same size and modification time; other options; a damaged or
  truncated cache; an index of the wrong structure) means *not this cache*: the pass parses the
  data file and writes the cache anew;
* while it is read: each array's CRC-32 (a flipped bit in values, indices or offsets), and the
  caller's structural check of each chunk (:mod:`predtron.data.stream` checks the CSR arrays
  before any matrix is built on them).  A mismatch raises :class:`DamagedCache`; the streaming
  reader then parses the data file from the start, yields the chunks not yet yielded, and writes
  a new cache (a warning says so).

The cost is measured by ``benchmarks/reader_checks.py`` (a cached pass with every check against a
full parse, and the share of it spent re-hashing the source, which two threads do, one per half);
the first pass hashes the bytes it reads anyway.  A content hash was chosen over size and times
because a rewrite can keep both.

Writing never harms a file: the cache is written under a temporary name beside it and renamed
into place after a complete pass (:func:`predtron._files.atomic_path`, so an interrupt handler can
remove the temporary file), :func:`check_cache_path` refuses a cache path that is one of the
inputs (the same file under any name), a folder that does not exist, and an existing file that is
not a cache of this package.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import struct
import threading
import zlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import numpy as np

from predtron._files import atomic_path, refuse_same_file

__all__ = ["DamagedCache", "HashingFile", "check_cache_path", "describe_source", "read_cache", "source_identity",
           "write_cache"]

FORMAT = 4  # 4: the index's CRC-32 in the trailer (3: the source's SHA-256 per half; 2: of the whole file)
_HEAD = b"PTCACHE2"
_TRAILER = struct.Struct("<QI8s")
_OLD_TAG = b"PTCACHE1"  # the first format: no header, this tag at the end (read as a cache to replace)
_DTYPES = {"float64", "float32", "int64", "int32", "int8", "uint8"}
_READ = 1 << 22


class DamagedCache(ValueError):
    """A cache whose bytes do not match their checksum or whose arrays break the reader's rules."""


class HashingFile:
    """A binary file read front to back, hashing (SHA-256) every byte that goes through it.

    Given to :mod:`gzip` / :mod:`bz2` as their ``fileobj``, it hashes the compressed bytes as
    stored on disk, the bytes :func:`source_identity` hashes again when a cache is reused: the
    first ``half`` bytes (half the file's size when it was opened) and the rest, each with its
    own digest.
    """

    def __init__(self, handle) -> None:
        self.handle = handle
        try:
            size = os.fstat(handle.fileno()).st_size
        except (AttributeError, OSError, ValueError):  # not a file on disk (an in-memory stream)
            at = handle.tell()
            size = handle.seek(0, os.SEEK_END)
            handle.seek(at)
        self.half = size // 2
        self.shas = (hashlib.sha256(), hashlib.sha256())
        self.size = 0

    def read(self, n: int = -1) -> bytes:
        data = self.handle.read(n)
        head = max(0, min(len(data), self.half - self.size))
        if head:
            self.shas[0].update(data[:head] if head < len(data) else data)
        if head < len(data):
            self.shas[1].update(data[head:] if head else data)
        self.size += len(data)
        return data

    def tell(self) -> int:
        return self.handle.tell()

    def close(self) -> None:
        self.handle.close()

    @property
    def closed(self) -> bool:
        return self.handle.closed

    def identity(self) -> dict:
        """The size and the SHA-256 of each half of the file (the bytes not read yet are read and
        hashed now)."""
        while self.read(_READ):
            pass
        return {"size": self.size, "half": self.half, "sha256": [sha.hexdigest() for sha in self.shas]}


def source_identity(path) -> dict:
    """The size and the SHA-256 of each half of the bytes of ``path`` (what a cache records of its
    source), the halves hashed by two threads (:mod:`hashlib` releases the GIL)."""
    path = Path(path)
    size = path.stat().st_size
    half = size // 2
    digests = ["", ""]

    def digest(part: int, start: int, stop: int) -> None:
        sha = hashlib.sha256()
        with path.open("rb") as handle:
            handle.seek(start)
            left = stop - start
            while left > 0:
                data = handle.read(min(_READ, left))
                if not data:
                    break
                sha.update(data)
                left -= len(data)
        digests[part] = sha.hexdigest()

    helper = threading.Thread(target=digest, args=(1, half, size), name="predtron-hash", daemon=True)
    helper.start()
    try:
        digest(0, 0, half)
    finally:
        helper.join()
    return {"size": size, "half": half, "sha256": digests}


def describe_source(path) -> str:
    """``path`` as a checkpoint records a training file: resolved path, size and 16 hexadecimal
    digits of the SHA-256 of its halves' digests (a rewrite of the same size and time is another
    file).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "a.svm").write_bytes(b"1 1:1\\n")
    6
    >>> describe_source(folder / "a.svm").endswith("a.svm (6 bytes, content 2ed28ab8ebfe57ce)")
    True
    """
    identity = source_identity(path)
    content = hashlib.sha256(" ".join(identity["sha256"]).encode()).hexdigest()[:16]
    return f"{Path(path).resolve()} ({identity['size']} bytes, content {content})"


def _is_cache_file(path: Path) -> bool:
    """Whether ``path`` (an existing file) is empty or a cache of this package (any format)."""
    with path.open("rb") as handle:
        head = handle.read(len(_HEAD))
        if not head or head == _HEAD:
            return True
        handle.seek(0, os.SEEK_END)
        if handle.tell() < len(_OLD_TAG):
            return False
        handle.seek(-len(_OLD_TAG), os.SEEK_END)
        return handle.read() == _OLD_TAG


def check_cache_path(cache, inputs: Mapping[str, object], name: str = "cache") -> Path | None:
    """``cache`` as a path, refused (``ValueError``) when writing it could harm a file.

    Parameters
    ----------
    cache : str, path-like or None
        The cache file (``None``: no cache, nothing is checked).
    inputs : mapping
        The files the reader reads (argument name to path): the cache may be none of them, under
        any name (links and relative names resolved).
    name : str
        How the caller calls the cache in messages (``"cache"``, or a flag such as ``"--cache"``).

    Raises
    ------
    TypeError
        When ``cache`` is not a path.
    ValueError
        When ``cache`` is one of ``inputs``, its folder does not exist, it is not a regular file,
        or it exists and is not a cache written by this package (it is never overwritten).
    """
    if cache is None:
        return None
    if isinstance(cache, (bytes, bytearray)):
        cache = os.fsdecode(cache)
    if not isinstance(cache, (str, os.PathLike)):
        raise TypeError(f"{name} must be a str or path-like naming a cache file; got {type(cache).__name__}")
    refuse_same_file(cache, name, inputs)
    cache = Path(cache)
    folder = cache.parent if str(cache.parent) else Path(".")
    if not folder.is_dir():
        raise ValueError(f"{name} {cache}: the folder {folder} does not exist")
    if cache.exists():
        if not cache.is_file():
            raise ValueError(f"{name} {cache} is not a regular file")
        if not _is_cache_file(cache):
            raise ValueError(f"{name} {cache} exists and is not a cache written by predtron (it does not start "
                             f"with {_HEAD.decode()}); it is not overwritten: remove it or choose another path")
    return cache


# ------------------------------------------------------------------ reading
def _entry_end(entry, at: int, data_end: int) -> int | None:
    """Where one chunk's index entry, ``{name: [dtype, shape, offset, crc32]}``, ends when its arrays lie one
    after the other from ``at`` (as :func:`write_cache` writes them) inside the data, else ``None``."""
    if not isinstance(entry, dict) or not entry:
        return None
    for name, spec in entry.items():
        if not (isinstance(name, str) and isinstance(spec, list) and len(spec) == 4):
            return None
        dtype, shape, offset, crc = spec
        if not (isinstance(dtype, str) and dtype in _DTYPES and isinstance(shape, list) and 1 <= len(shape) <= 2):
            return None
        if not all(type(s) is int and 0 <= s <= data_end for s in shape):  # (no count of bytes overflows)
            return None
        if not (type(offset) is int and offset == at and type(crc) is int and 0 <= crc < 2**32):
            return None
        at = offset + math.prod(shape) * np.dtype(dtype).itemsize
        if at > data_end:
            return None
    return at


def _index(path: Path) -> dict | None:
    """The validated JSON index of a cache file, or ``None`` if it is missing or not a whole,
    well-formed cache of this format."""
    try:
        with path.open("rb") as handle:
            if handle.read(len(_HEAD)) != _HEAD:
                return None
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            if size < len(_HEAD) + _TRAILER.size:
                return None
            handle.seek(size - _TRAILER.size)
            length, crc, magic = _TRAILER.unpack(handle.read(_TRAILER.size))
            if magic != _HEAD or length > size - _TRAILER.size - len(_HEAD):
                return None
            handle.seek(size - _TRAILER.size - length)
            raw = handle.read(length)
            if zlib.crc32(raw) != crc:
                return None
            index = json.loads(raw)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    data_end = size - _TRAILER.size - length
    if not (isinstance(index, dict) and index.get("format") == FORMAT and isinstance(index.get("chunks"), list)
            and isinstance(index.get("source"), dict) and isinstance(index.get("options"), dict)):
        return None
    source = index["source"]
    digests = source.get("sha256")
    if not (type(source.get("size")) is int and type(source.get("half")) is int and isinstance(digests, list)
            and len(digests) == 2 and all(isinstance(digest, str) for digest in digests)):
        return None
    at = len(_HEAD)  # the chunks' arrays fill the data in order (none dropped, repeated or swapped)
    for entry in index["chunks"]:
        at = _entry_end(entry, at, data_end)
        if at is None:
            return None
    return index if at == data_end else None


def read_cache(path, options: dict, source) -> Iterator[dict[str, np.ndarray]] | None:
    """The chunks of ``path`` if it is a valid cache of the file ``source`` read with ``options``.

    Returns ``None`` (build it anew) when ``path`` is missing, damaged, of another format, or was
    built from other bytes or options; the source's bytes are hashed to decide.  The chunks (dicts
    of arrays, in order) are checked against their CRC-32 as they are read: a mismatch raises
    :class:`DamagedCache`.
    """
    path = Path(path)
    index = _index(path)
    if index is None or index["options"] != json.loads(json.dumps(options)):
        return None
    try:
        if Path(source).stat().st_size != index["source"]["size"]:
            return None
    except OSError:
        return None
    if source_identity(source) != index["source"]:
        return None
    return _chunks(path, index)


def _chunks(path: Path, index: dict) -> Iterator[dict[str, np.ndarray]]:
    with path.open("rb") as handle:
        for number, entry in enumerate(index["chunks"]):
            arrays = {}
            for name, (dtype, shape, offset, crc) in entry.items():
                size = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
                data = bytearray(size)
                handle.seek(offset)
                if handle.readinto(data) != size or zlib.crc32(data) != crc:
                    raise DamagedCache(f"chunk {number} of the cache is damaged (array {name!r} does not match "
                                       "its checksum)")
                arrays[name] = np.frombuffer(data, dtype=dtype).reshape(shape)
            yield arrays


# ------------------------------------------------------------------ writing
def trailer(index: bytes) -> bytes:
    """The bytes that end a cache whose JSON index is ``index``: its length, its CRC-32 and the tag."""
    return _TRAILER.pack(len(index), zlib.crc32(index), _HEAD)


def write_cache(path, options: dict, chunks: Iterator[dict[str, np.ndarray]],
                source: Callable[[], dict]) -> Iterator[dict[str, np.ndarray]]:
    """Yield ``chunks`` while writing them to the cache ``path``, committed when they end.

    ``source()`` is called after the last chunk and returns the source's identity (``{"size",
    "half", "sha256"}``, e.g. from a :class:`HashingFile` the chunks were parsed through).  The file is
    written under a temporary name (:func:`predtron._files.atomic_path`) and renamed onto ``path``
    only then: a pass that stops early (an error, an interrupt, a consumer that stops iterating)
    leaves no cache and removes the temporary file.  Check ``path`` with :func:`check_cache_path`
    first.
    """
    with atomic_path(path, suffix=".tmp") as tmp, tmp.open("wb") as handle:
        handle.write(_HEAD)
        entries = []
        for arrays in chunks:
            entry = {}
            for name, array in arrays.items():
                array = np.ascontiguousarray(array)
                if array.dtype.name not in _DTYPES:
                    raise TypeError(f"cache array {name!r} must be numeric; got dtype {array.dtype}")
                data = memoryview(array).cast("B")
                entry[name] = [array.dtype.name, list(array.shape), handle.tell(), zlib.crc32(data)]
                handle.write(data)
            entries.append(entry)
            yield arrays
        index = json.dumps({"format": FORMAT, "source": source(), "options": options, "chunks": entries}).encode()
        handle.write(index)
        handle.write(trailer(index))
