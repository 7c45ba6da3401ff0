"""A binary cache of parsed chunks (as Vowpal Wabbit's ``--cache_file``): later passes skip parsing.

The cache is one file: the raw bytes of every chunk's arrays, one after the other, then a JSON
index (each array's name, dtype, shape and offset, and the cache's *key*), then the index's
length and a magic tag.  Nothing is pickled; reading checks the tag, the index, every dtype
(numbers only) and that every array lies inside the file.

The key names the source -- its absolute path, size, modification time and a SHA-256 of its
first 64 KiB -- and the reader's options; a cache whose key differs (the source changed, or
other options) is ignored and rebuilt.  A cache is written to a temporary file beside it and
renamed into place only after a complete pass, so an interrupted pass never leaves a partial
cache under the cache's name.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

__all__ = ["CacheWriter", "cache_key", "read_cache"]

_MAGIC = b"PTCACHE1"
_TRAILER = struct.Struct("<Q8s")
_HEAD_BYTES = 1 << 16
_DTYPES = {"float64", "float32", "int64", "int32", "int8", "uint8"}


def cache_key(source, options: dict) -> dict:
    """What a cache of ``source`` read with ``options`` (JSON values) is valid for."""
    source = Path(source).resolve()
    stat = source.stat()
    with source.open("rb") as handle:
        head = hashlib.sha256(handle.read(_HEAD_BYTES)).hexdigest()
    return {"source": str(source), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "head_sha256": head,
            "options": options}


def _index(path: Path) -> dict | None:
    """The JSON index of a cache file, or ``None`` if the file is missing or not a whole cache."""
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            if size < _TRAILER.size:
                return None
            handle.seek(size - _TRAILER.size)
            length, magic = _TRAILER.unpack(handle.read(_TRAILER.size))
            if magic != _MAGIC or length > size - _TRAILER.size:
                return None
            handle.seek(size - _TRAILER.size - length)
            index = json.loads(handle.read(length))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(index, dict) or not isinstance(index.get("chunks"), list):
        return None
    index["data_end"] = size - _TRAILER.size - length
    return index


def read_cache(path, key: dict) -> Iterator[dict[str, np.ndarray]] | None:
    """The chunks of a valid cache of ``key`` (each a dict of arrays, in order), or ``None``
    when ``path`` is missing, damaged or was built from another source or options."""
    path = Path(path)
    index = _index(path)
    if index is None or index.get("key") != key:
        return None
    return _chunks(path, index)


def _chunks(path: Path, index: dict) -> Iterator[dict[str, np.ndarray]]:
    end = index["data_end"]
    with path.open("rb") as handle:
        for entry in index["chunks"]:
            arrays = {}
            for name, (dtype, shape, offset) in entry.items():
                if dtype not in _DTYPES or not all(isinstance(s, int) and s >= 0 for s in shape):
                    raise ValueError(f"{path}: damaged cache index (array {name!r})")
                count = int(np.prod(shape, dtype=np.int64))
                if not (isinstance(offset, int) and 0 <= offset and offset + count * np.dtype(dtype).itemsize <= end):
                    raise ValueError(f"{path}: damaged cache index (array {name!r} lies outside the file)")
                handle.seek(offset)
                arrays[name] = np.fromfile(handle, dtype=dtype, count=count).reshape(shape)
            yield arrays


class CacheWriter:
    """Write chunks to a temporary file; :meth:`commit` renames it to ``path``, :meth:`abort` removes it."""

    def __init__(self, path, key: dict):
        self.path = Path(path)
        self.key = key
        descriptor, name = tempfile.mkstemp(prefix=self.path.name + ".", suffix=".tmp", dir=self.path.parent)
        self.tmp = Path(name)
        self.handle = os.fdopen(descriptor, "wb")
        self.entries: list[dict] = []

    def add(self, arrays: dict[str, np.ndarray]) -> None:
        """Append one chunk (a dict of numeric arrays)."""
        entry = {}
        for name, array in arrays.items():
            array = np.ascontiguousarray(array)
            if array.dtype.name not in _DTYPES:
                raise TypeError(f"cache array {name!r} must be numeric; got dtype {array.dtype}")
            entry[name] = [array.dtype.name, list(array.shape), self.handle.tell()]
            self.handle.write(array.tobytes())
        self.entries.append(entry)

    def commit(self) -> None:
        """Finish the file and move it into place atomically."""
        index = json.dumps({"key": self.key, "chunks": self.entries}).encode()
        self.handle.write(index)
        self.handle.write(_TRAILER.pack(len(index), _MAGIC))
        self.handle.flush()
        os.fsync(self.handle.fileno())
        self.handle.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        """Drop the partial file (an interrupted pass leaves no cache)."""
        if not self.handle.closed:
            self.handle.close()
        self.tmp.unlink(missing_ok=True)
