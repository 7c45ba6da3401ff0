"""Feature scaling of the estimators (``standardize=True``)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


class _Standardizer:
    """Per-feature scaling learned at fit, which leaves 0/1 features and sparsity alone.

    * Dense input: ``(x - mean) / std`` for every feature, except a feature whose training
      values are 0 and 1 (an indicator, such as a word's presence), which is left as it
      is: standardising a rare indicator of frequency ``p`` would turn its ``1`` into about
      ``1 / sqrt(p)`` (20 for a word in one document of 400), and such features would then
      dominate the input radius.
    * Sparse input: ``x / max |x|`` per feature (no centring, so the matrix stays sparse; the
      scale of scikit-learn's ``MaxAbsScaler``), which leaves 0/1 features unchanged.

    Constant features are centred (dense input) and left unscaled.
    """

    def __init__(self, X):
        if sp.issparse(X):
            self.mean = None
            self.scale = np.asarray(abs(X).max(axis=0).todense()).ravel() if X.shape[0] else np.ones(X.shape[1])
        else:
            # The statistics are summed row-major whatever the layout of X (a pandas frame gives a
            # column-major array, whose sums over rows NumPy adds in another order).
            X = np.ascontiguousarray(X)
            indicator = np.all((X == 0) | (X == 1), axis=0) & np.any(X == 1, axis=0) & np.any(X == 0, axis=0)
            self.mean = np.where(indicator, 0.0, X.mean(axis=0))
            self.scale = np.where(indicator, 1.0, X.std(axis=0))
        self.scale = np.where(self.scale > 0, self.scale, 1.0)

    def __call__(self, X):
        # The statistics decide, not the layout of X: a scaler fitted on dense data centres
        # (densifying sparse input), one fitted on sparse data only scales.
        if self.mean is None:
            return sp.csr_matrix(X @ sp.diags(1.0 / self.scale)) if sp.issparse(X) else X / self.scale
        if sp.issparse(X):
            X = X.toarray()
        return (X - self.mean) / self.scale
