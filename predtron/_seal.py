"""A checkpoint's ``progress.json`` bound to the state file it names and to its own entries.

A checkpoint (:mod:`predtron.streaming`, :mod:`predtron.mixing`) is two files in a folder: the
state after an epoch (an npz) and ``progress.json``, which names it and is written last.  Before
a fit resumes from them both are checked: ``progress.json`` carries the SHA-256 of the state
file's bytes and the SHA-256 of its own entries, so a state file swapped for another (another
fit's model, an earlier epoch's renamed, a damaged copy) and a progress file edited by hand
(another epoch, ``stopped`` set) are refused instead of resumed from.  The checksums detect
damage and mistakes; they are no protection against someone who rewrites both files on purpose.

A fresh fit replaces or removes in its folder only what is its own: :func:`check_fresh_folder`
refuses a folder holding a ``progress.json`` or a state file's name that is not a checkpoint
file of this package.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from collections.abc import Iterable
from pathlib import Path

#: The entries a sealed ``progress.json`` adds.
STATE_SHA256 = "state_sha256"
DIGEST = "digest"

_READ = 1 << 20


def _file_sha256(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_READ):
            sha.update(block)
    return sha.hexdigest()


def _entries_sha256(progress: dict) -> str:
    """The SHA-256 of every entry but :data:`DIGEST`, in a canonical JSON form (sorted keys)."""
    text = json.dumps({k: v for k, v in progress.items() if k != DIGEST}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def sealed(progress: dict, state_file: Path) -> dict:
    """``progress`` with the SHA-256 of the (complete) ``state_file`` and its own digest added."""
    out = {k: v for k, v in progress.items() if k not in (STATE_SHA256, DIGEST)}
    out[STATE_SHA256] = _file_sha256(Path(state_file))
    out[DIGEST] = _entries_sha256(out)
    return out


def check_sealed(progress: dict, progress_path: Path, state_file: Path) -> None:
    """Refuse (``ValueError``, naming the file) a ``progress`` whose entries or ``state_file`` do not
    match the checksums it was written with."""
    if progress.get(DIGEST) != _entries_sha256(progress):
        raise ValueError(f"{progress_path} does not match its own checksum: it was edited or damaged; start afresh "
                         "(without resuming) or restore the file")
    try:
        actual = _file_sha256(Path(state_file))
    except OSError as exc:
        raise ValueError(f"{state_file}, the state {Path(progress_path).name} names, cannot be read ({exc}); "
                         "start afresh (without resuming)") from None
    if actual != progress.get(STATE_SHA256):
        raise ValueError(f"{state_file} is not the state {Path(progress_path).name} was written with (its bytes "
                         "differ: the file was replaced or damaged); start afresh (without resuming) or restore it")


def state_pattern(prefix: str) -> str:
    """The glob pattern of a checkpoint's state files, ``{prefix}-{epoch}.npz`` (a pattern may also
    match names that are not a state's: :func:`state_files` keeps only those)."""
    return f"{prefix}-[0-9]*.npz"


def state_files(directory: Path, prefix: str) -> list[Path]:
    """The checkpoint's state files in ``directory``: exactly ``{prefix}-{epoch}.npz``, ``epoch`` a
    whole number (a file of the user's beside them, ``{prefix}-final.npz`` say, is not one)."""
    name = re.compile(rf"{re.escape(prefix)}-[0-9]+\.npz")
    return sorted(p for p in Path(directory).glob(state_pattern(prefix)) if name.fullmatch(p.name))


def check_folder(directory, name: str) -> Path:
    """``directory`` as a path, refused (``ValueError`` naming the argument ``name``) when it, or the
    nearest of its parents that exists, is not a folder (a file given where a checkpoint or cache
    folder goes is never written over, and a folder is never asked for inside a file)."""
    directory = Path(directory)
    for path in (directory, *directory.parents):
        if path.exists():
            if not path.is_dir():
                where = f"{directory} exists and is not one" if path == directory else \
                    f"{directory} would be inside {path}, which is not a folder"
                raise ValueError(f"{name} must be a folder (it is created if missing); {where}")
            break
    return directory


def check_fresh_folder(directory: Path, progress_file: str, state_prefixes: Iterable[str], state_member: str,
                       fmt: str) -> None:
    """Refuse (``ValueError``) to start a checkpoint in ``directory`` when that would replace or remove
    a file that is not this package's: a ``progress_file`` that is not a checkpoint of a format
    starting with ``fmt``, or a state file's name (:func:`state_files` of ``state_prefixes``) that is
    not an npz archive holding ``state_member`` (the checkpoint's own files, of an earlier fit, are
    replaced as before)."""
    directory = Path(directory)
    progress_path = directory / progress_file
    if progress_path.exists():
        try:
            progress = json.loads(progress_path.read_text())
        except (OSError, ValueError):
            progress = None
        if not (isinstance(progress, dict) and str(progress.get("format", "")).startswith(fmt)):
            raise ValueError(f"{progress_path} exists and is not a predtron checkpoint; it is not replaced: choose "
                             "another checkpoint folder, or remove the file")
    for prefix in state_prefixes:
        for path in state_files(directory, prefix):
            if not _holds(path, state_member):
                raise ValueError(f"{path} exists and is not a predtron checkpoint file; it is not replaced: choose "
                                 "another checkpoint folder, or remove the file")


def _holds(path: Path, member: str) -> bool:
    """Whether ``path`` is an npz (zip) archive with the member ``member``."""
    try:
        with zipfile.ZipFile(path) as archive:
            return member in archive.namelist()
    except (OSError, zipfile.BadZipFile, ValueError):
        return False
