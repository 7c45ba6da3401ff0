"""predtron._files: atomic writes, the pending list an interrupt cleans, refusing to write over an input."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from predtron._files import (
    atomic_path,
    check_writable,
    discard_pending,
    folders_made,
    pending,
    refuse_same_file,
    same_file,
)


def test_atomic_path_renames_only_a_complete_file(tmp_path):
    target = tmp_path / "model.npz"
    target.write_bytes(b"old")
    with atomic_path(target) as tmp:
        assert str(tmp) in pending()
        tmp.write_bytes(b"new")
        assert target.read_bytes() == b"old"
    assert target.read_bytes() == b"new"
    assert pending() == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.npz"]


def test_atomic_path_leaves_the_destination_on_error(tmp_path):
    target = tmp_path / "model.npz"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("interrupted")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.npz"]


def test_discard_pending_removes_temporaries(tmp_path):
    manager = atomic_path(tmp_path / "cache.bin")
    tmp = manager.__enter__()
    assert tmp.exists()
    discard_pending()
    assert not tmp.exists()
    with pytest.raises(FileNotFoundError):
        manager.__exit__(None, None, None)
    assert pending() == []


def test_missing_folder_is_named(tmp_path):
    with pytest.raises(ValueError, match="does not exist"), atomic_path(tmp_path / "nope" / "m.npz"):
        pass


def test_refuse_same_file_sees_links_and_relative_names(tmp_path, monkeypatch):
    data = tmp_path / "train.svm"
    data.write_text("1 1:1\n")
    link = tmp_path / "link.svm"
    os.symlink(data, link)
    assert same_file(link, data)
    with pytest.raises(ValueError, match=r"--cache .* is the input FILE"):
        refuse_same_file(link, "--cache", {"FILE": data})
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="--model"):
        refuse_same_file("train.svm", "--model", {"FILE": str(data)})
    refuse_same_file(tmp_path / "other.npz", "--model", {"FILE": data, "stdin": "-", "none": None})
    refuse_same_file(None, "--model", {"FILE": data})


def test_atomic_path_follows_a_link_and_keeps_it(tmp_path):
    target = tmp_path / "predictions.txt"
    target.write_text("old")
    link = tmp_path / "latest.txt"
    link.symlink_to(target.name)
    with atomic_path(link) as temporary:
        temporary.write_text("new")
    assert link.is_symlink() and target.read_text() == "new"


def test_atomic_path_writes_into_a_pipe_or_device_instead_of_replacing_it(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    with atomic_path(fifo) as destination, open(destination, "w") as handle:
        assert destination == fifo
        handle.write("through the pipe\n")
    reader.join(timeout=30)
    assert got == ["through the pipe\n"] and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_atomic_path_gives_the_permissions_of_a_new_file_or_of_the_file_replaced(tmp_path):
    old_mask = os.umask(0o027)
    try:
        with atomic_path(tmp_path / "new.txt") as temporary:
            temporary.write_text("x")
        assert stat.S_IMODE(os.stat(tmp_path / "new.txt").st_mode) == 0o640  # 0o666 less the umask, not 0o600
        (tmp_path / "kept.txt").write_text("x")
        os.chmod(tmp_path / "kept.txt", 0o604)
        with atomic_path(tmp_path / "kept.txt") as temporary:
            temporary.write_text("y")
        assert stat.S_IMODE(os.stat(tmp_path / "kept.txt").st_mode) == 0o604
    finally:
        os.umask(old_mask)


def test_atomic_path_refuses_a_folder(tmp_path):
    with pytest.raises(ValueError, match="it is a folder"), atomic_path(tmp_path):
        pass


@pytest.mark.parametrize(("make", "folder", "message"), [
    (lambda p: p.mkdir(), False, "is a folder; give a file name"),
    (lambda p: p.write_text("x"), True, "is a file; give a folder"),
    (lambda p: None, False, None),
    (lambda p: None, True, None),
])
def test_check_writable_refuses_the_wrong_kind_of_path(tmp_path, make, folder, message):
    path = tmp_path / "out"
    make(path)
    if message is None:
        check_writable(path, "--out", folder=folder)
        assert sorted(p.name for p in tmp_path.iterdir()) == []  # the probe is gone
    else:
        with pytest.raises(ValueError, match=f"--out .*{message}"):
            check_writable(path, "--out", folder=folder)


def test_check_writable_names_the_system_s_reason(tmp_path):
    with pytest.raises(ValueError, match=r"--model .*: the folder .* does not exist"):
        check_writable(tmp_path / "missing" / "m.npz", "--model")
    if Path("/proc").is_dir():  # a virtual file system where no file can be created, even by root
        with pytest.raises(ValueError, match=r"--model /proc/m\.npz: no file can be written in /proc \("):
            check_writable("/proc/m.npz", "--model")
    check_writable(os.devnull, "--output")  # a device is written in place


def test_folders_made_are_removed_while_empty_on_failure_and_by_discard_pending(tmp_path):
    """The folders a task makes go when it fails, and when an interrupt handler (which ends the process
    without unwinding) calls discard_pending; a folder holding a file stays, and its parents."""
    inner = tmp_path / "a" / "b"
    with pytest.raises(RuntimeError), folders_made([inner, inner.parent]):
        inner.mkdir(parents=True)
        raise RuntimeError
    assert not (tmp_path / "a").exists()
    with folders_made([inner, inner.parent]):
        inner.mkdir(parents=True)
        discard_pending()  # the command line's Ctrl-C handler
        assert not (tmp_path / "a").exists()
        inner.mkdir(parents=True)
        (inner / "complete.cache").write_text("x")
        discard_pending()
        assert (inner / "complete.cache").exists()
    discard_pending()  # the block has ended: its folders are no longer listed
    assert (inner / "complete.cache").exists()
