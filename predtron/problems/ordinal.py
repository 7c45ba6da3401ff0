"""Ordinal regression by reduction to multiclass (Section 3)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from predtron._validation import MAX_CLASSES, check_int
from predtron.problems.general import check_loss_matrix
from predtron.problems.multiclass import Multiclass


class Ordinal(Multiclass):
    """Ordinal regression with the absolute loss ``L(sigma, y) = |sigma - y|``.

    Labels and predictions are levels ``0..l-1``; the representation is the standard
    basis of ``R^l`` (the multiclass reduction), so Theorem 1 gives the bound
    ``4 (l - 1)^2 R^2 / gamma^2`` (``C_L = l - 1``, ``c_L = 1``).

    Parameters
    ----------
    n_levels : int
        Number of levels ``l >= 2``.
    """

    _param_attributes: ClassVar[dict[str, str]] = {}
    _labels_size_name = "n_levels"

    def __init__(self, n_levels: int):
        self.n_levels = n_levels
        levels = np.arange(check_int(n_levels, "n_levels", minimum=2, maximum=MAX_CLASSES))
        self.n_classes = len(levels)
        self.costs = None
        self._setup(check_loss_matrix(np.abs(levels[:, None] - levels[None, :]).astype(float)))
        self._k = len(levels)
