"""Helpers shared by the file loaders and the command line: opening (plain, gzip, bz2), messages, size guards.

:func:`check_file`, :func:`missing_file`, :func:`open_binary` and :data:`DECOMPRESSION_ERRORS` are what a reader of
data files outside :mod:`predtron.data` (the command line) uses; the rest serves the loaders'
messages.
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
import re
import zlib
from pathlib import Path

import numpy as np

from predtron._validation import MAX_DENSE_ENTRIES

__all__ = ["DECOMPRESSION_ERRORS", "check_file", "missing_file", "open_binary"]

#: Errors raised while reading a damaged or truncated gzip / bz2 file (``gzip.BadGzipFile`` and
#: bz2's "invalid data stream" are ``OSError``).
DECOMPRESSION_ERRORS = (EOFError, zlib.error, OSError)


def missing_file(what: str, given) -> FileNotFoundError:
    """The error for a ``what`` file that does not exist at ``given`` (as the caller wrote it: a
    :class:`~pathlib.Path` would show ``http://host/f`` as ``http:/host/f``); a URL is named as one,
    since the readers take local files only."""
    text = os.fsdecode(given) if isinstance(given, (str, bytes, os.PathLike)) else str(given)
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", text):
        return FileNotFoundError(f"{what} file not found: {text} is a URL, and the readers take local files: "
                                 "download it first (for example with urllib.request.urlretrieve, or curl -O)")
    return FileNotFoundError(f"{what} file not found: {text}")


def check_file(path, what: str) -> Path:
    """``path`` as a :class:`~pathlib.Path` after checking it names an existing regular file."""
    if isinstance(path, (bytes, bytearray)):
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or path-like naming a {what} file; got {type(path).__name__}")
    given, path = path, Path(path)
    if not path.exists():
        raise missing_file(what, given)
    if not path.is_file():
        raise ValueError(f"{what} path is not a regular file: {path}")
    return path


def open_binary(path: Path) -> io.BufferedIOBase:
    """Open ``path`` for reading bytes, decompressing gzip or bz2 (recognised by their magic bytes),
    past a UTF-8 byte order mark that starts the (decompressed) text, as some editors write."""
    with path.open("rb") as handle:
        magic = handle.read(3)
    if magic[:2] == b"\x1f\x8b":
        handle = gzip.open(path, "rb")
    elif magic == b"BZh":
        handle = bz2.open(path, "rb")
    else:
        handle = path.open("rb")
    try:
        if handle.peek(3)[:3] == b"\xef\xbb\xbf":
            handle.read(3)
    except DECOMPRESSION_ERRORS as exc:  # a damaged compressed file: reported by the reads that follow
        if isinstance(exc, PermissionError):
            handle.close()
            raise
    return handle


def where(path, line: int | None = None) -> str:
    """The prefix of a message about ``path`` (and one of its lines): ``'file.txt, line 7'``."""
    return f"{path}" if line is None else f"{path}, line {line}"


def show(text, limit: int = 60) -> str:
    """A short quoted excerpt of a line or token (bytes are decoded, undecodable bytes escaped)."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="backslashreplace")
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


def excerpt(values, limit: int = 6) -> str:
    """At most ``limit`` entries of a 1-D array, then the total count: ``'[3, 5, 2, ...] (40 values)'``."""
    arr = np.asarray(values).ravel()
    items = ", ".join(repr(v) for v in arr[:limit].tolist())
    more = ", ..." if arr.size > limit else ""
    return f"[{items}{more}] ({arr.size} value{'s' if arr.size != 1 else ''})"


def check_dense_size(n_rows: int, n_columns: int, path) -> None:
    """Refuse a dense matrix above :data:`MAX_DENSE_ENTRIES` before it is allocated."""
    if n_rows * n_columns > MAX_DENSE_ENTRIES:
        raise ValueError(
            f"{path}: a dense matrix of {n_rows} rows x {n_columns} features would hold "
            f"{n_rows * n_columns:,} values, more than the limit of {MAX_DENSE_ENTRIES:,}; "
            "pass sparse=True for a scipy CSR matrix"
        )
