"""predtron: the Predtron family of online algorithms for general prediction problems.

Reference implementation of Jain, Natarajan and Tewari, "Predtron: A Family of Online
Algorithms for General Prediction Problems" (NIPS 2015), and of neighbouring
algorithms.  A *problem* (:mod:`predtron.problems`) defines ``rep``, ``pred``, the loss,
a correct prediction and the loss-augmented oracle; *learners* consume any problem.

The names of the package load lazily (PEP 562): ``import predtron`` imports nothing but the
version, so that the command line starts fast; ``predtron.Predtron`` or ``from predtron import
Predtron`` imports the module that defines it on first use.  :func:`load` first imports every
module that registers a saveable class, so it reads any file :func:`save` wrote.
"""

from __future__ import annotations

import importlib

from predtron._version import __version__ as __version__

#: Where each exported name is defined (a subpackage's name maps to itself).
_HOMES: dict[str, str] = {
    "SGDSVM": "predtron.learners",
    "BatchPerceptron": "predtron.learners",
    "KernelPredtron": "predtron.learners",
    "OnlineLearner": "predtron.learners",
    "Predtron": "predtron.learners",
    "PredtronLD": "predtron.learners",
    "PredtronLink": "predtron.learners",
    "EuclideanLink": "predtron.links",
    "GroupNormLink": "predtron.links",
    "PNormLink": "predtron.links",
    "SchattenLink": "predtron.links",
    "AllPairs": "predtron.reductions",
    "OneVsAll": "predtron.reductions",
    "save": "predtron.persistence",
}
_SUBPACKAGES = ("baselines", "kernels", "links", "metrics", "pa", "problems", "sklearn")

#: The modules whose import registers every saveable class (``persistence.saveable``).
_REGISTERING = ("predtron.learners", "predtron.baselines", "predtron.pa", "predtron.reductions", "predtron.kernels",
                "predtron.links", "predtron.problems", "predtron.sklearn")

__all__ = sorted([*_HOMES, *_SUBPACKAGES, "__version__", "load"], key=lambda name: (not name.isupper(), name))


def load(path):
    """Read a learner written by :func:`save` (see :func:`predtron.persistence.load`).

    Every module that registers a saveable class is imported first, so any class a file may
    name is known, whatever has been imported before.
    """
    for module in _REGISTERING:
        importlib.import_module(module)
    return importlib.import_module("predtron.persistence").load(path)


def __getattr__(name: str):
    """Import an exported name's module on first use (PEP 562)."""
    if name in _SUBPACKAGES:
        return importlib.import_module(f"predtron.{name}")
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'predtron' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
