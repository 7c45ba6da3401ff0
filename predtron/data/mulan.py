"""Loader of Mulan multilabel data sets in ARFF format (dense rows, labels last).

The Mulan repository ships each data set as ARFF files whose last ``n_labels`` attributes
are the 0/1 labels, with an XML file naming them.  Only dense numeric ARFF is read; the
parser is a few lines of numpy, so no new dependency is needed.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np


class MultilabelData(NamedTuple):
    """Features ``X`` (n, p), 0/1 labels ``Y`` (n, m), and the attribute names."""

    X: np.ndarray
    Y: np.ndarray
    feature_names: list[str]
    label_names: list[str]


def load_arff(path, n_labels: int) -> MultilabelData:
    """Read a dense numeric ARFF file whose last ``n_labels`` attributes are 0/1 labels.

    Parameters
    ----------
    path : str or Path
        The ``.arff`` file.
    n_labels : int
        How many trailing attributes are labels (6 for emotions, 14 for yeast).

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist (the message names it).
    ValueError
        If the file is sparse ARFF, a row has the wrong number of values, or a label is
        not 0/1.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"ARFF file not found: {path}")
    names: list[str] = []
    rows: list[list[float]] = []
    in_data = False
    with path.open() as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.strip()
            if not line or line.startswith("%"):
                continue
            if not in_data:
                lower = line.lower()
                if lower.startswith("@attribute"):
                    names.append(line.split()[1].strip("'\""))
                elif lower.startswith("@data"):
                    in_data = True
                continue
            if line.startswith("{"):
                raise ValueError(f"{path}:{number}: sparse ARFF rows are not supported")
            values = line.split(",")
            if len(values) != len(names):
                raise ValueError(
                    f"{path}:{number}: expected {len(names)} values (one per attribute); got {len(values)}"
                )
            rows.append([float(v) for v in values])
    if not 0 < n_labels < len(names):
        raise ValueError(f"n_labels must be between 1 and {len(names) - 1} for {path}; got {n_labels}")
    data = np.array(rows, dtype=float)
    X, Y = data[:, :-n_labels], data[:, -n_labels:]
    if not np.all((Y == 0) | (Y == 1)):
        raise ValueError(f"{path}: the last {n_labels} attributes are not all 0/1 labels")
    return MultilabelData(X, Y.astype(np.int64), names[:-n_labels], names[-n_labels:])
