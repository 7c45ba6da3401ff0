"""The copies shipped as package data (predtron/data/files/): shapes and counts always;
identical arrays to the originals when present."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from predtron.data import get_data_home, load_arff, load_bibtex, load_emotions, load_letor, load_mq2008
from predtron.data.shipped import DATA_ENV

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
PACKAGE_DATA = Path(__file__).resolve().parents[1] / "predtron" / "data" / "files"


@pytest.mark.parametrize(("split", "n_docs", "n_queries", "largest"),
                         [("train", 2707, 157, 118), ("test", 2874, 156, 119)])
def test_mq2008_shapes(split, n_docs, n_queries, largest):
    data = load_mq2008(split)
    assert data.X.shape == (n_docs, 46) and data.y.shape == data.qid.shape == (n_docs,)
    assert data.group.size == n_queries and data.group.sum() == n_docs
    assert data.group.min() == 6 and data.group.max() == largest
    assert set(data.y.tolist()) == {0, 1, 2} and np.all((data.X >= 0) & (data.X <= 1))
    assert all(d.startswith("GX") for d in data.docids)
    Xs, ys = data.queries()
    assert len(Xs) == n_queries and sum(len(y) for y in ys) == n_docs


def test_mq2008_splits_have_disjoint_queries_and_sparse_agrees():
    train, test = load_mq2008("train"), load_mq2008("test", sparse=True)
    assert not set(train.query_ids.tolist()) & set(test.query_ids.tolist())
    assert isinstance(test.X, sp.csr_matrix) and test.X.shape[1] == train.X.shape[1] == 46
    assert np.array_equal(test.X.toarray(), load_mq2008("test").X)


@pytest.mark.parametrize(("split", "n_rows", "label_counts"),
                         [("train", 391, [119, 107, 168, 89, 95, 131]), ("test", 202, [54, 59, 96, 59, 73, 58])])
def test_emotions_shapes_and_label_counts(split, n_rows, label_counts):
    data = load_emotions(split)
    assert data.X.shape == (n_rows, 72) and data.Y.shape == (n_rows, 6)
    assert data.Y.sum(axis=0).tolist() == label_counts
    assert data.label_names == ["amazed-suprised", "happy-pleased", "relaxing-calm", "quiet-still",
                                "sad-lonely", "angry-aggresive"]
    assert np.isfinite(data.X).all()
    assert np.array_equal(load_emotions(split, sparse=True).X.toarray(), data.X)


@pytest.mark.parametrize(("split", "n_rows", "n_nonzero", "n_tags"),
                         [("train", 4880, 334250, 11616), ("test", 2515, 173496, 6146)])
def test_bibtex_shapes_and_label_counts(split, n_rows, n_nonzero, n_tags):
    data = load_bibtex(split)
    assert isinstance(data.X, sp.csr_matrix) and data.X.shape == (n_rows, 1836) and data.Y.shape == (n_rows, 159)
    assert set(np.unique(data.X.data).tolist()) == {1.0} and data.Y.sum(axis=1).min() >= 1
    assert data.X.nnz == n_nonzero and int(data.Y.sum()) == n_tags
    assert data.label_names[0] == "TAG_2005"


def test_where_the_files_are_looked_for(tmp_path, monkeypatch):
    monkeypatch.delenv(DATA_ENV, raising=False)
    assert get_data_home() == PACKAGE_DATA
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    assert get_data_home() == tmp_path
    with pytest.raises(FileNotFoundError, match=rf"shipped data file not found: .*from \${DATA_ENV}.*unset "
                                                r"PREDTRON_DATA"):
        load_mq2008()
    assert load_emotions("test", data_home=PACKAGE_DATA).X.shape == (202, 72)
    with pytest.raises(FileNotFoundError, match="from the data_home argument"):
        load_emotions(data_home=tmp_path / "nowhere")
    with pytest.raises(ValueError, match="split must be one of"):
        load_mq2008("valid")
    with pytest.raises(TypeError, match="sparse must be True or False"):
        load_emotions(sparse="yes")


def _shared(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"original files not found: {path} (only present beside the project checkout)")
    return path


@pytest.mark.parametrize(("split", "original"), [("train", "vali.txt"), ("test", "test.txt")])
@pytest.mark.parametrize("sparse", [False, True])
def test_shipped_mq2008_equals_the_original(split, original, sparse):
    ours = load_mq2008(split, sparse=sparse)
    theirs = load_letor(_shared(SHARED / "letor-mq2008-fold1" / original), sparse=sparse)
    if sparse:
        assert (ours.X != theirs.X).nnz == 0 and ours.X.nnz == theirs.X.nnz
    else:
        assert np.array_equal(ours.X, theirs.X)
    for field in ("y", "qid", "group", "docids"):
        assert np.array_equal(getattr(ours, field), getattr(theirs, field)), field


@pytest.mark.parametrize("split", ["train", "test"])
def test_shipped_emotions_equals_the_original(split):
    ours = load_emotions(split)
    theirs = load_arff(_shared(SHARED / "mulan-emotions" / f"emotions-{split}.arff"), 6)
    assert np.array_equal(ours.X, theirs.X) and np.array_equal(ours.Y, theirs.Y)
    assert ours.feature_names == theirs.feature_names and ours.label_names == theirs.label_names


@pytest.mark.parametrize("split", ["train", "test"])
def test_shipped_bibtex_equals_the_original(split):
    ours = load_bibtex(split)
    folder = _shared(SHARED / "mulan-bibtex")
    theirs = load_arff(folder / f"bibtex-{split}.arff", xml=folder / "bibtex.xml", sparse=True)
    assert (ours.X != theirs.X).nnz == 0 and np.array_equal(ours.Y, theirs.Y)
    assert ours.feature_names == theirs.feature_names and ours.label_names == theirs.label_names
