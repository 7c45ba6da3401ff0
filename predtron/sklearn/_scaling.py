"""Feature scaling of the estimators (``standardize=True``): the scaler, whose statistics
:class:`~predtron.sklearn.FitStatistics` computes (exactly, however the data are cut)."""

from predtron._models.statistics import _Standardizer

__all__ = ["_Standardizer"]
