"""Online learners: each consumes any problem and never special-cases one."""

from predtron.learners.base import OnlineLearner
from predtron.learners.batch_perceptron import BatchPerceptron, NotSeparatedWarning
from predtron.learners.kernel import KernelPredtron
from predtron.learners.link import PredtronLink
from predtron.learners.predtron import Predtron, PredtronLD
from predtron.learners.sgd import SGDSVM, generalized_hinge

__all__ = [
    "SGDSVM",
    "BatchPerceptron",
    "KernelPredtron",
    "NotSeparatedWarning",
    "OnlineLearner",
    "Predtron",
    "PredtronLD",
    "PredtronLink",
    "generalized_hinge",
]
