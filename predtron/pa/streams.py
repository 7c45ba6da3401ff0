"""Seeded balanced streams of batches drawn from a labelled set (the draft's balanced regime).

Each round draws one sample from every group (for binary data: a positive and a
negative; for ``K`` classes: one sample per class; for multilabel data: for every label
one sample that has it), uniformly and with replacement within the group, so rare
groups are seen as often as frequent ones whatever the imbalance.
"""

from __future__ import annotations

import numpy as np

from predtron._validation import as_label_array, check_int, check_seed, excerpt


def balanced_rounds(groups, n_rounds: int, seed: int = 0) -> np.ndarray:
    """Indices of a balanced stream: row ``t`` holds one index drawn from each group.

    Parameters
    ----------
    groups : sequence of array-like of int
        The sample indices of each group (every group non-empty).
    n_rounds : int
        Number of rounds.
    seed : int
        Seed of ``np.random.default_rng``.

    Returns
    -------
    ndarray of shape (n_rounds, len(groups))

    Examples
    --------
    >>> balanced_rounds([[0, 1, 2], [3]], n_rounds=2, seed=0)[:, 1].tolist()
    [3, 3]
    """
    n_rounds = check_int(n_rounds, "n_rounds", minimum=1)
    seed = check_seed(seed)
    if isinstance(groups, np.ndarray) and groups.dtype.kind != "O" and groups.ndim == 2:
        groups = list(groups)
    if not isinstance(groups, (list, tuple)) or not groups:
        raise ValueError(f"groups must be a list of at least one group of sample indices; got {excerpt(groups)}")
    checked = []
    for i, g in enumerate(groups):
        arr = as_label_array(g, f"groups[{i}]", booleans=False)
        if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu" or np.any(arr < 0):
            raise ValueError(f"groups[{i}] must be a non-empty 1-D array of integer indices >= 0; got {excerpt(arr)}")
        checked.append(arr.astype(np.int64))
    groups = checked
    rng = np.random.default_rng(seed)
    return np.stack([g[rng.integers(g.size, size=n_rounds)] for g in groups], axis=1)


def balanced_pairs(y, n_rounds: int, seed: int = 0) -> np.ndarray:
    """A ``(n_rounds, 2)`` array of ``[positive index, negative index]`` pairs for labels +-1."""
    y = as_label_array(y, "y", booleans=False)
    if y.ndim != 1 or y.dtype.kind not in "iuf" or not np.all((y == 1) | (y == -1)):
        raise ValueError(f"y must be a 1-D array of -1 and +1 labels; got {excerpt(y)}")
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == -1)
    if pos.size == 0 or neg.size == 0:
        raise ValueError(
            f"y: a balanced pair stream needs both classes; got {pos.size} positive and {neg.size} negative labels"
        )
    return balanced_rounds([pos, neg], n_rounds, seed)
