"""Files the package writes: complete or absent, never over an input, cleaned up on interrupt.

Every file the package writes for a user (a model, a checkpoint, a stream cache) goes through
:func:`atomic_path`: it is written under a temporary name beside its destination and renamed
onto it only once complete (``os.replace`` is atomic on one file system), so a reader or a crash
never sees a partly written file, and an existing file is replaced only by a complete one.
While a temporary file exists its name is listed in :func:`pending`, so that an interrupt
handler that ends the process at once (the command line's Ctrl-C, see :mod:`predtron.cli`) can
remove it first with :func:`discard_pending`.

:func:`refuse_same_file` refuses an output that is one of the inputs (the same file under any
name, links included): writing a cache or a model must never destroy the data it came from.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

__all__ = ["atomic_path", "check_writable", "discard_pending", "folders_made", "pending", "refuse_same_file",
           "same_file", "temporary_file"]

_PENDING: set[str] = set()
_FOLDERS: list[list[str]] = []  # the groups of folders of :func:`folders_made`, each innermost first
_LOCK = threading.Lock()


def pending() -> list[str]:
    """The temporary files being written now (by any thread), sorted."""
    with _LOCK:
        return sorted(_PENDING)


def discard_pending() -> None:
    """Remove every temporary file being written now, then the folders of :func:`folders_made` left
    empty (for a handler about to end the process)."""
    for name in pending():
        with contextlib.suppress(OSError):
            os.unlink(name)
    with _LOCK:
        groups = [list(group) for group in _FOLDERS]
    for group in groups:
        _remove_empty(group)


def _remove_empty(folders: list[str]) -> None:
    """Remove ``folders`` (innermost first) while they are empty: a folder holding a file stays, and its parents."""
    for folder in folders:
        try:
            os.rmdir(folder)
        except OSError:
            return


@contextlib.contextmanager
def folders_made(folders) -> Iterator[None]:
    """Folders a task makes (``folders``: the missing ones of its path, innermost first), removed while
    empty when the block raises (an interrupt too) or when :func:`discard_pending` runs meanwhile (the
    command line's Ctrl-C, which ends the process without unwinding): a folder that holds a file stays."""
    group = [os.fspath(folder) for folder in folders]
    with _LOCK:
        _FOLDERS.append(group)
    try:
        yield
    except BaseException:
        _remove_empty(group)
        raise
    finally:
        with _LOCK:
            _FOLDERS.remove(group)


@contextlib.contextmanager
def temporary_file(*, prefix: str, suffix: str = "") -> Iterator[Path]:
    """A new empty file in the system's temporary folder, removed when the block ends (or by
    :func:`discard_pending` when an interrupt ends the process first)."""
    handle, name = tempfile.mkstemp(prefix=prefix, suffix=suffix)
    os.close(handle)
    with _LOCK:
        _PENDING.add(name)
    try:
        yield Path(name)
    finally:
        with _LOCK:
            _PENDING.discard(name)
        with contextlib.suppress(OSError):
            os.unlink(name)


@contextlib.contextmanager
def atomic_path(path, *, suffix: str = ".tmp") -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed onto ``path`` when the block ends.

    Parameters
    ----------
    path : path-like
        The destination; its folder must exist.  A symbolic link is followed (the file it names
        is replaced, the link stays).  An existing destination that is not a regular file (a
        terminal, ``/dev/stdout``, a named pipe, a device) cannot be replaced: it is written
        to directly.  A folder is refused.
    suffix : str
        Ending of the temporary name (some writers, such as ``numpy.savez``, choose the format
        by the ending).

    Yields
    ------
    pathlib.Path
        The temporary file (created empty).  When the block ends normally it is flushed to disk,
        given the permissions a new file gets (``0o666`` less the umask) or those of the file
        it replaces, and renamed onto ``path``; when the block raises it is removed and ``path``
        is untouched.

    Raises
    ------
    ValueError
        When ``path`` is a folder, its folder does not exist, or no file can be created there
        (the message gives the system's reason).
    """
    kind = _kind(path)
    if kind == "folder":
        raise ValueError(f"cannot write {path}: it is a folder")
    if kind == "special":  # a terminal, a pipe, a device: written in place
        yield Path(path)
        return
    path = Path(os.path.realpath(path))
    folder = path.parent
    if not folder.is_dir():
        raise ValueError(f"cannot write {path}: the folder {folder} does not exist")
    try:
        descriptor, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=folder)
    except OSError as exc:
        raise ValueError(f"cannot write {path}: {exc.strerror or exc}") from None
    os.close(descriptor)
    with _LOCK:
        _PENDING.add(name)
    try:
        yield Path(name)
        with open(name, "rb") as handle:
            os.fsync(handle.fileno())
        os.chmod(name, _mode_for(path))
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    finally:
        with _LOCK:
            _PENDING.discard(name)


def _kind(path) -> str | None:
    """What ``path`` names, links followed: ``None`` (nothing yet), ``"file"`` (a regular file),
    ``"folder"``, or ``"special"`` (a terminal, a pipe, a device, a socket: written in place,
    never replaced)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return "file" if stat.S_ISREG(mode) else "folder" if stat.S_ISDIR(mode) else "special"


def _mode_for(path: Path) -> int:
    """The permissions of the file that replaces ``path``: those of the file there, else those of
    a new file (``0o666`` less the process's umask), not ``mkstemp``'s private ``0o600``."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        with _LOCK:  # the umask is read by setting it: no other thread of ours creates a file meanwhile
            mask = os.umask(0o022)
            os.umask(mask)
        return 0o666 & ~mask


def check_writable(path, name: str, *, folder: bool = False) -> None:
    """Refuse, before any work, an output that cannot be written: ``ValueError`` naming ``name``
    (the argument or flag) when ``path`` is a folder (a file is wanted), a file (``folder``: a
    folder is wanted, created if missing), its folder does not exist, or no file can be created
    where it would be written (a read-only or virtual file system, no permission).  A file's path that
    ends with a slash names a folder, and is refused too (``out/`` would write a file ``out``)."""
    given, kind = path, _kind(path)
    if folder:
        if kind not in (None, "folder"):
            raise ValueError(f"{name} {given} is a file; give a folder (it is created if missing)")
    elif kind == "folder":
        raise ValueError(f"{name} {given} is a folder; give a file name")
    elif str(given).endswith(("/", os.sep)):  # a folder's name, of a folder that does not exist
        raise ValueError(f"{name} {given} names a folder (it ends with a slash); give a file name")
    elif kind == "special":
        return  # a terminal, a pipe, a device: written in place
    path = Path(os.path.realpath(path))
    where = path if kind == "folder" else path.parent
    if not where.is_dir():
        if where.exists():  # a data file taken for a folder (data.svm/model.npz)
            raise ValueError(f"{name} {given}: {where} is a file, not a folder")
        raise ValueError(f"{name} {given}: the folder {where} does not exist")
    try:
        descriptor, probe = tempfile.mkstemp(prefix=".predtron-probe.", dir=where)
    except OSError as exc:
        raise ValueError(f"{name} {given}: no file can be written in {where} ({exc.strerror or exc})") from None
    with _LOCK:  # listed while it exists, as every temporary is (an interrupt handler removes it)
        _PENDING.add(probe)
    os.close(descriptor)
    os.unlink(probe)
    with _LOCK:
        _PENDING.discard(probe)


def same_file(a, b) -> bool:
    """Whether ``a`` and ``b`` name the same existing file (links and relative names resolved)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _stream_file(stream) -> tuple[int, int] | None:
    """``(device, inode)`` of the regular file a standard stream is redirected to or from, else ``None``
    (a terminal, a pipe, no stream on a descriptor)."""
    try:
        found = os.fstat(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return None
    return (found.st_dev, found.st_ino) if stat.S_ISREG(found.st_mode) else None


def _file_of(path) -> tuple[int, int] | None:
    """``(device, inode)`` of the existing file ``path`` (links followed), else ``None``."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


def refuse_same_file(output, output_name: str, inputs: Mapping[str, object]) -> None:
    """Raise ``ValueError`` when ``output`` is the same file as one of ``inputs``.

    Parameters
    ----------
    output : path-like or None
        The file about to be written (``"-"``: standard output; nothing is checked when it is ``None``).
    output_name : str
        How the user named it (an argument or a flag, e.g. ``"--cache"``; for standard output, what
        writes there, e.g. ``"--output -"``).
    inputs : mapping
        Each input's name (as the user gave it) to its path (``None`` is skipped).  ``"-"`` is
        standard input: when it is redirected from a file (``< data.svm``), ``output`` may not be
        that file either; an ``output`` of ``"-"`` is standard output, which may not be redirected
        to an input (``> data.svm``, ``>> data.svm``).
    """
    if output is None:
        return
    to_stdout = str(output) == "-"
    written = _stream_file(sys.stdout) if to_stdout else _file_of(output)
    for name, source in inputs.items():
        if source is None:
            continue
        if str(source) == "-":
            if written is not None and written == _stream_file(sys.stdin):
                if to_stdout:
                    raise ValueError(f"{output_name} writes to standard output, which is redirected to the file "
                                     f"standard input ({name} -) reads: writing it would destroy the input; redirect "
                                     "it to another file")
                raise ValueError(f"{output_name} {output} is the file standard input ({name} -) reads: writing "
                                 f"it would destroy the input; choose another path for {output_name}")
            continue
        if to_stdout:  # standard output redirected to a file (> or >>): it may not be an input either
            if written is not None and written == _file_of(source):
                raise ValueError(f"{output_name} writes to standard output, which is redirected to the input {name} "
                                 f"{source}: writing it would destroy the input; redirect it to another file")
            continue
        if same_file(output, source) or Path(os.path.abspath(output)) == Path(os.path.abspath(source)):
            raise ValueError(f"{output_name} {output} is the input {name} {source}: writing it would destroy the "
                             f"input; choose another path for {output_name}")
