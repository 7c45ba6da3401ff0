"""The Predtron on a Dask cluster: iterative parameter mixing (McDonald, Hall and Mann, 2010).

* :mod:`predtron.dask.mixing` -- the training loop on Dask futures: one pass per shard from
  the mixed parameters, then mixing (uniform or loss-weighted);
* :mod:`predtron.dask.estimators` -- :class:`DaskPredtronClassifier`,
  :class:`DaskPredtronMultilabelClassifier`, :class:`DaskPredtronOrdinalClassifier` and
  :class:`DaskPredtronRanker` (the convention of ``lightgbm.dask``), with ``to_local()``;
* :mod:`predtron.dask.cli` -- ``predtron fit ... --workers N`` / ``--scheduler ADDRESS``.

Requires ``dask`` and ``distributed`` (pinned in ``requirements.txt``).
"""

from predtron.dask.estimators import (
    DaskPredtronClassifier,
    DaskPredtronMultilabelClassifier,
    DaskPredtronOrdinalClassifier,
    DaskPredtronRanker,
)
from predtron.dask.mixing import iterative_parameter_mixing, mixing_weights

__all__ = [
    "DaskPredtronClassifier",
    "DaskPredtronMultilabelClassifier",
    "DaskPredtronOrdinalClassifier",
    "DaskPredtronRanker",
    "iterative_parameter_mixing",
    "mixing_weights",
]
