"""Online learners: each consumes any problem and never special-cases one."""

from predtron.learners.base import OnlineLearner
from predtron.learners.kernel import KernelPredtron
from predtron.learners.link import PredtronLink
from predtron.learners.predtron import Predtron, PredtronLD

__all__ = ["KernelPredtron", "OnlineLearner", "Predtron", "PredtronLD", "PredtronLink"]
