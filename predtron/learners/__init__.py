"""Online learners: each consumes any problem and never special-cases one."""

from predtron.learners.base import OnlineLearner
from predtron.learners.predtron import Predtron, PredtronLD

__all__ = ["OnlineLearner", "Predtron", "PredtronLD"]
