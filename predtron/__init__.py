"""predtron: the Predtron family of online algorithms for general prediction problems.

Reference implementation of Jain, Natarajan and Tewari, "Predtron: A Family of Online
Algorithms for General Prediction Problems" (NIPS 2015), and of neighbouring
algorithms.  A *problem* (:mod:`predtron.problems`) defines ``rep``, ``pred``, the loss,
a correct prediction and the loss-augmented oracle; *learners* consume any problem.
"""

from predtron import problems
from predtron.learners import OnlineLearner, Predtron, PredtronLD

__version__ = "0.1.0"

__all__ = ["OnlineLearner", "Predtron", "PredtronLD", "__version__", "problems"]
