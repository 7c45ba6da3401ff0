"""predtron._files: atomic writes, the pending list an interrupt cleans, refusing to write over an input."""

from __future__ import annotations

import os

import pytest

from predtron._files import atomic_path, discard_pending, pending, refuse_same_file, same_file


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
