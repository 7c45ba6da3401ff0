"""The Predtron on a Dask cluster: iterative parameter mixing (McDonald, Hall and Mann, 2010).

* :mod:`predtron.dask.mixing` -- :func:`~predtron.dask.mixing.client_map`, the map over shards
  on Dask futures that :func:`predtron.mixing.iterative_parameter_mixing` (the loop, which
  knows nothing of Dask) runs;
* :mod:`predtron.dask.estimators` -- :class:`DaskPredtronClassifier`,
  :class:`DaskPredtronMultilabelClassifier`, :class:`DaskPredtronOrdinalClassifier` and
  :class:`DaskPredtronRanker` (the convention of ``lightgbm.dask``), with ``to_local()``;
* :mod:`predtron.dask.cli` -- ``predtron fit ... --workers N`` / ``--scheduler ADDRESS``, and
  :func:`~predtron.dask.cli.fit_files_on_cluster` (several files or a glob, read by the workers).

Requires ``dask`` and ``distributed`` (``pip install predtron[dask]``; pinned in
``requirements.txt``).
"""

import importlib

__all__ = [
    "DaskPredtronClassifier",
    "DaskPredtronMultilabelClassifier",
    "DaskPredtronOrdinalClassifier",
    "DaskPredtronRanker",
    "iterative_parameter_mixing",
    "mixing_weights",
]

_HOMES = dict.fromkeys(__all__[:4], "predtron.dask.estimators") | dict.fromkeys(__all__[4:], "predtron.dask.mixing")


def __getattr__(name: str):
    """Import Dask only when an estimator is used (``predtron.dask.cli`` stays light for the
    command line)."""
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'predtron.dask' has no attribute {name!r}")
