"""scikit-learn estimators over the generic learners.

This package is a thin layer, the way ``lightgbm.sklearn`` sits over LightGBM: each
estimator turns its constructor parameters and the labels it is given into a
:mod:`predtron.problems` problem and a core learner (:class:`~predtron.Predtron`, or
:class:`~predtron.PredtronLD` with ``loss_driven=True``), and runs the learner's exact
online loop underneath.  What lives here are the practical defaults: the averaged iterate,
a new random order of the examples at every pass, an intercept, standardised features
and several passes (measured on real data in ``benchmarks/real_data.py``; see each class),
plus the conventions of scikit-learn: labels of any values (``classes_``), all
hyperparameters in the constructor, validation at ``fit``, ``score`` higher-is-better.
With ``average=False, shuffle=False, fit_intercept=False, standardize=False, epochs=1``
an estimator is Algorithm 1 of the paper as stated.

* :class:`PredtronClassifier` -- binary and multiclass, optional cost matrix, optional
  abstention with a cost.
* :class:`PredtronMultilabelClassifier` -- indicator matrices, Hamming, subset, F1 and the
  other multilabel losses.
* :class:`PredtronOrdinalClassifier` -- ordered labels, absolute loss.
* :class:`PredtronRanker` -- learning to rank from query ids or group sizes, like
  LightGBM's ``LGBMRanker``; ``score`` is the mean NDCG@k.

Each estimator is a thin adapter over its core in :mod:`predtron._models` (the shared
parameters, declared once, their checks, the rules of ``fit``/``partial_fit``, the predictions
and the saved state, :class:`FitStatistics`; none of it imports scikit-learn, so that the command
line's streaming fit runs the cores without it): ``_adapter`` adds scikit-learn's base classes, its
validation at the public boundary and its tags, and one module per estimator names the public
class and documents it.
"""

from predtron._models.statistics import FitStatistics
from predtron.bounds import theorem1_step  # Theorem 1's step on a data set (eta='auto')
from predtron.sklearn.classifier import PredtronClassifier
from predtron.sklearn.multilabel import PredtronMultilabelClassifier
from predtron.sklearn.ordinal import PredtronOrdinalClassifier
from predtron.sklearn.ranker import PredtronRanker

__all__ = [
    "FitStatistics",
    "PredtronClassifier",
    "PredtronMultilabelClassifier",
    "PredtronOrdinalClassifier",
    "PredtronRanker",
    "theorem1_step",
]
