"""Feature standardisation of the estimators (``standardize=True``)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


class _Standardizer:
    """Per-feature scaling learned at fit: ``(x - mean) / std`` (sparse input: ``x / rms``, no
    centring, so the matrix stays sparse).  Constant features are left unscaled."""

    def __init__(self, X):
        if sp.issparse(X):
            mean_sq = np.asarray(X.multiply(X).mean(axis=0)).ravel()
            self.mean = None
            self.scale = np.sqrt(mean_sq)
        else:
            self.mean = X.mean(axis=0)
            self.scale = X.std(axis=0)
        self.scale = np.where(self.scale > 0, self.scale, 1.0)

    def __call__(self, X):
        # The statistics decide, not the layout of X: a scaler fitted on dense data centres
        # (densifying sparse input), one fitted on sparse data only scales.
        if self.mean is None:
            return sp.csr_matrix(X @ sp.diags(1.0 / self.scale)) if sp.issparse(X) else X / self.scale
        if sp.issparse(X):
            X = X.toarray()
        return (X - self.mean) / self.scale
