"""predtron: the Predtron family of online algorithms for general prediction problems.

Reference implementation of Jain, Natarajan and Tewari, "Predtron: A Family of Online
Algorithms for General Prediction Problems" (NIPS 2015), and of neighbouring
algorithms.  A *problem* (:mod:`predtron.problems`) defines ``rep``, ``pred``, the loss,
a correct prediction and the loss-augmented oracle; *learners* consume any problem.
"""

from predtron import baselines, kernels, links, metrics, pa, problems, sklearn  # every saveable class registered
from predtron._version import __version__
from predtron.learners import (
    SGDSVM,
    BatchPerceptron,
    KernelPredtron,
    OnlineLearner,
    Predtron,
    PredtronLD,
    PredtronLink,
)
from predtron.links import EuclideanLink, GroupNormLink, PNormLink, SchattenLink
from predtron.persistence import load, save
from predtron.reductions import AllPairs, OneVsAll

__all__ = [
    "SGDSVM",
    "AllPairs",
    "BatchPerceptron",
    "EuclideanLink",
    "GroupNormLink",
    "KernelPredtron",
    "OneVsAll",
    "OnlineLearner",
    "PNormLink",
    "Predtron",
    "PredtronLD",
    "PredtronLink",
    "SchattenLink",
    "__version__",
    "baselines",
    "kernels",
    "links",
    "load",
    "metrics",
    "pa",
    "problems",
    "save",
    "sklearn",
]
