"""The estimator core: the rules of the four estimators of :mod:`predtron.sklearn`, without scikit-learn.

Each core holds an estimator's parameters (declared once, with their checks), what its ``fit``
learns before its passes (:class:`~predtron._models.statistics.FitStatistics`: the scaler and
``eta="auto"``), the one ``partial_fit`` path, early stopping, the predictions on validated
arrays, ``coef_``/``intercept_``, sample weights and the saved state.  The public estimators of
:mod:`predtron.sklearn` are thin adapters over these classes (scikit-learn's base classes, its
validation at the public boundary, its tags); the command line's streaming fit runs a core
directly, so that it never imports scikit-learn, and saves it under its public class's name
(``persistence.saveable_as``), so that :func:`predtron.load` gives the public estimator.

``base`` (the shared parameters and rules, :class:`EstimatorCore`), ``statistics``, ``checks``
(input checks), ``coef``, ``weights``, and one module per estimator.
"""

from predtron._models.base import EstimatorCore
from predtron._models.classifier import ClassifierCore
from predtron._models.multilabel import MultilabelCore
from predtron._models.ordinal import OrdinalCore
from predtron._models.ranker import RankerCore
from predtron._models.statistics import FitStatistics

__all__ = ["ClassifierCore", "EstimatorCore", "FitStatistics", "MultilabelCore", "OrdinalCore", "RankerCore"]
