"""Real benchmark files (../shared/data): skipped with a message naming the path when absent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from predtron import Predtron
from predtron.data import load_arff, load_letor
from predtron.problems import Multilabel

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"benchmark data not found: {path} (only present beside the project checkout)")
    return path


@pytest.mark.parametrize(("name", "n_labels", "n_rows", "n_features"),
                         [("emotions", 6, 391, 72), ("yeast", 14, 1500, 103)])
def test_mulan_train_files(name, n_labels, n_rows, n_features):
    folder = _require(SHARED / f"mulan-{name}")
    data = load_arff(folder / f"{name}-train.arff", n_labels)
    assert data.X.shape == (n_rows, n_features) and data.Y.shape == (n_rows, n_labels)
    assert len(data.label_names) == n_labels
    assert np.isfinite(data.X).all()
    # the Mulan XML names the same (last) attributes; Y keeps the ARFF order
    named = load_arff(folder / f"{name}-train.arff", xml=folder / f"{name}.xml", sparse=True)
    assert named.label_names == data.label_names and np.array_equal(named.Y, data.Y)
    assert np.array_equal(named.X.toarray(), data.X)
    # named by nobody: the Mulan XML beside the split is found and read
    found = load_arff(folder / f"{name}-train.arff")
    assert found.label_names == data.label_names and np.array_equal(found.Y, data.Y)


def test_mq2008_validation_fold():
    data = load_letor(_require(SHARED / "letor-mq2008-fold1" / "vali.txt"))
    assert data.X.shape == (2707, 46) and data.group.size == 157 and data.group.sum() == 2707
    assert data.group.min() >= 6 and data.group.max() <= 119
    assert set(data.y.tolist()) == {0, 1, 2}
    assert data.docids[0].startswith("GX") and data.query_ids[0] == data.qid[0]


def test_predtron_learns_emotions():
    folder = _require(SHARED / "mulan-emotions")
    train = load_arff(folder / "emotions-train.arff", 6)
    test = load_arff(folder / "emotions-test.arff", 6)
    mean, std = train.X.mean(axis=0), train.X.std(axis=0) + 1e-12
    model = Predtron(Multilabel(6, "hamming", normalize=True), eta=0.1)
    model.fit((train.X - mean) / std, train.Y, epochs=5)
    learned = model.mean_loss((test.X - mean) / std, test.Y)
    # predicting the majority value of every label is the trivial baseline
    majority = (train.Y.mean(axis=0) >= 0.5).astype(int)
    trivial = np.mean(test.Y != majority)
    assert learned < trivial
