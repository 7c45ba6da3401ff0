"""Real benchmark files (../shared/data): skipped with a message when absent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from predtron import Predtron
from predtron.data.mulan import load_arff
from predtron.problems import Multilabel

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"benchmark data not found: {path} (only present beside the project checkout)")
    return path


@pytest.mark.parametrize(("name", "n_labels", "n_rows", "n_features"),
                         [("emotions", 6, 391, 72), ("yeast", 14, 1500, 103)])
def test_mulan_train_files(name, n_labels, n_rows, n_features):
    data = load_arff(_require(SHARED / f"mulan-{name}" / f"{name}-train.arff"), n_labels)
    assert data.X.shape == (n_rows, n_features) and data.Y.shape == (n_rows, n_labels)
    assert len(data.label_names) == n_labels
    assert np.isfinite(data.X).all()


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


def test_loader_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="ARFF file not found"):
        load_arff(tmp_path / "missing.arff", 2)
    bad = tmp_path / "bad.arff"
    bad.write_text("@relation r\n@attribute a numeric\n@attribute l {0,1}\n@data\n1.0,0\n2.0\n")
    with pytest.raises(ValueError, match=r"bad.arff:6: expected 2 values \(one per attribute\); got 1"):
        load_arff(bad, 1)
    bad.write_text("@relation r\n@attribute a numeric\n@attribute l {0,1}\n@data\n1.0,2\n")
    with pytest.raises(ValueError, match="not all 0/1 labels"):
        load_arff(bad, 1)
    bad.write_text("@relation r\n@attribute a numeric\n@attribute l {0,1}\n@data\n{0 1.0}\n")
    with pytest.raises(ValueError, match="sparse ARFF rows are not supported"):
        load_arff(bad, 1)
    bad.write_text("@relation r\n@attribute a numeric\n@attribute l {0,1}\n@data\n1.0,1\n")
    with pytest.raises(ValueError, match="n_labels must be between 1 and 1"):
        load_arff(bad, 2)
